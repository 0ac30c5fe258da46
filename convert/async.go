package convert

import (
	"bufio"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/handoff"
)

// batch is one line's events for the encoder's goroutine.
type batch struct {
	line  int // for the losses' first line
	evs   []*event.Event
	flush bool // the input has nothing more buffered: flush after
}

// startEncoder runs the encoder in a goroutine of its own, beside the
// reading: with workers checking lines ahead, decoding and encoding were
// both left to one goroutine. The events go over in input order and are
// written in it, so the output is the same bytes as on the simple path.
// The goroutine counts res.Events and sets *err to the first error; read
// them once the queue is closed.
func startEncoder(enc dialect.Encoder, bw *bufio.Writer, res *Result, err *error) *handoff.Queue[batch] {
	return handoff.Start(func(b batch) bool {
		res.Losses.SetLine(b.line)
		for _, ev := range b.evs {
			res.count(ev)
			if *err = enc.Encode(ev); *err != nil {
				return true
			}
		}
		if b.flush {
			*err = bw.Flush()
		}
		return *err != nil
	})
}
