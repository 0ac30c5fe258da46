package stats

import (
	"math/rand/v2"
	"testing"
)

// TestKeySet: every key added is found, none other is, a key is new once,
// across many flushes and merges; and the runs stay few.
func TestKeySet(t *testing.T) {
	var s keySet
	r := rand.New(rand.NewPCG(1, 2))
	keys := make([]uint64, 0, 300_000)
	in := map[uint64]bool{}
	for range cap(keys) {
		k := r.Uint64()
		keys = append(keys, k)
		if s.add(k) == in[k] {
			t.Fatalf("add(%d) new = %v, but the key was in: %v", k, !in[k], in[k])
		}
		in[k] = true
	}
	for _, k := range keys {
		if !s.has(k) || s.add(k) {
			t.Fatalf("key %d lost", k)
		}
	}
	for range 10_000 {
		if k := r.Uint64(); !in[k] && s.has(k) {
			t.Fatalf("key %d found, never added", k)
		}
	}
	if s.len() != len(in) {
		t.Errorf("len %d, want %d", s.len(), len(in))
	}
	for p, runs := range s.parts {
		if len(runs) > 8 {
			t.Errorf("part %d: %d runs for %d keys: the merging does not keep them few", p, len(runs), s.len())
		}
		for _, run := range runs {
			for i := 1; i < len(run); i++ {
				if run[i-1] >= run[i] {
					t.Fatal("a run is not sorted")
				}
			}
			for _, k := range run {
				if part(k) != p {
					t.Fatalf("key %d in part %d, not its own %d", k, p, part(k))
				}
			}
		}
	}
}

// TestKeySetSequential: keys that differ only in their low bits (a count)
// are dealt to every part, and found.
func TestKeySetSequential(t *testing.T) {
	var s keySet
	const n = 100_000
	for k := uint64(1); k <= n; k++ {
		if !s.add(k) {
			t.Fatalf("key %d not new", k)
		}
	}
	for k := uint64(1); k <= n; k++ {
		if !s.has(k) {
			t.Fatalf("key %d lost", k)
		}
	}
	if s.has(0) || s.has(n+1) || s.len() != n {
		t.Fatalf("len %d, want %d", s.len(), n)
	}
	used := 0
	for _, runs := range s.parts {
		if len(runs) > 0 {
			used++
		}
	}
	if used < keyParts*9/10 {
		t.Errorf("a count's keys went to %d parts of %d", used, keyParts)
	}
}
