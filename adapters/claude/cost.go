package claude

import (
	"encoding/json"
	"math/big"
	"math/bits"

	"github.com/evtool/evtool/adapters/internal/claudecode"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/evtool/evtool/internal/usagesum"
	"github.com/tidwall/gjson"
)

// Claude Code's result.total_cost_usd (like modelUsage) is a running total
// for the process: the second result of a streaming-input process already
// includes the first turn's cost, while result.usage counts the turn alone.
// Canonical holds a turn's own share, so the decoder takes the difference
// from the previous result's running total and the encoder adds it back.
// Both are exact decimal arithmetic on the written numbers, never float64.

// decimal reads a JSON number exactly; ok is false for anything else.
func decimal(raw string) (*big.Rat, bool) {
	if raw == "" {
		return nil, false
	}
	r, ok := new(big.Rat).SetString(raw)
	return r, ok
}

// turnCost is a result's own share of the process's running cost: total
// minus the previous result's running total prev. A total below prev is
// not a running total of the same process (a new process, or a producer
// that reports per turn): it is the turn's own.
func turnCost(total, prev string) string {
	t, ok := decimal(total)
	if !ok {
		return total
	}
	p, ok := decimal(prev)
	if !ok {
		return total
	}
	d := new(big.Rat).Sub(t, p)
	if d.Sign() < 0 {
		return total
	}
	return claudecode.DecimalString(d)
}

// runningCost is the running total a result states for a turn's share
// after a previous running total prev.
func runningCost(share, prev string) string {
	s, ok := decimal(share)
	if !ok {
		return share
	}
	p, ok := decimal(prev)
	if !ok || p.Sign() == 0 {
		return share
	}
	return claudecode.DecimalString(new(big.Rat).Add(s, p))
}

// modelUsage reads what a result's modelUsage says the process has spent
// so far on every model, and its running total_cost_usd. result.usage
// counts the main loop's model for the turn alone; a subagent that runs
// on another model (Explore on Haiku, say) is only in modelUsage, so the
// session's usage is taken from there. It returns the turn's tokens over
// every model, what the running totals grew by since the previous
// result (nil when the result states none). A figure that is not a
// whole number, or a sum past 2^64-1, leaves the process's usage
// unknown; an empty modelUsage states no model's spend.
func (d *Decoder) modelUsage(r gjson.Result) *event.Usage {
	mu := r.Get("modelUsage")
	if !mu.IsObject() || emptyObject(mu) {
		return nil
	}
	var u event.Usage
	ok := true
	add := func(dst **uint64, v gjson.Result) {
		if !v.Exists() {
			return
		}
		n, msg := jsonobj.ParseUint(v, jsonobj.U64)
		if msg != "" {
			ok = false
			return
		}
		if *dst == nil {
			*dst = new(uint64)
		}
		sum, carry := bits.Add64(**dst, n, 0)
		if carry != 0 {
			ok = false
		}
		**dst = sum
	}
	jsonobj.ForEach(mu, func(_, m gjson.Result) bool {
		add(&u.InputTokens, m.Get("inputTokens"))
		add(&u.OutputTokens, m.Get("outputTokens"))
		add(&u.CacheReadTokens, m.Get("cacheReadInputTokens"))
		add(&u.CacheCreationTokens, m.Get("cacheCreationInputTokens"))
		return true
	})
	if c := r.Get("total_cost_usd"); c.Type == gjson.Number {
		u.CostUSD = json.Number(c.Raw)
	}
	if !ok {
		d.proc, d.procBase = nil, nil
		return nil
	}
	var turn *event.Usage
	switch {
	case d.proc == nil:
		turn = grownBy(&u, &event.Usage{})
	case below(&u, d.proc):
		// A running total that went down: a new process. What the one
		// before spent stays in the session's usage.
		d.procBase = sumUsage(d.procBase, d.proc)
		turn = grownBy(&u, &event.Usage{})
	default:
		turn = grownBy(&u, d.proc)
	}
	d.proc = &u
	return turn
}

// newProcess starts a new process's running totals (an init of another
// session): what the one before spent stays in the session's usage.
func (d *Decoder) newProcess() {
	if d.proc != nil {
		d.procBase = sumUsage(d.procBase, d.proc)
		d.proc = nil
	}
}

// emptyObject reports whether an object has no key.
func emptyObject(r gjson.Result) bool {
	empty := true
	jsonobj.ForEach(r, func(_, _ gjson.Result) bool {
		empty = false
		return false
	})
	return empty
}

// grownBy returns the token counts of cur less those of prev, which
// holds none above cur's (below is false), as new values: a count prev
// lacks is cur's.
func grownBy(cur, prev *event.Usage) *event.Usage {
	sub := func(c, p *uint64) *uint64 {
		if c == nil {
			return nil
		}
		d := *c
		if p != nil {
			d -= *p
		}
		return &d
	}
	return &event.Usage{InputTokens: sub(cur.InputTokens, prev.InputTokens), OutputTokens: sub(cur.OutputTokens, prev.OutputTokens),
		CacheReadTokens: sub(cur.CacheReadTokens, prev.CacheReadTokens), CacheCreationTokens: sub(cur.CacheCreationTokens, prev.CacheCreationTokens)}
}

// covers reports whether every token count u states is stated by all,
// and no lower: the turn's tokens over every model include the main
// thread's.
func covers(all, u *event.Usage) bool {
	ge := func(a, b *uint64) bool { return b == nil || a != nil && *a >= *b }
	return ge(all.InputTokens, u.InputTokens) && ge(all.OutputTokens, u.OutputTokens) &&
		ge(all.CacheReadTokens, u.CacheReadTokens) && ge(all.CacheCreationTokens, u.CacheCreationTokens)
}

// unstatedCost reports whether a result's total_cost_usd is a 0 that
// states no cost: Claude Code computes its cost from modelUsage, so a 0
// beside an empty modelUsage is no cost it computed but the 0 a writer
// puts where the cost is unknown (evtool's own, writing another
// dialect's run: the number is required). Read as a cost, it would say
// $0 for a run whose cost nobody stated; a run that spent nothing loses
// nothing by it, its tokens (0) are still stated.
func unstatedCost(r gjson.Result) bool {
	c, ok := decimal(r.Get("total_cost_usd").Raw)
	if !ok || c.Sign() != 0 {
		return false
	}
	mu := r.Get("modelUsage")
	return mu.IsObject() && emptyObject(mu)
}

// below reports whether any count of a is below b's.
func below(a, b *event.Usage) bool {
	lt := func(x, y *uint64) bool { return x != nil && y != nil && *x < *y }
	return lt(a.InputTokens, b.InputTokens) || lt(a.OutputTokens, b.OutputTokens) ||
		lt(a.CacheReadTokens, b.CacheReadTokens) || lt(a.CacheCreationTokens, b.CacheCreationTokens)
}

// procUsage is the session's usage from modelUsage: the last process's
// running totals plus what earlier processes of the file spent; nil when
// no result stated modelUsage.
func (d *Decoder) procUsage() *event.Usage {
	if d.proc == nil {
		return nil
	}
	return sumUsage(d.procBase, d.proc)
}

// sumUsage adds two usages' counts (saturating at 2^64-1) and costs
// (exact decimals); a nil usage adds nothing.
func sumUsage(a, b *event.Usage) *event.Usage {
	if a == nil {
		c := *b
		return &c
	}
	out := *a
	addCounts(&out, b)
	if x, ok := decimal(string(a.CostUSD)); ok {
		if y, ok := decimal(string(b.CostUSD)); ok {
			out.CostUSD = json.Number(claudecode.DecimalString(new(big.Rat).Add(x, y)))
		}
	} else {
		out.CostUSD = b.CostUSD
	}
	return &out
}

// addCounts adds the token counts of u that Claude Code's usage states
// (input, output, cache read and cache creation) to dst.
func addCounts(dst, u *event.Usage) {
	usagesum.Add(&dst.InputTokens, u.InputTokens)
	usagesum.Add(&dst.OutputTokens, u.OutputTokens)
	usagesum.Add(&dst.CacheReadTokens, u.CacheReadTokens)
	usagesum.Add(&dst.CacheCreationTokens, u.CacheCreationTokens)
}
