package codexrollout

import (
	"math"

	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/tidwall/gjson"
)

// Codex's TokenUsage follows OpenAI's convention: input_tokens counts all
// input, cached_input_tokens and cache_write_input_tokens included, and
// output_tokens all output, reasoning_output_tokens included;
// total_tokens is input_tokens + output_tokens (the 0.39 sample confirms
// all three). token_count.info.total_token_usage (and, in newer builds,
// token_usage_record.thread_token_usage) is the thread's running total,
// and Codex writes it again unchanged when only the rate limits changed.
//
// The canonical counts are disjoint, so a sum over them is right:
//
//	input_tokens          = Δinput_tokens − Δcached_input_tokens − Δcache_write_input_tokens
//	cache_read_tokens     = Δcached_input_tokens
//	cache_creation_tokens = Δcache_write_input_tokens (when written)
//	output_tokens         = Δoutput_tokens
//	reasoning_tokens      = Δreasoning_output_tokens (the part of output that was reasoning)
//	total_tokens          = Δinput_tokens + Δoutput_tokens
//
// where Δ is what a running total adds to the one before it (meter). A
// total that adds nothing is not a model round and makes no usage event.

// The indexes of usageFields.
const (
	fIn = iota
	fCached
	fCacheWrite
	fOut
	fReasoning
	fTotal
	nFields
)

// counts is a TokenUsage as written: i64 counts, each maybe absent.
type counts struct {
	n   [nFields]int64
	has [nFields]bool
}

// readCounts reads a TokenUsage object at ptr. Each count must be an i64
// integer literal, which serde_json reads; anything else is a decode
// error at its pointer.
func readCounts(v gjson.Result, ptr string) (counts, error) {
	var c counts
	if !v.IsObject() {
		return c, &FieldError{Pointer: ptr, Msg: "got " + jsonobj.TypeName(v) + ", want an object"}
	}
	for i, k := range usageFields {
		f := jsonobj.Lookup(v, k)
		if !f.Exists() {
			continue
		}
		n, msg := jsonobj.ParseInt(f, jsonobj.I64)
		if msg != "" {
			return c, &FieldError{Pointer: ptr + "/" + k, Msg: msg}
		}
		c.n[i], c.has[i] = n, true
	}
	return c, nil
}

// negative reports whether a count is below zero, which i64 allows and
// no count can be.
func (c counts) negative() bool {
	for i := range c.n {
		if c.has[i] && c.n[i] < 0 {
			return true
		}
	}
	return false
}

// components reports whether two totals state the same counts (the total
// itself aside, which Codex sets alone when it refills the context
// window).
func (c counts) same(o counts) bool {
	for i := range fTotal {
		if c.has[i] != o.has[i] || c.n[i] != o.n[i] {
			return false
		}
	}
	return true
}

// meter turns running totals into what each adds. Only lines of the
// stream's own count; a copied line (replay) moves the base without
// counting, so the first own total counts from where the copy left it.
type meter struct {
	base     counts
	haveBase bool
	sum      sums
}

// sums adds up the canonical counts of the usage events, saturating.
type sums struct {
	n   [6]uint64 // input, cache read, cache creation, output, reasoning, total
	has [6]bool
	any bool
}

// seed takes a copied total as the base, counting nothing.
func (m *meter) seed(t counts) {
	if !t.negative() {
		m.base, m.haveBase = t, true
	}
}

// advance takes a total of the stream's own and returns what it adds:
//
//   - the first total of a stream adds its last_token_usage (the
//     response's own, which the total includes) when the line states one,
//     else all of it: a fork's first total includes the parent's usage,
//     which the parent's file counts;
//   - a total that no count of falls adds the difference;
//   - a total some count of falls starts the count again (Codex's refill
//     of the context window zeroes the counts; a count restarted) and
//     adds itself, counted from zero.
//
// ok is false when the total adds nothing, or has a negative count (kept
// as written; codex-rollout/usage-nested reports it).
func (m *meter) advance(t counts, last *counts) (d counts, ok bool) {
	if t.negative() {
		return d, false
	}
	switch {
	case !m.haveBase:
		d = t
		if last != nil && !last.negative() && within(*last, t) {
			d = *last
		}
	case m.base.same(t):
		m.base = t
		return d, false
	case falls(m.base, t):
		d = t
	default:
		for i := range d.n {
			d.has[i] = t.has[i]
			if t.has[i] {
				d.n[i] = t.n[i]
				if m.base.has[i] {
					d.n[i] -= m.base.n[i]
				}
			}
		}
	}
	m.base, m.haveBase = t, true
	for i := range fTotal {
		if d.has[i] && d.n[i] != 0 {
			return d, true
		}
	}
	return d, false
}

// within reports whether every count of a is at most b's.
func within(a, b counts) bool {
	for i := range fTotal {
		if a.has[i] && b.has[i] && a.n[i] > b.n[i] {
			return false
		}
	}
	return true
}

// falls reports whether a count of t is below the base's.
func falls(base, t counts) bool {
	for i := range fTotal {
		if base.has[i] && t.has[i] && t.n[i] < base.n[i] {
			return true
		}
	}
	return false
}

// canonical renders what a total added as a canonical usage, and adds it
// to the sums.
func (m *meter) canonical(d counts) *event.Usage {
	u := &event.Usage{}
	set := func(i int, p **uint64, v uint64) {
		*p = &v
		m.sum.n[i] = satAdd(m.sum.n[i], v)
		m.sum.has[i] = true
	}
	in, cached, cw := d.n[fIn], d.n[fCached], d.n[fCacheWrite]
	if d.has[fIn] && in >= cached && in-cached >= cw {
		set(0, &u.InputTokens, uint64(in-cached-cw))
	}
	if d.has[fCached] {
		set(1, &u.CacheReadTokens, uint64(cached))
	}
	if d.has[fCacheWrite] {
		set(2, &u.CacheCreationTokens, uint64(cw))
	}
	if d.has[fOut] {
		set(3, &u.OutputTokens, uint64(d.n[fOut]))
	}
	if d.has[fReasoning] {
		set(4, &u.ReasoningTokens, uint64(d.n[fReasoning]))
	}
	if d.has[fIn] && d.has[fOut] {
		set(5, &u.TotalTokens, satAdd(uint64(in), uint64(d.n[fOut])))
	}
	m.sum.any = true
	return u
}

// total returns the sums as the session's usage, nil when nothing was
// counted.
func (m *meter) total() *event.Usage {
	if !m.sum.any {
		return nil
	}
	u := &event.Usage{}
	ps := []**uint64{&u.InputTokens, &u.CacheReadTokens, &u.CacheCreationTokens, &u.OutputTokens, &u.ReasoningTokens, &u.TotalTokens}
	for i, p := range ps {
		if m.sum.has[i] {
			v := m.sum.n[i]
			*p = &v
		}
	}
	return u
}

// satAdd adds without wrapping: a sum beyond u64 stays at its largest.
func satAdd(a, b uint64) uint64 {
	if a > math.MaxUint64-b {
		return math.MaxUint64
	}
	return a + b
}

// nested reports the first way a TokenUsage breaks Codex's own relations
// (cached and cache-write input within input, reasoning within output),
// "" for none. total_tokens is input + output too, but for the totals
// Codex sets when the context window overflows (the window's size with
// every other count zero, and the sums counted on from it), so it is not
// checked: evtool derives the total from input and output.
func nested(c counts) string {
	switch {
	case c.negative():
		return "a count is negative"
	case c.has[fIn] && c.has[fCached] && c.n[fCached] > c.n[fIn]:
		return "cached_input_tokens is above input_tokens"
	case c.has[fIn] && c.has[fCacheWrite] && c.n[fCacheWrite] > c.n[fIn]-c.n[fCached]:
		return "cache_write_input_tokens is above the uncached input"
	case c.has[fOut] && c.has[fReasoning] && c.n[fReasoning] > c.n[fOut]:
		return "reasoning_output_tokens is above output_tokens"
	}
	return ""
}

// refill reports whether a total is the one Codex writes when a request
// overflows the context window (TokenUsageInfo::fill_to_context_window):
// every count zero but total_tokens.
func (c counts) refill() bool {
	for i := range fTotal {
		if c.has[i] && c.n[i] != 0 {
			return false
		}
	}
	return c.has[fTotal]
}
