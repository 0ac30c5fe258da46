package opencode

import (
	"bufio"
	"bytes"
	"testing"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
)

// TestLineSeparatorsRaw: opencode writes with JSON.stringify, which leaves
// U+2028 and U+2029 unescaped (ES2019), and so does the encoder, for a
// foreign source as for opencode's own lines (whose byte-for-byte round
// trip testdata/probe/opencode/valid/integer_edges_and_unicode.jsonl checks).
func TestLineSeparatorsRaw(t *testing.T) {
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	e := newEncoder(w, dialect.EncodeOptions{Losses: &dialect.Losses{}})
	for _, ev := range []*event.Event{
		{Body: &event.SessionStarted{Source: event.SourceInfo{Dialect: "basis"}, SessionID: "ses_u"}},
		{Time: "2026-01-01T00:00:00Z", Body: &event.Message{Text: "a\u2028b\u2029c\n\"q\""}},
	} {
		if err := e.Encode(ev); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	w.Flush()
	if want := "\"text\":\"a\u2028b\u2029c\\n\\\"q\\\"\""; !bytes.Contains(buf.Bytes(), []byte(want)) {
		t.Errorf("got %s\nwant it to hold %s", buf.Bytes(), want)
	}
}
