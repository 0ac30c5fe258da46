// Package schematest compiles a dialect's published schema with a full
// JSON Schema engine, for tests that hold evtool's readers and fast path to
// the schema on their own.
package schematest

import (
	"bytes"
	"strings"
	"testing"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/schema"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Compile compiles d's schema under its published $id.
func Compile(t testing.TB, d dialect.Dialect) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(d.Schema()))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	url := schema.BaseURL + d.Name() + ".schema.json"
	if err := c.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(url)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Check validates one line against s: nil, or why the line fails (which
// includes its not being JSON).
func Check(s *jsonschema.Schema, line string) error {
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(line))
	if err != nil {
		return err
	}
	return s.Validate(inst)
}
