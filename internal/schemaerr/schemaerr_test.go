package schemaerr_test

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/evtool/evtool/internal/schemaerr"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

const doc = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "https://example.org/t.json",
  "type": "object",
  "additionalProperties": false,
  "properties": {
    "n": {"type": "integer", "maximum": 18446744073709551615},
    "r": {"exclusiveMinimum": 0.5},
    "s": {"$ref": "#/$defs/short"},
    "e": {"anyOf": [{"$ref": "#/$defs/i32"}, {"type": "null"}]},
    "o": {"oneOf": [{"type": "integer", "minimum": 0}, {"type": "null"}]}
  },
  "$defs": {"short": {"type": "string", "maxLength": 2}, "i32": {"type": "integer", "maximum": 2147483647}}
}`

func compile(t *testing.T) *jsonschema.Schema {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("https://example.org/t.json", v); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("https://example.org/t.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestExplain(t *testing.T) {
	s := compile(t)
	line := []byte(`{"z":1,"n":18446744073709551616,"y":2,"r":0.5,"s":"abc","x":3,"a":{}}`)
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(line))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"1  additional properties 'a', 'x', 'y', 'z' not allowed additionalProperties example:/t.json#",
		"12 /n maximum: got 18446744073709551616, want at most 18446744073709551615 maximum example:/t.json#/properties/n",
		"43 /r exclusiveMinimum: got 0.5, want more than 1/2 exclusiveMinimum example:/t.json#/properties/r",
		"51 /s maxLength: got 3, want 2 maxLength example:/t.json#/$defs/short",
	}
	short := func(loc string) string { return strings.Replace(loc, "https://example.org", "example:", 1) }
	for range 30 {
		ds := schemaerr.Explain(s.Validate(inst), line, short)
		var got []string
		for _, d := range ds {
			got = append(got, fmt.Sprintf("%d %s %s %s %s", d.Col, d.Pointer, d.Message, d.Keyword, d.SchemaLocation))
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// A nullable value that fails its own type's branch is explained by that
// branch alone, not by "want null"; a value of neither type gets one type
// error that names both.
func TestExplainNullable(t *testing.T) {
	s := compile(t)
	for _, tt := range []struct{ line, want string }{
		{`{"e":4294967296}`, "6 /e maximum: got 4294967296, want at most 2147483647 maximum example:/t.json#/$defs/i32"},
		{`{"o":-1}`, "6 /o minimum: got -1, want at least 0 minimum example:/t.json#/properties/o/oneOf/0"},
		{`{"e":"x"}`, "6 /e got string, want integer or null type example:/t.json#/properties/e"},
		{`{"o":true}`, "6 /o got boolean, want integer or null type example:/t.json#/properties/o"},
	} {
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(tt.line))
		if err != nil {
			t.Fatal(err)
		}
		short := func(loc string) string { return strings.Replace(loc, "https://example.org", "example:", 1) }
		var got []string
		for _, d := range schemaerr.Explain(s.Validate(inst), []byte(tt.line), short) {
			got = append(got, fmt.Sprintf("%d %s %s %s %s", d.Col, d.Pointer, d.Message, d.Keyword, d.SchemaLocation))
		}
		if strings.Join(got, "\n") != tt.want {
			t.Errorf("%s:\ngot  %s\nwant %s", tt.line, strings.Join(got, "\n"), tt.want)
		}
	}
}

// An error that is not the engine's verdict is still said, at column 1.
func TestNotAValidationError(t *testing.T) {
	ds := schemaerr.Explain(errors.New("boom"), []byte(`{}`), nil)
	if len(ds) != 1 || ds[0].Col != 1 || ds[0].Message != "cannot be checked: boom" {
		t.Errorf("%+v", ds)
	}
}

// A tagged union as evtool's schemas write one: the line is explained by
// the branch of its type alone, and when no branch is its, by its tag.
const union = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "https://example.org/u.json",
  "oneOf": [{"$ref": "#/$defs/a"}, {"$ref": "#/$defs/b"}, {"$ref": "#/$defs/sys"}],
  "$defs": {
    "a": {"type": "object", "required": ["seq", "type", "n"],
      "properties": {"seq": {"type": "integer", "minimum": 0}, "type": {"const": "a"}, "n": {"type": "integer"}, "mode": {"enum": ["x", "y"]}}},
    "b": {"type": "object", "required": ["seq", "type"],
      "properties": {"seq": {"type": "integer", "minimum": 0}, "type": {"const": "b"}, "s": {"type": "string"}, "mode": {"enum": ["x", "y"]}}},
    "sys": {"oneOf": [{"$ref": "#/$defs/sys_init"}, {"$ref": "#/$defs/sys_other"}]},
    "sys_init": {"type": "object", "required": ["seq", "type", "subtype", "cwd"],
      "properties": {"seq": {"type": "integer", "minimum": 0}, "type": {"const": "system"}, "subtype": {"const": "init"}, "cwd": {"type": "string"}, "mode": {"enum": ["x", "y"]}}},
    "sys_other": {"type": "object", "required": ["seq", "type", "subtype"],
      "properties": {"seq": {"type": "integer", "minimum": 0}, "type": {"const": "system"}, "subtype": {"type": "string", "not": {"enum": ["init"]}}, "mode": {"enum": ["x", "y"]}}}
  }
}`

// A union whose branches apply under conditions (codex-rollout's lines).
const guarded = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "https://example.org/g.json",
  "oneOf": [
    {"if": {"required": ["payload"]}, "then": {"type": "object", "required": ["ts"], "properties": {"ts": {"type": "string"}, "payload": {"type": "object"}}}, "else": false},
    {"if": {"not": {"required": ["payload"]}}, "then": {"type": "object", "required": ["id"], "properties": {"id": {"type": "string"}}}, "else": false}
  ]
}`

func explainAll(t *testing.T, doc, url, line string) string {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(url, v); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(url)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(line))
	if err != nil {
		t.Fatal(err)
	}
	short := func(loc string) string { return strings.Replace(loc, "https://example.org", "example:", 1) }
	var got []string
	for _, d := range schemaerr.Explain(s.Validate(inst), []byte(line), short) {
		got = append(got, fmt.Sprintf("%d %s %s %s %s", d.Col, d.Pointer, d.Message, d.Keyword, d.SchemaLocation))
	}
	return strings.Join(got, "\n")
}

func TestExplainUnion(t *testing.T) {
	for _, tt := range []struct{ line, want string }{
		// The branch of the line's type, and it alone.
		{`{"seq":1,"type":"a","n":"x"}`, "25 /n got string, want integer type example:/u.json#/$defs/a/properties/n"},
		{`{"seq":1,"type":"a"}`, "1  missing property 'n' required example:/u.json#/$defs/a"},
		{`{"type":"b"}`, "1  missing property 'seq' required example:/u.json#/$defs/b"},
		// No branch is the line's: the tag is what is wrong.
		{`{"seq":1,"type":"c"}`, "17 /type value must be one of 'a', 'b', 'system' enum example:/u.json#"},
		{`{"seq":1}`, "1  missing property 'type' required example:/u.json#"},
		{`{"seq":1,"type":5}`, "17 /type value must be one of 'a', 'b', 'system' enum example:/u.json#"},
		// ... and so is what every branch finds wrong besides.
		{`{"seq":-1,"type":"c","mode":"z"}`, "8 /seq minimum: got -1, want at least 0 minimum example:/u.json#/$defs/a/properties/seq\n" +
			"18 /type value must be one of 'a', 'b', 'system' enum example:/u.json#\n" +
			"29 /mode value must be one of 'x', 'y' enum example:/u.json#/$defs/a/properties/mode"},
		// A nested union: the branch of the subtype, or the subtype's own type.
		{`{"seq":1,"type":"system","subtype":"init"}`, "1  missing property 'cwd' required example:/u.json#/$defs/sys_init"},
		{`{"seq":1,"type":"system","subtype":"zzz","mode":"z"}`, "49 /mode value must be one of 'x', 'y' enum example:/u.json#/$defs/sys_other/properties/mode"},
		{`{"seq":1,"type":"system","subtype":7}`, "36 /subtype got 7, want string type example:/u.json#/$defs/sys_other/properties/subtype"},
		// Not an object at all: one type error.
		{`[1]`, "1  got array, want object type example:/u.json#/$defs/sys"},
	} {
		if got := explainAll(t, union, "https://example.org/u.json", tt.line); got != tt.want {
			t.Errorf("%s:\ngot\n%s\nwant\n%s", tt.line, got, tt.want)
		}
	}
}

func TestExplainGuarded(t *testing.T) {
	for _, tt := range []struct{ line, want string }{
		{`{"payload":{}}`, "1  missing property 'ts' required example:/g.json#/oneOf/0/then"},
		{`{"payload":{},"ts":1}`, "20 /ts got 1, want string type example:/g.json#/oneOf/0/then/properties/ts"},
		{`{"ts":"x"}`, "1  missing property 'id' required example:/g.json#/oneOf/1/then"},
	} {
		if got := explainAll(t, guarded, "https://example.org/g.json", tt.line); got != tt.want {
			t.Errorf("%s:\ngot\n%s\nwant\n%s", tt.line, got, tt.want)
		}
	}
}

// When more than one property could be a union's tag, the tag is the one
// the most branches fail on, then one held to a const, then the first by
// name; the line is explained by the branch of that tag.
func TestExplainTagChoice(t *testing.T) {
	const schema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "https://example.org/c.json",
  "$defs": {
    "count": {"oneOf": [
      {"properties": {"t": {"const": 1}}},
      {"properties": {"t": {"const": 2}, "a": {"const": "x"}}}
    ]},
    "const": {"oneOf": [
      {"properties": {"type": {"const": "a"}, "k": {"enum": ["x"]}}},
      {"properties": {"type": {"const": "b"}, "k": {"enum": ["y"]}}}
    ]},
    "name": {"oneOf": [
      {"properties": {"type": {"const": "a"}, "v": {"const": 1}}},
      {"properties": {"type": {"const": "b"}, "v": {"const": 2}}}
    ]}
  },
  "properties": {"count": {"$ref": "#/$defs/count"}, "const": {"$ref": "#/$defs/const"}, "name": {"$ref": "#/$defs/name"}}
}`
	for _, tt := range []struct{ line, want string }{
		// t, which both branches fail on, over a, which comes first.
		{`{"count":{"t":3,"a":"y"}}`, "15 /count/t value must be one of 1, 2 enum example:/c.json#/$defs/count"},
		// type, held to consts, over k, held to enums, which comes first.
		{`{"const":{"type":"a","k":"y"}}`, "26 /const/k value must be 'x' enum example:/c.json#/$defs/const/oneOf/0/properties/k"},
		// type over v, which both hold to consts.
		{`{"name":{"type":"a","v":2}}`, "25 /name/v value must be 1 const example:/c.json#/$defs/name/oneOf/0/properties/v"},
	} {
		if got := explainAll(t, schema, "https://example.org/c.json", tt.line); got != tt.want {
			t.Errorf("%s:\ngot\n%s\nwant\n%s", tt.line, got, tt.want)
		}
	}
}
