package dialect_test

import (
	"strings"
	"testing"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
)

// recorder is an Encoder that records the types it is given.
type recorder struct{ got []string }

func (r *recorder) Encode(e *event.Event) error {
	name := string(e.Type())
	if u, ok := e.Body.(*event.Unknown); ok {
		name = "?" + string(u.Raw)
	}
	r.got = append(r.got, name)
	return nil
}

func (r *recorder) Close() error { r.got = append(r.got, "close"); return nil }

func TestKeepInPlace(t *testing.T) {
	u := func(s string) *event.Event {
		return &event.Event{Body: &event.Unknown{Dialect: "evtool", Raw: []byte(s)}}
	}
	ev := func(b event.Body) *event.Event { return &event.Event{Body: b} }
	for _, tt := range []struct {
		name string
		in   []*event.Event
		want string
	}{
		{"before the header", []*event.Event{u("a"), u("b"), ev(&event.SessionStarted{}), ev(&event.TurnStarted{}), u("c"), ev(&event.TurnFinished{})},
			"session_started ?a ?b turn_started ?c turn_finished close"},
		{"inside deltas, closed by the whole message", []*event.Event{ev(&event.SessionStarted{}), ev(&event.MessageDelta{}), u("a"), ev(&event.MessageDelta{}), ev(&event.Message{}), ev(&event.TurnFinished{})},
			"session_started message_delta message_delta message ?a turn_finished close"},
		{"inside deltas, ended by another event", []*event.Event{ev(&event.SessionStarted{}), ev(&event.ReasoningDelta{}), u("a"), ev(&event.MessageDelta{}), u("b"), ev(&event.ToolCall{})},
			"session_started reasoning_delta ?a message_delta ?b tool_call close"},
		{"inside tool output", []*event.Event{ev(&event.SessionStarted{}), ev(&event.ToolOutput{}), u("a"), ev(&event.ToolOutput{}), ev(&event.ToolFinished{})},
			"session_started tool_output tool_output tool_finished ?a close"},
		{"after the end", []*event.Event{ev(&event.SessionStarted{}), ev(&event.SessionFinished{}), u("a"), u("b")},
			"session_started session_finished ?a ?b close"},
		{"nothing but unknown lines", []*event.Event{u("a"), u("b")}, "?a ?b close"},
	} {
		r := &recorder{}
		enc := dialect.KeepInPlace(r)
		for _, e := range tt.in {
			if err := enc.Encode(e); err != nil {
				t.Fatal(err)
			}
		}
		if err := enc.Close(); err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(r.got, " "); got != tt.want {
			t.Errorf("%s:\ngot  %s\nwant %s", tt.name, got, tt.want)
		}
	}
}

// TestKeepInPlaceBound: a stream of nothing but unknown events is not held
// whole.
func TestKeepInPlaceBound(t *testing.T) {
	r := &recorder{}
	enc := dialect.KeepInPlace(r)
	for range 5000 {
		if err := enc.Encode(&event.Event{Body: &event.Unknown{Raw: []byte("{}")}}); err != nil {
			t.Fatal(err)
		}
	}
	if len(r.got) < 5000-1024 {
		t.Errorf("%d of 5000 unknown events passed on before the end; the rest are held", len(r.got))
	}
}
