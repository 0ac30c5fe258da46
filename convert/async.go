package convert

import (
	"bufio"
	"sync/atomic"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
)

// asyncThreshold is how much input is read before the encoder gets a
// goroutine of its own; a small input stays on the simple path.
const asyncThreshold = 1 << 20

// bigLine is the length past which a line's events are encoded before the
// next line is read, so that no more than one giant line is held at once.
const bigLine = 1 << 20

// pipe runs an encoder in a goroutine of its own, beside the reading and
// decoding: with workers checking lines ahead, the decoding and the
// encoding are what remain in order, and each can have a core. The events
// go over in input order and are written in it, so the output is the same
// bytes as on the simple path.
type pipe struct {
	ch     chan []batch
	held   []batch // lines not yet handed over
	bytes  int     // their input bytes
	done   chan struct{}
	failed atomic.Bool
	err    error // the first error; read after done is closed
	events int   // events encoded; read after done is closed
}

// batch is the events of one line.
type batch struct {
	line  int // for the losses' first line
	evs   []*event.Event
	flush bool          // the input has nothing more buffered: flush after
	ack   chan struct{} // closed once the batch is written, if not nil
}

func startPipe(enc dialect.Encoder, bw *bufio.Writer, losses *dialect.Losses) *pipe {
	p := &pipe{ch: make(chan []batch, 16), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		for bs := range p.ch {
			for _, b := range bs {
				p.write(enc, bw, losses, b)
			}
		}
	}()
	return p
}

// write encodes one line's events.
func (p *pipe) write(enc dialect.Encoder, bw *bufio.Writer, losses *dialect.Losses, b batch) {
	if p.err == nil {
		losses.SetLine(b.line)
		for _, ev := range b.evs {
			p.events++
			if p.err = enc.Encode(ev); p.err != nil {
				break
			}
		}
		if p.err == nil && b.flush {
			p.err = bw.Flush()
		}
		if p.err != nil {
			p.failed.Store(true)
		}
	}
	if b.ack != nil {
		close(b.ack)
	}
}

// Lines are handed over in groups, so that the encoder's goroutine is
// woken once per group rather than once per line.
const (
	groupLines = 128
	groupBytes = 256 << 10
)

// send hands over one line's events; size is the line's length. A line
// after which the input has nothing buffered (flush), or a giant one, is
// handed over at once with the lines held before it.
func (p *pipe) send(line int, evs []*event.Event, flush bool, size int) {
	b := batch{line: line, evs: evs, flush: flush}
	if size > bigLine {
		b.ack = make(chan struct{})
	}
	p.held = append(p.held, b)
	p.bytes += size
	if flush || b.ack != nil || len(p.held) >= groupLines || p.bytes >= groupBytes {
		p.ch <- p.held
		p.held, p.bytes = nil, 0
	}
	if b.ack != nil {
		<-b.ack
	}
}

// stop waits for every batch sent to be written and returns the first
// error and the number of events encoded.
func (p *pipe) stop() (int, error) {
	if len(p.held) > 0 {
		p.ch <- p.held
		p.held = nil
	}
	close(p.ch)
	<-p.done
	return p.events, p.err
}
