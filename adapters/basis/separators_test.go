package basis_test

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

// TestLineSeparatorsRoundTrip: basis writes U+2028 and U+2029 raw, as
// serde_json does; a line that escaped them instead (another JSON writer's,
// or a hand-edited one) reads as the same text. Both come back byte for
// byte through canonical text: in top-level and nested strings, in raw
// values (input), in one string mixing the two spellings; and a backslash
// followed by the text u2028 stays that.
func TestLineSeparatorsRoundTrip(t *testing.T) {
	lines := readLines(t, filepath.Join(streams, "line_separators.jsonl"))
	all := strings.Join(lines, "\n")
	for _, s := range []string{rawLS, rawPS, escLS, escPS, escLS + rawLS + escPS + rawPS, `\\u2028`} {
		if !strings.Contains(all, s) {
			t.Fatalf("the stream lacks %q, which this test is about", s)
		}
	}
	_, back := roundTrip(t, lines)
	if len(back) != len(lines) {
		t.Fatalf("got %d lines back, want %d", len(back), len(lines))
	}
	for i := range lines {
		if back[i] != lines[i] {
			t.Errorf("line %d is not written back byte for byte:\n in: %s\nout: %s", i+1, lines[i], back[i])
		}
	}
	// The bundled stream that escapes one, among other escapes basis does
	// not write: that line's U+2028 keeps its escape.
	esc := readLines(t, filepath.Join(streams, "escapes_and_numbers.jsonl"))
	_, back = roundTrip(t, esc)
	if !strings.Contains(esc[1], escLS) || !strings.Contains(back[1], " "+escLS+" ") || strings.Contains(back[1], rawLS) {
		t.Errorf("escapes_and_numbers line 2: the escaped U+2028 is not kept:\n in: %s\nout: %s", esc[1], back[1])
	}
}

// TestLineSeparatorsFromOtherDialects: what another dialect says with
// U+2028 or U+2029, escaped or not, basis gets raw, as it writes them
// itself; a basis line whose text changed after it was read is written as
// basis writes; and the spelling is no fact a conversion counts.
func TestLineSeparatorsFromOtherDialects(t *testing.T) {
	var evs []*event.Event
	for _, l := range []string{
		`{"seq":0,"type":"session_started","schema":1,"source":{"dialect":"codex"},"session_id":"s"}`,
		`{"seq":1,"type":"turn_started","turn_id":"turn-1","prompt":"q"}`,
		`{"seq":2,"type":"user_message","turn_id":"turn-1","text":"q` + escPS + `"}`,
		`{"seq":3,"type":"message_delta","turn_id":"turn-1","text":"a` + escLS + `b` + rawPS + `c"}`,
		`{"seq":4,"type":"turn_finished","turn_id":"turn-1","status":"ok"}`,
		`{"seq":5,"type":"session_finished","status":"error","message":"m` + escLS + `"}`,
	} {
		ev, err := event.Parse([]byte(l))
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, ev)
	}
	got := encode(t, basis.Dialect{}, evs, &dialect.Losses{})
	if strings.Contains(got, `\u202`) || strings.Count(got, rawLS) != 2 || strings.Count(got, rawPS) != 2 {
		t.Errorf("canonical → basis does not write them raw:\n%s", got)
	}

	// mermaid lines that escaped them: the mermaid spelling is mermaid's own.
	mdec := mermaid.Dialect{}.NewDecoder(dialect.DecodeOptions{})
	evs = nil
	for i, l := range []string{
		`{"type":"session_started","protocol_version":1,"cli_version":"9.9.9","model":"m","task_id":null,"session_id":"s"}`,
		`{"type":"text","delta":"one` + escLS + `two` + escPS + `"}`,
		`{"type":"result","response":"one` + escLS + `two` + escPS + `","reasoning":null,"total_tokens":1,"errors":[],"session_id":"s"}`,
	} {
		var err error
		if evs, err = mdec.Decode(evs, []byte(l), i+1); err != nil {
			t.Fatal(err)
		}
	}
	losses := &dialect.Losses{}
	got = encode(t, basis.Dialect{}, mdec.End(evs), losses)
	if strings.Contains(got, `\u202`) || !strings.Contains(got, `"text":"one`+rawLS+`two`+rawPS+`"`) {
		t.Errorf("mermaid → basis does not write them raw:\n%s", got)
	}
	for _, l := range losses.List() {
		if l.ID == dialect.LossForeign.ID {
			t.Errorf("the separators' spelling counted as a fact: %s", l)
		}
	}

	bdec := basis.Dialect{}.NewDecoder(dialect.DecodeOptions{})
	evs = nil
	for i, l := range []string{
		`{"seq":0,"type":"run_started","schema":2,"basis":"0.6.2","session_id":"s","workspace":"/r","model":"m","provider":"p","context_files":[]}`,
		`{"seq":1,"type":"assistant_delta","text":"a` + escLS + `b"}`,
	} {
		var err error
		if evs, err = bdec.Decode(evs, []byte(l), i+1); err != nil {
			t.Fatal(err)
		}
	}
	evs[len(evs)-1].Body.(*event.MessageDelta).Text = "a" + rawLS + "b" + rawPS
	if got := encode(t, basis.Dialect{}, evs, &dialect.Losses{}); !strings.Contains(got, `"text":"a`+rawLS+`b`+rawPS+`"`) {
		t.Errorf("a changed line keeps a stale spelling:\n%s", got)
	}
}

func encode(t *testing.T, d dialect.Dialect, evs []*event.Event, losses *dialect.Losses) string {
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
