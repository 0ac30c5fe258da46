package validate_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/evtool/evtool/validate"
)

// "format" fails a line in a draft-07 schema always, and in a 2020-12
// one only with SchemaOptions.AssertFormat (evtool validate
// --assert-format): 2020-12 makes it an annotation (issue 28).
func TestUserSchemaAssertFormat(t *testing.T) {
	const props = `"properties": {"when": {"type": "string", "format": "date-time"}, "who": {"type": "string", "format": "email"}}`
	dir := writeFiles(t, map[string]string{
		"draft7.json":    `{"$schema": "http://json-schema.org/draft-07/schema#", ` + props + `}`,
		"draft2020.json": `{"$schema": "https://json-schema.org/draft/2020-12/schema", ` + props + `}`,
		"default.json":   `{` + props + `}`,
	})
	const asserted = "/when format|/who format"
	for _, c := range []struct {
		file   string
		assert bool
		want   string
	}{
		{"draft7.json", false, asserted},
		{"draft7.json", true, asserted},
		{"draft2020.json", false, ""},
		{"draft2020.json", true, asserted},
		{"default.json", false, ""},
		{"default.json", true, asserted},
	} {
		s, err := validate.CompileSchemaWith(filepath.Join(dir, c.file), validate.SchemaOptions{AssertFormat: c.assert})
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Join(checkLines(t, s,
			`{"when":"2024-02-30 noon","who":"nobody"}`,
			`{"when":"2024-02-29T12:00:00Z","who":"ada@example.org"}`,
			`{"when":1,"who":null}`), "|")
		want := c.want + "|/when type|/who type"
		if c.want == "" {
			want = "/when type|/who type"
		}
		if got != want {
			t.Errorf("%s, AssertFormat %v: got %q, want %q", c.file, c.assert, got, want)
		}
	}
}
