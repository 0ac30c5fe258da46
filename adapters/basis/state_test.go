package basis

import (
	"bufio"
	"fmt"
	"io"
	"testing"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
)

// TestEncoderForgetsFinishedCalls holds the encoder's call state to the
// calls that are open: after many calls of another dialect, each asked
// about, answered and finished (some without a name on their end, some
// requests without an id), none of its open sets holds anything, and a
// call left open at the end is still completed by the run's end.
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
	enc(&event.TurnStarted{})
	const n = 5000
	for i := range n {
		id := fmt.Sprintf("call_%d", i)
		enc(&event.ToolCall{CallID: id, Name: "bash"})
		enc(&event.ToolStarted{CallID: id})
		req := ""
		if i%2 == 0 {
			req = "req_" + id
		}
		enc(&event.PermissionRequested{CallID: id, RequestID: req, Tool: "bash"})
		enc(&event.PermissionResolved{CallID: id, RequestID: req, Outcome: event.Allowed})
		enc(&event.ToolFinished{CallID: id, Status: event.ToolSuccess})
	}
	if got := e.calls.Len() + e.names.Len() + len(e.reqs) + len(e.pending); got != 0 {
		t.Errorf("after %d finished calls the encoder holds %d open calls, %d names, %d requests, %d pending lists: want none", n, e.calls.Len(), e.names.Len(), len(e.reqs), len(e.pending))
	}
	enc(&event.ToolCall{CallID: "left", Name: "bash"})
	if e.calls.Len() != 1 {
		t.Fatalf("an open call: %d open", e.calls.Len())
	}
	enc(&event.SessionFinished{Status: event.StatusOK})
	if e.calls.Len() != 0 || !e.done.Has("left") {
		t.Errorf("the run's end left %d calls open", e.calls.Len())
	}
}
