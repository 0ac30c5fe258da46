package gemini_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	_ "github.com/evtool/evtool/adapters" // every registered dialect
	"github.com/evtool/evtool/adapters/gemini"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/internal/teststreams"
)

// firstJSONLine returns the first line of a stream that is JSON.
func firstJSONLine(t *testing.T, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<26)
	for sc.Scan() {
		if l := bytes.TrimSpace(sc.Bytes()); json.Valid(l) {
			return append([]byte(nil), l...)
		}
	}
	return nil
}

// TestSniffAcrossDialects: for the first JSON line of every test stream of
// every registered dialect, gemini's sniffer accepts it exactly when the
// stream is gemini's, and no other dialect's sniffer accepts a gemini
// stream's first line.
func TestSniffAcrossDialects(t *testing.T) {
	g := gemini.Dialect{}
	own := 0
	for _, d := range dialect.All() {
		for _, f := range teststreams.Valid(d.Name()) {
			line := firstJSONLine(t, f)
			if line == nil {
				continue
			}
			if d.Name() == gemini.Name {
				own++
				for _, other := range dialect.All() {
					if other.Name() != gemini.Name && other.Sniff(line) {
						t.Errorf("%s: %s's sniffer accepts a gemini first line: %s", f, other.Name(), line)
					}
				}
				if !g.Sniff(line) {
					t.Errorf("%s: gemini's sniffer refuses its own first line: %s", f, line)
				}
				continue
			}
			if g.Sniff(line) {
				t.Errorf("%s: gemini's sniffer accepts a %s first line: %s", f, d.Name(), line)
			}
		}
	}
	if own < 10 {
		t.Errorf("only %d gemini streams", own)
	}
	// The real captures of the dialects not registered yet.
	others, _ := filepath.Glob("../../../shared/dialects-next/captures/*/*.jsonl")
	if len(others) == 0 {
		t.Error("no captures of the next dialects beside the repository")
	}
	for _, f := range others {
		if filepath.Base(filepath.Dir(f)) == gemini.Name {
			continue
		}
		if line := firstJSONLine(t, f); line != nil && g.Sniff(line) {
			t.Errorf("%s: gemini's sniffer accepts another producer's first line: %s", f, line)
		}
	}
}

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
