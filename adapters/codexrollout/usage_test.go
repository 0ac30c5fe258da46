package codexrollout_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/evtool/evtool/adapters/codexrollout"
	"github.com/evtool/evtool/dialecttest"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/evtool/evtool/internal/testkit/teststreams"
	"github.com/tidwall/gjson"
)

// sample is the real rollout of Codex 0.39.0 (../shared/ondisk/captures).
var sample = filepath.Join(teststreams.Root(), "..", "shared", "ondisk", "captures", "codex", "vibecodingtracker_codex-0.39.0_01996135.jsonl")

// TestRealSampleUsage holds the decoder to the sample's usage, computed by
// hand from the file.
//
// Its last token_count (line 104) states the thread's running total:
//
//	input_tokens 270530, cached_input_tokens 136832, output_tokens 12551,
//	reasoning_output_tokens 9536, total_tokens 283081
//
// Its first (line 7) states a total equal to its last_token_usage (5645,
// 5504, 810, 640, 6455), and each of its 19 totals is above the one before,
// so what the totals add, summed, is the last total. Disjoint:
//
//	input      = 270530 − 136832 = 133698
//	cache read = 136832
//	output     = 12551 (of which reasoning 9536)
//	total      = 270530 + 12551 = 283081
//
// The file confirms total = input + output (270530 + 12551 = 283081, its
// own total_tokens), and the 19 last_token_usage.total_tokens add up to it:
// 6455 + 6066 + 7460 + 7750 + 11050 + 11922 + 14505 + 13335 + 14597 +
// 15169 + 18430 + 17767 + 17845 + 17972 + 18041 + 18166 + 20124 + 22269 +
// 24158 = 283081.
func TestRealSampleUsage(t *testing.T) {
	if _, err := os.Stat(sample); err != nil {
		t.Skipf("the shared capture is not here: %v", err)
	}
	const (
		input, cacheRead, output, reasoning, total = 133698, 136832, 12551, 9536, 283081
	)
	// The file's own figures, as the comment reads them.
	var lastSum, rounds uint64
	var final gjson.Result
	for _, l := range dialecttest.ReadLines(t, sample) {
		info := gjson.Get(l, "payload.info")
		if gjson.Get(l, "payload.type").Str != "token_count" || !info.IsObject() {
			continue
		}
		n, msg := jsonobj.ParseUint(info.Get("last_token_usage.total_tokens"), jsonobj.U64)
		if msg != "" {
			t.Fatal(msg)
		}
		lastSum += n
		rounds++
		final = info.Get("total_token_usage")
	}
	if lastSum != total || rounds != 19 {
		t.Fatalf("the file's last_token_usage totals add up to %d over %d token_count lines, want %d over 19", lastSum, rounds, total)
	}
	if in, out := final.Get("input_tokens").Uint(), final.Get("output_tokens").Uint(); in+out != total || final.Get("total_tokens").Uint() != total {
		t.Fatalf("the last total is not input + output: %s", final.Raw)
	}

	evs := dialecttest.DecodeStream(t, codexrollout.Dialect{}, dialecttest.ReadLines(t, sample)...)
	var sum [5]uint64
	var usages int
	var fin *event.Usage
	for _, ev := range evs {
		switch b := ev.Body.(type) {
		case *event.Usage:
			usages++
			for i, p := range []*uint64{b.InputTokens, b.CacheReadTokens, b.OutputTokens, b.ReasoningTokens, b.TotalTokens} {
				if p == nil {
					t.Fatalf("usage event without count %d: %+v", i, b)
				}
				sum[i] += *p
			}
		case *event.SessionFinished:
			fin = b.Usage
		}
	}
	want := [5]uint64{input, cacheRead, output, reasoning, total}
	if usages != 19 || sum != want {
		t.Errorf("usage events: %d adding to %v, want 19 adding to %v", usages, sum, want)
	}
	if fin == nil || *fin.InputTokens != input || *fin.CacheReadTokens != cacheRead || *fin.OutputTokens != output ||
		*fin.ReasoningTokens != reasoning || *fin.TotalTokens != total || fin.CacheCreationTokens != nil {
		t.Errorf("session_finished.usage %+v, want %v", fin, want)
	}
}

// TestStreamUsage holds each test stream's session usage to the figure its
// golden states, reviewed by hand (docs/dialects/codex-rollout.md): what a
// stream's own lines added, a fork's copied history left out.
func TestStreamUsage(t *testing.T) {
	cases := []struct {
		stream string
		want   [5]uint64 // input, cache read, output, reasoning, total
	}{
		// 8000/6000/400/256 first, then 19000/14000/900/512 (re-emitted
		// and info:null lines add nothing).
		{"cli_0.46_tools", [5]uint64{5000, 14000, 900, 512, 19900}},
		// The copy ends at 150000/120000/3000/800; the fork's own total
		// is 156000/124000/3300/900.
		{"fork_replay", [5]uint64{2000, 4000, 300, 100, 6300}},
		{"fork_preserved", [5]uint64{2000, 4000, 200, 60, 6200}},
		{"fork_ordinal", [5]uint64{2000, 6000, 400, 100, 8400}},
		{"fork_late", [5]uint64{1000, 4000, 200, 50, 5200}},
		// A subagent prompted at once: the copy ends at its first total,
		// after the pause its request took (with a warning).
		{"fork_midturn", [5]uint64{1000, 4000, 200, 50, 5200}},
		// 240000/200000/3000/1000, the refill to zeros (nothing), then
		// 12000/0/800/300 and 20000/6000/1000/400 counted from it.
		{"compaction", [5]uint64{54000, 206000, 4000, 1400, 264000}},
	}
	for _, c := range cases {
		evs := dialecttest.DecodeStream(t, codexrollout.Dialect{}, dialecttest.ReadLines(t, filepath.Join("testdata", c.stream+".jsonl"))...)
		fin, ok := evs[len(evs)-1].Body.(*event.SessionFinished)
		if !ok || fin.Usage == nil {
			t.Errorf("%s: no session_finished with usage", c.stream)
			continue
		}
		u := fin.Usage
		got := [5]uint64{*u.InputTokens, *u.CacheReadTokens, *u.OutputTokens, *u.ReasoningTokens, *u.TotalTokens}
		if got != c.want {
			t.Errorf("%s: usage %v, want %v", c.stream, got, c.want)
		}
	}
	// A fork whose own lines cannot be told counts nothing, and says so.
	evs := dialecttest.DecodeStream(t, codexrollout.Dialect{}, dialecttest.ReadLines(t, filepath.Join("testdata", "fork_unended.jsonl"))...)
	fin := evs[len(evs)-1].Body.(*event.SessionFinished)
	if n, ok := evs[len(evs)-2].Body.(*event.Notice); fin.Usage != nil || !ok || n.Severity != event.SeverityWarning {
		t.Errorf("fork_unended: usage %+v, the event before it %T", fin.Usage, evs[len(evs)-2].Body)
	}
}

// A fork's own first turn that comes within a minute of the copy, from a
// build that writes no started_at (or no task events at all), is the
// child's: the copy Codex writes in one burst ends at the first pause
// between two lines. fork_backtrack is the TUI's Esc-Esc backtrack (no
// task events, the edited prompt 8 seconds after the copy), fork_nostart
// a fork whose task_started has no started_at, prompted 30 seconds after.
func TestForkOwnTurnSoonAfterCopy(t *testing.T) {
	cases := []struct {
		stream string
		turns  int
		want   [5]uint64 // input, cache read, output, reasoning, total
	}{
		// The copy ends at 10000/8000/500/100; the fork's own total is
		// 36000/28000/1500/400.
		{"fork_backtrack", 2, [5]uint64{6000, 20000, 1000, 300, 27000}},
		// The copy ends at 25000/20000/900/200; the fork's own total is
		// 40000/30000/1200/260.
		{"fork_nostart", 2, [5]uint64{5000, 10000, 300, 60, 15300}},
	}
	for _, c := range cases {
		evs := dialecttest.DecodeStream(t, codexrollout.Dialect{}, dialecttest.ReadLines(t, filepath.Join("testdata", c.stream+".jsonl"))...)
		turns := 0
		for _, e := range evs {
			switch b := e.Body.(type) {
			case *event.TurnStarted:
				turns++
			case *event.Notice:
				t.Errorf("%s: notice %q", c.stream, b.Message)
			}
		}
		fin, ok := evs[len(evs)-1].Body.(*event.SessionFinished)
		if !ok || fin.Usage == nil {
			t.Errorf("%s: no session_finished with usage", c.stream)
			continue
		}
		u := fin.Usage
		got := [5]uint64{*u.InputTokens, *u.CacheReadTokens, *u.OutputTokens, *u.ReasoningTokens, *u.TotalTokens}
		if got != c.want || turns != c.turns {
			t.Errorf("%s: %d turns, usage %v; want %d turns, %v", c.stream, turns, got, c.turns, c.want)
		}
	}
}

// A mid-2025 rollout resumed by a newer build goes on in the newer line
// format: its bare items are read (they have no events), and its newer
// lines' items are the copies of their events, line by line, so that no
// message or turn is read twice.
func TestLegacyResumedInNewerFormat(t *testing.T) {
	evs := dialecttest.DecodeStream(t, codexrollout.Dialect{}, dialecttest.ReadLines(t, filepath.Join("testdata", "legacy_resumed.jsonl"))...)
	var turns int
	var said []string
	for _, e := range evs {
		switch b := e.Body.(type) {
		case *event.TurnStarted:
			turns++
		case *event.UserMessage:
			said = append(said, "user: "+b.Text)
		case *event.Message:
			said = append(said, "model: "+b.Text)
		case *event.Reasoning:
			said = append(said, "reasoning: "+b.Text)
		}
	}
	want := []string{"user: list files", "reasoning: **Listing**", "model: a", "user: thanks", "model: welcome",
		"user: resume: continue", "reasoning: **Thinking**", "model: continued"}
	if turns != 3 || !slices.Equal(said, want) {
		t.Errorf("%d turns, %q; want 3 turns, %q", turns, said, want)
	}
}

// A copy whose task_started states started_at ends only by it (or a
// minute after the copy began): a pause inside it does not end it.
func TestForkPauseInCopyWithStartedAt(t *testing.T) {
	lines := dialecttest.ReadLines(t, filepath.Join("testdata", "fork_replay.jsonl"))
	for i := 7; i < 14; i++ { // lines 8 to 14: five seconds later
		lines[i] = strings.Replace(strings.Replace(lines[i], "T10:00:00.", "T10:00:05.", 1), "T10:00:01.", "T10:00:06.", 1)
	}
	evs := dialecttest.DecodeStream(t, codexrollout.Dialect{}, lines...)
	u := evs[len(evs)-1].Body.(*event.SessionFinished).Usage
	got := [5]uint64{*u.InputTokens, *u.CacheReadTokens, *u.OutputTokens, *u.ReasoningTokens, *u.TotalTokens}
	if want := [5]uint64{2000, 4000, 300, 100, 6300}; got != want {
		t.Errorf("usage %v, want %v", got, want)
	}
}
