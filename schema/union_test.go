package schema_test

import (
	"bytes"
	"maps"
	"os"
	"regexp"
	"slices"
	"testing"

	_ "github.com/evtool/evtool/adapters"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/internal/testkit/teststreams"
	"github.com/evtool/evtool/schema"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Every dialect's schema is a tagged union at its root, but the two whose
// lines are told apart by the keys they hold.
func TestUnionOf(t *testing.T) {
	want := map[string]struct {
		tag   string
		other bool
	}{
		"basis": {"type", true}, "canonical": {"type", false}, "mermaid": {"type", true},
		"muse": {"payload_type", true}, "codex": {"type", true}, "claude": {"type", true},
		"gemini": {"type", true}, "opencode": {"type", true}, "claude-transcript": {"type", true},
		"opencode-storage": {"type", true},
	}
	for _, d := range dialect.All() {
		u, ok := schema.UnionOf(d.Schema())
		w, tagged := want[d.Name()]
		if ok != tagged {
			t.Errorf("%s: a tagged union: %v, want %v", d.Name(), ok, tagged)
			continue
		}
		if !ok {
			continue
		}
		if u.Tag != w.tag || (u.Other != "") != w.other || len(u.Branches) < 4 {
			t.Errorf("%s: tag %q, other %q, %d branches", d.Name(), u.Tag, u.Other, len(u.Branches))
		}
	}
	if u, ok := schema.UnionOf([]byte(`{"oneOf":[{"$ref":"#/$defs/a"},{"$ref":"#/$defs/b"}],"$defs":{"a":{"required":["t"],"properties":{"t":{"const":"a"}}},"b":{"required":["t"],"properties":{"t":{"const":"b"}}}}}`)); !ok || u.Branches["b"] != "#/$defs/b" || u.Other != "" {
		t.Errorf("%+v %v", u, ok)
	}
}

// TestUnionBranchIsWhole checks the promise of UnionOf: on every line of
// every test stream, and on the line with its tag changed, the branch of
// its tag gives the whole schema's verdict.
func TestUnionBranchIsWhole(t *testing.T) {
	for _, d := range dialect.All() {
		u, ok := schema.UnionOf(d.Schema())
		if !ok {
			continue
		}
		url := schema.URL(d.Name())
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(d.Schema()))
		if err != nil {
			t.Fatal(err)
		}
		c := jsonschema.NewCompiler()
		if err := c.AddResource(url, doc); err != nil {
			t.Fatal(err)
		}
		whole, err := c.Compile(url)
		if err != nil {
			t.Fatal(err)
		}
		branch := map[string]*jsonschema.Schema{}
		for _, r := range append(slices.Collect(maps.Values(u.Branches)), append(slices.Collect(maps.Values(u.Patterns)), u.Other)...) {
			if r != "" {
				if branch[r], err = c.Compile(url + r); err != nil {
					t.Fatal(err)
				}
			}
		}
		pick := func(v any) *jsonschema.Schema {
			m, _ := v.(map[string]any)
			s, isStr := m[u.Tag].(string)
			if !isStr {
				return nil
			}
			if r, ok := u.Branches[s]; ok {
				return branch[r]
			}
			for p, r := range u.Patterns {
				if regexp.MustCompile(p).MatchString(s) {
					return branch[r]
				}
			}
			if u.Other != "" {
				return branch[u.Other]
			}
			return nil
		}
		n := 0
		for _, f := range append(teststreams.Valid(d.Name()), teststreams.Invalid(d.Name())...) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, line := range bytes.Split(data, []byte("\n")) {
				v, err := jsonschema.UnmarshalJSON(bytes.NewReader(line))
				if err != nil {
					continue
				}
				vs := []any{v}
				if m, ok := v.(map[string]any); ok {
					for _, tagv := range []any{"zzz_unknown", "", 5.0, nil, "run.terminal.x", "error"} {
						c := maps.Clone(m)
						c[u.Tag] = tagv
						vs = append(vs, c)
					}
					c := maps.Clone(m)
					delete(c, u.Tag)
					vs = append(vs, c)
				}
				for _, v := range vs {
					n++
					want := whole.Validate(v) == nil
					b := pick(v)
					got := b != nil && b.Validate(v) == nil
					if got != want {
						t.Errorf("%s: %s: the whole schema says valid=%v, the branch of its tag %v: %v", d.Name(), f, want, got, v)
					}
				}
			}
		}
		t.Logf("%s: %d lines", d.Name(), n)
	}
}
