package claude_test

import (
	"strings"
	"testing"

	"github.com/evtool/evtool/adapters/claude"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/dialecttest"
	"github.com/evtool/evtool/event"
	"github.com/tidwall/gjson"
)

// Usage and cost as the reports read them: per model, per process, per
// message, and a cost the source does not state.

// counts renders a usage's token counts as input/output/cache read/cache
// write, "-" for a count not stated, and its cost after a space.
func counts(u *event.Usage) string {
	if u == nil {
		return "none"
	}
	var parts []string
	for _, p := range []*uint64{u.InputTokens, u.OutputTokens, u.CacheReadTokens, u.CacheCreationTokens} {
		if p == nil {
			parts = append(parts, "-")
			continue
		}
		parts = append(parts, itoa(*p))
	}
	return strings.Join(parts, "/") + " " + string(u.CostUSD)
}

func itoa(n uint64) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

// TestSubagentModel: in the real capture an Explore subagent answers on
// Haiku inside a Sonnet run. Its round is Haiku's (a model_configured of
// its agent before it), and the turn's tokens are every model's, as its
// cost is: result.usage (4/576/40618/7281) is the main thread's alone,
// and with it the rounds of the turn (main and subagent) would add up to
// more than the turn.
func TestSubagentModel(t *testing.T) {
	const sub = "toolu_01RmLUJdhjTMn56TnF9cMamW"
	evs := dialecttest.DecodeStream(t, claude.Dialect{}, dialecttest.ReadLines(t, capture)...)
	model := map[string]string{"": evs[0].Body.(*event.SessionStarted).Model}
	var roundModels []string
	var rounds event.Usage
	var turn *event.Usage
	for _, ev := range evs {
		switch b := ev.Body.(type) {
		case *event.ModelConfigured:
			if !ev.Synthetic {
				t.Errorf("model_configured of %q is not synthetic", ev.AgentID)
			}
			model[ev.AgentID] = b.Model
		case *event.RoundFinished:
			m, ok := model[ev.AgentID]
			if !ok {
				m = model[""]
			}
			roundModels = append(roundModels, m)
			for _, c := range [][2]**uint64{{&rounds.InputTokens, &b.Usage.InputTokens}, {&rounds.OutputTokens, &b.Usage.OutputTokens},
				{&rounds.CacheReadTokens, &b.Usage.CacheReadTokens}, {&rounds.CacheCreationTokens, &b.Usage.CacheCreationTokens}} {
				n := *(*c[1])
				if *c[0] != nil {
					n += **c[0]
				}
				*c[0] = &n
			}
		case *event.TurnFinished:
			turn = b.Usage
		}
	}
	if got := strings.Join(roundModels, " "); got != "claude-haiku-4-5-20251001 claude-sonnet-4-6 claude-sonnet-4-6" {
		t.Errorf("rounds' models %q, want the subagent's round on Haiku", got)
	}
	if model[sub] != "claude-haiku-4-5-20251001" {
		t.Errorf("the subagent's model %q", model[sub])
	}
	if got := counts(turn); got != "577/710/48317/15105 0.0763163" {
		t.Errorf("turn usage %s, want every model's 577/710/48317/15105 0.0763163", got)
	}
	if got := counts(&rounds); got != "7/78/40618/14980 " {
		t.Errorf("rounds add up to %s", got)
	}
	checkCanonical(t, evs)
}

// TestTwoProcessesAppended: two `claude -p` runs appended to one file. The
// second init names another session: a new process, whose running
// total_cost_usd (0.0123) starts at 0 and is not less the first run's
// (0.00123), and the session's usage adds both processes' modelUsage.
func TestTwoProcessesAppended(t *testing.T) {
	init2 := strings.ReplaceAll(rinit, `"session_id":"s"`, `"session_id":"s2"`)
	res1 := strings.Replace(rres, `"total_cost_usd":0.5`, `"total_cost_usd":0.05`, 1)
	res1 = strings.Replace(res1, `"costUSD":0.5`, `"costUSD":0.05`, 1)
	text2 := strings.ReplaceAll(text, `"session_id":"s"`, `"session_id":"s2"`)
	res2 := strings.ReplaceAll(rres, `"session_id":"s"`, `"session_id":"s2"`)
	lines := []string{rinit, text, res1, init2, text2, res2}
	evs := dialecttest.DecodeStream(t, claude.Dialect{}, lines...)
	var costs []string
	notices := 0
	for _, ev := range evs {
		switch b := ev.Body.(type) {
		case *event.TurnFinished:
			costs = append(costs, string(b.Usage.CostUSD))
		case *event.Notice:
			if strings.Contains(b.Message, "s2") {
				notices++
			}
		}
	}
	if got := strings.Join(costs, " "); got != "0.05 0.5" {
		t.Errorf("turn costs %q, want 0.05 0.5 (each process's own)", got)
	}
	if notices != 1 {
		t.Errorf("%d notices of the new process, want 1", notices)
	}
	f := evs[len(evs)-1].Body.(*event.SessionFinished)
	if got := counts(f.Usage); got != "20/20/0/0 0.55" {
		t.Errorf("session usage %s, want both processes' 20/20/0/0 0.55", got)
	}
	back, losses := dialecttest.Encode(t, claude.Dialect{}, dialect.EncodeOptions{}, dialecttest.Canonical(t, evs)...)
	if back != strings.Join(lines, "\n")+"\n" || !losses.Empty() {
		t.Errorf("not written back as it was (losses %v):\n%s", losses.List(), back)
	}
	// The same session's init again (streaming input) is the same process.
	evs = dialecttest.DecodeStream(t, claude.Dialect{}, rinit, text, res1, rinit, text, rres)
	costs = nil
	for _, ev := range evs {
		if b, ok := ev.Body.(*event.TurnFinished); ok {
			costs = append(costs, string(b.Usage.CostUSD))
		}
	}
	if got := strings.Join(costs, " "); got != "0.05 0.45" {
		t.Errorf("one process's turn costs %q, want 0.05 0.45", got)
	}
}

// TestMessageDeltaUsage: with --include-partial-messages the message's
// final usage comes in its stream_event message_delta (300 output
// tokens), after the assistant line's snapshot (1). A run killed before
// its result has only its rounds to tell what it spent.
func TestMessageDeltaUsage(t *testing.T) {
	se := func(ev string) string {
		return `{"type":"stream_event","event":` + ev + `,"parent_tool_use_id":null,"uuid":"u","session_id":"s"}`
	}
	lines := []string{rinit,
		se(`{"type":"message_start","message":{"model":"m","id":"msg_t","type":"message","role":"assistant","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}}}`),
		text,
		se(`{"type":"content_block_stop","index":0}`),
		se(`{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"input_tokens":1,"output_tokens":300}}`),
		se(`{"type":"message_stop"}`),
	}
	evs := dialecttest.DecodeStream(t, claude.Dialect{}, lines...)
	var rounds []string
	for _, ev := range evs {
		if b, ok := ev.Body.(*event.RoundFinished); ok {
			rounds = append(rounds, counts(b.Usage))
		}
	}
	if got := strings.Join(rounds, ", "); got != "1/300/-/- " {
		t.Errorf("rounds %q, want one of 1/300/-/- (the message_delta's output)", got)
	}
	back, _ := dialecttest.Encode(t, claude.Dialect{}, dialect.EncodeOptions{}, dialecttest.Canonical(t, evs)...)
	if back != strings.Join(lines, "\n")+"\n" {
		t.Errorf("not written back as it was:\n%s", back)
	}
}

// TestUnstatedCost: a run from another dialect whose turn states tokens
// and no cost is written with the total_cost_usd Claude Code's result
// requires, 0, counted as a loss, and read back as an unknown cost,
// never a stated $0. Rounds that all state a cost (a transcript's
// costUSD) give the turn their sum.
func TestUnstatedCost(t *testing.T) {
	const head = `{"seq":0,"type":"session_started","schema":1,"source":{"dialect":"basis"},"session_id":"s1","model":"m1","workspace":"/w"}`
	for _, c := range []struct {
		name     string
		lines    []string
		written  string // the result's total_cost_usd
		readBack string // the turn's cost read back
		unstated int    // claude/cost-unknown counted
	}{
		{"tokens without a cost", []string{
			`{"seq":1,"type":"turn_finished","turn_id":"t1","status":"ok","usage":{"input_tokens":5,"output_tokens":7}}`,
		}, "0", "", 1},
		{"rounds that state their costs", []string{
			`{"seq":1,"type":"round_finished","turn_id":"t1","usage":{"input_tokens":5,"output_tokens":7,"cost_usd":0.0123}}`,
			`{"seq":2,"type":"round_finished","turn_id":"t1","usage":{"input_tokens":1,"output_tokens":2,"cost_usd":0.000321}}`,
			`{"seq":3,"type":"turn_finished","turn_id":"t1","status":"ok"}`,
		}, "0.012621", "0.012621", 0},
		{"a round without a cost", []string{
			`{"seq":1,"type":"round_finished","turn_id":"t1","usage":{"input_tokens":5,"output_tokens":7,"cost_usd":0.0123}}`,
			`{"seq":2,"type":"round_finished","turn_id":"t1","usage":{"input_tokens":1,"output_tokens":2}}`,
			`{"seq":3,"type":"turn_finished","turn_id":"t1","status":"ok"}`,
		}, "0", "", 1},
		// A stated 0 is not a cost Claude Code writes beside an empty
		// modelUsage: unknown too, and counted.
		{"a stated cost of 0", []string{
			`{"seq":1,"type":"turn_finished","turn_id":"t1","status":"ok","usage":{"input_tokens":5,"output_tokens":7,"cost_usd":0}}`,
		}, "0", "", 1},
		{"no usage at all", []string{
			`{"seq":1,"type":"turn_finished","turn_id":"t1","status":"ok"}`,
		}, "0", "", 1},
		{"a stated cost", []string{
			`{"seq":1,"type":"turn_finished","turn_id":"t1","status":"ok","usage":{"input_tokens":5,"output_tokens":7,"cost_usd":0.25}}`,
		}, "0.25", "0.25", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, losses := dialecttest.Encode(t, claude.Dialect{}, dialect.EncodeOptions{}, append([]string{head}, c.lines...)...)
			assertAccepted(t, out)
			checkCounts(t, losses, map[string]int{"claude/cost-unknown": c.unstated})
			var written string
			for _, l := range dialecttest.Lines(out) {
				if r := gjson.Parse(l); r.Get("type").Str == "result" {
					written = r.Get("total_cost_usd").Raw
				}
			}
			if written != c.written {
				t.Errorf("total_cost_usd %s, want %s", written, c.written)
			}
			evs := dialecttest.DecodeStream(t, claude.Dialect{}, dialecttest.Lines(out)...)
			for _, ev := range evs {
				switch b := ev.Body.(type) {
				case *event.TurnFinished:
					if got := string(b.Usage.CostUSD); got != c.readBack {
						t.Errorf("turn cost read back %q, want %q", got, c.readBack)
					}
				case *event.SessionFinished:
					if b.Usage == nil || b.Usage.InputTokens == nil || string(b.Usage.CostUSD) != c.readBack {
						t.Errorf("session usage read back %s, want the turn's tokens and cost %q", counts(b.Usage), c.readBack)
					}
				}
			}
		})
	}
}
