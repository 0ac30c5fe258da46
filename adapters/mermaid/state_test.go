package mermaid

import (
	"bufio"
	"fmt"
	"io"
	"testing"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
)

// TestEncoderForgetsFinishedCalls holds the encoder's call state to the
// calls that are open: after many calls of another dialect, each named,
// started, asked about and finished, none of its open sets holds
// anything, and a call left open is still finished by the run's end.
func TestEncoderForgetsFinishedCalls(t *testing.T) {
	w := bufio.NewWriter(io.Discard)
	e := Dialect{}.NewEncoder(w, dialect.EncodeOptions{Losses: &dialect.Losses{}}).(*Encoder)
	enc := func(b event.Body) {
		t.Helper()
		if err := e.Encode(&event.Event{Body: b}); err != nil {
			t.Fatal(err)
		}
	}
	enc(&event.SessionStarted{Schema: event.SchemaVersion})
	const n = 5000
	for i := range n {
		id := fmt.Sprintf("call_%d", i)
		enc(&event.ToolCall{CallID: id, Name: "bash"})
		enc(&event.ToolStarted{CallID: id})
		enc(&event.PermissionRequested{CallID: id, Tool: "bash"})
		enc(&event.ToolFinished{CallID: id, Status: event.ToolSuccess})
	}
	if got := e.calls.Len() + e.started.Len() + e.approved.Len(); got != 0 {
		t.Errorf("after %d finished calls the encoder holds %d named, %d started, %d asked about: want none", n, e.calls.Len(), e.started.Len(), e.approved.Len())
	}
	enc(&event.ToolCall{CallID: "left", Name: "bash"})
	enc(&event.ToolStarted{CallID: "left"})
	enc(&event.SessionFinished{Status: event.StatusOK})
	if e.started.Len() != 0 || !e.finished.Has("left") {
		t.Errorf("the run's end left %d calls open", e.started.Len())
	}
}
