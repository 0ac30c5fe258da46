// Package idset remembers ids compactly: by a 64-bit digest of each, with an
// optional 64-bit value (a line number, say) beside it.
//
// The stream checkers and encoders keep full state only for the calls,
// permissions and tasks that are open; once an item closes, they keep its id
// here, so that a second tool_call for the id, or a call finished twice, is
// still found on a run of gigabytes. A Set costs 8 bytes per slot (16 once a
// non-zero value was stored) at a load of 3/8 to 3/4: 11 to 21 bytes per id
// (21 to 43 with values), never the id itself, and it is bounded: it keeps
// two generations of ids and forgets the oldest (see Generation), so its
// memory stays under 8 MiB however long the run.
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

// Generation is how many ids a Set remembers in full before it starts
// forgetting the oldest: a Set holds its ids in two generations of up to
// Generation ids each, and when the newer fills, the older is dropped. So a
// Set never holds more than 2×Generation ids, 8 MiB with values (two
// tables of 2^18 slots of 16 bytes), and every id among the last
// Generation added is always remembered. An id older than that may be
// forgotten: a checker then misses a duplicate (a false negative) only
// when the two uses of one id are more than 196,608 other ids of its kind
// apart; it never
// reports a false one for that reason. The bound is what keeps a reader
// of a run of millions of calls within its memory budget.
const Generation = 3 << 16 // 196,608: 3/4 of 2^18 slots

// Set is a set of ids, each with a value, that remembers at least the last
// Generation ids added (see Generation). The zero Set is empty and ready to
// use. It is not safe for concurrent use.
type Set struct {
	cur, old table
	max      int // ids per generation; Generation unless a test lowers it
}

// table is one generation: open addressing with linear probing.
type table struct {
	keys []uint64 // 0 is an empty slot
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

// Len returns the number of entries s holds: the ids it remembers, with an
// id counted twice while it is in both generations.
func (s *Set) Len() int { return s.cur.n + s.old.n }

// Has reports whether id is in s.
func (s *Set) Has(id string) bool {
	_, ok := s.Get(id)
	return ok
}

// Get returns id's value and whether id is in s.
func (s *Set) Get(id string) (uint64, bool) {
	k := slot(Digest(id))
	if v, ok := s.cur.get(k); ok {
		return v, true
	}
	return s.old.get(k)
}

// Add puts id in s with value v, replacing the value it had. It reports
// whether id was already in s.
func (s *Set) Add(id string, v uint64) bool {
	k := slot(Digest(id))
	if s.cur.has(k) {
		s.cur.put(k, v)
		return true
	}
	_, had := s.old.get(k)
	max := s.max
	if max == 0 {
		max = Generation
	}
	if s.cur.n >= max {
		s.old, s.cur = s.cur, table{}
	}
	s.cur.put(k, v)
	return had
}

func (t *table) get(k uint64) (uint64, bool) {
	if t.n == 0 {
		return 0, false
	}
	i := t.find(k)
	if t.keys[i] != k {
		return 0, false
	}
	if t.vals == nil {
		return 0, true
	}
	return t.vals[i], true
}

func (t *table) has(k uint64) bool {
	_, ok := t.get(k)
	return ok
}

func (t *table) put(k, v uint64) {
	if len(t.keys) == 0 || (t.n+1)*4 > len(t.keys)*3 {
		t.grow()
	}
	i := t.find(k)
	if t.keys[i] != k {
		t.keys[i] = k
		t.n++
	}
	if v != 0 && t.vals == nil {
		t.vals = make([]uint64, len(t.keys))
	}
	if t.vals != nil {
		t.vals[i] = v
	}
}

// find returns the slot of k, or the empty slot where it would go.
func (t *table) find(k uint64) int {
	mask := uint64(len(t.keys) - 1)
	// The digest's low bits pick the slot; mix the high ones in so that
	// ids that differ only at the end still spread.
	i := (k ^ k>>32) & mask
	for t.keys[i] != 0 && t.keys[i] != k {
		i = (i + 1) & mask
	}
	return int(i)
}

func (t *table) grow() {
	size := 2 * len(t.keys)
	if size == 0 {
		size = 64
	}
	old, oldVals := t.keys, t.vals
	t.keys = make([]uint64, size)
	if oldVals != nil {
		t.vals = make([]uint64, size)
	}
	for j, k := range old {
		if k == 0 {
			continue
		}
		i := t.find(k)
		t.keys[i] = k
		if oldVals != nil {
			t.vals[i] = oldVals[j]
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
