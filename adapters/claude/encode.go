package claude

import (
	"bufio"
	"encoding/json"
	"math/big"
	"strconv"
	"strings"

	"github.com/evtool/evtool/adapters/internal/claudecode"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/idset"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/evtool/evtool/internal/openset"
	"github.com/tidwall/gjson"
)

// Encoder writes canonical events as Claude Code lines.
//
// A stream read from Claude Code (its session_started names claude as the
// source) is written back line for line: each group of events is derived
// and its residue applied (wire.go), the lines that rode along are written
// where they were, and the events no source line stands for write nothing.
//
// A stream from another dialect is written as Claude Code would have
// written the same run: system/init first, one assistant line per text,
// thinking or tool_use block (streamed text assembled), a user line per
// tool result, a result at the end of each turn, and a result at the end
// of the run if the last turn had none. What Claude Code's lines cannot
// carry is counted.
type Encoder struct {
	w    *bufio.Writer
	opts dialect.EncodeOptions
	loss *dialect.Losses
	st   *wireState
	buf  []byte

	header bool
	native bool

	// native
	group    []*event.Event
	deferred *event.Event // session_started whose init comes after deferN lines
	deferN   int

	// another dialect's stream
	text, thought block // assembled from deltas
	msgs          int
	msgID         map[string]string // agent → the id of the message being written
	activity      bool              // turn lines since the last result
	results       int
	turnUsage     event.Usage // summed round usage of the turn
	haveUsage     bool
	turnCost      *big.Rat // the rounds' summed cost; nil when none states one
	costGap       bool     // a round of the turn states usage without a cost
	lastText      *string  // the turn's last assistant text
	prompt        bool     // a turn prompt waits for a user message
	requests      int
	lastStatus    event.Status // the last result's status and reason
	lastReason    string

	// The state of the calls and permission requests, kept only while
	// they are open, so that a run of millions of calls costs what its
	// open calls do: a Go map of every call ever seen, whose keys were
	// cut from the decoder's copies of the lines and kept those alive,
	// held 94 MB on a 300 MB stream, and a list of the requests never
	// answered, scanned at each new one, made the run quadratic. Map keys
	// and values are cloned for the same reason.
	open     openset.Set                 // calls whose tool_use is written and whose tool_result is not
	outputs  map[string]*strings.Builder // the output chunks of open calls
	finished idset.Set                   // calls whose tool_result is written
	asked    map[string]string           // permission requests written and not yet answered: their calls
	askedFor map[string][]string         // the requests of asked of each call, in order
}

func newEncoder(w *bufio.Writer, opts dialect.EncodeOptions) *Encoder {
	return &Encoder{w: w, opts: opts, loss: opts.Losses, st: newWireState(), msgID: map[string]string{},
		outputs: map[string]*strings.Builder{}, asked: map[string]string{}, askedFor: map[string][]string{}}
}

// writeLine writes one line and lets the state learn from it.
func (e *Encoder) writeLine(b []byte) error {
	if _, err := e.w.Write(b); err != nil {
		return err
	}
	if err := e.w.WriteByte('\n'); err != nil {
		return err
	}
	e.st.observe(b)
	if e.deferred != nil {
		if e.deferN--; e.deferN <= 0 {
			return e.writeDeferred()
		}
	}
	return nil
}

// Encode implements dialect.Encoder.
func (e *Encoder) Encode(ev *event.Event) error {
	if !e.header {
		e.header = true
		if s, ok := ev.Body.(*event.SessionStarted); ok {
			e.native = s.Source.Dialect == Name
			if !e.native {
				if ev.Synthetic {
					e.loss.Add(lossSynthesizedInit)
				}
				e.loss.Foreign(ev.Ext, Name)
				return e.foreignInit(s)
			}
		} else {
			e.loss.Add(lossInitFromDefaults)
			if err := e.foreignInit(&event.SessionStarted{Schema: event.SchemaVersion}); err != nil {
				return err
			}
		}
	}
	if e.native {
		return e.nativeEvent(ev)
	}
	return e.foreign(ev)
}

// ext returns ev's ext.claude.
func ext(ev *event.Event) gjson.Result {
	if raw := ev.Ext.Get(Name); len(raw) > 0 {
		return gjson.ParseBytes(raw)
	}
	return gjson.Result{}
}

// nativeEvent writes an event of a stream read from Claude Code.
func (e *Encoder) nativeEvent(ev *event.Event) error {
	x := ext(ev)
	if s, ok := ev.Body.(*event.SessionStarted); ok && !ev.Synthetic {
		if n := x.Get(keyAfter); n.Type == gjson.Number && n.Int() > 0 {
			// system/init came after the lines the next events write.
			e.deferred, e.deferN = &event.Event{Body: s, Ext: ev.Ext, Time: ev.Time}, int(n.Int())
			return nil
		}
	}
	if err := e.writeBefore(x); err != nil {
		return err
	}
	if u, ok := ev.Body.(*event.Unknown); ok {
		if u.Dialect != Name {
			e.loss.AddDetail(lossUnknownEvent, u.Dialect)
			return nil
		}
		return e.writeLine(u.Raw)
	}
	if _, ok := ev.Body.(*event.ToolStarted); ok || ev.Synthetic {
		return nil // a tool_use means the call runs; synthesised events stand for no line
	}
	e.group = append(e.group, ev)
	if x.Get(keyMore).Type == gjson.True {
		return nil
	}
	g := e.group
	e.group = nil
	return e.render(g)
}

// writeBefore writes the lines that rode along on an event.
func (e *Encoder) writeBefore(x gjson.Result) error {
	var err error
	jsonobj.ForEach(x.Get("before"), func(_, l gjson.Result) bool {
		err = e.writeLine(compact(l.Raw))
		return err == nil
	})
	return err
}

// writeDeferred writes a session_started whose init waited for the lines
// before it: the lines it carries, then init.
func (e *Encoder) writeDeferred() error {
	ev := e.deferred
	e.deferred = nil
	if err := e.writeBefore(ext(ev)); err != nil {
		return err
	}
	return e.render([]*event.Event{ev})
}

// render writes the line of a group: derived, then its residue applied.
func (e *Encoder) render(g []*event.Event) error {
	x := ext(g[0])
	kind := x.Get(keyKind).Str
	if kind == "" {
		kind = defaultKind(g[0])
	}
	if kind == "" {
		e.loss.AddDetail(lossNoSuchLine, string(g[0].Type()))
		return nil
	}
	derived := derive(kind, g, e.st, hints{})
	b := derived.bytes(e.buf[:0])
	if x.IsObject() {
		b = apply(nil, gjson.ParseBytes(b), x)
	}
	e.buf = b
	return e.writeLine(b)
}

// Close implements dialect.Encoder.
func (e *Encoder) Close() error {
	if len(e.group) > 0 {
		g := e.group
		e.group = nil
		if err := e.render(g); err != nil {
			return err
		}
	}
	if e.deferred != nil {
		if err := e.writeDeferred(); err != nil {
			return err
		}
	}
	if !e.native {
		return e.flush()
	}
	return nil
}

// foreign writes an event of another dialect's stream: streamed text and
// reasoning are assembled; any other event first writes what was being
// assembled, then the line of its group (foreignRun, foreignTool,
// foreignSystem).
func (e *Encoder) foreign(ev *event.Event) error {
	e.loss.Foreign(ev.Ext, Name)
	switch b := ev.Body.(type) {
	case *event.MessageDelta:
		return e.messageDelta(ev, b)
	case *event.Message:
		return e.message(ev, b)
	case *event.ReasoningDelta:
		return e.reasoningDelta(ev, b)
	case *event.Reasoning:
		return e.reasoning(ev, b)
	}
	if err := e.flush(); err != nil {
		return err
	}
	switch ev.Body.(type) {
	case *event.ToolCall, *event.ToolStarted, *event.ToolProgress, *event.ToolOutput, *event.ToolFinished,
		*event.PermissionRequested, *event.PermissionResolved:
		return e.foreignTool(ev)
	case *event.SessionStarted, *event.TurnStarted, *event.UserMessage, *event.Usage, *event.RoundFinished,
		*event.TurnFinished, *event.SessionFinished, *event.ModelConfigured:
		return e.foreignRun(ev)
	}
	return e.foreignSystem(ev)
}

// foreignRun writes the events of the run and its turns.
func (e *Encoder) foreignRun(ev *event.Event) error {
	loss := e.loss
	switch b := ev.Body.(type) {
	case *event.SessionStarted:
		loss.Add(lossRepeatedSessionStart)
	case *event.TurnStarted:
		e.prompt = b.Prompt != nil && *b.Prompt != ""
		loss.Add(lossTurnStarted)
	case *event.UserMessage:
		return e.userMessage(ev, b)
	case *event.Usage:
		e.addUsage(b)
		loss.Add(lossUsageEvent)
	case *event.RoundFinished:
		if b.Usage != nil {
			e.addUsage(b.Usage)
		}
		loss.Add(lossRoundFinished)
	case *event.TurnFinished:
		return e.result(ev, b)
	case *event.SessionFinished:
		return e.sessionFinished(ev, b)
	case *event.ModelConfigured:
		loss.Add(lossModelChange)
	}
	return nil
}

// foreignTool writes the events of tool calls and their permissions.
func (e *Encoder) foreignTool(ev *event.Event) error {
	switch b := ev.Body.(type) {
	case *event.ToolCall:
		if e.known(b.CallID) {
			e.loss.Add(lossRepeatedToolCall)
			return nil
		}
		return e.toolUse(ev, b)
	case *event.ToolStarted:
		if !e.known(b.CallID) {
			return e.toolUse(&event.Event{AgentID: ev.AgentID, Time: ev.Time}, &event.ToolCall{CallID: b.CallID, Name: b.Name})
		}
	case *event.ToolProgress:
		return e.toolProgress(ev, b)
	case *event.ToolOutput:
		return e.toolOutput(ev, b)
	case *event.ToolFinished:
		return e.toolResult(ev, b)
	case *event.PermissionRequested:
		return e.permissionRequested(ev, b)
	case *event.PermissionResolved:
		return e.permissionResolved(ev, b)
	}
	return nil
}

// foreignSystem writes the events Claude Code states in system lines, and
// counts those it has no line for.
func (e *Encoder) foreignSystem(ev *event.Event) error {
	loss := e.loss
	switch b := ev.Body.(type) {
	case *event.PlanUpdated:
		loss.Add(lossPlanUpdate)
		return nil
	case *event.TaskUpdated:
		if b.Kind != "" || b.Detail != "" || b.ParentTaskID != "" {
			loss.Add(lossTaskKindDetailParent)
		}
		return e.line("system/task_updated", ev)
	case *event.Notice:
		if b.Severity == event.SeverityError {
			loss.Add(lossErrorNotice)
		}
		return e.line("system/informational", ev)
	case *event.Retry:
		if errorWord(b.Error) != b.Error {
			loss.Add(lossRetryError)
		}
		return e.line("system/api_retry", ev)
	case *event.Error:
		return e.errorText(ev, b)
	case *event.CompactionStarted:
		return e.line("system/status", ev)
	case *event.CompactionFinished:
		if *b != (event.CompactionFinished{}) {
			loss.Add(lossCompactionFigures)
		}
		loss.Add(lossCompactionTokens)
		return e.line("system/compact_boundary", ev)
	case *event.Unknown:
		if b.Dialect == Name {
			return e.writeLine(b.Raw)
		}
		loss.AddDetail(lossUnknownEvent, b.Dialect)
		return nil
	}
	loss.AddDetail(lossNoSuchLine, string(ev.Type()))
	return nil
}

// messageDelta assembles streamed text: a delta of another agent, or
// after reasoning, begins a new block.
func (e *Encoder) messageDelta(ev *event.Event, b *event.MessageDelta) error {
	if err := e.flushIf(e.thought.open || e.text.open && e.text.ev.AgentID != ev.AgentID); err != nil {
		return err
	}
	e.text.add(ev, b.Text)
	e.loss.Add(lossMessageDelta)
	return nil
}

// message writes an assembled message as a text block.
func (e *Encoder) message(ev *event.Event, b *event.Message) error {
	if err := e.flushIf(e.thought.open); err != nil {
		return err
	}
	e.text.take() // an assembled message repeats its deltas
	t := b.Text
	e.lastText = &t
	return e.assistant(ev, &event.Message{Text: b.Text, MessageID: b.MessageID})
}

// reasoningDelta assembles streamed reasoning.
func (e *Encoder) reasoningDelta(ev *event.Event, b *event.ReasoningDelta) error {
	if err := e.flushIf(e.text.open); err != nil {
		return err
	}
	e.thought.add(ev, b.Text)
	e.loss.Add(lossReasoningDelta)
	return nil
}

// reasoning writes assembled reasoning as a thinking block.
func (e *Encoder) reasoning(ev *event.Event, b *event.Reasoning) error {
	if err := e.flushIf(e.text.open); err != nil {
		return err
	}
	e.thought.take()
	return e.assistant(ev, b)
}

// userMessage writes a user line; it answers the turn's prompt.
func (e *Encoder) userMessage(ev *event.Event, b *event.UserMessage) error {
	e.prompt = false
	c := *b
	if c.ImageCount != nil && *c.ImageCount > 0 {
		e.loss.Add(lossImageCount)
		c.ImageCount = nil
	}
	return e.line("user", &event.Event{AgentID: ev.AgentID, Time: ev.Time, Body: &c})
}

// sessionFinished writes the run's end as a result, unless the last
// result already ended it.
func (e *Encoder) sessionFinished(ev *event.Event, b *event.SessionFinished) error {
	loss := e.loss
	reason := b.Message
	if b.Errors != nil && len(*b.Errors) > 0 {
		reason = strings.Join(*b.Errors, "; ")
	}
	if !e.activity && e.results > 0 {
		// The last result ended the run in Claude Code's terms; what
		// the session's end says beyond it has no line.
		if b.Status != e.lastStatus || (reason != "" && reason != e.lastReason) || b.StoppedBy != "" || len(b.StructuredOutput) > 0 {
			loss.Add(lossRunOutcome)
		}
		return nil
	}
	t := &event.TurnFinished{Status: b.Status, Text: b.Text, Usage: b.Usage, Reason: reason}
	if b.StoppedBy != "" {
		loss.Add(lossRunBounds)
	}
	if len(b.StructuredOutput) > 0 {
		loss.Add(lossStructuredOutput)
	}
	loss.Add(lossSynthesizedResult)
	return e.result(&event.Event{Time: ev.Time, Body: t}, t)
}

// toolProgress writes a tool_progress line of a call still running.
func (e *Encoder) toolProgress(ev *event.Event, b *event.ToolProgress) error {
	if err := e.ensureCall(ev, b.CallID, b.Name); err != nil {
		return err
	}
	if e.finished.Has(b.CallID) {
		e.loss.Add(lossProgressAfterResult)
		return nil
	}
	if b.Message != "" {
		e.loss.Add(lossToolProgressMessage)
	}
	return e.line("tool_progress", ev)
}

// toolOutput keeps a chunk of a call's output for its tool_result.
func (e *Encoder) toolOutput(ev *event.Event, b *event.ToolOutput) error {
	if err := e.ensureCall(ev, b.CallID, b.Name); err != nil {
		return err
	}
	e.loss.Add(lossToolOutputChunk)
	if !e.open.Has(b.CallID) {
		return nil // its tool_result is written
	}
	out := e.outputs[b.CallID]
	if out == nil {
		out = &strings.Builder{}
		e.outputs[strings.Clone(b.CallID)] = out
	}
	// Kept whole until the tool_result, which is then itself this long.
	out.WriteString(b.Chunk)
	return nil
}

// errorText writes an error as the assistant text Claude Code shows.
func (e *Encoder) errorText(ev *event.Event, b *event.Error) error {
	if b.Recoverable != nil {
		e.loss.Add(lossErrorRecoverable)
	}
	e.loss.Add(lossErrorAsText)
	e.activity = true
	return e.line("assistant", &event.Event{AgentID: ev.AgentID, Time: ev.Time, Body: &event.Message{Text: b.Message}},
		&event.Event{Body: &event.Error{Message: "unknown"}})
}

// line writes a group of another dialect's events as a line of kind.
func (e *Encoder) line(kind string, g ...*event.Event) error {
	if g[0].Time != "" && kind != "user" && kind != "assistant" {
		e.loss.Add(lossEventTime)
	}
	if opensTurn(kind) {
		e.activity = true
	}
	derived := derive(kind, g, e.st, hints{msgID: e.msgID[g[0].AgentID]})
	if kind != "control_request" && kind != "control_response" {
		e.loss.Add(lossUUID) // control messages have no uuid
	}
	if kind != "assistant" && kind != "stream_event" {
		delete(e.msgID, g[0].AgentID) // the next assistant line is a new message
	}
	return e.writeLine(derived.bytes(nil))
}

// assistant writes one block of an assistant message.
func (e *Encoder) assistant(ev *event.Event, body event.Body) error {
	// Cloned: the map outlives the lines these strings were cut from.
	agent := strings.Clone(ev.AgentID)
	if m, ok := body.(*event.Message); ok && m.MessageID != "" {
		e.msgID[agent] = strings.Clone(m.MessageID)
	}
	if e.msgID[agent] == "" {
		e.msgs++
		e.msgID[agent] = "msg_evtool_" + strconv.Itoa(e.msgs)
		e.loss.Add(lossMessageID)
	}
	e.loss.Add(lossAssistantUsage)
	if _, ok := body.(*event.Reasoning); ok {
		e.loss.Add(lossReasoningSignature) // assembled from deltas or not
	}
	id := e.msgID[agent]
	err := e.line("assistant", &event.Event{AgentID: agent, Time: ev.Time, Body: body})
	e.msgID[agent] = id
	return err
}

// flush writes streamed text or reasoning as an assembled block.
// flushIf writes the text or thinking block being assembled when cond
// says what comes next cannot join it.
func (e *Encoder) flushIf(cond bool) error {
	if !cond {
		return nil
	}
	return e.flush()
}

func (e *Encoder) flush() error {
	if e.text.open {
		ev, t := e.text.take()
		e.lastText = &t
		return e.assistant(ev, &event.Message{Text: t})
	}
	if e.thought.open {
		ev, t := e.thought.take()
		return e.assistant(ev, &event.Reasoning{Text: t})
	}
	return nil
}

// A block is a text or thinking block being assembled from deltas: Claude
// Code's print mode writes whole blocks.
type block struct {
	open bool
	ev   *event.Event // the first delta, for its envelope
	buf  strings.Builder
}

// add appends a delta's text, opening the block at the first.
func (b *block) add(ev *event.Event, text string) {
	if !b.open {
		b.open, b.ev = true, ev
		b.buf.Reset()
	}
	b.buf.WriteString(text)
}

// take closes the block and returns its first delta and its text. The
// block lets go of both: a long text is not kept until the next block.
func (b *block) take() (*event.Event, string) {
	ev, t := b.ev, b.buf.String()
	b.open, b.ev = false, nil
	b.buf.Reset()
	return ev, t
}

// known reports whether a call's tool_use is written.
func (e *Encoder) known(id string) bool {
	return e.open.Has(id) || e.finished.Has(id)
}

// finish forgets an open call, whose tool_result is being written, and the
// permission requests asked about it and not answered: an answer after the
// result comes too late to be written.
func (e *Encoder) finish(id string) {
	e.open.Delete(id)
	delete(e.outputs, id)
	e.finished.Add(id, 0)
	if id == "" {
		return // the requests of no call stay open
	}
	for _, r := range e.askedFor[id] {
		delete(e.asked, r)
	}
	delete(e.askedFor, id)
}

func (e *Encoder) toolUse(ev *event.Event, b *event.ToolCall) error {
	e.open.Add(b.CallID, 0, "")
	if b.Title != "" || b.Mutability != "" {
		e.loss.Add(lossToolTitleMutability)
	}
	c := *b
	if len(c.Input) > 0 && !gjson.ParseBytes(c.Input).IsObject() {
		e.loss.Add(lossToolInputNotObject)
	}
	if c.Name == "" {
		c.Name = "tool"
		e.loss.Add(lossToolName)
	}
	return e.assistant(ev, &c)
}

// ensureCall writes the tool_use of a call the stream has not shown yet.
func (e *Encoder) ensureCall(ev *event.Event, id, name string) error {
	if e.known(id) {
		return nil
	}
	e.loss.Add(lossSynthesizedToolUse)
	return e.toolUse(&event.Event{AgentID: ev.AgentID}, &event.ToolCall{CallID: id, Name: name})
}

func (e *Encoder) toolResult(ev *event.Event, b *event.ToolFinished) error {
	loss := e.loss
	if err := e.ensureCall(ev, b.CallID, b.Name); err != nil {
		return err
	}
	if e.finished.Has(b.CallID) {
		loss.Add(lossRepeatedToolResult)
		return nil
	}
	chunks := e.outputs[b.CallID]
	e.finish(b.CallID)
	var out string
	switch {
	case b.Output != nil:
		out = *b.Output
		if chunks != nil {
			loss.Add(lossStreamedToolOutput)
		}
		if b.Summary != nil && *b.Summary != "" {
			loss.Add(lossToolSummary)
		}
	case chunks != nil:
		out = chunks.String()
		if b.Summary != nil && *b.Summary != "" {
			loss.Add(lossToolSummary)
		}
	case b.Summary != nil:
		out = *b.Summary
	default:
		out = b.Error
	}
	if b.Error != "" && out != b.Error && !strings.Contains(out, b.Error) {
		loss.Add(lossToolErrorText)
	}
	switch b.Status {
	case event.ToolSuccess, event.ToolError:
	default:
		loss.AddDetail(lossToolStatus, strconv.Quote(string(b.Status)))
	}
	if b.ExitCode != nil || b.Command != "" || len(b.Edit) > 0 || len(b.Web) > 0 {
		loss.Add(lossToolResultDetails)
	}
	f := &event.ToolFinished{CallID: b.CallID, Status: b.Status, Output: &out}
	return e.line("user", &event.Event{AgentID: ev.AgentID, Time: ev.Time, Body: f})
}

// addUsage adds a round's usage to the turn's: its counts, and its cost
// (a transcript's costUSD, opencode's step cost) while every round
// states one.
func (e *Encoder) addUsage(u *event.Usage) {
	e.haveUsage = true
	addCounts(&e.turnUsage, u)
	c, ok := decimal(string(u.CostUSD))
	if !ok {
		e.costGap = true
		return
	}
	if e.turnCost == nil {
		e.turnCost = new(big.Rat)
	}
	e.turnCost.Add(e.turnCost, c)
}

// zeroCost reports whether a usage states a cost of 0.
func zeroCost(u *event.Usage) bool {
	c, ok := decimal(string(u.CostUSD))
	return ok && c.Sign() == 0
}

// result writes a turn's result line.
func (e *Encoder) result(ev *event.Event, b *event.TurnFinished) error {
	loss := e.loss
	t := *b
	if t.Usage == nil && e.haveUsage {
		u := e.turnUsage
		if e.turnCost != nil && !e.costGap {
			u.CostUSD = json.Number(claudecode.DecimalString(e.turnCost))
		}
		t.Usage = &u
		loss.Add(lossTurnUsage)
	}
	if t.Usage == nil || t.Usage.CostUSD == "" || zeroCost(t.Usage) {
		// An unknown cost is never a stated 0: the 0 the result needs
		// beside no modelUsage is read back as unknown (unstatedCost), and
		// so is a stated 0.
		loss.Add(lossUnstatedCost)
	}
	if t.Usage != nil && (t.Usage.ReasoningTokens != nil || t.Usage.ThoughtsTokens != nil || t.Usage.TotalTokens != nil || t.Usage.ModelResponses != nil) {
		loss.Add(lossUsageCounts)
	}
	if t.Text == nil && t.Status == event.StatusOK {
		t.Text = e.lastText
	}
	if t.Status != event.StatusOK && t.Text != nil && *t.Text != "" {
		loss.Add(lossFailedTurnText)
	}
	if e.prompt {
		loss.Add(lossTurnPrompt)
	}
	switch t.StopReason {
	case "", event.StopEndTurn, event.StopToolUse, event.StopMaxTokens, event.StopRefusal:
	case event.StopMaxTurnRequests:
		if t.Status == event.StatusOK {
			loss.Add(lossStopMaxTurnRequests)
		}
	default:
		loss.AddDetail(lossStopReason, strconv.Quote(string(t.StopReason)))
	}
	loss.Add(lossResultDurations)
	err := e.line("result", &event.Event{Time: ev.Time, Body: &t})
	e.lastStatus, e.lastReason = t.Status, t.Reason
	e.activity, e.prompt, e.haveUsage, e.lastText = false, false, false, nil
	e.turnUsage, e.turnCost, e.costGap = event.Usage{}, nil, false
	e.results++
	return err
}

// foreignInit writes system/init for another dialect's stream.
func (e *Encoder) foreignInit(s *event.SessionStarted) error {
	c := *s
	if c.SessionID == "" {
		c.SessionID = e.opts.Defaults.SessionID
	}
	if c.Model == "" {
		c.Model = e.opts.Defaults.Model
	}
	if c.Workspace == "" {
		c.Workspace = e.opts.Defaults.Workspace
	}
	if c.Agent != nil && c.Agent.Name != agentName && c.Agent.Version != "" {
		e.loss.Add(lossProducerVersion)
	}
	if c.Provider != "" || c.TaskID != "" || (c.ContextFiles != nil && len(*c.ContextFiles) > 0) || len(c.SkillsDirs) > 0 ||
		len(c.CommandsDirs) > 0 || len(c.MCPFiles) > 0 || len(c.A2AFiles) > 0 || len(c.A2AAgents) > 0 {
		e.loss.Add(lossSessionFacts)
	}
	described := false
	for _, k := range c.Skills {
		described = described || k.Description != ""
	}
	for _, k := range c.Commands {
		described = described || k.Description != "" || k.Hint != ""
	}
	if described {
		e.loss.Add(lossSkillCommandDescriptions)
	}
	if len(c.MCPServers) > 0 {
		e.loss.Add(lossMCPServerStatuses)
	}
	e.loss.Add(lossSessionSettings)
	e.loss.Add(lossUUID)
	return e.writeLine(derive("system/init", []*event.Event{{Body: &c}}, e.st, hints{}).bytes(nil))
}
