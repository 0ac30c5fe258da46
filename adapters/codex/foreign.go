package codex

import (
	"encoding/json"
	"hash"
	"hash/fnv"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/idset"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/tidwall/gjson"
)

// foreign is the state of fitting another dialect's stream to Codex's
// shape.
type foreign struct {
	ended   bool              // the run finished: nothing more is written
	ending  bool              // the run is finishing: it ends the open turn
	turns   int               // turns written
	msgs    int               // agent messages written in the open turn
	text    deltas            // message deltas not yet written as an agent_message
	thought deltas            // reasoning deltas not yet written
	said    said              // every agent message written, for the run's answer
	lastMsg string            // the last agent message written
	reasons bool              // a reasoning item was written
	order   []string          // calls whose item started, in order; some may have completed since (open)
	orderAt int               // len(order) at which the completed are dropped from it (keepOpen)
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
// Codex cannot say. What every event needs is done here; what its type
// needs, by one fitX method per type.
func (e *Encoder) fit(ev *event.Event) error {
	ev = e.renamed(ev)
	if e.f.ended {
		if u, ok := ev.Body.(*event.Unknown); !ok || u.Dialect == Name {
			e.opts.Losses.AddDetail(lossAfterRun, string(ev.Type()))
			return nil
		}
	}
	if err := e.prepare(ev); err != nil {
		return err
	}
	switch b := ev.Body.(type) {
	case *event.SessionStarted:
		return e.fitSessionStarted(ev)
	case *event.TurnStarted:
		return e.fitTurnStarted(ev, b)
	case *event.TurnFinished:
		return e.fitTurnFinished(b)
	case *event.SessionFinished:
		return e.finish(b)
	case *event.MessageDelta, *event.Message, *event.ReasoningDelta, *event.Reasoning:
		return e.fitText(ev.Body)
	case *event.ToolCall, *event.ToolStarted, *event.ToolOutput, *event.ToolFinished:
		return e.fitTool(ev.Body)
	case *event.PlanUpdated:
		return e.fitPlan(b)
	case *event.Notice:
		return e.fitNotice(b)
	case *event.Error:
		return e.fitError(b)
	case *event.Usage:
		e.addRound(b)
		e.opts.Losses.Add(lossUsage)
		return nil
	case *event.RoundFinished:
		return e.fitRound(b)
	case *event.ToolProgress, *event.UserMessage, *event.PermissionRequested, *event.PermissionResolved,
		*event.TaskUpdated, *event.ModelConfigured:
		e.opts.Losses.Add(unwritten(ev.Body))
		return nil
	case *event.Unknown:
		if b.Dialect == Name {
			return e.line(ev)
		}
	}
	return e.line(plain(ev)) // counts what has no codex line
}

// prepare does what every event of another dialect's stream needs before
// its own line: the failed turn waiting for its message is written, the
// facts no codex line carries are counted, streamed text ends, and the
// thread starts.
func (e *Encoder) prepare(ev *event.Event) error {
	loss := e.opts.Losses
	if e.f.failing != "" {
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
	if err := e.flushBefore(ev); err != nil {
		return err
	}
	if _, ok := ev.Body.(*event.SessionStarted); !ok && !e.st.header {
		if err := e.header(&event.Event{Synthetic: true, Body: &event.SessionStarted{}}); err != nil {
			return err
		}
		loss.Add(lossHeaderDefaults)
	}
	return nil
}

// flushBefore writes the streamed text that ev ends: streamed text is
// written as one item when something else comes.
func (e *Encoder) flushBefore(ev *event.Event) error {
	switch ev.Body.(type) {
	case *event.MessageDelta, *event.Message:
		return e.flushThought()
	case *event.ReasoningDelta, *event.Reasoning:
		return e.flushMessage()
	}
	return e.flushText()
}

// plain returns ev without its residue: another dialect's means nothing
// here.
func plain(ev *event.Event) *event.Event { return &event.Event{Body: ev.Body} }

// unwritten returns the loss of an event codex has no line for.
func unwritten(body event.Body) *dialect.LossKind {
	switch body.(type) {
	case *event.ToolProgress:
		return lossToolProgress
	case *event.UserMessage:
		return lossUserMessage
	case *event.PermissionRequested:
		return lossPermissionRequest
	case *event.PermissionResolved:
		return lossPermissionOutcome
	case *event.TaskUpdated:
		return lossTask
	}
	return lossModelConfigured
}

func (e *Encoder) fitSessionStarted(ev *event.Event) error {
	if e.st.header {
		e.opts.Losses.Add(lossRepeatedSession)
		return nil
	}
	return e.header(ev)
}

func (e *Encoder) fitTurnStarted(ev *event.Event, b *event.TurnStarted) error {
	if e.st.turn {
		if err := e.endTurn(event.StatusOK, "", nil, true); err != nil {
			return err
		}
	}
	if b.Prompt != nil && !ev.Synthetic {
		e.opts.Losses.Add(lossTurnPrompt)
	}
	if b.CommandID != "" {
		e.opts.Losses.Add(lossTurnCommandID)
	}
	return e.startTurn(false)
}

func (e *Encoder) fitTurnFinished(b *event.TurnFinished) error {
	loss := e.opts.Losses
	if !e.st.turn {
		if err := e.startTurn(true); err != nil {
			return err
		}
	}
	if b.Text != nil && *b.Text != "" && e.f.msgs == 0 {
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
}

// fitText joins streamed text into whole message and reasoning items: a
// delta is kept until the text ends (flushBefore); a whole message or
// reasoning repeats the deltas before it, which are dropped.
func (e *Encoder) fitText(body event.Body) error {
	loss := e.opts.Losses
	switch b := body.(type) {
	case *event.MessageDelta:
		if b.MessageID != "" {
			loss.Add(lossMessageID)
		}
		e.f.text.add(b.Text)
		loss.Add(lossMessageDelta)
	case *event.Message:
		if b.MessageID != "" {
			loss.Add(lossMessageID)
		}
		e.f.text.take()
		return e.message(b.Text)
	case *event.ReasoningDelta:
		e.f.thought.add(b.Text)
		loss.Add(lossReasoningDelta)
	case *event.Reasoning:
		e.f.thought.take()
		return e.reasoning(b.Text)
	}
	return nil
}

// fitTool writes a call's events as the items of its type.
func (e *Encoder) fitTool(body event.Body) error {
	switch b := body.(type) {
	case *event.ToolCall:
		return e.fitToolCall(b)
	case *event.ToolStarted:
		return e.fitToolStarted(b)
	case *event.ToolOutput:
		return e.fitToolOutput(b)
	}
	return e.fitToolFinished(body.(*event.ToolFinished))
}

// fitToolCall records a call for its item, which its start writes.
func (e *Encoder) fitToolCall(b *event.ToolCall) error {
	loss := e.opts.Losses
	if e.calls.has(b.CallID) || e.f.ids.Has(b.CallID) {
		loss.Add(lossRepeatedToolCall)
		return nil
	}
	c := &call{name: b.Name, title: b.Title, kind: b.Kind, input: b.Input}
	c.itemType = itemTypeOf(c, false)
	defer e.calls.put(b.CallID, c) // once its item type is known
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
}

// fitToolStarted writes a call's item.started.
func (e *Encoder) fitToolStarted(b *event.ToolStarted) error {
	if e.f.ids.Has(b.CallID) {
		e.opts.Losses.Add(lossAfterToolFinished)
		return nil
	}
	c := e.calls.peek(b.CallID)
	if c != nil && c.started {
		e.opts.Losses.Add(lossRepeatedToolStart)
		return nil
	}
	if err := e.ensureTurn(); err != nil {
		return err
	}
	if err := e.tool(&event.Event{Body: b}, b.CallID, b.Name, "item.started", nil); err != nil {
		return err
	}
	e.calls.start(b.CallID)
	e.f.order = append(e.f.order, strings.Clone(b.CallID))
	if len(e.f.order) >= e.f.orderAt {
		e.keepOpen()
	}
	return nil
}

// open reports whether a call's item started and has not completed.
func (e *Encoder) open(id string) bool {
	c := e.calls.peek(id)
	return c != nil && c.started && !e.f.ids.Has(id)
}

// keepOpen drops from the order of started calls those that completed
// since: a call's completion leaves its id in the order (a search for it
// there would make a turn of n calls cost n² steps), and the order is
// cut down to the open ones each time it has doubled.
func (e *Encoder) keepOpen() {
	f := &e.f
	f.order = slices.DeleteFunc(f.order, func(id string) bool { return !e.open(id) })
	f.orderAt = max(64, 2*len(f.order))
}

// fitToolOutput keeps a call's output chunk for its item.completed.
func (e *Encoder) fitToolOutput(b *event.ToolOutput) error {
	c := e.calls.get(b.CallID)
	if c == nil || e.f.ids.Has(b.CallID) {
		e.opts.Losses.Add(lossOrphanChunk)
		return nil
	}
	c.output.WriteString(b.Chunk)
	e.opts.Losses.Add(lossOutputChunk)
	return nil
}

// fitToolFinished writes a call's item.completed.
func (e *Encoder) fitToolFinished(b *event.ToolFinished) error {
	if e.f.ids.Has(b.CallID) {
		e.opts.Losses.Add(lossRepeatedToolFinish)
		return nil
	}
	if err := e.ensureTurn(); err != nil {
		return err
	}
	e.auditFinish(b)
	if err := e.tool(&event.Event{Body: b}, b.CallID, b.Name, "item.completed", b); err != nil {
		return err
	}
	e.closed(b.CallID)
	return nil
}

// fitPlan writes a plan as the turn's todo_list item.
func (e *Encoder) fitPlan(b *event.PlanUpdated) error {
	loss := e.opts.Losses
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
	return e.generated(&event.Event{Body: b}, e.st.todo == "")
}

// fitNotice writes a notice as an error item of the turn.
func (e *Encoder) fitNotice(b *event.Notice) error {
	if err := e.ensureTurn(); err != nil {
		return err
	}
	if b.Severity != event.SeverityWarning {
		e.opts.Losses.Add(lossNoticeSeverity)
	}
	return e.generated(&event.Event{Body: b}, true)
}

// fitError writes an error line and remembers its message for the turn's
// and the run's end.
func (e *Encoder) fitError(b *event.Error) error {
	if b.Recoverable != nil {
		e.opts.Losses.Add(lossRecoverable)
	}
	e.f.lastErr = b.Message
	e.f.errs = append(e.f.errs, b.Message)
	return e.line(&event.Event{Body: b})
}

// fitRound adds a round's usage to the turn's.
func (e *Encoder) fitRound(b *event.RoundFinished) error {
	if b.Usage != nil {
		e.addRound(b.Usage)
	}
	e.opts.Losses.Add(lossRound)
	return nil
}

// message writes an agent message with a generated id.
func (e *Encoder) message(text string) error {
	if err := e.ensureTurn(); err != nil {
		return err
	}
	e.f.msgs++
	e.f.said.add(text)
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
		for e.f.pids.Has(e.st.nextID()) || e.calls.has(e.st.nextID()) {
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
	if _, call := ev.Body.(*event.ToolCall); !call || e.calls.has(*id) || f.ids.Has(*id) {
		return ev
	}
	e.process()
	if !f.pids.Has(*id) {
		return ev
	}
	for f.pids.Has(e.st.nextID()) || e.calls.has(e.st.nextID()) || f.ids.Has(e.st.nextID()) {
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
	items, _ := e.st.open.get(e.st.todo).get("items")
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
	if s, ok := e.f.text.take(); ok {
		return e.message(s)
	}
	return nil
}

func (e *Encoder) flushThought() error {
	if s, ok := e.f.thought.take(); ok {
		return e.reasoning(s)
	}
	return nil
}

// deltas is text streamed in deltas, joined until it is written whole.
type deltas struct {
	b    strings.Builder
	open bool // a delta came since the text was last taken
}

func (d *deltas) add(s string) {
	d.b.WriteString(s)
	d.open = true
}

// take returns the joined text and forgets it; ok is false when no delta
// came since the last take (an empty delta counts).
func (d *deltas) take() (s string, ok bool) {
	s, ok = d.b.String(), d.open
	d.b.Reset()
	d.open = false
	return s, ok
}

// closed records a call whose item completed.
func (e *Encoder) closed(id string) {
	e.f.ids.Add(id, 0)
	e.process()
	e.f.pids.Add(id, 0)
}

// auditFinish counts what a finished call says that its codex item
// cannot.
func (e *Encoder) auditFinish(b *event.ToolFinished) {
	loss := e.opts.Losses
	c := e.calls.peek(b.CallID)
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

// said stands for the agent messages written, one after another: their
// length and an FNV-1a digest of their bytes, which is all the run's end
// asks of them (whether its answer is what they said together). Kept
// whole, they grew with the run (60 MB on a 300 MB stream). Two texts of
// the same length share a digest with probability 2^-64.
type said struct {
	n      int
	digest hash.Hash64 // nil before the first message
}

// add appends a message.
func (s *said) add(text string) {
	if s.digest == nil {
		s.digest = fnv.New64a()
	}
	s.n += len(text)
	io.WriteString(s.digest, text)
}

// is reports whether text is what the messages said together.
func (s *said) is(text string) bool {
	if s.n == 0 {
		return text == ""
	}
	h := fnv.New64a()
	io.WriteString(h, text)
	return len(text) == s.n && h.Sum64() == s.digest.Sum64()
}
