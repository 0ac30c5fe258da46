package stats

import "slices"

// keySet is the set of the responses and tool calls a report has counted
// (their 64-bit keys), which it must remember for every run it reads:
// a resumed session's file may replay a response counted a thousand
// files before. A Go map of them took 20 to 40 bytes a key, 50 MB and more
// over a 10 GB history; this takes 8, exactly, and forgets nothing.
//
// New keys go into a small map; when it fills, its keys are sorted and
// dealt to 256 parts by a hash of the key, each part's share a run of the
// part, and runs of like size in a part are merged (as a binomial heap
// merges its trees), so that a part has at most about
// log2(n/recentMax) runs, each searched by bisection. Merging part by
// part keeps the memory a merge takes beside the keys to a part's
// share: merged whole, the last merges of a large history held the set
// twice over for a moment, which was the peak of the whole report.
type keySet struct {
	recent map[uint64]struct{}
	parts  [keyParts][][]uint64 // each part's runs, sorted, each at least twice the size of the next
}

// recentMax is how many keys wait in the map before they are sorted;
// keyParts, how many parts the sorted keys are dealt to.
const (
	recentMax = 1 << 14
	keyParts  = 256
)

// part returns the part of k: the top bits of k, mixed, so that keys that
// are not uniform in their top bits (a count, a structured key) still
// spread.
func part(k uint64) int { return int((k * 0x9e3779b97f4a7c15) >> 56) }

func (s *keySet) has(k uint64) bool {
	if _, ok := s.recent[k]; ok {
		return true
	}
	for _, r := range s.parts[part(k)] {
		if _, ok := slices.BinarySearch(r, k); ok {
			return true
		}
	}
	return false
}

// add adds k and reports whether it was new.
func (s *keySet) add(k uint64) bool {
	if s.has(k) {
		return false
	}
	if s.recent == nil {
		s.recent = make(map[uint64]struct{}, recentMax)
	}
	s.recent[k] = struct{}{}
	if len(s.recent) >= recentMax {
		s.flush()
	}
	return true
}

// flush sorts the recent keys into a run of each part and merges the
// part's runs of like size.
func (s *keySet) flush() {
	var counts [keyParts]int
	for k := range s.recent {
		counts[part(k)]++
	}
	var runs [keyParts][]uint64
	for p, n := range counts {
		if n > 0 {
			runs[p] = make([]uint64, 0, n)
		}
	}
	for k := range s.recent {
		p := part(k)
		runs[p] = append(runs[p], k)
	}
	clear(s.recent)
	for p, run := range runs {
		if len(run) == 0 {
			continue
		}
		slices.Sort(run)
		rs := s.parts[p]
		for len(rs) > 0 {
			last := rs[len(rs)-1]
			if len(last) > 2*len(run) {
				break
			}
			rs = rs[:len(rs)-1]
			run = merge(last, run)
		}
		s.parts[p] = append(rs, run)
	}
}

// merge returns the sorted union of two sorted runs without common keys.
func merge(a, b []uint64) []uint64 {
	out := make([]uint64, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		if a[0] < b[0] {
			out, a = append(out, a[0]), a[1:]
		} else {
			out, b = append(out, b[0]), b[1:]
		}
	}
	out = append(out, a...)
	return append(out, b...)
}

// len returns the number of keys.
func (s *keySet) len() int {
	n := len(s.recent)
	for _, runs := range s.parts {
		for _, r := range runs {
			n += len(r)
		}
	}
	return n
}
