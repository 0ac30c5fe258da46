package mermaid_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/evtool/evtool/adapters/mermaid"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/jsoneq"
	"github.com/tidwall/gjson"
)

const fuzzHeader = `{"type":"session_started","protocol_version":1,"cli_version":"9.9.9","model":"m","task_id":null,"session_id":"s"}`

// FuzzRoundTrip feeds arbitrary lines, after a header, to the decoder: it
// must never panic, and a line it accepts must come back as equal JSON.
func FuzzRoundTrip(f *testing.F) {
	for _, name := range []string{"full_run.jsonl", "legacy.jsonl", "forward_compat.jsonl"} {
		data, err := os.ReadFile(streams + "/" + name)
		if err != nil {
			f.Fatal(err)
		}
		for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			f.Add(l)
		}
	}
	f.Fuzz(func(t *testing.T, line string) {
		if !json.Valid([]byte(line)) || jsoneq.DuplicateKeys(line) {
			return
		}
		dec := mermaid.Dialect{}.NewDecoder(dialect.DecodeOptions{})
		evs, err := dec.Decode(nil, []byte(fuzzHeader), 1)
		if err != nil {
			t.Fatal(err)
		}
		n := len(evs)
		evs, err = dec.Decode(evs, []byte(line), 2)
		if err != nil {
			return
		}
		var out bytes.Buffer
		w := bufio.NewWriter(&out)
		enc := mermaid.Dialect{}.NewEncoder(w, dialect.EncodeOptions{Losses: &dialect.Losses{}})
		for i, ev := range evs {
			// Through canonical text, as through a file.
			b, err := event.Append(nil, ev)
			if err != nil {
				t.Fatal(err)
			}
			back, err := event.Parse(b)
			if err != nil {
				t.Fatalf("canonical line does not parse back: %v\n%s", err, b)
			}
			if i == 0 && n == 1 && back.Type() != event.TypeSessionStarted {
				t.Fatal("header lost")
			}
			if err := enc.Encode(back); err != nil {
				t.Fatal(err)
			}
		}
		w.Flush()
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		got := lines[len(lines)-1]
		if strings.Contains(line, `"session_started"`) && gjson.Get(line, "type").Str == "session_started" {
			return // a second header is a rule violation, not a round-trip case
		}
		if !jsoneq.Equal(line, got) && !missingRequired(line) {
			t.Fatalf("not JSON-equal:\n in: %s\nout: %s", line, got)
		}
	})
}

// missingRequired reports a known-type line lacking a key mermaid always
// writes and may not be absent: the encoder writes those back.
func missingRequired(line string) bool {
	r := gjson.Parse(line)
	req := map[string][]string{
		"text": {"delta"}, "reasoning": {"delta"}, "tool_started": {"call_id"},
		"tool_finished":     {"call_id", "name", "status", "summary"},
		"approval_required": {"call_id", "tool", "risk", "prompt"},
		"tasks_updated":     {"tasks", "completed", "total"},
		"error":             {"message"},
		"result":            {"response", "total_tokens", "errors"},
	}
	for _, k := range req[r.Get("type").Str] {
		if !r.Get(gjson.Escape(k)).Exists() {
			return true
		}
	}
	return false
}
