package codex

import (
	"encoding/json"
	"math"
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
	turns   int             // turns written
	msgs    int             // agent messages written in the open turn
	text    strings.Builder // message deltas not yet written as an agent_message
	thought strings.Builder // reasoning deltas not yet written
	inText  bool
	inThink bool
	said    strings.Builder // every agent message written, for the run's answer
	lastMsg string          // the last agent message written
	reasons bool            // a reasoning item was written
	order   []string        // calls whose item started, in order, while open
	ids     idset.Set       // item ids written, so that a generated id repeats none

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
	if f.ended {
		if u, ok := ev.Body.(*event.Unknown); !ok || u.Dialect == Name {
			loss.Drop(string(ev.Type())+" events after the run finished", "a codex stream ends with its last turn")
			return nil
		}
	}
	if ev.AgentID != "" {
		loss.Drop("agent ids", "codex lines do not say which agent spoke")
	}
	if ev.Time != "" && ev.Type() != event.TypeSessionStarted {
		loss.Drop("event times", "codex lines carry no time (thread.started's timestamp aside)")
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
		loss.Synthesize("thread.started lines", "a codex stream starts with thread.started; the source has no header")
	}
	plain := &event.Event{Body: ev.Body} // no residue: another dialect's means nothing here
	switch b := ev.Body.(type) {
	case *event.SessionStarted:
		if e.st.header {
			loss.Drop("repeated session starts", "a codex stream has one thread.started")
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
			loss.Drop("turn prompts", "codex exec does not echo the prompt")
		}
		if b.CommandID != "" {
			loss.Drop("turn command ids", "codex turns have no id")
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
			loss.Drop("turn stop reasons", "codex's turn.completed and turn.failed have no stop reason")
		}
		if b.Status == event.StatusOK && b.Reason != "" {
			loss.Drop("turn reasons", "codex's turn.completed has no reason")
		}
		return e.endTurn(b.Status, b.Reason, b.Usage, false)
	case *event.SessionFinished:
		return e.finish(b)
	case *event.MessageDelta:
		if b.MessageID != "" {
			loss.Drop("message ids", "codex gives items ids of its own")
		}
		f.text.WriteString(b.Text)
		f.inText = true
		loss.Approximate("message deltas", "codex exec writes whole messages; the deltas are joined into one agent_message")
		return nil
	case *event.Message:
		if b.MessageID != "" {
			loss.Drop("message ids", "codex gives items ids of its own")
		}
		if f.inText {
			f.text.Reset() // the message repeats its deltas
			f.inText = false
		}
		return e.message(b.Text)
	case *event.ReasoningDelta:
		f.thought.WriteString(b.Text)
		f.inThink = true
		loss.Approximate("reasoning deltas", "codex exec writes whole reasoning summaries; the deltas are joined into one reasoning item")
		return nil
	case *event.Reasoning:
		if f.inThink {
			f.thought.Reset()
			f.inThink = false
		}
		return e.reasoning(b.Text)
	case *event.ToolCall:
		if e.calls[b.CallID] != nil || f.ids.Has(b.CallID) {
			loss.Drop("repeated tool_call events", "a codex item is announced once")
			return nil
		}
		c := &call{name: b.Name, title: b.Title, kind: b.Kind, input: b.Input}
		c.itemType = itemTypeOf(c, false)
		e.calls[b.CallID] = c
		switch {
		case c.itemType == "command_execution" && b.Title != "" && b.Title != c.commandOf():
			loss.Drop("tool titles", "a codex command is shown by its command line")
		case c.itemType == "mcp_tool_call" && b.Title != "":
			loss.Drop("tool titles", "a codex MCP call is shown by its server and tool")
		}
		if c.itemType == "mcp_tool_call" {
			c.title = "" // its server is not known: written as ""
			if b.Kind != "" && b.Kind != mcpKind(b.Name) {
				loss.Drop("tool kinds", "codex states no kind; a reader tells it by the tool's name")
			}
		}
		if b.Mutability != "" {
			loss.Drop("tool mutability", "codex states no mutability")
		}
		if c.itemType == "command_execution" && len(b.Input) > 0 && !onlyCommand(b.Input) {
			loss.Drop("tool inputs beyond the command", "codex's command_execution has only the command line")
		}
		return nil
	case *event.ToolStarted:
		if f.ids.Has(b.CallID) {
			loss.Drop("tool events after the call finished", "nothing follows a codex item's item.completed")
			return nil
		}
		c := e.calls[b.CallID]
		if c != nil && c.started {
			loss.Drop("repeated tool starts", "a codex item starts once")
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
		loss.Drop("tool progress events", "codex exec reports no tool progress")
		return nil
	case *event.ToolOutput:
		c := e.calls[b.CallID]
		if c == nil || f.ids.Has(b.CallID) {
			loss.Drop("tool output chunks", "the chunk's call is not open")
			return nil
		}
		c.output.WriteString(b.Chunk)
		loss.Approximate("tool output chunks", "codex exec writes a call's output whole; the chunks are joined")
		return nil
	case *event.ToolFinished:
		if f.ids.Has(b.CallID) {
			loss.Drop("repeated tool finishes", "a codex item completes once")
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
				loss.Approximate("plan statuses "+strconv.Quote(p.Status), "codex's to-do items are done or not; written as not done")
			}
			if p.ID != "" || p.ActiveForm != "" || p.Priority != "" || p.Origin != "" || p.ElapsedSecs != nil || p.TokensSpent != nil {
				loss.Drop("plan entry details", "codex's to-do items have only a text and a done flag")
			}
		}
		if b.Completed != nil || b.Total != nil {
			loss.Drop("plan counts", "codex's to-do list has no counts")
		}
		return e.generated(plain, e.st.todo == "")
	case *event.Notice:
		if err := e.ensureTurn(); err != nil {
			return err
		}
		if b.Severity != event.SeverityWarning {
			loss.Approximate("notice severities", "codex's error items are warnings")
		}
		return e.generated(plain, true)
	case *event.Error:
		if b.Recoverable != nil {
			loss.Drop("error recoverability", "codex's error line has only a message")
		}
		return e.line(plain)
	case *event.Usage:
		e.addRound(b)
		loss.Drop("usage events", "codex has no per-round usage; the rounds are summed into turn.completed's thread total")
		return nil
	case *event.RoundFinished:
		if b.Usage != nil {
			e.addRound(b.Usage)
		}
		loss.Drop("round_finished events", "codex exec does not show model rounds")
		return nil
	case *event.UserMessage:
		loss.Drop("user messages", "codex exec does not echo the prompt")
		return nil
	case *event.PermissionRequested:
		loss.Drop("permission requests", "codex exec runs without approval prompts")
		return nil
	case *event.PermissionResolved:
		loss.Drop("permission outcomes", "codex exec runs without approval prompts; a refused command is only its status")
		return nil
	case *event.TaskUpdated:
		loss.Drop("task_updated events", "codex shows subagents only inside its own collab_tool_call items")
		return nil
	case *event.ModelConfigured:
		loss.Drop("model_configured events", "codex exec names no model")
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
		loss.Synthesize("thread.started lines", "the source has no header line; built from its facts")
	}
	if b.Model != "" || b.Provider != "" {
		loss.Drop("models", "codex exec names no model")
	}
	if b.Agent != nil && b.Agent.Version != "" {
		loss.Drop("producer versions", "codex's stream has no version")
	}
	if b.TaskID != "" || b.Workspace != "" || b.ContextFiles != nil && len(*b.ContextFiles) > 0 || len(b.Skills) > 0 ||
		len(b.SkillsDirs) > 0 || len(b.Commands) > 0 || len(b.CommandsDirs) > 0 || len(b.MCPServers) > 0 || len(b.MCPFiles) > 0 ||
		len(b.A2AFiles) > 0 || len(b.A2AAgents) > 0 {
		loss.Drop("session facts (task, workspace, context files, skills, commands, MCP, A2A)", "codex's thread.started names only the thread")
	}
	h := &event.Event{Time: ev.Time, Body: &event.SessionStarted{SessionID: id}}
	return e.line(h)
}

// startTurn writes turn.started; synthetic says the source had none.
func (e *Encoder) startTurn(synthetic bool) error {
	if synthetic {
		e.opts.Losses.Synthesize("turn.started lines", "codex items belong to a turn; the source starts none here")
	}
	e.f.msgs = 0
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
			loss.Synthesize("item.completed lines of calls left open", "the turn ended with the call open; written as failed")
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
		loss.Synthesize("item.completed lines of to-do lists", "codex completes the to-do list at the turn's end")
		if err := e.completeTodo(); err != nil {
			return err
		}
	}
	if synthetic {
		loss.Synthesize("turn.completed lines", "the source starts a turn without ending the one before")
	}
	var err error
	if status == event.StatusOK {
		err = e.line(&event.Event{Body: &event.TurnFinished{Status: event.StatusOK, Usage: e.turnUsage(u)}})
	} else {
		if status != event.StatusError {
			loss.Approximate("turn statuses \""+string(status)+"\"", "codex turns complete or fail; written as turn.failed")
		}
		if u != nil || f.haveRound {
			loss.Drop("usage of failed turns", "codex's turn.failed carries no usage")
		}
		if reason == "" {
			reason = "turn " + string(status)
			if status == event.StatusError {
				reason = "turn failed"
			}
		}
		err = e.line(&event.Event{Body: &event.TurnFinished{Status: event.StatusError, Reason: reason}})
	}
	f.turns++
	return err
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
			loss.Drop("token totals without input and output counts", "codex counts input and output, not a total")
		}
		if u.CostUSD != "" {
			loss.Drop("costs", "codex states no cost")
		}
		if u.ModelResponses != nil {
			loss.Drop("model response counts", "codex does not count model calls")
		}
		f.total.add(wireOf(u))
		f.haveTotal = true
	} else if !f.haveTotal {
		loss.Approximate("turn token counts", "codex's turn.completed requires a usage; the source states none, written as 0")
	}
	if f.total.over() {
		loss.Approximate("token counts beyond 9223372036854775807", "codex's counts are i64; written as the largest i64")
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
		loss.Drop("run bounds (stopped_by)", "codex does not say what ended a run")
	}
	if len(b.StructuredOutput) > 0 {
		loss.Drop("structured outputs", "codex writes structured output as the agent_message text")
	}
	if b.Reasoning != nil && *b.Reasoning != "" && !f.reasons {
		loss.Drop("final reasoning texts", "codex has no run summary and no reasoning was written")
	}
	if !e.st.turn && f.turns == 0 {
		if err := e.startTurn(true); err != nil {
			return err
		}
	}
	if b.Text != nil && *b.Text != "" && *b.Text != f.lastMsg && *b.Text != f.said.String() {
		// The run's answer, unless the messages written already say it.
		if e.st.turn {
			if err := e.message(*b.Text); err != nil {
				return err
			}
		} else {
			loss.Drop("final answer texts", "codex has no run summary, and the turns are closed")
		}
	}
	if e.st.turn {
		var u *event.Usage
		if !f.haveTotal && !f.haveRound {
			u = b.Usage // the run's usage is all the source says
		}
		if err := e.endTurn(b.Status, b.Message, u, true); err != nil {
			return err
		}
	}
	if b.Usage != nil && (f.last == nil || wireOf(b.Usage) != wireOf(f.last)) {
		loss.Drop("run token totals", "codex's only total is the last turn.completed's usage, which differs")
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
		for e.f.ids.Has(e.st.nextID()) || e.calls[e.st.nextID()] != nil {
			e.st.next++
		}
		e.f.ids.Add(e.st.nextID(), 0)
	}
	return e.line(ev)
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
		loss.Drop("tool summaries", "codex items have no summary")
	}
	if len(b.Edit) > 0 {
		loss.Drop("tool edit facts", "codex's file_change is written only for its own patches")
	}
	if len(b.Web) > 0 {
		loss.Drop("tool web details", "codex's web_search is written only for its own searches")
	}
	if typ == "command_execution" {
		if b.Error != "" {
			loss.Drop("tool error texts", "codex's command_execution has only output and exit code")
		}
	} else if b.Command != "" || b.ExitCode != nil {
		loss.Drop("tool commands and exit codes", "codex's MCP call has no command or exit code")
	}
}

// onlyCommand reports whether a command's input says nothing beyond its
// command line.
func onlyCommand(input json.RawMessage) bool {
	n, ok := 0, true
	gjson.ParseBytes(input).ForEach(func(k, _ gjson.Result) bool {
		n++
		ok = k.Str == "command" || k.Str == "cmd"
		return ok
	})
	return ok && n <= 1
}
