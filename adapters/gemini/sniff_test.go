package gemini_test

import (
	"testing"

	_ "github.com/evtool/evtool/adapters" // every registered dialect
	"github.com/evtool/evtool/adapters/gemini"
)

// The first lines of every registered dialect's streams, and of the
// captures of producers evtool does not read yet: the kit's sniff check.

// TestSniffLines: an init line, and the user's message that is the first
// JSON line when a banner swallowed init; never another producer's init or
// a canonical message.
func TestSniffLines(t *testing.T) {
	yes := []string{
		header,
		`{"type":"init","session_id":"s","model":"auto"}`,
		`{"type":"message","timestamp":"2026-10-01T09:00:00.004Z","role":"user","content":"hi"}`,
		`{"type":"message","timestamp":"2026-10-01T09:00:00.004Z","role":"assistant","content":"hi","delta":true}`,
	}
	no := []string{
		`{"type":"system","subtype":"init","session_id":"s","model":"m"}`,
		`{"seq":0,"type":"init","session_id":"s","model":"m"}`,
		`{"seq":3,"type":"message","text":"hi"}`,
		`{"type":"message","role":"user","content":"no timestamp"}`,
		`{"type":"message","timestamp":"t","role":"user","content":[{"type":"text","text":"blocks"}]}`,
		`{"type":"init"}`,
		`{"type":"result","timestamp":"t","status":"success"}`,
		`{"type":"thread.started","thread_id":"x"}`,
		`[1]`,
	}
	for _, l := range yes {
		if !(gemini.Dialect{}).Sniff([]byte(l)) {
			t.Errorf("refused: %s", l)
		}
	}
	for _, l := range no {
		if (gemini.Dialect{}).Sniff([]byte(l)) {
			t.Errorf("accepted: %s", l)
		}
	}
}
