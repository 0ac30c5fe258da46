package opencode_test

import (
	"testing"

	_ "github.com/evtool/evtool/adapters"
	"github.com/evtool/evtool/adapters/opencode"
)

// Every registered dialect's first lines: the kit's sniff check.

func TestSniffShapes(t *testing.T) {
	for _, c := range []struct {
		line string
		want bool
	}{
		{`{"type":"step_start","timestamp":1,"sessionID":"ses_x","part":{}}`, true},
		{`{"type":"error","timestamp":1,"sessionID":"ses_x","error":{"name":"UnknownError"}}`, true},
		{`{"type":"a.future.type","timestamp":1,"sessionID":"ses_x"}`, true},
		{`{"id":"evt_1","type":"server.connected","properties":{}}`, true},
		{`{"type":"session.idle","properties":{"sessionID":"s"}}`, true},
		{`{"type":"step_start","timestamp":"2026-01-01T00:00:00Z","sessionID":"s"}`, false}, // a string time is not opencode's
		{`{"type":"tool_use","timestamp":"2026-01-01T00:00:00Z","session_id":"s"}`, false},  // Gemini's tool_use
		{`{"type":"thread.started","thread_id":"t"}`, false},                                // Codex
		{`{"seq":0,"type":"step_start","timestamp":1,"sessionID":"s"}`, false},
		{`{"type":"idle","properties":{}}`, false},
		{`[1]`, false},
	} {
		if got := (opencode.Dialect{}).Sniff([]byte(c.line)); got != c.want {
			t.Errorf("Sniff(%s) = %v, want %v", c.line, got, c.want)
		}
	}
}
