package schemacheck_test

import (
	"bytes"
	"os"
	"slices"
	"strings"
	"testing"

	_ "github.com/evtool/evtool/adapters"
	"github.com/evtool/evtool/convert"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/internal/schemacheck"
	"github.com/evtool/evtool/internal/testkit/teststreams"
	"github.com/evtool/evtool/ndjson"
)

// A tagged union as evtool's schemas write one: a branch per type, each
// holding "type" to a const, and one for any other type.
const union = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "oneOf": [
    {"$ref": "#/$defs/a"},
    {"$ref": "#/$defs/b"},
    {"$ref": "#/$defs/ab"},
    {"$ref": "#/$defs/loose"},
    {"$ref": "#/$defs/other"}
  ],
  "$defs": {
    "seq": {"type": "integer", "minimum": 0},
    "a": {"type": "object", "required": ["seq", "type", "n"],
      "properties": {"seq": {"$ref": "#/$defs/seq"}, "type": {"const": "a"}, "n": {"type": "integer", "maximum": 9}}},
    "b": {"type": "object", "required": ["type"], "allOf": [{"required": ["seq"], "properties": {"seq": {"$ref": "#/$defs/seq"}}}],
      "properties": {"type": {"$ref": "#/$defs/b_tag"}, "s": {"type": "string", "minLength": 2}}},
    "b_tag": {"const": "b"},
    "ab": {"type": "object", "required": ["type", "x"], "properties": {"type": {"enum": ["c", "d"]}, "x": {"type": "boolean"}}},
    "loose": {"type": "object", "properties": {"type": {"const": "e"}, "e": {"type": "null"}}, "required": ["e"]},
    "other": {"type": "object", "required": ["seq", "type"],
      "properties": {"seq": {"$ref": "#/$defs/seq"}, "type": {"type": "string", "minLength": 1, "not": {"enum": ["a", "b", "c", "d", "e"]}}}}
  }
}`

// Lines that exercise every way to a branch: each tag, none, an unknown
// one, a tag of another type, an escaped tag, a branch that does not
// require its tag, several branches at once, and values only the engine
// may judge.
var unionLines = []string{
	`{"seq":0,"type":"a","n":1}`,
	`{"seq":0,"type":"a","n":10}`,
	`{"seq":0,"type":"a"}`,
	`{"seq":0.5,"type":"a","n":1}`,
	`{"seq":1,"type":"a","n":1.0}`,
	`{"type":"a","n":1}`,
	`{"seq":0,"type":"\u0061","n":1}`,
	`{"seq":0,"type":"b","s":"xy"}`,
	`{"seq":0,"type":"b","s":"x"}`,
	`{"type":"b"}`,
	`{"type":"c","x":true}`,
	`{"type":"d","x":1}`,
	`{"seq":0,"type":"c","x":true}`,
	`{"seq":0,"type":"zzz"}`,
	`{"seq":0,"type":""}`,
	`{"seq":0,"type":5}`,
	`{"seq":0,"type":null}`,
	`{"seq":0}`,
	`{"e":null}`,
	`{"e":null,"seq":0,"type":"zzz"}`,
	`{"e":null,"seq":0}`,
	`{"e":null,"type":"e"}`,
	`{"e":null,"type":"a","seq":0,"n":1}`,
	`{"e":1,"type":"e"}`,
	`{"seq":0,"type":"e"}`,
	`{}`,
	`[]`,
	`5`,
	`"a"`,
	`null`,
}

func TestOneOfDispatch(t *testing.T) {
	fast, err := schemacheck.Compile([]byte(union))
	if err != nil {
		t.Fatal(err)
	}
	plain, err := schemacheck.CompileEveryBranch([]byte(union))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(fast.Tags(), []string{"type"}) {
		t.Fatalf("dispatches on %v, want [type]", fast.Tags())
	}
	want := map[string]schemacheck.Verdict{
		`{"seq":0,"type":"a","n":1}`:          schemacheck.Valid,
		`{"seq":0,"type":"a","n":10}`:         schemacheck.Invalid,
		`{"seq":0.5,"type":"a","n":1}`:        schemacheck.Unsure, // 0.5 is no integer, but 1.0 would be
		`{"seq":1,"type":"a","n":1.0}`:        schemacheck.Unsure,
		`{"seq":0,"type":"\u0061","n":1}`:     schemacheck.Valid,
		`{"type":"b"}`:                        schemacheck.Invalid,
		`{"type":"c","x":true}`:               schemacheck.Valid,
		`{"seq":0,"type":"zzz"}`:              schemacheck.Valid,
		`{"seq":0,"type":5}`:                  schemacheck.Invalid,
		`{"e":null}`:                          schemacheck.Valid,
		`{"e":null,"seq":0,"type":"zzz"}`:     schemacheck.Valid, // "other" holds, "loose" does not
		`{"e":null,"seq":0}`:                  schemacheck.Valid, // "loose" holds, with no tag
		`{"e":null,"type":"a","seq":0,"n":1}`: schemacheck.Valid,
		`{"seq":0,"type":"e"}`:                schemacheck.Invalid,
		`[]`:                                  schemacheck.Invalid,
	}
	for _, l := range unionLines {
		got, each := fast.Check([]byte(l)), plain.Check([]byte(l))
		if got != each {
			t.Errorf("%s: dispatch says %s, every branch in turn %s", l, got, each)
		}
		if w, ok := want[l]; ok && got != w {
			t.Errorf("%s: %s, want %s", l, got, w)
		}
	}
}

// A oneOf with no tag, told apart by the keys its branches require and
// forbid (codex-rollout's lines, gemini-chat's), dispatches on presence.
func TestOneOfPresence(t *testing.T) {
	doc := `{"oneOf": [
	  {"type": "object", "required": ["payload"], "properties": {"payload": {"type": "object"}}},
	  {"type": "object", "required": ["record_type"], "not": {"required": ["payload"]}},
	  {"type": "object", "not": {"anyOf": [{"required": ["payload"]}, {"required": ["record_type"]}]}, "required": ["id"]}
	]}`
	fast, err := schemacheck.Compile([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := schemacheck.CompileEveryBranch([]byte(doc))
	for _, l := range []string{`{"payload":{}}`, `{"payload":1}`, `{"record_type":"state"}`, `{"record_type":1,"payload":{}}`,
		`{"id":"x"}`, `{"id":"x","record_type":"s"}`, `{}`, `{"payload":{},"id":1}`} {
		if got, each := fast.Check([]byte(l)), plain.Check([]byte(l)); got != each {
			t.Errorf("%s: dispatch says %s, every branch in turn %s", l, got, each)
		}
	}
}

// TestDialectsDispatch holds every dialect's schema to a dispatch on its
// tag, and the dispatch to the plain reading on every line of the test
// streams, and on those lines with their tags changed.
func TestDialectsDispatch(t *testing.T) {
	for _, d := range dialect.All() {
		doc := d.Schema()
		if len(doc) == 0 || d.Name() == "acp" {
			continue
		}
		fast, err := schemacheck.Compile(doc)
		if err != nil {
			t.Fatalf("%s: %v", d.Name(), err)
		}
		plain, err := schemacheck.CompileEveryBranch(doc)
		if err != nil {
			t.Fatal(err)
		}
		tag := "type"
		if d.Name() == "muse" {
			tag = "payload_type"
		}
		if !slices.Contains(fast.Tags(), tag) {
			t.Errorf("%s: the oneOfs dispatch on %v, not on %s", d.Name(), fast.Tags(), tag)
		}
		n := 0
		for _, data := range streams(t, d) {
			for _, line := range bytes.Split(data, []byte("\n")) {
				if ndjson.Check(line) != nil {
					continue
				}
				for _, l := range retag(line, tag) {
					n++
					if got, each := fast.Check(l), plain.Check(l); got != each {
						t.Errorf("%s: dispatch says %s, every branch in turn %s\n%s", d.Name(), got, each, l)
					}
				}
			}
		}
		t.Logf("%s: %d lines agree", d.Name(), n)
	}
}

// streams returns the test streams of a dialect, or for one with none of
// its own (canonical) every other dialect's converted into it.
func streams(t *testing.T, d dialect.Dialect) [][]byte {
	t.Helper()
	var out [][]byte
	for _, f := range append(teststreams.Valid(d.Name()), teststreams.Invalid(d.Name())...) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, data)
	}
	if len(out) > 0 {
		return out
	}
	for _, from := range dialect.All() {
		if from.Name() == "acp" || from.Name() == d.Name() {
			continue
		}
		for _, f := range teststreams.Valid(from.Name()) {
			in, err := os.Open(f)
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			_, err = convert.Run(in, &b, f, convert.Options{From: from, To: d}, func(*convert.LineError) {})
			in.Close()
			if err == nil {
				out = append(out, b.Bytes())
			}
		}
	}
	return out
}

// retag returns the line, and the line with its tag's value replaced by
// other values: unknown, empty, of another type, missing.
func retag(line []byte, tag string) [][]byte {
	out := [][]byte{line}
	key := []byte(`"` + tag + `":`)
	i := bytes.Index(line, key)
	if i < 0 {
		return out
	}
	start := i + len(key)
	end := start
	if end < len(line) && line[end] == '"' {
		end++
		for end < len(line) && line[end] != '"' {
			if line[end] == '\\' {
				end++
			}
			end++
		}
		end++
	} else {
		return out
	}
	for _, v := range []string{`"zzz_unknown"`, `""`, `5`, `null`, `"item.completed"`, `"system"`} {
		out = append(out, []byte(string(line[:start])+v+string(line[end:])))
	}
	// and without the tag at all
	rest := strings.TrimPrefix(string(line[end:]), ",")
	out = append(out, []byte(strings.TrimSuffix(string(line[:i]), ",")+map[bool]string{true: ",", false: ""}[len(line[:i]) > 1 && rest != "}" && !strings.HasSuffix(string(line[:i]), "{")]+rest))
	return out
}

// FuzzOneOfDispatch holds the dispatch to the plain reading on any line.
func FuzzOneOfDispatch(f *testing.F) {
	for _, l := range unionLines {
		f.Add([]byte(l))
	}
	fast, err := schemacheck.Compile([]byte(union))
	if err != nil {
		f.Fatal(err)
	}
	plain, _ := schemacheck.CompileEveryBranch([]byte(union))
	f.Fuzz(func(t *testing.T, line []byte) {
		if ndjson.Check(line) != nil {
			return
		}
		if got, each := fast.Check(line), plain.Check(line); got != each {
			t.Fatalf("%s: dispatch says %s, every branch in turn %s", line, got, each)
		}
	})
}
