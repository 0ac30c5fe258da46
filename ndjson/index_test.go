package ndjson

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// indexLines are lines of every shape a container takes: nested,
// empty, escaped keys and values, arrays of scalars and of objects, white
// space between tokens.
var indexLines = []string{
	`{}`,
	`[]`,
	`"text"`,
	`{"a":1}`,
	` { "a" : [ 1 , {"b":"c\"d"} , [ ] ] , "e\u0041" : {"f":{}} } `,
	`{"type":"assistant","message":{"id":"m1","content":[{"type":"text","text":"h\u00e9llo \"x\""},{"type":"tool_use","input":{"cmd":"ls -l"}}],"usage":{"input_tokens":3}}}`,
	`[[[[1]]],{"k":[true,false,null]},-1.5e3,"s"]`,
	`{"a":{"b":{"c":{"d":{"e":[{"f":"g"}]}}}}}`,
}

func TestIndexHoldsEveryContainer(t *testing.T) {
	for _, line := range indexLines {
		var x Index
		if _, err := CheckIndex([]byte(line), Options{}, &x); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		checkIndex(t, []byte(line), &x)
		if want := containers(t, line); len(x.Containers) != want {
			t.Errorf("%s: %d containers, want %d", line, len(x.Containers), want)
		}
	}
}

// checkIndex holds every indexed container of x to the line: its members,
// put back together, are the same JSON as its bytes, and Find finds it.
func checkIndex(t *testing.T, line []byte, x *Index) {
	t.Helper()
	for i, c := range x.Containers {
		if i > 0 && c.Start <= x.Containers[i-1].Start {
			t.Fatalf("%s: containers out of order", line)
		}
		if c.From < 0 {
			continue
		}
		raw := line[c.Start:c.End]
		ms, ok := x.Find(int(c.Start), int(c.End))
		if !ok || len(ms) != int(c.To-c.From) {
			t.Fatalf("%s: Find(%d, %d) = %v", line, c.Start, c.End, ok)
		}
		var b bytes.Buffer
		object := raw[0] == '{'
		b.WriteByte(raw[0])
		for j, m := range ms {
			if j > 0 {
				b.WriteByte(',')
			}
			if object {
				key := line[m.KeyStart:m.KeyEnd]
				if m.KeyEsc != bytes.ContainsRune(key, '\\') {
					t.Errorf("%s: key %s: KeyEsc %v", line, key, m.KeyEsc)
				}
				b.Write(key)
				b.WriteByte(':')
			} else if m.KeyStart != m.KeyEnd {
				t.Errorf("%s: an element with a key", line)
			}
			val := line[m.ValStart:m.ValEnd]
			if val[0] == '"' && m.ValEsc != bytes.ContainsRune(val, '\\') {
				t.Errorf("%s: value %s: ValEsc %v", line, val, m.ValEsc)
			}
			b.Write(val)
		}
		b.WriteByte(raw[len(raw)-1])
		var got, want any
		if err := json.Unmarshal(b.Bytes(), &got); err != nil {
			t.Fatalf("%s: members of %s make %s: %v", line, raw, b.Bytes(), err)
		}
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: members of %s make %s", line, raw, b.Bytes())
		}
	}
}

// containers counts the objects and arrays of a line, as encoding/json
// reads them.
func containers(t *testing.T, line string) int {
	t.Helper()
	d := json.NewDecoder(strings.NewReader(line))
	n := 0
	for {
		tok, err := d.Token()
		if err != nil {
			return n
		}
		if tok == json.Delim('{') || tok == json.Delim('[') {
			n++
		}
	}
}

func TestIndexBounded(t *testing.T) {
	// An array of more elements than the index holds is left out of it;
	// the objects before and after it, and the line's own, are in it.
	var b strings.Builder
	b.WriteString(`{"a":{"x":1},"big":[`)
	for i := range MaxIndexed + 10 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('1')
	}
	b.WriteString(`],"z":{"y":2}}`)
	line := []byte(b.String())
	var x Index
	if _, err := CheckIndex(line, Options{}, &x); err != nil {
		t.Fatal(err)
	}
	if len(x.Members) > MaxIndexed || len(x.Containers) != 4 {
		t.Fatalf("%d members, %d containers", len(x.Members), len(x.Containers))
	}
	checkIndex(t, line, &x)
	indexed := 0
	for _, c := range x.Containers {
		if c.From >= 0 {
			indexed++
		}
	}
	if x.Containers[2].From >= 0 || indexed != 3 {
		t.Errorf("the big array indexed: %+v", x.Containers)
	}
	if x.Top(line) == nil {
		t.Errorf("the line's own members are not indexed")
	}
}

func TestIndexOfRefusedLine(t *testing.T) {
	var x Index
	for _, line := range []string{`{"a":[1,2}`, `{"a":1,"a":2}`, `{"a":"\x01"}`} {
		if _, err := CheckIndex([]byte(line), Options{}, &x); err == nil {
			t.Fatalf("%q accepted", line)
		}
		if len(x.Containers) != 0 || len(x.Members) != 0 {
			t.Errorf("%q: index kept: %+v", line, x)
		}
		if _, ok := x.Find(0, len(line)); ok || x.Top([]byte(line)) != nil {
			t.Errorf("%q: Find or Top found a container", line)
		}
	}
}

func FuzzIndex(f *testing.F) {
	for _, l := range indexLines {
		f.Add([]byte(l))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		var x Index
		if _, err := CheckIndex(line, Options{}, &x); err != nil {
			return
		}
		checkIndex(t, line, &x)
		if json.Valid(line) {
			if n := containers(t, string(line)); n != len(x.Containers) && len(x.Containers) < MaxIndexed {
				t.Errorf("%d containers, want %d", len(x.Containers), n)
			}
		}
	})
}
