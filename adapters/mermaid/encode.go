package mermaid

import (
	"bufio"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/idset"
	"github.com/evtool/evtool/internal/jsonenc"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/evtool/evtool/internal/linesep"
	"github.com/evtool/evtool/internal/openset"
	"github.com/evtool/evtool/internal/wireint"
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
	text      strings.Builder
	reasoning strings.Builder
	errors    []string
	tokens    uint64 // sum of per-round usage, for result.total_tokens
	haveToks  bool
	satToks   bool // that sum saturated
	inDelta   bool // message deltas since the last assembled message
	inThought bool
	ended     bool // result was written
	// The state of the calls, kept compactly and only while a call is
	// open, so that a run of millions of calls costs what its open calls
	// do (packages openset and idset): a Go map of every id ever seen
	// held 400 MB, most of it the lines its keys were cut from, on a
	// 300 MB stream.
	calls    openset.Set // calls named by a tool_call and not finished: their names
	started  openset.Set // calls started and not finished, in the order started (flagReal)
	approved openset.Set // calls asked about and not finished, in order
	everOn   idset.Set   // calls whose tool_started was written
	finished idset.Set   // calls whose tool_finished was written
	rounds   bool        // the current turn had round_finished events
	// seps is how the source line of the event being written spelled its
	// U+2028 and U+2029 when it escaped any (see linesep.Key), else "".
	seps string
}

// Encode implements dialect.Encoder. It keeps the stream within
// mermaid's rules (see repair), writes the session_started a stream needs
// first, then ev's lines, by one method per type or group of types.
func (e *Encoder) Encode(ev *event.Event) error {
	loss := e.opts.Losses
	if !e.native && e.header {
		if skip, err := e.repair(ev); skip || err != nil {
			return err
		}
	}
	loss.Foreign(ev.Ext, Name)
	if u := event.UsageOf(ev.Body); u != nil && u.CostUSD != "" {
		loss.Add(lossCost)
	}
	e.seps = linesep.FromResidue(ev.Ext.Get(Name))
	// A long text goes straight to the output, unless the event's line is
	// to be respelled whole.
	e.l.Spill.W = nil
	if e.seps == "" {
		e.l.Spill.W = e.w
	}
	if _, ok := ev.Body.(*event.SessionStarted); !ok && !e.header {
		if err := e.writeHeader(&event.SessionStarted{}, nil); err != nil {
			return err
		}
		loss.Add(lossSynthesizedSessionStartedDefaults)
	}
	return e.event(ev)
}

// event writes the lines of ev by one method per type, or per group of
// types mermaid writes alike.
func (e *Encoder) event(ev *event.Event) error {
	switch b := ev.Body.(type) {
	case *event.SessionStarted:
		if ev.Synthetic {
			e.opts.Losses.Add(lossSynthesizedSessionStarted)
		}
		return e.writeHeader(b, ev.Ext.Get(Name))
	case *event.Unknown:
		return e.unknown(b)
	case *event.MessageDelta, *event.Message, *event.ReasoningDelta, *event.Reasoning:
		return e.assistant(ev)
	case *event.ToolCall:
		e.toolCall(b)
		return nil
	case *event.ToolStarted:
		return e.toolStart(b, ev)
	case *event.ToolFinished:
		return e.toolFinished(b, ev)
	case *event.PermissionRequested:
		return e.approvalRequired(b, ev)
	case *event.PlanUpdated:
		return e.tasks(b, ev)
	case *event.Error:
		return e.errorLine(b, ev)
	case *event.Usage:
		e.usage(b)
		return nil
	case *event.RoundFinished:
		return e.roundFinished(b, ev)
	case *event.TurnFinished:
		return e.turnFinished(b, ev)
	case *event.SessionFinished:
		if ev.Synthetic {
			e.opts.Losses.Add(lossSynthesizedResult)
		}
		return e.result(b, ev)
	case *event.TurnStarted, *event.UserMessage, *event.PermissionResolved, *event.TaskUpdated, *event.ToolProgress, *event.ToolOutput:
		e.dropped(ev)
		return nil
	}
	e.opts.Losses.AddDetail(lossNoSuchEvent, string(ev.Type()))
	return nil
}

// unknown writes back a line of mermaid's that was not understood, as it
// was; another dialect's is counted.
func (e *Encoder) unknown(b *event.Unknown) error {
	if b.Dialect == Name {
		return e.write(append(append([]byte(nil), b.Raw...), '\n'))
	}
	e.opts.Losses.AddDetail(lossUnknownEvent, b.Dialect)
	return nil
}

// assistant writes assistant text and reasoning as mermaid's text and
// reasoning deltas. An assembled message repeats its deltas; only an
// undelivered one is written.
func (e *Encoder) assistant(ev *event.Event) error {
	switch b := ev.Body.(type) {
	case *event.MessageDelta:
		if b.MessageID != "" {
			e.opts.Losses.Add(lossMessageId)
		}
		e.inDelta = true
		return e.delta("text", b.Text, ev)
	case *event.Message:
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
	}
	return nil
}

func (e *Encoder) delta(typ, text string, ev *event.Event) error {
	// A mermaid source states its answer and reasoning in its result,
	// which result writes as they were: only another dialect's are
	// gathered (a run's whole answer, which grows with the stream).
	switch {
	case e.native:
	case typ == "text":
		e.text.WriteString(text)
	default:
		e.reasoning.WriteString(text)
	}
	l := &e.l
	l.Begin(ev.Ext.Get(Name))
	l.Str("type", typ)
	l.Str("delta", text)
	return e.write(l.End())
}

// dropped counts an event mermaid has no line for.
func (e *Encoder) dropped(ev *event.Event) {
	loss := e.opts.Losses
	switch b := ev.Body.(type) {
	case *event.TurnStarted:
		if !ev.Synthetic && b.Prompt != nil {
			loss.Add(lossTurnPrompt)
		}
	case *event.UserMessage:
		loss.Add(lossUserMessage)
	case *event.PermissionResolved:
		loss.Add(lossPermissionOutcome)
	case *event.TaskUpdated:
		loss.Add(lossTaskUpdated)
	case *event.ToolProgress:
		loss.Add(lossToolProgress)
	case *event.ToolOutput:
		loss.Add(lossToolOutputChunk)
	}
}

// toolCall learns a call's name: mermaid names a tool only when it
// finishes, and has no line for the call itself.
func (e *Encoder) toolCall(b *event.ToolCall) {
	if !e.finished.Has(b.CallID) {
		if !e.calls.Add(b.CallID, 0, b.Name) {
			// A call named again: the last name is the one written.
			e.calls.Delete(b.CallID)
			e.calls.Add(b.CallID, 0, b.Name)
		}
	}
	if b.Title != "" || b.Mutability != "" {
		e.opts.Losses.Add(lossToolTitleMutability)
	}
	if len(b.Input) > 0 && string(b.Input) != "null" {
		e.opts.Losses.Add(lossToolInput)
	}
}

// toolStart writes the tool_started of a call, once: another dialect may
// start a call more than once.
func (e *Encoder) toolStart(b *event.ToolStarted, ev *event.Event) error {
	if c, ok := e.started.Get(b.CallID); ok && c.Flags&flagReal != 0 && !e.native {
		e.opts.Losses.Add(lossRepeatedToolStart)
		return nil
	}
	err := e.toolStarted(b.CallID, ev.Ext.Get(Name), false)
	e.started.SetFlags(b.CallID, flagReal)
	return err
}

// flagReal marks a call of Encoder.started started by a tool_started of
// the source, not synthesised.
const flagReal = 1

// name returns the name a tool_call gave an open call.
func (e *Encoder) name(id string) string {
	c, _ := e.calls.Get(id)
	return c.Name
}

// finish forgets a call's open state: its tool_finished is written.
func (e *Encoder) finish(id string) {
	e.finished.Add(id, 0)
	e.calls.Delete(id)
	e.started.Delete(id)
	e.approved.Delete(id)
}

// toolStarted writes a tool_started for a call that has none yet. mermaid
// pairs every tool_finished with one, so a call that finished without
// starting (a denied call) gets one synthesised.
func (e *Encoder) toolStarted(id string, residue json.RawMessage, synthetic bool) error {
	if e.everOn.Has(id) {
		return nil
	}
	e.everOn.Add(id, 0)
	if !e.finished.Has(id) {
		e.started.Add(id, 0, "")
	}
	if synthetic {
		e.opts.Losses.Add(lossSynthesizedToolStarted)
	}
	l := &e.l
	l.Begin(residue)
	l.Str("type", "tool_started")
	l.Str("call_id", id)
	return e.write(l.End())
}

func (e *Encoder) toolFinished(b *event.ToolFinished, ev *event.Event) error {
	// A mermaid source is written back as it was, even without the
	// tool_started it should have had.
	if !e.native {
		if err := e.toolStarted(b.CallID, nil, true); err != nil {
			return err
		}
	}
	l := &e.l
	l.Begin(ev.Ext.Get(Name))
	l.Str("type", "tool_finished")
	l.Str("call_id", b.CallID)
	name := b.Name
	if name == "" {
		name = e.name(b.CallID)
	}
	if name == "" && !e.native {
		name = "tool" // mermaid's own name for a tool without metadata
	}
	l.Str("name", name)
	l.Str("status", e.toolStatus(b.Status))
	summary := ""
	if b.Summary != nil {
		summary = *b.Summary
	}
	l.Str("summary", summary)
	l.NullStr("error", b.Error)
	l.OptRaw("plan", nil)
	web := b.Web
	if len(web) > 0 && !webFits(web) {
		web = nil
		e.opts.Losses.Add(lossToolWeb)
	}
	l.OptRaw("web", web)
	l.OptRaw("fuzzy", nil)
	e.finish(b.CallID)
	if b.Output != nil || b.ExitCode != nil || b.Command != "" {
		e.opts.Losses.Add(lossToolOutput)
	}
	if len(b.Edit) > 0 {
		e.opts.Losses.Add(lossToolEdit)
	}
	return e.write(l.End())
}

// toolStatus returns mermaid's word for a call's status: its own three,
// a rejected call cancelled, and any other word an error.
func (e *Encoder) toolStatus(s event.ToolStatus) string {
	status := string(s)
	switch {
	case e.native: // written back as it was
	case s == event.ToolSuccess || s == event.ToolError || s == event.ToolCancelled:
	case s == event.ToolRejected:
		status = "cancelled"
		e.opts.Losses.Add(lossToolStatusRejected)
	default:
		e.opts.Losses.AddDetail(lossToolStatus, strconv.Quote(status))
		status = "error"
	}
	return status
}

func (e *Encoder) approvalRequired(b *event.PermissionRequested, ev *event.Event) error {
	loss := e.opts.Losses
	if b.CallID == "" && !e.native {
		loss.Add(lossPermissionRequestNoCall)
		return nil
	}
	// mermaid's approval names a call that has a tool_started, before
	// or after it; closeOpen starts a call that never does.
	if !e.finished.Has(b.CallID) {
		e.approved.Add(b.CallID, 0, "")
	}
	l := &e.l
	l.Begin(ev.Ext.Get(Name))
	l.Str("type", "approval_required")
	l.Str("call_id", b.CallID)
	tool := b.Tool
	if tool == "" {
		tool = e.name(b.CallID)
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
}

func (e *Encoder) errorLine(b *event.Error, ev *event.Event) error {
	if b.Recoverable != nil {
		e.opts.Losses.Add(lossErrorRecoverable)
	}
	e.errors = append(e.errors, b.Message)
	l := &e.l
	l.Begin(ev.Ext.Get(Name))
	l.Str("type", "error")
	l.Str("message", b.Message)
	return e.write(l.End())
}

// usage adds a usage report to the run's token total, which result
// states; mermaid has no line for it.
func (e *Encoder) usage(b *event.Usage) {
	if b.TotalTokens != nil {
		e.add(*b.TotalTokens)
	} else if b.InputTokens != nil || b.OutputTokens != nil {
		n, sat := sum(wireint.Value(b.InputTokens), wireint.Value(b.OutputTokens), wireint.Value(b.ThoughtsTokens))
		e.satToks = e.satToks || sat
		e.add(n)
	}
	e.opts.Losses.Add(lossUsage)
}

func (e *Encoder) roundFinished(b *event.RoundFinished, ev *event.Event) error {
	e.rounds = true
	if u := b.Usage; u != nil && (u.InputTokens != nil || u.OutputTokens != nil || u.CostUSD != "") {
		e.opts.Losses.Add(lossRoundTokenCounts)
	}
	return e.turnDone(b.StopReason, b.Usage, ev.Ext.Get(Name))
}

// turnFinished writes the turn_done of a source without rounds: the
// turn's last round ended with it.
func (e *Encoder) turnFinished(b *event.TurnFinished, ev *event.Event) error {
	loss := e.opts.Losses
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
	if u := b.Usage; u != nil && (u.InputTokens != nil || u.OutputTokens != nil) {
		loss.Add(lossTurnTokenCounts)
	}
	return e.turnDone(b.StopReason, b.Usage, ev.Ext.Get(Name))
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
		if n > math.MaxUint64-total {
			total, saturated = math.MaxUint64, true
		} else {
			total += n
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
		e.session = e.opts.Defaults.SessionID
	}
	l := &e.l
	l.Begin(residue)
	l.Str("type", "session_started")
	version := uint64(ProtocolVersion)
	if e.native && s.Source.Version != nil {
		version = *s.Source.Version
	}
	l.Uint("protocol_version", e.fit32(version, "protocol version"))
	cli := e.opts.Defaults.CLIVersion
	if s.Agent != nil && s.Agent.Name == Name {
		cli = s.Agent.Version
	}
	l.Str("cli_version", cli)
	l.Str("model", e.model(s))
	l.NullStr("task_id", s.TaskID)
	l.Str("session_id", e.session)
	if !e.native {
		e.auditHeader(s)
	}
	return e.write(l.End())
}

// model returns the model session_started names. mermaid names a model
// with its provider, e.g. "anthropic/claude-x".
func (e *Encoder) model(s *event.SessionStarted) string {
	model := s.Model
	if model == "" {
		model = e.opts.Defaults.Model
	}
	if !e.native && s.Provider != "" && model != "" && !strings.Contains(model, "/") {
		model = s.Provider + "/" + model
	}
	return model
}

// auditHeader counts the facts of another dialect's session start that
// session_started has no field for.
func (e *Encoder) auditHeader(s *event.SessionStarted) {
	if s.Agent != nil && s.Agent.Version != "" {
		e.opts.Losses.Add(lossProducerVersion)
	}
	if s.Workspace != "" || s.ContextFiles != nil && len(*s.ContextFiles) > 0 || len(s.Skills) > 0 ||
		len(s.Commands) > 0 || len(s.MCPServers) > 0 || len(s.MCPFiles) > 0 {
		e.opts.Losses.Add(lossSessionFacts)
	}
}

// tasks writes tasks_updated, the plan; its counts are the plan's own when
// it states them.
func (e *Encoder) tasks(b *event.PlanUpdated, ev *event.Event) error {
	l := &e.l
	l.Begin(ev.Ext.Get(Name))
	l.Str("type", "tasks_updated")
	if l.Key("tasks") {
		l.B = append(l.B, '[')
		for i := range b.Entries {
			if i > 0 {
				l.B = append(l.B, ',')
			}
			l.B = e.appendTask(l.B, i, &b.Entries[i])
		}
		l.B = append(l.B, ']')
	}
	completed := uint64(0)
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

// appendTask writes the i-th entry of a plan as a mermaid task.
func (e *Encoder) appendTask(b []byte, i int, p *event.PlanEntry) []byte {
	id, err := strconv.ParseUint(p.ID, 10, 32)
	if err != nil {
		id = uint64(i + 1)
		if p.ID != "" {
			e.opts.Losses.Add(lossPlanEntryId)
		}
	}
	f := true
	b = append(b, '{')
	b = jsonenc.Key(b, &f, "id")
	b = jsonenc.Uint(b, id)
	b = jsonenc.Key(b, &f, "subject")
	b = jsonenc.String(b, p.Content)
	b = jsonenc.Key(b, &f, "status")
	b = jsonenc.String(b, p.Status)
	// Another dialect's word is written as it is (mermaid types the field
	// as a string), and counted: a mermaid reader knows only its own three.
	if !e.native && !slices.Contains(knownTaskStatuses, p.Status) {
		e.opts.Losses.AddDetail(lossPlanStatus, strconv.Quote(p.Status))
	}
	b = jsonenc.Key(b, &f, "active_form")
	b = jsonenc.String(b, p.ActiveForm)
	b = jsonenc.Key(b, &f, "elapsed_secs")
	b = appendNullUint(b, p.ElapsedSecs)
	b = jsonenc.Key(b, &f, "tokens_spent")
	b = appendNullUint(b, p.TokensSpent)
	b = jsonenc.Key(b, &f, "origin")
	if p.Origin == "" {
		b = append(b, "null"...)
	} else {
		b = jsonenc.String(b, p.Origin)
		if !e.native && !slices.Contains(knownTaskOrigins, p.Origin) {
			e.opts.Losses.AddDetail(lossPlanOrigin, strconv.Quote(p.Origin))
		}
	}
	if p.Priority != "" {
		e.opts.Losses.Add(lossPlanPriority)
	}
	return append(b, '}')
}

// appendNullUint writes a count, or null for an absent one.
func appendNullUint(b []byte, v *uint64) []byte {
	if v == nil {
		return append(b, "null"...)
	}
	return jsonenc.Uint(b, *v)
}

// result writes mermaid's result, which sums up the run: its answer,
// reasoning, token total and errors, stated or gathered from the stream.
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
	l.Uint("total_tokens", e.total(b.Usage))
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

// total returns result's token total: the run's stated total, else the sum
// of its counts by kind, else the sum of the rounds' totals.
func (e *Encoder) total(u *event.Usage) uint64 {
	switch {
	case u != nil && u.TotalTokens != nil:
		return *u.TotalTokens
	case u != nil && (u.InputTokens != nil || u.OutputTokens != nil):
		total, sat := sum(wireint.Value(u.InputTokens), wireint.Value(u.OutputTokens), wireint.Value(u.ThoughtsTokens))
		if sat {
			e.saturated()
		}
		e.opts.Losses.Add(lossRunTokenTotalByKind)
		return total
	case e.haveToks:
		if e.satToks {
			e.saturated()
		}
		e.opts.Losses.Add(lossRunTokenTotalByRound)
		return e.tokens
	}
	return 0
}

func (e *Encoder) write(b []byte) error {
	if err := e.l.SpillErr(); err != nil {
		return err
	}
	if e.seps != "" {
		// The event's own line is the one with the source's separators.
		if r, ok := linesep.Respell(b, e.seps); ok {
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
