package gemini_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/evtool/evtool/adapters/gemini"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/dialecttest"
)

// encodeCanonical writes canonical lines as gemini and returns the lines
// and the loss summary.
func encodeCanonical(t *testing.T, defaults dialect.Defaults, lines ...string) ([]string, []string) {
	t.Helper()
	out, losses := dialecttest.Encode(t, gemini.Dialect{}, dialect.EncodeOptions{Defaults: defaults}, lines...)
	var ls []string
	for _, l := range losses.List() {
		ls = append(ls, l.String())
	}
	// Whatever the encoder writes, gemini's validator accepts.
	diags, _ := validateAll(t, []byte(out), gemini.Dialect{})
	for _, d := range diags {
		if d.Severity == dialect.Error {
			t.Errorf("the output does not validate: %s", d)
		}
	}
	return dialecttest.Lines(out), ls
}

func checkLines(t *testing.T, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d lines, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d:\n got %s\nwant %s", i+1, got[i], want[i])
		}
	}
}

func checkLosses(t *testing.T, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("losses:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestEncodeForeign writes a run of another dialect: times to
// milliseconds, the prompt from the turn start, a complete message as one
// delta, a tool input with its keys sorted, a call announced only by its
// result, statuses Gemini lacks, the run's usage with cached inside input,
// duration_ms from the times and tool_calls counted; every loss counted.
func TestEncodeForeign(t *testing.T) {
	got, losses := encodeCanonical(t, dialect.Defaults{},
		`{"seq":0,"type":"session_started","time":"2026-10-01T09:00:00.000000Z","schema":1,"source":{"dialect":"basis"},"session_id":"s1","model":"m1","provider":"p"}`,
		`{"seq":1,"type":"turn_started","time":"2026-10-01T09:00:00.001000Z","turn_id":"t1","prompt":"do it"}`,
		`{"seq":2,"type":"message","time":"2026-10-01T09:00:01.000000Z","turn_id":"t1","text":"On it."}`,
		`{"seq":3,"type":"tool_call","time":"2026-10-01T09:00:01.500000Z","turn_id":"t1","call_id":"c1","name":"shell","title":"run ls","kind":"execute","input":{"z": 1, "a": {"y": 2, "b": 3}}}`,
		`{"seq":4,"type":"tool_output","time":"2026-10-01T09:00:01.600000Z","turn_id":"t1","call_id":"c1","chunk":"a\n"}`,
		`{"seq":5,"type":"tool_output","time":"2026-10-01T09:00:01.601000Z","turn_id":"t1","call_id":"c1","chunk":"b\n"}`,
		`{"seq":6,"type":"tool_finished","time":"2026-10-01T09:00:01.700000Z","turn_id":"t1","call_id":"c1","status":"success","exit_code":0}`,
		`{"seq":7,"type":"tool_finished","time":"2026-10-01T09:00:01.800000Z","turn_id":"t1","call_id":"c2","name":"read_file","status":"rejected","error":"denied by policy"}`,
		`{"seq":8,"type":"notice","time":"2026-10-01T09:00:01.900000Z","turn_id":"t1","message":"fyi"}`,
		`{"seq":9,"type":"usage","time":"2026-10-01T09:00:02.000000Z","turn_id":"t1","input_tokens":10,"output_tokens":2}`,
		`{"seq":10,"type":"turn_finished","time":"2026-10-01T09:00:02.100000Z","turn_id":"t1","status":"cancelled","stop_reason":"cancelled"}`,
		`{"seq":11,"type":"session_finished","time":"2026-10-01T09:00:02.345678Z","status":"cancelled","message":"stopped","usage":{"input_tokens":100,"output_tokens":20,"cache_read_tokens":30,"thoughts_tokens":5,"cost_usd":0.25}}`,
	)
	checkLines(t, got, []string{
		`{"type":"init","timestamp":"2026-10-01T09:00:00.000Z","session_id":"s1","model":"m1"}`,
		`{"type":"message","timestamp":"2026-10-01T09:00:00.001Z","role":"user","content":"do it"}`,
		`{"type":"message","timestamp":"2026-10-01T09:00:01.000Z","role":"assistant","content":"On it.","delta":true}`,
		`{"type":"tool_use","timestamp":"2026-10-01T09:00:01.500Z","tool_name":"shell","tool_id":"c1","parameters":{"a":{"b":3,"y":2},"z":1}}`,
		`{"type":"tool_result","timestamp":"2026-10-01T09:00:01.700Z","tool_id":"c1","status":"success","output":"a\nb\n"}`,
		`{"type":"tool_use","timestamp":"2026-10-01T09:00:01.800Z","tool_name":"read_file","tool_id":"c2","parameters":{}}`,
		`{"type":"tool_result","timestamp":"2026-10-01T09:00:01.800Z","tool_id":"c2","status":"error","error":{"type":"TOOL_EXECUTION_ERROR","message":"denied by policy"}}`,
		`{"type":"error","timestamp":"2026-10-01T09:00:01.900Z","severity":"warning","message":"fyi"}`,
		`{"type":"result","timestamp":"2026-10-01T09:00:02.345Z","status":"error","error":{"type":"FatalCancellationError","message":"stopped"},"stats":{"total_tokens":155,"input_tokens":130,"output_tokens":20,"cached":30,"input":100,"duration_ms":2345,"tool_calls":2}}`,
	})
	checkLosses(t, losses, []string{
		`approximated 1 notice of severity info (gemini's error lines are warnings or errors; written as warning)`,
		`approximated 1 run token total (gemini states a total; summed from input, output and thoughts tokens)`,
		`approximated 1 sub-millisecond time (gemini stamps lines in milliseconds)`,
		`approximated 1 tool status "rejected" (gemini's tool statuses are success and error; written as error)`,
		`dropped 1 cost (gemini states no cost)`,
		`dropped 1 model provider (gemini's init names the model only)`,
		`dropped 1 thoughts token count (gemini's stats has no such count)`,
		`dropped 1 tool exit code (gemini's tool_result has the output only)`,
		`dropped 1 tool kind (gemini names the tool only; its kind follows from the name)`,
		`dropped 1 tool title (gemini's tool_use names the tool only)`,
		`dropped 1 usage event (gemini states usage once, for the whole run, in result.stats)`,
		`synthesized 1 tool_use line (gemini announces every call before its result; built from the call's later events)`,
		`synthesized 1 user message line (the source states the prompt on its turn start only)`,
	})
}

// TestEncodeWithoutHeaderOrTimes: a stream with no session start and no
// times gets an init from the defaults and every line a timestamp, each
// counted; usage summed from the rounds.
func TestEncodeWithoutHeaderOrTimes(t *testing.T) {
	got, losses := encodeCanonical(t, dialect.Defaults{SessionID: "given", Model: "gemini-x"},
		`{"seq":0,"type":"user_message","text":"hi"}`,
		`{"seq":1,"type":"message_delta","text":"he"}`,
		`{"seq":2,"type":"message_delta","text":"llo"}`,
		`{"seq":3,"type":"message","text":"hello"}`,
		`{"seq":4,"type":"round_finished","stop_reason":"max_tokens","usage":{"input_tokens":4,"output_tokens":1,"total_tokens":5}}`,
		`{"seq":5,"type":"error","message":"boom","recoverable":false}`,
		`{"seq":6,"type":"session_finished","status":"error","message":"boom"}`,
		`{"seq":7,"type":"message_delta","text":"late"}`,
	)
	checkLines(t, got, []string{
		`{"type":"init","timestamp":"1970-01-01T00:00:00.000Z","session_id":"given","model":"gemini-x"}`,
		`{"type":"message","timestamp":"1970-01-01T00:00:00.000Z","role":"user","content":"hi"}`,
		`{"type":"message","timestamp":"1970-01-01T00:00:00.000Z","role":"assistant","content":"he","delta":true}`,
		`{"type":"message","timestamp":"1970-01-01T00:00:00.000Z","role":"assistant","content":"llo","delta":true}`,
		`{"type":"error","timestamp":"1970-01-01T00:00:00.000Z","severity":"error","message":"boom"}`,
		`{"type":"result","timestamp":"1970-01-01T00:00:00.000Z","status":"error","error":{"type":"Error","message":"boom"},"stats":{"total_tokens":5,"input_tokens":4,"output_tokens":1,"duration_ms":0,"tool_calls":0}}`,
	})
	checkLosses(t, losses, []string{
		`approximated 1 error class (the source names no error class; written as Error)`,
		`approximated 1 fatal error (gemini's error lines are non-fatal; a fatal error ends the run in result)`,
		`approximated 1 run duration (the source states no start and end times; duration_ms is written as 0)`,
		`approximated 1 run token total (gemini states one run total; summed from the per-round usage)`,
		`dropped 1 message_delta event after the run finished (result is gemini's last line)`,
		`dropped 1 round stop reason (gemini marks no round; a round ends to call tools or with the run)`,
		`dropped 1 round's usage (gemini states usage once, for the whole run, in result.stats)`,
		`synthesized 1 init line (the source stream has no header; built from defaults)`,
		`synthesized 6 timestamps (every gemini line has one and the source states none; the previous line's (or 1970-01-01) is written)`,
	})
}

// TestEncodeAnswerNeverStreamed: a final text no message carried is
// written as one delta before result; a turn limit is the turn-limit
// class; an input that is not an object is wrapped.
func TestEncodeAnswerNeverStreamed(t *testing.T) {
	got, losses := encodeCanonical(t, dialect.Defaults{},
		`{"seq":0,"type":"session_started","time":"2026-10-01T09:00:00.000000Z","schema":1,"source":{"dialect":"x"},"session_id":"s","model":"m"}`,
		`{"seq":1,"type":"tool_call","time":"2026-10-01T09:00:00.100000Z","call_id":"c","name":"grep_search","input":"raw text"}`,
		`{"seq":2,"type":"tool_finished","time":"2026-10-01T09:00:00.200000Z","call_id":"c","status":"success","output":"3 matches"}`,
		`{"seq":3,"type":"turn_finished","time":"2026-10-01T09:00:00.300000Z","turn_id":"t","status":"error","stop_reason":"max_turn_requests","text":"partial"}`,
		`{"seq":4,"type":"session_finished","time":"2026-10-01T09:00:00.400000Z","status":"error","message":"too many turns","text":"partial"}`,
	)
	checkLines(t, got, []string{
		`{"type":"init","timestamp":"2026-10-01T09:00:00.000Z","session_id":"s","model":"m"}`,
		`{"type":"tool_use","timestamp":"2026-10-01T09:00:00.100Z","tool_name":"grep_search","tool_id":"c","parameters":{"input":"raw text"}}`,
		`{"type":"tool_result","timestamp":"2026-10-01T09:00:00.200Z","tool_id":"c","status":"success","output":"3 matches"}`,
		`{"type":"message","timestamp":"2026-10-01T09:00:00.300Z","role":"assistant","content":"partial","delta":true}`,
		`{"type":"result","timestamp":"2026-10-01T09:00:00.400Z","status":"error","error":{"type":"FatalTurnLimitedError","message":"too many turns"}}`,
	})
	checkLosses(t, losses, []string{
		`approximated 1 tool input that is not an object (gemini's parameters is an object; written as {"input":…})`,
	})
}

// TestEncodeLossWording: each loss is worded for its count, a kind with a
// detail counts each detail apart, and every kind counted is in the
// dialect's catalogue. The stream also opens with another dialect's
// unknown line (a banner a conversion kept): it is counted, and no init is
// synthesised for it, so the real session start is not a repeated one.
func TestEncodeLossWording(t *testing.T) {
	out, losses := dialecttest.Encode(t, gemini.Dialect{}, dialect.EncodeOptions{},
		`{"seq":0,"type":"unknown","dialect":"evtool","source_type":"unreadable-line","raw":{"text":"Loaded cached credentials."}}`,
		`{"seq":1,"type":"session_started","time":"2026-10-01T09:00:00.000000Z","schema":1,"source":{"dialect":"x"},"session_id":"s","model":"m"}`,
		`{"seq":2,"type":"tool_call","time":"2026-10-01T09:00:00.100000Z","call_id":"c1","name":"shell","title":"one"}`,
		`{"seq":3,"type":"tool_call","time":"2026-10-01T09:00:00.200000Z","call_id":"c2","name":"shell","title":"two"}`,
		`{"seq":4,"type":"tool_call","time":"2026-10-01T09:00:00.300000Z","call_id":"c3","name":"shell","title":"three","mutability":"read_only"}`,
		`{"seq":5,"type":"tool_finished","time":"2026-10-01T09:00:00.400000Z","call_id":"c1","status":"rejected"}`,
		`{"seq":6,"type":"tool_finished","time":"2026-10-01T09:00:00.500000Z","call_id":"c2","status":"cancelled"}`,
		`{"seq":7,"type":"tool_finished","time":"2026-10-01T09:00:00.600000Z","call_id":"c3","status":"cancelled"}`,
		`{"seq":8,"type":"session_finished","time":"2026-10-01T09:00:01.000000Z","status":"ok","usage":{"total_tokens":7}}`,
	)
	if first, _, _ := strings.Cut(out, "\n"); first != `{"type":"init","timestamp":"2026-10-01T09:00:00.000Z","session_id":"s","model":"m"}` {
		t.Errorf("first line %s, want the source's init", first)
	}
	catalogue := map[string]bool{}
	for _, k := range (gemini.Dialect{}).LossKinds() {
		catalogue[k.ID] = true
	}
	var got []string
	for _, l := range losses.List() {
		if !catalogue[l.ID] {
			t.Errorf("loss %q is not in the catalogue", l.ID)
		}
		got = append(got, l.String()+" ["+l.ID+"]")
	}
	checkLosses(t, got, []string{
		`approximated 1 input token count not stated (gemini's stats has input and output counts; written as 0) [gemini/token-count-unstated]`,
		`approximated 1 output token count not stated (gemini's stats has input and output counts; written as 0) [gemini/token-count-unstated]`,
		`approximated 2 tool statuses "cancelled" (gemini's tool statuses are success and error; written as error) [gemini/tool-status]`,
		`approximated 1 tool status "rejected" (gemini's tool statuses are success and error; written as error) [gemini/tool-status]`,
		`dropped 3 tool titles (gemini's tool_use names the tool only) [gemini/tool-title]`,
		`dropped 1 tool's mutability (gemini's tool_use names the tool only) [gemini/tool-mutability]`,
		`dropped 1 unknown evtool event (gemini cannot carry another dialect's unknown lines) [gemini/unknown-event]`,
	})
}

// TestLineSeparatorsRaw: U+2028 and U+2029 are written raw, as
// JSON.stringify writes them, in text the encoder writes and in another
// dialect's tool input, whose strings are written as JSON.stringify writes
// them; a backslash before "u2028" in the text stays text. (A gemini
// source's escaped form, kept verbatim, comes back escaped:
// testdata/written_line_separators.jsonl in TestRoundTrip.)
func TestLineSeparatorsRaw(t *testing.T) {
	got, _ := encodeCanonical(t, dialect.Defaults{},
		`{"seq":0,"type":"session_started","time":"2026-10-01T09:00:00.000000Z","schema":1,"source":{"dialect":"x"},"session_id":"s","model":"m"}`,
		`{"seq":1,"type":"user_message","time":"2026-10-01T09:00:00.000000Z","text":"a\u2028b\u2029c \\u2028 d\\\u2029"}`,
		`{"seq":2,"type":"tool_call","time":"2026-10-01T09:00:00.000000Z","call_id":"c","name":"shell","input":{"k":"x\u2028y"}}`,
		`{"seq":3,"type":"session_finished","time":"2026-10-01T09:00:00.000000Z","status":"ok"}`,
	)
	checkLines(t, got, []string{
		`{"type":"init","timestamp":"2026-10-01T09:00:00.000Z","session_id":"s","model":"m"}`,
		"{\"type\":\"message\",\"timestamp\":\"2026-10-01T09:00:00.000Z\",\"role\":\"user\",\"content\":\"a\u2028b\u2029c \\\\u2028 d\\\\\u2029\"}",
		"{\"type\":\"tool_use\",\"timestamp\":\"2026-10-01T09:00:00.000Z\",\"tool_name\":\"shell\",\"tool_id\":\"c\",\"parameters\":{\"k\":\"x\u2028y\"}}",
		`{"type":"result","timestamp":"2026-10-01T09:00:00.000Z","status":"success"}`,
	})
}

// TestLossCatalogue: ids under gemini/, unique, worded for one and many.
func TestLossCatalogue(t *testing.T) {
	if err := dialect.CheckLossKinds("gemini/", gemini.Dialect{}.LossKinds()); err != nil {
		t.Error(err)
	}
}

// TestEncodeHandMadeCanonical: evtool's hand-made canonical streams of
// awkward shapes (a header missing, calls left open, ids empty, events
// after the end, u64 limits) all give streams gemini's validator accepts.
func TestEncodeHandMadeCanonical(t *testing.T) {
	files, _ := filepath.Glob("../basis/testdata/canonical/*.jsonl")
	if len(files) == 0 {
		t.Fatal("no hand-made canonical streams")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			encodeCanonical(t, dialect.Defaults{}, dialecttest.ReadLines(t, f)...)
		})
	}
}
