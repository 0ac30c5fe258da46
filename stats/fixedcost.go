package stats

import (
	"math/big"
	"math/bits"

	"github.com/evtool/evtool/prices"
)

// A usage report prices every response of a history, hundreds of
// thousands of them. prices.Model.Cost answers with a big.Rat, and the
// report then wants a decimal: done once a response that was a tenth of
// the report's time (rationals, their decimal text, its parsing). The
// catalogues' prices are decimals of a few digits (3e-06 dollars a
// token, the same doubled for a 1-hour cache write), so a list's prices
// are put once on one decimal scale as whole numbers, and a response's
// cost is a sum of 64 × 64-bit products in 128 bits: exact, and the same
// decimal as the rational's. A list whose prices do not fit, or a sum that
// would pass 128 bits, goes the rational way.

// fixedList is a list's prices as whole numbers of 10^-scale dollars;
// ok is false when one of them is no such number below 2^64.
type fixedList struct {
	ok          bool
	scale       int
	base, above [6]uint64 // by prices.Kind; above is base where the list has no tier
	threshold   uint64
	perRequest  bool
}

// fixedOf is l's fixedList, made once per report.
func (rp *Report) fixedOf(l *prices.List) *fixedList {
	if f, ok := rp.fixed[l]; ok {
		return f
	}
	f := newFixedList(l)
	if rp.fixed == nil {
		rp.fixed = map[*prices.List]*fixedList{}
	}
	rp.fixed[l] = f
	return f
}

func newFixedList(l *prices.List) *fixedList {
	f := &fixedList{threshold: l.Threshold, perRequest: l.PerRequest}
	var rats [12]*big.Rat
	for k := range 6 {
		rats[k] = l.Price(prices.Kind(k), false)
		rats[6+k] = l.Price(prices.Kind(k), true)
	}
	// The scale: the most digits after the point any price needs (a
	// price has a handful; more than 36 is no price to take this way).
	for _, r := range rats {
		if r == nil {
			continue
		}
		s, ok := prices.DecimalDigits(r)
		if !ok || s > 36 || r.Sign() < 0 {
			return f
		}
		f.scale = max(f.scale, s)
	}
	unit := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(f.scale)), nil)
	for i, r := range rats {
		if r == nil {
			continue
		}
		n := new(big.Int).Mul(r.Num(), unit)
		n.Quo(n, r.Denom()) // exact: the denominator divides 10^scale
		if !n.IsUint64() {
			return f
		}
		if i < 6 {
			f.base[i] = n.Uint64()
		} else {
			f.above[i-6] = n.Uint64()
		}
	}
	f.ok = true
	return f
}

// u128 is an unsigned 128-bit sum.
type u128 struct{ hi, lo uint64 }

// addMul adds n × p; ok is false when the sum passes 2^128.
func (s *u128) addMul(n, p uint64) bool {
	hi, lo := bits.Mul64(n, p)
	var c uint64
	s.lo, c = bits.Add64(s.lo, lo, 0)
	s.hi, c = bits.Add64(s.hi, hi, c)
	return c == 0
}

// cost is what t costs at f's prices, as prices.List.Cost computes it,
// as a decimal with no trailing zeros after the point (as parsing the
// rational's decimal text gives it); ok is false when f cannot say.
func (f *fixedList) cost(t prices.Tokens) (d decimal, ok bool) {
	if !f.ok {
		return d, false
	}
	counts := [6]uint64{t.Input, t.Output, t.CacheRead, t.CacheWrite5m, t.CacheWrite1h, t.Thoughts}
	var sum u128
	if f.perRequest {
		// The prompt, summed without overflow: past the threshold is all
		// that matters.
		var prompt, c uint64
		over := false
		for _, n := range []uint64{t.Input, t.CacheRead, t.CacheWrite5m, t.CacheWrite1h} {
			prompt, c = bits.Add64(prompt, n, 0)
			over = over || c != 0
		}
		over = over || prompt > f.threshold
		price := &f.base
		if over {
			price = &f.above
		}
		for k, n := range counts {
			if !sum.addMul(n, price[k]) {
				return d, false
			}
		}
	} else {
		for k, n := range counts {
			below := n
			if n > f.threshold {
				below = f.threshold
				if !sum.addMul(n-f.threshold, f.above[k]) {
					return d, false
				}
			}
			if !sum.addMul(below, f.base[k]) {
				return d, false
			}
		}
	}
	scale := f.scale
	if sum.hi == 0 {
		for scale > 0 && sum.lo%10 == 0 && sum.lo != 0 {
			sum.lo /= 10
			scale--
		}
		if sum.lo == 0 {
			scale = 0
		}
		d.coef.SetUint64(sum.lo)
		d.scale = scale
		return d, true
	}
	d.coef.SetUint64(sum.hi)
	d.coef.Lsh(&d.coef, 64)
	d.coef.Or(&d.coef, new(big.Int).SetUint64(sum.lo))
	ten := big.NewInt(10)
	q, m := new(big.Int), new(big.Int)
	for scale > 0 {
		q.QuoRem(&d.coef, ten, m)
		if m.Sign() != 0 {
			break
		}
		d.coef.Set(q)
		scale--
	}
	d.scale = scale
	return d, true
}
