// Package exact writes exact decimals (sums and differences of the
// numbers a stream wrote, such as costs) as JSON numbers, never going
// through float64, whose rounding would change the digits written back.
package exact

import (
	"math/big"
	"strings"
)

// Decimal writes r as a plain decimal (no exponent) rounded to at most places
// fraction digits, without trailing zeros: 1.50 is 1.5, and -0 is 0.
func Decimal(r *big.Rat, places int) string {
	s := r.FloatString(places)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if s == "-0" {
		s = "0"
	}
	return s
}
