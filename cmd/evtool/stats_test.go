package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evtool/evtool/internal/testkit/teststreams"
)

// byHand is what a capture's raw usage fields add up to, worked out by
// hand from the lines themselves (each figure's arithmetic is written
// beside it), in the canonical model's terms: disjoint counts (input
// without the cached part, output with reasoning inside it where the
// producer nests it) and the cost the producer states.
type byHand struct {
	file                                 string
	input, output, cacheRead, cacheWrite uint64
	reasoning                            *uint64 // nil: the stream does not state it
	cost                                 string  // "" : the stream states no cost
	noUsage                              bool    // the stream states no usage at all
}

func u64(n uint64) *uint64 { return &n }

// TestStatsByHand runs `evtool stats --format json` over every shared real
// capture and compares its token counts and cost with the figures worked
// out by hand from the raw usage fields.
func TestStatsByHand(t *testing.T) {
	next := filepath.Join(teststreams.Root(), "..", "shared", "dialects-next", "captures")
	corpus := filepath.Join(teststreams.Root(), "..", "shared", "corpus", "muse")
	cases := []byHand{
		// Codex: turn.completed.usage is the thread's total, nested:
		// cached_input_tokens is part of input_tokens.
		// {"input_tokens":15086,"cached_input_tokens":14080,"output_tokens":114}
		{file: filepath.Join(next, "codex", "meawoppl_failed_command.jsonl"),
			input: 15086 - 14080, cacheRead: 14080, output: 114},
		// {"input_tokens":22857,"cached_input_tokens":20736,"output_tokens":250}
		{file: filepath.Join(next, "codex", "meawoppl_file_change_original.jsonl"),
			input: 22857 - 20736, cacheRead: 20736, output: 250},
		// {"input_tokens":30669,"cached_input_tokens":28288,"output_tokens":205}
		{file: filepath.Join(next, "codex", "meawoppl_multi_command.jsonl"),
			input: 30669 - 28288, cacheRead: 28288, output: 205},
		// opencode run: one step_finish per step, disjoint, with its cost.
		// step 1: tokens {"input":21772,"output":110,"reasoning":0,"cache":{"read":0,"write":0}}, cost 0
		// step 2: tokens {"input":671,"output":8,"reasoning":0,"cache":{"read":21415,"write":0}}, cost 0.001
		{file: filepath.Join(next, "opencode", "takopi_run_json_success.jsonl"),
			input: 21772 + 671, output: 110 + 8, cacheRead: 0 + 21415, cacheWrite: 0 + 0, reasoning: u64(0 + 0), cost: "0.001"},
		// opencode server bus: the finished step's part is the one with
		// usage ({"total":8755,"input":523,"output":4,"reasoning":36,
		// "cache":{"write":0,"read":8192}}, cost 0; 523+4+36+8192 = 8755:
		// opencode counts reasoning beside output, and the canonical
		// output, which holds it, is 4+36 = 40); the earlier
		// message.updated lines restate the assistant message with zeros
		// while it runs.
		{file: filepath.Join(next, "opencode", "meawoppl_server_event_stream.jsonl"),
			input: 523, output: 4 + 36, cacheRead: 8192, cacheWrite: 0, reasoning: u64(36), cost: "0"},
		// Claude: one result. result.usage is the main model's (sonnet):
		// {"input_tokens":4,"cache_creation_input_tokens":7281,
		// "cache_read_input_tokens":40618,"output_tokens":576}; modelUsage
		// adds the subagent's model (haiku): inputTokens 573, outputTokens
		// 134, cacheReadInputTokens 7699, cacheCreationInputTokens 7824.
		// total_cost_usd 0.0763163 = 0.0117929 (haiku) + 0.0645234 (sonnet).
		{file: filepath.Join(next, "claude", "meawoppl_explore_count_files.jsonl"),
			input: 4 + 573, output: 576 + 134, cacheRead: 40618 + 7699, cacheWrite: 7281 + 7824, cost: "0.0763163"},
	}
	muse, _ := filepath.Glob(filepath.Join(corpus, "*.jsonl"))
	for _, f := range muse {
		// muse 1.0 journals state no usage and no cost.
		cases = append(cases, byHand{file: f, noUsage: true})
	}
	for _, c := range cases {
		t.Run(filepath.Base(c.file), func(t *testing.T) {
			out, stderr, code := evtool(t, nil, "stats", "--format", "json", c.file)
			if code != 0 {
				t.Fatalf("stats exited %d:\n%s", code, stderr)
			}
			var r struct {
				Runs []struct {
					Tokens *struct {
						Input      *uint64 `json:"input"`
						Output     *uint64 `json:"output"`
						CacheRead  *uint64 `json:"cache_read"`
						CacheWrite *uint64 `json:"cache_write"`
						Reasoning  *uint64 `json:"reasoning"`
					} `json:"tokens"`
					Cost *string `json:"cost_usd"`
				} `json:"runs"`
			}
			dec := json.NewDecoder(strings.NewReader(out))
			dec.UseNumber()
			if err := dec.Decode(&r); err != nil || len(r.Runs) != 1 {
				t.Fatalf("%v: %s", err, out)
			}
			run := r.Runs[0]
			if c.noUsage {
				if run.Tokens != nil || run.Cost != nil {
					t.Errorf("usage %s, want none (the stream states none)", out)
				}
				return
			}
			if run.Tokens == nil {
				t.Fatalf("no tokens: %s", out)
			}
			tk := run.Tokens
			check := func(what string, got *uint64, want uint64) {
				if got == nil || *got != want {
					t.Errorf("%s: got %v, want %d", what, deref(got), want)
				}
			}
			check("input", tk.Input, c.input)
			check("output", tk.Output, c.output)
			check("cache read", tk.CacheRead, c.cacheRead)
			if c.cacheWrite != 0 || tk.CacheWrite != nil {
				check("cache write", tk.CacheWrite, c.cacheWrite)
			}
			if c.reasoning != nil {
				check("reasoning", tk.Reasoning, *c.reasoning)
			}
			switch {
			case c.cost == "" && run.Cost != nil:
				t.Errorf("cost %s, want none (the stream states none)", *run.Cost)
			case c.cost != "" && (run.Cost == nil || *run.Cost != c.cost):
				t.Errorf("cost %v, want %s", run.Cost, c.cost)
			}
		})
	}
}

func deref(p *uint64) any {
	if p == nil {
		return "absent"
	}
	return *p
}

// TestStatsClaudeRunningCost: Claude Code's result.total_cost_usd is a
// running total for the process, so a process with two results states
// 0.0077 and then 0.0148858, and the run cost 0.0148858, not their sum
// 0.0226658. The claude adapter turns each result into the turn's own
// share (0.0077 and 0.0071858: adapters/claude/cost.go) and the session
// into the last total; stats takes one level of the two, and the usage
// report spreads the same figure over the turns, never adding both.
func TestStatsClaudeRunningCost(t *testing.T) {
	file := filepath.Join(teststreams.Root(), "adapters", "claude", "testdata", "written_two_prompts_running_cost.jsonl")
	for _, args := range [][]string{
		{"stats", "--format", "json", file},
		{"usage", "--by", "day,model", "-z", "UTC", "--format", "json", file},
		{"usage", "--by", "session", "-z", "UTC", "--format", "json", file},
	} {
		out, stderr, code := evtool(t, nil, args...)
		if code != 0 {
			t.Fatalf("%v exited %d:\n%s", args, code, stderr)
		}
		if !strings.Contains(out, `"cost_usd": "0.0148858"`) || strings.Contains(out, "0.0226658") {
			t.Errorf("%v: want the cost 0.0148858 (the last running total), got\n%s", args, out)
		}
	}
}
