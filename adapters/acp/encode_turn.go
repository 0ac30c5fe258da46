package acp

import (
	"strconv"

	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/usagesum"
)

// Turns: each one session/prompt and its response in a transcript,
// closed in itself when it ends.

// sessionStarted learns the session's id and workspace; its commands are
// session-wide, sent before any turn, as an agent does right after
// session/new.
func (e *Encoder) sessionStarted(ev *event.Event, b *event.SessionStarted) error {
	if !e.sessionSet && b.SessionID != "" {
		e.session = b.SessionID
	}
	e.workspace = b.Workspace
	if len(b.Commands) > 0 {
		return e.update(obj{}.str("sessionUpdate", "available_commands_update").add("availableCommands", commands(b.Commands)), ev)
	}
	return nil
}

// turnStarted begins a turn, ending the one before, unless what came
// before it was the implicit beginning of this one.
func (e *Encoder) turnStarted(b *event.TurnStarted) error {
	e.endStreams()
	var prompt string
	if b.Prompt != nil {
		prompt = *b.Prompt
	}
	if e.turnOpen && !e.explicit {
		// What came before the first turn belongs to it.
		e.explicit = true
		if e.prompt == "" && e.promptID == 0 {
			e.prompt = prompt
		}
		return nil
	}
	if err := e.endTurn("end_turn", false); err != nil { // the previous turn ended without saying so
		return err
	}
	e.beginTurn(true, prompt)
	return nil
}

// turnFinished ends the turn; in a transcript the prompt's response
// waits for the events of no turn that follow (trailing).
func (e *Encoder) turnFinished(ev *event.Event, b *event.TurnFinished) error {
	e.endStreams()
	if b.Usage != nil {
		u := *b.Usage
		e.turnUsage = &u
	}
	if b.Text != nil && e.msgs == 0 && *b.Text != "" && e.turnOpen {
		// An answer that was never streamed still reaches the client.
		if err := e.chunk(ev, *b.Text, "", false, false); err != nil {
			return err
		}
		e.inMsg = false
	}
	if b.Status == event.StatusError {
		if err := e.showFailure(ev, b.Reason); err != nil {
			return err
		}
	}
	if e.transcript && e.turnOpen {
		e.ended = stopReason(b.Status, b.StopReason, "")
		return nil
	}
	return e.endTurn(stopReason(b.Status, b.StopReason, ""), false)
}

// sessionFinished ends the open turn with the session's outcome.
func (e *Encoder) sessionFinished(ev *event.Event, b *event.SessionFinished) error {
	e.endStreams()
	if b.Status == event.StatusError && !e.begun && !e.basis() {
		// A run that failed before its first turn (a key refused, a model
		// not found) is one turn, that says why: without it the client
		// would show nothing at all.
		if err := e.inTurn(); err != nil {
			return err
		}
	}
	if b.Status == event.StatusError && e.turnOpen {
		if err := e.showFailure(ev, b.Message); err != nil {
			return err
		}
	}
	return e.endTurn(stopReason(b.Status, "", b.StoppedBy), true)
}

// showFailure tells the user, once per turn, that the run failed and why.
func (e *Encoder) showFailure(ev *event.Event, reason string) error {
	if e.failed || e.basis() {
		return nil
	}
	e.failed = true
	msg := "The recorded run failed."
	if reason != "" {
		msg = "The recorded run failed: " + reason
	}
	e.inMsg = false
	err := e.chunk(ev, msg, "", false, false)
	e.inMsg = false
	return err
}

// beginTurn opens a turn; explicit says turn_started opened it.
func (e *Encoder) beginTurn(explicit bool, prompt string) {
	e.begun = true
	e.turnOpen, e.explicit, e.promptID, e.prompt, e.gotPrompt = true, explicit, 0, prompt, false
	e.usage, e.haveUsage, e.turnUsage, e.failed = event.Usage{}, false, nil, false
}

// inTurn makes sure a turn is open before an update of it: a source
// without turn events has one turn. In a transcript it writes the client's
// session/prompt before the turn's first message.
func (e *Encoder) inTurn() error {
	if !e.turnOpen {
		e.beginTurn(false, "")
	}
	if !e.transcript || e.promptID != 0 {
		return nil
	}
	e.promptID = e.nextID
	e.nextID++
	params := e.withMeta(obj{}.str("sessionId", e.session).add("prompt", arr(text(clip(e.prompt, maxText)))), nil)
	return e.writeObj(obj{}.str("jsonrpc", "2.0").num("id", e.promptID).str("method", "session/prompt").sub("params", params))
}

// endTurn closes the open turn in itself: its open permission requests
// are answered cancelled, its open calls closed as failed, and in a
// transcript the prompt is answered with the stop reason (and, in the
// unstable profile, the counts the source stated).
func (e *Encoder) endTurn(reason string, atEnd bool) error {
	if !e.turnOpen {
		return nil
	}
	if err := e.inTurn(); err != nil { // a turn with no updates still has its prompt
		return err
	}
	// Open permission requests are answered first: a client must not see
	// a call end while it is still asking about it.
	open := make([]*perm, 0, len(e.perms))
	for _, p := range e.perms {
		open = append(open, p)
	}
	mark := len(e.scratch)
	for _, p := range byFirst(open) {
		if err := e.answer(p, obj{}.str("outcome", "cancelled")); err != nil {
			return err
		}
		e.written(mark)
	}
	note := "outcome unknown: the turn ended before this tool call finished"
	if atEnd {
		note = "outcome unknown: the recording ended before this tool call finished"
	}
	var err error
	for id, t := range e.tools.byRank() {
		e.loss.Add(lossSynthesizedFailedToolCall)
		u := obj{}.str("sessionUpdate", "tool_call_update").str("toolCallId", id).str("status", "failed").
			add("content", arr(append(t.content(false), textContent(note))...))
		if err = e.update(u, nil); err != nil {
			break
		}
		e.done.Add(id, e.closedValue(t.kind, t.title)) // finished, as finish does
		e.written(mark)
	}
	e.tools.clear()
	if err != nil {
		return err
	}
	e.endStreams()
	id := e.promptID
	// An update after this belongs to a new turn, with a prompt of its own.
	usage := e.turnUsage
	if usage == nil && e.haveUsage {
		usage = &e.usage
	}
	e.turnOpen, e.explicit, e.promptID, e.prompt = false, false, 0, ""
	if !e.transcript {
		return nil
	}
	result := obj{}.str("stopReason", reason)
	if e.profile == Unstable && usage != nil {
		if u := usageObj(usage); len(u) > 0 {
			result = result.sub("usage", u)
		}
	}
	return e.writeObj(obj{}.str("jsonrpc", "2.0").num("id", id).sub("result", result))
}

// usageObj renders the turn's usage. ACP's Usage requires totalTokens,
// inputTokens and outputTokens: it is written only when the source states
// input and output (the total is the stated one, else the sum of every
// count stated, as ACP's schema says, "sum of all token types": input,
// output, thoughts, cache reads and writes, which are apart from input in
// the canonical model; reasoning is inside output); the optional counts
// only when stated. A count the source does not state is never written as
// 0.
func usageObj(u *event.Usage) obj {
	if u.InputTokens == nil || u.OutputTokens == nil {
		return nil
	}
	total := u.TotalTokens
	if total == nil {
		var n uint64
		for _, c := range []*uint64{u.InputTokens, u.OutputTokens, u.ThoughtsTokens, u.CacheReadTokens, u.CacheCreationTokens} {
			if c != nil {
				n = usagesum.Sat(n, *c)
			}
		}
		total = &n
	}
	o := obj{}
	for _, f := range []struct {
		k string
		v *uint64
	}{{"totalTokens", total}, {"inputTokens", u.InputTokens}, {"outputTokens", u.OutputTokens},
		{"thoughtTokens", u.ThoughtsTokens}, {"cachedReadTokens", u.CacheReadTokens}, {"cachedWriteTokens", u.CacheCreationTokens}} {
		if f.v != nil {
			o = o.add(f.k, []byte(strconv.FormatUint(*f.v, 10)))
		}
	}
	return o
}

// addUsage adds u to the turn's usage.
func (e *Encoder) addUsage(u *event.Usage) {
	e.haveUsage = true
	usagesum.Add(&e.usage.InputTokens, u.InputTokens)
	usagesum.Add(&e.usage.OutputTokens, u.OutputTokens)
	usagesum.Add(&e.usage.CacheReadTokens, u.CacheReadTokens)
	usagesum.Add(&e.usage.CacheCreationTokens, u.CacheCreationTokens)
	usagesum.Add(&e.usage.ThoughtsTokens, u.ThoughtsTokens)
	usagesum.Add(&e.usage.TotalTokens, u.TotalTokens)
}

func stopReason(status event.Status, reason event.StopReason, bound event.Bound) string {
	switch {
	case status == event.StatusCancelled:
		return "cancelled"
	case reason == event.StopMaxTokens || bound == event.BoundTokenBudget:
		return "max_tokens"
	case reason == event.StopRefusal:
		return "refusal"
	case reason == event.StopMaxTurnRequests || bound == event.BoundToolBudget:
		return "max_turn_requests"
	}
	return "end_turn"
}

// trailing reports whether an event that follows a turn's turn_finished
// still belongs with that turn in a transcript: an event of no turn that
// is not the start of another (turn_started, a user's prompt) nor the end
// of the session.
func trailing(ev *event.Event) bool {
	if ev.TurnID != "" {
		return false
	}
	switch b := ev.Body.(type) {
	case *event.TurnStarted, *event.SessionFinished:
		return false
	case *event.UserMessage:
		return ev.AgentID != "" && b != nil
	}
	return true
}

// outside reports whether an event of no turn comes before the stream's
// first turn, so that it is written as an update before any prompt.
func (e *Encoder) outside(ev *event.Event) bool {
	return ev.TurnID == "" && !e.begun && !e.turnOpen && e.transcript
}
