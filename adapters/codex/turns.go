package codex

// The turns and the run of another dialect's stream, as Codex writes
// them: thread.started, turn.started, turn.completed or turn.failed with
// the thread's running usage, and the run's end.

import (
	"math"
	"slices"
	"strconv"

	"github.com/evtool/evtool/event"
)

// header writes thread.started.
func (e *Encoder) header(ev *event.Event) error {
	b := ev.Body.(*event.SessionStarted)
	loss := e.opts.Losses
	id := b.SessionID
	if id == "" {
		id = e.opts.Defaults.SessionID
	}
	if ev.Synthetic && b.Source.Dialect != "" {
		loss.Add(lossHeader)
	}
	if b.Model != "" || b.Provider != "" {
		loss.Add(lossModel)
	}
	if b.Agent != nil && b.Agent.Version != "" {
		loss.Add(lossProducerVersion)
	}
	if b.TaskID != "" || b.Workspace != "" || b.ContextFiles != nil && len(*b.ContextFiles) > 0 || len(b.Skills) > 0 ||
		len(b.SkillsDirs) > 0 || len(b.Commands) > 0 || len(b.CommandsDirs) > 0 || len(b.MCPServers) > 0 || len(b.MCPFiles) > 0 ||
		len(b.A2AFiles) > 0 || len(b.A2AAgents) > 0 {
		loss.Add(lossSessionFacts)
	}
	h := &event.Event{Time: ev.Time, Body: &event.SessionStarted{SessionID: id}}
	return e.line(h)
}

// startTurn writes turn.started; synthetic says the source had none.
func (e *Encoder) startTurn(synthetic bool) error {
	if synthetic {
		e.opts.Losses.Add(lossTurnStarted)
	}
	e.f.msgs, e.f.lastErr = 0, ""
	e.f.round, e.f.haveRound = event.Usage{}, false
	return e.line(&event.Event{Body: &event.TurnStarted{}})
}

// ensureTurn opens a turn for an item that comes outside one.
func (e *Encoder) ensureTurn() error {
	if e.st.turn {
		return nil
	}
	return e.startTurn(true)
}

// endTurn closes the open turn: the calls and the to-do list it leaves
// open complete first, as newer Codex processors do, then turn.completed
// with the thread's usage so far, or turn.failed. synthetic says the
// source did not end the turn here.
func (e *Encoder) endTurn(status event.Status, reason string, u *event.Usage, synthetic bool) error {
	loss := e.opts.Losses
	f := &e.f
	for _, id := range f.order {
		if c := e.calls.peek(id); e.open(id) {
			loss.Add(lossOpenCall)
			fin := &event.ToolFinished{CallID: id, Status: event.ToolCancelled, Error: "the turn ended before the call finished"}
			if c.itemType != "mcp_tool_call" {
				fin.Error = ""
			}
			if err := e.tool(&event.Event{Body: fin}, id, c.name, "item.completed", fin); err != nil {
				return err
			}
			e.closed(id)
		}
	}
	clear(f.order)
	f.order = f.order[:0]
	if e.st.todo != "" {
		loss.Add(lossOpenTodo)
		if err := e.completeTodo(); err != nil {
			return err
		}
	}
	switch {
	case synthetic && f.ending:
		loss.Add(lossRunTurnEnd)
	case synthetic:
		loss.Add(lossTurnCompleted)
	}
	f.turns++
	if status == event.StatusOK {
		return e.line(&event.Event{Body: &event.TurnFinished{Status: event.StatusOK, Usage: e.turnUsage(u)}})
	}
	// Codex's own message of a failed turn falls back to the last error
	// line's; without one, the run's end (session_finished, next) may
	// say what failed, so the line waits for it.
	f.failing, f.failUsed = status, u != nil || f.haveRound
	if reason == "" {
		reason = f.lastErr
	}
	if reason == "" && !f.ending {
		return nil
	}
	return e.writeFailed(reason)
}

// writeFailed writes the turn.failed of the failed turn: reason, else
// the literal Codex writes when it has none.
func (e *Encoder) writeFailed(reason string) error {
	loss := e.opts.Losses
	f := &e.f
	status := f.failing
	f.failing = ""
	if status != event.StatusError {
		loss.AddDetail(lossTurnStatus, strconv.Quote(string(status)))
	}
	if f.failUsed {
		loss.Add(lossFailedUsage)
	}
	if reason == "" {
		reason = "turn " + string(status)
		if status == event.StatusError {
			reason = "turn failed"
		}
	}
	return e.line(&event.Event{Body: &event.TurnFinished{Status: event.StatusError, Reason: reason}})
}

// runMessage returns what a run's end says failed: its message, else its
// last error.
func runMessage(b *event.SessionFinished) string {
	if b.Message != "" || b.Errors == nil || len(*b.Errors) == 0 {
		return b.Message
	}
	return (*b.Errors)[len(*b.Errors)-1]
}

// runErrors writes the run's errors that no error line said, as error
// lines of the open turn (Codex writes a failure's error before the
// turn's end); with no turn to carry them, they are lost.
func (e *Encoder) runErrors(b *event.SessionFinished) error {
	if b.Errors == nil {
		return nil
	}
	f := &e.f
	for _, msg := range *b.Errors {
		if slices.Contains(f.errs, msg) {
			continue
		}
		if !e.st.turn {
			e.opts.Losses.Add(lossRunErrors)
			continue
		}
		f.errs = append(f.errs, msg)
		e.opts.Losses.Add(lossRunErrorLine)
		if err := e.line(&event.Event{Body: &event.Error{Message: msg}}); err != nil {
			return err
		}
	}
	return nil
}

// turnUsage adds a turn's usage (stated, else summed from its rounds) to
// the thread's total and returns the total as a canonical usage that
// wireOf renders exactly.
func (e *Encoder) turnUsage(u *event.Usage) *event.Usage {
	loss := e.opts.Losses
	f := &e.f
	if u == nil && f.haveRound {
		u = &f.round
	}
	if u != nil {
		if u.InputTokens == nil && u.OutputTokens == nil && u.CacheReadTokens == nil && u.TotalTokens != nil {
			loss.Add(lossTotalOnly)
		}
		if u.CostUSD != "" {
			loss.Add(lossCost)
		}
		if u.ModelResponses != nil {
			loss.Add(lossModelResponses)
		}
		f.total.add(wireOf(u))
		f.haveTotal = true
	} else if !f.haveTotal {
		loss.Add(lossZeroUsage)
	}
	if f.total.over() {
		loss.Add(lossBeyondI64)
	}
	w := f.total
	cu := &event.Usage{}
	in := min(w.in, math.MaxInt64)
	cached := min(w.cached, in)
	cw := min(w.cw, in-cached)
	uncached := in - cached - cw
	cu.InputTokens, cu.CacheReadTokens = &uncached, &cached
	if w.hasCW {
		cu.CacheCreationTokens = &cw
	}
	out := min(w.out, math.MaxInt64)
	cu.OutputTokens = &out
	if w.hasR {
		r := min(w.reasoning, math.MaxInt64)
		cu.ReasoningTokens = &r
	}
	f.last = cu
	return cu
}

// addRound adds a round's usage to the open turn's.
func (e *Encoder) addRound(u *event.Usage) {
	r := &e.f.round
	e.f.haveRound = true
	for _, p := range []struct{ dst, src **uint64 }{
		{&r.InputTokens, &u.InputTokens}, {&r.OutputTokens, &u.OutputTokens}, {&r.CacheReadTokens, &u.CacheReadTokens},
		{&r.CacheCreationTokens, &u.CacheCreationTokens}, {&r.ReasoningTokens, &u.ReasoningTokens},
		{&r.ThoughtsTokens, &u.ThoughtsTokens}, {&r.TotalTokens, &u.TotalTokens},
	} {
		if *p.src == nil {
			continue
		}
		n := sat(val(*p.dst), **p.src)
		*p.dst = &n
	}
}

// finish ends the run: the open turn ends with the run's status, and a
// run that never had a turn gets one, since a codex stream without a
// finished turn is incomplete.
func (e *Encoder) finish(b *event.SessionFinished) error {
	loss := e.opts.Losses
	f := &e.f
	if b.StoppedBy != "" {
		loss.Add(lossRunBound)
	}
	if len(b.StructuredOutput) > 0 {
		loss.Add(lossStructured)
	}
	if b.Reasoning != nil && *b.Reasoning != "" && !f.reasons {
		loss.Add(lossFinalReasoning)
	}
	if !e.st.turn && f.turns == 0 {
		if err := e.startTurn(true); err != nil {
			return err
		}
	}
	if err := e.runErrors(b); err != nil {
		return err
	}
	if b.Text != nil && *b.Text != "" && *b.Text != f.lastMsg && !f.said.is(*b.Text) {
		// The run's answer, unless the messages written already say it.
		if e.st.turn {
			if err := e.message(*b.Text); err != nil {
				return err
			}
		} else {
			loss.Add(lossFinalAnswer)
		}
	}
	if e.st.turn {
		var u *event.Usage
		if !f.haveTotal && !f.haveRound {
			u = b.Usage // the run's usage is all the source says
		}
		f.ending = true
		if err := e.endTurn(b.Status, runMessage(b), u, true); err != nil {
			return err
		}
	}
	if b.Usage != nil && (f.last == nil || wireOf(b.Usage) != wireOf(f.last)) {
		loss.Add(lossRunTotals)
	}
	f.ended = true
	return nil
}
