package claude_test

import (
	"testing"

	_ "github.com/evtool/evtool/adapters" // every registered dialect
	"github.com/evtool/evtool/adapters/claude"
)

// Every registered dialect's first lines: the kit's sniff check.

// TestSniffFirstLines covers the first lines a Claude Code stream can
// start with, and near misses of other dialects.
func TestSniffFirstLines(t *testing.T) {
	for _, tt := range []struct {
		line string
		want bool
	}{
		{`{"type":"system","subtype":"init","session_id":"s","uuid":"u"}`, true},
		{`{"uuid":"u","session_id":"s","subtype":"hook_started","type":"system"}`, true},
		{`{"type":"assistant","message":{"id":"m"},"parent_tool_use_id":null,"session_id":"s"}`, true},
		{`{"type":"result","subtype":"success","session_id":"s"}`, true},
		{`{"type":"keep_alive"}`, true},
		{`{"type":"control_request","request_id":"r","request":{"subtype":"initialize"}}`, true},
		{`{"type":"stream_event","event":{"type":"message_start"},"session_id":"s"}`, true},
		{`{"type":"result","timestamp":"2026-10-01T09:00:05.100Z","status":"success","stats":{}}`, false}, // Gemini CLI
		{`{"type":"init","timestamp":"t","session_id":"s","model":"auto"}`, false},                        // Gemini CLI
		{`{"type":"tool_use","timestamp":1,"sessionID":"s","part":{}}`, false},                            // opencode
		{`{"type":"thread.started","thread_id":"t"}`, false},                                              // Codex
		{`{"seq":0,"type":"system","subtype":"init","session_id":"s"}`, false},                            // numbered lines are not Claude Code's
		{`{"jsonrpc":"2.0","method":"session/update","params":{}}`, false},
		{`{"type":"system","session_id":"s"}`, false},
		{`[]`, false},
	} {
		if got := (claude.Dialect{}).Sniff([]byte(tt.line)); got != tt.want {
			t.Errorf("Sniff(%s) = %v, want %v", tt.line, got, tt.want)
		}
	}
}
