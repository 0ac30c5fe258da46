package gemini

// The usage a Gemini stream states: the run's token totals in
// result.stats, which a stream of another dialect states per turn or per
// round, or not at all.

import (
	"slices"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/jsonenc"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/evtool/evtool/internal/usagesum"
	"github.com/tidwall/gjson"
)

// usageSum adds up usage that a Gemini stream states only as a run total.
type usageSum struct {
	u    event.Usage
	n    int // usages added
	have bool
}

func (s *usageSum) add(u *event.Usage) {
	if u == nil {
		return
	}
	s.n++
	s.have = true
	for _, p := range []struct {
		dst **uint64
		v   *uint64
	}{
		{&s.u.InputTokens, u.InputTokens}, {&s.u.OutputTokens, u.OutputTokens},
		{&s.u.CacheReadTokens, u.CacheReadTokens}, {&s.u.CacheCreationTokens, u.CacheCreationTokens},
		{&s.u.ReasoningTokens, u.ReasoningTokens}, {&s.u.ThoughtsTokens, u.ThoughtsTokens},
		{&s.u.TotalTokens, u.TotalTokens}, {&s.u.ModelResponses, u.ModelResponses},
	} {
		usagesum.Add(p.dst, p.v)
	}
}

// stats writes result.stats. From a Gemini source, the usage and the
// residue give back what was written; from another dialect the run's
// usage is the session's, or the sum of its turns' or rounds', and
// duration_ms and tool_calls are computed.
func (e *Encoder) stats(b *event.SessionFinished, ev *event.Event) {
	l, loss := &e.l, e.opts.Losses
	res, hasRes := l.Residue("stats")
	l.Use("stats")
	u := b.Usage
	if !e.native && u == nil {
		switch {
		case e.turnUsage.have:
			u = &e.turnUsage.u
			if e.turnUsage.n > 1 {
				loss.Add(lossRunTokenTotalByTurn)
			}
		case e.roundUsage.have:
			u = &e.roundUsage.u
			loss.Add(lossRunTokenTotalByRound)
		}
	}
	if u == nil && !hasRes {
		return // no usage stated: stats is optional
	}
	if u == nil {
		u = &event.Usage{}
	}
	r := gjson.Parse(res)
	absent := map[string]bool{}
	jsonobj.ForEach(jsonobj.Lookup(r, jsonobj.AbsentKey), func(_, k gjson.Result) bool {
		absent[k.Str] = true
		return true
	})
	first := true
	out := append(l.B, `,"stats":{`...)
	num := func(k string, n uint64) {
		out = jsonenc.Key(out, &first, k)
		out = jsonenc.Uint(out, n)
	}
	rawKey := func(k string) bool {
		v := jsonobj.Lookup(r, k)
		if !v.Exists() {
			return false
		}
		out = jsonenc.Key(out, &first, k)
		out = append(out, v.Raw...)
		return true
	}
	in := wireInput(u)
	if e.native {
		// A count canonical could not hold (cached above input_tokens)
		// comes back from the residue as written.
		if v := jsonobj.Lookup(r, "input_tokens"); v.Exists() {
			if n, msg := jsonobj.ParseUint(v, jsonobj.U64); msg == "" {
				in = &n
			}
		}
		for _, f := range []struct {
			k string
			v *uint64
		}{{"total_tokens", u.TotalTokens}, {"input_tokens", in}, {"output_tokens", u.OutputTokens}, {"cached", u.CacheReadTokens}} {
			if f.v != nil {
				num(f.k, *f.v)
			}
		}
		if !rawKey("input") && !absent["input"] {
			if n, ok := derivedInput(in, u.CacheReadTokens); ok {
				num("input", n)
			}
		}
		rawKey("duration_ms")
		rawKey("tool_calls")
		rawKey("models")
	} else {
		if u.InputTokens == nil {
			loss.AddDetail(lossTokenCountUnstated, "input")
		}
		if u.OutputTokens == nil {
			loss.AddDetail(lossTokenCountUnstated, "output")
		}
		if _, over := sumCounts(u.InputTokens, u.CacheReadTokens, u.CacheCreationTokens); over {
			loss.Add(lossTokenCountSaturated)
		}
		total := u.TotalTokens
		if total == nil {
			n, over := sumCounts(in, u.OutputTokens, u.ThoughtsTokens)
			total = &n
			loss.Add(lossRunTokenTotalByKind)
			if over {
				loss.Add(lossTokenCountSaturated)
			}
		}
		num("total_tokens", *total)
		num("input_tokens", val(in))
		num("output_tokens", val(u.OutputTokens))
		if u.CacheReadTokens != nil {
			num("cached", *u.CacheReadTokens)
			all := val(in)
			n, _ := derivedInput(&all, u.CacheReadTokens)
			num("input", n)
		}
		ms, ok := millisBetween(e.started, ev.Time)
		if !ok {
			loss.Add(lossRunDuration)
		}
		num("duration_ms", ms)
		num("tool_calls", e.toolCalls)
		for _, f := range []struct {
			kind *dialect.LossKind
			v    *uint64
		}{{lossCacheCreationTokens, u.CacheCreationTokens}, {lossReasoningTokens, u.ReasoningTokens},
			{lossThoughtsTokens, u.ThoughtsTokens}, {lossModelResponses, u.ModelResponses}} {
			if f.v != nil {
				loss.Add(f.kind)
			}
		}
		if u.CostUSD != "" {
			loss.Add(lossCost)
		}
	}
	jsonobj.ForEach(r, func(k, v gjson.Result) bool {
		if !slices.Contains(statsFields, k.Str) && k.Str != jsonobj.AbsentKey {
			out = jsonenc.Key(out, &first, k.Str)
			out = append(out, v.Raw...)
		}
		return true
	})
	l.B = append(out, '}')
}

// wireInput is Gemini's input_tokens for a canonical usage, whose counts
// are disjoint: all prompt tokens, that is the input, the cache reads and
// the cache writes together. It is nil when none of them is stated.
func wireInput(u *event.Usage) *uint64 {
	if u.InputTokens == nil && u.CacheReadTokens == nil && u.CacheCreationTokens == nil {
		return nil
	}
	n, _ := sumCounts(u.InputTokens, u.CacheReadTokens, u.CacheCreationTokens)
	return &n
}

// sumCounts adds the stated counts, saturating at the largest u64; over
// reports that the exact sum did not fit.
func sumCounts(ns ...*uint64) (sum uint64, over bool) {
	for _, p := range ns {
		if p == nil {
			continue
		}
		if sum > ^uint64(0)-*p {
			sum, over = ^uint64(0), true
			continue
		}
		sum += *p
	}
	return sum, over
}

func val(p *uint64) uint64 {
	if p == nil {
		return 0
	}
	return *p
}
