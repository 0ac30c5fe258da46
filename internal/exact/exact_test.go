package exact

import (
	"math/big"
	"testing"
)

func TestDecimal(t *testing.T) {
	for _, c := range []struct {
		in     string
		places int
		want   string
	}{
		{"1.50", 2, "1.5"}, {"3", 4, "3"}, {"-0.0001", 2, "0"}, {"0.125", 2, "0.13"}, {"12.000", 3, "12"}, {"-1.25", 2, "-1.25"},
	} {
		r, _ := new(big.Rat).SetString(c.in)
		if got := Decimal(r, c.places); got != c.want {
			t.Errorf("Decimal(%s, %d) = %q, want %q", c.in, c.places, got, c.want)
		}
	}
}
