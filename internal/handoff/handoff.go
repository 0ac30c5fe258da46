// Package handoff hands a stream's lines, in order, to one goroutine that
// finishes them (encodes them, runs stream rules on them) beside the
// goroutine that reads them.
//
// Lines go over in groups, so that the other goroutine is woken once per
// group rather than once per line; a line after which the input has
// nothing more buffered goes over at once (a live producer waits for its
// output), and a giant line is finished before Send returns, so that the
// reader never holds two.
package handoff

import "sync/atomic"

// Threshold is how much input a command reads before it starts a Queue: a
// small input stays on the simple path.
const Threshold = 1 << 20

// Big is the size past which a line is finished before Send returns.
const Big = 1 << 20

// A group goes over at this many lines or bytes.
const (
	groupLines = 128
	groupBytes = 256 << 10
)

// Queue finishes items of type T, in the order sent, in a goroutine of its
// own.
type Queue[T any] struct {
	ch      chan []entry[T]
	done    chan struct{}
	stopped atomic.Bool
	held    []entry[T] // items not yet handed over
	bytes   int        // their sizes
	last    int        // how many items the last group handed over held
}

type entry[T any] struct {
	item T
	ack  chan struct{} // closed once the item is finished, if not nil
}

// Start starts a Queue whose goroutine calls finish for each item, in
// order, until finish returns true (stop: an error, or enough errors);
// the items after that are dropped.
func Start[T any](finish func(T) (stop bool)) *Queue[T] {
	q := &Queue[T]{ch: make(chan []entry[T], 8), done: make(chan struct{})}
	go func() {
		defer close(q.done)
		for es := range q.ch {
			for _, e := range es {
				if !q.stopped.Load() && finish(e.item) {
					q.stopped.Store(true)
				}
				if e.ack != nil {
					close(e.ack)
				}
			}
		}
	}()
	return q
}

// Send hands over an item whose line is size bytes long. The item must not
// share memory the caller will change: copy what the reader reuses. flush
// says the input has nothing more buffered.
func (q *Queue[T]) Send(item T, size int, flush bool) {
	e := entry[T]{item: item}
	if size > Big {
		e.ack = make(chan struct{})
	}
	if q.held == nil {
		// A group's room at once: grown from nothing, each group cost
		// twice its size in garbage.
		q.held = make([]entry[T], 0, min(groupLines, max(8, q.last)))
	}
	q.held = append(q.held, e)
	q.bytes += size
	if flush || e.ack != nil || len(q.held) >= groupLines || q.bytes >= groupBytes {
		q.ch <- q.held
		q.held, q.bytes, q.last = nil, 0, len(q.held)
	}
	if e.ack != nil {
		<-e.ack
	}
}

// Stopped reports whether finish asked to stop.
func (q *Queue[T]) Stopped() bool { return q.stopped.Load() }

// Close waits until every item sent is finished (or dropped) and reports
// whether finish asked to stop. The goroutine's results may be read after
// it returns.
func (q *Queue[T]) Close() (stopped bool) {
	if len(q.held) > 0 {
		q.ch <- q.held
		q.held = nil
	}
	close(q.ch)
	<-q.done
	return q.stopped.Load()
}
