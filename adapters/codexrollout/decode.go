package codexrollout

import (
	"encoding/json"
	"strings"
	"unsafe"

	"github.com/evtool/evtool/adapters/internal/recent"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/idset"
	"github.com/evtool/evtool/internal/jsonenc"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/tidwall/gjson"
)

// FieldError is a known field with a value the producer's types refuse
// (an integer written as 1.0, a number where a string belongs), at its
// JSON pointer.
type FieldError = jsonobj.FieldError

// Decoder reads rollout lines into canonical events, one line at a time,
// keeping state only for what is open (the turn, tool calls not yet
// finished) and a bounded memory of what closed.
//
// The mapping, in short (docs/dialects/codex-rollout.md has it whole):
// the header is session_started; each turn_context, a model_configured;
// turns begin at task_started, or where a build writes none at each user
// message, and end at task_complete or turn_aborted; messages and
// reasoning come from the events Codex shows its user (user_message,
// agent_message, agent_reasoning), history items of those being copies
// (the mid-2025 format, which has no events, reads them from its items);
// tool calls come from function_call and its kin, and end at the first
// line that reports the end (an *_output item, or an exec, patch, MCP or
// web search end event); usage comes from running totals, as what each
// adds; a fork's copy of its parent's history is kept whole and counted
// for nothing (see replay).
type Decoder struct {
	jsonobj.OwnLine // a long line is read in place (UseOwn)
	opts            dialect.DecodeOptions
	begun           bool // session_started was emitted
	// lean: the caller reads no line kept whole (Summarize, VerdictsOnly),
	// so a kept line's unknown event holds no copy of it.
	lean bool

	rp replay
	m  meter
	pm members // the payload members of the line being read

	// The turn: open, its id, and whether task_started opened it (else a
	// user message did, in a build that writes no task events).
	turn     string
	turnOpen bool
	explicit bool
	turns    int
	recent   []string // the last turns' ids, for thread_rolled_back

	// Tool calls: every id, open or finished (a bounded set), and the
	// names of the last maxNames open ones, for their ends, which need
	// not name the tool. A call older than both is read as one never
	// announced.
	calls idset.Set // callOpen or callDone
	names recent.Map[string]
	// Web searches of the turn told once so far, in their order: id-less
	// web_search_call items (their ids made of the line) no
	// web_search_end has answered, and web_search_end events of calls
	// no item announced. Builds whose item has no id write the search's
	// call_id on its end event alone; the two are one search (see
	// pairSearch).
	searchItems, searchEnds []string

	compacted bool // the last content event was a compaction: a second account of it is a copy

	// held is a turn_context of a fork's copy, held back one line: where
	// Codex stamped the copy anew, the line that ends it is the fork's
	// first task_started, and the fork's own turn_context may come just
	// before it. Whether it was the fork's own (the model it names) is
	// known at the next line.
	held *held

	// head is the mid-2025 header held back, with Lookahead, until the
	// context message that names the working directory (see headHold).
	head *headHold
}

// headHold is the session_started of a mid-2025 rollout and the events
// behind it. That format's header names no working directory: the
// <environment_context> message Codex adds to the first request does,
// a few lines later, before the user's first prompt. Reading a file, the
// header waits for it, for at most maxHeadLines lines and never past an
// event of the conversation's own, so that the session states its
// project as a newer rollout's session_meta does.
type headHold struct {
	ss    *event.SessionStarted
	evs   []*event.Event
	lines int
}

// maxHeadLines bounds the lines a mid-2025 header waits behind.
const maxHeadLines = 16

// done reports whether the held header may go: its directory is known,
// or the wait is over.
func (h *headHold) done(from int) bool {
	if h.ss.Workspace != "" || h.lines >= maxHeadLines {
		return true
	}
	for _, ev := range h.evs[from:] {
		if _, ok := ev.Body.(*event.Unknown); !ok {
			return true
		}
	}
	return false
}

// held is a line held back.
type held struct {
	raw []byte
	n   int
}

// flushHeld appends the events of the held line: a turn_context of the
// stream's own, or a copied line.
func (d *Decoder) flushHeld(out []*event.Event, own bool) []*event.Event {
	h := d.held
	d.held = nil
	l := &line{v: read(gjson.ParseBytes(h.raw)), raw: h.raw, n: h.n, pm: &d.pm}
	l.time, l.exact = canonicalTime(l.v.ts)
	if own {
		d.turnContext(l)
	} else {
		d.copied(l)
	}
	return d.finish(out, l)
}

func newDecoder(opts dialect.DecodeOptions) *Decoder {
	return &Decoder{opts: opts, names: recent.New[string](maxNames)}
}

// maxRecent bounds the turn ids kept for rollbacks.
const maxRecent = 256

// line is one line being decoded.
type line struct {
	v     view
	pm    *members // the payload's members, found at the first get
	raw   []byte
	n     int
	time  string // canonical time of its timestamp, "" for none
	exact bool   // time holds the timestamp exactly
	evs   []*event.Event
	err   error
}

// ptr returns the JSON pointer of a payload key.
func (l *line) ptr(k string) string {
	if l.v.form == formEnvelope {
		return "/payload/" + k
	}
	return "/" + k
}

// get returns a payload key's value, as jsonobj.Lookup would.
func (l *line) get(k string) gjson.Result { return l.pm.get(l.v.payload, k) }

// members are the members of one object, read once: a line's payload is
// asked for a dozen keys, and jsonobj.Lookup would read it from its start
// for each, over its texts.
type members struct {
	of string // the object's Raw, whose members o holds
	o  jsonobj.Object
}

// get returns the value of key k in the object p (the first if it is
// repeated), or a Result that does not exist: jsonobj.Lookup's answer.
func (m *members) get(p gjson.Result, k string) gjson.Result {
	if !p.IsObject() {
		return gjson.Result{}
	}
	// The same object is the same bytes in memory: m.of keeps them alive,
	// so no other line's can stand there.
	if len(m.of) != len(p.Raw) || unsafe.StringData(m.of) != unsafe.StringData(p.Raw) {
		m.of = p.Raw
		m.o.Reset(p)
	}
	v, _ := m.o.First(k)
	return v
}

func (l *line) fail(ptr, msg string) {
	if l.err == nil {
		l.err = &FieldError{Pointer: ptr, Msg: msg}
	}
}

// str reads a required string.
func (l *line) str(k string) string {
	v := l.get(k)
	if v.Type != gjson.String {
		l.fail(l.ptr(k), "got "+jsonobj.TypeName(v)+", want a string")
		return ""
	}
	return v.Str
}

// optStr reads an optional string, which may also be null (serde reads
// absent and null alike for an Option).
func (l *line) optStr(k string) string {
	v := l.get(k)
	switch v.Type {
	case gjson.String:
		return v.Str
	case gjson.Null:
		return ""
	}
	if v.Exists() {
		l.fail(l.ptr(k), "got "+jsonobj.TypeName(v)+", want a string")
	}
	return ""
}

// optInt reads an optional integer of type t, which may be null.
func (l *line) optInt(k string, t jsonobj.IntType) (int64, bool) {
	v := l.get(k)
	if !v.Exists() || v.Type == gjson.Null {
		return 0, false
	}
	n, msg := jsonobj.ParseInt(v, t)
	if msg != "" {
		l.fail(l.ptr(k), msg)
		return 0, false
	}
	return n, true
}

// Decode implements dialect.Decoder.
func (d *Decoder) Decode(out []*event.Event, raw []byte, n int) ([]*event.Event, error) {
	h := d.head
	if h == nil {
		return d.decode(out, raw, n)
	}
	from := len(h.evs)
	var err error
	h.evs, err = d.decode(h.evs, raw, n)
	if h.lines++; h.done(from) {
		out = append(out, h.evs...)
		d.head = nil
	}
	return out, err
}

// decode decodes one line.
func (d *Decoder) decode(out []*event.Event, raw []byte, n int) ([]*event.Event, error) {
	root := d.ParseLine(raw)
	if !root.IsObject() {
		return out, &FieldError{Msg: "got " + jsonobj.TypeName(root) + ", want an object"}
	}
	l := &line{v: read(root), raw: raw, n: n, pm: &d.pm}
	if l.v.ts.Exists() {
		l.time, l.exact = canonicalTime(l.v.ts)
	} else {
		l.exact = true // nothing to keep
	}
	copied, _ := d.rp.step(&l.v)
	if d.held != nil {
		// The turn_context held back from a copy was the fork's own when
		// this line ends the copy.
		out = d.flushHeld(out, !copied && d.rp.endedLine == d.rp.lines)
	}
	if d.rp.endedMidTurn() {
		out = append(out, &event.Event{Synthetic: true, Body: &event.Notice{Severity: event.SeverityWarning,
			Message: "the fork's copy of its parent's history ends here, after a pause, inside a turn: the fork's own turn began within the copy, and its first lines were kept as the copy"}})
	}
	if copied && l.v.form == formEnvelope && l.v.typ == "turn_context" && !d.rp.hasStart && !d.rp.preserved {
		d.held = &held{raw: append([]byte(nil), raw...), n: n}
		return out, nil
	}
	if !d.begun && l.v.form == formOther {
		// A line of none of the rollout's shapes before its first (a
		// wrapper's log line, say): kept whole with its error; the
		// stream begins at the rollout's own first line.
		l.fail("/type", "got nothing, want a string: a rollout line has a type and a payload")
		return d.finish(out, l), l.err
	}
	if !d.begun {
		d.begun = true
		if l.v.isSessionMeta() {
			if d.session(l); l.err != nil {
				// The header cannot be read: the stream still begins.
				l.evs = []*event.Event{{Synthetic: true, Body: &event.SessionStarted{Schema: event.SchemaVersion, Source: event.SourceInfo{Dialect: Name}}}}
			} else if ss, ok := l.evs[0].Body.(*event.SessionStarted); ok && l.v.form == formHeader && ss.Workspace == "" && d.opts.Lookahead {
				d.head = &headHold{ss: ss, evs: d.finish(nil, l)}
				return out, nil
			}
			return d.finish(out, l), l.err
		}
		// A stream cut at its head still begins a canonical one.
		l.evs = append(l.evs, &event.Event{Synthetic: true, Body: &event.SessionStarted{Schema: event.SchemaVersion, Source: event.SourceInfo{Dialect: Name}}})
	}
	if copied {
		d.copied(l)
		return d.finish(out, l), nil
	}
	switch l.v.form {
	case formEnvelope:
		d.envelope(l)
	case formBare:
		d.item(l)
	case formHeader, formState:
		// A header after the first line, or the state markers of the
		// mid-2025 format, which say nothing the model holds.
		d.kept(l, keptUnmapped)
	default:
		l.fail("/type", "got nothing, want a string: a rollout line has a type and a payload")
	}
	return d.finish(out, l), l.err
}

// finish appends a line's events, or the line kept whole when it could
// not be read, with their provenance.
func (d *Decoder) finish(out []*event.Event, l *line) []*event.Event {
	if l.err != nil {
		// Keep the synthetic header, if any; the line itself is kept whole.
		var keep []*event.Event
		for _, ev := range l.evs {
			if ev.Synthetic && ev.Type() == event.TypeSessionStarted {
				keep = append(keep, ev)
			}
		}
		l.evs = keep
		d.kept(l, keptUnreadable)
	}
	for _, ev := range l.evs {
		if d.opts.Provenance && !ev.Synthetic {
			ev.Src = &event.Source{Dialect: Name, Line: l.n, Type: l.v.sourceType()}
		}
	}
	return append(out, l.evs...)
}

// emit appends an event read from the line, with its time, its turn and
// its residue.
func (d *Decoder) emit(l *line, b event.Body, consumed func(string) bool, notes ...note) *event.Event {
	ev := &event.Event{Time: l.time, Body: b}
	if d.turnOpen {
		ev.TurnID = d.turn
	}
	if res := residueOf(&l.v, consumed, l.exact, notes...); res != nil {
		ev.Ext = event.ExtOf(Name, res)
	}
	switch b.(type) {
	case *event.UserMessage, *event.Message, *event.Reasoning, *event.ToolCall, *event.ToolFinished,
		*event.TurnStarted, *event.TurnFinished:
		d.compacted = false
	}
	l.evs = append(l.evs, ev)
	return ev
}

// synth appends an event no line stands behind.
func (d *Decoder) synth(l *line, b event.Body) {
	ev := &event.Event{Synthetic: true, Body: b}
	if d.turnOpen {
		ev.TurnID = d.turn
	}
	l.evs = append(l.evs, ev)
}

// Summarize implements the stream's summary mode: a summary reads no
// line kept whole (stream.Options.Summary).
func (d *Decoder) Summarize() { d.lean = true }

// VerdictsOnly implements the stream's verdicts-only mode: the caller
// reads no event (stream.Options.VerdictsOnly).
func (d *Decoder) VerdictsOnly() { d.lean = true }

// kept appends the line whole as an unknown event, marked with why it was
// kept ("" for a line of a type evtool does not know).
func (d *Decoder) kept(l *line, why string) {
	u := &event.Unknown{Dialect: Name, SourceType: l.v.sourceType()}
	if !d.lean {
		u.Raw = append(json.RawMessage(nil), l.raw...)
	}
	ev := &event.Event{Body: u}
	if why != "" {
		ev.Ext = event.ExtOf(Name, json.RawMessage(`{"@kept":`+string(jsonenc.String(nil, why))+`}`))
	}
	if d.turnOpen && why != keptReplayed {
		ev.TurnID = d.turn
	}
	l.evs = append(l.evs, ev)
}

// keptType keeps a line of a type evtool does not map: one Codex is known
// to write (known) is kept as unmapped, any other as unknown.
func (d *Decoder) keptType(l *line, known bool) {
	if known {
		d.kept(l, keptUnmapped)
	} else {
		d.kept(l, "")
	}
}

// copied keeps a line of a fork's copy of its parent's history: whole,
// in no turn of the stream's own, and counting nothing; a copied running
// total moves the base the fork's own totals are counted from.
func (d *Decoder) copied(l *line) {
	if total, _, ok := totalOf(l); ok {
		d.m.seed(total)
	}
	l.err = nil
	d.kept(l, keptReplayed)
}

// envelope reads a rollout line of Codex 0.3x and later.
func (d *Decoder) envelope(l *line) {
	root := l.v.root
	if t := jsonobj.Lookup(root, "type"); t.Type != gjson.String {
		l.fail("/type", "got "+jsonobj.TypeName(t)+", want a string")
		return
	}
	if l.v.ts.Type != gjson.String {
		l.fail("/timestamp", "got "+jsonobj.TypeName(l.v.ts)+", want a string")
		return
	}
	if !l.v.payload.IsObject() {
		l.fail("/payload", "got "+jsonobj.TypeName(l.v.payload)+", want an object")
		return
	}
	if l.v.ordinal.Exists() {
		if _, msg := jsonobj.ParseUint(l.v.ordinal, jsonobj.U64); msg != "" {
			l.fail("/ordinal", msg)
			return
		}
	}
	if m := jsonobj.Lookup(root, "metadata"); m.Exists() && !m.IsObject() && m.Type != gjson.Null {
		l.fail("/metadata", "got "+jsonobj.TypeName(m)+", want an object")
		return
	}
	switch l.v.typ {
	case "session_meta":
		// A header after the first line that is no fork's copy of its
		// parent's: codex-rollout/session-meta reports it.
		d.kept(l, keptUnmapped)
	case "turn_context":
		d.turnContext(l)
	case "response_item":
		d.item(l)
	case "event_msg":
		d.event(l)
	case "compacted":
		d.compactedLine(l)
	case "token_usage_record":
		d.usageRecord(l)
	default:
		d.keptType(l, envelopeTypes[l.v.typ])
	}
}

// session reads the stream's header: session_meta, or the mid-2025 bare
// header.
func (d *Decoder) session(l *line) {
	id := l.str("id")
	if l.v.form == formEnvelope && l.v.ts.Type != gjson.String {
		l.fail("/timestamp", "got "+jsonobj.TypeName(l.v.ts)+", want a string")
	}
	cwd, cli, provider := l.optStr("cwd"), l.optStr("cli_version"), l.optStr("model_provider")
	if l.err != nil {
		return
	}
	s := &event.SessionStarted{Schema: event.SchemaVersion, Source: event.SourceInfo{Dialect: Name},
		Agent: &event.Agent{Name: "codex", Version: cli}, SessionID: id, Workspace: cwd, Provider: provider}
	consumed := []string{"id"}
	for k, v := range map[string]string{"cwd": cwd, "cli_version": cli, "model_provider": provider} {
		if v != "" {
			consumed = append(consumed, k)
		}
	}
	if l.v.form == formHeader && l.exact {
		consumed = append(consumed, "timestamp")
	}
	var notes []note
	if l.v.form == formHeader {
		notes = append(notes, note{"@legacy", "true"})
	}
	d.emit(l, s, keys(consumed...), notes...)
}

// turnContext reads a turn_context: the settings of a model request, and
// the only place a rollout names its model. Early September 2025 builds
// name none; the model stays unknown then, and the line is kept whole.
func (d *Decoder) turnContext(l *line) {
	model := l.optStr("model")
	if l.err != nil {
		return
	}
	if model == "" {
		d.kept(l, keptUnmapped)
		return
	}
	d.emit(l, &event.ModelConfigured{Model: model}, keys("model"))
}

// event reads an event_msg.
func (d *Decoder) event(l *line) {
	if t := l.get("type"); t.Type != gjson.String {
		l.fail("/payload/type", "got "+jsonobj.TypeName(t)+", want a string")
		return
	}
	switch p := l.v.ptype; {
	case p == "user_message":
		text := l.str("message")
		if l.err == nil {
			d.userMessage(l, text, imageCount(l), keys("message"))
		}
	case p == "agent_message":
		if text := l.str("message"); l.err == nil {
			d.emit(l, &event.Message{Text: text}, keys("message"))
		}
	case p == "agent_reasoning":
		if text := l.str("text"); l.err == nil {
			d.emit(l, &event.Reasoning{Text: text}, keys("text"))
		}
	case p == "agent_reasoning_raw_content":
		// The model's raw reasoning, where the build shows it, beside
		// the summaries of agent_reasoning.
		if text := l.str("text"); l.err == nil {
			d.emit(l, &event.Reasoning{Text: text}, keys("text"), note{"@raw", "true"})
		}
	case p == "token_count":
		d.tokenCount(l)
	case p == "context_compacted":
		d.compaction(l, &event.CompactionFinished{}, nil)
	case isTurnStart(p):
		d.turnStarted(l)
	case p == "task_complete" || p == "turn_complete":
		d.turnEnded(l, event.StatusOK)
	case p == "turn_aborted":
		d.turnEnded(l, event.StatusCancelled)
	case p == "thread_rolled_back":
		d.rolledBack(l)
	case p == "error":
		if msg := l.str("message"); l.err == nil {
			d.emit(l, &event.Error{Message: msg}, keys("message"))
		}
	case p == "warning":
		if msg := l.str("message"); l.err == nil {
			d.emit(l, &event.Notice{Severity: event.SeverityWarning, Message: msg}, keys("message"))
		}
	case p == "sub_agent_activity":
		d.subagent(l)
	case p == "dynamic_tool_call_request":
		d.toolCall(l)
	case p == "view_image_tool_call":
		d.viewImage(l)
	default:
		if _, ok := endEvents[p]; ok {
			d.toolEnd(l)
		} else if eventTypes[p] {
			d.kept(l, keptUnmapped)
		} else {
			d.kept(l, "")
		}
	}
}

// item reads a history item: a response_item's payload, or a bare item of
// the mid-2025 format.
func (d *Decoder) item(l *line) {
	if t := l.get("type"); t.Type != gjson.String {
		l.fail(l.ptr("type"), "got "+jsonobj.TypeName(t)+", want a string")
		return
	}
	switch l.v.ptype {
	case "message":
		d.messageItem(l)
	case "reasoning":
		d.reasoningItem(l)
	case "function_call", "custom_tool_call", "local_shell_call", "tool_search_call":
		d.toolCall(l)
	case "function_call_output", "custom_tool_call_output", "tool_search_output":
		d.toolOutput(l)
	case "web_search_call", "image_generation_call":
		d.wholeCall(l)
	case "compaction", "compaction_summary", "context_compaction":
		d.compaction(l, &event.CompactionFinished{}, nil)
	default:
		d.keptType(l, responseTypes[l.v.ptype])
	}
}

// messageItem reads a message item. Codex writes each message the user
// and the model exchange twice, as this item and as a user_message or
// agent_message event; the events are read (the user's prompt as typed,
// without the context Codex adds to the model's copy), so the item is a
// copy. The mid-2025 format has no events: its items are read, its user
// messages that only carry Codex's context (<environment_context>,
// <user_instructions>) kept as unmapped. Which a line is goes by its own
// form, not the stream's first line's: a mid-2025 rollout resumed by a
// newer build goes on in the newer lines, events and all.
func (d *Decoder) messageItem(l *line) {
	role := l.str("role")
	content := l.get("content")
	if l.err == nil && !content.IsArray() {
		l.fail(l.ptr("content"), "got "+jsonobj.TypeName(content)+", want an array")
	}
	if l.err != nil {
		return
	}
	text, images := contentText(content)
	if d.head != nil && role == "user" && d.head.ss.Workspace == "" {
		d.head.ss.Workspace = contextCwd(text)
	}
	if l.v.form != formBare {
		if role == "assistant" || role == "user" && !isContext(text) {
			d.kept(l, keptCopy)
		} else {
			d.kept(l, keptUnmapped)
		}
		return
	}
	consumed := []string{"role"}
	if plainContent(content, role) {
		consumed = append(consumed, "content") // the text says it all
	}
	switch {
	case role == "assistant":
		m := &event.Message{Text: text}
		if id := l.get("id"); id.Type == gjson.String && id.Str != "" {
			m.MessageID = id.Str
			consumed = append(consumed, "id")
		}
		d.emit(l, m, keys(consumed...))
	case role == "user" && !isContext(text):
		var n *uint64
		if images > 0 {
			n = &images
		}
		d.userMessage(l, text, n, keys(consumed...))
	default:
		d.kept(l, keptUnmapped)
	}
}

// reasoningItem reads a reasoning item. Where Codex writes events its
// summaries come as agent_reasoning events too, and the item is a copy (an
// item with no text to show, encrypted or empty, is unmapped); the
// mid-2025 format's item is read (by the line's form, as messageItem).
func (d *Decoder) reasoningItem(l *line) {
	text := reasoningText(l.v.payload)
	switch {
	case text == "":
		d.kept(l, keptUnmapped)
	case l.v.form != formBare:
		d.kept(l, keptCopy)
	default:
		d.emit(l, &event.Reasoning{Text: text}, nil)
	}
}

// End implements dialect.Decoder. A rollout has no last line: Codex
// appends to it until the session is left, and again when it is resumed.
// The stream is taken as complete, with a synthetic session_finished
// holding the usage its own lines added, unless it ends inside a turn
// task_started opened (a session still running, or a process that died):
// then it is truncated. A fork whose own lines could not be told from its
// parent's gets a notice saying nothing after the copy was counted.
func (d *Decoder) End(out []*event.Event) []*event.Event {
	if d.head != nil {
		out = append(out, d.head.evs...)
		d.head = nil
	}
	if d.held != nil {
		out = d.flushHeld(out, false)
	}
	if !d.begun {
		return out
	}
	if d.rp.unended() {
		out = append(out, &event.Event{Synthetic: true, Body: &event.Notice{Severity: event.SeverityWarning,
			// No line number: the event is a fact of the rollout, the
			// same wherever its lines stand in a file (the checker's
			// finding names the line).
			Message: "no line after the copy's start tells the fork's own lines from the parent's history it copied: all were kept as the copy, and none counted"}})
	}
	if d.turnOpen && d.explicit {
		return out
	}
	return append(out, &event.Event{Synthetic: true, Body: &event.SessionFinished{Status: event.StatusOK, Usage: d.m.total()}})
}

// imageCount counts a user_message's images (inline, by file id, and
// local), nil when it has none.
func imageCount(l *line) *uint64 {
	var n uint64
	for _, k := range []string{"images", "file_ids", "local_images"} {
		if v := l.get(k); v.IsArray() {
			jsonobj.ForEachRaw(v, func(_, _ gjson.Result) bool { n++; return true })
		}
	}
	if n == 0 {
		return nil
	}
	return &n
}

// contentText joins a message's text parts and counts its images.
func contentText(content gjson.Result) (string, uint64) {
	var parts []string
	var images uint64
	jsonobj.ForEach(content, func(_, c gjson.Result) bool {
		switch jsonobj.Lookup(c, "type").Str {
		case "input_text", "output_text", "text", "inputText":
			if t := jsonobj.Lookup(c, "text"); t.Type == gjson.String {
				parts = append(parts, t.Str)
			}
		case "input_image":
			images++
		}
		return true
	})
	return strings.Join(parts, "\n"), images
}

// reasoningText joins a reasoning item's summary texts, else its content
// texts.
func reasoningText(item gjson.Result) string {
	for _, k := range []string{"summary", "content"} {
		var parts []string
		jsonobj.ForEach(jsonobj.Lookup(item, k), func(_, s gjson.Result) bool {
			if t := jsonobj.Lookup(s, "text"); t.Type == gjson.String && t.Str != "" {
				parts = append(parts, t.Str)
			}
			return true
		})
		if len(parts) > 0 {
			return strings.Join(parts, "\n\n")
		}
	}
	return ""
}

// isContext reports whether a user message of the mid-2025 format only
// carries the context Codex adds to a session's first request.
func isContext(text string) bool {
	t := strings.TrimSpace(text)
	return strings.HasPrefix(t, "<environment_context>") || strings.HasPrefix(t, "<user_instructions>")
}

// contextCwd returns the working directory an <environment_context>
// message names in its <cwd> element, "" for any other text. Codex writes
// the element's text as it is (codex-rs/core/src/environment_context.rs
// of mid-2025 serializes the path with no escaping).
func contextCwd(text string) string {
	t := strings.TrimSpace(text)
	if !strings.HasPrefix(t, "<environment_context>") {
		return ""
	}
	_, rest, ok := strings.Cut(t, "<cwd>")
	if !ok {
		return ""
	}
	cwd, _, ok := strings.Cut(rest, "</cwd>")
	if !ok {
		return ""
	}
	return strings.TrimSpace(cwd)
}

// plainContent reports whether a message's content is one text part of
// the role's own kind and nothing else, which its text renders exactly.
func plainContent(content gjson.Result, role string) bool {
	want := "input_text"
	if role == "assistant" {
		want = "output_text"
	}
	n, plain := 0, true
	jsonobj.ForEach(content, func(_, c gjson.Result) bool {
		n++
		keys := 0
		jsonobj.ForEachRaw(c, func(k, _ gjson.Result) bool { keys++; return true })
		plain = keys == 2 && jsonobj.Lookup(c, "type").Str == want && jsonobj.Lookup(c, "text").Type == gjson.String
		return plain
	})
	return n == 1 && plain
}
