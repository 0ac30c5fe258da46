package opencode

import (
	"bufio"
	"encoding/json"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/jsonenc"
	"github.com/evtool/evtool/internal/jsonkeys"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/evtool/evtool/ndjson"
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
	pending   tally // usage events since the last step_finish
	text      strings.Builder
	textID    string
	inText    bool
	reason    strings.Builder
	inReason  bool
	turns     int
	turnOpen  bool  // a turn has begun and not ended
	turnSteps int   // steps written in the turn
	turnText  bool  // a text line was written in the turn
	written   tally // usage written in the turn's steps
	lastErr   bool  // the last line written is an error line
	lines     int   // lines written
	moreDue   bool  // the last step_finish stopped to call tools
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

// Encode implements dialect.Encoder.
func (e *Encoder) Encode(ev *event.Event) error {
	e.loss.Foreign(ev.Ext, Name)
	res := gjson.ParseBytes(ev.Ext.Get(Name))
	if before := res.Get(keyBefore); before.IsArray() {
		if err := e.flush(); err != nil {
			return err
		}
		var err error
		jsonobj.ForEach(before, func(_, l gjson.Result) bool {
			err = e.write(append([]byte(l.Raw), '\n'))
			return err == nil
		})
		if err != nil {
			return err
		}
	}
	if s, ok := ev.Body.(*event.SessionStarted); ok {
		return e.start(s, ev)
	}
	if !e.header {
		e.header = true
		e.session = e.opts.Defaults["session_id"]
	}
	if res.Get(keyBus).Bool() {
		return e.bus(ev, res)
	}
	switch b := ev.Body.(type) {
	case *event.Unknown:
		if b.Dialect == Name {
			if err := e.flush(); err != nil {
				return err
			}
			return e.write(append(append([]byte(nil), b.Raw...), '\n'))
		}
		e.loss.AddDetail(lossUnknownEvent, b.Dialect)
		return nil
	case *event.TurnStarted:
		return e.turnStarted(b, ev)
	case *event.UserMessage:
		e.loss.Add(lossUserMessage)
		return nil
	case *event.MessageDelta:
		if e.inReason || (e.inText && b.MessageID != e.textID) {
			if err := e.flush(); err != nil {
				return err
			}
		}
		e.inText, e.textID = true, b.MessageID
		e.text.WriteString(b.Text)
		return nil
	case *event.ReasoningDelta:
		if e.inText {
			if err := e.flush(); err != nil {
				return err
			}
		}
		e.inReason = true
		e.reason.WriteString(b.Text)
		return nil
	case *event.Message:
		joined := e.inText
		e.text.Reset()
		e.inText = false
		if err := e.flush(); err != nil {
			return err
		}
		if joined {
			e.loss.Add(lossMessageDeltas)
		}
		return e.partLine(ev, res, "text", func(p *obj) { e.textPart(p, b.Text, b.MessageID) })
	case *event.Reasoning:
		joined := e.inReason
		e.reason.Reset()
		e.inReason = false
		if err := e.flush(); err != nil {
			return err
		}
		if joined {
			e.loss.Add(lossReasoningDeltas)
		}
		return e.partLine(ev, res, "reasoning", func(p *obj) { e.reasoningPart(p, b.Text) })
	case *event.ToolCall:
		c := e.callOf(b.CallID)
		c.name, c.title, c.input = b.Name, b.Title, b.Input
		if c.start == "" {
			c.start = ev.Time
		}
		if !e.native {
			if b.Mutability != "" {
				e.loss.Add(lossToolMutability)
			}
			if b.Kind != "" && b.Kind != toolKind(b.Name) {
				e.loss.Add(lossToolKind)
			}
		}
		return nil
	case *event.ToolStarted:
		if ev.Time != "" {
			e.callOf(b.CallID).start = ev.Time
		}
		if e.native && res.Get("part").IsObject() {
			// A tool_use line of a call that had not ended (pending or
			// running): it comes back as it was.
			if err := e.flush(); err != nil {
				return err
			}
			return e.partLine(ev, res, "tool_use", func(p *obj) {
				e.toolPart(p, &event.ToolFinished{CallID: b.CallID, Name: b.Name}, ev)
			})
		}
		return nil
	case *event.ToolProgress:
		e.loss.Add(lossToolProgress)
		return nil
	case *event.ToolOutput:
		e.callOf(b.CallID).output.WriteString(b.Chunk)
		return nil
	case *event.ToolFinished:
		if err := e.flush(); err != nil {
			return err
		}
		return e.partLine(ev, res, "tool_use", func(p *obj) { e.toolPart(p, b, ev) })
	case *event.Usage:
		if e.native {
			e.loss.Add(lossUsageEvent)
			return nil
		}
		e.pending.add(b)
		return nil
	case *event.RoundFinished:
		if err := e.flush(); err != nil {
			return err
		}
		return e.stepFinish(ev, res, b.StopReason, b.Usage, false)
	case *event.Error:
		if err := e.flush(); err != nil {
			return err
		}
		if b.Recoverable != nil {
			e.loss.Add(lossErrorRecoverable)
		}
		return e.errorLine(ev, res, b.Message)
	case *event.TurnFinished:
		return e.turnFinished(ev, res, b)
	case *event.SessionFinished:
		return e.sessionFinished(ev, b)
	case *event.Notice:
		if ev.Synthetic && e.native {
			return nil // the decoder's own word about a stream that ends early
		}
		e.loss.Add(lossNotice)
		return nil
	case *event.PermissionRequested:
		e.loss.Add(lossPermissionRequest)
		return nil
	case *event.PermissionResolved:
		e.loss.Add(lossPermissionOutcome)
		return nil
	case *event.PlanUpdated:
		e.loss.Add(lossPlanUpdate)
		return nil
	case *event.TaskUpdated:
		e.loss.Add(lossTaskUpdated)
		return nil
	case *event.ModelConfigured:
		e.loss.Add(lossModelConfigured)
		return nil
	}
	e.loss.AddDetail(lossNoSuchEvent, string(ev.Type()))
	return nil
}

func (e *Encoder) callOf(id string) *call {
	c := e.calls[id]
	if c == nil {
		c = &call{}
		e.calls[id] = c
	}
	return c
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
		e.session = e.opts.Defaults["session_id"]
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
	e.turnOpen, e.turnSteps, e.turnText, e.written = true, 0, false, tally{}
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

func (e *Encoder) toolPart(p *obj, b *event.ToolFinished, ev *event.Event) {
	c := e.callOf(b.CallID)
	delete(e.calls, b.CallID)
	name := b.Name
	if name == "" {
		name = c.name
	}
	if name == "" && !e.native {
		name = "tool"
		e.loss.Add(lossToolName)
	}
	p.str("id", b.CallID)
	p.str("sessionID", e.session)
	if e.native {
		p.opt("messageID")
	} else {
		p.str("messageID", e.stepMsg)
	}
	p.str("type", "tool")
	if e.native {
		p.opt("callID")
	} else {
		p.str("callID", b.CallID)
	}
	p.str("tool", name)
	p.sub("state", func(s *obj) {
		status, ok := map[event.ToolStatus]string{event.ToolSuccess: "completed", event.ToolError: "error"}[b.Status]
		if !ok {
			status = "error"
			if !e.native { // a native line's own word comes from its residue
				e.loss.AddDetail(lossToolStatus, strconv.Quote(string(b.Status)))
			}
		}
		s.str("status", status)
		input := c.input
		if len(input) == 0 || input[0] != '{' {
			if !e.native {
				if len(input) > 0 && string(input) != "null" {
					e.loss.Add(lossToolInputNotObject)
				}
				input = json.RawMessage("{}")
			}
		} else if !e.native && ndjson.CheckDepth(input, 64) == nil {
			// A foreign source has no opencode key order for a tool's
			// input: its keys are sorted, so that the line does not depend
			// on how the source was written.
			input = jsonkeys.Reorder(input, jsonkeys.Sorted)
		}
		if len(input) > 0 {
			s.raw("input", input)
		} else {
			s.opt("input")
		}
		s.opt("raw")
		out := b.Output
		if out == nil && c.output.Len() > 0 {
			o := c.output.String()
			out = &o
			e.loss.Add(lossToolOutputChunks)
		}
		if status == "completed" {
			text := ""
			if out != nil {
				text = *out
			}
			if out != nil || !e.native {
				s.str("output", text)
			} else {
				s.opt("output")
			}
		} else {
			if out != nil {
				s.str("output", *out)
			}
			msg := b.Error
			if msg == "" && !e.native {
				msg = string(b.Status)
			}
			if msg != "" || !e.native {
				s.str("error", msg)
			} else {
				s.opt("error")
			}
		}
		title := c.title
		if title != "" || (!e.native && status == "completed") {
			s.str("title", title)
		} else {
			s.opt("title")
		}
		if e.native {
			s.opt("metadata")
			s.opt("time")
		} else {
			if status == "completed" || b.ExitCode != nil {
				s.raw("metadata", metadata(b.ExitCode))
			}
			start := e.stampOf(c.start)
			end := e.cur // the line's own time, stamped (and counted) once
			if start == "" {
				start = end
			}
			s.raw("time", []byte(`{"start":`+start+`,"end":`+end+`}`))
			e.toolLosses(b, title)
		}
		s.opt("attachments")
	})
	p.opt("metadata")
}

// metadata is a foreign call's metadata: its exit code, if it stated one.
func metadata(exit *int64) []byte {
	if exit == nil {
		return []byte("{}")
	}
	return []byte(`{"exit":` + strconv.FormatInt(*exit, 10) + `}`)
}

func (e *Encoder) stampOf(t string) string {
	if t == "" {
		return ""
	}
	ms, _ := e.millis(t)
	return ms
}

func (e *Encoder) toolLosses(b *event.ToolFinished, title string) {
	if b.Summary != nil && *b.Summary != "" && *b.Summary != title {
		e.loss.Add(lossToolSummary)
	}
	if b.Command != "" {
		e.loss.Add(lossToolCommand)
	}
	if len(b.Edit) > 0 {
		e.loss.Add(lossToolEdit)
	}
	if len(b.Web) > 0 {
		e.loss.Add(lossToolWeb)
	}
}

// stepFinish writes a step_finish. synthetic says it closes a round that
// the source did not close.
func (e *Encoder) stepFinish(ev *event.Event, res gjson.Result, stop event.StopReason, u *event.Usage, synthetic bool) error {
	if err := e.ensureStep(ev); err != nil {
		return err
	}
	if !e.native {
		if p := e.pending.usage(); p != nil {
			if u != nil {
				e.loss.Add(lossUsageBesideRound)
			} else {
				u = p
			}
		}
		e.pending = tally{}
	}
	if synthetic {
		e.loss.Add(lossSynthesizedStepFinish)
	}
	if !e.native {
		if e.held != nil {
			if err := e.release(nil); err != nil {
				return err
			}
		}
		e.held = &heldStep{ev: ev, stop: stop, u: u, synthetic: synthetic}
		e.inStep = false
		e.moreDue = stop == event.StopToolUse
		return nil
	}
	return e.writeStep(ev, res, stop, u)
}

// release writes the held step_finish. total is its turn's usage total,
// when the turn ends: a count or cost the step does not state is what
// the total leaves after the turn's other steps, so that the steps sum
// to the total, as opencode's readers sum them.
func (e *Encoder) release(total *event.Usage) error {
	h := e.held
	e.held = nil
	u := h.u
	if total != nil {
		var used bool
		if u, used = fill(u, total, &e.written); used {
			e.loss.Add(lossTurnUsageTotal)
		}
	}
	e.releasing = true
	defer func() { e.releasing = false }()
	return e.writeStep(h.ev, gjson.Result{}, h.stop, u)
}

// fill returns u with each count and the cost it lacks taken from total,
// less what the steps w already stated, and whether it took any. A
// remainder below zero (steps that state more than the total) is not
// taken. Costs are exact decimals.
func fill(u, total *event.Usage, w *tally) (*event.Usage, bool) {
	out := &event.Usage{}
	if u != nil {
		c := *u
		out = &c
	}
	used := false
	for _, f := range []struct {
		dst  **uint64
		tot  *uint64
		done *counter
	}{
		{&out.InputTokens, total.InputTokens, &w.in}, {&out.OutputTokens, total.OutputTokens, &w.out},
		{&out.ReasoningTokens, total.ReasoningTokens, &w.reason}, {&out.CacheReadTokens, total.CacheReadTokens, &w.read},
		{&out.CacheCreationTokens, total.CacheCreationTokens, &w.write}, {&out.TotalTokens, total.TotalTokens, &w.total},
	} {
		if *f.dst != nil || f.tot == nil || *f.tot < f.done.n {
			continue
		}
		v := *f.tot - f.done.n
		*f.dst = &v
		used = true
	}
	if out.CostUSD == "" && total.CostUSD != "" {
		if t, ok := new(big.Rat).SetString(string(total.CostUSD)); ok {
			if w.cost != nil {
				t.Sub(t, w.cost)
			}
			if t.Sign() >= 0 {
				out.CostUSD = json.Number(decimalText(t, max(w.scale, decimals(string(total.CostUSD)))))
				used = true
			}
		}
	}
	return out, used
}

// writeStep writes a step_finish line.
func (e *Encoder) writeStep(ev *event.Event, res gjson.Result, stop event.StopReason, u *event.Usage) error {
	o := e.envelope(ev, res, "step_finish")
	o.sub("part", func(p *obj) {
		e.ids(p, "step-finish", "")
		word, ok := finishWord(stop)
		if !ok {
			e.loss.AddDetail(lossStopReason, strconv.Quote(string(stop)))
		}
		p.str("reason", word)
		p.opt("snapshot")
		e.usage(p, u)
	})
	e.written.add(u)
	if e.native {
		// (a foreign source's step ended when it was held)
		e.inStep = false
		e.moreDue = stop == event.StopToolUse
	}
	return e.end(o)
}

// usage writes a step's cost and tokens. A count the source did not state
// is written as 0, and counted.
func (e *Encoder) usage(p *obj, u *event.Usage) {
	if u == nil {
		u = &event.Usage{}
	}
	zero := func(v *uint64, what string) string {
		if v == nil {
			if !e.native {
				e.unstated[what]++
			}
			return "0"
		}
		return strconv.FormatUint(*v, 10)
	}
	// A cost the source does not state is written as 0, which is how
	// opencode says a model is free or unpriced.
	cost := string(u.CostUSD)
	if cost == "" {
		cost = "0"
		if !e.native {
			e.unstated[costWord]++
		}
	}
	p.raw("cost", []byte(cost))
	total := u.TotalTokens
	if total != nil && !e.native {
		sum, ok := uint64(0), true
		for _, v := range []*uint64{u.InputTokens, u.OutputTokens, u.ReasoningTokens, u.CacheReadTokens, u.CacheCreationTokens} {
			if v == nil || sum+*v < sum {
				ok = false
				break
			}
			sum += *v
		}
		if !ok || sum != *total {
			// opencode's total is the sum of the disjoint counts.
			total = nil
			e.loss.Add(lossTokenTotalNotSum)
		}
	}
	p.field("tokens", func() {
		b := []byte{'{'}
		if total != nil {
			b = append(b, `"total":`+strconv.FormatUint(*total, 10)+`,`...)
		}
		b = append(b, `"input":`+zero(u.InputTokens, "input token")+
			`,"output":`+zero(u.OutputTokens, "output token")+
			`,"reasoning":`+zero(u.ReasoningTokens, "reasoning token")+
			`,"cache":{"read":`+zero(u.CacheReadTokens, "cache read token")+
			`,"write":`+zero(u.CacheCreationTokens, "cache write token")+`}}`...)
		*p.b = append(*p.b, b...)
	})
	if u.ThoughtsTokens != nil || u.ModelResponses != nil {
		e.loss.Add(lossThoughtsResponses)
	}
}

// errorLine writes an error line; its error object comes from the residue
// when the source is opencode.
func (e *Encoder) errorLine(ev *event.Event, res gjson.Result, msg string) error {
	o := e.envelope(ev, res, "error")
	o.field("error", func() {
		*o.b = append(*o.b, `{"name":"UnknownError","data":{"message":`...)
		*o.b = jsonenc.String(*o.b, msg)
		*o.b = append(*o.b, "}}"...)
	})
	if err := e.end(o); err != nil {
		return err
	}
	e.lastErr = true
	return nil
}

func (e *Encoder) turnFinished(ev *event.Event, res gjson.Result, b *event.TurnFinished) error {
	if e.native {
		if _, ok := res.Get("reason").Value().(string); ok || res.Get("rejected").Exists() {
			if err := e.flush(); err != nil {
				return err
			}
			o := e.envelope(ev, res, "done")
			o.opt("reason")
			o.opt("rejected")
			return e.end(o)
		}
		return nil
	}
	if b.Reason != "" && b.Status == event.StatusOK {
		e.loss.Add(lossTurnReason)
	}
	return e.endTurn(ev, b.Status, b.Reason, b.Usage, b.StopReason, b.Text)
}

func (e *Encoder) sessionFinished(ev *event.Event, b *event.SessionFinished) error {
	if err := e.flush(); err != nil {
		return err
	}
	if e.native {
		return nil
	}
	if b.StoppedBy != "" {
		e.loss.Add(lossRunBound)
	}
	if len(b.StructuredOutput) > 0 {
		e.loss.Add(lossStructuredOutput)
	}
	if b.Errors != nil && len(*b.Errors) > 1 {
		e.loss.Add(lossRunErrorList)
	}
	if b.Reasoning != nil && *b.Reasoning != "" && e.steps == 0 {
		e.loss.Add(lossRunReasoning)
	}
	msg := b.Message
	if msg == "" && b.Errors != nil && len(*b.Errors) > 0 {
		msg = (*b.Errors)[len(*b.Errors)-1]
	}
	if e.turns == 0 && e.lines == 0 {
		// A run that began no turn and wrote nothing (a prompt never
		// answered, as the ACP projection of a failed run reads back):
		// without a turn to end, the run's outcome would be lost and the
		// stream empty, which opencode's validator refuses. The turn is
		// taken as begun, so that its end is written: an empty step, or
		// the error line of a failed run.
		e.turns, e.turnOpen, e.turnSteps, e.turnText, e.written = 1, true, 0, false, tally{}
	}
	return e.endTurn(ev, b.Status, msg, b.Usage, "", b.Text)
}

// endTurn closes the open turn of a foreign source: the open step gets its
// step_finish, a turn that wrote no step gets an empty one (so that the
// stream shows the run ended), and a failed turn ends with an error line.
func (e *Encoder) endTurn(ev *event.Event, status event.Status, msg string, total *event.Usage, stop event.StopReason, text *string) error {
	if err := e.flush(); err != nil {
		return err
	}
	if !e.turnOpen {
		return nil
	}
	if text != nil && *text != "" && !e.turnText {
		// An answer the source never wrote as a message still reaches the reader.
		if err := e.partLine(ev, gjson.Result{}, "text", func(p *obj) { e.textPart(p, *text, "") }); err != nil {
			return err
		}
	}
	if stop == event.StopToolUse {
		stop = event.StopEndTurn
		e.loss.Add(lossTurnStopToolUse)
	}
	if e.inStep || (status == event.StatusOK && (e.turnSteps == 0 || e.moreDue)) {
		if stop == "" {
			stop = event.StopEndTurn
		}
		if err := e.stepFinish(ev, gjson.Result{}, stop, nil, true); err != nil {
			return err
		}
	}
	if e.held != nil {
		if err := e.release(total); err != nil {
			return err
		}
	}
	if total != nil && !sameTokens(total, e.written.usage()) {
		e.loss.Add(lossTurnUsageTotalDiffers)
	}
	e.countUnstated(total)
	if status != event.StatusOK && !e.lastErr {
		if msg == "" {
			msg = "the turn ended: " + string(status)
		}
		e.loss.Add(lossSynthesizedError)
		if err := e.errorLine(ev, gjson.Result{}, msg); err != nil {
			return err
		}
	}
	e.turnOpen = false
	return nil
}

// costWord names an unstated cost among the unstated counts.
const costWord = "cost"

// countUnstated counts the zeros the ended turn's steps were written with
// for counts the source did not state: those the turn's total stated are
// the approximation lossTurnUsageTotal already counts.
func (e *Encoder) countUnstated(total *event.Usage) {
	for what, n := range e.unstated {
		if total != nil && stated(total, what) {
			continue
		}
		for range n {
			if what == costWord {
				e.loss.Add(lossUnstatedCost)
			} else {
				e.loss.AddDetail(lossUnstatedCount, what)
			}
		}
	}
	clear(e.unstated)
}

// stated reports whether u states the count named what.
func stated(u *event.Usage, what string) bool {
	switch what {
	case "input token":
		return u.InputTokens != nil
	case "output token":
		return u.OutputTokens != nil
	case "reasoning token":
		return u.ReasoningTokens != nil
	case "cache read token":
		return u.CacheReadTokens != nil
	case "cache write token":
		return u.CacheCreationTokens != nil
	case costWord:
		return u.CostUSD != ""
	}
	return false
}

// sameTokens reports whether the steps written (b) state every token
// count the total (a) states, with the same value.
func sameTokens(a, b *event.Usage) bool {
	if b == nil {
		b = &event.Usage{}
	}
	eq := func(x, y *uint64) bool { return x == nil || (y != nil && *x == *y) }
	return eq(a.InputTokens, b.InputTokens) && eq(a.OutputTokens, b.OutputTokens) &&
		eq(a.CacheReadTokens, b.CacheReadTokens) && eq(a.CacheCreationTokens, b.CacheCreationTokens) &&
		eq(a.ReasoningTokens, b.ReasoningTokens)
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
