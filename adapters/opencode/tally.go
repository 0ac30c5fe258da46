package opencode

import (
	"encoding/json"
	"math"
	"math/big"
	"strings"

	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/exact"
)

// tally sums the usage of steps: opencode states tokens and cost per step
// and no total. Counts saturate at the largest u64; costs are summed as
// exact decimals, never through float64.
type tally struct {
	steps                               int
	in, out, reason, read, write, total counter
	cost                                *big.Rat
	scale                               int // decimal places the cost sum needs
	noCost                              bool
}

type counter struct {
	n    uint64
	seen bool
}

func (c *counter) add(p *uint64) {
	if p == nil {
		return
	}
	c.seen = true
	if c.n > math.MaxUint64-*p {
		c.n = math.MaxUint64
		return
	}
	c.n += *p
}

func (c *counter) get() *uint64 {
	if !c.seen {
		return nil
	}
	n := c.n
	return &n
}

// add counts one step's usage.
func (t *tally) add(u *event.Usage) {
	if u == nil {
		return
	}
	t.steps++
	t.in.add(u.InputTokens)
	t.out.add(u.OutputTokens)
	t.reason.add(u.ReasoningTokens)
	t.read.add(u.CacheReadTokens)
	t.write.add(u.CacheCreationTokens)
	t.total.add(u.TotalTokens)
	if u.CostUSD == "" {
		t.noCost = true
		return
	}
	r, ok := new(big.Rat).SetString(string(u.CostUSD))
	if !ok {
		t.noCost = true
		return
	}
	if t.cost == nil {
		t.cost = new(big.Rat)
	}
	t.cost.Add(t.cost, r)
	t.scale = max(t.scale, decimals(string(u.CostUSD)))
}

// usage returns the sums, or nil when no step stated any usage. A cost
// sum is given only when every step stated its cost.
func (t *tally) usage() *event.Usage {
	if t.steps == 0 {
		return nil
	}
	u := &event.Usage{
		InputTokens: t.in.get(), OutputTokens: t.out.get(), ReasoningTokens: t.reason.get(),
		CacheReadTokens: t.read.get(), CacheCreationTokens: t.write.get(), TotalTokens: t.total.get(),
	}
	if t.cost != nil && !t.noCost {
		u.CostUSD = json.Number(exact.Decimal(t.cost, t.scale))
	}
	return u
}

// decimals returns how many decimal places a JSON number's exact value
// needs: those after its point, less its exponent.
func decimals(num string) int {
	mant, exp := num, 0
	if i := strings.IndexAny(num, "eE"); i >= 0 {
		mant = num[:i]
		e := num[i+1:]
		neg := strings.HasPrefix(e, "-")
		e = strings.TrimLeft(e, "+-")
		for _, c := range e {
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
