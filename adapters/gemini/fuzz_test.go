package gemini_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/evtool/evtool/adapters/gemini"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/jsoneq"
	"github.com/tidwall/gjson"
)

// FuzzRoundTrip feeds arbitrary lines, after an init, to the decoder: it
// must never panic, and a line it accepts must come back as equal JSON
// (a second init aside, which is a rule violation, not a round trip).
func FuzzRoundTrip(f *testing.F) {
	for _, name := range []string{"written_tool_errors.jsonl", "written_unknown_types_and_fields.jsonl", "written_strings_and_numbers.jsonl", "written_v0_11_stats.jsonl"} {
		data, err := readFile("testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			f.Add(l)
		}
	}
	f.Fuzz(func(t *testing.T, line string) {
		if !json.Valid([]byte(line)) || jsoneq.DuplicateKeys(line) || gjson.Get(line, "type").Str == "init" {
			return
		}
		dec := gemini.Dialect{}.NewDecoder(dialect.DecodeOptions{})
		evs, err := dec.Decode(nil, []byte(header), 1)
		if err != nil {
			t.Fatal(err)
		}
		evs, err = dec.Decode(evs, []byte(line), 2)
		if err != nil {
			return
		}
		evs = dec.End(evs)
		var out bytes.Buffer
		w := bufio.NewWriter(&out)
		enc := gemini.Dialect{}.NewEncoder(w, dialect.EncodeOptions{Losses: &dialect.Losses{}})
		for _, ev := range evs {
			// Through canonical text, as through a file.
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
		w.Flush()
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		if lines[0] != header {
			t.Fatalf("init not written back: %s", lines[0])
		}
		if got := lines[len(lines)-1]; len(lines) != 2 || !jsoneq.Equal(line, got) {
			t.Fatalf("not JSON-equal:\n in: %s\nout: %s", line, strings.Join(lines[1:], "\n"))
		}
	})
}

func readFile(p string) ([]byte, error) { return os.ReadFile(p) }
