package muse

import (
	"bufio"
	"bytes"
	"fmt"
	"testing"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
)

// The encoder's state must cost what its open tasks do, not what the
// stream ever held: on a run of 540,000 calls, tables of every call id
// (and the source lines their keys were cut from) grew to hundreds of
// megabytes and kept the collector busy for most of the run.

// foreignRun writes, from another dialect, turns of tool calls that
// start and finish (every third asked about first, every fifth failing),
// a task every seventh call that runs and completes, and then leaves two
// calls open. It returns the encoder and the muse it wrote.
func foreignRun(t *testing.T, turns, calls int) (*Encoder, []byte) {
	t.Helper()
	var out bytes.Buffer
	w := bufio.NewWriter(&out)
	e := newEncoder(w, dialect.EncodeOptions{Losses: &dialect.Losses{}})
	turn := ""
	enc := func(b event.Body) {
		t.Helper()
		if err := e.Encode(&event.Event{TurnID: turn, Body: b}); err != nil {
			t.Fatal(err)
		}
	}
	enc(&event.SessionStarted{Source: event.SourceInfo{Dialect: "mermaid"}, SessionID: "s"})
	n := 0
	for i := range turns {
		turn = fmt.Sprintf("turn-%d", i)
		enc(&event.TurnStarted{})
		enc(&event.UserMessage{Text: fmt.Sprintf("prompt %d", i)})
		for range calls {
			n++
			id := fmt.Sprintf("call_%d", n)
			enc(&event.ToolCall{CallID: id, Name: "grep"})
			if n%3 == 0 {
				enc(&event.PermissionResolved{CallID: id, Outcome: event.Allowed, Scope: "once"})
			}
			enc(&event.ToolStarted{CallID: id})
			status := event.ToolSuccess
			if n%5 == 0 {
				status = event.ToolError
			}
			out := "ok"
			enc(&event.ToolFinished{CallID: id, Status: status, Output: &out})
			if n%7 == 0 {
				task := fmt.Sprintf("task_%d", n)
				enc(&event.TaskUpdated{TaskID: task, Status: event.TaskPending})
				enc(&event.TaskUpdated{TaskID: task, Status: event.TaskRunning})
				enc(&event.TaskUpdated{TaskID: task, Status: event.TaskCompleted})
			}
		}
	}
	enc(&event.ToolCall{CallID: "open_1", Name: "grep"})
	enc(&event.ToolCall{CallID: "open_2", Name: "bash"})
	enc(&event.ToolStarted{CallID: "open_2"})
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return e, out.Bytes()
}

// checkState fails unless the encoder's state keeps no more than open
// tasks with provider call ids, and nothing only a decoder reads.
func checkState(t *testing.T, st *state, open int) {
	t.Helper()
	if len(st.callID) != open {
		t.Errorf("state keeps %d provider call ids, want %d (the open calls')", len(st.callID), open)
	}
	if len(st.taskKind) != 0 || len(st.taskOf) != 0 {
		t.Errorf("state keeps %d task kinds, %d tasks by call id, want none", len(st.taskKind), len(st.taskOf))
	}
	if len(st.prompt) > 1 {
		t.Errorf("state keeps %d prompts, want the open turn's only", len(st.prompt))
	}
}

func TestForeignStateKeepsOpenTasksOnly(t *testing.T) {
	e, _ := foreignRun(t, 3, 1000)
	if got := len(e.f.tasks); got != 2 {
		t.Errorf("foreign keeps %d tasks, want the 2 open calls", got)
	}
	checkState(t, e.st, 1) // open_2 was scheduled to start
	// An ended call is still known as one: finishing it again is an
	// illegal finish, not a result for an unknown call.
	losses := e.opts.Losses
	if err := e.Encode(&event.Event{Body: &event.ToolFinished{CallID: "call_1", Status: event.ToolSuccess}}); err != nil {
		t.Fatal(err)
	}
	for _, l := range losses.List() {
		if l.LossKind() == lossResultUnknownCall {
			t.Errorf("an ended call is taken for an unknown one: %s", l)
		}
	}
	found := false
	for _, l := range losses.List() {
		found = found || l.LossKind() == lossIllegalToolFinish
	}
	if !found {
		t.Errorf("finishing an ended call again counts no %s", lossIllegalToolFinish.ID)
	}
}

// TestNativeStateKeepsOpenTasksOnly reads the muse written above back and
// writes it again: the same bytes, from a state that kept no ended task.
func TestNativeStateKeepsOpenTasksOnly(t *testing.T) {
	_, in := foreignRun(t, 20, 100)
	d := &Decoder{}
	var out bytes.Buffer
	w := bufio.NewWriter(&out)
	e := newEncoder(w, dialect.EncodeOptions{Losses: &dialect.Losses{}})
	var evs []*event.Event
	for n, line := range bytes.Split(bytes.TrimSuffix(in, []byte("\n")), []byte("\n")) {
		var err error
		if evs, err = d.Decode(evs[:0], line, n+1); err != nil {
			t.Fatalf("line %d: %v", n+1, err)
		}
		for _, ev := range evs {
			if err := e.Encode(ev); err != nil {
				t.Fatalf("line %d: %v", n+1, err)
			}
		}
	}
	for _, ev := range d.End(nil) {
		if err := e.Encode(ev); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), in) {
		t.Fatalf("muse -> canonical -> muse is not the same bytes")
	}
	checkState(t, e.st, 1)
}
