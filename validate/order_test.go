package validate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/evtool/evtool/diag"
)

// TestOrderer: whatever the order diagnostics are found in, and however
// the caller releases them, the orderer passes on the stable sort of all
// of them, each only once it is released, in memory or spilled.
func TestOrderer(t *testing.T) {
	for _, max := range []int{1 << 30, 4 << 10, 300} {
		for seed := range uint64(20) {
			t.Run(fmt.Sprintf("held %d seed %d", max, seed), func(t *testing.T) {
				defer func(m int) { heldMax = m }(heldMax)
				heldMax = max
				checkOrderer(t, seed)
			})
		}
	}
}

func checkOrderer(t *testing.T, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	var found, out []Diagnostic
	below := 0 // the last release
	o := newOrderer(func(d Diagnostic) {
		if d.Line >= below {
			t.Fatalf("%s passed on at a release below line %d", d, below)
		}
		out = append(out, d)
	}, t.TempDir(), false)
	add := func(line int) {
		d := Diagnostic{File: "f", Line: line, Col: rng.IntN(3), Severity: diag.Severity(rng.IntN(2)),
			Rule: fmt.Sprint("r", rng.IntN(3)), Message: fmt.Sprint("m", rng.IntN(4)), Unknown: rng.IntN(2) == 0}
		found = append(found, d)
		o.add(d)
	}
	open := []int{} // lines that may still get a finding, as an open call's
	for n := 1; n <= 3000; n++ {
		for range rng.IntN(4) {
			add(n)
		}
		if rng.IntN(10) == 0 {
			open = append(open, n)
		}
		if len(open) > 0 && rng.IntN(8) == 0 {
			i := rng.IntN(len(open))
			if rng.IntN(2) == 0 {
				add(open[i]) // a late finding about an earlier line
			}
			open = slices.Delete(open, i, i+1)
		}
		w := n
		if len(open) > 0 {
			w = min(w, slices.Min(open))
		}
		if rng.IntN(3) > 0 {
			below = max(below, w)
			o.release(w)
		}
	}
	for _, l := range open { // the end, in any order
		add(l)
	}
	below = math.MaxInt
	o.close()
	want := slices.Clone(found)
	slices.SortStableFunc(want, diag.Compare)
	if !slices.Equal(out, want) {
		t.Fatalf("passed on %d diagnostics, want %d, or in another order", len(out), len(want))
	}
	if o.spill != nil {
		t.Error("the spill is still open")
	}
}

// TestOrdererLateFindings: a stream's end that reports thousands of
// findings about earlier lines, among the lines' own (every call left
// open), in line order with a release after each as validate does, or in
// any order (which merges the late ones into the held): the stable sort
// of all of them.
func TestOrdererLateFindings(t *testing.T) {
	for _, shuffled := range []bool{false, true} {
		t.Run(fmt.Sprint("shuffled ", shuffled), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(3, 7))
			var found, out []Diagnostic
			o := newOrderer(func(d Diagnostic) { out = append(out, d) }, t.TempDir(), false)
			add := func(line int, rule string) {
				d := Diagnostic{File: "f", Line: line, Rule: rule, Message: fmt.Sprint("m", rng.IntN(2)), Severity: diag.Severity(rng.IntN(2))}
				found = append(found, d)
				o.add(d)
			}
			const n = 5000
			for l := 1; l <= n; l++ {
				add(l, "seq")
			}
			lines := make([]int, 0, n)
			for l := 1; l <= n; l += 2 {
				lines = append(lines, l)
			}
			if shuffled {
				rng.Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
			}
			for _, l := range lines {
				add(l, "call")
				if !shuffled {
					o.release(l)
				}
			}
			o.close()
			want := slices.Clone(found)
			slices.SortStableFunc(want, diag.Compare)
			if !slices.Equal(out, want) {
				t.Fatalf("passed on %d diagnostics, want %d, or in another order", len(out), len(want))
			}
		})
	}
}
