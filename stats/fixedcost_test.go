package stats

import (
	"math/rand/v2"
	"testing"

	"github.com/evtool/evtool/prices"
)

// TestFixedCostIsTheRational holds the whole-number pricing to
// prices.Model.Cost: for every list of every model of the embedded
// table, counts at the edges (0, the threshold and one past it, 2^64-1)
// and random ones give the decimal the rational's text parses to.
func TestFixedCostIsTheRational(t *testing.T) {
	tab, err := prices.Default()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	edges := []uint64{0, 1, 7, 199_999, 200_000, 200_001, 128_000, 128_001, 1 << 32, 1<<63 + 3, ^uint64(0)}
	pick := func() uint64 {
		switch rng.IntN(4) {
		case 0:
			return edges[rng.IntN(len(edges))]
		case 1:
			return rng.Uint64()
		default:
			return rng.Uint64N(400_000)
		}
	}
	lists, fixed, checked := 0, 0, 0
	for _, m := range tab.Models() {
		all := []*prices.List{&m.List}
		for i := range m.Dated {
			all = append(all, &m.Dated[i].List)
		}
		for _, l := range all {
			lists++
			f := newFixedList(l)
			if f.ok {
				fixed++
			}
			for range 40 {
				tk := prices.Tokens{Input: pick(), Output: pick(), CacheRead: pick(), CacheWrite5m: pick(), CacheWrite1h: pick(), Thoughts: pick()}
				got, ok := f.cost(tk)
				if !ok {
					continue
				}
				want, err := parseDecimal(prices.Decimal(l.Cost(tk)))
				if err != nil {
					t.Fatal(err)
				}
				if got.coef.Cmp(&want.coef) != 0 || got.scale != want.scale {
					t.Fatalf("%s %+v: fixed %s (scale %d), rational %s (scale %d)", m.Key, tk, got.String(), got.scale, want.String(), want.scale)
				}
				checked++
			}
		}
	}
	// Every list of the embedded table fits: else the fast path would
	// be a slow one in disguise.
	if fixed != lists {
		t.Errorf("%d of %d lists on whole numbers, want all", fixed, lists)
	}
	if checked < lists*10 {
		t.Errorf("only %d costs compared for %d lists", checked, lists)
	}
	t.Logf("%d lists, %d costs compared", lists, checked)
}
