package prices

import (
	"math/big"
	"time"
)

// Tokens are the counts of one request (one model round) to price, each
// disjoint from the others, as the canonical model counts them.
type Tokens struct {
	Input        uint64 // input neither read from nor written to a cache
	Output       uint64 // output, reasoning inside it where the producer nests it
	CacheRead    uint64
	CacheWrite5m uint64 // cache writes of a 5-minute lifetime (the default)
	CacheWrite1h uint64 // cache writes of a 1-hour lifetime
	Thoughts     uint64 // thought tokens stated beside output (Gemini)
	// At is the request's time, which picks among a model's dated
	// lists of prices (genai-prices); zero: not known (see Model.At).
	At time.Time
}

// Cost is what the tokens of one request cost at m's prices, exactly.
// The list of prices is the one in force at t.At (see At); then, for a
// list read from LiteLLM's or models.dev's shape, as ccusage computes it
// (cost.rs), so that the two can be compared:
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
//
// For a list read from genai-prices (PerRequest), as its calcPrice
// computes it, which is how Google bills: when the request's prompt
// (Input + CacheRead + CacheWrite5m + CacheWrite1h) is more than
// Threshold tokens, every token of the request is at the Above price of
// its kind where the catalogue tiers it, else all at the base price; a
// kind the catalogue gives no price for is priced as its parent kind
// (see readGenAIList), already in Base and Above.
func (m *Model) Cost(t Tokens) *big.Rat {
	return m.At(t.At).cost(t)
}

// At is the list of prices in force at t, as genai-prices picks it: of
// the dated lists, the last whose constraint holds at t (a start_date on
// or before t, a daily window holding t's time of day in UTC, or none),
// else the model's first list. A zero t (a request whose time is not
// known) is read as the day the catalogue was published
// (Source.Published), and where that is not known either holds no
// constraint.
func (m *Model) At(t time.Time) *List {
	if len(m.Dated) == 0 {
		return &m.List
	}
	if t.IsZero() && m.Source != nil {
		t, _ = time.Parse(time.DateOnly, m.Source.Published)
	}
	for i := len(m.Dated) - 1; i >= 0; i-- {
		d := &m.Dated[i]
		switch {
		case d.Always:
			return &d.List
		case t.IsZero():
		case !d.From.IsZero():
			if !t.Before(d.From) {
				return &d.List
			}
		case d.Daily:
			u := t.UTC()
			now := time.Duration(u.Hour())*time.Hour + time.Duration(u.Minute())*time.Minute + time.Duration(u.Second())*time.Second + time.Duration(u.Nanosecond())
			if d.End < d.Start && (now >= d.Start || now < d.End) || d.Start <= d.End && now >= d.Start && now < d.End {
				return &d.List
			}
		}
	}
	return &m.List
}

// Kind is a kind of token priced.
type Kind int

// The kinds of token, in the order of Tokens' fields.
const (
	KindInput Kind = iota
	KindOutput
	KindCacheRead
	KindCacheWrite5m
	KindCacheWrite1h
	KindThoughts
)

// Price is what one token of kind k costs in the list: below its
// threshold, or past it (above), with the rules of Cost for a kind the
// catalogue gives no price for; nil when nothing prices it.
func (l *List) Price(k Kind, above bool) *big.Rat {
	base, over := l.prices(k)
	if above && over != nil {
		return over
	}
	return base
}

// prices are a kind's base price and its price past the threshold (nil
// when not tiered).
func (l *List) prices(k Kind) (base, above *big.Rat) {
	if l.PerRequest {
		// readGenAIList has set every kind, its parent's where need be.
		switch k {
		case KindInput:
			return l.Base.Input, l.Above.Input
		case KindOutput:
			return l.Base.Output, l.Above.Output
		case KindCacheRead:
			return l.Base.CacheRead, l.Above.CacheRead
		case KindCacheWrite5m:
			return l.Base.CacheWrite, l.Above.CacheWrite
		case KindCacheWrite1h:
			return l.Base.CacheWrite1h, l.Above.CacheWrite1h
		default:
			return l.Base.Reasoning, l.Above.Reasoning
		}
	}
	in, inAbove := l.Base.Input, l.Above.Input
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
		return new(big.Rat).Mul(p, big.NewRat(2, 1))
	}
	switch k {
	case KindInput:
		return in, inAbove
	case KindOutput:
		return l.Base.Output, l.Above.Output
	case KindCacheRead:
		return or(l.Base.CacheRead, in), or(l.Above.CacheRead, inAbove)
	case KindCacheWrite5m:
		return or(l.Base.CacheWrite, in), or(l.Above.CacheWrite, inAbove)
	case KindCacheWrite1h:
		return or(l.Base.CacheWrite1h, double(in)), or(l.Above.CacheWrite1h, double(inAbove))
	default:
		return or(l.Base.Reasoning, l.Base.Output), or(l.Above.Reasoning, l.Above.Output)
	}
}

// Cost is what the tokens of one request cost at l's prices, exactly,
// by the rules of Model.Cost; t.At is not read (the list is chosen).
func (l *List) Cost(t Tokens) *big.Rat { return l.cost(t) }

func (l *List) cost(t Tokens) *big.Rat {
	sum := new(big.Rat)
	counts := [...]uint64{t.Input, t.Output, t.CacheRead, t.CacheWrite5m, t.CacheWrite1h, t.Thoughts}
	// The prompt, summed without overflow: past the threshold is all
	// that matters.
	prompt := new(big.Int)
	for _, n := range []uint64{t.Input, t.CacheRead, t.CacheWrite5m, t.CacheWrite1h} {
		prompt.Add(prompt, new(big.Int).SetUint64(n))
	}
	over := prompt.Cmp(new(big.Int).SetUint64(l.Threshold)) > 0
	for k, n := range counts {
		base, above := l.prices(Kind(k))
		switch {
		case !l.PerRequest:
			l.tier(sum, n, base, above)
		case over && above != nil:
			add(sum, n, above)
		default:
			add(sum, n, base)
		}
	}
	return sum
}

// add adds count tokens at price p (none: nothing).
func add(sum *big.Rat, count uint64, p *big.Rat) {
	if p == nil || count == 0 {
		return
	}
	c := new(big.Rat).SetInt(new(big.Int).SetUint64(count))
	sum.Add(sum, c.Mul(c, p))
}

// tier adds n tokens at base, those past the threshold at above when it
// is given.
func (l *List) tier(sum *big.Rat, n uint64, base, above *big.Rat) {
	if n == 0 {
		return
	}
	if above != nil && n > l.Threshold {
		add(sum, l.Threshold, base)
		add(sum, n-l.Threshold, above)
		return
	}
	add(sum, n, base)
}
