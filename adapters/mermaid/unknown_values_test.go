package mermaid_test

import (
	"strings"
	"testing"

	"github.com/evtool/evtool/adapters/basis"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/dialecttest"
	"github.com/evtool/evtool/event"
)

// TestUnknownWordsAreKept: tool_finished.status, a task's status and its
// origin are plain Strings in run_event.rs, written from closed Rust enums
// (status_str, TaskStatus::as_str, TaskOrigin). A newer word is read and
// kept as written, never taken for one of mermaid's own: the task words
// stand in the canonical plan as they are; the tool status, which the
// canonical model holds to a closed set, says error with the word itself
// in ext.mermaid, and "rejected" (canonical's, not mermaid's) is no
// exception. mermaid gets each word back.
func TestUnknownWordsAreKept(t *testing.T) {
	lines := []string{header,
		`{"type":"tool_started","call_id":"a"}`,
		`{"type":"tool_finished","call_id":"a","name":"read_file","status":"ok","summary":"read","error":null}`,
		`{"type":"tool_started","call_id":"b"}`,
		`{"type":"tool_finished","call_id":"b","name":"read_file","status":"rejected","summary":"","error":null}`,
		`{"type":"tasks_updated","tasks":[{"id":1,"subject":"s","status":"blocked","active_form":"f","elapsed_secs":null,"tokens_spent":null,"origin":"agent"}],"completed":0,"total":1}`,
	}
	evs := decode(t, lines...)
	var fins []*event.Event
	var plan *event.PlanUpdated
	for _, ev := range evs {
		switch b := ev.Body.(type) {
		case *event.ToolFinished:
			fins = append(fins, ev)
		case *event.PlanUpdated:
			plan = b
		}
	}
	for i, word := range []string{"ok", "rejected"} {
		b := fins[i].Body.(*event.ToolFinished)
		if b.Status != event.ToolError || !strings.Contains(string(fins[i].Ext.Get("mermaid")), `"status":"`+word+`"`) {
			t.Errorf("status %q read as %q, ext %s", word, b.Status, fins[i].Ext.Get("mermaid"))
		}
	}
	if e := plan.Entries[0]; e.Status != "blocked" || e.Origin != "agent" {
		t.Errorf("task read as status %q, origin %q", e.Status, e.Origin)
	}
	back := roundTrip(t, append(lines, `{"type":"result","response":"","reasoning":null,"total_tokens":0,"errors":[],"session_id":"s"}`))
	if got, want := strings.Join(back, "\n"), strings.Join(lines, "\n"); !strings.HasPrefix(got, want) {
		t.Errorf("not written back as written:\n%s", got)
	}
}

// TestUnknownWordsAreCounted: a conversion that cannot carry such a word
// says so. To another dialect, the tool status word kept in ext.mermaid is
// counted as residue it drops; to mermaid, a plan word of another dialect
// outside mermaid's lists is written as it is and counted.
func TestUnknownWordsAreCounted(t *testing.T) {
	evs := decode(t, header,
		`{"type":"tool_started","call_id":"a"}`,
		`{"type":"tool_finished","call_id":"a","name":"read_file","status":"ok","summary":"read","error":null}`,
		`{"type":"result","response":"","reasoning":null,"total_tokens":0,"errors":[],"session_id":"s"}`)
	_, losses := dialecttest.Encode(t, basis.Dialect{}, dialect.EncodeOptions{}, dialecttest.Canonical(t, evs)...)
	if !hasLoss(losses, dialect.LossForeign.ID, "mermaid") {
		t.Errorf("mermaid → basis does not count the unknown status: %v", losses.List())
	}

	got, losses := toMermaid(t,
		`{"seq":0,"type":"session_started","schema":1,"source":{"dialect":"opencode"},"session_id":"s"}`,
		`{"seq":1,"type":"turn_started","turn_id":"turn-1"}`,
		`{"seq":2,"type":"plan_updated","turn_id":"turn-1","entries":[{"content":"a","status":"cancelled","origin":"agent"},{"content":"b","status":"completed","origin":"user"}]}`,
		`{"seq":3,"type":"turn_finished","turn_id":"turn-1","status":"ok"}`,
		`{"seq":4,"type":"session_finished","status":"ok"}`)
	if !strings.Contains(got, `"status":"cancelled"`) || !strings.Contains(got, `"origin":"agent"`) {
		t.Errorf("the words are not written as they are:\n%s", got)
	}
	if !hasLoss(losses, "mermaid/plan-status", `"cancelled"`) || !hasLoss(losses, "mermaid/plan-origin", `"agent"`) {
		t.Errorf("the words are not counted: %v", losses.List())
	}
	for _, l := range losses.List() {
		if l.Detail == `"completed"` || l.Detail == `"user"` {
			t.Errorf("mermaid's own word counted: %s", l)
		}
	}
}

func hasLoss(ls *dialect.Losses, id, detail string) bool {
	for _, l := range ls.List() {
		if l.ID == id && l.Detail == detail {
			return true
		}
	}
	return false
}
