package validate

import (
	"slices"
	"sync"
	"sync/atomic"
)

// asyncThreshold is how much input is read before the stream rules get a
// goroutine of their own; a small input stays on the simple path.
const asyncThreshold = 1 << 20

// bigLine is the length past which a line is checked before the next
// one is read, rather than copied: no more than one giant line is held.
const bigLine = 1 << 20

// item is one line as the stream rules need it.
type item struct {
	n     int // its physical line number
	lines int // non-blank lines read up to and with it
	raw   []byte
	json  bool
	diags []Diagnostic
	ack   chan struct{} // closed once the line is checked, if not nil
}

// pipe runs the stream rules in a goroutine of their own, beside the
// reading: with workers checking lines ahead, decoding and the rules were
// both left to one goroutine. Lines go over in input order and are
// reported in it, so the report is the same as on the simple path.
type pipe struct {
	ch      chan group
	done    chan struct{}
	stopped atomic.Bool // the rules stopped: MaxErrors, or a write failed
	held    []item      // lines not yet handed over
	arena   []byte      // their bytes
	// Set by the pipe's goroutine; read after done is closed.
	halted bool
	err    error
}

// group is lines handed over together, and the buffer that holds them.
type group struct {
	items []item
	arena []byte
}

// arenas are the groups' buffers, back from the goroutine for the next.
var arenas = sync.Pool{New: func() any { return make([]byte, 0, groupBytes) }}

// Lines are handed over in groups, so that the rules' goroutine is woken
// once per group rather than once per line.
const (
	groupLines = 128
	groupBytes = 256 << 10
)

func startPipe(line func(item) (bool, error), sum *Summary) *pipe {
	p := &pipe{ch: make(chan group, 8), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		for g := range p.ch {
			for _, it := range g.items {
				if !p.halted {
					if p.halted, p.err = line(it); p.halted {
						sum.Lines = it.lines
						p.stopped.Store(true)
					}
				}
				if it.ack != nil {
					close(it.ack)
				}
			}
			if cap(g.arena) == groupBytes {
				arenas.Put(g.arena[:0])
			}
		}
	}()
	return p
}

// send hands over a copy of one line; flush sends it at once, with the
// lines held before it (the input has nothing more buffered: a live
// producer waits for its report).
func (p *pipe) send(it item, flush bool) {
	if len(it.raw) > bigLine {
		// Not copied: checked before the Reader reuses its buffer.
		it.ack = make(chan struct{})
		it.diags = slices.Clone(it.diags)
		p.ch <- group{append(p.held, it), p.arena}
		p.held, p.arena = nil, nil
		<-it.ack
		return
	}
	if p.arena == nil {
		p.arena = arenas.Get().([]byte)
	}
	start := len(p.arena)
	p.arena = append(p.arena, it.raw...)
	it.raw = p.arena[start:len(p.arena):len(p.arena)]
	it.diags = slices.Clone(it.diags)
	p.held = append(p.held, it)
	if flush || len(p.held) >= groupLines || len(p.arena) >= groupBytes {
		p.ch <- group{p.held, p.arena}
		// New buffers: the goroutine reads the old ones.
		p.held, p.arena = nil, nil
	}
}

// stop waits for every line handed over to be checked and tells whether
// the rules stopped, and why.
func (p *pipe) stop() (bool, error) {
	if len(p.held) > 0 {
		p.ch <- group{p.held, p.arena}
		p.held, p.arena = nil, nil
	}
	close(p.ch)
	<-p.done
	return p.halted, p.err
}
