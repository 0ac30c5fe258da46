package gemini

import (
	"bufio"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/idset"
	"github.com/evtool/evtool/internal/jsonenc"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/evtool/evtool/internal/openset"
	"github.com/tidwall/gjson"
)

// epoch is the timestamp written when the source states no time at all.
const epoch = "1970-01-01T00:00:00.000Z"

// Encoder writes canonical events as Gemini CLI lines.
//
// A Gemini stream is one process and one turn: init, the user's message,
// the model's text deltas and tool calls with their results, and result
// with the run's token totals. From a stream of another dialect the
// encoder writes what Gemini CLI would have written for the same facts and
// counts what it cannot say; a Gemini source is written back as it was,
// its residue restoring what the canonical model holds only approximately.
type Encoder struct {
	w    *bufio.Writer
	opts dialect.EncodeOptions
	l    jsonobj.Writer

	native  bool // the source is gemini: write its lines back as they were
	header  bool // init was written
	ended   bool // result was written
	lastTS  string
	started string // the canonical time of the first event that has one

	turns   int     // turns begun
	prompt  *string // a turn's prompt not yet written as a user message
	promptT string  // the time of the turn's start
	said    bool    // assistant text was written in this turn
	inDelta bool    // assistant deltas were written since the last assembled message
	stop    event.StopReason
	reason  string // the last turn's reason (its error text), for result

	open      openCalls // calls with a tool_use and no tool_result yet
	done      idset.Set // calls with a tool_result
	toolCalls uint64    // tool_use lines written

	turnUsage, roundUsage usageSum
}

// call is an open tool call: the output chunks the source streamed for it.
type call struct {
	chunks strings.Builder
	chunky bool
}

// openCalls are the calls with a tool_use and no tool_result yet: their
// ids in an openset (a stream can leave millions of calls open, and a Go
// map of them grew by hundreds of bytes a call), and the output of those
// that have some.
type openCalls struct {
	ids     openset.Set
	outputs map[string]*call
}

func (o *openCalls) has(id string) bool { return o.ids.Has(id) }

func (o *openCalls) add(id string) { o.ids.Add(id, 0, "") }

// chunks returns an open call's output, to add to; nil for a call that
// is not open.
func (o *openCalls) chunks(id string) *call {
	if !o.ids.Has(id) {
		return nil
	}
	if c := o.outputs[id]; c != nil {
		return c
	}
	if o.outputs == nil {
		o.outputs = map[string]*call{}
	}
	c := &call{}
	o.outputs[strings.Clone(id)] = c
	return c
}

// take ends an open call and returns its output (none: an empty call).
func (o *openCalls) take(id string) *call {
	o.ids.Delete(id)
	c := o.outputs[id]
	delete(o.outputs, id)
	if c == nil {
		c = &call{}
	}
	return c
}

// Encode implements dialect.Encoder. What every event needs is done
// here; what its type needs, by one method per type (or group of types).
func (e *Encoder) Encode(ev *event.Event) error {
	if done, err := e.prepare(ev); done || err != nil {
		return err
	}
	switch b := ev.Body.(type) {
	case *event.SessionStarted:
		return e.sessionStarted(b, ev)
	case *event.Unknown:
		// Another dialect's was counted by prepare.
		return e.write(append(append([]byte(nil), b.Raw...), '\n'))
	case *event.TurnStarted:
		return e.turnStarted(b, ev)
	case *event.UserMessage:
		return e.userMessage(b, ev)
	case *event.MessageDelta:
		return e.messageDelta(b, ev)
	case *event.Message:
		return e.message(b, ev)
	case *event.ToolCall:
		return e.toolCall(b, ev)
	case *event.ToolStarted:
		return e.toolStarted(b, ev)
	case *event.ToolOutput:
		return e.toolOutput(b, ev)
	case *event.ToolFinished:
		return e.toolResult(b, ev)
	case *event.Notice:
		return e.notice(b, ev)
	case *event.Error:
		return e.errorEvent(b, ev)
	case *event.Usage:
		e.roundUsage.add(b)
		e.opts.Losses.Add(lossUsage)
		return nil
	case *event.RoundFinished:
		e.roundFinished(b)
		return nil
	case *event.TurnFinished:
		return e.turnFinished(b, ev)
	case *event.SessionFinished:
		return e.sessionFinished(b, ev)
	}
	e.unwritten(ev)
	return nil
}

// prepare does what every event needs before its own line: the first
// time is kept, an event Gemini's rules leave out is skipped, another
// dialect's unknown line is counted, and a stream without init gets
// one. It reports whether ev is done with.
func (e *Encoder) prepare(ev *event.Event) (bool, error) {
	loss := e.opts.Losses
	if e.started == "" && ev.Time != "" {
		e.started = ev.Time
	}
	if !e.native && e.header && e.skip(ev) {
		return true, nil
	}
	loss.Foreign(ev.Ext, Name)
	if u, ok := ev.Body.(*event.Unknown); ok && u.Dialect != Name {
		// Nothing of it is written, so it needs no init: a banner that
		// Gemini CLI printed before its init (kept by the conversion as an
		// unreadable line) must not make the real init a repeated one.
		loss.AddDetail(lossUnknownEvent, u.Dialect)
		return true, nil
	}
	if _, ok := ev.Body.(*event.SessionStarted); !ok && !e.header {
		if err := e.init(&event.SessionStarted{}, nil); err != nil {
			return true, err
		}
		loss.Add(lossSynthesizedInitDefaults)
	}
	return false, nil
}

// sessionStarted writes init.
func (e *Encoder) sessionStarted(b *event.SessionStarted, ev *event.Event) error {
	if ev.Synthetic {
		e.opts.Losses.Add(lossSynthesizedInit)
	}
	return e.init(b, ev)
}

// sessionFinished writes result.
func (e *Encoder) sessionFinished(b *event.SessionFinished, ev *event.Event) error {
	if ev.Synthetic {
		e.opts.Losses.Add(lossSynthesizedResult)
	}
	return e.result(b, ev)
}

// unwritten counts an event that Gemini has no line for.
func (e *Encoder) unwritten(ev *event.Event) {
	loss := e.opts.Losses
	switch ev.Body.(type) {
	case *event.ReasoningDelta, *event.Reasoning:
		loss.AddDetail(lossReasoning, string(ev.Type()))
	case *event.ModelConfigured:
		loss.Add(lossModelConfigured)
	case *event.PermissionRequested, *event.PermissionResolved:
		loss.AddDetail(lossPermission, string(ev.Type()))
	case *event.PlanUpdated:
		loss.Add(lossPlanUpdated)
	case *event.TaskUpdated:
		loss.Add(lossTaskUpdated)
	default:
		loss.AddDetail(lossNoSuchEvent, string(ev.Type()))
	}
}

// turnStarted keeps a turn's prompt until its user message is written.
func (e *Encoder) turnStarted(b *event.TurnStarted, ev *event.Event) error {
	e.turns++
	if e.turns > 1 && !e.native {
		e.opts.Losses.Add(lossLaterTurn)
	}
	e.said, e.prompt, e.promptT = false, b.Prompt, ev.Time
	if b.CommandID != "" {
		e.opts.Losses.Add(lossTurnCommandId)
	}
	return nil
}

// userMessage writes the user's message; the turn's prompt is not
// written again.
func (e *Encoder) userMessage(b *event.UserMessage, ev *event.Event) error {
	e.prompt = nil
	if b.ImageCount != nil {
		e.opts.Losses.Add(lossImageCount)
	}
	return e.user(b.Text, ev)
}

// messageDelta writes an assistant delta.
func (e *Encoder) messageDelta(b *event.MessageDelta, ev *event.Event) error {
	if b.MessageID != "" {
		e.opts.Losses.Add(lossMessageId)
	}
	e.inDelta = true
	return e.assistant(b.Text, true, ev)
}

// message writes an assembled message that its deltas did not deliver.
func (e *Encoder) message(b *event.Message, ev *event.Event) error {
	// An assembled message repeats its deltas; only an undelivered one
	// is written.
	if e.inDelta {
		e.inDelta = false
		return nil
	}
	if b.MessageID != "" {
		e.opts.Losses.Add(lossMessageId)
	}
	// Gemini CLI streams every answer as deltas; a complete message of
	// another dialect is written as one delta.
	return e.assistant(b.Text, !e.native, ev)
}

// toolCall writes a call's tool_use.
func (e *Encoder) toolCall(b *event.ToolCall, ev *event.Event) error {
	loss := e.opts.Losses
	if e.open.has(b.CallID) || e.done.Has(b.CallID) {
		loss.Add(lossRepeatedToolCall)
		return nil
	}
	if e.native && ev.Synthetic {
		// The decoder's call for a result the stream never announced.
		e.open.add(b.CallID)
		return nil
	}
	if b.Title != "" {
		loss.Add(lossToolTitle)
	}
	if b.Mutability != "" {
		loss.Add(lossToolMutability)
	}
	if b.Kind != "" && b.Kind != toolKind(b.Name) {
		loss.Add(lossToolKind)
	}
	return e.toolUse(b.CallID, b.Name, b.Input, ev, false)
}

// toolStarted writes the tool_use of a call that was not announced.
func (e *Encoder) toolStarted(b *event.ToolStarted, ev *event.Event) error {
	if !e.open.has(b.CallID) && !e.done.Has(b.CallID) {
		return e.toolUse(b.CallID, b.Name, nil, timeOnly(ev), true)
	}
	return nil // a tool_use is the call's start
}

// toolOutput keeps a call's output chunk for its tool_result.
func (e *Encoder) toolOutput(b *event.ToolOutput, ev *event.Event) error {
	if !e.open.has(b.CallID) && !e.done.Has(b.CallID) {
		if err := e.toolUse(b.CallID, b.Name, nil, timeOnly(ev), true); err != nil {
			return err
		}
	}
	if c := e.open.chunks(b.CallID); c != nil {
		c.chunks.WriteString(b.Chunk)
		c.chunky = true
		return nil
	}
	e.opts.Losses.Add(lossAfterToolResult)
	return nil
}

// notice writes a notice as an error line of its severity; Gemini has
// no info severity.
func (e *Encoder) notice(b *event.Notice, ev *event.Event) error {
	sev := "warning"
	switch b.Severity {
	case event.SeverityError:
		sev = "error"
	case event.SeverityWarning:
	default:
		if !e.native {
			e.opts.Losses.Add(lossNoticeSeverityInfo)
		}
	}
	return e.errorLine(sev, b.Message, ev)
}

// errorEvent writes an error as an error line; Gemini's error lines
// are all non-fatal.
func (e *Encoder) errorEvent(b *event.Error, ev *event.Event) error {
	if b.Recoverable != nil && !*b.Recoverable {
		e.opts.Losses.Add(lossFatalError)
	}
	return e.errorLine("error", b.Message, ev)
}

// roundFinished adds a round's usage to the run's; Gemini states only
// the run's.
func (e *Encoder) roundFinished(b *event.RoundFinished) {
	if b.Usage != nil {
		e.roundUsage.add(b.Usage)
		e.opts.Losses.Add(lossRoundUsage)
	}
	switch b.StopReason {
	case "", event.StopToolUse, event.StopEndTurn, event.StopCancelled, event.StopMaxTurnRequests:
		// a round ends to call tools, or with the run, as result says
	default:
		e.opts.Losses.Add(lossRoundStopReason)
	}
}

// skip keeps a stream built from another dialect within Gemini's rules:
// one init, nothing after result. It reports whether ev must be left out.
func (e *Encoder) skip(ev *event.Event) bool {
	loss := e.opts.Losses
	if e.ended {
		if u, ok := ev.Body.(*event.Unknown); ok && u.Dialect != Name {
			return false // dropped and counted as another dialect's unknown line
		}
		loss.AddDetail(lossAfterRunFinished, string(ev.Type()))
		return true
	}
	if _, ok := ev.Body.(*event.SessionStarted); ok {
		loss.Add(lossRepeatedSessionStart)
		return true
	}
	return false
}

// begin starts a line of type typ with the residue of ev (nil for a line
// no event stands behind), and writes its timestamp.
func (e *Encoder) begin(typ string, ev *event.Event) *jsonobj.Writer {
	l := &e.l
	var res json.RawMessage
	if ev != nil {
		res = ev.Ext.Get(Name)
	}
	l.Begin(res)
	l.Str("type", typ)
	stated := l.Has("timestamp") || l.Absent("timestamp")
	ts := ""
	if ev != nil && ev.Time != "" {
		t, exact, ok := wireTime(ev.Time)
		if ok {
			ts = t
			if !exact && !stated {
				e.opts.Losses.Add(lossSubMillisecondTime)
			}
		}
	}
	if ts == "" {
		ts = e.lastTS
		if ts == "" {
			ts = epoch
		}
		if !stated {
			e.opts.Losses.Add(lossSynthesizedTimestamp)
		}
	}
	e.lastTS = ts
	l.Str("timestamp", ts)
	return l
}

func (e *Encoder) init(s *event.SessionStarted, ev *event.Event) error {
	e.header = true
	e.native = s.Source.Dialect == Name
	l := e.begin("init", ev)
	id, model := s.SessionID, s.Model
	if !e.native {
		if id == "" {
			id = e.opts.Defaults.SessionID
		}
		if model == "" {
			model = e.opts.Defaults.Model
		}
		loss := e.opts.Losses
		if s.Agent != nil && (s.Agent.Name != "" || s.Agent.Version != "") {
			loss.Add(lossProducer)
		}
		if s.Provider != "" {
			loss.Add(lossModelProvider)
		}
		if s.TaskID != "" {
			loss.Add(lossSessionTaskId)
		}
		if s.Workspace != "" || s.ContextFiles != nil && len(*s.ContextFiles) > 0 || len(s.Skills) > 0 || len(s.SkillsDirs) > 0 ||
			len(s.Commands) > 0 || len(s.CommandsDirs) > 0 || len(s.MCPServers) > 0 || len(s.MCPFiles) > 0 ||
			len(s.A2AFiles) > 0 || len(s.A2AAgents) > 0 {
			loss.Add(lossSessionFacts)
		}
	}
	l.Str("session_id", id)
	l.Str("model", model)
	return e.write(l.End())
}

// user writes the user's message, which begins the turn.
func (e *Encoder) user(text string, ev *event.Event) error {
	l := e.begin("message", ev)
	l.Str("role", "user")
	l.Str("content", text)
	if l.Has("delta") {
		l.Key("delta")
	}
	return e.write(l.End())
}

// flushPrompt writes a turn's prompt that no user message carried.
func (e *Encoder) flushPrompt(ev *event.Event) error {
	if e.prompt == nil {
		return nil
	}
	p := *e.prompt
	e.prompt = nil
	e.opts.Losses.Add(lossSynthesizedUserMessage)
	at := timeOnly(ev)
	if e.promptT != "" {
		at = &event.Event{Time: e.promptT}
	}
	l := e.begin("message", at)
	l.Str("role", "user")
	l.Str("content", p)
	return e.write(l.End())
}

// timeOnly is an event that lends a synthesised line its time only.
func timeOnly(ev *event.Event) *event.Event {
	if ev == nil {
		return nil
	}
	return &event.Event{Time: ev.Time}
}

func (e *Encoder) assistant(text string, delta bool, ev *event.Event) error {
	if err := e.flushPrompt(ev); err != nil {
		return err
	}
	e.said = true
	l := e.begin("message", ev)
	l.Str("role", "assistant")
	l.Str("content", text)
	if delta {
		l.Bool("delta", true)
	} else if l.Has("delta") {
		l.Key("delta")
	}
	return e.write(l.End())
}

// toolUse writes a tool_use; synth is set for a call the source made
// known only by a later event, ev.
func (e *Encoder) toolUse(id, name string, input json.RawMessage, ev *event.Event, synth bool) error {
	if err := e.flushPrompt(ev); err != nil {
		return err
	}
	if synth {
		e.opts.Losses.Add(lossSynthesizedToolUse)
	}
	e.open.add(id)
	e.toolCalls++
	l := e.begin("tool_use", ev)
	l.Str("tool_name", name)
	l.Str("tool_id", id)
	if !l.Absent("parameters") && l.Key("parameters") {
		in := gjson.ParseBytes(input)
		switch {
		case in.IsObject() && e.native:
			l.B = append(l.B, input...)
		case in.IsObject():
			l.B = normalJSON(l.B, in)
		case len(input) == 0 || in.Type == gjson.Null:
			l.B = append(l.B, "{}"...)
		default:
			// parameters is a Record<string, unknown>: another dialect's
			// input that is not an object is wrapped.
			e.opts.Losses.Add(lossToolInputNotObject)
			l.B = append(normalJSON(append(l.B, `{"input":`...), in), '}')
		}
	}
	return e.write(l.End())
}

func (e *Encoder) toolResult(b *event.ToolFinished, ev *event.Event) error {
	loss := e.opts.Losses
	if e.done.Has(b.CallID) {
		loss.Add(lossRepeatedToolFinish)
		return nil
	}
	if !e.open.has(b.CallID) {
		if err := e.toolUse(b.CallID, b.Name, nil, timeOnly(ev), true); err != nil {
			return err
		}
	}
	c := e.open.take(b.CallID)
	e.done.Add(b.CallID, 0)
	if err := e.flushPrompt(ev); err != nil {
		return err
	}
	e.said = false // the final answer is what comes after the last result
	l := e.begin("tool_result", ev)
	l.Str("tool_id", b.CallID)
	status := "success"
	switch b.Status {
	case event.ToolSuccess:
	case event.ToolError:
		status = "error"
	default:
		status = "error"
		if !e.native {
			loss.AddDetail(lossToolStatus, strconv.Quote(string(b.Status)))
		}
	}
	if !l.Absent("status") {
		l.Str("status", status)
	}
	out := b.Output
	if out == nil && c.chunky {
		s := c.chunks.String()
		out = &s
	} else if c.chunky && *out != c.chunks.String() {
		loss.Add(lossToolOutputChunks)
	}
	if out != nil {
		l.Str("output", *out)
	}
	switch {
	case l.Has("error"):
		l.Key("error")
	case !e.native && (status != "success" || b.Error != ""):
		l.Key("error")
		l.B = errorJSON(l.B, toolErrGeneric, b.Error)
	}
	if !e.native {
		if b.Summary != nil {
			loss.Add(lossToolSummary)
		}
		if b.ExitCode != nil {
			loss.Add(lossToolExitCode)
		}
		if b.Command != "" {
			loss.Add(lossToolCommand)
		}
		if len(b.Edit) > 0 {
			loss.Add(lossToolEdit)
		}
		if len(b.Web) > 0 {
			loss.Add(lossToolWeb)
		}
	}
	return e.write(l.End())
}

func errorJSON(dst []byte, typ, msg string) []byte {
	first := true
	dst = append(dst, '{')
	dst = jsonenc.Key(dst, &first, "type")
	dst = jsonenc.String(dst, typ)
	dst = jsonenc.Key(dst, &first, "message")
	dst = jsonenc.String(dst, msg)
	return append(dst, '}')
}

func (e *Encoder) errorLine(severity, msg string, ev *event.Event) error {
	l := e.begin("error", ev)
	l.Str("severity", severity)
	l.Str("message", msg)
	return e.write(l.End())
}

func (e *Encoder) turnFinished(b *event.TurnFinished, ev *event.Event) error {
	if e.native {
		return nil // result says it all
	}
	loss := e.opts.Losses
	e.turnUsage.add(b.Usage)
	e.stop = b.StopReason
	switch b.StopReason {
	case "", event.StopEndTurn, event.StopCancelled, event.StopMaxTurnRequests, event.StopToolUse:
	default:
		loss.Add(lossTurnStopReason)
	}
	if e.reason != "" {
		loss.Add(lossTurnReason) // an earlier turn's, which no result carries
	}
	e.reason = b.Reason
	if b.Text != nil && *b.Text != "" && !e.said {
		// An answer that was never streamed is written as one delta.
		return e.assistant(*b.Text, true, timeOnly(ev))
	}
	return nil
}

func (e *Encoder) result(b *event.SessionFinished, ev *event.Event) error {
	loss := e.opts.Losses
	if err := e.flushPrompt(ev); err != nil {
		return err
	}
	if !e.native && b.Text != nil && *b.Text != "" && !e.said {
		if err := e.assistant(*b.Text, true, timeOnly(ev)); err != nil {
			return err
		}
	}
	e.ended = true
	l := e.begin("result", ev)
	status := "success"
	if b.Status != event.StatusOK {
		status = "error"
	}
	if !l.Absent("status") {
		l.Str("status", status)
	}
	// The error's text: the session's message, else the failed turn's
	// reason (a codex turn.failed states only the latter).
	msg := b.Message
	if msg == "" && status == "error" {
		msg = e.reason
	}
	if !e.native && e.reason != "" && e.reason != msg {
		loss.Add(lossTurnReason)
	}
	switch {
	case l.Has("error"):
		l.Key("error")
	case e.native:
	case b.Status == event.StatusCancelled:
		l.Key("error")
		l.B = errorJSON(l.B, errCancelled, msg)
	case status == "error" && e.stop == event.StopMaxTurnRequests:
		l.Key("error")
		l.B = errorJSON(l.B, errTurnLimit, msg)
	case status == "error" && msg != "":
		loss.Add(lossErrorClass)
		l.Key("error")
		l.B = errorJSON(l.B, errGeneric, msg)
	case msg != "":
		loss.Add(lossSuccessMessage)
	}
	e.stats(b, ev)
	if !e.native {
		if b.StoppedBy != "" {
			loss.Add(lossRunBound)
		}
		if b.Errors != nil && len(*b.Errors) > 0 && !(len(*b.Errors) == 1 && (*b.Errors)[0] == b.Message) {
			loss.Add(lossRunErrorList)
		}
		if len(b.StructuredOutput) > 0 {
			loss.Add(lossStructuredOutput)
		}
		if b.Reasoning != nil && *b.Reasoning != "" {
			loss.Add(lossFinalReasoning)
		}
	}
	return e.write(l.End())
}

func (e *Encoder) write(b []byte) error {
	if err := e.l.SpillErr(); err != nil {
		return err
	}
	_, err := e.w.Write(b)
	return err
}

// Close implements dialect.Encoder. A stream that ended without
// session_finished stays truncated: no result is invented.
func (e *Encoder) Close() error { return nil }

// normalJSON appends the JSON value v compact, with the keys of every
// object sorted, strings escaped as JSON.stringify escapes them, and
// numbers as written. Another dialect's tool input is written so: neither
// its key order, its spacing nor its escaping is a fact of the run, and
// the same input then gives the same line however it was spelled.
func normalJSON(dst []byte, v gjson.Result) []byte {
	switch {
	case v.IsObject():
		ms := jsonobj.Members(v)
		slices.SortStableFunc(ms, func(a, b jsonobj.Member) int { return strings.Compare(a.Key, b.Key) })
		dst = append(dst, '{')
		for i, m := range ms {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(jsonenc.String(dst, m.Key), ':')
			dst = normalJSON(dst, m.Val)
		}
		return append(dst, '}')
	case v.IsArray():
		dst = append(dst, '[')
		i := 0
		jsonobj.ForEach(v, func(_, e gjson.Result) bool {
			if i > 0 {
				dst = append(dst, ',')
			}
			i++
			dst = normalJSON(dst, e)
			return true
		})
		return append(dst, ']')
	case v.Type == gjson.String:
		// As JSON.stringify escapes it: U+2028, U+2029 and any other
		// character the source escaped without need are written raw.
		return jsonenc.String(dst, v.Str)
	}
	return append(dst, v.Raw...)
}
