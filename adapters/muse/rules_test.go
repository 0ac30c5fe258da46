package muse_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/evtool/evtool/internal/testkit/ruletest"

	"github.com/evtool/evtool/adapters/muse"
)

// rec builds a journal record line: seq and id number it, cause is the turn.
type rec struct {
	id, seq   int
	cause, pt string
	payload   string
	rt, du    string
	at        int
	extra     string // extra envelope text, e.g. `,"x":1`
	session   string
}

func (r rec) String() string {
	rt, du := r.rt, r.du
	if rt == "" {
		rt, du = "event", "durable"
		switch r.pt {
		case "runtime.command.accepted":
			rt = "reconciliation"
		case "turn.input.user", "run.output.delta":
			rt, du = "status", "ephemeral"
		}
	}
	s := r.session
	if s == "" {
		s = "s1"
	}
	return fmt.Sprintf(`{"schema_version":1,"id":"id-%d","stream":{"kind":"session","id":%q},"sequence":%d,"recorded_at":%d,"record_type":%q,"durability":%q,"causation_id":%q,"payload_type":%q,"payload_schema_version":1,"payload":%s%s}`,
		r.id, s, r.seq, r.at+r.id, rt, du, r.cause, r.pt, r.payload, r.extra)
}

// head is a payload of the given kind with only its command id.
func head(kind, cause string) string {
	return fmt.Sprintf(`{"kind":%q,"command_id":%q}`, kind, cause)
}

func life(cause, task, kind, fields string) string {
	return fmt.Sprintf(`{"kind":"task_lifecycle","command_id":%q,"run_stream":{"kind":"run","id":%q},"task_stream":{"kind":"task","id":%q},"task_id":%q,"event":{"kind":%q,"task_id":%q%s}}`,
		cause, cause, task, task, kind, task, fields)
}

func linked(cause, task string) string {
	return fmt.Sprintf(`{"kind":"task_stream_linked","command_id":%q,"run_stream":{"kind":"run","id":%q},"task_id":%q,"task_stream":{"kind":"task","id":%q}}`, cause, cause, task, task)
}

// turn returns the records of a minimal complete turn, with body records
// (built by the caller) between its start and its terminal.
func turn(cause string, first int, body ...func(id, seq int) rec) []string {
	out := []string{rec{id: first, seq: 1, cause: cause, pt: "runtime.command.accepted", payload: head("command_accepted", cause)}.String()}
	seq := 2
	for _, b := range body {
		out = append(out, b(first+seq-1, seq).String())
		seq++
	}
	return append(out, rec{id: first + seq - 1, seq: seq, cause: cause, pt: "run.terminal.completed", payload: head("run_terminal", cause)}.String())
}

func task(cause, task, kind, fields string) func(id, seq int) rec {
	pt := "task.lifecycle." + kind
	p := life(cause, task, kind, fields)
	if kind == "linked" {
		pt, p = "task.stream.linked", linked(cause, task)
	}
	return func(id, seq int) rec { return rec{id: id, seq: seq, cause: cause, pt: pt, payload: p} }
}

func raw(f func(id, seq int) rec, edit func(*rec)) func(id, seq int) rec {
	return func(id, seq int) rec { r := f(id, seq); edit(&r); return r }
}

func TestRules(t *testing.T) {
	c := "c1"
	ok := func(kind, fields string) func(int, int) rec { return task(c, "t1", kind, fields) }
	ruletest.Run(t, muse.Dialect{}, []ruletest.Case{
		{Name: "valid", Lines: turn(c, 1, ok("linked", ""), ok("proposed", `,"task_kind":"tool.bash"`), ok("accepted", ""), ok("started", ""), ok("completed", ""))},
		{Name: "schema version", Lines: func() []string {
			l := turn(c, 1)
			l[0] = strings.Replace(l[0], `"schema_version":1`, `"schema_version":2`, 1)
			return l
		}(), Want: []ruletest.Want{{Line: 1, Rule: "muse/schema-version"}}},
		{Name: "duplicate id", Lines: []string{turn(c, 1)[0], turn(c, 1)[1], strings.Replace(turn("c2", 1)[0], `"id":"id-1"`, `"id":"id-1"`, 1), turn("c2", 5)[1]},
			Want: []ruletest.Want{{Line: 3, Rule: "muse/duplicate-id"}, {Line: 3, Rule: "muse/recorded-at"}}},
		{Name: "sequence goes back", Lines: turn(c, 1, raw(ok("linked", ""), func(r *rec) { r.seq = 1 })),
			Want: []ruletest.Want{{Line: 2, Rule: "muse/sequence-increasing"}, {Line: 3, Rule: "muse/sequence-gap"}}},
		{Name: "sequence gap", Lines: turn(c, 1, raw(ok("linked", ""), func(r *rec) { r.seq = 5 })),
			Want: []ruletest.Want{{Line: 2, Rule: "muse/sequence-gap"}, {Line: 3, Rule: "muse/sequence-increasing"}}},
		{Name: "recorded_at goes back", Lines: turn(c, 1, raw(ok("linked", ""), func(r *rec) { r.at = -2 })),
			Want: []ruletest.Want{{Line: 2, Rule: "muse/recorded-at"}}},
		{Name: "ephemeral without status", Lines: turn(c, 1, raw(ok("linked", ""), func(r *rec) { r.rt, r.du = "event", "ephemeral" })),
			Want: []ruletest.Want{{Line: 2, Rule: "muse/ephemeral-status"}}},
		{Name: "status that is durable", Lines: turn(c, 1, raw(ok("linked", ""), func(r *rec) { r.rt, r.du = "status", "durable" })),
			Want: []ruletest.Want{{Line: 2, Rule: "muse/ephemeral-status"}}},
		{Name: "causation differs from command id", Lines: turn(c, 1, raw(ok("linked", ""), func(r *rec) { r.payload = strings.Replace(r.payload, `"command_id":"c1"`, `"command_id":"zz"`, 1) })),
			Want: []ruletest.Want{{Line: 2, Rule: "muse/causation"}}},
		{Name: "turn starts oddly", Lines: turn(c, 1)[1:], Want: []ruletest.Want{{Line: 1, Rule: "muse/turn-start"}, {Line: 1, Rule: "muse/sequence-gap"}}},
		{Name: "turn never ends", Lines: append(turn(c, 1)[:1], turn("c2", 5)...), Want: []ruletest.Want{{Line: 2, Rule: "muse/turn-unterminated"}}},
		{Name: "record after terminal", Lines: append(turn(c, 1), rec{id: 9, seq: 3, cause: c, pt: "session.run.linked", payload: head("session_run_linked", c)}.String()),
			Want: []ruletest.Want{{Line: 3, Rule: "muse/after-terminal"}}},
		{Name: "truncated", Lines: turn(c, 1)[:1], Want: []ruletest.Want{{Line: 1, Rule: "muse/truncated"}}},
		{Name: "task not linked", Lines: turn(c, 1, ok("proposed", `,"task_kind":"model.x"`)), Want: []ruletest.Want{{Line: 2, Rule: "muse/task-not-linked"}}},
		{Name: "illegal transition", Lines: turn(c, 1, ok("linked", ""), ok("proposed", `,"task_kind":"model.x"`), ok("completed", "")),
			Want: []ruletest.Want{{Line: 4, Rule: "muse/lifecycle-transition"}}},
		{Name: "event after the end", Lines: turn(c, 1, ok("linked", ""), ok("proposed", `,"task_kind":"model.x"`), ok("rejected", `,"reason":"skip"`), ok("accepted", "")),
			Want: []ruletest.Want{{Line: 5, Rule: "muse/lifecycle-transition"}}},
		{Name: "lifecycle kind mismatch", Lines: turn(c, 1, ok("linked", ""), raw(ok("proposed", `,"task_kind":"model.x"`), func(r *rec) { r.pt = "task.lifecycle.accepted" })),
			Want: []ruletest.Want{{Line: 3, Rule: "muse/lifecycle-kind"}}},
		{Name: "tool result joins nothing", Lines: turn(c, 1, func(id, seq int) rec {
			return rec{id: id, seq: seq, cause: c, pt: "tool.result", payload: `{"kind":"tool_result","command_id":"c1","call_id":"call_9","text":"x","correlation_facts":{"tool_name":"bash"}}`}
		}), Want: []ruletest.Want{{Line: 2, Rule: "muse/tool-result-unjoined"}}},
		{Name: "unknown payload and kind", Lines: turn(c, 1, ok("linked", ""), func(id, seq int) rec {
			return rec{id: id, seq: seq, cause: c, pt: "subagent.spawned", payload: head("x", c)}
		}, ok("paused", "")), Want: []ruletest.Want{{Line: 3, Rule: "muse/unknown-payload"}, {Line: 4, Rule: "muse/unknown-payload"}}},
		// Issue 20: words outside the closed sets of open strings are
		// reported, each at its value.
		{Name: "unknown values", Lines: turn(c, 1,
			func(id, seq int) rec {
				return rec{id: id, seq: seq, cause: c, pt: "session.run.linked", payload: head("run_linked", c)}
			},
			func(id, seq int) rec {
				return rec{id: id, seq: seq, cause: c, pt: "tool.result", payload: `{"kind":"tool_result","command_id":"c1","call_id":"call_9","text":"x","correlation_facts":{"tool_name":"bash","outcome":"timeout"}}`}
			},
			func(id, seq int) rec {
				return rec{id: id, seq: seq, cause: c, pt: "tool.result", payload: `{"kind":"tool_result","command_id":"c1","call_id":"call_8","text":"x","correlation_facts":{"outcome":"failure"}}`}
			}),
			Want: []ruletest.Want{{Line: 2, Rule: "muse/unknown-value"}, {Line: 3, Rule: "muse/unknown-value"}, {Line: 3, Rule: "muse/tool-result-unjoined"}, {Line: 4, Rule: "muse/tool-result-unjoined"}}},
		{Name: "unknown terminal state", Lines: func() []string {
			l := turn(c, 1)
			l[1] = strings.Replace(l[1], `{"kind":"run_terminal","command_id":"c1"}`, `{"kind":"run_terminal","command_id":"c1","terminal":"timed_out"}`, 1)
			return l
		}(), Want: []ruletest.Want{{Line: 2, Rule: "muse/unknown-value"}}},
		{Name: "known terminal states", Lines: func() []string {
			var out []string
			for i, st := range []string{"completed", "failed", "cancelled"} {
				cause := fmt.Sprintf("c%d", i+1)
				l := turn(cause, 1+2*i)
				l[1] = strings.Replace(l[1], `"command_id":"`+cause+`"}`, `"command_id":"`+cause+`","terminal":"`+st+`"}`, 1)
				out = append(out, l...)
			}
			return out
		}()},
		{Name: "unknown keys", Lines: turn(c, 1, raw(ok("linked", ""), func(r *rec) { r.extra = `,"shard":3` }), raw(ok("proposed", `,"task_kind":"model.x","hint":1`), func(r *rec) {})),
			Want: []ruletest.Want{{Line: 2, Rule: "muse/unknown-field"}, {Line: 3, Rule: "muse/unknown-field"}}},
	})
}
