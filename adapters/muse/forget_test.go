package muse_test

import (
	"bytes"
	"fmt"
	"slices"
	"testing"

	"github.com/evtool/evtool/event"
)

// result is a tool.result record's payload; name, when set, is its
// correlation facts' tool name.
func result(cause, call, name string) string {
	facts := ""
	if name != "" {
		facts = fmt.Sprintf(`,"correlation_facts":{"tool_name":%q,"outcome":"success"}`, name)
	}
	return fmt.Sprintf(`{"kind":"tool_result","command_id":%q,"run_stream":{"kind":"run","id":%q},"call_id":%q,"text":"ok"%s}`, cause, cause, call, facts)
}

func toolResult(cause, call, name string) func(id, seq int) rec {
	return func(id, seq int) rec {
		return rec{id: id, seq: seq, cause: cause, pt: "tool.result", payload: result(cause, call, name)}
	}
}

// fullTurn is turn with records that Muse's schema accepts at its start
// and end.
func fullTurn(cause string, first int, body ...func(id, seq int) rec) []string {
	l := turn(cause, first, body...)
	l[0] = rec{id: first, seq: 1, cause: cause, pt: "runtime.command.accepted",
		payload: fmt.Sprintf(`{"kind":"command_accepted","command_id":%q,"client_id":null,"command_kind":"turn.submit"}`, cause)}.String()
	l[len(l)-1] = rec{id: first + len(l) - 1, seq: len(l), cause: cause, pt: "run.terminal.completed",
		payload: fmt.Sprintf(`{"kind":"run_terminal","command_id":%q,"run_stream":{"kind":"run","id":%q},"terminal":"completed","text":"done","reason":null}`, cause, cause)}.String()
	return l
}

// joinLines makes a stream of turns' records.
func joinLines(turns ...[]string) []byte {
	var b bytes.Buffer
	for _, tr := range turns {
		for _, l := range tr {
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
	return b.Bytes()
}

// The decoder forgets a tool task once its call is finished and answered,
// and another task once it ended (keeping their ids): records naming them
// later read as they did when the decoder kept every task.
func TestForgottenTasksStayEnded(t *testing.T) {
	const c = "turn-1"
	in := joinLines(fullTurn(c, 1,
		task(c, "A", "proposed", `,"task_kind":"tool.bash"`),
		task(c, "A", "scheduled", `,"idempotency_key":"tool:call_a"`),
		task(c, "A", "completed", ""),
		toolResult(c, "call_a", ""), // finishes and answers A: forgotten
		task(c, "A", "started", ""), // after the call's end: residue
		task(c, "A", "proposed", `,"task_kind":"tool.bash"`),
		toolResult(c, "A", ""), // joined to no task; its call may not take A's id
		task(c, "P", "proposed", `,"task_kind":"subagent.explore"`),
		task(c, "P", "completed", ""), // P ends: forgotten but for its kind
		task(c, "P", "status", `,"message":"late","details":{"phase":"late"}`),
	))
	evs := events(t, toCanonical(t, in))
	calls := map[string]int{}
	var started, late int
	for _, ev := range evs {
		switch b := ev.Body.(type) {
		case *event.ToolCall:
			calls[b.CallID]++
		case *event.ToolStarted:
			started++
		case *event.TaskUpdated:
			if b.TaskID != "P" {
				t.Errorf("task_updated of %q", b.TaskID)
			}
			if b.Kind != event.TaskSubagent {
				t.Errorf("task P's %s update has kind %q, want %q (its kind is kept after its end)", b.Status, b.Kind, event.TaskSubagent)
			}
			if b.Detail == "late" {
				late++
			}
			if b.Status == event.TaskCancelled {
				t.Errorf("task P, ended, is cancelled again at the run's end")
			}
		}
	}
	if calls["A"] != 1 || calls["A#2"] != 1 || len(calls) != 2 {
		t.Errorf("tool calls %v, want A once and the unjoined result's A#2", calls)
	}
	if started != 0 {
		t.Errorf("%d tool_started after the call's end, want 0", started)
	}
	if late != 1 {
		t.Errorf("the late status of task P read %d times, want once", late)
	}
	if back := roundTrip(t, in); !bytes.Equal(back, in) {
		t.Errorf("round trip differs:\n%s\nwant\n%s", back, in)
	}
}

// A finished tool task waits for a tool.result that may still join it (a
// task rejected before it was scheduled may get one), but only while no
// more than 4,096 others wait: then a result for it reads as one joined
// to no task, announcing its own call. Both read back byte for byte.
func TestFinishedTasksWaitWithinABound(t *testing.T) {
	for _, tc := range []struct {
		others    int
		announced bool
	}{{10, false}, {4096, true}} {
		t.Run(fmt.Sprint(tc.others), func(t *testing.T) {
			// The first turn leaves task F scheduled and ended, awaiting its
			// result: the run's end finishes it.
			first := fullTurn("turn-1", 1,
				task("turn-1", "F", "proposed", `,"task_kind":"tool.write_file"`),
				task("turn-1", "F", "scheduled", `,"idempotency_key":"tool:call_f"`),
				task("turn-1", "F", "rejected", `,"reason":"no"`),
			)
			var body []func(id, seq int) rec
			for i := range tc.others {
				id := fmt.Sprintf("R%05d", i)
				body = append(body, task("turn-2", id, "proposed", `,"task_kind":"tool.read_file"`), task("turn-2", id, "rejected", `,"reason":"no"`))
			}
			body = append(body, toolResult("turn-2", "call_f", ""))
			in := joinLines(first, fullTurn("turn-2", len(first)+1, body...))
			announced := false
			for _, ev := range events(t, toCanonical(t, in)) {
				if c, ok := ev.Body.(*event.ToolCall); ok && c.CallID == "call_f" {
					announced = true
				}
			}
			if announced != tc.announced {
				t.Errorf("with %d other tasks waiting, the result for F announced its own call: %v, want %v", tc.others, announced, tc.announced)
			}
			if back := roundTrip(t, in); !bytes.Equal(back, in) {
				t.Errorf("round trip differs")
			}
		})
	}
}

// A repeated proposal of a tool task does not change its kind: the first
// proposal's stays the task's, as when the decoder kept every kind (a
// review found the forgetting let the second one in).
func TestRepeatedProposalKeepsTheFirstKind(t *testing.T) {
	const c = "turn-1"
	in := joinLines(fullTurn(c, 1,
		task(c, "A", "proposed", `,"task_kind":"tool.bash"`),
		task(c, "A", "proposed", `,"task_kind":"subagent.explore"`),
		task(c, "A", "started", ""),
		task(c, "A", "completed", ""),
	))
	var got []string
	for _, ev := range events(t, toCanonical(t, in)) {
		switch b := ev.Body.(type) {
		case *event.ToolCall, *event.ToolStarted:
			got = append(got, string(ev.Type()))
		case *event.ToolFinished:
			got = append(got, string(ev.Type())+" "+string(b.Status))
		case *event.TaskUpdated:
			got = append(got, "task_updated "+b.TaskID)
		}
	}
	if want := []string{"tool_call", "tool_started", "tool_finished success"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if back := roundTrip(t, in); !bytes.Equal(back, in) {
		t.Errorf("round trip differs")
	}
}

// A synthetic call's id stays taken when another task of the same id
// ends: the next unjoined result for that id gets a new one (a review
// found the two kinds of forgotten ids sharing one tag).
func TestSyntheticCallIDsStayTaken(t *testing.T) {
	const c = "turn-1"
	in := joinLines(fullTurn(c, 1,
		toolResult(c, "X", ""),
		task(c, "X", "proposed", `,"task_kind":"subagent.explore"`),
		task(c, "X", "completed", ""),
		toolResult(c, "X", ""),
	))
	var ids []string
	for _, ev := range events(t, toCanonical(t, in)) {
		if b, ok := ev.Body.(*event.ToolCall); ok {
			ids = append(ids, b.CallID)
		}
	}
	if want := []string{"X", "X#2"}; !slices.Equal(ids, want) {
		t.Errorf("tool calls %q, want %q", ids, want)
	}
}
