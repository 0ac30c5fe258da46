package claude_test

import (
	"bufio"
	"os"
	"testing"

	_ "github.com/evtool/evtool/adapters" // every registered dialect
	"github.com/evtool/evtool/adapters/claude"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/internal/teststreams"
)

// firstLine returns the first non-blank line of a file.
func firstLine(t *testing.T, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		if len(sc.Bytes()) > 0 {
			return append([]byte(nil), sc.Bytes()...)
		}
	}
	return nil
}

// TestSniffAgainstEveryDialect loops over the registry: the first line of
// every test stream of every dialect is accepted by its own sniffer (for
// a dialect with one) and by no other dialect's, Claude Code's included.
func TestSniffAgainstEveryDialect(t *testing.T) {
	all := dialect.All()
	seen := 0
	for _, d := range all {
		for _, f := range teststreams.Valid(d.Name()) {
			line := firstLine(t, f)
			seen++
			var accept []string
			for _, other := range all {
				if other.Sniff(line) {
					accept = append(accept, other.Name())
				}
			}
			switch {
			case len(accept) > 1:
				t.Errorf("%s (%s): the first line is accepted by %v", f, d.Name(), accept)
			case d.Name() == claude.Name && (len(accept) != 1 || accept[0] != claude.Name):
				t.Errorf("%s: claude does not sniff its own first line (accepted by %v)", f, accept)
			case d.Name() != claude.Name && len(accept) == 1 && accept[0] == claude.Name:
				t.Errorf("%s: a %s stream sniffs as claude", f, d.Name())
			}
		}
	}
	if seen < 20 {
		t.Fatalf("only %d test streams in the registry", seen)
	}
}

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
