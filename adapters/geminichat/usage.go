package geminichat

import (
	"math/bits"

	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/evtool/evtool/internal/jsonptr"
	"github.com/tidwall/gjson"
)

// tokens is a record's TokensSummary, read exactly.
type tokens struct {
	input, output, cached, thoughts, tool, total *uint64
	unknown                                      bool // a key TokensSummary lacks
}

// readTokens reads a tokens object at ptr; a count that is not a
// non-negative integer literal within u64 is a field error.
func readTokens(f *faults, ptr string, v gjson.Result) tokens {
	var t tokens
	jsonobj.ForEach(v, func(k, e gjson.Result) bool {
		var dst **uint64
		switch k.Str {
		case "input":
			dst = &t.input
		case "output":
			dst = &t.output
		case "cached":
			dst = &t.cached
		case "thoughts":
			dst = &t.thoughts
		case "tool":
			dst = &t.tool
		case "total":
			dst = &t.total
		default:
			t.unknown = true
			return true
		}
		n, msg := jsonobj.ParseUint(e, jsonobj.U64)
		if msg != "" {
			f.fail(ptr+"/"+jsonptr.Escape(k.Str), "%s", msg)
			return false
		}
		*dst = &n
		return true
	})
	return t
}

// usage returns the canonical usage of a record's tokens, whose counts
// are disjoint, and whether the tokens object must be kept beside it to
// say all it says.
//
// Gemini's input (the API's promptTokenCount) includes the cached tokens
// (cachedContentTokenCount), and the tokens of the tool-use prompt
// (toolUsePromptTokenCount) are input the API counts apart; output
// excludes the thoughts. So input_tokens = input − cached + tool,
// cache_read_tokens = cached, output_tokens = output, thoughts_tokens =
// thoughts, total_tokens = total, and the disjoint counts add up to the
// total (total = input + output + thoughts + tool). This is ccusage's
// reading too. With more cached than input no disjoint input exists: it is
// left unstated (gemini-chat/tokens-cached reports it).
func (t tokens) usage() (u *event.Usage, keep bool) {
	u = &event.Usage{CacheReadTokens: t.cached, OutputTokens: t.output, ThoughtsTokens: t.thoughts, TotalTokens: t.total}
	keep = t.unknown || (t.tool != nil && *t.tool != 0)
	if t.input != nil {
		in := *t.input
		ok := true
		if t.cached != nil {
			if *t.cached > in {
				ok = false
			} else {
				in -= *t.cached
			}
		}
		if t.tool != nil {
			var carry uint64
			in, carry = bits.Add64(in, *t.tool, 0)
			ok = ok && carry == 0
		}
		if ok {
			u.InputTokens = &in
		} else {
			keep = true
		}
	}
	return u, keep
}

// usageSum adds up the usage of rounds, for the session's total.
type usageSum struct {
	u    event.Usage
	have bool
}

func (s *usageSum) add(u *event.Usage) {
	if u == nil {
		return
	}
	for _, p := range []struct{ dst, v **uint64 }{
		{&s.u.InputTokens, &u.InputTokens}, {&s.u.OutputTokens, &u.OutputTokens},
		{&s.u.CacheReadTokens, &u.CacheReadTokens}, {&s.u.ThoughtsTokens, &u.ThoughtsTokens},
		{&s.u.TotalTokens, &u.TotalTokens},
	} {
		if *p.v == nil {
			continue
		}
		s.have = true
		if *p.dst == nil {
			*p.dst = new(uint64)
		}
		// A sum beyond the largest u64 stays there rather than wrap.
		if n, carry := bits.Add64(**p.dst, **p.v, 0); carry == 0 {
			**p.dst = n
		} else {
			**p.dst = ^uint64(0)
		}
	}
}

// usage returns the total, nil when no round stated a count.
func (s *usageSum) usage() *event.Usage {
	if !s.have {
		return nil
	}
	u := s.u
	return &u
}
