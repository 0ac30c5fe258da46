package usagesum

import (
	"encoding/json"
	"math/big"
	"strings"

	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/exact"
)

// Tally sums usages into a total, for a producer that states usage per
// step or per message and no total (opencode's run output and its stored
// messages). Counts saturate; costs are added as exact decimals, never
// through float64; a sum, of a count or of the cost, is given only when
// every usage stated it.
type Tally struct {
	// N counts the usages added.
	N                                   int
	In, Out, Reason, Read, Write, Total Counter
	// Cost is the sum of the stated costs, nil before the first.
	Cost *big.Rat
	// Scale is the decimal places the cost sum needs.
	Scale int
	// NoCost says a usage stated no cost (or one that does not parse).
	NoCost bool
}

// Counter is one count of a Tally: its sum, whether any usage stated it
// (an unstated count is absent, not 0), and whether a usage added to a
// Tally left it out.
type Counter struct {
	N    uint64
	Seen bool
	// Missed says a usage added to a Tally did not state the count: the
	// sum of those that did is not the count of them all (a run whose
	// earlier steps predate opencode's tokens.total), so Get gives none.
	Missed bool
}

// Add adds a stated count (nil: not stated).
func (c *Counter) Add(p *uint64) {
	if p == nil {
		return
	}
	c.Seen = true
	c.N = Sat(c.N, *p)
}

// Get returns the sum, nil when no usage stated the count, or when a
// usage of a Tally did not (Missed).
func (c *Counter) Get() *uint64 {
	if !c.Seen || c.Missed {
		return nil
	}
	n := c.N
	return &n
}

// Add counts one usage (nil: nothing).
func (t *Tally) Add(u *event.Usage) {
	if u == nil {
		return
	}
	t.N++
	for _, c := range []struct {
		c *Counter
		p *uint64
	}{{&t.In, u.InputTokens}, {&t.Out, u.OutputTokens}, {&t.Reason, u.ReasoningTokens},
		{&t.Read, u.CacheReadTokens}, {&t.Write, u.CacheCreationTokens}, {&t.Total, u.TotalTokens}} {
		c.c.Add(c.p)
		c.c.Missed = c.c.Missed || c.p == nil
	}
	r, ok := new(big.Rat).SetString(string(u.CostUSD))
	if u.CostUSD == "" || !ok {
		t.NoCost = true
		return
	}
	if t.Cost == nil {
		t.Cost = new(big.Rat)
	}
	t.Cost.Add(t.Cost, r)
	t.Scale = max(t.Scale, Decimals(string(u.CostUSD)))
}

// Usage returns the sums, or nil when nothing was added.
func (t *Tally) Usage() *event.Usage {
	if t.N == 0 {
		return nil
	}
	u := &event.Usage{
		InputTokens: t.In.Get(), OutputTokens: t.Out.Get(), ReasoningTokens: t.Reason.Get(),
		CacheReadTokens: t.Read.Get(), CacheCreationTokens: t.Write.Get(), TotalTokens: t.Total.Get(),
	}
	if t.Cost != nil && !t.NoCost {
		u.CostUSD = json.Number(exact.Decimal(t.Cost, t.Scale))
	}
	return u
}

// Decimals returns how many decimal places a JSON number's exact value
// needs: those after its point, less its exponent (opencode writes small
// costs as 1.5e-7, as JavaScript prints them).
func Decimals(num string) int {
	mant, exp := num, 0
	if i := strings.IndexAny(num, "eE"); i >= 0 {
		mant = num[:i]
		e := num[i+1:]
		neg := strings.HasPrefix(e, "-")
		for _, c := range strings.TrimLeft(e, "+-") {
			exp = exp*10 + int(c-'0')
			if exp > 400 {
				break
			}
		}
		if neg {
			exp = -exp
		}
	}
	places := 0
	if i := strings.IndexByte(mant, '.'); i >= 0 {
		places = len(mant) - i - 1
	}
	return max(places-exp, 0)
}
