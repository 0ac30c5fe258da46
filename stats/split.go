package stats

import (
	"math/bits"
	"strconv"

	"github.com/evtool/evtool/event"
	"github.com/tidwall/gjson"
)

// # A session's usage split by model
//
// Gemini CLI names the model it was configured with in init (often the
// alias "auto"), and the models it used only in result.stats.models, each
// with its own counts (a routing call on a small model beside the answer
// on a larger one). The decoder keeps that map in the residue of
// session_finished. A report prices and groups usage by model, so where
// the map accounts for the session's figures exactly, the session's usage
// is taken by model from it: one record per model in place of the
// records that carried the figures under the configured model.

// modelSplit is the split of a session_finished's usage by model that its
// residue states (stats.models), or nil.
func modelSplit(ev *event.Event) []*rec {
	var models gjson.Result
	for _, x := range ev.Ext {
		if m := gjson.GetBytes(x.Raw, ResidueModelSplit); m.IsObject() {
			models = m
			break
		}
	}
	if !models.Exists() {
		return nil
	}
	var out []*rec
	ok := true
	models.ForEach(func(name, m gjson.Result) bool {
		r := &rec{recCtx: &recCtx{model: name.Str}, part: true}
		in, okIn := countOf(m, "input_tokens")
		cached, okCached := countOf(m, "cached")
		out1, okOut := countOf(m, "output_tokens")
		total, okTotal := countOf(m, "total_tokens")
		if name.Str == "" || !okIn || !okOut || okCached && cached > in {
			ok = false
			return false
		}
		// As the decoder reads the session's counts: input_tokens holds the
		// cached ones, the canonical input does not.
		r.tok[tokenIndex(Input)], r.set[tokenIndex(Input)] = in-cached, true
		r.tok[tokenIndex(Output)], r.set[tokenIndex(Output)] = out1, true
		if okCached {
			r.tok[tokenIndex(CacheRead)], r.set[tokenIndex(CacheRead)] = cached, true
		}
		if okTotal {
			r.tok[tokenIndex(Total)], r.set[tokenIndex(Total)] = total, true
		}
		out = append(out, r)
		return true
	})
	if !ok || len(out) == 0 {
		return nil
	}
	return out
}

// countOf reads a non-negative integer count of m.
func countOf(m gjson.Result, key string) (uint64, bool) {
	v := m.Get(key)
	if v.Type != gjson.Number {
		return 0, false
	}
	n := v.Uint()
	return n, v.Raw == strconv.FormatUint(n, 10)
}

// splitByModel replaces, where the split accounts for them exactly, the
// records of the session that s (a session_finished's record) closes by
// the split's: s and the records before it back to the previous session
// record that carry the figures under a model no response named.
func (c *collector) splitByModel(s *rec, parts []*rec) {
	if s.set[costIdx] {
		return // a stated cost cannot be split by model
	}
	for i := range tokens {
		var sum uint64
		stated := false
		for _, p := range parts {
			if p.set[i] {
				var carry uint64
				if sum, carry = bits.Add64(sum, p.tok[i], 0); carry != 0 {
					return
				}
				stated = true
			}
		}
		if s.set[i] != stated || stated && sum != s.tok[i] {
			return // the map does not account for the session's figures
		}
	}
	// The session's own records: back to the previous session record.
	first := len(c.recs) - 1
	for first > 0 && c.recs[first-1].level != atSession {
		first--
	}
	for _, r := range c.recs[first:] {
		if r != s && r.model != s.model {
			return // a response named its own model: keep what it says
		}
	}
	for _, r := range c.recs[first:] {
		r.dropped = true
	}
	for _, p := range parts {
		p.level, p.stamp = atSession, s.stamp
		p.recCtx = c.ctx(recCtx{turn: s.turn, agentID: s.agentID, model: p.model})
		p.idx = int32(len(c.recs))
		c.recs = append(c.recs, p)
	}
}
