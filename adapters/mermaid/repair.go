package mermaid

import (
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/openset"
)

// repair keeps a stream built from another dialect within mermaid's rules:
// one session_started, nothing after result, each call finished once and
// asked about only before it finished, and every call the run leaves open
// finished when the run ends. It reports whether ev must be left out. A
// mermaid source is written back as it was.
func (e *Encoder) repair(ev *event.Event) (skip bool, err error) {
	loss := e.opts.Losses
	if e.ended {
		if u, ok := ev.Body.(*event.Unknown); !ok || u.Dialect == Name {
			loss.AddDetail(lossAfterRunFinished, string(ev.Type()))
			return true, nil
		}
		return false, nil // dropped and counted as another dialect's unknown line
	}
	// An event of a call that already finished: what it is counted as.
	var call string
	var afterFinish *dialect.LossKind
	switch b := ev.Body.(type) {
	case *event.SessionStarted:
		loss.Add(lossRepeatedSessionStart)
		return true, nil
	case *event.ToolStarted:
		call, afterFinish = b.CallID, lossAfterToolFinished
	case *event.ToolFinished:
		call, afterFinish = b.CallID, lossRepeatedToolFinish
	case *event.PermissionRequested:
		call, afterFinish = b.CallID, lossPermissionRequestAfterFinish
	case *event.SessionFinished:
		return false, e.closeOpen()
	}
	if afterFinish != nil && e.finished.Has(call) {
		loss.Add(afterFinish)
		return true, nil
	}
	return false, nil
}

// closeOpen finishes, as cancelled, the calls a run leaves open: the run's
// end ends them. A call that was asked about but never started is started
// first, since mermaid's approval names a started call.
func (e *Encoder) closeOpen() error {
	for _, id := range ids(&e.approved) {
		if err := e.toolStarted(id, nil, true); err != nil {
			return err
		}
	}
	// The started calls in batches, each finished before the next is
	// taken: a list of them all was 2,000,000 strings at once.
	for batch := firstIDs(&e.started, 4096); len(batch) > 0; batch = firstIDs(&e.started, 4096) {
		if err := e.cancel(batch); err != nil {
			return err
		}
	}
	return nil
}

// cancel finishes started calls as cancelled by the run's end.
func (e *Encoder) cancel(batch []string) error {
	for _, id := range batch {
		name := e.name(id)
		e.finish(id)
		e.opts.Losses.Add(lossSynthesizedToolFinished)
		if name == "" {
			name = "tool"
		}
		l := &e.l
		l.Begin(nil)
		l.Str("type", "tool_finished")
		l.Str("call_id", id)
		l.Str("name", name)
		l.Str("status", "cancelled")
		l.Str("summary", "the run ended before the call finished")
		l.NullStr("error", "")
		if err := e.write(l.End()); err != nil {
			return err
		}
	}
	return nil
}

// firstIDs returns the first n ids of a set, in order. Earliest moves the
// set's start past the ids closed before, so that taking batches from the
// front of a set that is emptied from the front does not walk the closed
// ones again and again.
func firstIDs(s *openset.Set, n int) []string {
	s.Earliest()
	var out []string
	for id := range s.All {
		out = append(out, id)
		if len(out) == n {
			break
		}
	}
	return out
}

// ids returns the ids of a set, in order.
func ids(s *openset.Set) []string {
	var out []string
	for id := range s.All {
		out = append(out, id)
	}
	return out
}
