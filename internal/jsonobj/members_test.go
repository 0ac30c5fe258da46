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
