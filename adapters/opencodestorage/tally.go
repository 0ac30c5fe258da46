package opencodestorage

import (
	"encoding/json"
	"math"
	"math/big"
	"strings"

	"github.com/evtool/evtool/event"
)

// tally sums the usage of assistant messages into a turn's or a session's
// total. Counts saturate at the largest u64 instead of wrapping; costs are
// added as exact decimals, never through float64, and a sum is given only
// when every message stated its cost.
type tally struct {
	n                                   int
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

// add counts one message's usage.
func (t *tally) add(u *event.Usage) {
	if u == nil {
		return
	}
	t.n++
	t.in.add(u.InputTokens)
	t.out.add(u.OutputTokens)
	t.reason.add(u.ReasoningTokens)
	t.read.add(u.CacheReadTokens)
	t.write.add(u.CacheCreationTokens)
	t.total.add(u.TotalTokens)
	r, ok := new(big.Rat).SetString(string(u.CostUSD))
	if u.CostUSD == "" || !ok {
		t.noCost = true
		return
	}
	if t.cost == nil {
		t.cost = new(big.Rat)
	}
	t.cost.Add(t.cost, r)
	t.scale = max(t.scale, decimals(string(u.CostUSD)))
}

// usage returns the sums, or nil when no message stated any usage.
func (t *tally) usage() *event.Usage {
	if t.n == 0 {
		return nil
	}
	u := &event.Usage{
		InputTokens: t.in.get(), OutputTokens: t.out.get(), ReasoningTokens: t.reason.get(),
		CacheReadTokens: t.read.get(), CacheCreationTokens: t.write.get(), TotalTokens: t.total.get(),
	}
	if t.cost != nil && !t.noCost {
		u.CostUSD = json.Number(decimalText(t.cost, t.scale))
	}
	return u
}

// decimals returns how many decimal places a JSON number's exact value
// needs: those after its point, less its exponent (opencode writes small
// costs as 1.5e-7, as JavaScript prints them).
func decimals(num string) int {
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

// decimalText writes an exact decimal with at most scale places, without
// trailing zeros.
func decimalText(r *big.Rat, scale int) string {
	s := r.FloatString(scale)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if s == "-0" {
		s = "0"
	}
	return s
}
