package rules_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"strings"
	"testing"

	_ "github.com/evtool/evtool/adapters"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/rules"
)

var update = flag.Bool("update", false, "rewrite docs/rules.md from the catalogue")

// TestDocs keeps docs/rules.md in step with the catalogue: it is written
// from it, and any rule added, removed or reworded must show there.
func TestDocs(t *testing.T) {
	want, err := rules.Markdown()
	if err != nil {
		t.Fatal(err)
	}
	const path = "../docs/rules.md"
	if *update {
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("docs/rules.md is not what the catalogue says; run go test ./rules -run TestDocs -update")
	}
	for _, r := range rules.All() {
		if !bytes.Contains(got, []byte("| `"+r.ID+"` | "+r.Severity.String()+" |")) {
			t.Errorf("docs/rules.md has no row for %s", r.ID)
		}
	}
}

// TestCatalogue checks what every consumer of the catalogue relies on:
// ids are unique and name their dialect, every rule has a purpose, and
// every dialect has its schema and decode rules.
func TestCatalogue(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range rules.All() {
		if seen[r.ID] {
			t.Errorf("rule %s appears twice", r.ID)
		}
		seen[r.ID] = true
		if r.Summary == "" || strings.Contains(r.Summary, "\n") {
			t.Errorf("rule %s: the summary must be one line, got %q", r.ID, r.Summary)
		}
		if r.Dialect != "" && !strings.HasPrefix(r.ID, r.Dialect+"/") {
			t.Errorf("rule %s of %s does not start with its dialect", r.ID, r.Dialect)
		}
	}
	for _, d := range dialect.All() {
		for _, id := range []string{d.Name() + "/schema", d.Name() + "/decode"} {
			if !seen[id] {
				t.Errorf("no rule %s", id)
			}
		}
		if _, ok := d.(dialect.RuleLister); !ok {
			t.Errorf("%s publishes no rule catalogue", d.Name())
		}
	}
	if r, ok := rules.Lookup("basis/seq-gap"); !ok || r.Severity.String() != "warning" || r.Dialect != "basis" {
		t.Errorf("Lookup(basis/seq-gap) = %+v, %v", r, ok)
	}
	if _, ok := rules.Lookup("basis/nope"); ok {
		t.Error("Lookup found a rule that does not exist")
	}
}

func TestFor(t *testing.T) {
	rs, err := rules.For("mermaid")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		if r.Dialect != "" && r.Dialect != "mermaid" {
			t.Errorf("For(mermaid) lists %s of %s", r.ID, r.Dialect)
		}
	}
	if rs[0].ID != "json/syntax" || rs[len(rs)-1].Dialect != "mermaid" {
		t.Errorf("For(mermaid) starts with %s and ends with %s", rs[0].ID, rs[len(rs)-1].ID)
	}
	if _, err := rules.For("nope"); err == nil {
		t.Error("For(nope) must fail")
	}
	all, _ := rules.For("")
	if len(all) != len(rules.All()) {
		t.Error(`For("") must be the whole catalogue`)
	}
}

func TestCheckDisable(t *testing.T) {
	tests := []struct {
		ids  []string
		want string // "" for no error, else a part of it
	}{
		{[]string{"basis/seq-gap", "muse/recorded-at", "json/schema", "basis/schema"}, ""},
		{[]string{"basis/seq-gapp"}, "no such rule"},
		{[]string{"json/syntax"}, "cannot be disabled"},
		{[]string{"stream/undetected"}, "cannot be disabled"},
	}
	for _, tt := range tests {
		err := rules.CheckDisable(tt.ids)
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("CheckDisable(%v) = %v, want %q", tt.ids, err, tt.want)
		}
	}
}

func TestWrite(t *testing.T) {
	rs, _ := rules.For("basis")
	var text, js bytes.Buffer
	if err := rules.WriteText(&text, rs); err != nil {
		t.Fatal(err)
	}
	if err := rules.WriteJSON(&js, rs); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(text.String(), "\n"), "\n")
	if len(lines) != len(rs) {
		t.Fatalf("%d text lines for %d rules", len(lines), len(rs))
	}
	if f := strings.Fields(lines[0]); f[0] != "json/syntax" || f[1] != "error" {
		t.Errorf("first line %q", lines[0])
	}
	var back []struct{ ID, Severity, Summary, Dialect string }
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if len(back) != len(rs) {
		t.Fatalf("%d json rules for %d", len(back), len(rs))
	}
	for i, r := range rs {
		b := back[i]
		if b.ID != r.ID || b.Severity != r.Severity.String() || b.Summary != r.Summary || b.Dialect != r.Dialect {
			t.Errorf("json rule %d: %+v, want %+v", i, b, r)
		}
	}
	if !strings.HasPrefix(js.String(), "[\n  {\n    \"id\": \"json/syntax\",\n    \"severity\": \"error\",") {
		t.Errorf("json starts %q", js.String()[:60])
	}
}

// TestLossDocs keeps docs/losses.md in step with the loss catalogue.
func TestLossDocs(t *testing.T) {
	want := rules.LossMarkdown()
	const path = "../docs/losses.md"
	if *update {
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("docs/losses.md is not what the catalogue says; run go test ./rules -run TestLossDocs -update")
	}
	for _, g := range rules.Losses() {
		for _, k := range g.Kinds {
			if !bytes.Contains(got, []byte("| `"+k.ID+"` | "+string(k.Verb)+" |")) {
				t.Errorf("docs/losses.md has no row for %s", k.ID)
			}
		}
	}
}
