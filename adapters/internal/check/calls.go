package check

import (
	"fmt"
	"slices"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/internal/idset"
	"github.com/evtool/evtool/internal/openset"
)

// Calls keeps the tool calls of a stream by id, for the rules of a
// dialect whose calls are announced by one line and answered by another:
// in full while a call is open (its id and the line that announced it, in
// an openset: about 17 bytes a call, however many stay open), as a digest
// once it is answered (idset, with the lines of the call and of its
// answer), so that a call announced twice, an answer to no call and a
// second answer are found on a run of any length.
//
// Each rule a dialect has of these is set with its message, a format
// whose arguments are the call's id, a line and the what of the call to
// Announce or Answer (a line's type, say); a format that leaves some of
// them out names the ones it uses by index (%[1]q).
type Calls struct {
	// Reused: an id is announced once. ReusedOpen is the message when
	// the earlier call is open (its line the argument), ReusedAnswered
	// when it was answered (the line of its answer; ReusedAnsweredCall
	// gives the line of the call instead).
	Reused                     *dialect.Rule
	ReusedOpen, ReusedAnswered string
	ReusedAnsweredCall         bool
	// Unknown: an answer names an announced call (no line). KeepUnknown
	// notes the id of such an answer as answered, at its line.
	Unknown     *dialect.Rule
	UnknownMsg  string
	KeepUnknown bool
	// Twice: a call is answered once (the line of its first answer).
	Twice    *dialect.Rule
	TwiceMsg string
	// Unfinished: every call is answered by the end (no line; the
	// finding is at the call's line, at UnfinishedPtr). Nil when the
	// dialect has no such rule.
	Unfinished    *dialect.Rule
	UnfinishedMsg string
	UnfinishedPtr string

	open openset.Set // open calls, with the line that announced each
	done idset.Set   // answered calls → pack(call, answer)
}

// pack keeps the lines of a call and of its answer in one value; a line
// beyond 2^32-1 reads back as 2^32-1.
func pack(call, answer int) uint64 { return idset.Line(call)<<32 | idset.Line(answer) }

func unpack(v uint64) (call, answer int) { return int(v >> 32), int(v & (1<<32 - 1)) }

// Announce notes the call id announced at ptr of the reporter's line, or
// reports it as Reused.
func (c *Calls) Announce(rep dialect.Reporter, ptr, id, what string) {
	if e, open := c.open.Get(id); open {
		rep.Reportf(c.Reused, ptr, c.ReusedOpen, id, e.Line, what)
		return
	}
	if v, ok := c.done.Get(id); ok {
		call, answer := unpack(v)
		if c.ReusedAnsweredCall {
			answer = call
		}
		rep.Reportf(c.Reused, ptr, c.ReusedAnswered, id, answer, what)
		return
	}
	c.open.Add(id, rep.Line, "") // a copy: nothing of the line is kept
}

// Answer notes the answer, at ptr of the reporter's line, to the call id,
// or reports it as Unknown or Twice.
func (c *Calls) Answer(rep dialect.Reporter, ptr, id, what string) {
	if e, open := c.open.Delete(id); open {
		c.done.Add(id, pack(e.Line, rep.Line))
		return
	}
	if v, ok := c.done.Get(id); ok {
		_, answer := unpack(v)
		rep.Reportf(c.Twice, ptr, c.TwiceMsg, id, answer, what)
		return
	}
	rep.Reportf(c.Unknown, ptr, c.UnknownMsg, id, 0, what)
	if c.KeepUnknown {
		c.done.Add(id, pack(0, rep.Line))
	}
}

// Close answers an open call id without a line of its own (a dialect's
// other word that it will not be answered); another id is let be.
func (c *Calls) Close(id string, n int) {
	if e, open := c.open.Delete(id); open {
		c.done.Add(id, pack(e.Line, n))
	}
}

// Known says whether a call id was announced, open or answered.
func (c *Calls) Known(id string) bool {
	return c.open.Has(id) || c.done.Has(id)
}

// End reports, under Unfinished, the calls still open, in the order of
// their lines.
func (c *Calls) End(report func(dialect.Finding)) {
	if c.Unfinished == nil {
		return
	}
	// By line, and the calls of one line (an assistant message's tool
	// uses) by id: a line's few are held to be sorted, never the list.
	var ids []string
	line := 0
	flush := func() {
		slices.Sort(ids)
		for _, id := range ids {
			report(c.Unfinished.Finding(line, c.UnfinishedPtr, fmt.Sprintf(c.UnfinishedMsg, id)))
		}
		ids = ids[:0]
	}
	for id, e := range c.open.All {
		if e.Line != line {
			flush()
			line = e.Line
		}
		ids = append(ids, id)
	}
	flush()
}
