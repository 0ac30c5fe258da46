package opencodestorage

import (
	"math"
	"testing"
)

// TestJSNumber: a REAL column is written as JavaScript prints the double
// (Number.prototype.toString, which JSON.stringify uses).
func TestJSNumber(t *testing.T) {
	for _, c := range []struct {
		f    float64
		want string
	}{
		{0, "0"}, {math.Copysign(0, -1), "0"}, {1, "1"}, {-2.5, "-2.5"}, {0.30000000000000004, "0.30000000000000004"},
		{0.04215, "0.04215"}, {1.5e-7, "1.5e-7"}, {0.000001, "0.000001"}, {1e-7, "1e-7"},
		{123456789012345680000, "123456789012345680000"}, {1e21, "1e+21"}, {1.7976931348623157e308, "1.7976931348623157e+308"},
		{math.NaN(), "null"}, {math.Inf(1), "null"},
	} {
		if got := jsNumber(c.f); got != c.want {
			t.Errorf("jsNumber(%v) = %s, want %s", c.f, got, c.want)
		}
	}
}
