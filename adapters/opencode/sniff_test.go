package opencode_test

import (
	"bufio"
	"bytes"
	"os"
	"testing"

	_ "github.com/evtool/evtool/adapters"
	"github.com/evtool/evtool/adapters/opencode"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/internal/teststreams"
)

// firstLine returns the first line of a stream file, without its line end.
func firstLine(t *testing.T, f string) []byte {
	t.Helper()
	data, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	line, _, _ := bufio.NewReader(bytes.NewReader(data)).ReadLine()
	return line
}

// TestSniffAgainstEveryDialect checks, over the first lines of every test
// stream of every registered dialect, that opencode accepts its own and
// no other's, and that no other dialect accepts opencode's.
func TestSniffAgainstEveryDialect(t *testing.T) {
	own := 0
	for _, d := range dialect.All() {
		for _, f := range teststreams.Valid(d.Name()) {
			line := firstLine(t, f)
			got := opencode.Dialect{}.Sniff(line)
			if d.Name() == opencode.Name {
				own++
				if !got {
					t.Errorf("%s: opencode does not accept its own first line %.120s", f, line)
				}
				for _, other := range dialect.All() {
					if other.Name() != opencode.Name && other.Sniff(line) {
						t.Errorf("%s: %s accepts opencode's first line %.120s", f, other.Name(), line)
					}
				}
				if got, ok := dialect.Detect(line); !ok || got.Name() != opencode.Name {
					t.Errorf("%s: detected as %v, want opencode", f, got)
				}
				continue
			}
			if got {
				t.Errorf("%s: opencode accepts a %s first line %.120s", f, d.Name(), line)
			}
		}
	}
	if own < 3 {
		t.Fatalf("only %d opencode test streams", own)
	}
}

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
