package usagesum

import (
	"math"
	"testing"
)

func TestSat(t *testing.T) {
	for _, c := range []struct{ a, b, want uint64 }{
		{1, 2, 3}, {math.MaxUint64, 0, math.MaxUint64}, {math.MaxUint64 - 1, 1, math.MaxUint64}, {math.MaxUint64, 5, math.MaxUint64},
	} {
		if got := Sat(c.a, c.b); got != c.want {
			t.Errorf("Sat(%d, %d) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

func TestAddStoresANewPointer(t *testing.T) {
	var dst *uint64
	Add(&dst, nil)
	if dst != nil {
		t.Fatal("adding nil made a count")
	}
	v := uint64(2)
	Add(&dst, &v)
	if dst == &v || *dst != 2 {
		t.Fatalf("first add: %p %d, want a copy of 2", dst, *dst)
	}
	shared := dst
	Add(&dst, &v)
	if *dst != 4 || *shared != 2 {
		t.Errorf("second add: %d (the old pointer %d), want 4 (2)", *dst, *shared)
	}
}
