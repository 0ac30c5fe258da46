package stats

import (
	"fmt"
	"math/big"
	"strings"
)

// maxExponent bounds the decimal exponent of a cost evtool adds up. A
// producer's cost in US dollars is written with a handful of digits and,
// from a double, an exponent such as 1.2e-7; a value beyond ±maxExponent
// is no amount of money, and would cost memory to add exactly.
const maxExponent = 1000

// decimal is an exact decimal number: coef × 10^-scale. Costs are added
// as decimals, never through float64, so 0.1 + 0.2 is 0.3.
type decimal struct {
	coef  big.Int
	scale int // digits after the point; negative for trailing zeros
}

// parseDecimal reads a JSON number's text (as json.Number keeps it).
func parseDecimal(s string) (decimal, error) {
	var d decimal
	rest := s
	neg := strings.HasPrefix(rest, "-")
	if neg {
		rest = rest[1:]
	}
	intPart, rest := digits(rest)
	if intPart == "" || (len(intPart) > 1 && intPart[0] == '0') {
		return d, fmt.Errorf("%q is not a JSON number", s)
	}
	var frac string
	if strings.HasPrefix(rest, ".") {
		frac, rest = digits(rest[1:])
		if frac == "" {
			return d, fmt.Errorf("%q is not a JSON number", s)
		}
	}
	exp := 0
	if rest != "" {
		if rest[0] != 'e' && rest[0] != 'E' {
			return d, fmt.Errorf("%q is not a JSON number", s)
		}
		rest = rest[1:]
		eneg := false
		if rest != "" && (rest[0] == '+' || rest[0] == '-') {
			eneg = rest[0] == '-'
			rest = rest[1:]
		}
		var e string
		e, rest = digits(rest)
		if e == "" || rest != "" {
			return d, fmt.Errorf("%q is not a JSON number", s)
		}
		e = strings.TrimLeft(e, "0")
		if len(e) > 6 {
			return d, fmt.Errorf("%s: the exponent is beyond ±%d", s, maxExponent)
		}
		for _, c := range e {
			exp = exp*10 + int(c-'0')
		}
		if eneg {
			exp = -exp
		}
		if exp > maxExponent || exp < -maxExponent {
			return d, fmt.Errorf("%s: the exponent is beyond ±%d", s, maxExponent)
		}
	}
	d.coef.SetString(intPart+frac, 10)
	if neg {
		d.coef.Neg(&d.coef)
	}
	d.scale = len(frac) - exp
	return d, nil
}

// digits splits s after its leading ASCII digits.
func digits(s string) (string, string) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return s[:i], s[i:]
}

// add sets d to d + x, exactly.
func (d *decimal) add(x *decimal) {
	var a, b big.Int
	a.Set(&d.coef)
	b.Set(&x.coef)
	scale := max(d.scale, x.scale)
	scaleUp(&a, scale-d.scale)
	scaleUp(&b, scale-x.scale)
	d.coef.Add(&a, &b)
	d.scale = scale
}

func scaleUp(n *big.Int, by int) {
	if by > 0 {
		n.Mul(n, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(by)), nil))
	}
}

// String writes d as a plain decimal, without an exponent or trailing
// zeros after the point: "0.3", "12", "-0.0000001".
func (d *decimal) String() string {
	if d.coef.Sign() == 0 {
		return "0"
	}
	s := new(big.Int).Abs(&d.coef).String()
	sign := ""
	if d.coef.Sign() < 0 {
		sign = "-"
	}
	if d.scale <= 0 {
		return sign + s + strings.Repeat("0", -d.scale)
	}
	if len(s) <= d.scale {
		s = strings.Repeat("0", d.scale-len(s)+1) + s
	}
	i := len(s) - d.scale
	frac := strings.TrimRight(s[i:], "0")
	if frac == "" {
		return sign + s[:i]
	}
	return sign + s[:i] + "." + frac
}

// sub sets d to d − x, exactly. The usage report takes what a turn or a
// session states beyond the rounds inside it as the difference.
func (d *decimal) sub(x *decimal) {
	var n decimal
	n.coef.Neg(&x.coef)
	n.scale = x.scale
	d.add(&n)
}

// cmp compares d and x: -1, 0 or +1.
func (d *decimal) cmp(x *decimal) int {
	var diff decimal
	diff.set(d)
	diff.sub(x)
	return diff.coef.Sign()
}

// sign is -1, 0 or +1.
func (d *decimal) sign() int { return d.coef.Sign() }

// set sets d to x.
func (d *decimal) set(x *decimal) {
	d.coef.Set(&x.coef)
	d.scale = x.scale
}

// uintDecimal is n as a decimal.
func uintDecimal(n uint64) decimal {
	var d decimal
	d.coef.SetUint64(n)
	return d
}

// uint64 is d as a count: d is a whole number (a sum and difference of
// counts); one past 2^64-1 stops there.
func (d *decimal) uint64() uint64 {
	if d.coef.Sign() <= 0 {
		return 0
	}
	n := new(big.Int).Set(&d.coef)
	if d.scale < 0 {
		scaleUp(n, -d.scale)
	} else if d.scale > 0 {
		n.Quo(n, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(d.scale)), nil))
	}
	if !n.IsUint64() {
		return ^uint64(0)
	}
	return n.Uint64()
}
