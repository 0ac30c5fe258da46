package opencode

import (
	"bufio"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/jsonenc"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/evtool/evtool/internal/usagesum"
	"github.com/tidwall/gjson"
)

// Encoder writes canonical events as opencode lines.
//
// An opencode source comes back as it was: every line from the event that
// carries it, the lines with no event of their own from ext.opencode.before,
// and the bus's lines in the bus's shape. Any other source is written as
// `run --format json` writes a run: each model round a step (step_start,
// its text, reasoning and finished tool calls, step_finish with the
// round's usage and cost), text and reasoning whole (deltas are joined),
// and no terminal line, since 1.18.33 writes none: a turn that ended is
// closed by its step_finish, or by an error line when it failed.
type Encoder struct {
	w    *bufio.Writer
	opts dialect.EncodeOptions
	loss *dialect.Losses
	b    []byte

	native  bool // the source is opencode
	header  bool
	session string
	last    string // the last time a line was written at, epoch ms text
	cur     string // the time of the line being written, epoch ms text
	calls   map[string]*call

	// what a foreign source needs
	inStep    bool   // a step_start is written and its step_finish is not
	stepMsg   string // the step's message id
	steps     int
	parts     int
	pending   usagesum.Tally // usage events since the last step_finish
	text      strings.Builder
	textID    string
	inText    bool
	reason    strings.Builder
	inReason  bool
	turns     int
	turnOpen  bool           // a turn has begun and not ended
	turnSteps int            // steps written in the turn
	turnText  bool           // a text line was written in the turn
	written   usagesum.Tally // usage written in the turn's steps
	lastErr   bool           // the last line written is an error line
	lines     int            // lines written
	moreDue   bool           // the last step_finish stopped to call tools
	// held is the turn's last step_finish, not yet written: the turn's
	// usage total, stated only when the turn ends (Gemini, Codex, and
	// Claude's cost), goes on it.
	held      *heldStep
	releasing bool
	// unstated counts, per count's name, the zeros the turn's steps were
	// written with; they are counted as losses when the turn ends, unless
	// the turn's total stated them.
	unstated map[string]int
}

// heldStep is a step_finish waiting for the end of its turn.
type heldStep struct {
	ev        *event.Event
	stop      event.StopReason
	u         *event.Usage
	synthetic bool
	msg       string // its step's message id
}

// call is what the tool_call and tool_started of a call said, for the
// tool_use line written when it finishes.
type call struct {
	name, title string
	input       json.RawMessage
	start       string
	output      strings.Builder
}

func newEncoder(w *bufio.Writer, opts dialect.EncodeOptions) *Encoder {
	return &Encoder{w: w, opts: opts, loss: opts.Losses, calls: map[string]*call{}, unstated: map[string]int{}}
}

// Encode implements dialect.Encoder. What every event needs is done
// here; what its type needs, by one method per type.
func (e *Encoder) Encode(ev *event.Event) error {
	e.loss.Foreign(ev.Ext, Name)
	res := gjson.ParseBytes(ev.Ext.Get(Name))
	if err := e.before(res); err != nil {
		return err
	}
	if s, ok := ev.Body.(*event.SessionStarted); ok {
		return e.start(s, ev)
	}
	if !e.header {
		e.header = true
		e.session = e.opts.Defaults.SessionID
	}
	if res.Get(keyBus).Bool() {
		return e.bus(ev, res)
	}
	switch b := ev.Body.(type) {
	case *event.Unknown:
		return e.unknown(b)
	case *event.TurnStarted:
		return e.turnStarted(b, ev)
	case *event.MessageDelta:
		return e.messageDelta(b)
	case *event.ReasoningDelta:
		return e.reasoningDelta(b)
	case *event.Message:
		return e.message(ev, res, b)
	case *event.Reasoning:
		return e.reasoning(ev, res, b)
	case *event.ToolCall:
		e.toolCall(ev, b)
		return nil
	case *event.ToolStarted:
		return e.toolStarted(ev, res, b)
	case *event.ToolOutput:
		e.callOf(b.CallID).output.WriteString(b.Chunk)
		return nil
	case *event.ToolFinished:
		return e.toolFinished(ev, res, b)
	case *event.Usage:
		e.usageEvent(b)
		return nil
	case *event.RoundFinished:
		return e.roundFinished(ev, res, b)
	case *event.Error:
		return e.errorEvent(ev, res, b)
	case *event.TurnFinished:
		return e.turnFinished(ev, res, b)
	case *event.SessionFinished:
		return e.sessionFinished(ev, b)
	}
	e.unwritten(ev)
	return nil
}

// before writes the lines of an opencode source that no event stands
// for, kept in the residue of the event after them.
func (e *Encoder) before(res gjson.Result) error {
	before := res.Get(keyBefore)
	if !before.IsArray() {
		return nil
	}
	if err := e.flush(); err != nil {
		return err
	}
	var err error
	jsonobj.ForEach(before, func(_, l gjson.Result) bool {
		err = e.write(append([]byte(l.Raw), '\n'))
		return err == nil
	})
	return err
}

// unknown writes back an opencode line evtool does not know; another
// dialect's is lost.
func (e *Encoder) unknown(b *event.Unknown) error {
	if b.Dialect == Name {
		if err := e.flush(); err != nil {
			return err
		}
		return e.write(append(append([]byte(nil), b.Raw...), '\n'))
	}
	e.loss.AddDetail(lossUnknownEvent, b.Dialect)
	return nil
}

// unwritten counts an event that opencode has no line for.
func (e *Encoder) unwritten(ev *event.Event) {
	switch ev.Body.(type) {
	case *event.UserMessage:
		e.loss.Add(lossUserMessage)
	case *event.ToolProgress:
		e.loss.Add(lossToolProgress)
	case *event.Notice:
		if ev.Synthetic && e.native {
			return // the decoder's own word about a stream that ends early
		}
		e.loss.Add(lossNotice)
	case *event.PermissionRequested:
		e.loss.Add(lossPermissionRequest)
	case *event.PermissionResolved:
		e.loss.Add(lossPermissionOutcome)
	case *event.PlanUpdated:
		e.loss.Add(lossPlanUpdate)
	case *event.TaskUpdated:
		e.loss.Add(lossTaskUpdated)
	case *event.ModelConfigured:
		e.loss.Add(lossModelConfigured)
	default:
		e.loss.AddDetail(lossNoSuchEvent, string(ev.Type()))
	}
}

// messageDelta joins a text delta to the text of its message; another
// message's, or reasoning, ends the text before it.
func (e *Encoder) messageDelta(b *event.MessageDelta) error {
	if e.inReason || (e.inText && b.MessageID != e.textID) {
		if err := e.flush(); err != nil {
			return err
		}
	}
	e.inText, e.textID = true, b.MessageID
	e.text.WriteString(b.Text)
	return nil
}

// reasoningDelta joins a reasoning delta to the reasoning before it.
func (e *Encoder) reasoningDelta(b *event.ReasoningDelta) error {
	if e.inText {
		if err := e.flush(); err != nil {
			return err
		}
	}
	e.inReason = true
	e.reason.WriteString(b.Text)
	return nil
}

// message writes a text part; it repeats the deltas before it, which are
// not written.
func (e *Encoder) message(ev *event.Event, res gjson.Result, b *event.Message) error {
	return e.whole(ev, res, &e.text, &e.inText, lossMessageDeltas, "text", func(p *obj) { e.textPart(p, b.Text, b.MessageID) })
}

// reasoning writes a reasoning part; it repeats the deltas before it,
// which are not written.
func (e *Encoder) reasoning(ev *event.Event, res gjson.Result, b *event.Reasoning) error {
	return e.whole(ev, res, &e.reason, &e.inReason, lossReasoningDeltas, "reasoning", func(p *obj) { e.reasoningPart(p, b.Text) })
}

// whole writes a whole part of type typ, filled by fill, that repeats the
// deltas gathered before it (buf, open while deltas came): they are
// dropped, not written, and the part counts as joined from them.
func (e *Encoder) whole(ev *event.Event, res gjson.Result, buf *strings.Builder, open *bool, joined *dialect.LossKind, typ string, fill func(*obj)) error {
	had := *open
	buf.Reset()
	*open = false
	if err := e.flush(); err != nil {
		return err
	}
	if had {
		e.loss.Add(joined)
	}
	return e.partLine(ev, res, typ, fill)
}

// usageEvent adds a usage to the next step_finish's; an opencode
// source's usage is its step_finish's already.
func (e *Encoder) usageEvent(b *event.Usage) {
	if e.native {
		e.loss.Add(lossUsageEvent)
		return
	}
	e.pending.Add(b)
}

// roundFinished writes a round's step_finish.
func (e *Encoder) roundFinished(ev *event.Event, res gjson.Result, b *event.RoundFinished) error {
	if err := e.flush(); err != nil {
		return err
	}
	return e.stepFinish(ev, res, b.StopReason, b.Usage, false)
}

// errorEvent writes an error line.
func (e *Encoder) errorEvent(ev *event.Event, res gjson.Result, b *event.Error) error {
	if err := e.flush(); err != nil {
		return err
	}
	if b.Recoverable != nil {
		e.loss.Add(lossErrorRecoverable)
	}
	return e.errorLine(ev, res, b.Message)
}

func (e *Encoder) start(s *event.SessionStarted, ev *event.Event) error {
	if e.header {
		e.loss.Add(lossRepeatedSessionStart)
		return nil
	}
	e.header = true
	e.native = s.Source.Dialect == Name
	e.session = s.SessionID
	if e.session == "" {
		e.session = e.opts.Defaults.SessionID
	}
	if e.native {
		return nil
	}
	if s.Model != "" || s.Provider != "" {
		e.loss.Add(lossSessionModel)
	}
	if s.Agent != nil && s.Agent.Version != "" {
		e.loss.Add(lossProducerVersion)
	}
	if s.Workspace != "" || s.ContextFiles != nil && len(*s.ContextFiles) > 0 || len(s.Skills) > 0 ||
		len(s.Commands) > 0 || len(s.MCPServers) > 0 || len(s.MCPFiles) > 0 || s.TaskID != "" {
		e.loss.Add(lossSessionFacts)
	}
	return nil
}

func (e *Encoder) turnStarted(b *event.TurnStarted, ev *event.Event) error {
	if e.native {
		return nil
	}
	if err := e.endTurn(nil, event.StatusOK, "", nil, "", nil); err != nil { // a turn that ended without saying so
		return err
	}
	e.turns++
	e.turnOpen, e.turnSteps, e.turnText, e.written = true, 0, false, usagesum.Tally{}
	if e.turns > 1 {
		e.loss.Add(lossLaterTurn)
	}
	if b.Prompt != nil && *b.Prompt != "" {
		e.loss.Add(lossTurnPrompt)
	}
	return nil
}

// stamp returns the timestamp of a line for ev: its time, else the last
// time written (a foreign source that states no time), else 0.
func (e *Encoder) stamp(ev *event.Event) string {
	if ev != nil && ev.Time != "" {
		if ms, ok := e.millis(ev.Time); ok {
			e.last = ms
			return ms
		}
	}
	if e.native && ev != nil && !ev.Synthetic {
		return "0"
	}
	e.loss.Add(lossLineTimestamp)
	if e.last == "" {
		return "0"
	}
	return e.last
}

// millis renders an RFC 3339 time as epoch milliseconds.
func (e *Encoder) millis(s string) (string, bool) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil || t.UnixMilli() < 0 {
		return "", false
	}
	if t.Nanosecond()%int(time.Millisecond) != 0 {
		e.loss.Add(lossSubMillisecond)
	}
	return strconv.FormatInt(t.UnixMilli(), 10), true
}

// envelope opens a run json line of type typ, after the held step_finish.
func (e *Encoder) envelope(ev *event.Event, res gjson.Result, typ string) *obj {
	if e.held != nil && !e.releasing {
		e.release(nil) // a write error sticks to the bufio.Writer: the next write returns it
	}
	e.b = e.b[:0]
	o := open(&e.b, res)
	o.key("type")
	*o.b = jsonenc.String(*o.b, typ)
	stamp := e.stamp(ev)
	e.cur = stamp
	o.raw("timestamp", []byte(stamp))
	o.str("sessionID", e.session)
	return o
}

func (e *Encoder) end(o *obj) error {
	o.close()
	if keys := jsonobj.Lookup(o.res, keyKeys); keys.IsArray() {
		e.b = reorder(e.b, keys)
	}
	e.b = append(e.b, '\n')
	e.lastErr = false
	return e.write(e.b)
}

// partLine writes a run json line of a part, in a step.
func (e *Encoder) partLine(ev *event.Event, res gjson.Result, typ string, part func(*obj)) error {
	if err := e.ensureStep(ev); err != nil {
		return err
	}
	o := e.envelope(ev, res, typ)
	o.sub("part", part)
	return e.end(o)
}

// ensureStep writes the step_start of a round for a foreign source.
func (e *Encoder) ensureStep(ev *event.Event) error {
	if e.native || e.inStep {
		return nil
	}
	if !e.turnOpen {
		if err := e.turnStarted(&event.TurnStarted{}, nil); err != nil {
			return err
		}
	}
	e.inStep = true
	e.steps++
	e.turnSteps++
	e.stepMsg = "msg_evtool_" + strconv.Itoa(e.steps)
	e.loss.Add(lossSynthesizedStepStart)
	o := e.envelope(ev, gjson.Result{}, "step_start")
	o.sub("part", func(p *obj) {
		e.ids(p, "step-start", "")
	})
	return e.end(o)
}

// ids writes a part's id, sessionID, messageID and type. A foreign source
// has no part or message ids: they are numbered.
func (e *Encoder) ids(p *obj, typ, messageID string) {
	if e.native {
		p.opt("id")
	} else {
		e.parts++
		p.str("id", "prt_evtool_"+strconv.Itoa(e.parts))
	}
	p.str("sessionID", e.session)
	switch {
	case messageID != "":
		p.str("messageID", messageID)
	case e.native:
		p.opt("messageID")
	default:
		p.str("messageID", e.stepMsg)
	}
	p.str("type", typ)
}

func (e *Encoder) textPart(p *obj, text, messageID string) {
	if messageID == "" && !e.native {
		messageID = e.stepMsg
	}
	e.ids(p, "text", messageID)
	p.str("text", text)
	p.opt("synthetic")
	p.opt("ignored")
	e.span(p)
	p.opt("metadata")
	e.turnText = true
}

// span writes a foreign part's time: the source states one time for it,
// which is its start and its end.
func (e *Encoder) span(p *obj) {
	if e.native {
		p.opt("time")
		return
	}
	p.raw("time", []byte(`{"start":`+e.cur+`,"end":`+e.cur+`}`))
}

func (e *Encoder) reasoningPart(p *obj, text string) {
	e.ids(p, "reasoning", "")
	p.str("text", text)
	p.opt("metadata")
	e.span(p)
}

// flush writes the text and reasoning gathered from deltas.
func (e *Encoder) flush() error {
	if e.inReason {
		text := e.reason.String()
		e.reason.Reset()
		e.inReason = false
		if err := e.partLine(nil, gjson.Result{}, "reasoning", func(p *obj) { e.reasoningPart(p, text) }); err != nil {
			return err
		}
		e.loss.Add(lossReasoningDeltas)
	}
	if e.inText {
		text, id := e.text.String(), e.textID
		e.text.Reset()
		e.inText = false
		if err := e.partLine(nil, gjson.Result{}, "text", func(p *obj) { e.textPart(p, text, id) }); err != nil {
			return err
		}
		e.loss.Add(lossMessageDeltas)
	}
	return nil
}

func (e *Encoder) write(b []byte) error {
	e.lines++
	_, err := e.w.Write(b)
	return err
}

// Close implements dialect.Encoder. Text gathered from deltas is written;
// a stream that ended without its end stays so: no step_finish is
// invented.
func (e *Encoder) Close() error {
	if err := e.flush(); err != nil {
		return err
	}
	if e.held != nil {
		if err := e.release(nil); err != nil {
			return err
		}
	}
	e.countUnstated(nil)
	return nil
}
