package codex_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/evtool/evtool/adapters/codex"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/jsoneq"
)

// FuzzRoundTrip feeds arbitrary lines, after a header and a turn, to the
// decoder: it must never panic, and every line it reads must come back as
// the same JSON through canonical text.
func FuzzRoundTrip(f *testing.F) {
	files, _ := os.ReadDir("testdata")
	for _, e := range files {
		if !strings.HasSuffix(e.Name(), ".jsonl") {
			continue
		}
		data, err := os.ReadFile("testdata/" + e.Name())
		if err != nil {
			f.Fatal(err)
		}
		for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			f.Add(l)
		}
	}
	f.Fuzz(func(t *testing.T, line string) {
		if !json.Valid([]byte(line)) || !utf8.ValidString(line) || jsoneq.DuplicateKeys(line) || strings.ContainsAny(line, "\n\r") ||
			!strings.HasPrefix(strings.TrimLeft(line, " \t"), "{") {
			return // a line that is not one JSON object is the reader's to refuse
		}
		in := []string{`{"type":"thread.started","thread_id":"t"}`, `{"type":"turn.started"}`, line}
		dec := codex.Dialect{}.NewDecoder(dialect.DecodeOptions{})
		var evs []*event.Event
		for i, l := range in {
			var err error
			evs, err = dec.Decode(evs, []byte(l), i+1)
			if err != nil && i < 2 {
				t.Fatal(err)
			}
		}
		evs = dec.End(evs)
		var out bytes.Buffer
		w := bufio.NewWriter(&out)
		enc := codex.Dialect{}.NewEncoder(w, dialect.EncodeOptions{Losses: &dialect.Losses{}})
		for _, ev := range evs {
			if bytes.Contains(ev.Ext.Get(codex.Name), []byte(`"@line"`)) {
				t.Fatalf("the derivation could not rebuild the line, which was kept whole:\n%s", line)
			}
			b, err := event.Append(nil, ev)
			if err != nil {
				t.Fatal(err)
			}
			back, err := event.Parse(b)
			if err != nil {
				t.Fatalf("canonical line does not parse back: %v\n%s", err, b)
			}
			if err := enc.Encode(back); err != nil {
				t.Fatal(err)
			}
		}
		enc.Close()
		w.Flush()
		lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
		if len(lines) != 3 {
			t.Fatalf("%d lines back for 3:\n%s", len(lines), out.String())
		}
		if !jsoneq.Equal(line, lines[2]) {
			t.Fatalf("not the same JSON:\n in: %s\nout: %s", line, lines[2])
		}
	})
}
