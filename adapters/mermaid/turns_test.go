package mermaid_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/evtool/evtool/adapters/mermaid"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
)

// A mermaid run is one user turn: turn_done is a round inside it, and the
// turn ends (synthesised) right before result, with the run's outcome.
func TestOneTurnPerRun(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lines []string
		want  []event.Type
		end   event.TurnFinished
	}{{
		name: "rounds",
		lines: []string{
			`{"type":"session_started","protocol_version":1,"cli_version":"1","model":"m","task_id":null,"session_id":"s"}`,
			`{"type":"tool_started","call_id":"a"}`,
			`{"type":"tool_finished","call_id":"a","name":"read_file","status":"success","summary":"ok","error":null}`,
			`{"type":"turn_done","total_tokens":10,"stop_reason":"tool_use"}`,
			`{"type":"text","delta":"done"}`,
			`{"type":"turn_done","total_tokens":20,"stop_reason":"length"}`,
			`{"type":"result","response":"done","reasoning":null,"total_tokens":30,"errors":[],"session_id":"s"}`,
		},
		want: []event.Type{"session_started", "turn_started", "tool_call", "tool_started", "tool_finished", "round_finished",
			"message_delta", "round_finished", "turn_finished", "session_finished"},
		end: event.TurnFinished{Status: "ok", StopReason: event.StopMaxTokens, Usage: &event.Usage{TotalTokens: u(30)}},
	}, {
		name: "failed",
		lines: []string{
			`{"type":"session_started","protocol_version":1,"cli_version":"1","model":"m","task_id":null,"session_id":"s"}`,
			`{"type":"error","message":"boom"}`,
			`{"type":"turn_done","total_tokens":null,"stop_reason":"tool_use"}`,
			`{"type":"result","response":"","reasoning":null,"total_tokens":0,"errors":["boom"],"session_id":"s"}`,
		},
		want: []event.Type{"session_started", "turn_started", "error", "round_finished", "turn_finished", "session_finished"},
		end:  event.TurnFinished{Status: "error", Reason: "boom", Usage: &event.Usage{TotalTokens: u(0)}},
	}, {
		name: "empty run",
		lines: []string{
			`{"type":"session_started","protocol_version":1,"cli_version":"1","model":"m","task_id":null,"session_id":"s"}`,
			`{"type":"result","response":"","reasoning":null,"total_tokens":0,"errors":[],"session_id":"s"}`,
		},
		want: []event.Type{"session_started", "turn_started", "turn_finished", "session_finished"},
		end:  event.TurnFinished{Status: "ok", Usage: &event.Usage{TotalTokens: u(0)}},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			evs := decode(t, tc.lines...)
			var types []event.Type
			turns := 0
			for _, ev := range evs {
				types = append(types, ev.Type())
				if ev.Type() == event.TypeTurnStarted {
					turns++
				}
			}
			if !reflect.DeepEqual(types, tc.want) {
				t.Fatalf("types %v\nwant %v", types, tc.want)
			}
			end := evs[len(evs)-2]
			if !end.Synthetic || end.TurnID != "turn-1" || !reflect.DeepEqual(*end.Body.(*event.TurnFinished), tc.end) {
				t.Errorf("turn end %+v %+v, want %+v", end, end.Body, tc.end)
			}
		})
	}
}

func u(n uint64) *uint64 { return &n }

// Reading a file, a call's tool_call carries the name its tool_finished
// (or approval_required) gives; on a live pipe it is named at its end.
func TestLookaheadNamesCalls(t *testing.T) {
	lines := []string{
		`{"type":"session_started","protocol_version":1,"cli_version":"1","model":"m","task_id":null,"session_id":"s"}`,
		`{"type":"tool_started","call_id":"a"}`,
		`{"type":"text","delta":"x"}`,
		`{"type":"tool_started","call_id":"b"}`,
		`{"type":"tool_finished","call_id":"b","name":"execute_command","status":"success","summary":"ok","error":null}`,
		`{"type":"tool_finished","call_id":"a","name":"read_file","status":"success","summary":"ok","error":null}`,
		`{"type":"tool_started","call_id":"c"}`,
	}
	for _, look := range []bool{false, true} {
		dec := mermaid.Dialect{}.NewDecoder(dialect.DecodeOptions{Lookahead: look})
		var out []*event.Event
		var sizes []int // events out after each line
		for i, l := range lines {
			var err error
			if out, err = dec.Decode(out, []byte(l), i+1); err != nil {
				t.Fatal(err)
			}
			sizes = append(sizes, len(out))
		}
		out = dec.End(out)
		names := map[string]string{}
		var order []string
		for _, ev := range out {
			order = append(order, string(ev.Type()))
			if tc, ok := ev.Body.(*event.ToolCall); ok {
				names[tc.CallID] = tc.Name + "/" + string(tc.Kind)
			}
		}
		want := map[string]string{"a": "/", "b": "/", "c": "/"}
		if look {
			want = map[string]string{"a": "read_file/read", "b": "execute_command/execute", "c": "/"}
			if sizes[1] != 2 || sizes[4] != 2 || sizes[5] != len(out)-2 {
				t.Errorf("held back %v of %d events", sizes, len(out))
			}
		}
		if !reflect.DeepEqual(names, want) {
			t.Errorf("lookahead %v: names %v, want %v", look, names, want)
		}
		if got := strings.Join(order, " "); got != "session_started turn_started tool_call tool_started message_delta tool_call tool_started tool_finished tool_finished tool_call tool_started" {
			t.Errorf("lookahead %v: order %s", look, got)
		}
	}
}
