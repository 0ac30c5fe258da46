package jsonobj

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/evtool/evtool/ndjson"
	"github.com/tidwall/gjson"
)

// TestResetMembers holds ResetMembers, which loads a line's keys from
// where the syntax check found them, to Reset, which reads the line: the
// same keys and Results for every JSON object line of the test streams
// and probes, and for lines written to test the edges.
func TestResetMembers(t *testing.T) {
	lines := [][]byte{
		[]byte(`{}`),
		[]byte(` { "a" : 1 , "b":"x\"y", "c\u0041":true,"d":false,"e":null,"f":[1,{"g":2}],"h":{"i":"j"},"a":-1.5e3 } `),
		[]byte(`{"k":"\\","l":"","m":"é\t"}`),
	}
	n := 0
	err := filepath.WalkDir("../../testdata", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".jsonl") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		lines = append(lines, bytes.Split(data, []byte("\n"))...)
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 50 {
		t.Fatalf("only %d test streams found", n)
	}
	var a, b Object
	checked := 0
	for _, line := range lines {
		_, ms, se := ndjson.CheckMembers(line, ndjson.Options{DuplicateOK: func(string) bool { return true }}, []ndjson.Member{})
		root := View(line)
		if se != nil || !root.IsObject() {
			if ms != nil {
				t.Errorf("%s: members of a line that is not an acceptable object", line)
			}
			continue
		}
		a.Reset(root)
		b.ResetMembers(root, ms)
		if !reflect.DeepEqual(a.keys, b.keys) || !reflect.DeepEqual(a.vals, b.vals) {
			t.Fatalf("%s:\nReset        %q %#v\nResetMembers %q %#v", line, a.keys, a.vals, b.keys, b.vals)
		}
		var ea, eb []Member
		ForEach(root, func(k, v gjson.Result) bool { ea = append(ea, Member{k.Str, v}); return true })
		ForEachMember(root, ms, func(k, v gjson.Result) bool { eb = append(eb, Member{k.Str, v}); return true })
		if !reflect.DeepEqual(ea, eb) {
			t.Fatalf("%s:\nForEach       %#v\nForEachMember %#v", line, ea, eb)
		}
		checked++
	}
	if checked < 1000 {
		t.Fatalf("only %d lines checked", checked)
	}
}

// TestForEachRawOnePass holds ForEachRawMember, ForEachRawObjects and
// ForEachRawIn, the readings that take members from the syntax check, or
// read an array's elements and their members in one pass, to ForEachRaw:
// the same keys and Results for every JSON object line of the test
// streams, and for every object and array in them.
func TestForEachRawOnePass(t *testing.T) {
	lines := [][]byte{
		[]byte(`{}`),
		[]byte(`  {"a":[],"b":[1,"x",{"c":[{"d":"e\"f"},{}]},[{"g":1}],null,{"h\u0041":true}], "i" : [ { "j" : 2 } , 3 ] }`),
	}
	err := filepath.WalkDir("../../testdata", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".jsonl") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		lines = append(lines, bytes.Split(data, []byte("\n"))...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	type kv struct {
		k string
		v gjson.Result
	}
	raw := func(v gjson.Result) []kv {
		var out []kv
		ForEachRaw(v, func(k, e gjson.Result) bool { out = append(out, kv{k.Str, e}); return true })
		return out
	}
	arrays, objects := 0, 0
	var walk func(v gjson.Result)
	walk = func(v gjson.Result) {
		if v.IsArray() {
			arrays++
			var want, got []kv
			var elems, gotElems []gjson.Result
			ForEachRaw(v, func(_, e gjson.Result) bool {
				elems = append(elems, e)
				if e.IsObject() {
					want = append(want, raw(e)...)
				}
				return true
			})
			ForEachRawObjects(v, func(k, e gjson.Result) { got = append(got, kv{k.Str, e}) }, func(e gjson.Result) bool {
				gotElems = append(gotElems, e)
				return true
			})
			if !reflect.DeepEqual(elems, gotElems) || !reflect.DeepEqual(want, got) {
				t.Fatalf("%s:\nForEachRaw        %#v %#v\nForEachRawObjects %#v %#v", v.Raw, elems, want, gotElems, got)
			}
		}
		if v.IsObject() {
			// ForEachRawIn, for the key of each array value: v's members
			// as ForEachRaw gives them, the array's as ForEachRawObjects.
			for _, m := range raw(v) {
				if !m.v.IsArray() {
					continue
				}
				var wantIn, gotIn []kv
				var elems, gotElems []gjson.Result
				ForEachRawObjects(m.v, func(k, e gjson.Result) { wantIn = append(wantIn, kv{k.Str, e}) }, func(e gjson.Result) bool {
					elems = append(elems, e)
					return true
				})
				var got []kv
				ForEachRawIn(v, m.k, func(k, e gjson.Result) bool { got = append(got, kv{k.Str, e}); return true },
					func(k, e gjson.Result) { gotIn = append(gotIn, kv{k.Str, e}) },
					func(e gjson.Result) bool { gotElems = append(gotElems, e); return true })
				if want := raw(v); !reflect.DeepEqual(want, got) || !reflect.DeepEqual(wantIn, gotIn) || !reflect.DeepEqual(elems, gotElems) {
					t.Fatalf("%s: ForEachRawIn(%q) differs:\n%#v\n%#v\n%#v\n%#v", v.Raw, m.k, want, got, wantIn, gotIn)
				}
			}
		}
		ForEachRaw(v, func(_, e gjson.Result) bool {
			if e.Type == gjson.JSON {
				walk(e)
			}
			return true
		})
	}
	for _, line := range lines {
		_, ms, se := ndjson.CheckMembers(line, ndjson.Options{DuplicateOK: func(string) bool { return true }}, []ndjson.Member{})
		root := View(line)
		if se != nil || !root.IsObject() {
			continue
		}
		root.Index = len(line) - len(root.Raw)
		var got []kv
		ForEachRawMember(root, ms, func(k, e gjson.Result) bool { got = append(got, kv{k.Str, e}); return true })
		want := raw(root)
		if len(want) != len(got) {
			t.Fatalf("%s: ForEachRawMember gives %d members, ForEachRaw %d", line, len(got), len(want))
		}
		for i := range want {
			// Index aside: ForEachRawMember places values in the line.
			got[i].v.Index = want[i].v.Index
		}
		if !reflect.DeepEqual(want, got) {
			t.Fatalf("%s:\nForEachRaw       %#v\nForEachRawMember %#v", line, want, got)
		}
		objects++
		walk(root)
	}
	if objects < 1000 || arrays < 500 {
		t.Fatalf("only %d lines and %d arrays checked", objects, arrays)
	}
}
