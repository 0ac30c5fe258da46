package usagesum

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/evtool/evtool/event"
)

func u64(n uint64) *uint64 { return &n }

func TestTally(t *testing.T) {
	var tl Tally
	if tl.Usage() != nil {
		t.Fatal("an empty tally states usage")
	}
	// 0.1 + 1.5e-7 = 0.10000015 exactly; input saturates; output
	// unstated; cache read and total stated by one usage of two: not the
	// count of both (a run whose first steps predate opencode's
	// tokens.total), so unstated too; reasoning stated by both.
	tl.Add(&event.Usage{InputTokens: u64(math.MaxUint64 - 1), ReasoningTokens: u64(2), CostUSD: json.Number("0.1")})
	tl.Add(&event.Usage{InputTokens: u64(5), ReasoningTokens: u64(3), CacheReadTokens: u64(7), TotalTokens: u64(1020), CostUSD: json.Number("1.5e-7")})
	u := tl.Usage()
	if *u.InputTokens != math.MaxUint64 || u.OutputTokens != nil || u.CacheReadTokens != nil || u.TotalTokens != nil ||
		*u.ReasoningTokens != 5 || u.CostUSD != "0.10000015" {
		t.Errorf("usage %+v cost %s", u, u.CostUSD)
	}
	// A usage without a cost leaves the sum unknown, never partial.
	tl.Add(&event.Usage{InputTokens: u64(1)})
	if c := tl.Usage().CostUSD; c != "" {
		t.Errorf("cost %q after a usage with none", c)
	}
}

func TestDecimals(t *testing.T) {
	for in, want := range map[string]int{"1": 0, "0.25": 2, "1.5e-7": 8, "2E+3": 0, "1.25e1": 1} {
		if got := Decimals(in); got != want {
			t.Errorf("Decimals(%s) = %d, want %d", in, got, want)
		}
	}
}
