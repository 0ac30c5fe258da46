// Package rules is evtool's catalogue of rules: every rule a diagnostic
// can name, with its severity and a one-line purpose. The reading's rules
// come from package stream, the rules of a dialect from the dialect itself
// (dialect.RuleLister); this package gathers them for `evtool rules`,
// for --disable, for the rule descriptions of a SARIF report and for
// docs/rules.md, which is written from it.
package rules

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/evtool/evtool/diag"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/stream"
	"github.com/evtool/evtool/validate"
)

// UserSchema is the rule of a line that fails the user's schema given with
// `evtool validate --schema FILE`.
const UserSchema = validate.RuleUserSchema

// Rule is one rule of the catalogue.
type Rule struct {
	ID       string
	Severity diag.Severity
	Summary  string
	// Dialect is the dialect the rule belongs to; "" for the reading's
	// rules, which apply to every stream.
	Dialect string
	// Reading marks a rule of the reading itself: a line that breaks it
	// cannot be checked further, so it cannot be disabled.
	Reading bool
}

// MarshalJSON writes the severity as its word.
func (r Rule) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		ID       string `json:"id"`
		Severity string `json:"severity"`
		Summary  string `json:"summary"`
		Dialect  string `json:"dialect,omitempty"`
	}{r.ID, r.Severity.String(), r.Summary, r.Dialect})
}

// Reading returns the rules of the reading that apply to every stream,
// and the rule of a user's schema.
func Reading() []Rule {
	var out []Rule
	for _, r := range stream.Rules() {
		out = append(out, Rule{ID: r.ID, Severity: r.Severity, Summary: r.Summary, Reading: true})
	}
	// The user's schema is checked only with --schema; a line that fails it
	// has been read, so the rule can be disabled like a dialect's.
	out = append(out, Rule{ID: UserSchema, Severity: diag.Error,
		Summary: "with --schema FILE, every line validates against that JSON Schema"})
	return out
}

// Of returns the rules of one dialect: its schema, its decoding, and the
// stream rules it publishes, in the order it declares them.
func Of(d dialect.Dialect) []Rule {
	name := d.Name()
	out := []Rule{
		{ID: stream.SchemaRule(d), Severity: diag.Error, Dialect: name,
			Summary: "the line validates against schema/" + name + ".schema.json"},
		{ID: stream.DecodeRule(d), Severity: diag.Error, Dialect: name,
			Summary: "the producer's types accept the value too, not only the schema (an integer written as 1.0, say)"},
	}
	if l, ok := d.(dialect.RuleLister); ok {
		for _, r := range l.Rules() {
			out = append(out, Rule{ID: r.ID, Severity: r.Severity, Summary: r.Summary, Dialect: name})
		}
	}
	return out
}

// All returns the whole catalogue: the reading's rules, then each
// registered dialect's, dialects in name order.
func All() []Rule {
	out := Reading()
	for _, d := range dialect.All() {
		out = append(out, Of(d)...)
	}
	return out
}

// For returns the rules that apply to a stream of the named dialect: the
// reading's and the dialect's. An empty name gives the whole catalogue.
func For(dialectName string) ([]Rule, error) {
	if dialectName == "" {
		return All(), nil
	}
	d, err := dialect.Lookup(dialectName)
	if err != nil {
		return nil, err
	}
	return append(Reading(), Of(d)...), nil
}

// Lookup returns the rule of that id.
func Lookup(id string) (Rule, bool) {
	all := All()
	i := slices.IndexFunc(all, func(r Rule) bool { return r.ID == id })
	if i < 0 {
		return Rule{}, false
	}
	return all[i], true
}

// CheckDisable checks the ids given to --disable: each must name a rule
// of the catalogue that is not one of the reading's.
func CheckDisable(ids []string) error {
	for _, id := range ids {
		r, ok := Lookup(id)
		if !ok {
			return fmt.Errorf("--disable %s: no such rule (see evtool rules)", id)
		}
		if r.Reading {
			return fmt.Errorf("--disable %s: a line that breaks it cannot be read, so it cannot be disabled", id)
		}
	}
	return nil
}

// WriteText lists rules one per line: id, severity, summary, in columns.
func WriteText(w io.Writer, rs []Rule) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, r := range rs {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", r.ID, r.Severity, r.Summary)
	}
	return tw.Flush()
}

// WriteJSON lists rules as one JSON array of objects with id, severity,
// summary and, for a dialect's rule, dialect.
func WriteJSON(w io.Writer, rs []Rule) error {
	if rs == nil {
		rs = []Rule{}
	}
	b, err := json.MarshalIndent(rs, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// markdownCell makes a summary safe in a Markdown table cell: a pipe would
// end the cell and <word> would be read as an HTML tag.
var markdownCell = strings.NewReplacer("|", `\|`, "<", "&lt;", ">", "&gt;")
