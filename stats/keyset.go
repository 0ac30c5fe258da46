package stats

import "slices"

// keySet is the set of the responses and tool calls a report has counted
// (their 64-bit keys), which it must remember for every run it reads:
// a resumed session's file may replay a response counted a thousand
// files before. A Go map of them took 20 to 40 bytes a key, 50 MB and more
// over a 10 GB history; this takes 8, exactly, and forgets nothing.
//
// New keys go into a small map; when it fills, its keys are sorted into a
// run, and runs of like size are merged (as a binomial heap merges its
// trees), so that there are at most about log2(n/recentMax) runs, each
// searched by bisection.
type keySet struct {
	recent map[uint64]struct{}
	runs   [][]uint64 // sorted, each at least twice the size of the next
}

// recentMax is how many keys wait in the map before they are sorted.
const recentMax = 1 << 14

func (s *keySet) has(k uint64) bool {
	if _, ok := s.recent[k]; ok {
		return true
	}
	for _, r := range s.runs {
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

// flush sorts the recent keys into a run and merges the runs of like size.
func (s *keySet) flush() {
	run := make([]uint64, 0, len(s.recent))
	for k := range s.recent {
		run = append(run, k)
	}
	slices.Sort(run)
	clear(s.recent)
	for len(s.runs) > 0 {
		last := s.runs[len(s.runs)-1]
		if len(last) > 2*len(run) {
			break
		}
		s.runs = s.runs[:len(s.runs)-1]
		run = merge(last, run)
	}
	s.runs = append(s.runs, run)
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
	for _, r := range s.runs {
		n += len(r)
	}
	return n
}
