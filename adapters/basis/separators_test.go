package basis_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/evtool/evtool/adapters/basis"
	"github.com/evtool/evtool/adapters/mermaid"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/dialecttest"
	"github.com/evtool/evtool/event"
)

// basis and mermaid are both written by serde_json, which writes U+2028 and
// U+2029 raw, and both keep how a line spelled them through
// internal/linesep: the tests below cover the two dialects at once.

// Raw U+2028 and U+2029, and their escapes as a JSON text spells them.
const (
	rawLS, rawPS = "\u2028", "\u2029"
	escLS, escPS = `\u2028`, `\u2029`
)

// TestLineSeparatorsRoundTrip: basis and mermaid write U+2028 and U+2029
// raw; a line that escaped them instead (another JSON writer's, or a
// hand-edited one) reads as the same text. Both come back byte for byte
// through canonical text: in top-level and nested strings, in raw values
// (input), in one string mixing the two spellings; and a backslash
// followed by the text u2028 stays that.
func TestLineSeparatorsRoundTrip(t *testing.T) {
	for _, d := range []dialect.Dialect{basis.Dialect{}, mermaid.Dialect{}} {
		t.Run(d.Name(), func(t *testing.T) {
			lines := dialecttest.ReadLines(t, filepath.Join("../../testdata/streams", d.Name(), "line_separators.jsonl"))
			all := strings.Join(lines, "\n")
			for _, s := range []string{rawLS, rawPS, escLS, escPS, escLS + rawLS + escPS + rawPS, `\\u2028`} {
				if !strings.Contains(all, s) {
					t.Fatalf("the stream lacks %q, which this test is about", s)
				}
			}
			_, back, losses := dialecttest.RoundTrip(t, d, lines...)
			if !losses.Empty() {
				t.Errorf("%s → canonical → %[1]s lost something: %v", d.Name(), losses.List())
			}
			if len(back) != len(lines) {
				t.Fatalf("got %d lines back, want %d", len(back), len(lines))
			}
			for i := range lines {
				if back[i] != lines[i] {
					t.Errorf("line %d is not written back byte for byte:\n in: %s\nout: %s", i+1, lines[i], back[i])
				}
			}
		})
	}

	// The bundled basis stream that escapes one, among other escapes basis
	// does not write: that line's U+2028 keeps its escape.
	esc := dialecttest.ReadLines(t, filepath.Join(streams, "escapes_and_numbers.jsonl"))
	_, back := roundTrip(t, esc)
	if !strings.Contains(esc[1], escLS) || !strings.Contains(back[1], " "+escLS+" ") || strings.Contains(back[1], rawLS) {
		t.Errorf("escapes_and_numbers line 2: the escaped U+2028 is not kept:\n in: %s\nout: %s", esc[1], back[1])
	}

	// Reading a mermaid file (lookahead) keeps them as well.
	lines := dialecttest.ReadLines(t, "../../testdata/streams/mermaid/line_separators.jsonl")
	dec := mermaid.Dialect{}.NewDecoder(dialect.DecodeOptions{Lookahead: true})
	var evs []*event.Event
	for i, l := range lines {
		var err error
		if evs, err = dec.Decode(evs, []byte(l), i+1); err != nil {
			t.Fatal(err)
		}
	}
	if got, _ := encodeEvents(t, mermaid.Dialect{}, dec.End(evs)); got != strings.Join(lines, "\n")+"\n" {
		t.Errorf("mermaid with lookahead, not written back byte for byte:\n%s", got)
	}
}

// TestLineSeparatorsFromOtherDialects: what another dialect says with
// U+2028 or U+2029, escaped or not, basis and mermaid get raw, as they
// write them themselves; a line whose text changed after it was read is
// written as the dialect writes; and the spelling is no fact a conversion
// counts.
func TestLineSeparatorsFromOtherDialects(t *testing.T) {
	for _, tc := range []struct {
		to dialect.Dialect
		// canon is a stream of another dialect in canonical text: it
		// has two of each character, spelled both ways.
		canon []string
		// in are lines of from that escaped them; to writes their text
		// as want.
		from dialect.Dialect
		in   []string
		want string
		// own are lines of to whose last event, a message delta, has
		// its text changed; key names that text in to's line.
		own []string
		key string
	}{{
		to: basis.Dialect{},
		canon: []string{
			`{"seq":0,"type":"session_started","schema":1,"source":{"dialect":"codex"},"session_id":"s"}`,
			`{"seq":1,"type":"turn_started","turn_id":"turn-1","prompt":"q"}`,
			`{"seq":2,"type":"user_message","turn_id":"turn-1","text":"q` + escPS + `"}`,
			`{"seq":3,"type":"message_delta","turn_id":"turn-1","text":"a` + escLS + `b` + rawPS + `c"}`,
			`{"seq":4,"type":"turn_finished","turn_id":"turn-1","status":"ok"}`,
			`{"seq":5,"type":"session_finished","status":"error","message":"m` + escLS + `"}`,
		},
		from: mermaid.Dialect{},
		in: []string{
			`{"type":"session_started","protocol_version":1,"cli_version":"9.9.9","model":"m","task_id":null,"session_id":"s"}`,
			`{"type":"text","delta":"one` + escLS + `two` + escPS + `"}`,
			`{"type":"result","response":"one` + escLS + `two` + escPS + `","reasoning":null,"total_tokens":1,"errors":[],"session_id":"s"}`,
		},
		want: `"text":"one` + rawLS + `two` + rawPS + `"`,
		own: []string{
			`{"seq":0,"type":"run_started","schema":2,"basis":"0.6.2","session_id":"s","workspace":"/r","model":"m","provider":"p","context_files":[]}`,
			`{"seq":1,"type":"assistant_delta","text":"a` + escLS + `b"}`,
		},
		key: "text",
	}, {
		to: mermaid.Dialect{},
		canon: []string{
			`{"seq":0,"type":"session_started","schema":1,"source":{"dialect":"codex"},"session_id":"s"}`,
			`{"seq":1,"type":"turn_started","turn_id":"turn-1"}`,
			`{"seq":2,"type":"message_delta","turn_id":"turn-1","text":"a` + escLS + `b` + rawPS + `c` + escPS + `"}`,
			`{"seq":3,"type":"session_finished","status":"ok","text":"x` + escLS + `"}`,
		},
		from: basis.Dialect{},
		in: []string{
			`{"seq":0,"type":"run_started","schema":2,"basis":"0.6.2","session_id":"s","workspace":"/r","model":"m","provider":"p","context_files":[]}`,
			`{"seq":1,"type":"user_message","text":"q"}`,
			`{"seq":2,"type":"assistant_delta","text":"one` + escLS + `two` + escPS + `"}`,
			`{"seq":3,"type":"run_finished","status":"error","message":"boom` + escLS + `"}`,
		},
		want: `"delta":"one` + rawLS + `two` + rawPS + `"`,
		own: []string{
			`{"type":"session_started","protocol_version":1,"cli_version":"9.9.9","model":"m","task_id":null,"session_id":"s"}`,
			`{"type":"text","delta":"a` + escLS + `b"}`,
		},
		key: "delta",
	}} {
		to, from := tc.to.Name(), tc.from.Name()
		t.Run(to, func(t *testing.T) {
			got, _ := dialecttest.Encode(t, tc.to, dialect.EncodeOptions{}, tc.canon...)
			if strings.Contains(got, `\u202`) || strings.Count(got, rawLS) != 2 || strings.Count(got, rawPS) != 2 {
				t.Errorf("canonical → %s does not write them raw:\n%s", to, got)
			}

			// The other dialect's spelling is its own.
			got, losses := encodeEvents(t, tc.to, dialecttest.DecodeStream(t, tc.from, tc.in...))
			if strings.Contains(got, `\u202`) || !strings.Contains(got, tc.want) {
				t.Errorf("%s → %s does not write them raw:\n%s", from, to, got)
			}
			for _, l := range losses.List() {
				if l.ID == dialect.LossForeign.ID {
					t.Errorf("the separators' spelling counted as a fact: %s", l)
				}
			}

			// The source's spelling no longer fits a changed text.
			evs := dialecttest.Decode(t, tc.to, tc.own...)
			evs[len(evs)-1].Body.(*event.MessageDelta).Text = "a" + rawLS + "b" + rawPS
			if got, _ := encodeEvents(t, tc.to, evs); !strings.Contains(got, `"`+tc.key+`":"a`+rawLS+`b`+rawPS+`"`) {
				t.Errorf("a changed line keeps a stale spelling:\n%s", got)
			}
		})
	}
}

// encodeEvents writes events as d, through canonical text, as a file
// between two conversions holds them.
func encodeEvents(t *testing.T, d dialect.Dialect, evs []*event.Event) (string, *dialect.Losses) {
	t.Helper()
	return dialecttest.Encode(t, d, dialect.EncodeOptions{}, dialecttest.Canonical(t, evs)...)
}
