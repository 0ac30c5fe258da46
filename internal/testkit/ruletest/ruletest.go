// Package ruletest runs table tests of a dialect's stream rules.
package ruletest

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/evtool/evtool/dialect"
)

// Want is one finding a case expects: its line and rule. Its severity is
// the one the dialect's rule catalogue declares for the rule.
type Want struct {
	Line int
	Rule string
}

// Case is a stream and the findings its checker must report, in order.
type Case struct {
	Name  string
	Lines []string
	Want  []Want
}

// Run checks every case, then that every rule of the dialect's catalogue
// has a case with a stream that breaks it.
func Run(t *testing.T, d dialect.Dialect, cases []Case) {
	t.Helper()
	lister, ok := d.(dialect.RuleLister)
	if !ok {
		t.Fatalf("%s publishes no rule catalogue", d.Name())
	}
	severity := map[string]dialect.Severity{}
	for _, r := range lister.Rules() {
		severity[r.ID] = r.Severity
	}
	covered := map[string]bool{}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			ch := d.NewChecker(dialect.CheckOptions{})
			var got []dialect.Finding
			for i, l := range c.Lines {
				ch.Line([]byte(l), i+1, func(f dialect.Finding) { got = append(got, f) })
			}
			ch.End(len(c.Lines), func(f dialect.Finding) { got = append(got, f) })
			if len(got) != len(c.Want) {
				t.Fatalf("got %d findings, want %d:\n%s", len(got), len(c.Want), dump(got))
			}
			for i, w := range c.Want {
				g := got[i]
				if g.Line != w.Line || g.Rule != w.Rule {
					t.Errorf("finding %d: got line %d %s (%s), want line %d %s", i, g.Line, g.Rule, g.Message, w.Line, w.Rule)
				}
				if sev, ok := severity[g.Rule]; !ok {
					t.Errorf("finding %d: rule %s is not in the catalogue", i, g.Rule)
				} else if g.Severity != sev {
					t.Errorf("finding %d: %s reported as %s, the catalogue says %s", i, g.Rule, g.Severity, sev)
				}
				if g.Message == "" {
					t.Errorf("finding %d has no message", i)
				}
				covered[w.Rule] = true
			}
		})
	}
	for _, r := range lister.Rules() {
		if !covered[r.ID] {
			t.Errorf("rule %s has no test with a stream that breaks it", r.ID)
		}
	}
}

func dump(fs []dialect.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "  line %d %s %s %s: %s\n", f.Line, f.Severity, f.Rule, f.Pointer, f.Message)
	}
	return b.String()
}

// LiveHeap returns the bytes live on the heap after a full collection, for
// tests that bound what a checker keeps.
func LiveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// CheckFindings requires the findings, as "RULE: MESSAGE", to be want.
func CheckFindings(t *testing.T, got []dialect.Finding, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d findings, want %d: %v", len(got), len(want), got)
	}
	for i, f := range got {
		if s := f.Rule + ": " + f.Message; s != want[i] {
			t.Errorf("finding %d:\ngot  %s\nwant %s", i, s, want[i])
		}
	}
}
