package geminichat_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/evtool/evtool/adapters/geminichat"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/dialecttest"
	"github.com/evtool/evtool/internal/testkit/teststreams"
	"github.com/evtool/evtool/stats"
	"github.com/evtool/evtool/stream"
	"github.com/tidwall/gjson"
)

// sample is the real chat of Gemini CLI (see docs/dialects/gemini-chat.md).
func sample(t *testing.T) string {
	p := filepath.Join(teststreams.Root(), "..", "shared", "ondisk", "captures", "gemini-cli", "vibecodingtracker_gemini_0ab84937.jsonl")
	if _, err := os.Stat(p); err != nil {
		t.Skipf("the real sample is not here: %v", err)
	}
	return p
}

// TestSampleUsage: the usage of the real chat, each model response
// counted once in its last form, equals the figures computed by hand from
// its tokens. The chat has 11 gemini records for 6 responses (5 written
// twice, 0752be32 once), with these tokens (input, output, cached,
// thoughts, tool, total):
//
//	52e62e67  13906    185      0  306  0  14397
//	a4173396  29082     89   8156  642  0  29813
//	cda8a342  38324   1172      0  232  0  39728
//	edf94f05  40914    351  32637  161  0  41426
//	0752be32  40122     89   8158  348  0  40559
//	42a121a5  40238    266      0  452  0  40956
//
// input    13906 + 29082 + 38324 + 40914 + 40122 + 40238 = 202586
// cached   0 + 8156 + 0 + 32637 + 8158 + 0               =  48951
// output   185 + 89 + 1172 + 351 + 89 + 266              =   2152
// thoughts 306 + 642 + 232 + 161 + 348 + 452             =   2141
// total    14397 + 29813 + 39728 + 41426 + 40559 + 40956 = 206879
//
// Made disjoint: input_tokens = 202586 − 48951 + 0 (tool) = 153635, and
// 153635 + 48951 + 2152 + 2141 = 206879, the total. Summing every gemini
// line instead would count the five doubled responses twice.
//
// The figures are the session_finished's, and the sum of the six
// rounds' too.
func TestSampleUsage(t *testing.T) {
	f, err := os.Open(sample(t))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	run, err := stats.Read(f, f.Name(), stats.Options{Stream: stream.Options{Dialect: geminichat.Dialect{}},
		LineError: func(le *stream.LineError) { t.Errorf("line %d: %v", le.Line, le) }})
	if err != nil {
		t.Fatal(err)
	}
	if run.UsageFrom != stats.LevelSession {
		t.Errorf("usage from %q, want the session's", run.UsageFrom)
	}
	want := map[string]uint64{"input_tokens": 153635, "cache_read_tokens": 48951, "output_tokens": 2152, "thoughts_tokens": 2141, "total_tokens": 206879}
	for k, w := range want {
		if got, ok := run.Usage.Tokens[stats.Token(strings.TrimSuffix(k, "_tokens"))]; !ok || got != w {
			t.Errorf("%s: got %d (stated %v), want %d", k, got, ok, w)
		}
	}
	if len(run.Usage.Tokens) != len(want) {
		t.Errorf("tokens %v, want only %v", run.Usage.Tokens, want)
	}
	// The rounds add up to the same.
	sums := map[string]uint64{}
	for _, l := range read(t, dialect.DecodeOptions{}, dialecttest.ReadLines(t, sample(t))...) {
		if r := gjson.Parse(l); r.Get("type").Str == "round_finished" {
			r.Get("usage").ForEach(func(k, v gjson.Result) bool {
				n, err := strconv.ParseUint(v.Raw, 10, 64)
				if err != nil {
					t.Fatal(err)
				}
				sums[k.Str] += n
				return true
			})
		}
	}
	for k, w := range want {
		if sums[k] != w {
			t.Errorf("rounds' %s: %d, want %d", k, sums[k], w)
		}
	}
	if run.Rounds == nil || *run.Rounds != 6 {
		t.Errorf("rounds %v, want 6", run.Rounds)
	}
	if run.Turns == nil || *run.Turns != 2 {
		t.Errorf("turns %v, want 2", run.Turns)
	}
	if run.ToolCalls.Total != 12 || run.ToolCalls.ByStatus["success"] != 12 {
		t.Errorf("tool calls %+v, want 12, all success", run.ToolCalls)
	}
	if run.SessionID != "0ab84937-9fe7-4284-986a-33c832af0b6a" || len(run.Models) != 2 {
		t.Errorf("session %q, models %v", run.SessionID, run.Models)
	}
}
