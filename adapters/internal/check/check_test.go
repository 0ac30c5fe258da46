package check

import (
	"slices"
	"strconv"
	"testing"

	"github.com/evtool/evtool/dialect"
)

var (
	rules      dialect.RuleSet
	ruleFirst  = rules.Error("t/first", "first")
	ruleAgain  = rules.Error("t/again", "again")
	ruleAfter  = rules.Error("t/after", "after")
	ruleCut    = rules.Error("t/cut", "cut")
	ruleType   = rules.Unknown("t/type", "type")
	ruleReused = rules.Error("t/reused", "reused")
	ruleNone   = rules.Error("t/none", "none")
	ruleTwice  = rules.Error("t/twice", "twice")
	ruleOpen   = rules.Warning("t/open", "open")
)

// feed runs lines through a frame and its calls as a checker would, and
// returns the findings as "rule line: message".
func feed(f *Frame, c *Calls, lines ...string) []string {
	var out []string
	report := func(d dialect.Finding) { out = append(out, d.Rule+" "+itoa(d.Line)+": "+d.Message) }
	for i, l := range lines {
		r, rep, typ, ok := f.Next([]byte(l), i+1, report)
		if !ok {
			continue
		}
		switch typ {
		case "call":
			c.Announce(rep, "/id", r.Get("id").Str, typ)
		case "answer":
			c.Answer(rep, "/id", r.Get("id").Str, typ)
		}
	}
	if !f.Empty(report) && f.Complete(len(lines), report) {
		c.End(report)
	}
	return out
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestFrameAndCalls(t *testing.T) {
	frame := func() *Frame {
		return &Frame{
			Start: "start", End: "end", FirstLine: ruleFirst, Repeated: ruleAgain, After: ruleAfter, Truncated: ruleCut,
			UnknownType: ruleType, Types: func(typ string) bool { return typ != "odd" },
		}
	}
	calls := func() *Calls {
		return &Calls{
			Reused: ruleReused, ReusedOpen: "%[1]s again, open since %[2]d", ReusedAnswered: "%[1]s again, answered on %[2]d",
			Unknown: ruleNone, UnknownMsg: "%[3]s for %[1]s", KeepUnknown: true,
			Twice: ruleTwice, TwiceMsg: "%[1]s answered on %[2]d", Unfinished: ruleOpen, UnfinishedMsg: "%s open",
		}
	}
	got := feed(frame(), calls(),
		`{"type":"call","id":"a"}`, `{"type":"start"}`, `{"type":"odd"}`, `{"type":"call","id":"a"}`,
		`{"type":"answer","id":"a"}`, `{"type":"answer","id":"a"}`, `{"type":"answer","id":"b"}`, `{"type":"call","id":"a"}`,
		`{"type":"call","id":"c"}`, `{"type":"end"}`)
	want := []string{
		`t/first 1: the first line is "call", want start`,
		`t/again 2: start may only be the first line`,
		`t/type 3: unknown event type "odd" (kept as opaque data)`,
		`t/reused 4: a again, open since 1`,
		`t/twice 6: a answered on 5`,
		`t/none 7: answer for b`,
		`t/reused 8: a again, answered on 5`,
		`t/open 9: c open`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("findings:\n%q\nwant\n%q", got, want)
	}
	got = feed(frame(), calls(), `{"type":"start"}`, `{"type":"end"}`, `{"type":"call","id":"a"}`)
	want = []string{`t/after 3: call after end on line 2: end must be the last line`, `t/open 3: a open`}
	if !slices.Equal(got, want) {
		t.Errorf("after the end:\n%q\nwant\n%q", got, want)
	}
	if got := feed(frame(), calls(), `{"type":"start"}`); !slices.Equal(got, []string{`t/cut 1: the stream ends without end: it is truncated`}) {
		t.Errorf("truncated: %q", got)
	}
	if got := feed(frame(), calls()); !slices.Equal(got, []string{`t/first 0: the stream has no JSON line: want start first`}) {
		t.Errorf("empty: %q", got)
	}
}
