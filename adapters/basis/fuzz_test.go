package basis_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"testing"

	"github.com/evtool/evtool/adapters/basis"
	"github.com/evtool/evtool/adapters/canonical"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/jsoneq"
)

// FuzzRoundTrip feeds arbitrary lines to the decoder. It must never panic,
// and any line it accepts must survive basis → canonical text → basis as
// equal JSON.
func FuzzRoundTrip(f *testing.F) {
	for _, file := range []string{"full_schema2.jsonl", "escapes_and_numbers.jsonl", "forward_compat.jsonl", "byte_budget.jsonl"} {
		for _, l := range readLinesF(f, streams+"/"+file) {
			f.Add(l)
		}
	}
	f.Add(`{"seq":1,"type":"usage","input_tokens":1e3}`)
	f.Add(`{"seq":1,"type":"user_message","text":"a","text":"b"}`)
	f.Fuzz(func(t *testing.T, line string) {
		if !json.Valid([]byte(line)) {
			return
		}
		dec := basis.Dialect{}.NewDecoder(dialect.DecodeOptions{})
		evs, err := dec.Decode(nil, []byte(line), 1)
		if err != nil {
			return
		}
		if jsoneq.DuplicateKeys(line) {
			return // which duplicate wins is not a round-trip promise
		}
		var cbuf bytes.Buffer
		cw := bufio.NewWriter(&cbuf)
		cenc := canonical.Dialect{}.NewEncoder(cw, dialect.EncodeOptions{Losses: &dialect.Losses{}})
		for _, ev := range evs {
			if err := cenc.Encode(ev); err != nil {
				t.Fatalf("canonical encode: %v", err)
			}
		}
		cw.Flush()
		var bbuf bytes.Buffer
		bw := bufio.NewWriter(&bbuf)
		benc := basis.Dialect{}.NewEncoder(bw, dialect.EncodeOptions{Losses: &dialect.Losses{}})
		for _, cl := range bytes.Split(bytes.TrimSpace(cbuf.Bytes()), []byte("\n")) {
			ev, err := event.Parse(cl)
			if err != nil {
				t.Fatalf("canonical line does not parse back: %v\n%s", err, cl)
			}
			if err := benc.Encode(ev); err != nil {
				t.Fatal(err)
			}
		}
		bw.Flush()
		back := bytes.TrimSpace(bbuf.Bytes())
		if !jsoneq.Equal(line, string(back)) && !missingRequired(line) {
			t.Fatalf("not JSON-equal:\n in: %s\nout: %s", line, back)
		}
	})
}

func readLinesF(f *testing.F, path string) []string {
	data, err := osReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	return splitLines(string(data))
}
