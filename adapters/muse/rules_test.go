package muse_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/evtool/evtool/adapters/muse"
	"github.com/evtool/evtool/dialect"
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

func head(cause string) string {
	return fmt.Sprintf(`{"kind":"x","command_id":%q}`, cause)
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
	out := []string{rec{id: first, seq: 1, cause: cause, pt: "runtime.command.accepted", payload: head(cause)}.String()}
	seq := 2
	for _, b := range body {
		out = append(out, b(first+seq-1, seq).String())
		seq++
	}
	return append(out, rec{id: first + seq - 1, seq: seq, cause: cause, pt: "run.terminal.completed", payload: head(cause)}.String())
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
	type want struct {
		line int
		rule string
		sev  dialect.Severity
	}
	E, W := dialect.Error, dialect.Warning
	c := "c1"
	ok := func(kind, fields string) func(int, int) rec { return task(c, "t1", kind, fields) }
	tests := []struct {
		name  string
		lines []string
		want  []want
	}{
		{"valid", turn(c, 1, ok("linked", ""), ok("proposed", `,"task_kind":"tool.bash"`), ok("accepted", ""), ok("started", ""), ok("completed", "")), nil},
		{"schema version", func() []string {
			l := turn(c, 1)
			l[0] = strings.Replace(l[0], `"schema_version":1`, `"schema_version":2`, 1)
			return l
		}(), []want{{1, muse.RuleSchemaVersion, W}}},
		{"duplicate id", []string{turn(c, 1)[0], turn(c, 1)[1], strings.Replace(turn("c2", 1)[0], `"id":"id-1"`, `"id":"id-1"`, 1), turn("c2", 5)[1]},
			[]want{{3, muse.RuleDuplicateID, E}, {3, muse.RuleRecordedAt, W}}},
		{"sequence goes back", turn(c, 1, raw(ok("linked", ""), func(r *rec) { r.seq = 1 })),
			[]want{{2, muse.RuleSequence, E}, {3, muse.RuleSequenceGap, W}}},
		{"sequence gap", turn(c, 1, raw(ok("linked", ""), func(r *rec) { r.seq = 5 })),
			[]want{{2, muse.RuleSequenceGap, W}, {3, muse.RuleSequence, E}}},
		{"recorded_at goes back", turn(c, 1, raw(ok("linked", ""), func(r *rec) { r.at = -2 })),
			[]want{{2, muse.RuleRecordedAt, W}}},
		{"ephemeral without status", turn(c, 1, raw(ok("linked", ""), func(r *rec) { r.rt, r.du = "event", "ephemeral" })),
			[]want{{2, muse.RuleEphemeral, E}}},
		{"status that is durable", turn(c, 1, raw(ok("linked", ""), func(r *rec) { r.rt, r.du = "status", "durable" })),
			[]want{{2, muse.RuleEphemeral, E}}},
		{"causation differs from command id", turn(c, 1, raw(ok("linked", ""), func(r *rec) { r.payload = strings.Replace(r.payload, `"command_id":"c1"`, `"command_id":"zz"`, 1) })),
			[]want{{2, muse.RuleCausation, W}}},
		{"turn starts oddly", turn(c, 1)[1:], []want{{1, muse.RuleTurnStart, W}, {1, muse.RuleSequenceGap, W}}},
		{"turn never ends", append(turn(c, 1)[:1], turn("c2", 5)...), []want{{2, muse.RuleTurnEnd, E}}},
		{"record after terminal", append(turn(c, 1), rec{id: 9, seq: 3, cause: c, pt: "session.run.linked", payload: head(c)}.String()),
			[]want{{3, muse.RuleAfterTerminal, E}}},
		{"truncated", turn(c, 1)[:1], []want{{1, muse.RuleTruncated, E}}},
		{"task not linked", turn(c, 1, ok("proposed", `,"task_kind":"model.x"`)), []want{{2, muse.RuleTaskNotLinked, E}}},
		{"illegal transition", turn(c, 1, ok("linked", ""), ok("proposed", `,"task_kind":"model.x"`), ok("completed", "")),
			[]want{{4, muse.RuleTransition, E}}},
		{"event after the end", turn(c, 1, ok("linked", ""), ok("proposed", `,"task_kind":"model.x"`), ok("rejected", `,"reason":"skip"`), ok("accepted", "")),
			[]want{{5, muse.RuleTransition, E}}},
		{"lifecycle kind mismatch", turn(c, 1, ok("linked", ""), raw(ok("proposed", `,"task_kind":"model.x"`), func(r *rec) { r.pt = "task.lifecycle.accepted" })),
			[]want{{3, muse.RuleLifecycleKind, E}}},
		{"tool result joins nothing", turn(c, 1, func(id, seq int) rec {
			return rec{id: id, seq: seq, cause: c, pt: "tool.result", payload: `{"kind":"tool_result","command_id":"c1","call_id":"call_9","text":"x","correlation_facts":{"tool_name":"bash"}}`}
		}), []want{{2, muse.RuleToolResult, W}}},
		{"unknown payload and kind", turn(c, 1, ok("linked", ""), func(id, seq int) rec {
			return rec{id: id, seq: seq, cause: c, pt: "subagent.spawned", payload: head(c)}
		}, ok("paused", "")), []want{{3, muse.RuleUnknownPayload, W}, {4, muse.RuleUnknownPayload, W}}},
		{"unknown keys", turn(c, 1, raw(ok("linked", ""), func(r *rec) { r.extra = `,"shard":3` }), raw(ok("proposed", `,"task_kind":"model.x","hint":1`), func(r *rec) {})),
			[]want{{2, muse.RuleUnknownField, W}, {3, muse.RuleUnknownField, W}}},
	}
	covered := map[string]bool{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ch := muse.Dialect{}.NewChecker(dialect.CheckOptions{})
			var got []dialect.Finding
			for i, l := range tt.lines {
				ch.Line([]byte(l), i+1, func(f dialect.Finding) { got = append(got, f) })
			}
			ch.End(len(tt.lines), func(f dialect.Finding) { got = append(got, f) })
			if len(got) != len(tt.want) {
				var s []string
				for _, f := range got {
					s = append(s, fmt.Sprintf("line %d %s %s: %s", f.Line, f.Severity, f.Rule, f.Message))
				}
				t.Fatalf("got %d findings, want %d:\n%s", len(got), len(tt.want), strings.Join(s, "\n"))
			}
			for i, w := range tt.want {
				if got[i].Line != w.line || got[i].Rule != w.rule || got[i].Severity != w.sev {
					t.Errorf("got line %d %s %s (%s), want line %d %s %s", got[i].Line, got[i].Severity, got[i].Rule, got[i].Message, w.line, w.sev, w.rule)
				}
				covered[w.rule] = true
			}
		})
	}
	for _, r := range (muse.Dialect{}).Rules() {
		if !covered[r.ID] {
			t.Errorf("rule %s has no breaking test", r.ID)
		}
	}
}
