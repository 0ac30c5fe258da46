// Package recent keeps per-id state of a stream within a bound: a map of at
// most a fixed number of keys that forgets the oldest first.
//
// A decoder that must remember something of each open item (a call's name
// for its answer, which call an agent answers) cannot keep all of them: a
// stream may leave millions open. What it forgets is an old id that no
// later line is likely to name, and the decoder then reads that line as it
// reads one naming an id it never saw.
package recent

import "strings"

// Map is a map of at most Max keys. The zero Map is not usable: make one
// with New. It is not safe for concurrent use.
type Map[V any] struct {
	max   int
	next  uint64
	m     map[string]slot[V]
	queue []queued // keys in insertion order; entries of deleted keys linger
}

type slot[V any] struct {
	v   V
	seq uint64
}

type queued struct {
	k   string
	seq uint64
}

// New returns an empty Map that keeps at most max keys.
func New[V any](max int) Map[V] {
	return Map[V]{max: max, m: map[string]slot[V]{}}
}

// Get returns the value of k and whether the map holds k.
func (b *Map[V]) Get(k string) (V, bool) {
	s, ok := b.m[k]
	return s.v, ok
}

// Put sets the value of k, letting the oldest key go when there are too
// many. A new key is copied: k is often cut from a line, whose copy it
// would keep alive.
func (b *Map[V]) Put(k string, v V) {
	if s, ok := b.m[k]; ok {
		b.m[k] = slot[V]{v, s.seq}
		return
	}
	k = strings.Clone(k)
	b.next++
	b.m[k] = slot[V]{v, b.next}
	b.queue = append(b.queue, queued{k, b.next})
	for len(b.m) > b.max {
		q := b.queue[0]
		b.queue = b.queue[1:]
		if s, ok := b.m[q.k]; ok && s.seq == q.seq {
			delete(b.m, q.k)
		}
	}
	if len(b.queue) > 2*b.max+16 {
		// Entries of keys deleted since pile up: keep the live ones, in
		// order, so that the queue stays as bounded as the map.
		live := b.queue[:0:0]
		for _, q := range b.queue {
			if s, ok := b.m[q.k]; ok && s.seq == q.seq {
				live = append(live, q)
			}
		}
		b.queue = live
	}
}

// Delete forgets k.
func (b *Map[V]) Delete(k string) { delete(b.m, k) }

// Len returns the number of keys the map holds.
func (b *Map[V]) Len() int { return len(b.m) }
