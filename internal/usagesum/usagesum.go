// Package usagesum adds token counts the way every adapter that sums a
// stream's usage must: saturating at the largest uint64 rather than
// wrapping, since a count that wrapped would read as a small, plausible
// and wrong number.
package usagesum

import "math"

// Sat returns a+b, saturating at the largest uint64.
func Sat(a, b uint64) uint64 {
	if a > math.MaxUint64-b {
		return math.MaxUint64
	}
	return a + b
}

// Add adds v (nil: nothing) to the count dst points at (nil: none yet),
// saturating. It stores a new pointer rather than writing through the old
// one, so that a usage copied from another never changes the other's
// counts.
func Add(dst **uint64, v *uint64) {
	if v == nil {
		return
	}
	n := *v
	if *dst != nil {
		n = Sat(**dst, n)
	}
	*dst = &n
}
