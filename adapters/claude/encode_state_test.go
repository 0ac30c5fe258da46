package claude

import (
	"bufio"
	"bytes"
	"slices"
	"strconv"
	"testing"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/idset"
)

// openState returns the sizes of the encoder's per-call and per-request
// state: what must not grow with the calls a stream has finished.
func (e *Encoder) openState() (calls, outputs, asked, askedFor, agents int) {
	return e.open.Len(), len(e.outputs), len(e.asked), len(e.askedFor), len(e.msgID)
}

// TestEncoderStateBounded encodes a long run of another dialect's tool
// calls, each with output chunks, an unanswered permission request and a
// subagent's message, with a few calls open at a time, and checks that the
// encoder keeps state only for the open ones.
func TestEncoderStateBounded(t *testing.T) {
	const (
		n      = 5000
		window = 3 // calls open at once
	)
	var out bytes.Buffer
	w := bufio.NewWriter(&out)
	losses := &dialect.Losses{}
	e := newEncoder(w, dialect.EncodeOptions{Losses: losses})
	encode := func(ev *event.Event) {
		t.Helper()
		if err := e.Encode(ev); err != nil {
			t.Fatal(err)
		}
	}
	encode(&event.Event{Body: &event.SessionStarted{Schema: event.SchemaVersion, Source: event.SourceInfo{Dialect: "codex"}}})
	id := func(i int) string { return "call_" + strconv.Itoa(i) }
	finish := func(i int) {
		encode(&event.Event{Body: &event.ToolFinished{CallID: id(i), Status: event.ToolSuccess}})
	}
	for i := range n {
		encode(&event.Event{Body: &event.ToolCall{CallID: id(i), Name: "bash"}})
		encode(&event.Event{Body: &event.ToolOutput{CallID: id(i), Chunk: "out " + id(i)}})
		encode(&event.Event{Body: &event.PermissionRequested{CallID: id(i), Tool: "bash"}})
		// A subagent's message: its message id is kept only until the
		// subagent's next line that is not an assistant line.
		agent := "task_" + strconv.Itoa(i)
		encode(&event.Event{AgentID: agent, Body: &event.Message{Text: "working"}})
		encode(&event.Event{AgentID: agent, Body: &event.ToolProgress{CallID: id(i)}})
		if i >= window {
			finish(i - window)
		}
		if calls, outputs, asked, askedFor, agents := e.openState(); calls > window+1 || outputs > window+1 ||
			asked > window+1 || askedFor > window+1 || agents > 1 {
			t.Fatalf("after call %d: open state %d calls, %d outputs, %d requests, %d calls asked about, %d agents; want at most %d, and 1 agent",
				i, calls, outputs, asked, askedFor, agents, window+1)
		}
	}
	for i := n - window; i < n; i++ {
		finish(i)
	}
	if calls, outputs, asked, askedFor, _ := e.openState(); calls+outputs+asked+askedFor != 0 {
		t.Errorf("every call finished: open state %d calls, %d outputs, %d requests, %d calls asked about; want none",
			calls, outputs, asked, askedFor)
	}
	if got := e.finished.Len(); got > 2*idset.Generation {
		t.Errorf("finished calls remembered: %d, more than idset's bound %d", got, 2*idset.Generation)
	}

	// A finished call is still known: a second tool_call and tool_result
	// write nothing.
	before := out.Len() + w.Buffered()
	encode(&event.Event{Body: &event.ToolCall{CallID: id(7), Name: "bash"}})
	finish(7)
	if after := out.Len() + w.Buffered(); after != before {
		t.Errorf("a finished call's repeated tool_call and tool_result wrote %d bytes", after-before)
	}
	counts := map[string]int{}
	for _, l := range losses.List() {
		counts[l.ID] += l.Count
	}
	for _, k := range []*dialect.LossKind{lossRepeatedToolCall, lossRepeatedToolResult} {
		if counts[k.ID] != 1 {
			t.Errorf("%s counted %d times, want 1", k.ID, counts[k.ID])
		}
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestEncoderAnswers checks that a permission answer finds its request by
// id, or the latest open request of its call, and that a request is
// forgotten once answered or once its call's tool_result is written.
func TestEncoderAnswers(t *testing.T) {
	var out bytes.Buffer
	w := bufio.NewWriter(&out)
	e := newEncoder(w, dialect.EncodeOptions{Losses: &dialect.Losses{}})
	evs := []event.Body{
		&event.SessionStarted{Schema: event.SchemaVersion, Source: event.SourceInfo{Dialect: "codex"}},
		&event.ToolCall{CallID: "c1", Name: "bash"},
		&event.PermissionRequested{RequestID: "r1", CallID: "c1"},
		&event.PermissionRequested{RequestID: "r2", CallID: "c1"},
		&event.PermissionResolved{CallID: "c1", Outcome: event.Allowed}, // r2, the latest
		&event.PermissionResolved{CallID: "c1", Outcome: event.Allowed}, // r1
		&event.PermissionResolved{CallID: "c1", Outcome: event.Allowed}, // none open
		&event.PermissionRequested{RequestID: "r3", CallID: "c1"},
		&event.ToolFinished{CallID: "c1", Status: event.ToolSuccess},
		&event.PermissionResolved{RequestID: "r3", Outcome: event.Allowed}, // after the result: none open
	}
	for _, b := range evs {
		if err := e.Encode(&event.Event{Body: b}); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	var answered []string
	for line := range bytes.Lines(out.Bytes()) {
		if bytes.Contains(line, []byte(`"type":"control_response"`)) {
			for _, r := range []string{"r1", "r2", "r3"} {
				if bytes.Contains(line, []byte(`"request_id":"`+r+`"`)) {
					answered = append(answered, r)
				}
			}
		}
	}
	if got, want := answered, []string{"r2", "r1"}; !slices.Equal(got, want) {
		t.Errorf("control_responses answer %q, want %q\n%s", got, want, out.Bytes())
	}
	if calls, outputs, asked, askedFor, _ := e.openState(); calls+outputs+asked+askedFor != 0 {
		t.Errorf("open state %d calls, %d outputs, %d requests, %d calls asked about; want none", calls, outputs, asked, askedFor)
	}
}
