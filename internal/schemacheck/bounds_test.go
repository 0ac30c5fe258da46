package schemacheck

import (
	"encoding/json"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestShortBounds: where the float comparison of short numbers judges a
// value against bounds, its verdict is that of exact rationals, on values
// at, just beside and far from bounds of every shape it takes.
func TestShortBounds(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	bounds := []string{"0", "100", "-1", "0.5", "99.99", "1e3", "0.1", "123456789012345", "0.000000000000001", "-273.15"}
	decimal := func() string {
		digits := 1 + r.IntN(15)
		var b strings.Builder
		if r.IntN(3) == 0 {
			b.WriteByte('-')
		}
		point := r.IntN(digits + 1)
		for i := range digits {
			if i == point && i > 0 {
				b.WriteByte('.')
			}
			b.WriteByte(byte('0' + r.IntN(10)))
		}
		return b.String()
	}
	near := func(bound string) []string {
		// The bound itself, written longer, and one unit of its last
		// digit (of up to 15 significant digits) on either side.
		out := []string{bound, bound + ".0", bound + "00"}
		if strings.Contains(bound, ".") {
			out = out[:1]
			out = append(out, bound+"0")
		}
		return out
	}
	var values []string
	for range 20000 {
		values = append(values, decimal())
	}
	for _, b := range bounds {
		values = append(values, near(b)...)
		x, _ := new(big.Rat).SetString(b)
		for _, d := range []string{"0.000000000001", "0.0000001", "0.01", "1"} {
			dd, _ := new(big.Rat).SetString(d)
			for _, v := range []*big.Rat{new(big.Rat).Add(x, dd), new(big.Rat).Sub(x, dd)} {
				values = append(values, strings.TrimRight(strings.TrimRight(v.FloatString(15), "0"), "."))
			}
		}
	}
	checked := 0
	for _, lo := range bounds {
		for _, hi := range bounds {
			n := &node{}
			var err error
			if n.min, err = boundOf(jsonNumber(lo), "lo"); err != nil {
				t.Fatal(err)
			}
			if n.max, err = boundOf(jsonNumber(hi), "hi"); err != nil {
				t.Fatal(err)
			}
			for _, v := range values {
				got, ok := n.shortBounds(v)
				if !ok {
					continue
				}
				checked++
				x, ok := new(big.Rat).SetString(v)
				if !ok {
					t.Fatalf("%s does not parse", v)
				}
				want := Valid
				if x.Cmp(n.min.r) < 0 || x.Cmp(n.max.r) > 0 {
					want = Invalid
				}
				if got != want {
					t.Fatalf("%s in [%s, %s]: %v, exactly %v", v, lo, hi, got, want)
				}
			}
		}
	}
	if checked < 100000 {
		t.Errorf("only %d comparisons made by the short path", checked)
	}
	for _, long := range []string{"0.1234567890123456", "1e5", "1234567890123456.5", "1E-400"} {
		if _, ok := shortFloat(long); ok {
			t.Errorf("%s read as a short float", long)
		}
	}
}

func jsonNumber(s string) json.Number { return json.Number(s) }

// TestIntBounds: integers against bounds of the int64 range are judged as
// exact rationals judge them, at and beside the ends of the range.
func TestIntBounds(t *testing.T) {
	bounds := []string{"-9223372036854775808", "9223372036854775807", "-2147483648", "2147483647", "0", "-1", "18446744073709551615"}
	values := []string{"0", "-1", "1", "-2147483649", "-2147483648", "2147483648", "2147483647", "-999999999999999999", "999999999999999999",
		"-9223372036854775808", "-9223372036854775809", "9223372036854775807", "9223372036854775808", "18446744073709551616", "-18446744073709551616"}
	for _, lo := range bounds {
		for _, hi := range bounds {
			n := &node{}
			n.min, _ = boundOf(jsonNumber(lo), "lo")
			n.max, _ = boundOf(jsonNumber(hi), "hi")
			for _, v := range values {
				x, _ := new(big.Rat).SetString(v)
				want := Valid
				if x.Cmp(n.min.r) < 0 || x.Cmp(n.max.r) > 0 {
					want = Invalid
				}
				if got := n.boundsOK(v); got != want {
					t.Errorf("%s in [%s, %s]: %v, exactly %v", v, lo, hi, got, want)
				}
			}
		}
	}
}
