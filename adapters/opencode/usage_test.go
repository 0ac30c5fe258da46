package opencode_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/evtool/evtool/adapters/opencode"
	"github.com/evtool/evtool/event"
	"github.com/tidwall/gjson"
)

// reasoningStep is one step whose reasoning outweighs its output: opencode
// counts them apart, total = input + output + reasoning + cache read +
// cache write (100 + 200 + 1000 + 300 + 0 = 1600).
const reasoningStep = `{"type":"step_start","timestamp":1767036059338,"sessionID":"ses_r1","part":{"id":"prt_1","sessionID":"ses_r1","messageID":"msg_1","type":"step-start"}}
{"type":"text","timestamp":1767036059500,"sessionID":"ses_r1","part":{"id":"prt_2","sessionID":"ses_r1","messageID":"msg_1","type":"text","text":"ok","time":{"start":1767036059450,"end":1767036059499}}}
{"type":"step_finish","timestamp":1767036061205,"sessionID":"ses_r1","part":{"id":"prt_3","sessionID":"ses_r1","messageID":"msg_1","type":"step-finish","reason":"stop","cost":0.01,"tokens":{"total":1600,"input":100,"output":200,"reasoning":1000,"cache":{"read":300,"write":0}}}}
`

// TestReasoningInsideOutput: opencode's output excludes reasoning; the
// canonical output includes it (as Codex counts it). Read, the step's
// output is 200 + 1000 = 1200, of which 1000 reasoning, so that input +
// output + cache read + cache write is opencode's total, 1600; written
// back, the step is as it was.
func TestReasoningInsideOutput(t *testing.T) {
	var rounds, turns []*event.Usage
	for _, ev := range events(t, []byte(reasoningStep)) {
		switch b := ev.Body.(type) {
		case *event.RoundFinished:
			rounds = append(rounds, b.Usage)
		case *event.TurnFinished:
			turns = append(turns, b.Usage)
		}
	}
	if len(rounds) != 1 || len(turns) != 1 {
		t.Fatalf("%d rounds, %d turns", len(rounds), len(turns))
	}
	for _, u := range []*event.Usage{rounds[0], turns[0]} {
		got := [5]uint64{*u.InputTokens, *u.OutputTokens, *u.ReasoningTokens, *u.CacheReadTokens, *u.TotalTokens}
		if want := [5]uint64{100, 1200, 1000, 300, 1600}; got != want {
			t.Errorf("input, output, reasoning, cache read, total = %v, want %v", got, want)
		}
		if sum := *u.InputTokens + *u.OutputTokens + *u.CacheReadTokens + *u.CacheCreationTokens; sum != *u.TotalTokens {
			t.Errorf("input + output + cache = %d, total %d", sum, *u.TotalTokens)
		}
	}
	canon, _ := conv(t, []byte(reasoningStep), opencode.Name, "canonical")
	if back, l := conv(t, []byte(canon), "canonical", opencode.Name); back != reasoningStep || !l.Empty() {
		t.Errorf("round trip (losses %v):\n got %s\nwant %s", l.List(), back, reasoningStep)
	}
}

// TestReasoningWritten: a foreign round's output includes its reasoning
// (Codex: output 114, of which 64 reasoning; total = input + output, here
// 1006 uncached + 14080 cached + 114 = 15200; no cache write, written as
// 0), so opencode's output is 114 - 64 = 50, and the total is kept:
// 1006 + 50 + 64 + 14080 + 0 = 15200. A
// reasoning count above the output (a source that counts it apart) cannot
// be taken out of it: both are written as stated, and that is counted.
func TestReasoningWritten(t *testing.T) {
	canon := `{"seq":0,"type":"session_started","schema":1,"source":{"dialect":"codex"},"session_id":"s1"}
{"seq":1,"type":"turn_started","time":"2026-10-01T09:10:00.000000Z","turn_id":"t1"}
{"seq":2,"type":"message","time":"2026-10-01T09:10:01.000000Z","turn_id":"t1","text":"done"}
{"seq":3,"type":"round_finished","time":"2026-10-01T09:10:02.000000Z","turn_id":"t1","stop_reason":"end_turn","usage":{"input_tokens":1006,"output_tokens":114,"cache_read_tokens":14080,"reasoning_tokens":64,"total_tokens":15200,"cost_usd":0.5}}
{"seq":4,"type":"turn_finished","time":"2026-10-01T09:10:02.000000Z","turn_id":"t1","status":"ok"}
{"seq":5,"type":"turn_started","time":"2026-10-01T09:11:00.000000Z","turn_id":"t2"}
{"seq":6,"type":"message","time":"2026-10-01T09:11:01.000000Z","turn_id":"t2","text":"again"}
{"seq":7,"type":"round_finished","time":"2026-10-01T09:11:02.000000Z","turn_id":"t2","stop_reason":"end_turn","usage":{"input_tokens":100,"output_tokens":200,"cache_read_tokens":300,"cache_creation_tokens":0,"reasoning_tokens":1000,"cost_usd":0.01}}
{"seq":8,"type":"turn_finished","time":"2026-10-01T09:11:02.000000Z","turn_id":"t2","status":"ok"}
{"seq":9,"type":"session_finished","time":"2026-10-01T09:11:02.000000Z","status":"ok"}
`
	out, losses := conv(t, []byte(canon), "canonical", opencode.Name)
	var steps []string
	for _, l := range strings.Split(out, "\n") {
		if gjson.Get(l, "type").Str == "step_finish" {
			steps = append(steps, gjson.Get(l, "part.tokens").Raw)
		}
	}
	want := []string{
		`{"total":15200,"input":1006,"output":50,"reasoning":64,"cache":{"read":14080,"write":0}}`,
		`{"input":100,"output":200,"reasoning":1000,"cache":{"read":300,"write":0}}`,
	}
	if !slices.Equal(steps, want) {
		t.Errorf("step_finish tokens:\n got %q\nwant %q", steps, want)
	}
	var usageLosses []string
	for _, l := range losses.List() {
		if id := l.LossKind().ID; strings.Contains(id, "total") || strings.Contains(id, "reasoning") {
			usageLosses = append(usageLosses, l.String())
		}
	}
	wantLoss := []string{"approximated 1 reasoning token count above the output token count (the canonical output includes reasoning, opencode's excludes it; a step's output and reasoning are written as stated)"}
	if !slices.Equal(usageLosses, wantLoss) {
		t.Errorf("losses:\n got %q\nwant %q", usageLosses, wantLoss)
	}
	if sum := check(t, out); sum.Errors != 0 || sum.Warnings != 0 {
		t.Errorf("output does not validate: %+v\n%s", sum, out)
	}
	// Read back, the first step's output is Codex's again.
	for _, ev := range events(t, []byte(out)) {
		if r, ok := ev.Body.(*event.RoundFinished); ok {
			if *r.Usage.OutputTokens != 114 || *r.Usage.ReasoningTokens != 64 {
				t.Errorf("read back: output %d, reasoning %d, want 114, 64", *r.Usage.OutputTokens, *r.Usage.ReasoningTokens)
			}
			break
		}
	}
}

// TestOutputOverflow: an output and reasoning whose sum is beyond a u64
// are read as the largest u64 (a saturated count), and the step comes
// back as it was.
func TestOutputOverflow(t *testing.T) {
	s := strings.Replace(reasoningStep, `"total":1600,"input":100,"output":200`, `"input":100,"output":18446744073709551615`, 1)
	for _, ev := range events(t, []byte(s)) {
		if r, ok := ev.Body.(*event.RoundFinished); ok && *r.Usage.OutputTokens != 18446744073709551615 {
			t.Errorf("output %d, want the largest u64", *r.Usage.OutputTokens)
		}
	}
	canon, _ := conv(t, []byte(s), opencode.Name, "canonical")
	if back, _ := conv(t, []byte(canon), "canonical", opencode.Name); back != s {
		t.Errorf("back:\n got %s\nwant %s", back, s)
	}
}

// TestStepMessageID: every line of a step written for a foreign source
// names one messageID, the step's, as opencode writes them, though the
// step_finish is held until the next line (which may begin the next
// step).
func TestStepMessageID(t *testing.T) {
	canon := `{"seq":0,"type":"session_started","schema":1,"source":{"dialect":"gemini"},"session_id":"s1"}
{"seq":1,"type":"turn_started","time":"2026-10-01T09:10:00.000000Z","turn_id":"t1"}
{"seq":2,"type":"message","time":"2026-10-01T09:10:01.000000Z","turn_id":"t1","text":"I'll look."}
{"seq":3,"type":"tool_call","time":"2026-10-01T09:10:01.000000Z","turn_id":"t1","call_id":"c1","name":"read","input":{}}
{"seq":4,"type":"tool_finished","time":"2026-10-01T09:10:01.500000Z","turn_id":"t1","call_id":"c1","status":"success","output":"x"}
{"seq":5,"type":"round_finished","time":"2026-10-01T09:10:02.000000Z","turn_id":"t1","stop_reason":"tool_use"}
{"seq":6,"type":"message","time":"2026-10-01T09:10:03.000000Z","turn_id":"t1","text":"Done."}
{"seq":7,"type":"round_finished","time":"2026-10-01T09:10:04.000000Z","turn_id":"t1","stop_reason":"end_turn"}
{"seq":8,"type":"turn_finished","time":"2026-10-01T09:10:04.000000Z","turn_id":"t1","status":"ok"}
{"seq":9,"type":"session_finished","time":"2026-10-01T09:10:04.000000Z","status":"ok"}
`
	out, _ := conv(t, []byte(canon), "canonical", opencode.Name)
	var steps [][]string // per step: each line's type and messageID
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		typ := gjson.Get(l, "type").Str
		if typ == "step_start" {
			steps = append(steps, nil)
		}
		if len(steps) == 0 {
			t.Fatalf("a line before the first step: %s", l)
		}
		steps[len(steps)-1] = append(steps[len(steps)-1], typ+" "+gjson.Get(l, "part.messageID").Str)
	}
	want := [][]string{
		{"step_start msg_evtool_1", "text msg_evtool_1", "tool_use msg_evtool_1", "step_finish msg_evtool_1"},
		{"step_start msg_evtool_2", "text msg_evtool_2", "step_finish msg_evtool_2"},
	}
	if !slices.EqualFunc(steps, want, slices.Equal) {
		t.Errorf("steps:\n got %q\nwant %q\n%s", steps, want, out)
	}
}
