package event_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/evtool/evtool/event"
)

// TestWriteIsAppend holds Write to Append on lines with long values of
// every kind Write writes straight to its writer (a text, a pointer to
// one, a raw input compacted, an unknown line, ext and extra fields, a
// body from outside the model), and checks that the buffer it returns
// stays far below the line: the long values never pass through it.
func TestWriteIsAppend(t *testing.T) {
	long := strings.Repeat("line \"one\"\t— ünïcödé 😀\n\x01", 40_000) + "\xff end" // ~1.3 MB, escapes, invalid UTF-8
	raw := json.RawMessage(`{ "command" : ` + string(mustJSON(long)) + ` ,` + "\n\t" + `"n": [1, 2,   3] }`)
	out := long[:700_000]
	evs := []*event.Event{
		{TurnID: "t1", Body: &event.Message{Text: long, MessageID: "m1"}},
		{Body: &event.ToolCall{CallID: "c1", Name: "bash", Input: raw}},
		{Body: &event.ToolFinished{CallID: "c1", Status: event.ToolSuccess, Output: &out}},
		{Body: &event.Unknown{Dialect: "x", SourceType: "y", Raw: raw}},
		{Body: &event.Message{Text: "short"}, Ext: event.ExtOf("basis", mustJSON(map[string]string{"keep": long}))},
		{Body: &event.Message{Text: "short"}, Extra: []event.RawField{{Key: "zzz", Value: mustJSON(long)}}},
		{Body: foreign{Text: long}},
		{Body: &event.Message{Text: "all short"}},
	}
	var buf []byte
	for i, ev := range evs {
		want, err := event.Append(nil, ev)
		if err != nil {
			t.Fatal(err)
		}
		var w bytes.Buffer
		buf, err = event.Write(&w, buf, ev)
		if err != nil {
			t.Fatal(err)
		}
		if got := w.Bytes(); !bytes.Equal(got, append(want, '\n')) {
			t.Errorf("event %d: Write and Append differ (%d and %d bytes)", i, len(got), len(want)+1)
		}
		if cap(buf) > 1<<20 {
			t.Errorf("event %d: a buffer of %d bytes for a line of %d: the long values went through it", i, cap(buf), len(want))
		}
	}
}

// TestWriteError returns the writer's first error.
func TestWriteError(t *testing.T) {
	ev := &event.Event{Body: &event.Message{Text: strings.Repeat("x", 1<<20)}}
	if _, err := event.Write(errWriter{}, nil, ev); !errors.Is(err, errWrite) {
		t.Errorf("got %v, want the writer's error", err)
	}
	if _, err := event.Write(errWriter{}, nil, &event.Event{Body: &event.Message{Text: "x"}}); !errors.Is(err, errWrite) {
		t.Errorf("a short line: got %v, want the writer's error", err)
	}
}

var errWrite = errors.New("disk full")

type errWriter struct{}

func (errWriter) Write([]byte) (int, error) { return 0, errWrite }

// foreign is a body from outside the model, which Append writes as
// encoding/json does.
type foreign struct {
	Text string `json:"text"`
}

func (foreign) Type() event.Type { return "x_foreign" }

func mustJSON(v any) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}
