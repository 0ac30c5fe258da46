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
