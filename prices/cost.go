package prices

import "math/big"

// Tokens are the counts of one request (one model round) to price, each
// disjoint from the others, as the canonical model counts them.
type Tokens struct {
	Input        uint64 // input neither read from nor written to a cache
	Output       uint64 // output, reasoning inside it where the producer nests it
	CacheRead    uint64
	CacheWrite5m uint64 // cache writes of a 5-minute lifetime (the default)
	CacheWrite1h uint64 // cache writes of a 1-hour lifetime
	Thoughts     uint64 // thought tokens stated beside output (Gemini)
}

// Cost is what the tokens of one request cost at m's prices, exactly, as
// ccusage computes it (cost.rs), so that the two can be compared:
//
//   - each kind of token is priced on its own: the tokens of a kind up to
//     Threshold at the base price, those past it at the Above price where
//     the catalogue gives one (else the base price);
//   - a 1-hour cache write at the catalogue's 1-hour price, else at twice
//     the input price (Anthropic's, and ccusage's, rule);
//   - thought tokens at the catalogue's reasoning price, else at the
//     output price (Gemini bills thoughts as output);
//   - a kind the catalogue gives no price for: cache reads and writes at
//     the input price (never free for want of a figure), output and
//     input themselves at 0 only when the catalogue has neither (such a
//     model is not read in: see readLiteLLM).
//
// Anthropic itself prices a whole request at the higher rates once its
// input passes 200k tokens; ccusage, and so evtool, tier each kind apart.
func (m *Model) Cost(t Tokens) *big.Rat {
	sum := new(big.Rat)
	two := big.NewRat(2, 1)
	in, inAbove := m.Base.Input, m.Above.Input
	or := func(p, q *big.Rat) *big.Rat {
		if p != nil {
			return p
		}
		return q
	}
	double := func(p *big.Rat) *big.Rat {
		if p == nil {
			return nil
		}
		return new(big.Rat).Mul(p, two)
	}
	m.tier(sum, t.Input, in, inAbove)
	m.tier(sum, t.Output, m.Base.Output, m.Above.Output)
	m.tier(sum, t.CacheRead, or(m.Base.CacheRead, in), or(m.Above.CacheRead, inAbove))
	m.tier(sum, t.CacheWrite5m, or(m.Base.CacheWrite, in), or(m.Above.CacheWrite, inAbove))
	m.tier(sum, t.CacheWrite1h, or(m.Base.CacheWrite1h, double(in)), or(m.Above.CacheWrite1h, double(inAbove)))
	m.tier(sum, t.Thoughts, or(m.Base.Reasoning, m.Base.Output), or(m.Above.Reasoning, m.Above.Output))
	return sum
}

// tier adds n tokens at base, those past the threshold at above when it
// is given.
func (m *Model) tier(sum *big.Rat, n uint64, base, above *big.Rat) {
	if n == 0 {
		return
	}
	add := func(count uint64, p *big.Rat) {
		if p == nil || count == 0 {
			return
		}
		c := new(big.Rat).SetInt(new(big.Int).SetUint64(count))
		sum.Add(sum, c.Mul(c, p))
	}
	if above != nil && n > m.Threshold {
		add(m.Threshold, base)
		add(n-m.Threshold, above)
		return
	}
	add(n, base)
}
