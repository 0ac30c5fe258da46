package claude

import (
	"bufio"
	"strconv"
	"strings"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
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
	text, thought     strings.Builder
	inText, inThought bool
	textEv, thoughtEv *event.Event // the first delta, for its envelope
	msgs              int
	msgID             map[string]string // agent → the id of the message being written
	calls             map[string]*ecall
	activity          bool // turn lines since the last result
	results           int
	turnUsage         event.Usage // summed round usage of the turn
	haveUsage         bool
	lastText          *string // the turn's last assistant text
	prompt            bool    // a turn prompt waits for a user message
	requests          int
	asked             []asked // permission requests written and not yet answered, in order
}

type asked struct{ request, call string }

type ecall struct {
	name     string
	finished bool
	output   strings.Builder
	chunks   bool
}

func newEncoder(w *bufio.Writer, opts dialect.EncodeOptions) *Encoder {
	return &Encoder{w: w, opts: opts, loss: opts.Losses, st: newWireState(), msgID: map[string]string{}, calls: map[string]*ecall{}}
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
					e.loss.Synthesize("system/init lines", "the source has no header line; built from its facts")
				}
				e.loss.Foreign(ev.Ext, Name)
				return e.foreignInit(s)
			}
		} else {
			e.loss.Synthesize("system/init lines", "the source stream has no header; built from defaults")
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
	if raw := ev.Ext[Name]; len(raw) > 0 {
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
			e.loss.Drop("unknown "+u.Dialect+" events", "Claude Code cannot carry another dialect's unknown lines")
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
	x.Get("before").ForEach(func(_, l gjson.Result) bool {
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
		e.loss.Drop(string(g[0].Type())+" events", "Claude Code has no such line")
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

// foreign writes an event of another dialect's stream.
func (e *Encoder) foreign(ev *event.Event) error {
	loss := e.loss
	loss.Foreign(ev.Ext, Name)
	switch ev.Body.(type) {
	case *event.MessageDelta, *event.ReasoningDelta, *event.Message, *event.Reasoning:
	default:
		if err := e.flush(); err != nil {
			return err
		}
	}
	switch b := ev.Body.(type) {
	case *event.SessionStarted:
		loss.Drop("repeated session starts", "Claude Code states a session once, in system/init")
		return nil
	case *event.TurnStarted:
		e.prompt = b.Prompt != nil && *b.Prompt != ""
		return nil
	case *event.UserMessage:
		e.prompt = false
		c := *b
		if c.ImageCount != nil && *c.ImageCount > 0 {
			loss.Drop("user images", "the source has only their count; Claude Code writes the image data")
			c.ImageCount = nil
		}
		return e.line("user", &event.Event{AgentID: ev.AgentID, Time: ev.Time, Body: &c})
	case *event.MessageDelta:
		if e.inThought {
			if err := e.flush(); err != nil {
				return err
			}
		}
		if e.inText && e.textEv.AgentID != ev.AgentID {
			if err := e.flush(); err != nil {
				return err
			}
		}
		if !e.inText {
			e.inText, e.textEv = true, ev
			e.text.Reset()
		}
		e.text.WriteString(b.Text)
		loss.Approximate("message deltas", "Claude Code's print mode writes assembled text blocks; the deltas are joined")
		return nil
	case *event.Message:
		if e.inThought {
			if err := e.flush(); err != nil {
				return err
			}
		}
		e.inText = false // an assembled message repeats its deltas
		t := b.Text
		e.lastText = &t
		return e.assistant(ev, &event.Message{Text: b.Text, MessageID: b.MessageID})
	case *event.ReasoningDelta:
		if e.inText {
			if err := e.flush(); err != nil {
				return err
			}
		}
		if !e.inThought {
			e.inThought, e.thoughtEv = true, ev
			e.thought.Reset()
		}
		e.thought.WriteString(b.Text)
		loss.Approximate("reasoning deltas", "Claude Code's print mode writes assembled thinking blocks; the deltas are joined")
		return nil
	case *event.Reasoning:
		if e.inText {
			if err := e.flush(); err != nil {
				return err
			}
		}
		e.inThought = false
		loss.Approximate("reasoning signatures", "Claude Code's thinking blocks carry an API signature the source has not; written empty")
		return e.assistant(ev, b)
	case *event.ToolCall:
		if c := e.calls[b.CallID]; c != nil {
			loss.Drop("repeated tool_call events", "Claude Code states a tool call once, as its tool_use block")
			return nil
		}
		return e.toolUse(ev, b)
	case *event.ToolStarted:
		if e.calls[b.CallID] == nil {
			return e.toolUse(&event.Event{AgentID: ev.AgentID, Time: ev.Time}, &event.ToolCall{CallID: b.CallID, Name: b.Name})
		}
		return nil
	case *event.ToolProgress:
		if err := e.ensureCall(ev, b.CallID, b.Name); err != nil {
			return err
		}
		if e.calls[b.CallID].finished {
			loss.Drop("tool progress after the result", "Claude Code reports progress of running calls only")
			return nil
		}
		loss.Approximate("tool progress messages", "Claude Code's tool_progress states the elapsed time only; written as 0 s")
		return e.line("tool_progress", ev)
	case *event.ToolOutput:
		if err := e.ensureCall(ev, b.CallID, b.Name); err != nil {
			return err
		}
		c := e.calls[b.CallID]
		c.output.WriteString(b.Chunk)
		c.chunks = true
		loss.Approximate("tool output chunks", "Claude Code writes a call's output once, in its tool_result")
		return nil
	case *event.ToolFinished:
		return e.toolResult(ev, b)
	case *event.PermissionRequested:
		c := *b
		for _, a := range e.asked {
			if c.RequestID != "" && a.request == c.RequestID {
				loss.Drop("repeated permission requests", "Claude Code asks once per request id")
				return nil
			}
		}
		if c.RequestID == "" {
			e.requests++
			c.RequestID = "evtool-request-" + strconv.Itoa(e.requests)
			loss.Synthesize("permission request ids", "Claude Code's control_request needs one")
		}
		if c.Description != "" || c.Risk != "" {
			loss.Drop("permission descriptions and risks", "Claude Code's can_use_tool request names the tool and its input")
		}
		e.asked = append(e.asked, asked{c.RequestID, c.CallID})
		if len(c.Preview) > 0 && !gjson.ParseBytes(c.Preview).IsObject() {
			loss.Approximate("permission previews that are not objects", "Claude Code's request input is an object; wrapped as {\"input\": …}")
		}
		return e.line("control_request", &event.Event{Body: &c})
	case *event.PermissionResolved:
		if b.Scope != "" {
			loss.Drop("permission scopes", "Claude Code's control_response says allow or deny")
		}
		// An answer goes to its request, or to the call's latest open one.
		i := -1
		for j, a := range e.asked {
			if (b.RequestID != "" && a.request == b.RequestID) || (b.RequestID == "" && a.call == b.CallID) {
				i = j
			}
		}
		if i < 0 {
			if b.RequestID == "" && b.Outcome == event.Denied {
				return e.line("system/permission_denied", ev)
			}
			loss.Drop("permission outcomes without an open request", "Claude Code answers each of its requests once")
			return nil
		}
		c := *b
		c.RequestID = e.asked[i].request
		e.asked = append(e.asked[:i], e.asked[i+1:]...)
		return e.line("control_response", &event.Event{Body: &c})
	case *event.PlanUpdated:
		loss.Drop("plan updates", "Claude Code states a plan only as the input of a TodoWrite tool call")
		return nil
	case *event.TaskUpdated:
		if b.Kind != "" || b.Detail != "" || b.ParentTaskID != "" {
			loss.Drop("task kinds, details and parents", "Claude Code's task_updated patch has a status, a description and an error")
		}
		return e.line("system/task_updated", ev)
	case *event.Usage:
		e.addUsage(b)
		loss.Drop("usage events", "Claude Code states usage on assistant lines, written before it is known, and in result")
		return nil
	case *event.RoundFinished:
		if b.Usage != nil {
			e.addUsage(b.Usage)
		}
		loss.Drop("round_finished events", "Claude Code states round usage on assistant lines, written before it is known")
		return nil
	case *event.TurnFinished:
		return e.result(ev, b)
	case *event.SessionFinished:
		if ev.Synthetic {
			loss.Synthesize("session ends", "the source has no such line")
		}
		if !e.activity && e.results > 0 {
			return nil
		}
		t := &event.TurnFinished{Status: b.Status, Text: b.Text, Usage: b.Usage, Reason: b.Message}
		if b.Errors != nil && len(*b.Errors) > 0 {
			t.Reason = strings.Join(*b.Errors, "; ")
		}
		if b.StoppedBy != "" {
			loss.Drop("run bounds (stopped_by)", "Claude Code's result says only that the turn failed")
		}
		loss.Synthesize("result lines", "the run ended without a turn's result; built from the session's end")
		return e.result(&event.Event{Body: t}, t)
	case *event.Notice:
		if b.Severity == event.SeverityError {
			loss.Approximate("error notices", "Claude Code's informational levels end at warning")
		}
		return e.line("system/informational", ev)
	case *event.Retry:
		if errorWord(b.Error) != b.Error {
			loss.Approximate("retry errors", "Claude Code's api_retry names the error with one of its words; written as unknown")
		}
		return e.line("system/api_retry", ev)
	case *event.Error:
		if b.Recoverable != nil {
			loss.Drop("error recoverability", "Claude Code's assistant error names the error only")
		}
		e.activity = true
		return e.line("assistant", &event.Event{AgentID: ev.AgentID, Time: ev.Time, Body: &event.Message{Text: b.Message}},
			&event.Event{Body: &event.Error{Message: "unknown"}})
	case *event.CompactionStarted:
		return e.line("system/status", ev)
	case *event.CompactionFinished:
		if *b != (event.CompactionFinished{}) {
			loss.Drop("compaction figures", "Claude Code's compact_boundary has its own token figures")
		}
		loss.Approximate("compaction token counts", "Claude Code's compact_boundary states pre_tokens; written as 0")
		return e.line("system/compact_boundary", ev)
	case *event.ModelConfigured:
		loss.Drop("model changes", "Claude Code states the model in system/init and on each assistant message")
		return nil
	case *event.Unknown:
		if b.Dialect == Name {
			return e.writeLine(b.Raw)
		}
		loss.Drop("unknown "+b.Dialect+" events", "Claude Code cannot carry another dialect's unknown lines")
		return nil
	}
	loss.Drop(string(ev.Type())+" events", "Claude Code has no such line")
	return nil
}

// line writes a group of another dialect's events as a line of kind.
func (e *Encoder) line(kind string, g ...*event.Event) error {
	if g[0].Time != "" && kind != "user" && kind != "assistant" {
		e.loss.Drop("event times", "Claude Code dates user and assistant lines only")
	}
	if opensTurn(kind) {
		e.activity = true
	}
	derived := derive(kind, g, e.st, hints{msgID: e.msgID[g[0].AgentID]})
	e.loss.Synthesize("uuids", "every Claude Code line has one; the source has none, so each is a placeholder")
	if kind != "assistant" && kind != "stream_event" {
		delete(e.msgID, g[0].AgentID) // the next assistant line is a new message
	}
	return e.writeLine(derived.bytes(nil))
}

// assistant writes one block of an assistant message.
func (e *Encoder) assistant(ev *event.Event, body event.Body) error {
	agent := ev.AgentID
	if m, ok := body.(*event.Message); ok && m.MessageID != "" {
		e.msgID[agent] = m.MessageID
	}
	if e.msgID[agent] == "" {
		e.msgs++
		e.msgID[agent] = "msg_evtool_" + strconv.Itoa(e.msgs)
		e.loss.Synthesize("message ids", "Claude Code names each API message; the source does not")
	}
	e.loss.Approximate("assistant usage", "Claude Code states usage on each assistant line, before the source states it; written as 0")
	id := e.msgID[agent]
	err := e.line("assistant", &event.Event{AgentID: agent, Time: ev.Time, Body: body})
	e.msgID[agent] = id
	return err
}

// flush writes streamed text or reasoning as an assembled block.
func (e *Encoder) flush() error {
	if e.inText {
		e.inText = false
		t := e.text.String()
		e.lastText = &t
		return e.assistant(e.textEv, &event.Message{Text: t})
	}
	if e.inThought {
		e.inThought = false
		return e.assistant(e.thoughtEv, &event.Reasoning{Text: e.thought.String()})
	}
	return nil
}

func (e *Encoder) toolUse(ev *event.Event, b *event.ToolCall) error {
	e.calls[b.CallID] = &ecall{name: b.Name}
	if b.Title != "" || b.Mutability != "" {
		e.loss.Drop("tool titles and mutability", "Claude Code's tool_use block has a name and an input")
	}
	c := *b
	if len(c.Input) > 0 && !gjson.ParseBytes(c.Input).IsObject() {
		e.loss.Approximate("tool inputs that are not objects", "Claude Code's tool_use input is an object; wrapped as {\"input\": …}")
	}
	if c.Name == "" {
		c.Name = "tool"
		e.loss.Approximate("tool names", "the source names no tool; Claude Code's tool_use needs a name")
	}
	return e.assistant(ev, &c)
}

// ensureCall writes the tool_use of a call the stream has not shown yet.
func (e *Encoder) ensureCall(ev *event.Event, id, name string) error {
	if e.calls[id] != nil {
		return nil
	}
	e.loss.Synthesize("tool_use blocks", "Claude Code shows every call as a tool_use before its result")
	return e.toolUse(&event.Event{AgentID: ev.AgentID}, &event.ToolCall{CallID: id, Name: name})
}

func (e *Encoder) toolResult(ev *event.Event, b *event.ToolFinished) error {
	loss := e.loss
	if err := e.ensureCall(ev, b.CallID, b.Name); err != nil {
		return err
	}
	c := e.calls[b.CallID]
	if c.finished {
		loss.Drop("repeated tool results", "Claude Code answers a tool_use once")
		return nil
	}
	c.finished = true
	var out string
	switch {
	case b.Output != nil:
		out = *b.Output
		if c.chunks {
			loss.Drop("tool output chunks", "the call's stated output is written")
		}
		if b.Summary != nil && *b.Summary != "" {
			loss.Drop("tool summaries", "Claude Code's tool_result has one content")
		}
	case c.chunks:
		out = c.output.String()
		if b.Summary != nil && *b.Summary != "" {
			loss.Drop("tool summaries", "Claude Code's tool_result has one content")
		}
	case b.Summary != nil:
		out = *b.Summary
	default:
		out = b.Error
	}
	if b.Error != "" && out != b.Error && !strings.Contains(out, b.Error) {
		loss.Drop("tool error texts", "Claude Code's tool_result has one content and an is_error flag")
	}
	switch b.Status {
	case event.ToolSuccess, event.ToolError:
	default:
		loss.Approximate("tool statuses "+strconv.Quote(string(b.Status)), "Claude Code's tool_result is an error or not; written as an error")
	}
	if b.ExitCode != nil || b.Command != "" || len(b.Edit) > 0 || len(b.Web) > 0 {
		loss.Drop("tool result details (exit code, command, edit, web)", "Claude Code keeps them in tool_use_result, whose shape is each tool's own")
	}
	f := &event.ToolFinished{CallID: b.CallID, Status: b.Status, Output: &out}
	return e.line("user", &event.Event{AgentID: ev.AgentID, Time: ev.Time, Body: f})
}

func (e *Encoder) addUsage(u *event.Usage) {
	e.haveUsage = true
	add := func(dst **uint64, v *uint64) {
		if v == nil {
			return
		}
		if *dst == nil {
			*dst = new(uint64)
		}
		if **dst > ^uint64(0)-*v {
			**dst = ^uint64(0)
			return
		}
		**dst += *v
	}
	add(&e.turnUsage.InputTokens, u.InputTokens)
	add(&e.turnUsage.OutputTokens, u.OutputTokens)
	add(&e.turnUsage.CacheReadTokens, u.CacheReadTokens)
	add(&e.turnUsage.CacheCreationTokens, u.CacheCreationTokens)
}

// result writes a turn's result line.
func (e *Encoder) result(ev *event.Event, b *event.TurnFinished) error {
	loss := e.loss
	t := *b
	if t.Usage == nil && e.haveUsage {
		u := e.turnUsage
		t.Usage = &u
		loss.Approximate("turn usage", "Claude Code's result states the turn's total; summed from the rounds")
	}
	if t.Usage != nil && (t.Usage.ReasoningTokens != nil || t.Usage.ThoughtsTokens != nil || t.Usage.TotalTokens != nil || t.Usage.ModelResponses != nil) {
		loss.Drop("token counts Claude Code has no field for (reasoning, thoughts, total, responses)", "Claude Code's usage counts input, output and cache tokens")
	}
	if t.Text == nil && t.Status == event.StatusOK {
		t.Text = e.lastText
	}
	if t.Status != event.StatusOK && t.Text != nil && *t.Text != "" {
		loss.Drop("texts of failed turns", "Claude Code's error results carry errors, not a result text")
	}
	if e.prompt {
		loss.Drop("turn prompts", "Claude Code's print mode does not echo the prompt")
	}
	switch t.StopReason {
	case "", event.StopEndTurn, event.StopToolUse, event.StopMaxTokens, event.StopRefusal:
	case event.StopMaxTurnRequests:
		if t.Status == event.StatusOK {
			loss.Approximate("stop reasons \"max_turn_requests\"", "Claude Code states it only as an error_max_turns result")
		}
	default:
		loss.Approximate("stop reasons "+strconv.Quote(string(t.StopReason)), "Claude Code has no such stop reason; written as null")
	}
	loss.Approximate("result timings", "Claude Code's result states durations the source has not; written as 0")
	err := e.line("result", &event.Event{Body: &t})
	e.activity, e.prompt, e.haveUsage, e.lastText = false, false, false, nil
	e.turnUsage = event.Usage{}
	e.results++
	return err
}

// foreignInit writes system/init for another dialect's stream.
func (e *Encoder) foreignInit(s *event.SessionStarted) error {
	c := *s
	if c.SessionID == "" {
		c.SessionID = e.opts.Defaults["session_id"]
	}
	if c.Model == "" {
		c.Model = e.opts.Defaults["model"]
	}
	if c.Agent != nil && c.Agent.Name != agentName && c.Agent.Version != "" {
		e.loss.Drop("producer versions", "Claude Code's claude_code_version names a Claude Code version")
	}
	if c.Provider != "" || c.TaskID != "" || (c.ContextFiles != nil && len(*c.ContextFiles) > 0) || len(c.SkillsDirs) > 0 ||
		len(c.CommandsDirs) > 0 || len(c.MCPFiles) > 0 || len(c.A2AFiles) > 0 || len(c.A2AAgents) > 0 {
		e.loss.Drop("session facts (provider, task, context files, directories, A2A)", "Claude Code's system/init has no place for them")
	}
	described := false
	for _, k := range c.Skills {
		described = described || k.Description != ""
	}
	for _, k := range c.Commands {
		described = described || k.Description != "" || k.Hint != ""
	}
	if described {
		e.loss.Drop("skill and command descriptions", "Claude Code's system/init lists names only")
	}
	if len(c.MCPServers) > 0 {
		e.loss.Approximate("MCP server statuses", "the source lists names only; written as connected")
	}
	e.loss.Approximate("session settings (permissionMode, apiKeySource, output_style)", "the source states none; written as Claude Code's defaults")
	e.loss.Synthesize("uuids", "every Claude Code line has one; the source has none, so each is a placeholder")
	return e.writeLine(derive("system/init", []*event.Event{{Body: &c}}, e.st, hints{}).bytes(nil))
}
