package validate

import (
	"slices"

	"github.com/evtool/evtool/internal/handoff"
)

// item is one line as the stream rules need it.
type item struct {
	n     int // its physical line number
	lines int // non-blank lines read up to and with it
	raw   []byte
	json  bool
	// foreign is a JSON line of no dialect before the stream's first
	// line (stream.Line.Foreign).
	foreign bool
	diags   []Diagnostic
	// term and bom are what the reading stripped from the line, for
	// writing it back as it was read.
	term string
	bom  bool
}

// handed is an item to send to the rules' goroutine: its buffers are the
// Reader's again at the next line, so they are copied, unless the Reader
// kept the line for us (kept) or it is a giant line, which is checked
// before Send returns.
func handed(it item, kept bool) item {
	if !kept && len(it.raw) <= handoff.Big {
		it.raw = slices.Clone(it.raw)
	}
	it.diags = slices.Clone(it.diags)
	return it
}

// startRules runs the stream rules (through line) in a goroutine of their
// own, beside the reading: with workers checking lines ahead, decoding and
// the rules were both left to one goroutine. Lines go over in input order
// and are reported in it, so the report is the same as on the simple
// path. When line stops, the goroutine sets sum.Lines to the lines read up
// to it and *err to why; read them once the queue is closed.
func startRules(line func(item) (bool, error), sum *Summary, err *error) *handoff.Queue[item] {
	return handoff.Start(func(it item) bool {
		stop, e := line(it)
		if stop {
			sum.Lines, *err = it.lines, e
		}
		return stop
	})
}
