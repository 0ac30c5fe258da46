package gemini_test

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/dialecttest"

	"github.com/evtool/evtool/adapters/gemini"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/testkit/jsoneq"
	evstats "github.com/evtool/evtool/stats"
	"github.com/evtool/evtool/stream"
	"github.com/tidwall/gjson"
)

// TestStatsArithmetic: the figures of `evtool stats` for a Gemini run with
// cached input are the hand arithmetic on the raw fields of result.stats
// (testdata/written_cached_usage.jsonl, last line):
//
//	input_tokens 20525 (1580 + 18945), cached 7559 (0 + 7559),
//	output_tokens 312 (40 + 272), total_tokens 21107 (1620 + 19487).
//
// Gemini's input_tokens includes the cached tokens; canonical counts are
// disjoint, so
//
//	input      = input_tokens − cached = 20525 − 7559 = 12966 (= stats.input)
//	cache read = cached                =  7559
//	output     = output_tokens         =   312
//	total      = total_tokens          = 21107 (the API's total, stated)
//
// and input + cache read = 20525 again, what a writer in a nested
// convention (codex, gemini) must write back as input_tokens.
func TestStatsArithmetic(t *testing.T) {
	const file = "testdata/written_cached_usage.jsonl"
	lines := dialecttest.ReadLines(t, file)
	raw := gjson.Get(lines[len(lines)-1], "stats")
	inTokens, cached := raw.Get("input_tokens").Uint(), raw.Get("cached").Uint()
	if inTokens != 20525 || cached != 7559 || raw.Get("input").Uint() != 12966 || raw.Get("output_tokens").Uint() != 312 || raw.Get("total_tokens").Uint() != 21107 {
		t.Fatalf("the stream is not the one the arithmetic above is about: %s", raw.Raw)
	}
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	run, err := evstats.Read(f, file, evstats.Options{Stream: stream.Options{Dialect: gemini.Dialect{}}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[evstats.Token]uint64{
		evstats.Input:     20525 - 7559,
		evstats.CacheRead: 7559,
		evstats.Output:    312,
		evstats.Total:     21107,
	}
	if run.UsageFrom != evstats.LevelSession || len(run.Usage.Tokens) != len(want) {
		t.Fatalf("usage from %q: %v, want %v", run.UsageFrom, run.Usage.Tokens, want)
	}
	for k, n := range want {
		if got, ok := run.Usage.Tokens[k]; !ok || got != n {
			t.Errorf("%s: got %d (stated %v), want %d", k, got, ok, n)
		}
	}
	if run.Usage.Tokens[evstats.Input]+run.Usage.Tokens[evstats.CacheRead] != inTokens {
		t.Errorf("input + cache read is not Gemini's input_tokens")
	}
	// The turn states the same figures: a Gemini process is one turn, and
	// the turn's usage is what a per-turn writer (opencode's step_finish
	// of the last step, codex's turn.completed) has to go on.
	evs := decode(t, lines...)
	var tf *event.TurnFinished
	for _, ev := range evs {
		if b, ok := ev.Body.(*event.TurnFinished); ok {
			tf = b
		}
		if b, ok := ev.Body.(*event.RoundFinished); ok && b.Usage != nil {
			t.Errorf("Gemini states no round's usage, yet a round has %+v", b.Usage)
		}
	}
	if u := tf.Usage; u == nil || *u.InputTokens != 12966 || *u.CacheReadTokens != 7559 || *u.OutputTokens != 312 || *u.TotalTokens != 21107 {
		t.Errorf("turn usage %+v", tf.Usage)
	}
}

// TestUsageShapes: each stats shape and hostile figures, read as exact
// disjoint counts and written back as they were.
func TestUsageShapes(t *testing.T) {
	res := func(s string) string {
		return `{"type":"result","timestamp":"2026-10-01T09:00:01.000Z","status":"success","stats":` + s + `}`
	}
	u64 := func(n uint64) *uint64 { return &n }
	tests := []struct {
		name    string
		line    string
		want    event.Usage
		residue string // ext.gemini.stats, "" for none
	}{
		{"0.11: no cached count, so the input is input_tokens",
			res(`{"total_tokens":30,"input_tokens":20,"output_tokens":5,"duration_ms":1,"tool_calls":0}`),
			event.Usage{InputTokens: u64(20), OutputTokens: u64(5), TotalTokens: u64(30)},
			`{"duration_ms":1,"tool_calls":0}`},
		{"0.22: cached inside input_tokens",
			res(`{"total_tokens":30,"input_tokens":20,"output_tokens":5,"cached":4,"input":16,"duration_ms":1,"tool_calls":0}`),
			event.Usage{InputTokens: u64(16), OutputTokens: u64(5), CacheReadTokens: u64(4), TotalTokens: u64(30)},
			`{"duration_ms":1,"tool_calls":0}`},
		{"all input cached",
			res(`{"total_tokens":30,"input_tokens":20,"output_tokens":5,"cached":20,"input":0,"duration_ms":1,"tool_calls":0}`),
			event.Usage{InputTokens: u64(0), OutputTokens: u64(5), CacheReadTokens: u64(20), TotalTokens: u64(30)},
			`{"duration_ms":1,"tool_calls":0}`},
		{"hostile: cached above input_tokens leaves the input unstated, never underflowing",
			res(`{"total_tokens":9,"input_tokens":2,"output_tokens":1,"cached":5,"input":0,"duration_ms":1,"tool_calls":0}`),
			event.Usage{OutputTokens: u64(1), CacheReadTokens: u64(5), TotalTokens: u64(9)},
			`{"duration_ms":1,"tool_calls":0,"input_tokens":2}`},
		{"hostile at the u64 edge",
			res(`{"total_tokens":18446744073709551615,"input_tokens":0,"output_tokens":0,"cached":18446744073709551615,"input":0,"duration_ms":0,"tool_calls":0}`),
			event.Usage{OutputTokens: u64(0), CacheReadTokens: u64(18446744073709551615), TotalTokens: u64(18446744073709551615)},
			`{"duration_ms":0,"tool_calls":0,"input_tokens":0}`},
		{"the largest counts that are consistent",
			res(`{"total_tokens":18446744073709551615,"input_tokens":18446744073709551615,"output_tokens":0,"cached":1,"input":18446744073709551614,"duration_ms":0,"tool_calls":0}`),
			event.Usage{InputTokens: u64(18446744073709551614), OutputTokens: u64(0), CacheReadTokens: u64(1), TotalTokens: u64(18446744073709551615)},
			`{"duration_ms":0,"tool_calls":0}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			evs := decode(t, header, tt.line)
			end := evs[len(evs)-1]
			got := end.Body.(*event.SessionFinished).Usage
			if got == nil || !sameUsage(*got, tt.want) {
				t.Errorf("usage %s, want %s", usageText(got), usageText(&tt.want))
			}
			if r := gjson.GetBytes(end.Ext.Get("gemini"), "stats").Raw; !jsoneq.Equal(r, tt.residue) && !(r == "" && tt.residue == "") {
				t.Errorf("residue %s, want %s", r, tt.residue)
			}
			back := roundTrip(t, []string{header, tt.line})
			if back[len(back)-1] != tt.line {
				t.Errorf("not written back as it was:\n in: %s\nout: %s", tt.line, back[len(back)-1])
			}
		})
	}
}

func sameUsage(a, b event.Usage) bool { return usageText(&a) == usageText(&b) }

func usageText(u *event.Usage) string {
	if u == nil {
		return "<nil>"
	}
	var b strings.Builder
	for _, f := range []struct {
		k string
		v *uint64
	}{{"in", u.InputTokens}, {"out", u.OutputTokens}, {"read", u.CacheReadTokens}, {"write", u.CacheCreationTokens},
		{"reasoning", u.ReasoningTokens}, {"thoughts", u.ThoughtsTokens}, {"total", u.TotalTokens}} {
		if f.v != nil {
			b.WriteString(f.k + "=" + strconv.FormatUint(*f.v, 10) + " ")
		}
	}
	return b.String()
}

// TestEncodeUsageToGemini: another dialect's disjoint counts are written in
// Gemini's convention: input_tokens is every prompt token (input, cache
// reads and cache writes), cached the reads, input the rest.
func TestEncodeUsageToGemini(t *testing.T) {
	got, losses := encodeCanonical(t, dialect.Defaults{},
		`{"seq":0,"type":"session_started","time":"2026-10-01T09:00:00.000000Z","schema":1,"source":{"dialect":"claude"},"session_id":"s","model":"m"}`,
		`{"seq":1,"type":"user_message","time":"2026-10-01T09:00:00.001000Z","text":"go"}`,
		`{"seq":2,"type":"session_finished","time":"2026-10-01T09:00:01.000000Z","status":"ok","usage":{"input_tokens":12966,"output_tokens":312,"cache_read_tokens":7559,"cache_creation_tokens":100,"total_tokens":21207}}`,
	)
	// input_tokens = 12966 + 7559 + 100 = 20625; input = 20625 − 7559 = 13066.
	want := `{"type":"result","timestamp":"2026-10-01T09:00:01.000Z","status":"success","stats":{"total_tokens":21207,"input_tokens":20625,"output_tokens":312,"cached":7559,"input":13066,"duration_ms":1000,"tool_calls":0}}`
	if got[len(got)-1] != want {
		t.Errorf("got  %s\nwant %s", got[len(got)-1], want)
	}
	checkLosses(t, losses, []string{
		`dropped 1 cache creation token count (gemini's stats has no such count; the tokens are counted within input_tokens)`,
	})
}

// TestTurnReason: a fatal error's text (result.error.message) is the
// turn's reason as well as the session's message, so that a writer that
// ends a failed turn with its cause has it; and a failed turn's reason,
// with no session message, becomes result's error message.
func TestTurnReason(t *testing.T) {
	evs := decode(t, dialecttest.ReadLines(t, "testdata/written_api_error.jsonl")...)
	tf := evs[len(evs)-2].Body.(*event.TurnFinished)
	sf := evs[len(evs)-1].Body.(*event.SessionFinished)
	const msg = "[API Error: Requested entity was not found.]"
	if tf.Status != event.StatusError || tf.Reason != msg || sf.Message != msg {
		t.Errorf("turn %q %q, session %q", tf.Status, tf.Reason, sf.Message)
	}
	for _, f := range []string{"written_plain_answer.jsonl", "written_invalid_model_stream.jsonl"} {
		evs := decode(t, dialecttest.ReadLines(t, "testdata/"+f)...)
		if r := evs[len(evs)-2].Body.(*event.TurnFinished).Reason; r != "" {
			t.Errorf("%s: a result without an error object gives the turn a reason %q", f, r)
		}
	}

	got, losses := encodeCanonical(t, dialect.Defaults{},
		`{"seq":0,"type":"session_started","schema":1,"source":{"dialect":"codex"},"session_id":"s","model":"m"}`,
		`{"seq":1,"type":"turn_started","turn_id":"t1","prompt":"go"}`,
		`{"seq":2,"type":"turn_finished","turn_id":"t1","status":"error","reason":"`+msg+`"}`,
		`{"seq":3,"type":"session_finished","status":"error"}`,
	)
	if r := gjson.Get(got[len(got)-1], "error.message").Str; r != msg {
		t.Errorf("result %s", got[len(got)-1])
	}
	for _, l := range losses {
		if strings.Contains(l, "turn reason") {
			t.Errorf("the reason was written, yet counted: %s", l)
		}
	}
	_, losses = encodeCanonical(t, dialect.Defaults{},
		`{"seq":0,"type":"session_started","schema":1,"source":{"dialect":"codex"},"session_id":"s","model":"m"}`,
		`{"seq":1,"type":"turn_started","turn_id":"t1","prompt":"go"}`,
		`{"seq":2,"type":"turn_finished","turn_id":"t1","status":"error","reason":"the turn's own"}`,
		`{"seq":3,"type":"session_finished","status":"error","message":"the run's"}`,
	)
	if !strings.Contains(strings.Join(losses, "\n"), "dropped 1 turn reason") {
		t.Errorf("a reason the result does not carry is not counted: %v", losses)
	}
}

// TestEncodeUsageSaturated: sums that do not fit in a u64 are written as
// its largest value, and each is counted.
func TestEncodeUsageSaturated(t *testing.T) {
	got, losses := encodeCanonical(t, dialect.Defaults{},
		`{"seq":0,"type":"session_started","time":"2026-10-01T09:00:00.000000Z","schema":1,"source":{"dialect":"basis"},"session_id":"s","model":"m"}`,
		`{"seq":1,"type":"user_message","time":"2026-10-01T09:00:00.001000Z","text":"go"}`,
		`{"seq":2,"type":"session_finished","time":"2026-10-01T09:00:01.000000Z","status":"ok","usage":{"input_tokens":18446744073709551615,"output_tokens":1,"cache_read_tokens":1}}`,
	)
	want := `"stats":{"total_tokens":18446744073709551615,"input_tokens":18446744073709551615,"output_tokens":1,"cached":1,"input":18446744073709551614,`
	if !strings.Contains(got[len(got)-1], want) {
		t.Errorf("got %s", got[len(got)-1])
	}
	// input_tokens (2^64-1 + 1) and the total summed from it.
	if !strings.Contains(strings.Join(losses, "\n"), "approximated 2 token counts beyond 2^64-1") {
		t.Errorf("want two saturated counts: %v", losses)
	}
}
