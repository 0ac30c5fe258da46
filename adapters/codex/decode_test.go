package codex_test

import (
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/evtool/evtool/adapters/codex"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/dialecttest"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/stream"
	"github.com/tidwall/gjson"
)

// decode reads lines with a fresh decoder and returns every event, the
// end's included.
func decode(t *testing.T, lines ...string) []*event.Event {
	t.Helper()
	return dialecttest.DecodeStream(t, codex.Dialect{}, lines...)
}

// read reads lines as evtool validate and convert do (stream.Reader, with
// opts): the types of the events, and the lines it refused.
func read(t *testing.T, opts stream.Options, lines ...string) (rd *stream.Reader, types []string, bad []*stream.LineError) {
	t.Helper()
	rd = stream.NewReader(strings.NewReader(strings.Join(lines, "\n")), "x", opts)
	for {
		ev, err := rd.Next()
		var le *stream.LineError
		switch {
		case err == io.EOF:
			return rd, types, bad
		case errors.As(err, &le):
			bad = append(bad, le)
		case err != nil:
			t.Fatal(err)
		default:
			types = append(types, string(ev.Type()))
		}
	}
}

func u64(n uint64) *uint64 { return &n }

// TestUsageMapping pins the mapping of Codex's nested, cumulative usage to
// the canonical disjoint counts (see usage.go).
func TestUsageMapping(t *testing.T) {
	for _, c := range []struct {
		name, usage string
		want        event.Usage
	}{
		{"3 fields (before 0.125)", `{"input_tokens":15086,"cached_input_tokens":14080,"output_tokens":114}`,
			event.Usage{InputTokens: u64(1006), CacheReadTokens: u64(14080), OutputTokens: u64(114), TotalTokens: u64(15200)}},
		{"4 fields (0.125–0.144)", `{"input_tokens":100,"cached_input_tokens":40,"output_tokens":25,"reasoning_output_tokens":7}`,
			event.Usage{InputTokens: u64(60), CacheReadTokens: u64(40), OutputTokens: u64(25), ReasoningTokens: u64(7), TotalTokens: u64(125)}},
		{"5 fields (0.145 and later)", `{"input_tokens":100,"cached_input_tokens":40,"cache_write_input_tokens":3,"output_tokens":25,"reasoning_output_tokens":7}`,
			event.Usage{InputTokens: u64(57), CacheReadTokens: u64(40), CacheCreationTokens: u64(3), OutputTokens: u64(25), ReasoningTokens: u64(7), TotalTokens: u64(125)}},
		{"i64 max", `{"input_tokens":9223372036854775807,"cached_input_tokens":0,"output_tokens":9223372036854775807}`,
			event.Usage{InputTokens: u64(9223372036854775807), CacheReadTokens: u64(0), OutputTokens: u64(9223372036854775807), TotalTokens: u64(18446744073709551614)}},
		{"cached above input: input left out", `{"input_tokens":10,"cached_input_tokens":11,"output_tokens":1}`,
			event.Usage{CacheReadTokens: u64(11), OutputTokens: u64(1), TotalTokens: u64(11)}},
		{"negative counts left out", `{"input_tokens":10,"cached_input_tokens":0,"output_tokens":-1}`,
			event.Usage{InputTokens: u64(10), CacheReadTokens: u64(0)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			evs := decode(t, `{"type":"thread.started","thread_id":"t"}`, `{"type":"turn.started"}`, `{"type":"turn.completed","usage":`+c.usage+`}`)
			tf, ok := evs[2].Body.(*event.TurnFinished)
			if !ok || tf.Usage == nil {
				t.Fatalf("no turn_finished with usage: %v", evs[2].Body)
			}
			got, _ := json.Marshal(tf.Usage)
			want, _ := json.Marshal(c.want)
			if string(got) != string(want) {
				t.Errorf("usage\n got %s\nwant %s", got, want)
			}
			sf, ok := evs[3].Body.(*event.SessionFinished)
			if !ok {
				t.Fatalf("no session_finished: %v", evs[3].Body)
			}
			if total, _ := json.Marshal(sf.Usage); string(total) != string(want) {
				t.Errorf("session_finished does not carry the thread's usage: %s", total)
			}
		})
	}
}

// TestUsagePerTurn: Codex's usage is the thread's running total across the
// processes of its turns; a canonical turn_finished carries what its turn
// added, and session_finished the thread's total.
func TestUsagePerTurn(t *testing.T) {
	evs := decode(t,
		`{"type":"thread.started","thread_id":"t"}`, `{"type":"turn.started"}`,
		`{"type":"turn.completed","usage":{"input_tokens":100,"cached_input_tokens":40,"output_tokens":25,"reasoning_output_tokens":7}}`,
		`{"type":"thread.started","thread_id":"t"}`, `{"type":"turn.started"}`,
		`{"type":"turn.completed","usage":{"input_tokens":250,"cached_input_tokens":140,"output_tokens":31,"reasoning_output_tokens":7}}`)
	var turns []string
	var total string
	for _, ev := range evs {
		switch b := ev.Body.(type) {
		case *event.TurnFinished:
			u, _ := json.Marshal(b.Usage)
			turns = append(turns, string(u))
		case *event.SessionFinished:
			u, _ := json.Marshal(b.Usage)
			total = string(u)
		case *event.SessionStarted:
			if ev != evs[0] {
				t.Errorf("a second session_started: %v", b)
			}
		}
	}
	want := []string{
		`{"input_tokens":60,"output_tokens":25,"cache_read_tokens":40,"reasoning_tokens":7,"total_tokens":125}`,
		`{"input_tokens":50,"output_tokens":6,"cache_read_tokens":100,"reasoning_tokens":0,"total_tokens":156}`,
	}
	if strings.Join(turns, "\n") != strings.Join(want, "\n") {
		t.Errorf("turn usage\n got %s\nwant %s", strings.Join(turns, "\n"), strings.Join(want, "\n"))
	}
	if w := `{"input_tokens":110,"output_tokens":31,"cache_read_tokens":140,"reasoning_tokens":7,"total_tokens":281}`; total != w {
		t.Errorf("session usage\n got %s\nwant %s", total, w)
	}
}

// TestSessionEnd pins when the decoder synthesises session_finished: only
// after a terminal turn event, with that turn's outcome.
func TestSessionEnd(t *testing.T) {
	const head, turn = `{"type":"thread.started","thread_id":"t"}`, `{"type":"turn.started"}`
	msg := `{"type":"item.completed","item":{"id":"item_0","type":"agent_message","text":"the answer"}}`
	for _, c := range []struct {
		name  string
		lines []string
		want  string // the session_finished as JSON, "" for none
	}{
		{"completed", []string{head, turn, msg, `{"type":"turn.completed","usage":{"input_tokens":1,"cached_input_tokens":0,"output_tokens":1}}`},
			`{"status":"ok","usage":{"input_tokens":1,"output_tokens":1,"cache_read_tokens":0,"total_tokens":2},"text":"the answer"}`},
		{"failed", []string{head, turn, `{"type":"error","message":"limit"}`, `{"type":"turn.failed","error":{"message":"limit"}}`},
			`{"status":"error","message":"limit"}`},
		{"interrupted", []string{head, turn, msg}, ""},
		{"fatal error before the turn", []string{head, `{"type":"error","message":"no auth"}`}, ""},
		{"only the header", []string{head}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			evs := decode(t, c.lines...)
			last := evs[len(evs)-1]
			sf, ok := last.Body.(*event.SessionFinished)
			if c.want == "" {
				if ok {
					t.Fatalf("an incomplete stream got a session_finished: %+v", sf)
				}
				return
			}
			if !ok || !last.Synthetic {
				t.Fatalf("no synthetic session_finished at the end: %T", last.Body)
			}
			got, _ := json.Marshal(sf)
			if string(got) != c.want {
				t.Errorf("session_finished\n got %s\nwant %s", got, c.want)
			}
		})
	}
}

// TestWebSearchDuplicateID reads the real web_search line of the Rust
// types (two "id" keys): the reading lets the repeated key pass at
// /item/id only (Dialect.DuplicateKeys), the decoder keeps both ids and
// writes the line back as it was.
func TestWebSearchDuplicateID(t *testing.T) {
	lines := []string{
		`{"type":"thread.started","thread_id":"t"}`,
		`{"type":"turn.started"}`,
		`{"type":"item.started","item":{"id":"item_1","type":"web_search","id":"ws_08df916a4f3c6634016a2585d9d5fc81909ccd0f244dfe39cf","query":"","action":{"type":"other"}}}`,
		`{"type":"item.completed","item":{"id":"item_1","type":"web_search","id":"ws_08df916a4f3c6634016a2585d9d5fc81909ccd0f244dfe39cf","query":"codex exec schema","action":{"type":"open_page","url":"https://example.com/"}}}`,
		`{"type":"turn.completed","usage":{"input_tokens":1,"cached_input_tokens":0,"output_tokens":1}}`,
	}
	evs := decode(t, lines...)
	var call *event.ToolCall
	var fin *event.ToolFinished
	for _, ev := range evs {
		switch b := ev.Body.(type) {
		case *event.ToolCall:
			call = b
		case *event.ToolFinished:
			fin = b
		}
	}
	if call == nil || call.CallID != "item_1" || call.Kind != event.KindSearch {
		t.Fatalf("tool_call: %+v", call)
	}
	if got := gjson.GetBytes(call.Input, "id").Str; got != "ws_08df916a4f3c6634016a2585d9d5fc81909ccd0f244dfe39cf" {
		t.Errorf("the search id is lost from the input: %s", call.Input)
	}
	if fin == nil || fin.Kind != event.KindFetch || gjson.GetBytes(fin.Web, "action.url").Str != "https://example.com/" {
		t.Errorf("tool_finished: %+v", fin)
	}
	_, back, losses := dialecttest.RoundTrip(t, codex.Dialect{}, lines...)
	if !losses.Empty() {
		t.Errorf("losses: %v", losses.List())
	}
	if strings.Join(back, "\n") != strings.Join(lines, "\n") {
		t.Errorf("not written back as it was:\n%s", strings.Join(back, "\n"))
	}
	// Through the one reading: no problem at /item/id, and a key
	// repeated anywhere else is still refused.
	bad := append(slices.Clone(lines[:4]), `{"type":"turn.completed","usage":{"input_tokens":1,"input_tokens":1,"cached_input_tokens":0,"output_tokens":1}}`)
	_, _, refused := read(t, stream.Options{Dialect: codex.Dialect{}}, bad...)
	var dups []int
	for _, le := range refused {
		if le.Diags[0].Rule != stream.RuleDuplicateKey {
			t.Errorf("line %d: %v", le.Line, le)
		}
		dups = append(dups, le.Line)
	}
	if len(dups) != 1 || dups[0] != 5 {
		t.Errorf("duplicate-key lines %v, want [5]", dups)
	}
}

// TestNonJSONLinesGoOn feeds a stream with stderr text merged into it: the
// one reading reports each such line as a syntax error and reads on.
func TestNonJSONLinesGoOn(t *testing.T) {
	rd, types, refused := read(t, stream.Options{},
		`{"type":"thread.started","thread_id":"t"}`,
		`Reading additional input from stdin...`,
		`{"type":"turn.started"}`,
		`2026-10-01T09:14:03.512Z  INFO codex_exec: {"type":"item.completed"}`,
		`{"type":"item.completed","item":{"id":"item_0","type":"agent_message","text":"ok"}}`,
		`{"type":"turn.completed","usage":{"input_tokens":1,"cached_input_tokens":0,"output_tokens":1}}`,
	)
	var bad []int
	for _, le := range refused {
		bad = append(bad, le.Line)
		if le.Diags[0].Rule != stream.RuleSyntax {
			t.Errorf("line %d: rule %s, want %s", le.Line, le.Diags[0].Rule, stream.RuleSyntax)
		}
	}
	if rd.Dialect() == nil || rd.Dialect().Name() != codex.Name {
		t.Fatalf("dialect: %v", rd.Dialect())
	}
	if len(bad) != 2 || bad[0] != 2 || bad[1] != 4 {
		t.Errorf("bad lines %v, want [2 4]", bad)
	}
	want := "session_started turn_started message turn_finished session_finished"
	if got := strings.Join(types, " "); got != want {
		t.Errorf("events %s, want %s", got, want)
	}
}

// TestHeadlessStream reads a stream cut before its thread.started: the
// canonical stream still begins with a (synthetic) session_started, which
// the encoder does not write back.
func TestHeadlessStream(t *testing.T) {
	lines := []string{`{"type":"turn.started"}`, `{"type":"turn.completed","usage":{"input_tokens":1,"cached_input_tokens":0,"output_tokens":1}}`}
	evs := decode(t, lines...)
	if !evs[0].Synthetic || evs[0].Type() != event.TypeSessionStarted {
		t.Fatalf("first event %v, want a synthetic session_started", evs[0])
	}
	_, back, _ := dialecttest.RoundTrip(t, codex.Dialect{}, lines...)
	if strings.Join(back, "\n") != strings.Join(lines, "\n") {
		t.Errorf("got back:\n%s", strings.Join(back, "\n"))
	}
}

// TestDecodeErrorKeepsLine: a line the producer's types refuse is reported
// with its pointer and still kept whole.
func TestDecodeErrorKeepsLine(t *testing.T) {
	dec := codex.Dialect{}.NewDecoder(dialect.DecodeOptions{})
	evs, _ := dec.Decode(nil, []byte(`{"type":"thread.started","thread_id":"t"}`), 1)
	line := `{"type":"turn.completed","usage":{"input_tokens":1.0,"cached_input_tokens":0,"output_tokens":1}}`
	evs, err := dec.Decode(evs[:0], []byte(line), 2)
	var de *codex.DecodeError
	if !errors.As(err, &de) || de.Pointer != "/usage/input_tokens" {
		t.Fatalf("err = %v, want a DecodeError at /usage/input_tokens", err)
	}
	if len(evs) != 1 {
		t.Fatalf("%d events", len(evs))
	}
	if u, ok := evs[0].Body.(*event.Unknown); !ok || string(u.Raw) != line {
		t.Errorf("the line is not kept whole: %+v", evs[0].Body)
	}
}

// TestResumedHeaderDecodeError: a later thread.started whose fields have
// the wrong type is refused like the first one, kept whole, and still
// begins a process.
func TestResumedHeaderDecodeError(t *testing.T) {
	dec := codex.Dialect{}.NewDecoder(dialect.DecodeOptions{})
	for i, l := range []string{`{"type":"thread.started","thread_id":"t"}`, `{"type":"turn.started"}`,
		`{"type":"turn.completed","usage":{"input_tokens":1,"cached_input_tokens":0,"output_tokens":1}}`} {
		if _, err := dec.Decode(nil, []byte(l), i+1); err != nil {
			t.Fatal(err)
		}
	}
	evs, err := dec.Decode(nil, []byte(`{"type":"thread.started","thread_id":7}`), 4)
	var fe *codex.DecodeError
	if !errors.As(err, &fe) || fe.Pointer != "/thread_id" {
		t.Fatalf("error %v, want one at /thread_id", err)
	}
	if len(evs) != 1 || evs[0].Type() != event.TypeUnknown {
		t.Fatalf("events %v, want the line kept whole", evs)
	}
}

// Two `codex exec --json` runs of different threads appended to one file:
// each thread's running total starts from zero, so the second turn counts
// its own thread's total and the session what both threads spent (the
// stream breaks codex/thread-changed, which validate reports).
func TestUsageNewThreadRestartsTotal(t *testing.T) {
	for _, c := range []struct {
		name       string
		a, b       string // the threads' totals: input, output
		turn2, fin [2]uint64
	}{
		{"second above first", `"input_tokens":1000,"cached_input_tokens":0,"output_tokens":100`, `"input_tokens":1500,"cached_input_tokens":0,"output_tokens":150`,
			[2]uint64{1500, 150}, [2]uint64{2500, 250}},
		{"second below first", `"input_tokens":1500,"cached_input_tokens":0,"output_tokens":150`, `"input_tokens":1000,"cached_input_tokens":0,"output_tokens":100`,
			[2]uint64{1000, 100}, [2]uint64{2500, 250}},
	} {
		evs := decode(t,
			`{"type":"thread.started","thread_id":"019c0000-0000-7000-8000-00000000000a"}`,
			`{"type":"turn.started"}`,
			`{"type":"turn.completed","usage":{`+c.a+`}}`,
			`{"type":"thread.started","thread_id":"019c0000-0000-7000-8000-00000000000b"}`,
			`{"type":"turn.started"}`,
			`{"type":"turn.completed","usage":{`+c.b+`}}`,
			// A resumed process of the second thread goes on from its total.
			`{"type":"thread.started","thread_id":"019c0000-0000-7000-8000-00000000000b"}`,
			`{"type":"turn.started"}`,
			`{"type":"turn.completed","usage":{"input_tokens":2000,"cached_input_tokens":0,"output_tokens":200}}`,
		)
		var turns [][2]uint64
		var fin *event.Usage
		for _, e := range evs {
			switch b := e.Body.(type) {
			case *event.TurnFinished:
				if b.Usage == nil || b.Usage.InputTokens == nil || b.Usage.OutputTokens == nil {
					turns = append(turns, [2]uint64{})
					continue
				}
				turns = append(turns, [2]uint64{*b.Usage.InputTokens, *b.Usage.OutputTokens})
			case *event.SessionFinished:
				fin = b.Usage
			}
		}
		third := [2]uint64{2000 - c.turn2[0], 200 - c.turn2[1]}
		if len(turns) != 3 || turns[1] != c.turn2 || turns[2] != third {
			t.Errorf("%s: turns' usage %v, want the second %v, the third %v", c.name, turns, c.turn2, third)
		}
		want := [2]uint64{c.fin[0] - c.turn2[0] + 2000, c.fin[1] - c.turn2[1] + 200}
		if fin == nil || fin.InputTokens == nil || *fin.InputTokens != want[0] || *fin.OutputTokens != want[1] || *fin.TotalTokens != want[0]+want[1] {
			t.Errorf("%s: session usage %+v, want input %d, output %d", c.name, fin, want[0], want[1])
		}
	}
}
