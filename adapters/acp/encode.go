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
	"github.com/evtool/evtool/internal/jsonenc"
	"github.com/tidwall/gjson"
)

// Encoder writes canonical events as ACP JSON-RPC messages.
type Encoder struct {
	w          *bufio.Writer
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

	// transcript state
	turnOpen  bool        // a turn has begun and not yet been answered
	promptID  int         // id of the turn's session/prompt, 0 until it is sent
	prompt    string      // the prompt text, once known
	usage     event.Usage // the turn's usage, for the unstable PromptResponse
	haveUsage bool

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
	output      strings.Builder
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

func (e *Encoder) write(b []byte) error {
	if _, err := e.w.Write(b); err != nil {
		return err
	}
	return e.w.WriteByte('\n')
}

// notify writes a session/update notification.
func (e *Encoder) notify(update obj, ev *event.Event) error {
	if err := e.openPrompt(); err != nil {
		return err
	}
	params := obj{}.str("sessionId", e.session).sub("update", update)
	params = e.withMeta(params, ev)
	return e.write(obj{}.str("jsonrpc", "2.0").str("method", "session/update").sub("params", params).bytes())
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
	if e.meta {
		b, err := event.Append(nil, ev)
		if err != nil {
			return err
		}
		e.carry = append(e.carry, b)
	}
	switch b := ev.Body.(type) {
	case *event.SessionStarted:
		if !e.sessionSet && b.SessionID != "" {
			e.session = b.SessionID
		}
		e.workspace = b.Workspace
		return nil
	case *event.TurnStarted:
		if err := e.answerTurn("end_turn"); err != nil { // the previous turn ended without saying so
			return err
		}
		e.turnOpen, e.promptID, e.prompt = true, 0, ""
		e.usage, e.haveUsage = event.Usage{}, false
		e.endStreams()
		if b.Prompt != nil {
			e.prompt = *b.Prompt
		}
		return nil
	case *event.UserMessage:
		e.endStreams()
		if e.transcript && e.turnOpen && e.promptID == 0 {
			e.prompt = b.Text
		}
		if e.basis() {
			return nil // the client sent it; echoing it doubles it (basis's rule)
		}
		return e.notify(obj{}.str("sessionUpdate", "user_message_chunk").sub("content", text(b.Text)), ev)
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
		if t, _, err := e.known(ev, b.CallID, b.Name, ""); err != nil || t == nil {
			return err
		}
		// ACP has no progress field: progress becomes the title, so a
		// client showing the call sees it change (basis's mapping).
		return e.notify(obj{}.str("sessionUpdate", "tool_call_update").str("toolCallId", b.CallID).str("title", b.Message), ev)
	case *event.ToolOutput:
		e.endStreams()
		t, _, err := e.known(ev, b.CallID, b.Name, "")
		if err != nil || t == nil {
			return err
		}
		t.output.WriteString(b.Chunk)
		// content replaces the stored collection: send all of it.
		return e.notify(obj{}.str("sessionUpdate", "tool_call_update").str("toolCallId", b.CallID).
			add("content", arr(textContent(t.output.String()))), ev)
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
			entries = append(entries, obj{}.str("content", p.Content).str("priority", priority(p.Priority)).str("status", planStatus(p.Status)))
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
		if e.profile == Unstable && b.Message != "" {
			sev := cmp.Or(b.Severity, event.SeverityInfo)
			return e.notify(obj{}.str("sessionUpdate", "notice").str("severity", string(sev)).str("title", b.Message), ev)
		}
		return e.thought(ev, b.Message)
	case *event.Retry:
		e.endStreams()
		return e.thought(ev, "retrying after "+b.Error+" (attempt "+u64(b.Attempt)+"/"+u64(b.MaxAttempts)+")")
	case *event.Error:
		e.endStreams()
		return e.thought(ev, "error: "+b.Message)
	case *event.Usage:
		e.addUsage(b)
		e.loss.Add(lossUsage)
		return nil
	case *event.TurnFinished:
		e.endStreams()
		if b.Usage != nil {
			e.addUsage(b.Usage)
		}
		if b.Text != nil && e.msgs == 0 && *b.Text != "" {
			// An answer that was never streamed still reaches the client.
			if err := e.chunk(ev, *b.Text, "", false, false); err != nil {
				return err
			}
			e.inMsg = false
		}
		return e.answerTurn(stopReason(b.Status, b.StopReason, ""))
	case *event.SessionFinished:
		e.endStreams()
		reason := stopReason(b.Status, "", b.StoppedBy)
		return e.answerTurn(reason)
	case *event.Unknown:
		e.loss.AddDetail(lossUnknownEvent, b.Dialect)
		return nil
	}
	e.loss.AddDetail(lossNoSuchUpdate, string(ev.Type()))
	return nil
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
	u := obj{}.str("sessionUpdate", kind)
	if !e.basis() {
		if id == "" {
			if thought {
				id = "thought-" + strconv.Itoa(e.thoughts)
			} else {
				id = "msg-" + strconv.Itoa(e.msgs)
			}
		}
		u = u.str("messageId", id)
	}
	return e.notify(u.sub("content", text(s)), ev)
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
func (e *Encoder) announce(ev *event.Event, id, name, title string, kind event.ToolKind, input json.RawMessage, status string, extra func(obj) obj) error {
	e.announced++
	// Clone: a decoder's strings may share the memory of a whole line.
	t := &tool{rank: e.announced, name: strings.Clone(name)}
	e.tools[strings.Clone(id)] = t
	t.title = strings.Clone(title)
	if strings.TrimSpace(title) == "" {
		t.title = t.name
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
	if len(input) > 0 && (string(input) != "null" || e.basis()) {
		u = u.raw("rawInput", input)
	}
	if loc := e.locations(input); loc != nil && !e.basis() {
		u = u.add("locations", loc)
	}
	if extra != nil {
		u = extra(u)
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
	var content []obj
	switch {
	case e.basis():
		s := ""
		if b.Summary != nil {
			s = *b.Summary
		}
		content = []obj{textContent(s)}
	case e.tools[b.CallID] != nil && e.tools[b.CallID].output.Len() > 0:
		content = []obj{textContent(e.tools[b.CallID].output.String())}
	case b.Output != nil && *b.Output != "":
		content = []obj{textContent(*b.Output)}
	case b.Summary != nil && *b.Summary != "":
		content = []obj{textContent(*b.Summary)}
	case b.Error != "":
		content = []obj{textContent(b.Error)}
	}
	if !e.basis() && b.Error != "" && len(content) > 0 && !strings.Contains(string(content[0].bytes()), b.Error) {
		content = append(content, textContent(b.Error))
	}
	if err := e.answerPermission(b.CallID, b.Status); err != nil {
		return err
	}
	rest := func(u obj) obj {
		if content != nil {
			u = u.add("content", arr(content...))
		}
		if raw := rawOutput(b); raw != nil && !e.basis() {
			u = u.add("rawOutput", raw)
		}
		if loc := e.editLocations(b.Edit); loc != nil && !e.basis() {
			u = u.add("locations", loc)
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
		// The name was unknown when the call was announced (mermaid).
		t.title, t.placeholder = b.Name, false
		u = u.str("title", b.Name)
		if b.Kind.Valid() && b.Kind != t.kind {
			t.kind = b.Kind
			u = u.str("kind", string(b.Kind))
		}
	}
	return e.notify(rest(u), ev)
}

func rawOutput(b *event.ToolFinished) []byte {
	o := obj{}
	if b.Command != "" {
		o = o.str("command", b.Command)
	}
	if b.ExitCode != nil {
		o = o.add("exit_code", []byte(strconv.FormatInt(*b.ExitCode, 10)))
	}
	if b.Output != nil && (b.Command != "" || b.ExitCode != nil) {
		o = o.str("output", *b.Output)
	}
	if len(o) == 0 {
		return nil
	}
	return o.bytes()
}

// locations finds the absolute path a tool input names.
func (e *Encoder) locations(input json.RawMessage) []byte {
	if len(input) == 0 {
		return nil
	}
	r := gjson.ParseBytes(input)
	for _, k := range []string{"path", "file_path", "filePath", "file"} {
		if v := r.Get(k); v.Type == gjson.String && v.Str != "" {
			if p := e.absolute(v.Str); p != "" {
				return arr(obj{}.str("path", p))
			}
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
	if err := e.openPrompt(); err != nil {
		return err
	}
	id := e.nextID
	e.nextID++
	key := b.RequestID
	if key == "" {
		key = "call:" + b.CallID
	}
	e.ask(key, b.CallID, id)
	// The request shows the tool call; its description is what the person
	// is asked, so it becomes the call's title.
	var title string
	var kind event.ToolKind
	if t != nil {
		title, kind = t.title, t.kind
	} else {
		title, kind = e.closedTool(finished) // a request after the call finished
	}
	if b.Description != "" && !e.basis() {
		title = b.Description
		if t != nil {
			t.title, t.placeholder = strings.Clone(title), false
		} else {
			e.done.Add(b.CallID, e.closedValue(kind, title))
		}
	}
	call := obj{}.str("toolCallId", b.CallID).str("title", title).str("kind", string(kind)).str("status", "pending")
	params := obj{}.str("sessionId", e.session).sub("toolCall", call).add("options", permissionOptions)
	params = e.withMeta(params, ev)
	if !e.meta && len(b.Preview) > 0 && string(b.Preview) != "null" {
		e.loss.Add(lossPermissionPreview)
	}
	return e.write(obj{}.str("jsonrpc", "2.0").num("id", id).str("method", "session/request_permission").sub("params", params).bytes())
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
	return e.write(obj{}.str("jsonrpc", "2.0").num("id", p.id).sub("result", obj{}.sub("outcome", outcome)).bytes())
}

// openPrompt writes, in a transcript, the client's session/prompt before
// the first message of its turn.
func (e *Encoder) openPrompt() error {
	if !e.transcript || e.promptID != 0 {
		return nil
	}
	if !e.turnOpen {
		e.turnOpen = true // a source without turn events has one turn
	}
	e.promptID = e.nextID
	e.nextID++
	params := e.withMeta(obj{}.str("sessionId", e.session).add("prompt", arr(text(e.prompt))), nil)
	return e.write(obj{}.str("jsonrpc", "2.0").num("id", e.promptID).str("method", "session/prompt").sub("params", params).bytes())
}

// answerTurn writes, in a transcript, the response that ends the turn.
func (e *Encoder) answerTurn(reason string) error {
	if !e.transcript || !e.turnOpen {
		return nil
	}
	if err := e.openPrompt(); err != nil {
		return err
	}
	result := obj{}.str("stopReason", reason)
	if e.profile == Unstable && e.haveUsage {
		u := e.usage
		usage := obj{}.add("totalTokens", []byte(strconv.FormatUint(total(u), 10))).
			add("inputTokens", []byte(u64(u.InputTokens))).add("outputTokens", []byte(u64(u.OutputTokens)))
		if u.ThoughtsTokens != nil {
			usage = usage.add("thoughtTokens", []byte(u64(u.ThoughtsTokens)))
		}
		if u.CacheReadTokens != nil {
			usage = usage.add("cachedReadTokens", []byte(u64(u.CacheReadTokens)))
		}
		if u.CacheCreationTokens != nil {
			usage = usage.add("cachedWriteTokens", []byte(u64(u.CacheCreationTokens)))
		}
		result = result.sub("usage", usage)
	}
	id := e.promptID
	// An update after this response belongs to a new turn, with a prompt of its own.
	e.turnOpen, e.promptID, e.prompt = false, 0, ""
	return e.write(obj{}.str("jsonrpc", "2.0").num("id", id).sub("result", result).bytes())
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
		**dst += *v
	}
	add(&e.usage.InputTokens, u.InputTokens)
	add(&e.usage.OutputTokens, u.OutputTokens)
	add(&e.usage.CacheReadTokens, u.CacheReadTokens)
	add(&e.usage.CacheCreationTokens, u.CacheCreationTokens)
	add(&e.usage.ThoughtsTokens, u.ThoughtsTokens)
	add(&e.usage.TotalTokens, u.TotalTokens)
}

func total(u event.Usage) uint64 {
	if u.TotalTokens != nil {
		return *u.TotalTokens
	}
	n := uint64(0)
	for _, p := range []*uint64{u.InputTokens, u.OutputTokens, u.ThoughtsTokens} {
		if p != nil {
			n += *p
		}
	}
	return n
}

// Close implements dialect.Encoder: every call still open is closed as
// failed with an outcome-unknown text, and in a transcript every open
// request is answered.
func (e *Encoder) Close() error {
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
	for _, id := range ids {
		delete(e.tools, id)
		e.loss.Add(lossSynthesizedFailedToolCall)
		u := obj{}.str("sessionUpdate", "tool_call_update").str("toolCallId", id).str("status", "failed").
			add("content", arr(textContent("outcome unknown: the recording ended before this tool call finished")))
		if err := e.notify(u, nil); err != nil {
			return err
		}
	}
	if err := e.answerTurn("end_turn"); err != nil {
		return err
	}
	if e.meta && len(e.carry) > 0 {
		params := e.withMeta(obj{}.str("sessionId", e.session), nil)
		return e.write(obj{}.str("jsonrpc", "2.0").str("method", MetaMethod).sub("params", params).bytes())
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

// debugName renders a status as Rust's Debug does for basis's enums:
// "running" → "Running", "background_task" → "BackgroundTask".
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

func u64(p *uint64) string {
	if p == nil {
		return "0"
	}
	return strconv.FormatUint(*p, 10)
}

var _ = jsonenc.String
