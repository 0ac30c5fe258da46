package acp

import (
	"bufio"
	"cmp"
	"encoding/json"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/idset"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/tidwall/gjson"
)

// Encoder writes canonical events as ACP JSON-RPC messages.
//
// Turns: a turn begins at turn_started (or, before any, at the first event
// that needs one) and ends at turn_finished, at the next turn_started, at
// session_finished or at the end of the stream; round_finished (one model
// call inside a turn) never ends it. Before a turn ends, its open
// permission requests are answered cancelled and its open calls are closed
// as failed, outcome unknown, so that every turn is closed in itself. In a
// transcript each turn is one session/prompt and its response; the turn's
// prompt is what the client sent, so the user message that is the prompt
// is not echoed (a notification log, which is the history session/load
// streams, has it as user_message_chunk).
type Encoder struct {
	w   *bufio.Writer
	buf []byte // the message being written
	// scratch holds the fields of objects made with lit for the messages
	// of the event being encoded.
	scratch []field
	// lastID is the last message id made, by chunkID.
	lastID struct {
		prefix, id string
		n          int
	}
	loss       *dialect.Losses
	profile    string
	meta       bool
	carry      [][]byte // with meta: canonical events not yet carried
	transcript bool
	session    string
	sessionSet bool // the session id came from a flag
	workspace  string

	nextID int // JSON-RPC ids, one counter for both sides of a transcript

	// Tool calls: the open ones in full; a finished one as its id's digest
	// in done, with what a later permission request for it shows (its kind,
	// and its title in titles).
	tools     map[string]*tool
	announced int // tool calls announced so far
	done      idset.Set
	titles    titleStore

	msgs, thoughts int  // message and thought counters for messageId
	inMsg, inThink bool // a message or thought is being streamed
	msgDelta       bool // the current message came as deltas

	// The turn.
	turnOpen  bool        // a turn has begun and not yet ended
	explicit  bool        // it began with turn_started
	promptID  int         // transcript: id of the turn's session/prompt, 0 until it is sent
	prompt    string      // the prompt text, once known
	gotPrompt bool        // the turn's prompt message was seen
	usage     event.Usage // the turn's usage, summed from rounds and usage events
	haveUsage bool
	turnUsage *event.Usage // the turn's usage as turn_finished states it
	failed    bool         // the turn's failure was shown to the user
	begun     bool         // a turn has begun in the stream
	// In a transcript, the stop reason of a turn that turn_finished ended,
	// whose response waits: events of no turn that follow it (Claude Code's
	// prompt_suggestion after a result, a background task ending) are
	// updates of that turn, not a new prompt the user never sent.
	ended string
	free  bool // the event being written belongs to no turn (outside)

	// Permission requests, by key (the request id, or "call:" and the call
	// id): the unanswered ones, also by call; an answered key as a digest in
	// answered, with its first position.
	perms    map[string]*perm
	byCall   map[string][]*perm
	answered idset.Set
	asked    uint64 // requests made so far
}

// tool is an open tool call.
type tool struct {
	rank        int // by announcement
	title, name string
	kind        event.ToolKind
	placeholder bool // the title is a stand-in for an unknown name
	output      capped
	sent        int    // output bytes shown in the last update
	progress    string // the latest progress text, shown after the output
	diffs       []obj  // diff content from the call's input
	prompt      string // the prompt of the subagent the call runs, shown first
}

// perm is an unanswered permission request. Requests are answered in the
// order their keys were first used, and a key used again names the latest
// request (the earlier one, if unanswered, is never answered).
type perm struct {
	id          int
	key, call   string
	first, last uint64 // positions of the key's first and of this request
}

func newEncoder(w *bufio.Writer, opts dialect.EncodeOptions) *Encoder {
	e := &Encoder{w: w, loss: opts.Losses, profile: opts.Params["profile"], meta: opts.Params["meta"] == "true",
		transcript: opts.Params["transcript"] == "true", tools: map[string]*tool{}, perms: map[string]*perm{},
		byCall: map[string][]*perm{}, nextID: 1}
	if e.profile == "" {
		e.profile = Stable
	}
	if e.meta {
		// Every event rides whole under _meta: what the ACP messages
		// cannot say is not lost, so it is not counted.
		e.loss = &dialect.Losses{}
	}
	if id := opts.Defaults["session_id"]; id != "" {
		e.session, e.sessionSet = id, true
	} else {
		e.session = DefaultSessionID
	}
	return e
}

func (e *Encoder) basis() bool { return e.profile == Basis }

// lit returns an object of the fields given, held in the encoder's
// scratch space until the next event: for the objects of a message about
// to be written, never for one kept (a tool's content, say).
func (e *Encoder) lit(fs ...field) obj {
	start := len(e.scratch)
	e.scratch = append(e.scratch, fs...)
	return e.scratch[start:len(e.scratch):len(e.scratch)]
}

// writeObj writes a message, rendered into the encoder's reused buffer.
func (e *Encoder) writeObj(o obj) error {
	if n := o.size(); cap(e.buf) < n {
		e.buf = make([]byte, 0, n)
	}
	e.buf = o.appendTo(e.buf[:0])
	err := e.write(e.buf)
	if cap(e.buf) > 1<<20 {
		e.buf = nil // a giant message's buffer is not kept
	}
	return err
}

func (e *Encoder) write(b []byte) error {
	if _, err := e.w.Write(b); err != nil {
		return err
	}
	return e.w.WriteByte('\n')
}

// notify writes a session/update notification of the current turn.
func (e *Encoder) notify(update obj, ev *event.Event) error {
	if e.free {
		return e.update(update, ev)
	}
	if err := e.inTurn(); err != nil {
		return err
	}
	return e.update(update, ev)
}

// update writes a session/update notification, in a turn or not.
func (e *Encoder) update(update obj, ev *event.Event) error {
	params := e.lit(sf("sessionId", e.session), of("update", update))
	params = e.withMeta(params, ev)
	return e.writeObj(e.lit(sf("jsonrpc", "2.0"), sf("method", "session/update"), of("params", params)))
}

// withMeta, with --acp-meta, puts under _meta["evtool/source"].events
// every canonical event consumed since the last message that carried
// some, whole: --from acp reads them back in place of the messages, so
// that nothing is lost on the way through ACP.
func (e *Encoder) withMeta(params obj, _ *event.Event) obj {
	if !e.meta {
		return params
	}
	evs := []byte{'['}
	for i, b := range e.carry {
		if i > 0 {
			evs = append(evs, ',')
		}
		evs = append(evs, b...)
	}
	evs = append(evs, ']')
	e.carry = e.carry[:0]
	return params.sub("_meta", obj{}.sub(MetaKey, obj{}.add("events", evs)))
}

// MetaKey is the _meta key under which --acp-meta carries canonical events.
const MetaKey = "evtool/source"

// MetaMethod is the extension notification that carries, at the end of a
// stream, the canonical events no ACP message carried.
const MetaMethod = "_evtool/events"

// Encode implements dialect.Encoder.
func (e *Encoder) Encode(ev *event.Event) error {
	// The objects of the last event's messages are written: their space
	// is free.
	clear(e.scratch)
	e.scratch = e.scratch[:0]
	if e.ended != "" && !trailing(ev) {
		reason := e.ended
		e.ended = ""
		if err := e.endTurn(reason, false); err != nil {
			return err
		}
	}
	if e.meta {
		b, err := event.Append(nil, ev)
		if err != nil {
			return err
		}
		e.carry = append(e.carry, b)
	} else {
		// Without --acp-meta another dialect's residue has no place.
		e.loss.Foreign(ev.Ext, Name)
	}
	switch b := ev.Body.(type) {
	case *event.SessionStarted:
		if !e.sessionSet && b.SessionID != "" {
			e.session = b.SessionID
		}
		e.workspace = b.Workspace
		if len(b.Commands) > 0 {
			// Session-wide: sent before any turn, as an agent does right
			// after session/new.
			return e.update(obj{}.str("sessionUpdate", "available_commands_update").add("availableCommands", commands(b.Commands)), ev)
		}
		return nil
	case *event.TurnStarted:
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
	case *event.UserMessage:
		e.endStreams()
		if ev.AgentID != "" {
			// A subagent's prompt: its parent wrote it, not the user.
			return e.subagentPrompt(ev, b)
		}
		if !e.turnOpen {
			e.beginTurn(false, b.Text)
		}
		if !e.gotPrompt && (e.prompt == b.Text || e.prompt == "" && e.promptID == 0) {
			// The turn's prompt. In a transcript the client's session/prompt
			// carries it, so it is not echoed back; a log (the history
			// session/load streams) shows it.
			e.gotPrompt, e.prompt = true, b.Text
			if e.transcript || e.basis() {
				return e.inTurn()
			}
		} else if e.basis() {
			return nil // basis's own mapping never echoes a user message
		}
		return e.chunks(ev, "user_message_chunk", b.Text, "")
	case *event.MessageDelta:
		return e.chunk(ev, b.Text, b.MessageID, false, true)
	case *event.Message:
		if e.inMsg && e.msgDelta {
			e.inMsg, e.msgDelta = false, false
			return nil // its deltas carried it already
		}
		if e.basis() {
			return nil
		}
		err := e.chunk(ev, b.Text, b.MessageID, false, false)
		e.inMsg = false
		return err
	case *event.ReasoningDelta:
		return e.chunk(ev, b.Text, "", true, true)
	case *event.Reasoning:
		if e.inThink || e.basis() {
			e.inThink = false
			return nil
		}
		err := e.chunk(ev, b.Text, "", true, false)
		e.inThink = false
		return err
	case *event.ToolCall:
		e.endStreams()
		return e.toolCall(ev, b)
	case *event.ToolStarted:
		e.endStreams()
		t, fresh, err := e.known(ev, b.CallID, b.Name, "in_progress")
		if err != nil || t == nil || fresh {
			return err // a fresh announcement already says it runs
		}
		return e.notify(obj{}.str("sessionUpdate", "tool_call_update").str("toolCallId", b.CallID).str("status", "in_progress"), ev)
	case *event.ToolProgress:
		e.endStreams()
		t, _, err := e.known(ev, b.CallID, b.Name, "")
		if err != nil || t == nil {
			return err
		}
		if e.basis() {
			// basis's mapping: progress becomes the title.
			return e.notify(obj{}.str("sessionUpdate", "tool_call_update").str("toolCallId", b.CallID).str("title", clip(b.Message, maxTitle)), ev)
		}
		// Progress is shown in the call's content, after its output, until
		// the call ends; the title stays the call's own.
		t.progress = strings.Clone(clip(b.Message, maxTitle))
		return e.notify(obj{}.str("sessionUpdate", "tool_call_update").str("toolCallId", b.CallID).add("content", arr(t.content(true)...)), ev)
	case *event.ToolOutput:
		e.endStreams()
		t, _, err := e.known(ev, b.CallID, b.Name, "")
		if err != nil || t == nil {
			return err
		}
		t.output.add(b.Chunk)
		// content replaces the stored collection, so each update carries
		// the whole output so far: every chunk while it is short, then each
		// time it has doubled, and nothing more once it reaches its cap.
		if !t.due() {
			return nil
		}
		t.sent = t.output.n
		return e.notify(obj{}.str("sessionUpdate", "tool_call_update").str("toolCallId", b.CallID).
			add("content", arr(t.content(true)...)), ev)
	case *event.ToolFinished:
		e.endStreams()
		return e.toolFinished(ev, b)
	case *event.PermissionRequested:
		e.endStreams()
		return e.permission(ev, b)
	case *event.PermissionResolved:
		return e.resolved(b)
	case *event.PlanUpdated:
		e.endStreams()
		var entries []obj
		for _, p := range b.Entries {
			entries = append(entries, obj{}.str("content", clip(p.Content, maxTitle)).str("priority", priority(p.Priority)).str("status", planStatus(p.Status)))
			if p.Status != "pending" && p.Status != "in_progress" && p.Status != "completed" {
				e.loss.AddDetail(lossPlanStatus, strconv.Quote(p.Status))
			}
		}
		return e.notify(obj{}.str("sessionUpdate", "plan").add("entries", arr(entries...)), ev)
	case *event.TaskUpdated:
		e.endStreams()
		switch b.Kind {
		case "", event.TaskSubagent, event.TaskBackground, event.TaskTeammate:
		default:
			if !e.basis() {
				// A producer's internal work (muse's model responses and
				// reminders) would bury the conversation in thoughts.
				e.loss.Add(lossInternalTask)
				return nil
			}
		}
		title := cmp.Or(b.Title, string(b.Kind), b.TaskID)
		return e.thought(ev, "["+taskLabel(b.Status)+"] "+title)
	case *event.Notice:
		e.endStreams()
		// A notice of the session before its first turn (a hook line
		// before Claude Code's init) is an update before any prompt, as
		// available_commands_update is, rather than a turn of its own.
		e.free = e.outside(ev)
		defer func() { e.free = false }()
		if e.profile == Unstable && b.Message != "" {
			sev := cmp.Or(b.Severity, event.SeverityInfo)
			return e.notify(obj{}.str("sessionUpdate", "notice").str("severity", string(sev)).str("title", clip(b.Message, maxTitle)), ev)
		}
		return e.thought(ev, b.Message)
	case *event.Retry:
		e.endStreams()
		return e.thought(ev, retryText(b))
	case *event.Error:
		e.endStreams()
		return e.thought(ev, "error: "+b.Message)
	case *event.Usage:
		e.addUsage(b)
		e.loss.Add(lossUsage)
		return nil
	case *event.RoundFinished:
		// One model call inside the turn: its usage counts toward the
		// turn's; the turn goes on.
		if b.Usage != nil {
			e.addUsage(b.Usage)
		}
		return nil
	case *event.TurnFinished:
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
	case *event.SessionFinished:
		e.endStreams()
		if b.Status == event.StatusError && e.turnOpen {
			if err := e.showFailure(ev, b.Message); err != nil {
				return err
			}
		}
		return e.endTurn(stopReason(b.Status, "", b.StoppedBy), true)
	case *event.Unknown:
		e.loss.AddDetail(lossUnknownEvent, b.Dialect)
		return nil
	}
	e.loss.AddDetail(lossNoSuchUpdate, string(ev.Type()))
	return nil
}

// finite writes numbers a double cannot hold as strings, counted.
func (e *Encoder) finite(raw []byte) []byte {
	raw, changed := finiteNumbers(raw)
	if changed {
		e.loss.Add(lossBigNumber)
	}
	return raw
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

// commands renders prompt templates as ACP AvailableCommands.
func commands(cs []event.Command) []byte {
	items := make([]obj, 0, len(cs))
	for _, c := range cs {
		o := obj{}.str("name", strings.TrimPrefix(c.Name, "/")).str("description", clip(c.Description, maxTitle))
		if c.Hint != "" {
			o = o.sub("input", obj{}.str("hint", clip(c.Hint, maxTitle)))
		}
		items = append(items, o)
	}
	return arr(items...)
}

// chunkID returns prefix and n as a message id, made once per message
// rather than once per chunk.
func (e *Encoder) chunkID(prefix string, n int) string {
	if e.lastID.prefix != prefix || e.lastID.n != n {
		e.lastID.prefix, e.lastID.n, e.lastID.id = prefix, n, prefix+strconv.Itoa(n)
	}
	return e.lastID.id
}

// chunk writes a message or thought chunk; messageId is stable within one
// message and changes with the next.
func (e *Encoder) chunk(ev *event.Event, s, id string, thought, delta bool) error {
	kind := "agent_message_chunk"
	if thought {
		kind = "agent_thought_chunk"
		if !e.inThink {
			e.thoughts++
			e.inThink = true
		}
		e.inMsg = false
	} else {
		if !e.inMsg {
			e.msgs++
			e.inMsg, e.msgDelta = true, delta
		}
		e.inThink = false
	}
	if !e.basis() && id == "" {
		if thought {
			id = e.chunkID("thought-", e.thoughts)
		} else {
			id = e.chunkID("msg-", e.msgs)
		}
	}
	return e.chunks(ev, kind, s, id)
}

// chunks writes text as chunks of one message (one id), as many as it
// takes to keep each message under the size limit.
func (e *Encoder) chunks(ev *event.Event, kind, s, id string) error {
	for first := true; first || s != ""; first = false {
		part := s
		if len(part) > maxText {
			part = s[:cut(s, maxText)]
		}
		s = s[len(part):]
		content := e.lit(sf("type", "text"), sf("text", part))
		var u obj
		if id != "" && !e.basis() {
			u = e.lit(sf("sessionUpdate", kind), sf("messageId", id), of("content", content))
		} else {
			u = e.lit(sf("sessionUpdate", kind), of("content", content))
		}
		if err := e.notify(u, ev); err != nil {
			return err
		}
	}
	return nil
}

// endStreams ends the message or thought being streamed: the next chunk
// starts a new one.
func (e *Encoder) endStreams() { e.inMsg, e.inThink = false, false }

func (e *Encoder) thought(ev *event.Event, s string) error {
	err := e.chunk(ev, s, "", true, false)
	e.inThink = false
	return err
}

func (e *Encoder) toolCall(ev *event.Event, b *event.ToolCall) error {
	if _, seen := e.tools[b.CallID]; seen || e.done.Has(b.CallID) {
		e.loss.Add(lossRepeatedToolCall)
		return nil
	}
	return e.announce(ev, b.CallID, b.Name, b.Title, b.Kind, b.Input, "pending", nil)
}

// announce writes the tool_call that makes a call known, with its status.
func (e *Encoder) announce(ev *event.Event, id, name, title string, kind event.ToolKind, input json.RawMessage, status string, extra func(*tool, obj) obj) error {
	if err := e.inTurn(); err != nil {
		return err
	}
	e.announced++
	// Clone: a decoder's strings may share the memory of a whole line.
	t := &tool{rank: e.announced, name: strings.Clone(name)}
	e.tools[strings.Clone(id)] = t
	t.title = strings.Clone(clip(title, maxTitle))
	if strings.TrimSpace(title) == "" {
		t.title = clip(t.name, maxTitle)
	}
	if t.title == "" {
		t.title, t.placeholder = placeholderTitle, true
	}
	// Each decoder gives a call its kind by its producer's own rule.
	t.kind = event.KindOther
	if kind.Valid() {
		t.kind = kind
	}
	u := obj{}.str("sessionUpdate", "tool_call").str("toolCallId", id).str("title", t.title).str("kind", string(t.kind)).str("status", status)
	if e.profile == Unstable && name != "" {
		u = u.str("name", name)
	}
	if len(input) > maxRaw {
		e.loss.Add(lossLargeToolInput)
		input = nil
	}
	if len(input) > 0 && (string(input) != "null" || e.basis()) {
		u = u.raw("rawInput", e.finite(input))
	}
	if !e.basis() {
		var loc []byte
		t.diffs, loc = e.edits(input)
		if len(t.diffs) > 0 && extra == nil {
			u = u.add("content", arr(t.diffs...))
		}
		if loc == nil {
			loc = e.locations(input)
		}
		if loc != nil {
			u = u.add("locations", loc)
		}
	}
	if extra != nil {
		u = extra(t, u)
	}
	return e.notify(u, ev)
}

// known returns the call, announcing it first (already with the given
// status) when the source showed it only now; fresh says it was just
// announced. It returns nil for a call that has finished.
func (e *Encoder) known(ev *event.Event, id, name, status string) (t *tool, fresh bool, err error) {
	if t, ok := e.tools[id]; ok {
		return t, false, nil
	}
	if e.done.Has(id) {
		e.loss.Add(lossAfterToolFinished)
		return nil, false, nil
	}
	if status == "" {
		status = "in_progress"
	}
	e.loss.Add(lossSynthesizedToolCall)
	if err := e.announce(ev, id, name, "", "", nil, status, nil); err != nil {
		return nil, false, err
	}
	return e.tools[id], true, nil
}

func (e *Encoder) toolFinished(ev *event.Event, b *event.ToolFinished) error {
	status := "completed"
	if b.Status != "success" {
		status = "failed" // ACP has no cancelled or rejected tool status
	}
	var texts []string
	if e.basis() {
		s := ""
		if b.Summary != nil {
			s = *b.Summary
		}
		texts = []string{clip(s, maxText)}
	} else {
		switch t := e.tools[b.CallID]; {
		case t != nil && t.output.n > 0:
			texts = []string{t.output.text()}
		case b.Output != nil && *b.Output != "":
			var c capped
			c.add(*b.Output)
			texts = []string{c.text()}
		case b.Summary != nil && *b.Summary != "":
			texts = []string{clip(*b.Summary, maxText)}
		}
		// The error, unless the text shown already says it.
		if b.Error != "" && !slices.ContainsFunc(texts, func(s string) bool { return strings.Contains(s, b.Error) }) {
			texts = append(texts, clip(b.Error, maxText))
		}
	}
	if err := e.answerPermission(b.CallID, b.Status); err != nil {
		return err
	}
	rest := func(t *tool, u obj) obj {
		var content []obj
		if t != nil {
			if t.prompt != "" {
				content = append(content, textContent(t.prompt))
			}
			content = append(content, t.diffs...)
		}
		if e.basis() {
			// basis's mapping: the summary only.
		} else if d, loc := e.edits(b.Edit); len(d) > 0 && (t == nil || len(t.diffs) == 0) {
			content = append(content, d...)
			u = u.add("locations", loc)
		} else if loc := e.editLocations(b.Edit); loc != nil {
			u = u.add("locations", loc)
		}
		for _, s := range texts {
			content = append(content, textContent(s))
		}
		if content != nil {
			u = u.add("content", arr(content...))
		}
		if raw := rawOutput(b); raw != nil && !e.basis() {
			u = u.add("rawOutput", raw)
		}
		return u
	}
	t, ok := e.tools[b.CallID]
	if !ok && e.done.Has(b.CallID) {
		e.loss.Add(lossRepeatedToolResult)
		return nil
	}
	if !ok {
		// A result for a call never announced: one tool_call, already finished.
		e.loss.Add(lossSynthesizedFinishedToolCall)
		err := e.announce(ev, b.CallID, b.Name, "", b.Kind, nil, status, rest)
		e.finish(b.CallID, e.tools[b.CallID])
		return err
	}
	defer e.finish(b.CallID, t)
	u := obj{}.str("sessionUpdate", "tool_call_update").str("toolCallId", b.CallID).str("status", status)
	if t.placeholder && b.Name != "" && !e.basis() {
		// The name was unknown when the call was announced (mermaid on a
		// live pipe).
		t.title, t.placeholder = clip(b.Name, maxTitle), false
		u = u.str("title", t.title)
		if b.Kind.Valid() && b.Kind != t.kind {
			t.kind = b.Kind
			u = u.str("kind", string(b.Kind))
		}
	}
	return e.notify(rest(t, u), ev)
}

func rawOutput(b *event.ToolFinished) []byte {
	o := obj{}
	if b.Command != "" {
		o = o.str("command", clip(b.Command, maxTitle))
	}
	if b.ExitCode != nil {
		o = o.add("exit_code", []byte(strconv.FormatInt(*b.ExitCode, 10)))
	}
	if b.Output != nil && (b.Command != "" || b.ExitCode != nil) {
		var c capped
		c.add(*b.Output)
		o = o.str("output", c.text())
	}
	if len(o) == 0 {
		return nil
	}
	return o.bytes()
}

// content is what a call shows while it runs: its output so far (capped,
// with a note), then its latest progress.
func (t *tool) content(progress bool) []obj {
	var c []obj
	if t.prompt != "" {
		c = append(c, textContent(t.prompt))
	}
	c = append(c, t.diffs...)
	if t.output.n > 0 {
		c = append(c, textContent(t.output.text()))
	}
	if progress && t.progress != "" {
		c = append(c, textContent(t.progress))
	}
	return c
}

// due reports whether the call's output has grown enough since the last
// update to send another.
func (t *tool) due() bool {
	n := t.output.n
	switch {
	case t.output.full && t.sent >= len(t.output.b):
		return false // capped: the end of the call shows the rest's size
	case n <= eagerOutput:
		return true
	}
	return n >= 2*t.sent || t.output.full
}

// locations finds the absolute path a tool input names.
func (e *Encoder) locations(input json.RawMessage) []byte {
	if len(input) == 0 {
		return nil
	}
	r := jsonobj.View(input) // nothing read from it outlives the call
	if p := pathOf(r); p != "" {
		if p := e.absolute(p); p != "" {
			return arr(obj{}.str("path", p))
		}
	}
	return nil
}

func (e *Encoder) editLocations(edit json.RawMessage) []byte {
	if len(edit) == 0 {
		return nil
	}
	if v := gjson.GetBytes(edit, "path"); v.Type == gjson.String {
		if p := e.absolute(v.Str); p != "" {
			return arr(obj{}.str("path", p))
		}
	}
	return nil
}

// absolute returns p as an absolute path, joined to the workspace when it
// is relative, or "" when that cannot be known.
func (e *Encoder) absolute(p string) string {
	if strings.HasPrefix(p, "/") {
		return path.Clean(p)
	}
	if strings.HasPrefix(e.workspace, "/") {
		return path.Join(e.workspace, p)
	}
	return ""
}

var permissionOptions = arr(
	obj{}.str("optionId", "allow-once").str("name", "Allow once").str("kind", "allow_once"),
	obj{}.str("optionId", "allow-always").str("name", "Always allow").str("kind", "allow_always"),
	obj{}.str("optionId", "reject-once").str("name", "Reject").str("kind", "reject_once"),
	obj{}.str("optionId", "reject-always").str("name", "Always reject").str("kind", "reject_always"),
)

func (e *Encoder) permission(ev *event.Event, b *event.PermissionRequested) error {
	if b.CallID == "" {
		e.loss.Add(lossPermissionRequestNoCall)
		return nil
	}
	t, ok := e.tools[b.CallID]
	finished, closed := e.done.Get(b.CallID)
	if !ok && !closed {
		e.loss.Add(lossSynthesizedToolCallForPermission)
		if err := e.announce(ev, b.CallID, b.Tool, "", "", nil, "pending", nil); err != nil {
			return err
		}
		t = e.tools[b.CallID]
	}
	if err := e.inTurn(); err != nil {
		return err
	}
	id := e.nextID
	e.nextID++
	key := b.RequestID
	if key == "" {
		key = "call:" + b.CallID
	}
	e.ask(key, b.CallID, id)
	// The request shows the tool call. A client applies its toolCall to
	// the call, so the title stays the call's own; what the person is
	// asked (the description) is shown as the call's content.
	var title string
	var kind event.ToolKind
	if t != nil {
		title, kind = t.title, t.kind
	} else {
		title, kind = e.closedTool(finished) // a request after the call finished
	}
	call := obj{}.str("toolCallId", b.CallID).str("title", title).str("kind", string(kind)).str("status", "pending")
	if b.Description != "" && b.Description != title && !e.basis() {
		var c []obj
		if t != nil {
			c = t.content(false)
		}
		call = call.add("content", arr(append(c, textContent(clip(b.Description, maxText)))...))
	}
	params := obj{}.str("sessionId", e.session).sub("toolCall", call).add("options", permissionOptions)
	params = e.withMeta(params, ev)
	if !e.meta && len(b.Preview) > 0 && string(b.Preview) != "null" {
		e.loss.Add(lossPermissionPreview)
	}
	return e.writeObj(obj{}.str("jsonrpc", "2.0").num("id", id).str("method", "session/request_permission").sub("params", params))
}

// resolved writes, in a transcript, the client's recorded answer.
func (e *Encoder) resolved(b *event.PermissionResolved) error {
	key := b.RequestID
	if key == "" {
		key = "call:" + b.CallID
	}
	p, ok := e.perms[key]
	if !ok && !e.answered.Has(key) {
		// The latest unanswered request for the call.
		for _, q := range e.byCall[b.CallID] {
			if p == nil || q.last > p.last {
				p = q
			}
		}
		ok = p != nil
	}
	if !ok {
		e.loss.Add(lossPermissionOutcomeUnasked)
		return nil
	}
	option := "allow-once"
	switch {
	case b.Outcome == "allowed" && b.Scope != "":
		option = "allow-always"
	case b.Outcome == "denied" && b.Scope != "":
		option = "reject-always"
	case b.Outcome == "denied":
		option = "reject-once"
	}
	return e.answer(p, obj{}.str("outcome", "selected").str("optionId", option))
}

// answerPermission answers, from the tool's outcome, a request the source
// never resolved (mermaid shows an approval's outcome only that way).
func (e *Encoder) answerPermission(call string, status event.ToolStatus) error {
	for _, p := range byFirst(e.byCall[call]) {
		option := "allow-once"
		if status == "cancelled" || status == "rejected" {
			option = "reject-once"
		}
		if e.transcript {
			e.loss.Add(lossPermissionAnswerInferred)
		}
		if err := e.answer(p, obj{}.str("outcome", "selected").str("optionId", option)); err != nil {
			return err
		}
	}
	return nil
}

func (e *Encoder) answer(p *perm, outcome obj) error {
	e.forget(p)
	e.answered.Add(p.key, p.first)
	if !e.transcript {
		return nil
	}
	return e.writeObj(obj{}.str("jsonrpc", "2.0").num("id", p.id).sub("result", obj{}.sub("outcome", outcome)))
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
	for _, p := range byFirst(open) {
		if err := e.answer(p, obj{}.str("outcome", "cancelled")); err != nil {
			return err
		}
	}
	ids := make([]string, 0, len(e.tools))
	for id := range e.tools {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b string) int { return cmp.Compare(e.tools[a].rank, e.tools[b].rank) })
	note := "outcome unknown: the turn ended before this tool call finished"
	if atEnd {
		note = "outcome unknown: the recording ended before this tool call finished"
	}
	for _, id := range ids {
		t := e.tools[id]
		e.loss.Add(lossSynthesizedFailedToolCall)
		u := obj{}.str("sessionUpdate", "tool_call_update").str("toolCallId", id).str("status", "failed").
			add("content", arr(append(t.content(false), textContent(note))...))
		if err := e.update(u, nil); err != nil {
			return err
		}
		e.finish(id, t)
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
// input and output (the total is the stated one, else their sum with the
// thoughts); the optional counts only when stated. A count the source does
// not state is never written as 0.
func usageObj(u *event.Usage) obj {
	if u.InputTokens == nil || u.OutputTokens == nil {
		return nil
	}
	total := u.TotalTokens
	if total == nil {
		n := *u.InputTokens + *u.OutputTokens
		if u.ThoughtsTokens != nil {
			n += *u.ThoughtsTokens
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

func (e *Encoder) addUsage(u *event.Usage) {
	e.haveUsage = true
	add := func(dst **uint64, v *uint64) {
		if v == nil {
			return
		}
		if *dst == nil {
			*dst = new(uint64)
		}
		if **dst+*v < **dst {
			**dst = ^uint64(0) // saturate rather than wrap
			return
		}
		**dst += *v
	}
	add(&e.usage.InputTokens, u.InputTokens)
	add(&e.usage.OutputTokens, u.OutputTokens)
	add(&e.usage.CacheReadTokens, u.CacheReadTokens)
	add(&e.usage.CacheCreationTokens, u.CacheCreationTokens)
	add(&e.usage.ThoughtsTokens, u.ThoughtsTokens)
	add(&e.usage.TotalTokens, u.TotalTokens)
}

// Close implements dialect.Encoder: a turn still open is closed in itself
// (its calls failed with an outcome-unknown text, its requests answered
// cancelled) and, in a transcript, answered end_turn.
func (e *Encoder) Close() error {
	if e.ended != "" {
		reason := e.ended
		e.ended = ""
		if err := e.endTurn(reason, false); err != nil {
			return err
		}
	}
	if err := e.endTurn("end_turn", true); err != nil {
		return err
	}
	if e.meta && len(e.carry) > 0 {
		params := e.withMeta(obj{}.str("sessionId", e.session), nil)
		return e.writeObj(obj{}.str("jsonrpc", "2.0").str("method", MetaMethod).sub("params", params))
	}
	return nil
}

// ask records a permission request under key.
func (e *Encoder) ask(key, call string, id int) {
	e.asked++
	p := &perm{id: id, key: strings.Clone(key), call: strings.Clone(call), first: e.asked, last: e.asked}
	if old := e.perms[key]; old != nil {
		p.first = old.first
		e.forget(old) // replaced: never answered
	} else if first, ok := e.answered.Get(key); ok {
		p.first = first
	}
	e.perms[p.key] = p
	e.byCall[p.call] = append(e.byCall[p.call], p)
}

// forget removes an unanswered request from the indexes.
func (e *Encoder) forget(p *perm) {
	delete(e.perms, p.key)
	ps := e.byCall[p.call]
	if i := slices.Index(ps, p); i >= 0 {
		ps = slices.Delete(ps, i, i+1)
	}
	if len(ps) == 0 {
		delete(e.byCall, p.call)
	} else {
		e.byCall[p.call] = ps
	}
}

// byFirst returns a copy of ps in the order their keys were first used.
func byFirst(ps []*perm) []*perm {
	ps = slices.Clone(ps)
	slices.SortFunc(ps, func(a, b *perm) int { return cmp.Compare(a.first, b.first) })
	return ps
}

// finish closes an open tool call: what a later line can need of it is
// its kind and title, kept in done and titles.
func (e *Encoder) finish(id string, t *tool) {
	delete(e.tools, id)
	e.done.Add(id, e.closedValue(t.kind, t.title))
}

const placeholderTitle = "Tool call"

// closedValue packs a finished call's kind (its index in event.ToolKinds,
// in the top 4 bits) and title (a titleStore reference) into one value.
func (e *Encoder) closedValue(kind event.ToolKind, title string) uint64 {
	return uint64(slices.Index(event.ToolKinds(), kind))<<60 | e.titles.put(title)
}

func (e *Encoder) closedTool(v uint64) (string, event.ToolKind) {
	return e.titles.get(v & (1<<60 - 1)), event.ToolKinds()[v>>60]
}

// titleStore keeps the titles of finished tool calls, which a permission
// request after a call finished still shows: the bytes of each title in
// 1 MiB chunks, frequent titles (tool names) once, and a reference to them
// in 60 bits (offset in 40, length in 20).
type titleStore struct {
	chunks [][]byte
	common map[string]uint64 // up to maxCommon short titles → reference
	long   []string          // titles of 1 MiB or more, by index
}

const (
	chunkSize = 1 << 20
	lenBits   = 20
	longLen   = 1<<lenBits - 1 // marks a reference to long
	maxCommon = 1024
)

func (s *titleStore) put(t string) uint64 {
	if ref, ok := s.common[t]; ok {
		return ref
	}
	if len(t) >= longLen {
		s.long = append(s.long, strings.Clone(t))
		return uint64(len(s.long)-1)<<lenBits | longLen
	}
	if n := len(s.chunks); n == 0 || len(s.chunks[n-1])+len(t) > chunkSize {
		s.chunks = append(s.chunks, nil) // grows by append up to chunkSize
	}
	n := len(s.chunks) - 1
	ref := uint64(n*chunkSize+len(s.chunks[n]))<<lenBits | uint64(len(t))
	s.chunks[n] = append(s.chunks[n], t...)
	if len(t) <= 64 && len(s.common) < maxCommon {
		if s.common == nil {
			s.common = map[string]uint64{}
		}
		s.common[strings.Clone(t)] = ref
	}
	return ref
}

func (s *titleStore) get(ref uint64) string {
	n := int(ref & (1<<lenBits - 1))
	if n == longLen {
		return s.long[ref>>lenBits]
	}
	off := int(ref >> lenBits)
	return string(s.chunks[off/chunkSize][off%chunkSize : off%chunkSize+n])
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

func priority(p string) string {
	if p == "high" || p == "low" || p == "medium" {
		return p
	}
	return "medium" // ACP requires one; the source has none
}

func planStatus(s string) string {
	switch s {
	case "pending", "in_progress", "completed":
		return s
	case "done", "finished", "cancelled", "failed":
		return "completed"
	}
	return "pending"
}

// taskLabel names a task status in a thought, as basis's own ACP mapping
// prints its task states: [Spawned] for a task not yet running, and so on.
func taskLabel(s event.TaskStatus) string {
	switch s {
	case event.TaskPending:
		return "Spawned"
	case event.TaskRunning:
		return "Running"
	case event.TaskCompleted:
		return "Finished"
	case event.TaskFailed:
		return "Failed"
	case event.TaskCancelled:
		return "Cancelled"
	}
	return "Unknown"
}

// retryText says what is retried, with the counts the source states.
func retryText(b *event.Retry) string {
	s := "retrying after " + b.Error
	switch {
	case b.Attempt != nil && b.MaxAttempts != nil:
		s += " (attempt " + strconv.FormatUint(*b.Attempt, 10) + "/" + strconv.FormatUint(*b.MaxAttempts, 10) + ")"
	case b.Attempt != nil:
		s += " (attempt " + strconv.FormatUint(*b.Attempt, 10) + ")"
	}
	return s
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

// subagentPrompt shows the prompt a subagent was given inside the tool
// call that runs it (the subagent's agent id is that call's id); a prompt
// whose call is not open is shown as a thought, never as the user's words.
func (e *Encoder) subagentPrompt(ev *event.Event, b *event.UserMessage) error {
	if t, ok := e.tools[ev.AgentID]; ok && !e.basis() {
		if t.prompt != "" {
			t.prompt += "\n\n"
		}
		t.prompt += clip(b.Text, maxTitle)
		return e.notify(obj{}.str("sessionUpdate", "tool_call_update").str("toolCallId", ev.AgentID).add("content", arr(t.content(true)...)), ev)
	}
	if e.basis() {
		return nil
	}
	return e.thought(ev, "subagent "+ev.AgentID+" prompt: "+b.Text)
}
