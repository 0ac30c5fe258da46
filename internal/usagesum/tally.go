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
// through float64, and a sum is given only when every usage stated its
// cost.
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

// Counter is one count of a Tally: its sum, and whether any usage
// stated it (an unstated count is absent, not 0).
type Counter struct {
	N    uint64
	Seen bool
}

// Add adds a stated count (nil: not stated).
func (c *Counter) Add(p *uint64) {
	if p == nil {
		return
	}
	c.Seen = true
	c.N = Sat(c.N, *p)
}

// Get returns the sum, nil when no usage stated the count.
func (c *Counter) Get() *uint64 {
	if !c.Seen {
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
	t.In.Add(u.InputTokens)
	t.Out.Add(u.OutputTokens)
	t.Reason.Add(u.ReasoningTokens)
	t.Read.Add(u.CacheReadTokens)
	t.Write.Add(u.CacheCreationTokens)
	t.Total.Add(u.TotalTokens)
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
