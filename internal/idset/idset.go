// Package idset remembers ids compactly: by a 64-bit digest of each, with an
// optional 64-bit value (a line number, say) beside it.
//
// The stream checkers and encoders keep full state only for the calls,
// permissions and tasks that are open; once an item closes, they keep its id
// here, so that a second tool_call for the id, or a call finished twice, is
// still found on a run of gigabytes. A Set costs 8 bytes per slot (16 once a
// non-zero value was stored) at a load of 3/8 to 3/4: 11 to 21 bytes per id
// (21 to 43 with values), never the id itself; while it grows, the old
// table lives beside the new one for a moment.
//
// The digest is FNV-1a 64, which is the same in every process, so a run's
// findings do not depend on a random seed. Two distinct ids share a digest
// with probability 2^-64, so among n ids some pair collides with probability
// about n²/2^65: 3e-4 for a hundred million ids. A collision makes a fresh
// id look already seen: a checker reports a false duplicate (it never misses
// a true one), and the ACP encoder drops the fresh call's events as coming
// after its end.
package idset

import "math"

// Digest is the FNV-1a 64 hash of s.
func Digest(s string) uint64 {
	const (
		offset = 14695981039346656037
		prime  = 1099511628211
	)
	h := uint64(offset)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= prime
	}
	return h
}

// Set is a set of ids, each with a value. The zero Set is empty and ready
// to use. It is not safe for concurrent use.
type Set struct {
	keys []uint64 // open addressing, linear probing; 0 is an empty slot
	vals []uint64 // parallel to keys; nil while every value is 0
	n    int
}

// slot maps a digest to a stored key: 0 marks an empty slot, so a digest of
// 0 is stored as 1 (which merely makes those two digests collide).
func slot(d uint64) uint64 {
	if d == 0 {
		return 1
	}
	return d
}

// Len returns the number of ids in s.
func (s *Set) Len() int { return s.n }

// Has reports whether id is in s.
func (s *Set) Has(id string) bool {
	_, ok := s.Get(id)
	return ok
}

// Get returns id's value and whether id is in s.
func (s *Set) Get(id string) (uint64, bool) {
	if s.n == 0 {
		return 0, false
	}
	k := slot(Digest(id))
	i := s.find(k)
	if s.keys[i] != k {
		return 0, false
	}
	if s.vals == nil {
		return 0, true
	}
	return s.vals[i], true
}

// Add puts id in s with value v, replacing the value it had. It reports
// whether id was already in s.
func (s *Set) Add(id string, v uint64) bool {
	if len(s.keys) == 0 || (s.n+1)*4 > len(s.keys)*3 {
		s.grow()
	}
	k := slot(Digest(id))
	i := s.find(k)
	had := s.keys[i] == k
	if !had {
		s.keys[i] = k
		s.n++
	}
	if v != 0 && s.vals == nil {
		s.vals = make([]uint64, len(s.keys))
	}
	if s.vals != nil {
		s.vals[i] = v
	}
	return had
}

// find returns the slot of k, or the empty slot where it would go.
func (s *Set) find(k uint64) int {
	mask := uint64(len(s.keys) - 1)
	// The digest's low bits pick the slot; mix the high ones in so that
	// ids that differ only at the end still spread.
	i := (k ^ k>>32) & mask
	for s.keys[i] != 0 && s.keys[i] != k {
		i = (i + 1) & mask
	}
	return int(i)
}

func (s *Set) grow() {
	size := 2 * len(s.keys)
	if size == 0 {
		size = 64
	}
	old, oldVals := s.keys, s.vals
	s.keys = make([]uint64, size)
	if oldVals != nil {
		s.vals = make([]uint64, size)
	}
	for j, k := range old {
		if k == 0 {
			continue
		}
		i := s.find(k)
		s.keys[i] = k
		if oldVals != nil {
			s.vals[i] = oldVals[j]
		}
	}
}

// Line clamps a line number to what a value of 32 bits holds, for callers
// that pack a line with something else into one value; a line beyond it
// reads back as math.MaxUint32.
func Line(n int) uint64 {
	if n < 0 {
		return 0
	}
	if uint64(n) > math.MaxUint32 {
		return math.MaxUint32
	}
	return uint64(n)
}
