package dialect

import (
	"fmt"
	"strings"
)

// A LossCatalog is a dialect's loss catalogue, built by declaring each kind
// once, as a package-level value of the adapter:
//
//	var losses = dialect.NewLossCatalog("codex")
//
//	var lossExitCode = losses.Drop("exit-code-beyond-i32",
//		"exit code beyond i32", "exit codes beyond i32",
//		"codex's exit_code is an i32")
//
// The encoder counts through the value (Losses.Add), the dialect names the
// catalogue in its About (About.Losses), and docs/losses.md is written
// from it: the id, the wording and the reason stand in one place.
type LossCatalog struct {
	dialect string
	kinds   []*LossKind
	ids     map[string]bool
}

// NewLossCatalog returns an empty catalogue of the named dialect; the ids
// of its kinds are "<dialect>/<name>".
func NewLossCatalog(dialect string) *LossCatalog {
	return &LossCatalog{dialect: dialect, ids: map[string]bool{}}
}

// Drop declares a kind of fact the target cannot say at all.
func (c *LossCatalog) Drop(name, one, many, why string) *LossKind {
	return c.add(name, Dropped, one, many, why)
}

// Approximate declares a kind of fact the target can say only
// approximately.
func (c *LossCatalog) Approximate(name, one, many, why string) *LossKind {
	return c.add(name, Approximated, one, many, why)
}

// Synthesize declares a kind of line the target needs that no source line
// stands behind.
func (c *LossCatalog) Synthesize(name, one, many, why string) *LossKind {
	return c.add(name, Synthesized, one, many, why)
}

// Shared declares one of the kinds several dialects count (the Loss*
// templates of this package), with the dialect's reason.
func (c *LossCatalog) Shared(t *LossTemplate, why string) *LossKind {
	return c.add(t.Name, t.Verb, t.One, t.Many, why)
}

// add panics on a kind declared twice or worded wrong: the catalogue is
// built when the program starts, so the mistake is the programmer's and
// shows at once.
func (c *LossCatalog) add(name string, verb LossVerb, one, many, why string) *LossKind {
	k := &LossKind{ID: c.dialect + "/" + name, Verb: verb, One: one, Many: many, Why: why}
	if c.ids[k.ID] {
		panic("dialect: loss kind " + k.ID + " declared twice")
	}
	if err := checkLossKind(k); err != nil {
		panic("dialect: " + err.Error())
	}
	c.ids[k.ID] = true
	c.kinds = append(c.kinds, k)
	return k
}

// List returns the kinds in the order they were declared.
func (c *LossCatalog) List() []*LossKind { return append([]*LossKind(nil), c.kinds...) }

// A LossTemplate is a loss kind several dialects count, worded once; a
// catalogue makes it its own with LossCatalog.Shared.
type LossTemplate struct {
	// Name is the id's part after "<dialect>/".
	Name string
	Verb LossVerb
	// One and Many are worded as in LossKind.
	One, Many string
}

// A RuleSet is a dialect's rule catalogue, built by declaring each rule
// once, as a package-level value of the adapter:
//
//	var rules dialect.RuleSet
//
//	var ruleFirstLine = rules.Error("codex/first-line",
//		"the first line is thread.started")
//
// The checker reports through the value (Reporter.Reportf), which gives
// the finding the rule's id and severity; the dialect names the set in its
// About (About.Rules); `evtool rules` and docs/rules.md are written from
// it. A rule's id, severity and purpose stand in one place.
type RuleSet struct {
	rules []*Rule
	ids   map[string]bool
}

// Error declares a rule whose findings are errors.
func (s *RuleSet) Error(id, summary string) *Rule { return s.add(id, Error, false, summary) }

// Warning declares a rule whose findings are warnings.
func (s *RuleSet) Warning(id, summary string) *Rule { return s.add(id, Warning, false, summary) }

// Unknown declares a rule about something the dialect's producer is not
// known to write (a type, a field, a value): its findings are warnings,
// errors when validation is strict.
func (s *RuleSet) Unknown(id, summary string) *Rule { return s.add(id, Warning, true, summary) }

func (s *RuleSet) add(id string, sev Severity, unknown bool, summary string) *Rule {
	if s.ids == nil {
		s.ids = map[string]bool{}
	}
	switch {
	case s.ids[id]:
		panic("dialect: rule " + id + " declared twice")
	case !strings.Contains(id, "/") || summary == "" || strings.Contains(summary, "\n"):
		panic(fmt.Sprintf("dialect: rule %q: want a \"<dialect>/<name>\" id and a one-line summary", id))
	}
	s.ids[id] = true
	r := &Rule{ID: id, Severity: sev, Summary: summary, Unknown: unknown}
	s.rules = append(s.rules, r)
	return r
}

// List returns the rules in the order they were declared.
func (s *RuleSet) List() []Rule {
	out := make([]Rule, len(s.rules))
	for i, r := range s.rules {
		out[i] = *r
	}
	return out
}

// Reportf reports a finding of rule at the value ptr names, with the
// rule's id and severity.
func (r Reporter) Reportf(rule *Rule, ptr, format string, args ...any) {
	r.Report(rule.Finding(r.Line, ptr, fmt.Sprintf(format, args...)))
}
