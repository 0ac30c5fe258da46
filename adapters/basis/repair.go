package basis

import (
	"fmt"
	"strings"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/tidwall/gjson"
)

// The encoder writes a stream basis's own rules accept whatever canonical
// stream it is given: it queues a call before anything else names it,
// writes each lifecycle step of a call once, answers only the permission
// requests it wrote, and completes the calls and tasks a run leaves open
// when the run ends. Lines read from basis (those with ext.basis) are
// written back as they were, so that a basis stream round-trips even when
// it breaks those rules itself.

func (e *Encoder) init() {
	if e.reqs == nil {
		e.reqs, e.pending, e.tasks = map[string]struct{}{}, map[string][]string{}, map[string]*task{}
	}
}

// native reports whether an event was read from basis.
func native(ev *event.Event) bool { return len(ev.Ext.Get(Name)) > 0 }

// impliedCall reports whether ev is a tool_call basis's decoder synthesised
// for a call its source never queued.
func impliedCall(ev *event.Event) bool {
	_, ok := ev.Body.(*event.ToolCall)
	return ok && ev.Synthetic && gjson.GetBytes(ev.Ext.Get(Name), gjson.Escape(impliedKey)).Bool()
}

// repair writes what basis needs before ev and reports whether ev itself
// must be left out.
func (e *Encoder) repair(ev *event.Event) (skip bool, err error) {
	loss := e.opts.Losses
	if impliedCall(ev) {
		e.queue(ev.Body.(*event.ToolCall).CallID, ev.Body.(*event.ToolCall).Name)
		return true, nil
	}
	if native(ev) {
		return false, nil
	}
	if _, ok := ev.Body.(*event.SessionStarted); ok {
		if e.header {
			loss.Add(lossRepeatedSessionStart)
			return true, nil
		}
		return false, nil
	}
	if !e.header {
		if err := e.Encode(&event.Event{Synthetic: true, Body: &event.SessionStarted{Schema: event.SchemaVersion}}); err != nil {
			return true, err
		}
	}
	if e.ended {
		loss.AddDetail(lossAfterRunFinished, string(ev.Type()))
		return true, nil
	}
	switch b := ev.Body.(type) {
	case *event.ToolCall:
		if _, known := e.call(b.CallID); known {
			loss.Add(lossRepeatedToolCall)
			return true, nil
		}
	case *event.ToolStarted:
		return e.repairStart(b)
	case *event.ToolProgress:
		return e.afterQueued(b.CallID, b.Name, lossAfterToolCompleted)
	case *event.ToolFinished:
		return e.afterQueued(b.CallID, b.Name, lossRepeatedToolFinish)
	case *event.PermissionRequested:
		if b.RequestID != "" {
			if e.asked(b.RequestID) {
				loss.Add(lossRepeatedPermissionRequest)
				return true, nil
			}
		}
		return e.afterQueued(b.CallID, b.Tool, lossAfterToolCompleted)
	case *event.PermissionResolved:
		return e.repairOutcome(b)
	case *event.SessionFinished:
		return false, e.closeOpen()
	}
	return false, nil
}

// afterQueued queues a call a line names before any tool_queued did, and
// reports whether the line must be left out, as one about a call that
// completed already (counted as closed).
func (e *Encoder) afterQueued(id, name string, closed *dialect.LossKind) (skip bool, err error) {
	c, err := e.ensureQueued(id, name)
	if err != nil {
		return true, err
	}
	if c.completed {
		e.opts.Losses.Add(closed)
		return true, nil
	}
	return false, nil
}

// repairStart leaves out a second start of a call, and one after its end.
func (e *Encoder) repairStart(b *event.ToolStarted) (skip bool, err error) {
	c, err := e.ensureQueued(b.CallID, b.Name)
	switch {
	case err != nil:
		return true, err
	case c.completed:
		e.opts.Losses.Add(lossAfterToolCompleted)
		return true, nil
	case c.started:
		e.opts.Losses.Add(lossRepeatedToolStart)
		return true, nil
	}
	return false, nil
}

// repairOutcome leaves out the answer to a request that was not written or
// was answered already, and one about a call that is not open.
func (e *Encoder) repairOutcome(b *event.PermissionResolved) (skip bool, err error) {
	loss := e.opts.Losses
	id := b.RequestID
	if id == "" {
		id = e.oldestPending(b.CallID)
	}
	switch {
	case !e.asked(id):
		loss.Add(lossPermissionOutcomeUnasked)
		return true, nil
	case e.granted.Has(id):
		loss.Add(lossRepeatedPermissionOutcome)
		return true, nil
	}
	if c, known := e.call(b.CallID); !known || c.completed {
		loss.Add(lossAfterToolCompleted)
		return true, nil
	}
	return false, nil
}

// track records what a line about to be written does to the stream's state.
func (e *Encoder) track(ev *event.Event) {
	switch b := ev.Body.(type) {
	case *event.SessionStarted:
		e.header = true
	case *event.SessionFinished:
		e.ended = true
	case *event.ToolCall:
		e.queue(b.CallID, b.Name)
	case *event.ToolStarted:
		e.queue(b.CallID, b.Name)
		e.calls.SetFlags(b.CallID, flagStarted)
	case *event.ToolFinished:
		// Completed once its line is written (Encode): the line's
		// tool_name may be the one the call was named with.
		e.queue(b.CallID, b.Name)
	}
}

// call returns what the encoder wrote of a call, and whether it knows
// the call at all.
func (e *Encoder) call(id string) (call, bool) {
	if c, ok := e.calls.Get(id); ok {
		return call{name: c.Name, started: c.Flags&flagStarted != 0}, true
	}
	if e.done.Has(id) {
		return call{completed: true}, true
	}
	return call{}, false
}

// queue records a call the encoder did not know, as open, with the name
// it is queued with, and returns what it wrote of it.
func (e *Encoder) queue(id, name string) call {
	c, known := e.call(id)
	if !known {
		c.name = e.toolName(id, name)
		e.calls.Add(id, 0, c.name)
	}
	return c
}

// complete forgets an open call: its tool_completed is written.
func (e *Encoder) complete(id string) {
	e.calls.Delete(id)
	e.names.Delete(id)
	delete(e.pending, id)
	e.done.Add(id, 0)
}

// asked reports whether a permission request with this id was written.
func (e *Encoder) asked(id string) bool {
	_, open := e.reqs[id]
	return open || e.granted.Has(id)
}

// resolve records the answer to a request of a call.
func (e *Encoder) resolve(callID, id string) {
	delete(e.reqs, id)
	e.granted.Add(id, 0)
	if p := e.pending[callID]; len(p) > 0 && p[0] == id {
		// Requests are answered oldest first, as a rule.
		if e.pending[callID] = p[1:]; len(p) == 1 {
			delete(e.pending, callID)
		}
	}
}

// ensureQueued writes a tool_queued for a call no line announced yet.
func (e *Encoder) ensureQueued(id, name string) (call, error) {
	if c, known := e.call(id); known {
		return c, nil
	}
	c := e.queue(id, name)
	e.opts.Losses.Add(lossSynthesizedToolQueued)
	return c, e.synth("tool_queued", func(l *jsonobj.Writer) {
		l.Str("tool_call_id", id)
		l.Str("tool_name", c.name)
		l.Str("summary", "")
		l.Str("mutability", "unknown")
		l.Raw("input", nil)
	})
}

// closeOpen completes the calls and finishes the tasks a run leaves open:
// the run's end ends them.
func (e *Encoder) closeOpen() error {
	type open struct{ id, name string }
	var calls []open
	for id, c := range e.calls.All {
		calls = append(calls, open{id, c.Name})
	}
	for _, c := range calls {
		id := c.id
		e.complete(id)
		e.opts.Losses.Add(lossSynthesizedToolCompleted)
		if err := e.synth("tool_completed", func(l *jsonobj.Writer) {
			l.Str("tool_call_id", id)
			l.Str("tool_name", c.name)
			l.Str("summary", "the run ended before the call completed")
			l.Bool("is_error", true)
		}); err != nil {
			return err
		}
	}
	for _, id := range e.taskIDs {
		t := e.tasks[id]
		if t.status != "spawned" && t.status != "running" {
			continue
		}
		t.status = "failed"
		e.opts.Losses.Add(lossSynthesizedTaskUpdated)
		if err := e.synth("task_updated", func(l *jsonobj.Writer) {
			l.Str("task_id", id)
			l.Str("kind", t.kind)
			l.Str("status", "failed")
			l.Str("title", t.title)
			l.Str("detail", "the run ended before the task finished")
		}); err != nil {
			return err
		}
	}
	return nil
}

// noteTask records the state of a task as written.
func (e *Encoder) noteTask(id, kind, status, title string) {
	t := e.tasks[id]
	if t == nil {
		t = &task{}
		e.tasks[id] = t
		e.taskIDs = append(e.taskIDs, id)
	}
	t.kind, t.status, t.title = kind, status, title
}

// requestID names a permission request the source gave no id, uniquely.
func (e *Encoder) requestID(callID string) string {
	id := "approval-" + callID
	for n := 2; ; n++ {
		if !e.asked(id) {
			break
		}
		id = fmt.Sprintf("approval-%s-%d", callID, n)
	}
	if p, ok := e.pending[callID]; ok {
		e.pending[callID] = append(p, id)
	} else {
		e.pending[strings.Clone(callID)] = []string{id}
	}
	return id
}

// oldestPending returns the oldest unresolved request written without an
// id of its own for a call, or "".
func (e *Encoder) oldestPending(callID string) string {
	for _, id := range e.pending[callID] {
		if !e.granted.Has(id) {
			return id
		}
	}
	return ""
}

// synth writes a line no source line stands behind.
func (e *Encoder) synth(typ string, fill func(l *jsonobj.Writer)) error {
	l := &e.l
	l.Begin(nil)
	l.Uint("seq", e.nextSeq(l))
	l.Str("type", typ)
	fill(l)
	out := l.End()
	if err := l.SpillErr(); err != nil {
		return err
	}
	_, err := e.w.Write(out)
	return err
}
