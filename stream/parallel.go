package stream

import (
	"errors"
	"sync/atomic"

	"github.com/evtool/evtool/diag"
	"github.com/evtool/evtool/internal/jsonptr"
	"github.com/evtool/evtool/ndjson"
)

// The parallel reading. What a line is on its own (its syntax and its
// schema verdict) does not depend on the lines before it, so workers find
// it for many lines at once; what depends on order (detection, decoding,
// the stream rules a caller runs, writing) stays in the caller's
// goroutine and sees the lines in input order. The verdicts are the ones
// the simple path gives, so the output is the same byte for byte whatever
// the number of workers.

const (
	// batchBytes and batchLines bound a batch of lines handed to a worker.
	batchBytes = 256 << 10
	batchLines = 2048
	// parallelAfter is how much input the simple path reads before the
	// workers start: small inputs never pay for the goroutines.
	parallelAfter = 1 << 20
)

// parallelThreshold is parallelAfter; tests lower it.
var parallelThreshold int64 = parallelAfter

// maxBatchIndex is the most room for indexes a batch keeps from one use
// to the next.
const maxBatchIndex = 1 << 16

// batch is a run of consecutive lines, copied out of the ndjson reader.
type batch struct {
	buf   []byte
	lines []pline
	// conts and mems are the indexes of the batch's lines (see pline),
	// for a decoder that takes them, else room to make one line's in.
	conts []ndjson.Container
	mems  []ndjson.Member
	err   error // what ended the batch early: io.EOF or a read error
	done  chan struct{}
	owned bool // buf is a long line taken from the reader, not a reused buffer
}

// pline is one line of a batch with its verdict on its own.
type pline struct {
	n        int
	off, end int
	term     string // the line's terminator
	depth    int    // how deep it nests
	tooLong  *ndjson.LineTooLongError
	syn      *ndjson.SyntaxError
	schema   []diag.Diagnostic // with pointer, column and message; rule and file set later
	checkedS bool              // the schema was checked (the line is JSON)
	// indexed is set when the line's index is kept: its containers in
	// batch.conts[cFrom:cTo], its members in batch.mems[mFrom:mTo].
	indexed    bool
	cFrom, cTo int32
	mFrom, mTo int32
}

func (b *batch) raw(i int) []byte { return b.buf[b.lines[i].off:b.lines[i].end] }

// pipeline is the machinery behind a Reader with workers.
type pipeline struct {
	order  chan *batch // batches in input order, for the caller
	work   chan *batch // the same batches, for the workers
	free   chan *batch // batches to reuse
	stop   chan struct{}
	ahead  atomic.Int64 // bytes read into batches the caller has not taken yet
	cur    *batch
	idx    int
	closed bool
	keep   bool // batches are not reused (Options.KeepLines)
}

// startPipeline hands the rest of the input to a reading goroutine and
// workers. It is called once the dialect, and so the schema, is known.
func (r *Reader) startPipeline() {
	n := r.opts.Workers
	p := &pipeline{
		order: make(chan *batch, 2*n),
		work:  make(chan *batch, 2*n),
		free:  make(chan *batch, 2*n+2),
		stop:  make(chan struct{}),
		keep:  r.opts.KeepLines,
	}
	r.par = p
	chk, sch, keep := ndjson.Options{MaxDepth: r.opts.MaxDepth, DuplicateOK: r.dupOK}, r.sch, r.taker != nil
	// A live pipe's line goes on at once: a batch ends where the input
	// read so far does. A whole file (Lookahead) is read into full
	// batches: cut at each read (64 KiB), a batch of new memory
	// (KeepLines) would be a 320 KiB buffer for 64 KiB of lines.
	live := !r.opts.Lookahead
	for range n {
		go func() {
			for b := range p.work {
				if cap(b.mems) > maxBatchIndex || cap(b.conts) > maxBatchIndex {
					b.conts, b.mems = nil, nil // a freak line's: let it go
				}
				b.conts, b.mems = b.conts[:0], b.mems[:0]
				for i := range b.lines {
					checkLine(b, i, chk, sch, keep)
				}
				close(b.done)
			}
		}()
	}
	go func() {
		defer close(p.work)
		defer close(p.order)
		nd := r.nd
		var carry []byte // a long line read after the lines of a batch
		var carryN int
		var carryTerm string
		for {
			var b *batch
			select {
			case b = <-p.free:
				b.buf, b.lines, b.err = b.buf[:0], b.lines[:0], nil
			default:
				b = &batch{}
			}
			if b.owned {
				b.buf, b.owned = nil, false // a long line's buffer is not reused
			}
			if b.buf == nil && carry == nil {
				// A new buffer is sized for the batch at once, not grown
				// line by line: a history of many files is read by as
				// many Readers, each starting its batches anew.
				b.buf = make([]byte, 0, batchBytes+batchBytes/4)
			}
			b.done = make(chan struct{})
			if carry != nil {
				// The long line that ended the batch before.
				b.buf, b.owned = carry, true
				b.lines = append(b.lines, pline{n: carryN, off: 0, end: len(carry), term: carryTerm})
				carry = nil
			}
			for len(b.lines) == 0 || !b.owned {
				raw, n, err := nd.Next()
				var tl *ndjson.LineTooLongError
				if errors.As(err, &tl) {
					b.lines = append(b.lines, pline{n: n, tooLong: tl, term: nd.Term()})
				} else if err != nil {
					b.err = err
					break
				} else if len(raw) > batchBytes && nd.Take(raw) {
					// A long line is a batch of its own, and the
					// batch keeps the reader's buffer: no copy.
					if len(b.lines) > 0 {
						carry, carryN, carryTerm = raw, n, nd.Term()
						break
					}
					b.buf = raw
					b.lines = append(b.lines, pline{n: n, off: 0, end: len(raw), term: nd.Term()})
					b.owned = true
					break
				} else {
					off := len(b.buf)
					b.buf = append(b.buf, raw...)
					b.lines = append(b.lines, pline{n: n, off: off, end: len(b.buf), term: nd.Term()})
				}
				// A live producer's line goes on at once: never wait for
				// more input to fill a batch.
				if len(b.buf) >= batchBytes || len(b.lines) >= batchLines || live && nd.Buffered() == 0 {
					break
				}
			}
			p.ahead.Add(int64(len(b.buf)))
			select {
			case p.order <- b:
			case <-p.stop:
				return
			}
			select {
			case p.work <- b:
			case <-p.stop:
				return
			}
			if b.err != nil {
				return
			}
		}
	}()
}

// checkLine finds the verdict of line i of b on its own, and keeps the
// line's index when keep is set.
func checkLine(b *batch, i int, chk ndjson.Options, sch *lineSchema, keep bool) {
	l := &b.lines[i]
	l.indexed = false
	if l.tooLong != nil {
		return
	}
	raw := b.raw(i)
	// The index is made for the schema check whatever keep says, and
	// kept for the decoder when it says so; else the batch's room for it
	// is reused from line to line. It is made in the room past what the
	// batch keeps, or in memory of its own when it outgrows that room.
	x := ndjson.Index{Containers: b.conts[len(b.conts):], Members: b.mems[len(b.mems):]}
	depth, se := ndjson.CheckIndex(raw, chk, &x)
	l.depth = depth
	if keep && se == nil && len(b.mems) < 1<<31-len(x.Members) && len(b.conts) < 1<<31-len(x.Containers) {
		// Appending x copies it onto itself when it is in b's room.
		cFrom, mFrom := len(b.conts), len(b.mems)
		b.conts, b.mems = append(b.conts, x.Containers...), append(b.mems, x.Members...)
		l.indexed = true
		l.cFrom, l.cTo, l.mFrom, l.mTo = int32(cFrom), int32(len(b.conts)), int32(mFrom), int32(len(b.mems))
	} else if !keep && len(b.conts) == 0 && len(b.mems) == 0 {
		b.conts, b.mems = x.Containers[:0], x.Members[:0] // the room, grown, for the next line
	}
	if se != nil {
		l.syn = se
		return
	}
	l.checkedS = true
	l.schema = schemaDiags(sch, raw, &x)
}

// schemaDiags returns the schema errors of a JSON line with their columns;
// x is its index as the syntax check made it, or nil.
func schemaDiags(sch *lineSchema, raw []byte, x *ndjson.Index) []diag.Diagnostic {
	out := sch.check(raw, x)
	for i := range out {
		out[i].Col = jsonptr.Column(raw, out[i].Pointer)
	}
	return out
}

// nextChecked returns the next line from the workers, in input order.
func (p *pipeline) next() (raw []byte, l *pline, err error) {
	for p.cur == nil || p.idx == len(p.cur.lines) {
		if p.cur != nil {
			if p.cur.err != nil {
				return nil, nil, p.cur.err
			}
			if p.keep {
				// The lines' bytes stay the caller's (KeepLines); the
				// batch's lists of lines and indexes are reused.
				p.cur.buf, p.cur.owned = nil, false
			}
			select {
			case p.free <- p.cur:
			default:
			}
			p.cur = nil
		}
		b, ok := <-p.order
		if !ok {
			return nil, nil, errors.New("stream: the reading stopped") // after Close
		}
		<-b.done
		p.ahead.Add(-int64(len(b.buf)))
		p.cur, p.idx = b, 0
	}
	l = &p.cur.lines[p.idx]
	p.idx++
	if l.tooLong == nil {
		raw = p.cur.raw(p.idx - 1)
	}
	return raw, l, nil
}

// buffered is the input read ahead and not yet returned.
func (p *pipeline) buffered() int {
	n := p.ahead.Load()
	if p.cur != nil {
		n += int64(len(p.cur.buf))
		if p.idx < len(p.cur.lines) {
			n -= int64(p.cur.lines[p.idx].off)
		} else {
			n -= int64(len(p.cur.buf))
		}
	}
	return int(n)
}

// close tells the goroutines to stop. It does not wait: the reading
// goroutine may be blocked on a read of a live pipe, and it ends when that
// read returns.
func (p *pipeline) close() {
	if p.closed {
		return
	}
	p.closed = true
	close(p.stop)
}
