package basis

import (
	"bufio"
	"cmp"
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
	"github.com/tidwall/gjson"
)

// DefaultSchema is the basis schema version written when the source does
// not name one.
const DefaultSchema = 2

// Encoder writes canonical events as basis lines.
type Encoder struct {
	w       *bufio.Writer
	opts    dialect.EncodeOptions
	l       jsonobj.Writer
	seq     uint64
	started bool     // a line was written, so seq holds the last one
	texts   bool     // assistant text was written
	thought bool     // reasoning was written
	errors  []string // error messages written
	header  bool     // run_started was written
	ended   bool     // run_finished was written
	// The calls and requests are kept compactly and only while open
	// (packages openset and idset), so that a run of millions of calls
	// costs what its open calls do: Go maps of every id ever seen, keyed
	// by strings cut from the decoder's lines, held 300 MB on a 300 MB
	// stream.
	calls   openset.Set         // open calls, in queue order: the name they were queued with; flagStarted
	names   openset.Set         // open calls → the last tool name given, for lines that lack it
	done    idset.Set           // completed calls
	reqs    map[string]struct{} // open permission requests
	granted idset.Set           // resolved permission requests
	pending map[string][]string // call id → the requests written for it without an id of their own
	tasks   map[string]*task    // tasks by id, for the ones the run leaves open
	taskIDs []string
}

// call is what the encoder wrote of one tool call.
type call struct {
	name               string
	started, completed bool
}

// flagStarted marks an open call of Encoder.calls whose tool_started was
// written.
const flagStarted = 1

// task is the last state the encoder wrote of one task.
type task struct {
	kind, status, title string
}

// A fieldWriter writes the fields of one basis line after its seq and
// type, from the event the line stands for, and counts the event's facts
// that no basis field carries.
type fieldWriter func(e *Encoder, l *jsonobj.Writer, ev *event.Event)

// lineOf returns basis's type for an event body and the method that writes
// the line's fields, or a nil method for a body basis has no line for.
func lineOf(b event.Body) (typ string, write fieldWriter) {
	switch b.(type) {
	case *event.SessionStarted:
		return "run_started", (*Encoder).runStarted
	case *event.UserMessage:
		return "user_message", (*Encoder).userMessage
	case *event.MessageDelta:
		return "assistant_delta", (*Encoder).messageDelta
	case *event.ReasoningDelta:
		return "assistant_reasoning_delta", (*Encoder).reasoningDelta
	case *event.Message:
		return "assistant_message", (*Encoder).message
	case *event.ToolCall:
		return "tool_queued", (*Encoder).toolQueued
	case *event.ToolStarted:
		return "tool_started", (*Encoder).toolStarted
	case *event.ToolProgress:
		return "tool_progress", (*Encoder).toolProgress
	case *event.ToolFinished:
		return "tool_completed", (*Encoder).toolCompleted
	case *event.PermissionRequested:
		return "permission_requested", (*Encoder).permissionRequested
	case *event.PermissionResolved:
		return "permission_resolved", (*Encoder).permissionResolved
	case *event.TaskUpdated:
		return "task_updated", (*Encoder).taskUpdated
	case *event.CompactionStarted:
		return "compaction_started", (*Encoder).compactionStarted
	case *event.CompactionFinished:
		return "compaction_completed", (*Encoder).compactionCompleted
	case *event.ContextElided:
		return "request_tool_results_elided", (*Encoder).resultsElided
	case *event.MemoryUpdated:
		return "memory_updated", (*Encoder).memoryUpdated
	case *event.Usage:
		return "usage", (*Encoder).usage
	case *event.Notice:
		return "notice", (*Encoder).notice
	case *event.Retry:
		return "retry", (*Encoder).retry
	case *event.Error:
		return "error", (*Encoder).errorLine
	case *event.Branched:
		return "branched", (*Encoder).branched
	case *event.SessionFinished:
		return "run_finished", (*Encoder).runFinished
	}
	return "", nil
}

// Encode implements dialect.Encoder. It writes what basis needs before ev
// (see repair), then ev's line: seq and type here, the fields by the
// method lineOf names for its type.
func (e *Encoder) Encode(ev *event.Event) error {
	e.init()
	if u := event.UsageOf(ev.Body); u != nil && u.CostUSD != "" {
		e.opts.Losses.Add(lossCost)
	}
	switch body := ev.Body.(type) {
	case *event.Unknown:
		if body.Dialect == Name {
			return e.writeRaw(body.Raw)
		}
		e.opts.Losses.AddDetail(lossUnknownEvent, body.Dialect)
		return nil
	case *event.TurnStarted:
		if !ev.Synthetic {
			e.opts.Losses.Add(lossTurnStarted)
		}
		return nil
	}
	typ, write := lineOf(ev.Body)
	if write == nil {
		e.opts.Losses.AddDetail(lossNoSuchEvent, string(ev.Type()))
		return nil
	}
	if skip, err := e.repair(ev); skip || err != nil {
		return err
	}
	e.track(ev)
	e.opts.Losses.Foreign(ev.Ext, Name)
	if ev.Synthetic {
		e.opts.Losses.AddDetail(lossSynthesizedLine, typ)
	}
	l := &e.l
	seps := linesep.FromResidue(ev.Ext.Get(Name))
	// A long text goes straight to the output, unless the whole line is
	// to be respelled.
	l.Spill.W = nil
	if seps == "" {
		l.Spill.W = e.w
	}
	l.Begin(ev.Ext.Get(Name))
	l.Uint("seq", e.nextSeq(l))
	l.Str("type", typ)
	write(e, l, ev)
	out := l.End()
	if seps != "" {
		out, _ = linesep.Respell(out, seps)
	}
	if err := l.SpillErr(); err != nil {
		return err
	}
	if f, ok := ev.Body.(*event.ToolFinished); ok {
		e.complete(f.CallID)
	}
	_, err := e.w.Write(out)
	return err
}

// Close implements dialect.Encoder.
func (e *Encoder) Close() error { return nil }

func (e *Encoder) runStarted(l *jsonobj.Writer, ev *event.Event) {
	b := ev.Body.(*event.SessionStarted)
	if b.TaskID != "" {
		e.opts.Losses.Add(lossSessionTaskId)
	}
	if b.Agent != nil && b.Agent.Name != Name && b.Agent.Version != "" {
		e.opts.Losses.Add(lossProducerVersion)
	}
	schema := uint64(DefaultSchema)
	if b.Source.Dialect == Name && b.Source.Version != nil {
		schema = *b.Source.Version
	}
	l.Uint("schema", e.fit32(schema, "schema version"))
	version := e.opts.Defaults.BasisVersion
	if b.Agent != nil && b.Agent.Name == Name && b.Agent.Version != "" {
		version = b.Agent.Version
	}
	l.Str("basis", version)
	l.Str("session_id", cmp.Or(b.SessionID, e.opts.Defaults.SessionID))
	l.Str("workspace", cmp.Or(b.Workspace, e.opts.Defaults.Workspace))
	model, provider := e.model(b)
	l.Str("model", model)
	l.Str("provider", provider)
	var cf []event.ContextFile
	if b.ContextFiles != nil {
		cf = *b.ContextFiles
	}
	if l.Key("context_files") {
		appendList(l, cf, appendContextFile)
	}
	l.Strings("skills_dirs", b.SkillsDirs)
	optList(l, "skills", b.Skills, appendSkill)
	l.Strings("templates_dirs", b.CommandsDirs)
	optList(l, "templates", b.Commands, appendTemplate)
	optList(l, "mcp_files", b.MCPFiles, appendContextFile)
	l.Strings("mcp_servers", b.MCPServers)
	optList(l, "a2a_files", b.A2AFiles, appendContextFile)
	l.Strings("a2a_agents", b.A2AAgents)
}

// model returns the model and provider run_started names. Some dialects
// name a model with its provider ("anthropic/claude-x"); basis names them
// apart.
func (e *Encoder) model(b *event.SessionStarted) (model, provider string) {
	model, provider = cmp.Or(b.Model, e.opts.Defaults.Model), cmp.Or(b.Provider, e.opts.Defaults.Provider)
	if p, m, ok := strings.Cut(model, "/"); ok && provider == "" && p != "" && m != "" {
		provider, model = p, m
	}
	return model, provider
}

func (e *Encoder) userMessage(l *jsonobj.Writer, ev *event.Event) {
	b := ev.Body.(*event.UserMessage)
	l.Str("text", b.Text)
	l.OptUint("image_count", b.ImageCount)
}

func (e *Encoder) messageDelta(l *jsonobj.Writer, ev *event.Event) {
	b := ev.Body.(*event.MessageDelta)
	e.assistantText(l, b.Text, b.MessageID)
}

func (e *Encoder) reasoningDelta(l *jsonobj.Writer, ev *event.Event) {
	e.thought = true
	l.Str("text", ev.Body.(*event.ReasoningDelta).Text)
}

func (e *Encoder) message(l *jsonobj.Writer, ev *event.Event) {
	b := ev.Body.(*event.Message)
	e.assistantText(l, b.Text, b.MessageID)
}

// assistantText writes the text of an assistant message or delta, which
// basis writes without a message id.
func (e *Encoder) assistantText(l *jsonobj.Writer, text, messageID string) {
	if messageID != "" {
		e.opts.Losses.Add(lossMessageId)
	}
	e.texts = true
	l.Str("text", text)
}

func (e *Encoder) toolQueued(l *jsonobj.Writer, ev *event.Event) {
	b := ev.Body.(*event.ToolCall)
	l.Str("tool_call_id", b.CallID)
	if b.Name == "" {
		e.opts.Losses.Add(lossToolNameAtQueue)
	}
	l.Str("tool_name", e.toolName(b.CallID, b.Name))
	l.Str("summary", b.Title)
	mut := b.Mutability
	if mut == "" {
		mut = event.MutabilityUnknown
	}
	w, _ := wordOf(mutabilities, mut)
	l.Str("mutability", w)
	l.Raw("input", b.Input)
}

func (e *Encoder) toolStarted(l *jsonobj.Writer, ev *event.Event) {
	b := ev.Body.(*event.ToolStarted)
	l.Str("tool_call_id", b.CallID)
	l.Str("tool_name", e.toolName(b.CallID, b.Name))
}

func (e *Encoder) toolProgress(l *jsonobj.Writer, ev *event.Event) {
	b := ev.Body.(*event.ToolProgress)
	l.Str("tool_call_id", b.CallID)
	l.Str("tool_name", e.toolName(b.CallID, b.Name))
	l.Str("progress", b.Message)
}

// toolCompleted writes tool_completed, whose summary is all basis keeps of
// a call's result.
func (e *Encoder) toolCompleted(l *jsonobj.Writer, ev *event.Event) {
	b := ev.Body.(*event.ToolFinished)
	loss := e.opts.Losses
	if b.Output != nil || b.ExitCode != nil || b.Command != "" {
		loss.Add(lossToolOutput)
	}
	if len(b.Edit) > 0 {
		loss.Add(lossToolEdit)
	}
	if len(b.Web) > 0 {
		loss.Add(lossToolWeb)
	}
	l.Str("tool_call_id", b.CallID)
	l.Str("tool_name", e.toolName(b.CallID, b.Name))
	summary := ""
	switch {
	case b.Summary != nil:
		summary = *b.Summary
	case b.Error != "":
		summary = b.Error
	case b.Output != nil:
		summary, _, _ = strings.Cut(*b.Output, "\n") // the first line says what happened
	}
	l.Str("summary", summary)
	if b.Error != "" && b.Summary != nil {
		loss.Add(lossToolErrorDetail)
	}
	switch b.Status {
	case event.ToolSuccess, event.ToolError:
	default:
		loss.AddDetail(lossToolStatus, strconv.Quote(string(b.Status)))
	}
	l.Bool("is_error", b.Status != event.ToolSuccess)
}

func (e *Encoder) permissionRequested(l *jsonobj.Writer, ev *event.Event) {
	b := ev.Body.(*event.PermissionRequested)
	if b.Risk != "" {
		e.opts.Losses.Add(lossPermissionRisk)
	}
	id := b.RequestID
	if id == "" && !native(ev) {
		id = e.requestID(b.CallID)
		e.opts.Losses.Add(lossPermissionRequestId)
	}
	if !e.granted.Has(id) {
		e.reqs[strings.Clone(id)] = struct{}{}
	}
	l.Str("request_id", id)
	l.Str("tool_call_id", b.CallID)
	l.Str("tool_name", e.toolName(b.CallID, b.Tool))
	l.Str("description", b.Description)
	l.Raw("preview", b.Preview)
}

func (e *Encoder) permissionResolved(l *jsonobj.Writer, ev *event.Event) {
	b := ev.Body.(*event.PermissionResolved)
	id := b.RequestID
	if id == "" && !native(ev) {
		id = e.oldestPending(b.CallID)
	}
	e.resolve(b.CallID, id)
	l.Str("request_id", id)
	l.Str("tool_call_id", b.CallID)
	l.Str("tool_name", e.toolName(b.CallID, b.Tool))
	w, _ := wordOf(outcomes, b.Outcome)
	l.Str("outcome", w)
	l.OptStr("rule_scope", b.Scope)
}

func (e *Encoder) taskUpdated(l *jsonobj.Writer, ev *event.Event) {
	b := ev.Body.(*event.TaskUpdated)
	if b.Reason != "" || b.ParentTaskID != "" {
		e.opts.Losses.Add(lossTaskReasonParent)
	}
	l.Str("task_id", b.TaskID)
	kind, kindOK := basisTaskKind(b.Kind)
	status, statusOK := basisTaskStatus(b.Status)
	if !kindOK || !statusOK {
		e.opts.Losses.Add(lossTaskKindStatus)
	}
	l.Str("kind", kind)
	l.Str("status", status)
	title := b.Title
	if _, native := ev.Ext.Lookup(Name); !native && title == "" {
		title = string(b.Kind)
	}
	l.Str("title", title)
	l.OptStr("detail", b.Detail)
	e.noteTask(b.TaskID, kind, status, title)
}

func (e *Encoder) compactionStarted(l *jsonobj.Writer, ev *event.Event) {
	l.Str("agent_id", ev.AgentID)
}

func (e *Encoder) compactionCompleted(l *jsonobj.Writer, ev *event.Event) {
	b := ev.Body.(*event.CompactionFinished)
	l.Str("agent_id", ev.AgentID)
	l.Uint("replaced_items", wireint.Value(b.ReplacedItems))
	l.Uint("preserved_items", wireint.Value(b.PreservedItems))
	l.Uint("transcript_len", wireint.Value(b.TranscriptLen))
	l.Uint("extracted_facts", wireint.Value(b.ExtractedFacts))
	s := ""
	if b.SummaryPreview != nil {
		s = *b.SummaryPreview
	}
	l.Str("summary_preview", s)
}

func (e *Encoder) resultsElided(l *jsonobj.Writer, ev *event.Event) {
	b := ev.Body.(*event.ContextElided)
	l.Str("agent_id", ev.AgentID)
	l.Raw("policy", b.Policy)
	l.Uint("canonical_tool_result_content_bytes", wireint.Value(b.OriginalBytes))
	l.Uint("projected_tool_result_content_bytes", wireint.Value(b.ProjectedBytes))
	if l.Key("results") {
		appendList(l, b.Results, appendElided)
	}
}

func (e *Encoder) memoryUpdated(l *jsonobj.Writer, ev *event.Event) {
	l.Str("agent_id", ev.AgentID)
	l.Uint("stored_records", wireint.Value(ev.Body.(*event.MemoryUpdated).StoredRecords))
}

func (e *Encoder) usage(l *jsonobj.Writer, ev *event.Event) {
	b := ev.Body.(*event.Usage)
	l.Str("agent_id", ev.AgentID)
	l.Uint("input_tokens", wireint.Value(b.InputTokens))
	l.Uint("output_tokens", wireint.Value(b.OutputTokens))
	l.Uint("cache_read_tokens", wireint.Value(b.CacheReadTokens))
	l.Uint("cache_creation_tokens", wireint.Value(b.CacheCreationTokens))
	l.OptUint("reasoning_tokens", b.ReasoningTokens)
	l.OptUint("thoughts_tokens", b.ThoughtsTokens)
	if b.TotalTokens != nil {
		e.opts.Losses.Add(lossUsageTotal)
	}
}

func (e *Encoder) notice(l *jsonobj.Writer, ev *event.Event) {
	b := ev.Body.(*event.Notice)
	sev, ok := wordOf(severities, b.Severity)
	if !ok && b.Severity != "" {
		sev = "warning"
		e.opts.Losses.Add(lossNoticeSeverityError)
	}
	l.OptStr("severity", sev)
	l.Str("message", b.Message)
}

func (e *Encoder) retry(l *jsonobj.Writer, ev *event.Event) {
	b := ev.Body.(*event.Retry)
	l.Str("agent_id", ev.AgentID)
	l.Str("error", b.Error)
	l.Uint("attempt", e.fit32(wireint.Value(b.Attempt), "retry attempt"))
	l.Uint("max_attempts", e.fit32(wireint.Value(b.MaxAttempts), "retry attempt"))
	l.Uint("next_delay_ms", wireint.Value(b.NextDelayMS))
}

func (e *Encoder) errorLine(l *jsonobj.Writer, ev *event.Event) {
	b := ev.Body.(*event.Error)
	e.errors = append(e.errors, b.Message)
	l.Str("message", b.Message)
	rec := false
	if b.Recoverable != nil {
		rec = *b.Recoverable
	} else {
		e.opts.Losses.Add(lossErrorRecoverable)
	}
	l.Bool("recoverable", rec)
}

func (e *Encoder) branched(l *jsonobj.Writer, ev *event.Event) {
	b := ev.Body.(*event.Branched)
	l.Str("entry_id", b.EntryID)
	l.Uint("abandoned_entries", wireint.Value(b.AbandonedEntries))
}

// runFinished writes run_finished, whose outcome is ok or an error with a
// message, and counts what the run's end states beyond it.
func (e *Encoder) runFinished(l *jsonobj.Writer, ev *event.Event) {
	b := ev.Body.(*event.SessionFinished)
	e.auditFinish(b)
	status, message := string(b.Status), b.Message
	switch b.Status {
	case event.StatusOK, event.StatusError:
	default:
		status = "error"
		if message == "" {
			message = "cancelled"
		}
		e.opts.Losses.Add(lossRunStatusCancelled)
	}
	if status == "error" && message == "" && !l.Has("message") && !native(ev) {
		message = "the run failed"
		if b.Errors != nil && len(*b.Errors) > 0 {
			message = (*b.Errors)[len(*b.Errors)-1]
		}
		e.opts.Losses.Add(lossFinishMessage)
	}
	l.Str("status", status)
	l.OptStr("message", message)
	l.OptStr("stopped_by", string(b.StoppedBy))
	e.runUsage(l, b.Usage, native(ev))
	if b.Text != nil && *b.Text != "" && !e.texts {
		e.opts.Losses.Add(lossFinalAnswer)
	}
}

// auditFinish counts the facts of the run's end that run_finished has no
// field for and that no earlier line carried.
func (e *Encoder) auditFinish(b *event.SessionFinished) {
	loss := e.opts.Losses
	if b.Reasoning != nil && *b.Reasoning != "" && !e.thought {
		loss.Add(lossFinalReasoning)
	}
	if b.Errors != nil {
		for _, msg := range *b.Errors {
			if !slices.Contains(e.errors, msg) && msg != b.Message {
				loss.Add(lossRunError)
			}
		}
	}
	if len(b.StructuredOutput) > 0 {
		loss.Add(lossStructuredOutput)
	}
}

// runUsage writes run_finished's usage. RunUsage states its four token
// counts by kind always; a source that left one out gets 0 there (a basis
// line, asWritten, is written as it was). A usage that states only a total
// has nothing basis can write.
func (e *Encoder) runUsage(l *jsonobj.Writer, u *event.Usage, asWritten bool) {
	if u != nil && onlyTotal(u) && !l.Has("usage") {
		e.opts.Losses.Add(lossRunTokenTotal)
		u = nil
	}
	if (u == nil && !l.Has("usage")) || !l.Key("usage") {
		return
	}
	u2 := *u
	for _, c := range runUsageCounts[:statedCounts] {
		if p := c.count(&u2); *p == nil && !asWritten {
			*p = new(uint64)
			e.opts.Losses.Add(lossRunTokenCountUnstated)
		}
	}
	u = &u2
	f := true
	l.B = append(l.B, '{')
	for _, c := range runUsageCounts {
		if v := *c.count(u); v != nil {
			l.B = field(l.B, &f, c.key, *v, jsonenc.Uint)
		}
	}
	l.B = append(l.B, '}')
	if u.TotalTokens != nil {
		e.opts.Losses.Add(lossRunTokenTotal)
	}
}

// onlyTotal reports whether a usage states a token total and no count.
func onlyTotal(u *event.Usage) bool {
	return u.TotalTokens != nil && !slices.ContainsFunc(runUsageCounts, func(c usageCount) bool { return *c.count(u) != nil })
}

// toolName returns the name to write for a call: the event's own, else the
// one learned from an earlier event of the call.
func (e *Encoder) toolName(id, name string) string {
	if name != "" {
		if n, ok := e.names.Get(id); !ok || n.Name != name {
			if !e.done.Has(id) {
				e.names.Delete(id)
				e.names.Add(id, 0, name)
			}
		}
		return name
	}
	n, _ := e.names.Get(id)
	return n.Name
}

// nextSeq returns the source's own seq when the residue has one, so a
// round trip is faithful even to a stream with gaps or disorder, and
// otherwise the number after the last line written.
func (e *Encoder) nextSeq(l *jsonobj.Writer) uint64 {
	seq := e.seq + 1
	if !e.started {
		seq = 0
	}
	if raw, ok := l.Residue("seq"); ok {
		if n, err := strconv.ParseUint(raw, 10, 64); err == nil {
			seq = n
		}
	}
	e.seq, e.started = seq, true
	return seq
}

func (e *Encoder) writeRaw(raw []byte) error {
	if n := gjson.GetBytes(raw, "seq"); n.Type == gjson.Number {
		if s, err := strconv.ParseUint(n.Raw, 10, 64); err == nil {
			e.seq, e.started = s, true
		}
	}
	if _, err := e.w.Write(raw); err != nil {
		return err
	}
	return e.w.WriteByte('\n')
}

// fit32 caps a count at the largest u32 for a field basis types as u32,
// counting the loss.
func (e *Encoder) fit32(n uint64, kind string) uint64 {
	if n > u32.Max {
		e.opts.Losses.AddDetail(lossBeyondU32, kind)
		return u32.Max
	}
	return n
}

// optList writes the list field k when it has items or the residue has
// the key (an empty list the source wrote).
func optList[T any](l *jsonobj.Writer, k string, v []T, item func([]byte, T) []byte) {
	if (len(v) > 0 || l.Has(k)) && l.Key(k) {
		appendList(l, v, item)
	}
}

// appendList writes the items of v as a JSON array, each by item.
func appendList[T any](l *jsonobj.Writer, v []T, item func([]byte, T) []byte) {
	l.B = append(l.B, '[')
	for i, x := range v {
		if i > 0 {
			l.B = append(l.B, ',')
		}
		l.B = item(l.B, x)
	}
	l.B = append(l.B, ']')
}

// field appends the key k and a value, written by val, to an object whose
// members first tracks (see jsonenc.Key).
func field[T any](b []byte, first *bool, k string, v T, val func([]byte, T) []byte) []byte {
	return val(jsonenc.Key(b, first, k), v)
}

// The objects of basis's lists. Each writes its members in basis's
// declared order; a member basis skips when empty is written only when set.

func appendContextFile(b []byte, c event.ContextFile) []byte {
	f := true
	b = field(append(b, '{'), &f, "path", c.Path, jsonenc.String)
	b = field(b, &f, "scope", c.Scope, jsonenc.String)
	return append(b, '}')
}

func appendSkill(b []byte, s event.Skill) []byte {
	f := true
	b = field(append(b, '{'), &f, "name", s.Name, jsonenc.String)
	b = field(b, &f, "description", s.Description, jsonenc.String)
	return append(b, '}')
}

func appendTemplate(b []byte, c event.Command) []byte {
	f := true
	b = field(append(b, '{'), &f, "name", c.Name, jsonenc.String)
	b = field(b, &f, "description", c.Description, jsonenc.String)
	if c.Hint != "" {
		b = field(b, &f, "argument_hint", c.Hint, jsonenc.String)
	}
	return append(b, '}')
}

func appendElided(b []byte, r event.ElidedResult) []byte {
	f := true
	b = field(append(b, '{'), &f, "tool_call_id", r.CallID, jsonenc.String)
	if r.Name != "" {
		b = field(b, &f, "tool_name", r.Name, jsonenc.String)
	}
	b = field(b, &f, "is_error", r.IsError, jsonenc.Bool)
	b = field(b, &f, "canonical_content_kind", r.ContentKind, jsonenc.String)
	b = field(b, &f, "action", r.Action, jsonenc.String)
	b = field(b, &f, "canonical_content_bytes", r.OriginalBytes, jsonenc.Uint)
	b = field(b, &f, "projected_content_bytes", r.ProjectedBytes, jsonenc.Uint)
	return append(b, '}')
}
