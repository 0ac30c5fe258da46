package codex

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/idset"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/tidwall/gjson"
)

// foreign is the state of fitting another dialect's stream to Codex's
// shape.
type foreign struct {
	ended   bool            // the run finished: nothing more is written
	ending  bool            // the run is finishing: it ends the open turn
	turns   int             // turns written
	msgs    int             // agent messages written in the open turn
	text    strings.Builder // message deltas not yet written as an agent_message
	thought strings.Builder // reasoning deltas not yet written
	inText  bool
	inThink bool
	said    strings.Builder   // every agent message written, for the run's answer
	lastMsg string            // the last agent message written
	reasons bool              // a reasoning item was written
	order   []string          // calls whose item started, in order, while open
	ids     idset.Set         // call ids written as items, for the events that come after a call's end
	pids    idset.Set         // item ids written in the current process, so that a generated id repeats none
	alias   map[string]string // source call id → the item id written for it, where the source's was taken
	proc    int               // the process pids is of (state.procs)

	lastErr  string       // the last error line's message in the open turn: a failed turn's message
	errs     []string     // the error lines' messages written, for the run's errors
	failing  event.Status // a failed turn whose turn.failed waits for its message (session_finished's)
	failUsed bool         // the waiting turn had usage (a loss when written)

	total     wire        // the thread's usage so far, as written
	haveTotal bool        // a usage was stated
	round     event.Usage // per-round usage of the open turn
	haveRound bool
	last      *event.Usage // the last turn usage written, canonical
}

// fit writes an event of another dialect's stream: it opens the thread
// and a turn where Codex needs them, joins streamed text into whole
// items, sums usage into Codex's running thread total, and counts what
// Codex cannot say.
func (e *Encoder) fit(ev *event.Event) error {
	loss := e.opts.Losses
	f := &e.f
	ev = e.renamed(ev)
	if f.ended {
		if u, ok := ev.Body.(*event.Unknown); !ok || u.Dialect == Name {
			loss.AddDetail(lossAfterRun, string(ev.Type()))
			return nil
		}
	}
	if f.failing != "" {
		// A failed turn without its message: the run's end may say it.
		var reason string
		if b, ok := ev.Body.(*event.SessionFinished); ok {
			if err := e.runErrors(b); err != nil {
				return err
			}
			reason = runMessage(b)
		}
		if err := e.writeFailed(reason); err != nil {
			return err
		}
	}
	if ev.AgentID != "" {
		loss.Add(lossAgentID)
	}
	if ev.Time != "" && ev.Type() != event.TypeSessionStarted {
		loss.Add(lossTime)
	}
	// Streamed text is written as one item when something else comes.
	switch ev.Body.(type) {
	case *event.MessageDelta, *event.Message:
		if err := e.flushThought(); err != nil {
			return err
		}
	case *event.ReasoningDelta, *event.Reasoning:
		if err := e.flushMessage(); err != nil {
			return err
		}
	default:
		if err := e.flushText(); err != nil {
			return err
		}
	}
	if _, ok := ev.Body.(*event.SessionStarted); !ok && !e.st.header {
		if err := e.header(&event.Event{Synthetic: true, Body: &event.SessionStarted{}}); err != nil {
			return err
		}
		loss.Add(lossHeaderDefaults)
	}
	plain := &event.Event{Body: ev.Body} // no residue: another dialect's means nothing here
	switch b := ev.Body.(type) {
	case *event.SessionStarted:
		if e.st.header {
			loss.Add(lossRepeatedSession)
			return nil
		}
		return e.header(ev)
	case *event.TurnStarted:
		if e.st.turn {
			if err := e.endTurn(event.StatusOK, "", nil, true); err != nil {
				return err
			}
		}
		if b.Prompt != nil && !ev.Synthetic {
			loss.Add(lossTurnPrompt)
		}
		if b.CommandID != "" {
			loss.Add(lossTurnCommandID)
		}
		return e.startTurn(false)
	case *event.TurnFinished:
		if !e.st.turn {
			if err := e.startTurn(true); err != nil {
				return err
			}
		}
		if b.Text != nil && *b.Text != "" && f.msgs == 0 {
			// An answer that was never written as a message is one.
			if err := e.message(*b.Text); err != nil {
				return err
			}
		}
		if b.StopReason != "" && b.StopReason != event.StopEndTurn {
			loss.Add(lossStopReason)
		}
		if b.Status == event.StatusOK && b.Reason != "" {
			loss.Add(lossTurnReason)
		}
		return e.endTurn(b.Status, b.Reason, b.Usage, false)
	case *event.SessionFinished:
		return e.finish(b)
	case *event.MessageDelta:
		if b.MessageID != "" {
			loss.Add(lossMessageID)
		}
		f.text.WriteString(b.Text)
		f.inText = true
		loss.Add(lossMessageDelta)
		return nil
	case *event.Message:
		if b.MessageID != "" {
			loss.Add(lossMessageID)
		}
		if f.inText {
			f.text.Reset() // the message repeats its deltas
			f.inText = false
		}
		return e.message(b.Text)
	case *event.ReasoningDelta:
		f.thought.WriteString(b.Text)
		f.inThink = true
		loss.Add(lossReasoningDelta)
		return nil
	case *event.Reasoning:
		if f.inThink {
			f.thought.Reset()
			f.inThink = false
		}
		return e.reasoning(b.Text)
	case *event.ToolCall:
		if e.calls[b.CallID] != nil || f.ids.Has(b.CallID) {
			loss.Add(lossRepeatedToolCall)
			return nil
		}
		c := &call{name: b.Name, title: b.Title, kind: b.Kind, input: b.Input}
		c.itemType = itemTypeOf(c, false)
		e.calls[b.CallID] = c
		switch {
		case c.itemType == "command_execution" && b.Title != "" && b.Title != c.commandOf():
			loss.Add(lossCommandTitle)
		case c.itemType == "mcp_tool_call" && b.Title != "":
			loss.Add(lossMCPTitle)
		}
		if c.itemType == "mcp_tool_call" {
			c.title = "" // its server is not known: written as ""
			if b.Kind != "" && b.Kind != mcpKind(b.Name) {
				loss.Add(lossToolKind)
			}
		}
		if b.Mutability != "" {
			loss.Add(lossMutability)
		}
		if c.itemType == "command_execution" && len(b.Input) > 0 && !onlyCommand(b.Input) {
			loss.Add(lossCommandInput)
		}
		return nil
	case *event.ToolStarted:
		if f.ids.Has(b.CallID) {
			loss.Add(lossAfterToolFinished)
			return nil
		}
		c := e.calls[b.CallID]
		if c != nil && c.started {
			loss.Add(lossRepeatedToolStart)
			return nil
		}
		if err := e.ensureTurn(); err != nil {
			return err
		}
		if err := e.tool(plain, b.CallID, b.Name, "item.started", nil); err != nil {
			return err
		}
		e.calls[b.CallID].started = true
		f.order = append(f.order, b.CallID)
		return nil
	case *event.ToolProgress:
		loss.Add(lossToolProgress)
		return nil
	case *event.ToolOutput:
		c := e.calls[b.CallID]
		if c == nil || f.ids.Has(b.CallID) {
			loss.Add(lossOrphanChunk)
			return nil
		}
		c.output.WriteString(b.Chunk)
		loss.Add(lossOutputChunk)
		return nil
	case *event.ToolFinished:
		if f.ids.Has(b.CallID) {
			loss.Add(lossRepeatedToolFinish)
			return nil
		}
		if err := e.ensureTurn(); err != nil {
			return err
		}
		e.auditFinish(b)
		if err := e.tool(plain, b.CallID, b.Name, "item.completed", b); err != nil {
			return err
		}
		e.closed(b.CallID)
		return nil
	case *event.PlanUpdated:
		if err := e.ensureTurn(); err != nil {
			return err
		}
		for _, p := range b.Entries {
			if p.Status != "completed" && p.Status != "pending" {
				loss.AddDetail(lossPlanStatus, strconv.Quote(p.Status))
			}
			if p.ID != "" || p.ActiveForm != "" || p.Priority != "" || p.Origin != "" || p.ElapsedSecs != nil || p.TokensSpent != nil {
				loss.Add(lossPlanDetails)
			}
		}
		if b.Completed != nil || b.Total != nil {
			loss.Add(lossPlanCounts)
		}
		return e.generated(plain, e.st.todo == "")
	case *event.Notice:
		if err := e.ensureTurn(); err != nil {
			return err
		}
		if b.Severity != event.SeverityWarning {
			loss.Add(lossNoticeSeverity)
		}
		return e.generated(plain, true)
	case *event.Error:
		if b.Recoverable != nil {
			loss.Add(lossRecoverable)
		}
		f.lastErr = b.Message
		f.errs = append(f.errs, b.Message)
		return e.line(plain)
	case *event.Usage:
		e.addRound(b)
		loss.Add(lossUsage)
		return nil
	case *event.RoundFinished:
		if b.Usage != nil {
			e.addRound(b.Usage)
		}
		loss.Add(lossRound)
		return nil
	case *event.UserMessage:
		loss.Add(lossUserMessage)
		return nil
	case *event.PermissionRequested:
		loss.Add(lossPermissionRequest)
		return nil
	case *event.PermissionResolved:
		loss.Add(lossPermissionOutcome)
		return nil
	case *event.TaskUpdated:
		loss.Add(lossTask)
		return nil
	case *event.ModelConfigured:
		loss.Add(lossModelConfigured)
		return nil
	case *event.Unknown:
		if b.Dialect == Name {
			return e.line(ev)
		}
	}
	return e.line(plain) // counts what has no codex line
}

// header writes thread.started.
func (e *Encoder) header(ev *event.Event) error {
	b := ev.Body.(*event.SessionStarted)
	loss := e.opts.Losses
	id := b.SessionID
	if id == "" {
		id = e.opts.Defaults["session_id"]
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
		if c := e.calls[id]; c != nil && c.started {
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
	if b.Text != nil && *b.Text != "" && *b.Text != f.lastMsg && *b.Text != f.said.String() {
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

// message writes an agent message with a generated id.
func (e *Encoder) message(text string) error {
	if err := e.ensureTurn(); err != nil {
		return err
	}
	e.f.msgs++
	e.f.said.WriteString(text)
	e.f.lastMsg = text
	return e.generated(&event.Event{Body: &event.Message{Text: text}}, true)
}

// reasoning writes a reasoning item with a generated id.
func (e *Encoder) reasoning(text string) error {
	if err := e.ensureTurn(); err != nil {
		return err
	}
	e.f.reasons = true
	return e.generated(&event.Event{Body: &event.Reasoning{Text: text}}, true)
}

// generated writes an item whose id the encoder makes (when fresh): the
// next item_N that no call took.
func (e *Encoder) generated(ev *event.Event, fresh bool) error {
	if fresh {
		e.process()
		for e.f.pids.Has(e.st.nextID()) || e.calls[e.st.nextID()] != nil {
			e.st.next++
		}
		e.f.pids.Add(e.st.nextID(), 0)
	}
	return e.line(ev)
}

// renamed returns ev with its call id written as the item id that stands
// for it. A source's call id is the codex item id, unless an item this
// process already wrote took that id (a generated item_N, when the source
// was codex's once and its call ids are item_N too): then the call is
// written under the next free item id, and so are its later events.
func (e *Encoder) renamed(ev *event.Event) *event.Event {
	f := &e.f
	var id *string
	cp := *ev
	switch b := ev.Body.(type) {
	case *event.ToolCall:
		c := *b
		cp.Body, id = &c, &c.CallID
	case *event.ToolStarted:
		c := *b
		cp.Body, id = &c, &c.CallID
	case *event.ToolProgress:
		c := *b
		cp.Body, id = &c, &c.CallID
	case *event.ToolOutput:
		c := *b
		cp.Body, id = &c, &c.CallID
	case *event.ToolFinished:
		c := *b
		cp.Body, id = &c, &c.CallID
	default:
		return ev
	}
	if a, ok := f.alias[*id]; ok {
		*id = a
		return &cp
	}
	if _, call := ev.Body.(*event.ToolCall); !call || e.calls[*id] != nil || f.ids.Has(*id) {
		return ev
	}
	e.process()
	if !f.pids.Has(*id) {
		return ev
	}
	for f.pids.Has(e.st.nextID()) || e.calls[e.st.nextID()] != nil || f.ids.Has(e.st.nextID()) {
		e.st.next++
	}
	if f.alias == nil {
		f.alias = map[string]string{}
	}
	f.alias[*id] = e.st.nextID()
	f.pids.Add(e.st.nextID(), 0)
	*id = e.st.nextID()
	return &cp
}

// process forgets the item ids of an earlier process: Codex numbers the
// items of every process from item_0.
func (e *Encoder) process() {
	if e.f.proc != e.st.procs {
		e.f.proc, e.f.pids = e.st.procs, idset.Set{}
	}
}

// completeTodo writes the item.completed of the open to-do list, with its
// last items.
func (e *Encoder) completeTodo() error {
	items, _ := e.st.open[e.st.todo].get("items")
	id := e.st.todo
	return e.item(&event.Event{}, "item.completed", id, "todo_list", func(li *jsonobj.Writer) {
		raw(li, "items", json.RawMessage(cmpOr(items, "[]")))
	})
}

// flushText writes the streamed text not yet written.
func (e *Encoder) flushText() error {
	if err := e.flushMessage(); err != nil {
		return err
	}
	return e.flushThought()
}

func (e *Encoder) flushMessage() error {
	f := &e.f
	if !f.inText {
		return nil
	}
	f.inText = false
	s := f.text.String()
	f.text.Reset()
	return e.message(s)
}

func (e *Encoder) flushThought() error {
	f := &e.f
	if !f.inThink {
		return nil
	}
	f.inThink = false
	s := f.thought.String()
	f.thought.Reset()
	return e.reasoning(s)
}

// closed records a call whose item completed.
func (e *Encoder) closed(id string) {
	e.f.ids.Add(id, 0)
	e.process()
	e.f.pids.Add(id, 0)
	for i, o := range e.f.order {
		if o == id {
			e.f.order = append(e.f.order[:i], e.f.order[i+1:]...)
			break
		}
	}
}

// auditFinish counts what a finished call says that its codex item
// cannot.
func (e *Encoder) auditFinish(b *event.ToolFinished) {
	loss := e.opts.Losses
	c := e.calls[b.CallID]
	typ := "mcp_tool_call"
	if c != nil {
		typ = c.itemType
	} else if b.Kind == event.KindExecute {
		typ = "command_execution"
	}
	if b.Summary != nil && *b.Summary != "" {
		loss.Add(lossSummary)
	}
	if len(b.Edit) > 0 {
		loss.Add(lossEdit)
	}
	if len(b.Web) > 0 {
		loss.Add(lossWeb)
	}
	if typ == "command_execution" {
		if b.Error != "" {
			loss.Add(lossCommandError)
		}
	} else if b.Command != "" || b.ExitCode != nil {
		loss.Add(lossMCPCommand)
	}
}

// onlyCommand reports whether a command's input says nothing beyond its
// command line.
func onlyCommand(input json.RawMessage) bool {
	n, ok := 0, true
	jsonobj.ForEach(gjson.ParseBytes(input), func(k, _ gjson.Result) bool {
		n++
		ok = k.Str == "command" || k.Str == "cmd"
		return ok
	})
	return ok && n <= 1
}
