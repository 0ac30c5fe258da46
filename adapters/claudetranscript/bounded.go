package claudetranscript

import "strings"

// bounded is a map that keeps at most max keys, forgetting the oldest
// first: the decoder's per-id state (a call's name, which Task call an
// agent answers) must stay bounded however long the transcript, and what
// it forgets is an old id no later line is likely to name.
type bounded[V any] struct {
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

func newBounded[V any](max int) bounded[V] {
	return bounded[V]{max: max, m: map[string]slot[V]{}}
}

func (b *bounded[V]) get(k string) (V, bool) {
	s, ok := b.m[k]
	return s.v, ok
}

// put sets the value of k, letting the oldest key go when there are too
// many. A new key is copied: k is often cut from a line, whose copy it
// would keep alive.
func (b *bounded[V]) put(k string, v V) {
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

func (b *bounded[V]) del(k string) { delete(b.m, k) }
