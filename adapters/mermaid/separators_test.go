package mermaid_test

import (
	"bufio"
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evtool/evtool/adapters/basis"
	"github.com/evtool/evtool/adapters/mermaid"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
)

// Raw U+2028 and U+2029, and their escapes as a JSON text spells them.
const (
	rawLS, rawPS = "\u2028", "\u2029"
	escLS, escPS = `\u2028`, `\u2029`
)

// TestLineSeparatorsRoundTrip: mermaid writes U+2028 and U+2029 raw, as
// serde_json does; a line that escaped them instead (another JSON writer's,
// or a hand-edited one) is still read as the same text. Both come back
// byte for byte through canonical text, in every field, in nested values
// and in one string that mixes the two spellings, and a backslash followed
// by the text u2028 stays that.
func TestLineSeparatorsRoundTrip(t *testing.T) {
	lines := readLines(t, filepath.Join(streams, "line_separators.jsonl"))
	all := strings.Join(lines, "\n")
	for _, s := range []string{rawLS, rawPS, escLS, escPS, escLS + rawLS + escPS + rawPS, `\\u2028`} {
		if !strings.Contains(all, s) {
			t.Fatalf("the stream lacks %q, which this test is about", s)
		}
	}
	back := roundTrip(t, lines)
	if len(back) != len(lines) {
		t.Fatalf("got %d lines back, want %d", len(back), len(lines))
	}
	for i := range lines {
		if back[i] != lines[i] {
			t.Errorf("line %d is not written back byte for byte:\n in: %s\nout: %s", i+1, lines[i], back[i])
		}
	}
	// Reading a file (lookahead) keeps them as well.
	dec := mermaid.Dialect{}.NewDecoder(dialect.DecodeOptions{Lookahead: true})
	var evs []*event.Event
	for i, l := range lines {
		var err error
		if evs, err = dec.Decode(evs, []byte(l), i+1); err != nil {
			t.Fatal(err)
		}
	}
	if got := encode(t, mermaid.Dialect{}, dec.End(evs)); got != strings.Join(lines, "\n")+"\n" {
		t.Errorf("with lookahead, not written back byte for byte:\n%s", got)
	}
}

// TestLineSeparatorsFromOtherDialects: what another dialect's line says
// with U+2028 or U+2029, escaped or not, mermaid gets raw, as it writes
// them itself; the spelling a mermaid line had does not leak into a line
// that changed, nor does any of it count as a loss.
func TestLineSeparatorsFromOtherDialects(t *testing.T) {
	canon := []string{
		`{"seq":0,"type":"session_started","schema":1,"source":{"dialect":"codex"},"session_id":"s"}`,
		`{"seq":1,"type":"turn_started","turn_id":"turn-1"}`,
		`{"seq":2,"type":"message_delta","turn_id":"turn-1","text":"a` + escLS + `b` + rawPS + `c` + escPS + `"}`,
		`{"seq":3,"type":"session_finished","status":"ok","text":"x` + escLS + `"}`,
	}
	var evs []*event.Event
	for _, l := range canon {
		ev, err := event.Parse([]byte(l))
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, ev)
	}
	got := encode(t, mermaid.Dialect{}, evs)
	if strings.Contains(got, `\u202`) || strings.Count(got, rawLS) != 2 || strings.Count(got, rawPS) != 2 {
		t.Errorf("canonical → mermaid does not write them raw:\n%s", got)
	}

	// basis lines that escaped them: the basis spelling is basis's own.
	bdec := basis.Dialect{}.NewDecoder(dialect.DecodeOptions{})
	evs = nil
	for i, l := range []string{
		`{"seq":0,"type":"run_started","schema":2,"basis":"0.6.2","session_id":"s","workspace":"/r","model":"m","provider":"p","context_files":[]}`,
		`{"seq":1,"type":"user_message","text":"q"}`,
		`{"seq":2,"type":"assistant_delta","text":"one` + escLS + `two` + escPS + `"}`,
		`{"seq":3,"type":"run_finished","status":"error","message":"boom` + escLS + `"}`,
	} {
		var err error
		if evs, err = bdec.Decode(evs, []byte(l), i+1); err != nil {
			t.Fatal(err)
		}
	}
	losses := &dialect.Losses{}
	got = encodeWith(t, mermaid.Dialect{}, evs, losses)
	if strings.Contains(got, `\u202`) || !strings.Contains(got, `"delta":"one`+rawLS+`two`+rawPS+`"`) {
		t.Errorf("basis → mermaid does not write them raw:\n%s", got)
	}
	for _, l := range losses.List() {
		if l.ID == dialect.LossForeign.ID {
			t.Errorf("the separators' spelling counted as a fact: %s", l)
		}
	}

	// A mermaid event whose text changed after it was read: the source's
	// spelling no longer fits, and the line is written as mermaid writes.
	evs = decode(t, header, `{"type":"text","delta":"a`+escLS+`b"}`)
	evs[len(evs)-1].Body.(*event.MessageDelta).Text = "a" + rawLS + "b" + rawPS
	if got := encode(t, mermaid.Dialect{}, evs); !strings.Contains(got, `"delta":"a`+rawLS+`b`+rawPS+`"`) {
		t.Errorf("a changed line keeps a stale spelling:\n%s", got)
	}
}

func encode(t *testing.T, d dialect.Dialect, evs []*event.Event) string {
	t.Helper()
	return encodeWith(t, d, evs, &dialect.Losses{})
}

func encodeWith(t *testing.T, d dialect.Dialect, evs []*event.Event, losses *dialect.Losses) string {
	t.Helper()
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	enc := d.NewEncoder(w, dialect.EncodeOptions{Losses: losses})
	for _, ev := range evs {
		if err := enc.Encode(ev); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	w.Flush()
	return buf.String()
}
