package codex_test

import (
	"os"
	"testing"

	_ "github.com/evtool/evtool/adapters"
	"github.com/evtool/evtool/adapters/codex"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/dialecttest"
	"github.com/evtool/evtool/internal/testkit/teststreams"
)

// TestSniffAgainstEveryDialect takes the first JSON line (the line a
// dialect is detected by) of every test stream of every registered
// dialect: codex's sniffer accepts exactly the codex ones, and no other
// dialect's sniffer accepts a codex one. No two sniffers may claim one
// first line.
func TestSniffAgainstEveryDialect(t *testing.T) {
	all := dialect.All()
	lines := 0
	for _, owner := range all {
		for _, f := range teststreams.Valid(owner.Name()) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			l := dialecttest.FirstLine(data)
			if l == nil {
				continue
			}
			lines++
			var takers []string
			for _, d := range all {
				if d.Sniff(l) {
					takers = append(takers, d.Name())
				}
			}
			if len(takers) > 1 {
				t.Errorf("%s: %d sniffers take the first line: %v", f, len(takers), takers)
			}
			took := codex.Dialect{}.Sniff(l)
			if owner.Name() == codex.Name && !took {
				t.Errorf("%s: the codex sniffer refuses its own first line: %s", f, l)
			}
			if owner.Name() != codex.Name && took {
				t.Errorf("%s: the codex sniffer takes a %s first line: %s", f, owner.Name(), l)
			}
		}
	}
	if lines < 20 {
		t.Fatalf("only %d first lines checked", lines)
	}
}

// TestSniff pins the sniffer on lines of each shape.
func TestSniff(t *testing.T) {
	for _, c := range []struct {
		line string
		want bool
	}{
		{`{"type":"thread.started","thread_id":"019c8143-0e53-7271-89e8-3eec4d067c77"}`, true},
		{`{"thread_id":"x","type":"thread.started"}`, true},
		{`{"type":"turn.started"}`, true},
		{`{"type":"item.completed","item":{"id":"item_0","type":"reasoning","text":"x"}}`, true},
		{`{"type":"item.plan.delta","item_id":"item_1","delta":"x"}`, true},
		{`{"type":"thread.started"}`, false},                          // no thread id: not enough to tell
		{`{"type":"item.completed"}`, false},                          // no item
		{`{"type":"error","message":"x"}`, false},                     // too generic
		{`{"id":"0","msg":{"type":"task_started"}}`, false},           // Codex before 0.44: another format
		{`{"seq":0,"type":"turn.started","turn_id":"t"}`, false},      // a numbered line is not codex's
		{`{"jsonrpc":"2.0","method":"turn.started"}`, false},          // JSON-RPC
		{`{"type":"session.created","session_id":"x"}`, false},        // --experimental-json of 2025-09
		{`{"type":"step_start","part":{"type":"step-start"}}`, false}, // opencode
		{`{"type":"system","subtype":"init"}`, false},                 // Claude Code
		{`{"type":"init","session_id":"x"}`, false},                   // Gemini CLI
		{`[1]`, false},
	} {
		if got := (codex.Dialect{}).Sniff([]byte(c.line)); got != c.want {
			t.Errorf("Sniff(%s) = %v, want %v", c.line, got, c.want)
		}
	}
}
