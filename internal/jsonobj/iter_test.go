package jsonobj

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/evtool/evtool/ndjson"
	"github.com/tidwall/gjson"
)

// walk lists every key and value ForEach-like iteration meets, depth
// first, with the fields a caller reads.
func walk(v gjson.Result, each func(gjson.Result, func(k, e gjson.Result) bool)) []string {
	var out []string
	var rec func(v gjson.Result, depth int)
	rec = func(v gjson.Result, depth int) {
		each(v, func(k, e gjson.Result) bool {
			out = append(out, fmt.Sprintf("%d k=%d/%q/%q/%v/%d v=%d/%q/%q/%v/%d",
				depth, k.Type, k.Raw, k.Str, k.Num, k.Index, e.Type, e.Raw, e.Str, e.Num, e.Index))
			if e.Type == gjson.JSON {
				rec(e, depth+1)
			}
			return true
		})
	}
	rec(v, 0)
	return out
}

func gjsonEach(v gjson.Result, f func(k, e gjson.Result) bool) { v.ForEach(f) }

// agree checks that ForEach gives what gjson's ForEach gives on a line the
// syntax check accepts.
func agree(t *testing.T, line string) {
	t.Helper()
	if ndjson.Check([]byte(line)) != nil {
		return
	}
	v := gjson.Parse(line)
	want := walk(v, gjsonEach)
	got := walk(v, ForEach)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		for i := range max(len(got), len(want)) {
			var g, w string
			if i < len(got) {
				g = got[i]
			}
			if i < len(want) {
				w = want[i]
			}
			if g != w {
				t.Fatalf("line %q: item %d\n got %s\nwant %s", line, i, g, w)
			}
		}
	}
}

var iterCases = []string{
	`{"output":"Found 57 file(s) matching \"**/*.go\""}`, `{"a":"12345678\\\\","b":"\\\\\\\"x"}`,
	`{}`, `[]`, `{"a":1}`, ` { "a" : [ 1 , 2 ] , "b" : { } } `,
	`{"s":"plain","e":"a\"b\\c\/d\b\f\n\r\t","u":"\u00e9\ud83d\ude00\u2028x"}`,
	`{"n":-0.5e+10,"m":18446744073709551616,"z":0,"f":false,"t":true,"x":null}`,
	`[{"a":[[],[{}]]},"]}{[","\\",1e-400]`,
	`{"text":"ünïcödé ✓ 𝄞 and then a long run of words that is longer than eight bytes"}`,
	`"just a string"`, `12`, `true`, `null`,
	`{"k\u0041y":"v","":""}`,
}

func TestForEachAgreesWithGjson(t *testing.T) {
	for _, c := range iterCases {
		agree(t, c)
	}
}

// TestForEachOnStreams compares the two on every line of the test streams.
func TestForEachOnStreams(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/streams/*/*.jsonl")
	more, _ := filepath.Glob("../../testdata/probe/*/*.jsonl")
	files = append(files, more...)
	if len(files) == 0 {
		t.Fatal("no test streams found")
	}
	n := 0
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			agree(t, sc.Text())
			n++
		}
		fh.Close()
	}
	if n < 100 {
		t.Fatalf("only %d lines compared", n)
	}
}

func TestForEachMalformed(t *testing.T) {
	// Never a panic, whatever the bytes.
	for _, s := range []string{`{`, `{"a`, `{"a":`, `{"a":"`, `[1,`, `{"a":tru}`, `{"a" 1}`, `[-`, `{"a":{"b":[}`, `{"\`} {
		ForEach(gjson.Result{Type: gjson.JSON, Raw: s}, func(k, e gjson.Result) bool { return true })
	}
}

func TestLookup(t *testing.T) {
	v := gjson.Parse(`{"a.b":1,"c":{"d":2},"a":"x\ny","a":"second"}`)
	for _, c := range []struct{ k, want string }{{"a.b", "1"}, {"c", `{"d":2}`}, {"a", `"x\ny"`}, {"zz", ""}} {
		if got := Lookup(v, c.k).Raw; got != c.want {
			t.Errorf("Lookup(%q) = %q, want %q", c.k, got, c.want)
		}
	}
}

func FuzzForEach(f *testing.F) {
	for _, c := range iterCases {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, line string) {
		agree(t, line)
		ForEach(gjson.Result{Type: gjson.JSON, Raw: line}, func(k, e gjson.Result) bool { return true })
	})
}

func rawEach(v gjson.Result, f func(k, e gjson.Result) bool) {
	ForEachRaw(v, func(k, e gjson.Result) bool {
		return f(k, Full(e))
	})
}

func TestForEachRawWithText(t *testing.T) {
	for _, c := range iterCases {
		v := gjson.Parse(c)
		if got, want := strings.Join(walk(v, rawEach), "\n"), strings.Join(walk(v, gjsonEach), "\n"); got != want {
			t.Errorf("%s:\n got %s\nwant %s", c, got, want)
		}
	}
}

// TestSkipStringExhaustive encodes every string of up to six characters
// from a small alphabet of the bytes that matter (a quote, a backslash, a
// newline, a letter, a two-byte letter), at every offset from a word
// boundary, and reads each back.
func TestSkipStringExhaustive(t *testing.T) {
	alphabet := []string{`"`, `\`, "\n", "a", "é"}
	var rec func(prefix string, n int)
	count := 0
	rec = func(prefix string, n int) {
		for pad := range 9 {
			text := strings.Repeat("x", pad) + prefix
			enc, _ := json.Marshal(text)
			for _, after := range []string{`}`, `,"z":1}`} {
				line := `{"k":` + string(enc) + after
				v := Lookup(gjson.Parse(line), "k")
				if v.Raw != string(enc) || v.Str != text {
					t.Fatalf("%q: got raw %q str %q", line, v.Raw, v.Str)
				}
				if z := Lookup(gjson.Parse(line), "z"); after != "}" && z.Raw != "1" {
					t.Fatalf("%q: the key after the string reads %q", line, z.Raw)
				}
				count++
			}
		}
		if n == 0 {
			return
		}
		for _, c := range alphabet {
			rec(prefix+c, n-1)
		}
	}
	rec("", 6)
	if count < 100000 {
		t.Fatalf("only %d strings", count)
	}
}

// TestNumber holds the integer shortcut to strconv.ParseFloat's value.
func TestNumber(t *testing.T) {
	for _, raw := range []string{
		"0", "7", "42", "999999999999999", "1000000000000000", "9007199254740993",
		"18446744073709551615", "18446744073709551616", "-1", "-0", "1.5", "1e3",
		"0.1", "123456789012345", "12345678901234567890123", "",
	} {
		want, _ := strconv.ParseFloat(raw, 64)
		if got := number(raw); got != want || math.Signbit(got) != math.Signbit(want) {
			t.Errorf("number(%q) = %v, want %v", raw, got, want)
		}
	}
}
