package stats

import (
	"io"

	"github.com/evtool/evtool/stream"
)

// Ahead reads several streams at once, each on a goroutine of its own, and
// hands each back in the order it was added. A report depends on the order
// of its runs (the first copy of a record is the one kept, and rows list
// entries as they came), and so does what a command prints of each stream:
// both stay those of reading the streams one after another, whatever
// finishes first.
//
// Add and Wait are called from one goroutine, and the done functions run
// on it, one at a time, in the order of Add: that is where a Report takes
// each run (it is not safe for concurrent use) and where a command prints.
// The zero Ahead reads one stream at a time.
type Ahead struct {
	// N is how many streams are read at once (less than 1: one).
	N int

	q   []*pending
	sem chan struct{} // a token for each stream being read, up to N
}

// queued is how many streams may be in line for each one read at once: a
// stream read, waiting for the one before it to be handed back, holds a
// reader no more. Without it one long stream kept the others' readers
// waiting behind it, and a history of files of many sizes was read on 1.6
// of 2 cores; a stream read and not yet handed back keeps only its run's
// records (see collector).
const queued = 3

// maxHeld is how many problem lines a stream read ahead of its turn keeps
// for Options.LineError before it waits for its turn, so that the lines are
// reported in order in memory that does not grow with their number.
const maxHeld = 1024

// pending is a stream being read, or read and not yet handed back.
type pending struct {
	done     func(*Run, error)
	run      *Run
	col      *collector
	report   *Report
	err      error
	finished chan struct{}           // closed when the reading has ended
	turn     chan struct{}           // closed when the stream is the first in line
	to       func(*stream.LineError) // Options.LineError
	held     []*stream.LineError
	direct   bool          // held lines are out: report the rest as they come
	sem      chan struct{} // Ahead.sem: the reader's token
}

// Add starts reading r, which it closes at the end, as Read would with
// file and opts; when every stream added before has been handed back, done
// gets the run and the error Read would return (the run already in
// opts.Report when Read would have added it). An r of nil is a stream that
// could not be opened: done gets a nil run and openErr, in its turn.
// Options.LineError is called in turn too: a stream read ahead keeps up to
// 1,024 problem lines for it, then waits for its turn to go on.
func (a *Ahead) Add(r io.ReadCloser, openErr error, file string, opts Options, done func(*Run, error)) {
	n := max(a.N, 1)
	if a.sem == nil {
		a.sem = make(chan struct{}, n)
	}
	for len(a.q) >= queued*n {
		a.next()
	}
	p := &pending{done: done, report: opts.Report, err: openErr, finished: make(chan struct{}), turn: make(chan struct{}), sem: a.sem}
	a.q = append(a.q, p)
	if r == nil {
		close(p.finished)
		return
	}
	if p.to = opts.LineError; p.to != nil {
		opts.LineError = p.lineError
	}
	go func() {
		defer close(p.finished)
		a.sem <- struct{}{}
		defer func() { <-a.sem }()
		p.run, p.col, p.err = read(r, file, opts, opts.Report != nil)
		r.Close()
	}()
}

// lineError passes a problem line on when the stream is first in line, and
// keeps it until then otherwise (up to maxHeld, then waits).
func (p *pending) lineError(le *stream.LineError) {
	if !p.direct {
		if len(p.held) < maxHeld {
			p.held = append(p.held, le)
			return
		}
		// Waiting for its turn, the stream gives its reader's token back
		// for the streams before it, the first of which may be waiting
		// for one; first in line, it takes one again.
		<-p.sem
		<-p.turn
		p.sem <- struct{}{}
		p.release()
	}
	p.to(le)
}

// release passes on the lines held, once the stream is first in line.
func (p *pending) release() {
	for _, le := range p.held {
		p.to(le)
	}
	p.held, p.direct = nil, true
}

// next hands back the first stream in line, waiting for its end.
func (a *Ahead) next() {
	p := a.q[0]
	a.q[0] = nil
	a.q = a.q[1:]
	close(p.turn)
	<-p.finished
	if !p.direct && len(p.held) > 0 {
		// The reading ended before it had to wait: what it held is out
		// now, on this goroutine, before the run is handed back.
		p.release()
	}
	if p.col != nil && p.err == nil {
		p.report.addRun(p.col, p.run)
	}
	p.done(p.run, p.err)
}

// Wait hands back every stream added, in order.
func (a *Ahead) Wait() {
	for len(a.q) > 0 {
		a.next()
	}
}
