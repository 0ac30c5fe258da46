package opencode_test

import (
	"strings"
	"testing"

	"github.com/evtool/evtool/adapters/opencode"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/dialecttest"
)

// TestLineSeparatorsRaw: opencode writes with JSON.stringify, which leaves
// U+2028 and U+2029 unescaped (ES2019), and so does the encoder, for a
// foreign source as for opencode's own lines (whose byte-for-byte round
// trip testdata/probe/opencode/valid/integer_edges_and_unicode.jsonl checks).
func TestLineSeparatorsRaw(t *testing.T) {
	out, _ := dialecttest.Encode(t, opencode.Dialect{}, dialect.EncodeOptions{},
		`{"seq":0,"type":"session_started","schema":1,"source":{"dialect":"basis"},"session_id":"ses_u"}`,
		`{"seq":1,"type":"message","time":"2026-01-01T00:00:00Z","text":"a\u2028b\u2029c\n\"q\""}`,
	)
	if want := "\"text\":\"a\u2028b\u2029c\\n\\\"q\\\"\""; !strings.Contains(out, want) {
		t.Errorf("got %s\nwant it to hold %s", out, want)
	}
}
