package jsonptr

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// gjsonOffset is Offset as it was written on gjson (a copy of the line,
// every value walked past unescaped): the reference the raw walk is held
// to.
func gjsonOffset(line []byte, ptr string) int {
	cur := gjson.ParseBytes(line)
	off := cur.Index
	if ptr == "" {
		return off
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		key := Unescape(tok)
		var next gjson.Result
		found := false
		if cur.IsArray() {
			want, err := strconv.Atoi(key)
			if err != nil {
				break
			}
			i := 0
			cur.ForEach(func(_, v gjson.Result) bool {
				if i == want {
					next, found = v, true
					return false
				}
				i++
				return true
			})
		} else if cur.IsObject() {
			cur.ForEach(func(k, v gjson.Result) bool {
				if k.Str == key {
					next, found = v, true
				}
				return true
			})
		}
		if !found {
			break
		}
		off += next.Index - cur.Index
		cur = next
		cur.Index = off
	}
	return off
}

// pointers lists a pointer to every value of v (at most max), and to a
// missing member and a missing element of each container.
func pointers(v gjson.Result, at string, out []string, max int) []string {
	out = append(out, at)
	if len(out) >= max {
		return out
	}
	switch {
	case v.IsObject():
		out = append(out, at+"/no~1such~0key")
		v.ForEach(func(k, e gjson.Result) bool {
			out = pointers(e, at+"/"+Escape(k.Str), out, max)
			return len(out) < max
		})
	case v.IsArray():
		n := 0
		v.ForEach(func(_, e gjson.Result) bool {
			out = pointers(e, at+"/"+strconv.Itoa(n), out, max)
			n++
			return len(out) < max
		})
		out = append(out, at+"/"+strconv.Itoa(n), at+"/x")
	}
	return out
}

// TestOffsetIsGJSONs: on every line of the repository's test streams and
// on hand-made lines (escaped keys and quotes, duplicates, white space,
// nesting), Offset gives gjson's offset for a pointer to every value and
// to missing ones.
func TestOffsetIsGJSONs(t *testing.T) {
	lines := []string{
		`{"a":1,"a":{"b":[1,{"c":"x\"y"}]}}`,
		` { "k\"ey" : [ "a\\", {"x~y/z":true} , null ] , "e":"\u00e9" } `,
		`[1,[2,[3,{"q":"]}\"\\"}]],{"":0}]`,
		`{"s":"a\\\"b","t":{"u":{}},"v":[]}`,
	}
	root := filepath.Join("..", "..")
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() && (d.Name() == "node_modules" || d.Name() == ".git") {
			return fs.SkipDir
		}
		if !strings.HasSuffix(p, ".jsonl") || !strings.Contains(p, "testdata") || len(lines) > 40000 {
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			return nil
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 4<<20)
		for sc.Scan() && len(lines) < 40000 {
			if len(sc.Bytes()) <= 16<<10 {
				lines = append(lines, sc.Text())
			}
		}
		return nil
	})
	if len(lines) < 5000 {
		t.Fatalf("only %d lines", len(lines))
	}
	checked := 0
	for _, l := range lines {
		if !gjson.Valid(l) {
			continue
		}
		for _, p := range pointers(gjson.Parse(l), "", nil, 60) {
			if got, want := Offset([]byte(l), p), gjsonOffset([]byte(l), p); got != want {
				t.Fatalf("Offset(%.200s, %q) = %d, gjson's %d", l, p, got, want)
			}
			checked++
		}
	}
	t.Logf("%d lines, %d pointers", len(lines), checked)
}

// FuzzOffset: on any valid JSON, Offset is gjson's for a pointer to every
// value and to missing ones; on anything else it returns without a panic.
func FuzzOffset(f *testing.F) {
	f.Add([]byte(`{"a":[1,{"b":"x\"y"}],"a":{"c":null}}`))
	f.Add([]byte(` [ {"k\\":"v"} , "]" , {} ] `))
	f.Fuzz(func(t *testing.T, line []byte) {
		if !gjson.ValidBytes(line) {
			Offset(line, "/a/0/b")
			return
		}
		for _, p := range pointers(gjson.ParseBytes(line), "", nil, 200) {
			if got, want := Offset(line, p), gjsonOffset(line, p); got != want {
				t.Fatalf("Offset(%q, %q) = %d, gjson's %d", line, p, got, want)
			}
		}
	})
}
