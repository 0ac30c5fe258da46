package claude_test

import (
	"strings"
	"testing"

	"github.com/evtool/evtool/adapters/acp"
	"github.com/evtool/evtool/adapters/claude"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/dialecttest"
	"github.com/evtool/evtool/event"
	"github.com/tidwall/gjson"
)

// checkCanonical writes events as canonical and requires the canonical
// dialect to accept them: evtool must accept its own output.
func checkCanonical(t *testing.T, evs []*event.Event) {
	t.Helper()
	can, err := dialect.Lookup("canonical")
	if err != nil {
		t.Skip("canonical is not linked into this test binary")
	}
	dialecttest.Accepted(t, can, strings.Join(dialecttest.Canonical(t, evs), "\n")+"\n")
}

func turnStarts(evs []*event.Event) []*event.TurnStarted {
	var out []*event.TurnStarted
	for _, ev := range evs {
		if b, ok := ev.Body.(*event.TurnStarted); ok {
			out = append(out, b)
		}
	}
	return out
}

// With --include-partial-messages each message opens with a stream_event
// message_start, a line that otherwise only rides along: the turn it
// begins must still start.
func TestPartialMessagesStartTheTurn(t *testing.T) {
	evs := dialecttest.DecodeStream(t, claude.Dialect{}, dialecttest.ReadLines(t, "testdata/written_partial_messages.jsonl")...)
	if n := len(turnStarts(evs)); n != 1 {
		t.Fatalf("%d turn_started, want 1", n)
	}
	checkCanonical(t, evs)
}

// total_cost_usd is the process's running total: the second result's
// 0.0148858 includes the first turn's 0.0077, so the second turn's own
// cost is 0.0071858, exactly. Tokens (result.usage) are per turn already.
func TestRunningCostIsSplitByTurn(t *testing.T) {
	evs := dialecttest.DecodeStream(t, claude.Dialect{}, dialecttest.ReadLines(t, "testdata/written_two_prompts_running_cost.jsonl")...)
	var costs []string
	var out []uint64
	for _, ev := range evs {
		if b, ok := ev.Body.(*event.TurnFinished); ok {
			costs = append(costs, string(b.Usage.CostUSD))
			out = append(out, *b.Usage.OutputTokens)
		}
	}
	if strings.Join(costs, " ") != "0.0077 0.0071858" || len(out) != 2 || out[0] != 40 || out[1] != 60 {
		t.Errorf("turn costs %q, output tokens %v; want 0.0077 0.0071858 and 40 60", costs, out)
	}
	checkCanonical(t, evs)
}

// A rate_limit_event (and hook lines) come before the echoed prompt in
// CLI 2.1: the turn's prompt is still the user line's text.
func TestPromptAfterOtherLines(t *testing.T) {
	evs := dialecttest.DecodeStream(t, claude.Dialect{}, dialecttest.ReadLines(t, "testdata/written_two_prompts_running_cost.jsonl")...)
	var prompts []string
	for _, ts := range turnStarts(evs) {
		p := "<nil>"
		if ts.Prompt != nil {
			p = *ts.Prompt
		}
		prompts = append(prompts, p)
	}
	if strings.Join(prompts, "|") != "What does src/lib.rs export?|And its tests?" {
		t.Errorf("prompts %q", prompts)
	}
	// The prompt's turn_started still comes before the rate limit's notice.
	for i, ev := range evs {
		if n, ok := ev.Body.(*event.Notice); ok && strings.HasPrefix(n.Message, "rate limit") {
			if _, ok := evs[i-1].Body.(*event.TurnStarted); !ok {
				t.Errorf("event %d before the rate limit notice is %s, want turn_started", i-1, evs[i-1].Type())
			}
		}
	}
}

// An interrupt on a CLI without terminal_reason shows only as Claude
// Code's marker in the conversation: the turn is cancelled, not failed.
func TestInterruptMarkerCancels(t *testing.T) {
	lines := dialecttest.ReadLines(t, "testdata/written_interrupted_old_fields.jsonl")
	for i, l := range lines {
		lines[i] = strings.Replace(strings.Replace(l, `,"terminal_reason":"aborted_tools"`, "", 1),
			`"content":"Interrupted by user"`, `"content":"[Request interrupted by user for tool use]"`, 1)
	}
	for _, ev := range dialecttest.DecodeStream(t, claude.Dialect{}, lines...) {
		if b, ok := ev.Body.(*event.TurnFinished); ok && b.Status != event.StatusCancelled {
			t.Errorf("turn_finished status %q, want cancelled", b.Status)
		}
	}
	// Without the marker, an error_during_execution stays an error.
	for i, l := range lines {
		lines[i] = strings.Replace(l, "[Request interrupted by user for tool use]", "boom", 1)
	}
	for _, ev := range dialecttest.DecodeStream(t, claude.Dialect{}, lines...) {
		if b, ok := ev.Body.(*event.TurnFinished); ok && b.Status != event.StatusError {
			t.Errorf("turn_finished status %q, want error", b.Status)
		}
	}
}

// The ACP transcript of two prompts: each session/prompt carries the
// user's text and the text is not echoed back; the prompt_suggestion after
// the last result stays in the last turn rather than opening an empty one.
func TestACPTranscriptTurns(t *testing.T) {
	out := toACP(t, "testdata/written_two_prompts_running_cost.jsonl", &acp.Config{Profile: acp.Stable, Transcript: true})
	var prompts []string
	c := acp.Dialect{}.NewChecker(dialect.CheckOptions{})
	lines := dialecttest.Lines(out)
	for i, l := range lines {
		r := gjson.Parse(l)
		if r.Get("method").Str == "session/prompt" {
			prompts = append(prompts, r.Get("params.prompt.0.text").Str)
		}
		if r.Get("params.update.sessionUpdate").Str == "user_message_chunk" {
			t.Errorf("line %d echoes the user: %s", i+1, l)
		}
		c.Line([]byte(l), i+1, func(f dialect.Finding) { t.Errorf("line %d: %s: %s", f.Line, f.Rule, f.Message) })
	}
	c.End(len(lines), func(f dialect.Finding) { t.Errorf("%s: %s", f.Rule, f.Message) })
	if strings.Join(prompts, "|") != "What does src/lib.rs export?|And its tests?" {
		t.Errorf("prompts %q\n%s", prompts, out)
	}
	if !strings.Contains(lines[len(lines)-2], "suggested prompt") {
		t.Errorf("the prompt_suggestion is not the last turn's last update:\n%s", out)
	}
}

// toACP reads a Claude Code stream and writes it as ACP with cfg.
func toACP(t *testing.T, path string, cfg *acp.Config) string {
	t.Helper()
	evs := dialecttest.DecodeStream(t, claude.Dialect{}, dialecttest.ReadLines(t, path)...)
	out, _ := dialecttest.Encode(t, acp.Dialect{}, dialect.EncodeOptions{Config: cfg}, dialecttest.Canonical(t, evs)...)
	return out
}
