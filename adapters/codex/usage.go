package codex

import (
	"math"

	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/jsonenc"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/tidwall/gjson"
)

// Codex's usage (turn.completed.usage) follows OpenAI's convention: the
// counts are nested, not disjoint. input_tokens counts all input,
// cached_input_tokens and cache_write_input_tokens included;
// output_tokens counts all output, reasoning_output_tokens included. And
// they are the thread's running total, not the turn's.
//
// The canonical counts are disjoint by kind, the way a sum over them (and
// over several dialects) is right: input_tokens is the input read neither
// from nor into the cache, cache_read_tokens and cache_creation_tokens
// the rest; output_tokens is all output and reasoning_tokens the part of
// it that was reasoning (as basis counts it; thoughts_tokens, counted
// beside output, is not used). total_tokens is Codex's input plus output.
// So:
//
//	canonical input_tokens         = input_tokens - cached_input_tokens - cache_write_input_tokens
//	canonical cache_read_tokens    = cached_input_tokens
//	canonical cache_creation_tokens = cache_write_input_tokens (when written)
//	canonical output_tokens        = output_tokens
//	canonical reasoning_tokens     = reasoning_output_tokens (when written)
//	canonical total_tokens         = input_tokens + output_tokens
//
// and back, input_tokens = input + cache_read + cache_creation. Counts
// the canonical model cannot hold (negative ones, which i64 allows, or a
// cached count above the input) are left out of the canonical usage; the
// line's residue keeps the usage as written.
//
// The running total is for the thread, across the processes of its
// turns (codex exec resume), while a canonical count is the event's own:
// a turn_finished carries what its turn added to the total before it in
// the stream (the total itself for the stream's first turn, and for the
// first turn of another thread, whose total starts from zero), the
// session_finished the total (summed over the threads of a stream that
// holds several). The encoder adds the total back.

// wire is a usage as Codex writes it.
type wire struct {
	in, cached, cw, out, reasoning uint64
	hasCW, hasR                    bool
}

// wireOf renders a canonical usage in Codex's nested counts. Thoughts
// tokens (reasoning counted beside the output, as Gemini does) are
// reasoning inside Codex's output. A count beyond i64 is written as the
// largest i64; over reports it.
func wireOf(u *event.Usage) wire {
	var w wire
	if u == nil {
		return w
	}
	t := val(u.ThoughtsTokens)
	w.in = sat(val(u.InputTokens), val(u.CacheReadTokens), val(u.CacheCreationTokens))
	w.cached = val(u.CacheReadTokens)
	w.cw, w.hasCW = val(u.CacheCreationTokens), u.CacheCreationTokens != nil
	w.out = sat(val(u.OutputTokens), t)
	w.reasoning, w.hasR = sat(val(u.ReasoningTokens), t), u.ReasoningTokens != nil || u.ThoughtsTokens != nil
	return w
}

// add adds a usage to a running total.
func (w *wire) add(v wire) {
	w.in, w.cached, w.cw = sat(w.in, v.in), sat(w.cached, v.cached), sat(w.cw, v.cw)
	w.out, w.reasoning = sat(w.out, v.out), sat(w.reasoning, v.reasoning)
	w.hasCW, w.hasR = w.hasCW || v.hasCW, w.hasR || v.hasR
}

// over reports whether a count does not fit Codex's i64.
func (w wire) over() bool {
	for _, n := range []uint64{w.in, w.cached, w.cw, w.out, w.reasoning} {
		if n > math.MaxInt64 {
			return true
		}
	}
	return false
}

// appendUsage appends a usage object in the producer's key order: the
// cache-write count (CLI 0.145 and later) sits before output_tokens.
func appendUsage(dst []byte, w wire) []byte {
	first := true
	dst = append(dst, '{')
	put := func(k string, n uint64) {
		dst = jsonenc.Key(dst, &first, k)
		dst = jsonenc.Uint(dst, min(n, math.MaxInt64))
	}
	put("input_tokens", w.in)
	put("cached_input_tokens", w.cached)
	if w.hasCW {
		put("cache_write_input_tokens", w.cw)
	}
	put("output_tokens", w.out)
	if w.hasR {
		put("reasoning_output_tokens", w.reasoning)
	}
	return append(dst, '}')
}

// counts is a usage object's counts as written, by usageFields.
type counts struct {
	n   [5]int64
	has [5]bool
}

// readCounts reads turn.completed's usage. Each count must be an i64
// integer literal; a wrong one is a decode error at its pointer.
func readCounts(v gjson.Result) (counts, error) {
	var c counts
	for i, k := range usageFields {
		f := v.Get(k)
		if !f.Exists() {
			continue
		}
		x, msg := jsonobj.ParseInt(f, jsonobj.I64)
		if msg != "" {
			return c, &DecodeError{Pointer: "/usage/" + k, Msg: msg}
		}
		c.n[i], c.has[i] = x, true
	}
	return c, nil
}

// since returns what a running total added to an earlier one: the
// difference of every count both have (negative where it fell, which the
// canonical usage leaves out).
func (c counts) since(prev counts) counts {
	for i := range c.n {
		if c.has[i] && prev.has[i] {
			c.n[i] -= prev.n[i]
		}
	}
	return c
}

// add returns the sum of two running totals (of two threads), count by
// count: a count either has is in the sum, saturating at the largest i64.
func (c counts) add(o counts) counts {
	for i := range c.n {
		if !o.has[i] {
			continue
		}
		if c.has[i] && c.n[i] > 0 && o.n[i] > math.MaxInt64-c.n[i] {
			c.n[i] = math.MaxInt64
		} else if c.has[i] {
			c.n[i] += o.n[i]
		} else {
			c.n[i] = o.n[i]
		}
		c.has[i] = true
	}
	return c
}

// plus adds an earlier running total to a usage in Codex's counts (the
// way back of since).
func (w wire) plus(prev counts) wire {
	add := func(dst *uint64, i int) {
		if prev.has[i] && prev.n[i] > 0 {
			*dst = sat(*dst, uint64(prev.n[i]))
		}
	}
	add(&w.in, 0)
	add(&w.cached, 1)
	add(&w.out, 2)
	add(&w.reasoning, 3)
	add(&w.cw, 4)
	return w
}

// canonical renders counts in the canonical, disjoint counts.
func (c counts) canonical() *event.Usage {
	n, has := c.n, c.has
	in, cached, out, reasoning, cw := n[0], n[1], n[2], n[3], n[4]
	u := &event.Usage{}
	pos := func(x int64) *uint64 {
		if x < 0 {
			return nil
		}
		y := uint64(x)
		return &y
	}
	if has[1] {
		u.CacheReadTokens = pos(cached)
	}
	if has[4] {
		u.CacheCreationTokens = pos(cw)
	}
	if has[2] {
		u.OutputTokens = pos(out)
	}
	if has[3] {
		u.ReasoningTokens = pos(reasoning)
	}
	if has[0] && in >= 0 && cached >= 0 && cw >= 0 && uint64(cached)+uint64(cw) <= uint64(in) {
		u.InputTokens = pos(in - cached - cw)
	}
	if has[0] && has[2] && in >= 0 && out >= 0 {
		t := uint64(in) + uint64(out)
		u.TotalTokens = &t
	}
	return u
}

// nested reports whether a usage keeps Codex's invariants: no count
// negative, the cached and cache-write input within the input, the
// reasoning within the output. It returns what is wrong, or "".
func nested(v gjson.Result) string {
	get := func(k string) (int64, bool) {
		f := v.Get(k)
		x, msg := jsonobj.ParseInt(f, jsonobj.I64)
		return x, f.Exists() && msg == ""
	}
	for _, k := range usageFields {
		if x, ok := get(k); ok && x < 0 {
			return k + " is negative"
		}
	}
	in, okIn := get("input_tokens")
	cached, _ := get("cached_input_tokens")
	cw, _ := get("cache_write_input_tokens")
	if okIn && uint64(max(cached, 0))+uint64(max(cw, 0)) > uint64(max(in, 0)) {
		return "cached_input_tokens + cache_write_input_tokens exceed input_tokens"
	}
	out, okOut := get("output_tokens")
	r, _ := get("reasoning_output_tokens")
	if okOut && r > out {
		return "reasoning_output_tokens exceed output_tokens"
	}
	return ""
}

// sat adds counts, saturating at the largest u64.
func sat(ns ...uint64) uint64 {
	var t uint64
	for _, n := range ns {
		if t > math.MaxUint64-n {
			return math.MaxUint64
		}
		t += n
	}
	return t
}

func val(p *uint64) uint64 {
	if p == nil {
		return 0
	}
	return *p
}
