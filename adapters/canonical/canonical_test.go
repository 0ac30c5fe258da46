package canonical_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/evtool/evtool/adapters/canonical"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/dialecttest"
	"github.com/evtool/evtool/internal/testkit/ruletest"
)

const head = `{"seq":0,"type":"session_started","schema":1,"source":{"dialect":"basis"}}`

func line(seq int, rest string) string { return fmt.Sprintf(`{"seq":%d,%s}`, seq, rest) }

func TestRules(t *testing.T) {
	fin := func(seq int) string { return line(seq, `"type":"session_finished","status":"ok"`) }
	ruletest.Run(t, canonical.Dialect{}, []ruletest.Case{
		{Name: "valid", Lines: []string{head, line(1, `"type":"tool_call","call_id":"c","name":"x"`), line(2, `"type":"tool_finished","call_id":"c","status":"success"`), fin(3)}},
		{Name: "first line", Lines: []string{line(0, `"type":"message","text":"x"`), fin(1)}, Want: []ruletest.Want{{Line: 1, Rule: "canonical/first-line"}}},
		{Name: "empty", Lines: nil, Want: []ruletest.Want{{Line: 0, Rule: "canonical/first-line"}}},
		{Name: "started twice", Lines: []string{head, strings.Replace(head, `"seq":0`, `"seq":1`, 1), fin(2)}, Want: []ruletest.Want{{Line: 2, Rule: "canonical/session-started-repeated"}}},
		{Name: "after finish", Lines: []string{head, fin(1), line(2, `"type":"message","text":"x"`)}, Want: []ruletest.Want{{Line: 3, Rule: "canonical/after-finish"}}},
		// A line kept from outside the producer's stream (stderr after its
		// last line) may stand after the end.
		{Name: "unknown after finish", Lines: []string{head, fin(1), line(2, `"type":"unknown","dialect":"evtool","source_type":"unreadable-line","raw":{"text":"bye"}`)}},
		{Name: "truncated", Lines: []string{head, line(1, `"type":"message","text":"x"`)}, Want: []ruletest.Want{{Line: 2, Rule: "canonical/truncated"}}},
		{Name: "seq", Lines: []string{head, line(2, `"type":"message","text":"x"`), fin(3)}, Want: []ruletest.Want{{Line: 2, Rule: "canonical/seq-contiguous"}}},
		{Name: "tool not called", Lines: []string{head, line(1, `"type":"tool_output","call_id":"c","chunk":"x"`), fin(2)}, Want: []ruletest.Want{{Line: 2, Rule: "canonical/tool-not-called"}}},
		{Name: "tool called twice", Lines: []string{head, line(1, `"type":"tool_call","call_id":"c","name":"x"`), line(2, `"type":"tool_call","call_id":"c","name":"x"`), line(3, `"type":"tool_finished","call_id":"c","status":"success"`), fin(4)},
			Want: []ruletest.Want{{Line: 3, Rule: "canonical/tool-called-twice"}}},
		{Name: "tool closed", Lines: []string{head, line(1, `"type":"tool_call","call_id":"c","name":"x"`), line(2, `"type":"tool_finished","call_id":"c","status":"success"`), line(3, `"type":"tool_progress","call_id":"c","message":"late"`), fin(4)},
			Want: []ruletest.Want{{Line: 4, Rule: "canonical/tool-closed"}}},
		{Name: "turn not started", Lines: []string{head, line(1, `"type":"turn_finished","turn_id":"t","status":"ok"`), fin(2)}, Want: []ruletest.Want{{Line: 2, Rule: "canonical/turn-not-started"}}},
		{Name: "turn closed", Lines: []string{head, line(1, `"type":"turn_started","turn_id":"t"`), line(2, `"type":"turn_finished","turn_id":"t","status":"ok"`), line(3, `"type":"turn_finished","turn_id":"t","status":"ok"`), fin(4)},
			Want: []ruletest.Want{{Line: 4, Rule: "canonical/turn-closed"}}},
		{Name: "permission not requested", Lines: []string{head, line(1, `"type":"permission_resolved","request_id":"r","outcome":"allowed"`), fin(2)}, Want: []ruletest.Want{{Line: 2, Rule: "canonical/permission-not-requested"}}},
		{Name: "permission resolved twice", Lines: []string{head, line(1, `"type":"permission_requested","request_id":"r"`), line(2, `"type":"permission_resolved","request_id":"r","outcome":"allowed"`), line(3, `"type":"permission_resolved","request_id":"r","outcome":"denied"`), fin(4)},
			Want: []ruletest.Want{{Line: 4, Rule: "canonical/permission-resolved-twice"}}},
		{Name: "unknown field", Lines: []string{head, line(1, `"type":"message","text":"x","colour":"red"`), fin(2)}, Want: []ruletest.Want{{Line: 2, Rule: "canonical/unknown-field"}}},
	})
}

// Canonical → canonical renumbers seq and keeps keys a newer model added.
func TestEncodeRenumbersAndKeepsExtra(t *testing.T) {
	in := []string{
		`{"seq":7,"type":"session_started","schema":1,"source":{"dialect":"basis"},"future_key":{"a":[1,2]}}`,
		`{"seq":9,"type":"message","text":"<b>&</b>","ext":{"zeta":{"x":1},"alpha":{}}}`,
	}
	out, _ := dialecttest.Encode(t, canonical.Dialect{}, dialect.EncodeOptions{}, in...)
	want := `{"seq":0,"type":"session_started","schema":1,"source":{"dialect":"basis"},"future_key":{"a":[1,2]}}
{"seq":1,"type":"message","text":"<b>&</b>","ext":{"alpha":{},"zeta":{"x":1}}}
`
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}
