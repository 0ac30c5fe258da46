package mermaid

import (
	"bufio"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/jsonenc"
	"github.com/evtool/evtool/internal/jsonobj"
)

// Encoder writes canonical events as mermaid lines.
//
// mermaid's result line aggregates the run (answer text, reasoning, token
// total, errors), so the encoder keeps those while it writes; that state
// grows with the answer, not with the stream.
type Encoder struct {
	w    *bufio.Writer
	opts dialect.EncodeOptions
	l    jsonobj.Writer

	native    bool // the source is mermaid: trust its own result fields
	session   string
	header    bool // session_started was written
	names     map[string]string
	started   map[string]bool
	text      strings.Builder
	reasoning strings.Builder
	errors    []string
	tokens    uint64 // sum of per-round usage, for result.total_tokens
	haveToks  bool
	satToks   bool // that sum saturated
	inDelta   bool // message deltas since the last assembled message
	inThought bool
	ended     bool            // result was written
	finished  map[string]bool // calls whose tool_finished was written
	order     []string        // call ids in the order they were started
	real      map[string]bool // calls started by a tool_started of the source
	approved  []string        // call ids of the approval_required lines written
	rounds    bool            // the current turn had round_finished events
	// seps is how the source line of the event being written spelled its
	// U+2028 and U+2029 when it escaped any (see separatorsKey), else "".
	seps string
}

// Encode implements dialect.Encoder.
func (e *Encoder) Encode(ev *event.Event) error {
	loss := e.opts.Losses
	if e.finished == nil {
		e.finished, e.real = map[string]bool{}, map[string]bool{}
	}
	if !e.native && e.header {
		if skip, err := e.repair(ev); skip || err != nil {
			return err
		}
	}
	loss.Foreign(ev.Ext, Name)
	e.seps = separatorsOf(ev.Ext.Get(Name))
	if _, ok := ev.Body.(*event.SessionStarted); !ok && !e.header {
		if err := e.writeHeader(&event.SessionStarted{}, nil); err != nil {
			return err
		}
		loss.Add(lossSynthesizedSessionStartedDefaults)
	}
	l := &e.l
	switch b := ev.Body.(type) {
	case *event.SessionStarted:
		if ev.Synthetic {
			loss.Add(lossSynthesizedSessionStarted)
		}
		return e.writeHeader(b, ev.Ext.Get(Name))
	case *event.Unknown:
		if b.Dialect == Name {
			return e.write(append(append([]byte(nil), b.Raw...), '\n'))
		}
		loss.AddDetail(lossUnknownEvent, b.Dialect)
		return nil
	case *event.MessageDelta:
		if b.MessageID != "" {
			loss.Add(lossMessageId)
		}
		e.inDelta = true
		return e.delta("text", b.Text, ev)
	case *event.Message:
		// An assembled message repeats its deltas; only an undelivered one
		// is written.
		if e.inDelta {
			e.inDelta = false
			return nil
		}
		return e.delta("text", b.Text, ev)
	case *event.ReasoningDelta:
		e.inThought = true
		return e.delta("reasoning", b.Text, ev)
	case *event.Reasoning:
		if e.inThought {
			e.inThought = false
			return nil
		}
		return e.delta("reasoning", b.Text, ev)
	case *event.ToolCall:
		e.names[b.CallID] = b.Name
		if b.Title != "" || b.Mutability != "" {
			loss.Add(lossToolTitleMutability)
		}
		if len(b.Input) > 0 && string(b.Input) != "null" {
			loss.Add(lossToolInput)
		}
		return nil
	case *event.ToolStarted:
		if !e.native && e.real[b.CallID] {
			loss.Add(lossRepeatedToolStart)
			return nil
		}
		e.real[b.CallID] = true
		return e.toolStarted(b.CallID, ev.Ext.Get(Name), false)
	case *event.ToolFinished:
		// A mermaid source is written back as it was, even without the
		// tool_started it should have had.
		if !e.native {
			if err := e.toolStarted(b.CallID, nil, true); err != nil {
				return err
			}
		}
		l.Begin(ev.Ext.Get(Name))
		l.Str("type", "tool_finished")
		l.Str("call_id", b.CallID)
		name := b.Name
		if name == "" {
			name = e.names[b.CallID]
		}
		if name == "" && !e.native {
			name = "tool" // mermaid's own name for a tool without metadata
		}
		l.Str("name", name)
		status := string(b.Status)
		switch {
		case e.native: // written back as it was
		case b.Status == event.ToolSuccess || b.Status == event.ToolError || b.Status == event.ToolCancelled:
		case b.Status == event.ToolRejected:
			status = "cancelled"
			loss.Add(lossToolStatusRejected)
		default:
			loss.AddDetail(lossToolStatus, strconv.Quote(status))
			status = "error"
		}
		l.Str("status", status)
		summary := ""
		if b.Summary != nil {
			summary = *b.Summary
		}
		l.Str("summary", summary)
		l.NullStr("error", b.Error)
		l.OptRaw("plan", nil)
		l.OptRaw("web", b.Web)
		l.OptRaw("fuzzy", nil)
		e.finished[b.CallID] = true
		if b.Output != nil || b.ExitCode != nil || b.Command != "" {
			loss.Add(lossToolOutput)
		}
		if len(b.Edit) > 0 {
			loss.Add(lossToolEdit)
		}
		return e.write(l.End())
	case *event.PermissionRequested:
		if b.CallID == "" && !e.native {
			loss.Add(lossPermissionRequestNoCall)
			return nil
		}
		// mermaid's approval names a call that has a tool_started, before
		// or after it; closeOpen starts a call that never does.
		e.approved = append(e.approved, b.CallID)
		l.Begin(ev.Ext.Get(Name))
		l.Str("type", "approval_required")
		l.Str("call_id", b.CallID)
		tool := b.Tool
		if tool == "" {
			tool = e.names[b.CallID]
		}
		l.Str("tool", tool)
		risk := b.Risk
		if risk == "" && !e.native {
			risk = "unknown"
			loss.Add(lossPermissionRisk)
		}
		l.Str("risk", risk)
		l.Str("prompt", b.Description)
		if len(b.Preview) > 0 {
			loss.Add(lossPermissionPreview)
		}
		return e.write(l.End())
	case *event.PlanUpdated:
		return e.tasks(b, ev)
	case *event.Error:
		if b.Recoverable != nil {
			loss.Add(lossErrorRecoverable)
		}
		e.errors = append(e.errors, b.Message)
		l.Begin(ev.Ext.Get(Name))
		l.Str("type", "error")
		l.Str("message", b.Message)
		return e.write(l.End())
	case *event.Usage:
		if b.TotalTokens != nil {
			e.add(*b.TotalTokens)
		} else if b.InputTokens != nil || b.OutputTokens != nil {
			n, sat := sum(val(b.InputTokens), val(b.OutputTokens), val(b.ThoughtsTokens))
			e.satToks = e.satToks || sat
			e.add(n)
		}
		loss.Add(lossUsage)
		return nil
	case *event.RoundFinished:
		e.rounds = true
		if u := b.Usage; u != nil && (u.InputTokens != nil || u.OutputTokens != nil || u.CostUSD != "") {
			loss.Add(lossRoundTokenCounts)
		}
		return e.turnDone(b.StopReason, b.Usage, ev.Ext.Get(Name))
	case *event.TurnFinished:
		rounds := e.rounds
		e.rounds = false
		if ev.Synthetic {
			return nil // mermaid's run is one turn; result ends it
		}
		if b.Status != "ok" || b.Reason != "" || b.Text != nil {
			loss.Add(lossTurnOutcome)
		}
		if rounds {
			loss.Add(lossTurnEnd)
			return nil
		}
		// A source without rounds: the turn's last round ended with it.
		if u := b.Usage; u != nil && (u.InputTokens != nil || u.OutputTokens != nil) {
			loss.Add(lossTurnTokenCounts)
		}
		return e.turnDone(b.StopReason, b.Usage, ev.Ext.Get(Name))
	case *event.SessionFinished:
		if ev.Synthetic {
			loss.Add(lossSynthesizedResult)
		}
		return e.result(b, ev)
	case *event.TurnStarted:
		if !ev.Synthetic && b.Prompt != nil {
			loss.Add(lossTurnPrompt)
		}
		return nil
	case *event.UserMessage:
		loss.Add(lossUserMessage)
		return nil
	case *event.PermissionResolved:
		loss.Add(lossPermissionOutcome)
		return nil
	case *event.TaskUpdated:
		loss.Add(lossTaskUpdated)
		return nil
	case *event.ToolProgress:
		loss.Add(lossToolProgress)
		return nil
	case *event.ToolOutput:
		loss.Add(lossToolOutputChunk)
		return nil
	default:
		loss.AddDetail(lossNoSuchEvent, string(ev.Type()))
		return nil
	}
}

// turnDone writes the end of a model round.
func (e *Encoder) turnDone(reason event.StopReason, u *event.Usage, residue json.RawMessage) error {
	l := &e.l
	l.Begin(residue)
	l.Str("type", "turn_done")
	var total *uint64
	if u != nil {
		total = u.TotalTokens
	}
	l.NullUint("total_tokens", total)
	l.NullStr("stop_reason", stopWord(reason))
	return e.write(l.End())
}

func (e *Encoder) add(n uint64) {
	var sat bool
	e.tokens, sat = sum(e.tokens, n)
	e.satToks = e.satToks || sat
	e.haveToks = true
}

// sum adds token counts, saturating at the largest u64 instead of wrapping,
// and reports whether it saturated.
func sum(ns ...uint64) (total uint64, saturated bool) {
	for _, n := range ns {
		var ok bool
		if total, ok = addSat(total, n); !ok {
			saturated = true
		}
	}
	return total, saturated
}

// saturated counts a written total that is the largest u64 because the
// true sum is larger.
func (e *Encoder) saturated() {
	e.opts.Losses.Add(lossBeyondU64)
}

func (e *Encoder) writeHeader(s *event.SessionStarted, residue json.RawMessage) error {
	e.header = true
	e.native = s.Source.Dialect == Name
	e.session = s.SessionID
	if e.session == "" {
		e.session = e.opts.Defaults["session_id"]
	}
	l := &e.l
	l.Begin(residue)
	l.Str("type", "session_started")
	version := uint64(ProtocolVersion)
	if e.native && s.Source.Version != nil {
		version = *s.Source.Version
	}
	l.Uint("protocol_version", e.fit32(version, "protocol version"))
	cli := e.opts.Defaults["cli_version"]
	if s.Agent != nil && s.Agent.Name == Name {
		cli = s.Agent.Version
	}
	l.Str("cli_version", cli)
	model := s.Model
	if model == "" {
		model = e.opts.Defaults["model"]
	}
	// mermaid names a model with its provider, e.g. "anthropic/claude-x".
	if !e.native && s.Provider != "" && model != "" && !strings.Contains(model, "/") {
		model = s.Provider + "/" + model
	}
	l.Str("model", model)
	l.NullStr("task_id", s.TaskID)
	l.Str("session_id", e.session)
	if !e.native && s.Agent != nil && s.Agent.Version != "" {
		e.opts.Losses.Add(lossProducerVersion)
	}
	if !e.native && (s.Workspace != "" || s.ContextFiles != nil && len(*s.ContextFiles) > 0 || len(s.Skills) > 0 ||
		len(s.Commands) > 0 || len(s.MCPServers) > 0 || len(s.MCPFiles) > 0) {
		e.opts.Losses.Add(lossSessionFacts)
	}
	return e.write(l.End())
}

func (e *Encoder) delta(typ, text string, ev *event.Event) error {
	if typ == "text" {
		e.text.WriteString(text)
	} else {
		e.reasoning.WriteString(text)
	}
	l := &e.l
	l.Begin(ev.Ext.Get(Name))
	l.Str("type", typ)
	l.Str("delta", text)
	return e.write(l.End())
}

// toolStarted writes a tool_started for a call that has none yet. mermaid
// pairs every tool_finished with one, so a call that finished without
// starting (a denied call) gets one synthesised.
func (e *Encoder) toolStarted(id string, residue json.RawMessage, synthetic bool) error {
	if e.started[id] {
		return nil
	}
	e.started[id] = true
	e.order = append(e.order, id)
	if synthetic {
		e.opts.Losses.Add(lossSynthesizedToolStarted)
	}
	l := &e.l
	l.Begin(residue)
	l.Str("type", "tool_started")
	l.Str("call_id", id)
	return e.write(l.End())
}

func (e *Encoder) tasks(b *event.PlanUpdated, ev *event.Event) error {
	l := &e.l
	l.Begin(ev.Ext.Get(Name))
	l.Str("type", "tasks_updated")
	completed := uint64(0)
	if l.Key("tasks") {
		l.B = append(l.B, '[')
		for i, p := range b.Entries {
			if i > 0 {
				l.B = append(l.B, ',')
			}
			id, err := strconv.ParseUint(p.ID, 10, 32)
			if err != nil {
				id = uint64(i + 1)
				if p.ID != "" {
					e.opts.Losses.Add(lossPlanEntryId)
				}
			}
			f := true
			l.B = append(l.B, '{')
			l.B = jsonenc.Key(l.B, &f, "id")
			l.B = jsonenc.Uint(l.B, id)
			l.B = jsonenc.Key(l.B, &f, "subject")
			l.B = jsonenc.String(l.B, p.Content)
			l.B = jsonenc.Key(l.B, &f, "status")
			l.B = jsonenc.String(l.B, p.Status)
			// Another dialect's word is written as it is (mermaid types
			// the field as a string), and counted: a mermaid reader knows
			// only its own three.
			if !e.native && !slices.Contains(knownTaskStatuses, p.Status) {
				e.opts.Losses.AddDetail(lossPlanStatus, strconv.Quote(p.Status))
			}
			l.B = jsonenc.Key(l.B, &f, "active_form")
			l.B = jsonenc.String(l.B, p.ActiveForm)
			for _, kv := range []struct {
				k string
				v *uint64
			}{{"elapsed_secs", p.ElapsedSecs}, {"tokens_spent", p.TokensSpent}} {
				l.B = jsonenc.Key(l.B, &f, kv.k)
				if kv.v == nil {
					l.B = append(l.B, "null"...)
				} else {
					l.B = jsonenc.Uint(l.B, *kv.v)
				}
			}
			l.B = jsonenc.Key(l.B, &f, "origin")
			if p.Origin == "" {
				l.B = append(l.B, "null"...)
			} else {
				l.B = jsonenc.String(l.B, p.Origin)
				if !e.native && !slices.Contains(knownTaskOrigins, p.Origin) {
					e.opts.Losses.AddDetail(lossPlanOrigin, strconv.Quote(p.Origin))
				}
			}
			l.B = append(l.B, '}')
			if p.Priority != "" {
				e.opts.Losses.Add(lossPlanPriority)
			}
		}
		l.B = append(l.B, ']')
	}
	for _, p := range b.Entries {
		if p.Status == "completed" {
			completed++
		}
	}
	if b.Completed != nil {
		completed = *b.Completed
	}
	total := uint64(len(b.Entries))
	if b.Total != nil {
		total = *b.Total
	}
	l.Uint("completed", e.fit32(completed, "task count"))
	l.Uint("total", e.fit32(total, "task count"))
	return e.write(l.End())
}

func (e *Encoder) result(b *event.SessionFinished, ev *event.Event) error {
	e.ended = true
	l := &e.l
	l.Begin(ev.Ext.Get(Name))
	l.Str("type", "result")
	response := e.text.String()
	if b.Text != nil {
		response = *b.Text
	}
	l.Str("response", response)
	// A stated reasoning is written as it was, "" included; otherwise
	// mermaid's null, or for another dialect the streamed reasoning.
	reasoning := b.Reasoning
	if reasoning == nil && !e.native && e.reasoning.Len() > 0 {
		r := e.reasoning.String()
		reasoning = &r
	}
	if reasoning != nil {
		l.Str("reasoning", *reasoning)
	} else {
		l.NullStr("reasoning", "")
	}
	var total uint64
	switch {
	case b.Usage != nil && b.Usage.TotalTokens != nil:
		total = *b.Usage.TotalTokens
	case b.Usage != nil && (b.Usage.InputTokens != nil || b.Usage.OutputTokens != nil):
		var sat bool
		total, sat = sum(val(b.Usage.InputTokens), val(b.Usage.OutputTokens), val(b.Usage.ThoughtsTokens))
		if sat {
			e.saturated()
		}
		e.opts.Losses.Add(lossRunTokenTotalByKind)
	case e.haveToks:
		total = e.tokens
		if e.satToks {
			e.saturated()
		}
		e.opts.Losses.Add(lossRunTokenTotalByRound)
	}
	l.Uint("total_tokens", total)
	errs := e.errors
	if b.Errors != nil {
		errs = *b.Errors
	} else if b.Status == "error" && b.Message != "" && !slices.Contains(errs, b.Message) {
		errs = append(errs, b.Message)
	}
	if l.Key("errors") {
		l.B = append(l.B, '[')
		for i, s := range errs {
			if i > 0 {
				l.B = append(l.B, ',')
			}
			l.B = jsonenc.String(l.B, s)
		}
		l.B = append(l.B, ']')
	}
	l.Str("session_id", e.session)
	l.OptRaw("structured_output", b.StructuredOutput)
	if b.StoppedBy != "" {
		e.opts.Losses.Add(lossRunBound)
	}
	if b.Status == "cancelled" {
		e.opts.Losses.Add(lossRunStatusCancelled)
	}
	return e.write(l.End())
}

func (e *Encoder) write(b []byte) error {
	if e.seps != "" {
		// The event's own line is the one with the source's separators.
		if r, ok := respell(b, e.seps); ok {
			b, e.seps = r, ""
		}
	}
	_, err := e.w.Write(b)
	return err
}

// Close implements dialect.Encoder. A stream that ended without
// session_finished stays truncated: no result is invented.
func (e *Encoder) Close() error { return nil }

// fit32 caps a count at the largest u32 for a field mermaid types as u32,
// counting the loss.
func (e *Encoder) fit32(n uint64, kind string) uint64 {
	if n > u32.Max {
		e.opts.Losses.AddDetail(lossBeyondU32, kind)
		return u32.Max
	}
	return n
}

func val(p *uint64) uint64 {
	if p == nil {
		return 0
	}
	return *p
}

// repair keeps a stream built from another dialect within mermaid's rules:
// one session_started, nothing after result, each call finished once and
// asked about only before it finished, and every call the run leaves open
// finished when the run ends. It reports whether ev must be left out. A
// mermaid source is written back as it was.
func (e *Encoder) repair(ev *event.Event) (skip bool, err error) {
	loss := e.opts.Losses
	if e.ended {
		if u, ok := ev.Body.(*event.Unknown); !ok || u.Dialect == Name {
			loss.AddDetail(lossAfterRunFinished, string(ev.Type()))
			return true, nil
		}
		return false, nil // dropped and counted as another dialect's unknown line
	}
	switch b := ev.Body.(type) {
	case *event.SessionStarted:
		loss.Add(lossRepeatedSessionStart)
		return true, nil
	case *event.ToolStarted:
		if e.finished[b.CallID] {
			loss.Add(lossAfterToolFinished)
			return true, nil
		}
	case *event.ToolFinished:
		if e.finished[b.CallID] {
			loss.Add(lossRepeatedToolFinish)
			return true, nil
		}
	case *event.PermissionRequested:
		if e.finished[b.CallID] {
			loss.Add(lossPermissionRequestAfterFinish)
			return true, nil
		}
	case *event.SessionFinished:
		return false, e.closeOpen()
	}
	return false, nil
}

// closeOpen finishes, as cancelled, the calls a run leaves open: the run's
// end ends them. A call that was asked about but never started is started
// first, since mermaid's approval names a started call.
func (e *Encoder) closeOpen() error {
	for _, id := range e.approved {
		if !e.finished[id] {
			if err := e.toolStarted(id, nil, true); err != nil {
				return err
			}
		}
	}
	for _, id := range e.order {
		if e.finished[id] {
			continue
		}
		e.finished[id] = true
		e.opts.Losses.Add(lossSynthesizedToolFinished)
		name := e.names[id]
		if name == "" {
			name = "tool"
		}
		l := &e.l
		l.Begin(nil)
		l.Str("type", "tool_finished")
		l.Str("call_id", id)
		l.Str("name", name)
		l.Str("status", "cancelled")
		l.Str("summary", "the run ended before the call finished")
		l.NullStr("error", "")
		if err := e.write(l.End()); err != nil {
			return err
		}
	}
	return nil
}
