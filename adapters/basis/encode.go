package basis

import (
	"bufio"
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/jsonenc"
	"github.com/evtool/evtool/internal/jsonobj"
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
	started bool                // a line was written, so seq holds the last one
	names   map[string]string   // call id → tool name, for lines that lack it
	texts   bool                // assistant text was written
	thought bool                // reasoning was written
	errors  []string            // error messages written
	header  bool                // run_started was written
	ended   bool                // run_finished was written
	calls   map[string]*call    // tool calls by id
	order   []string            // tool call ids in queue order
	reqs    map[string]bool     // permission request ids written → resolved
	pending map[string][]string // call id → the requests written for it without an id of their own
	tasks   map[string]*task    // tasks by id, for the ones the run leaves open
	taskIDs []string
}

// call is what the encoder wrote of one tool call.
type call struct {
	name               string
	started, completed bool
}

// task is the last state the encoder wrote of one task.
type task struct {
	kind, status, title string
}

// audit counts the canonical facts of ev that no basis field carries.
func (e *Encoder) audit(ev *event.Event) {
	loss := e.opts.Losses
	switch b := ev.Body.(type) {
	case *event.SessionStarted:
		if b.TaskID != "" {
			loss.Add(lossSessionTaskId)
		}
		if b.Agent != nil && b.Agent.Name != Name && b.Agent.Version != "" {
			loss.Add(lossProducerVersion)
		}
	case *event.SessionFinished:
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
	case *event.MessageDelta:
		if b.MessageID != "" {
			loss.Add(lossMessageId)
		}
	case *event.Message:
		if b.MessageID != "" {
			loss.Add(lossMessageId)
		}
	case *event.ReasoningDelta:
		e.thought = true
	case *event.ToolFinished:
		if b.Output != nil || b.ExitCode != nil || b.Command != "" {
			loss.Add(lossToolOutput)
		}
		if len(b.Edit) > 0 {
			loss.Add(lossToolEdit)
		}
		if len(b.Web) > 0 {
			loss.Add(lossToolWeb)
		}
	case *event.PermissionRequested:
		if b.Risk != "" {
			loss.Add(lossPermissionRisk)
		}
	case *event.TaskUpdated:
		if b.Reason != "" || b.ParentTaskID != "" {
			loss.Add(lossTaskReasonParent)
		}
	}
}

// toolName returns the name to write for a call: the event's own, else the
// one learned from an earlier event of the call.
func (e *Encoder) toolName(id, name string) string {
	if e.names == nil {
		e.names = map[string]string{}
	}
	if name != "" {
		e.names[id] = name
		return name
	}
	return e.names[id]
}

// Encode implements dialect.Encoder.
func (e *Encoder) Encode(ev *event.Event) error {
	e.init()
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
	typ, ok := basisType(ev.Body)
	if !ok {
		e.opts.Losses.AddDetail(lossNoSuchEvent, string(ev.Type()))
		return nil
	}
	if skip, err := e.repair(ev); skip || err != nil {
		return err
	}
	e.track(ev)
	e.opts.Losses.Foreign(ev.Ext, Name)
	e.audit(ev)
	if ev.Synthetic {
		e.opts.Losses.AddDetail(lossSynthesizedLine, typ)
	}
	l := &e.l
	l.Begin(ev.Ext.Get(Name))
	l.Uint("seq", e.nextSeq(l))
	l.Str("type", typ)
	switch body := ev.Body.(type) {
	case *event.SessionStarted:
		schema := uint64(DefaultSchema)
		if body.Source.Dialect == Name && body.Source.Version != nil {
			schema = *body.Source.Version
		}
		l.Uint("schema", e.fit32(schema, "schema version"))
		version := e.opts.Defaults["basis_version"]
		if body.Agent != nil && body.Agent.Name == Name && body.Agent.Version != "" {
			version = body.Agent.Version
		}
		l.Str("basis", version)
		l.Str("session_id", cmp.Or(body.SessionID, e.opts.Defaults["session_id"]))
		l.Str("workspace", cmp.Or(body.Workspace, e.opts.Defaults["workspace"]))
		model, provider := cmp.Or(body.Model, e.opts.Defaults["model"]), cmp.Or(body.Provider, e.opts.Defaults["provider"])
		// Some dialects name a model with its provider ("anthropic/claude-x");
		// basis names them apart.
		if p, m, ok := strings.Cut(model, "/"); ok && provider == "" && p != "" && m != "" {
			provider, model = p, m
		}
		l.Str("model", model)
		l.Str("provider", provider)
		var cf []event.ContextFile
		if body.ContextFiles != nil {
			cf = *body.ContextFiles
		}
		if l.Key("context_files") {
			appendContextFiles(l, cf)
		}
		l.Strings("skills_dirs", body.SkillsDirs)
		if (len(body.Skills) > 0 || l.Has("skills")) && l.Key("skills") {
			l.B = append(l.B, '[')
			for i, s := range body.Skills {
				if i > 0 {
					l.B = append(l.B, ',')
				}
				f := true
				l.B = append(l.B, '{')
				l.B = jsonenc.Key(l.B, &f, "name")
				l.B = jsonenc.String(l.B, s.Name)
				l.B = jsonenc.Key(l.B, &f, "description")
				l.B = jsonenc.String(l.B, s.Description)
				l.B = append(l.B, '}')
			}
			l.B = append(l.B, ']')
		}
		l.Strings("templates_dirs", body.CommandsDirs)
		if (len(body.Commands) > 0 || l.Has("templates")) && l.Key("templates") {
			l.B = append(l.B, '[')
			for i, c := range body.Commands {
				if i > 0 {
					l.B = append(l.B, ',')
				}
				f := true
				l.B = append(l.B, '{')
				l.B = jsonenc.Key(l.B, &f, "name")
				l.B = jsonenc.String(l.B, c.Name)
				l.B = jsonenc.Key(l.B, &f, "description")
				l.B = jsonenc.String(l.B, c.Description)
				if c.Hint != "" {
					l.B = jsonenc.Key(l.B, &f, "argument_hint")
					l.B = jsonenc.String(l.B, c.Hint)
				}
				l.B = append(l.B, '}')
			}
			l.B = append(l.B, ']')
		}
		if (len(body.MCPFiles) > 0 || l.Has("mcp_files")) && l.Key("mcp_files") {
			appendContextFiles(l, body.MCPFiles)
		}
		l.Strings("mcp_servers", body.MCPServers)
		if (len(body.A2AFiles) > 0 || l.Has("a2a_files")) && l.Key("a2a_files") {
			appendContextFiles(l, body.A2AFiles)
		}
		l.Strings("a2a_agents", body.A2AAgents)
	case *event.UserMessage:
		l.Str("text", body.Text)
		l.OptUint("image_count", body.ImageCount)
	case *event.MessageDelta:
		e.texts = true
		l.Str("text", body.Text)
	case *event.ReasoningDelta:
		l.Str("text", body.Text)
	case *event.Message:
		e.texts = true
		l.Str("text", body.Text)
	case *event.ToolCall:
		l.Str("tool_call_id", body.CallID)
		if body.Name == "" {
			e.opts.Losses.Add(lossToolNameAtQueue)
		}
		l.Str("tool_name", e.toolName(body.CallID, body.Name))
		l.Str("summary", body.Title)
		mut := body.Mutability
		if mut == "" {
			mut = event.MutabilityUnknown
		}
		w, _ := wordOf(mutabilities, mut)
		l.Str("mutability", w)
		l.Raw("input", body.Input)
	case *event.ToolStarted:
		l.Str("tool_call_id", body.CallID)
		l.Str("tool_name", e.toolName(body.CallID, body.Name))
	case *event.ToolProgress:
		l.Str("tool_call_id", body.CallID)
		l.Str("tool_name", e.toolName(body.CallID, body.Name))
		l.Str("progress", body.Message)
	case *event.ToolFinished:
		l.Str("tool_call_id", body.CallID)
		l.Str("tool_name", e.toolName(body.CallID, body.Name))
		summary := ""
		switch {
		case body.Summary != nil:
			summary = *body.Summary
		case body.Error != "":
			summary = body.Error
		case body.Output != nil:
			summary, _, _ = strings.Cut(*body.Output, "\n") // the first line says what happened
		}
		l.Str("summary", summary)
		if body.Error != "" && body.Summary != nil {
			e.opts.Losses.Add(lossToolErrorDetail)
		}
		switch body.Status {
		case event.ToolSuccess, event.ToolError:
		default:
			e.opts.Losses.AddDetail(lossToolStatus, strconv.Quote(string(body.Status)))
		}
		l.Bool("is_error", body.Status != event.ToolSuccess)
	case *event.PermissionRequested:
		id := body.RequestID
		if id == "" && !native(ev) {
			id = e.requestID(body.CallID)
			e.opts.Losses.Add(lossPermissionRequestId)
		}
		e.reqs[id] = false
		l.Str("request_id", id)
		l.Str("tool_call_id", body.CallID)
		l.Str("tool_name", e.toolName(body.CallID, body.Tool))
		l.Str("description", body.Description)
		l.Raw("preview", body.Preview)
	case *event.PermissionResolved:
		id := body.RequestID
		if id == "" && !native(ev) {
			id = e.oldestPending(body.CallID)
		}
		e.reqs[id] = true
		l.Str("request_id", id)
		l.Str("tool_call_id", body.CallID)
		l.Str("tool_name", e.toolName(body.CallID, body.Tool))
		w, _ := wordOf(outcomes, body.Outcome)
		l.Str("outcome", w)
		l.OptStr("rule_scope", body.Scope)
	case *event.TaskUpdated:
		l.Str("task_id", body.TaskID)
		kind, kindOK := basisTaskKind(body.Kind)
		status, statusOK := basisTaskStatus(body.Status)
		if !kindOK || !statusOK {
			e.opts.Losses.Add(lossTaskKindStatus)
		}
		l.Str("kind", kind)
		l.Str("status", status)
		title := body.Title
		if _, native := ev.Ext.Lookup(Name); !native && title == "" {
			title = string(body.Kind)
		}
		l.Str("title", title)
		l.OptStr("detail", body.Detail)
		e.noteTask(body.TaskID, kind, status, title)
	case *event.CompactionStarted:
		l.Str("agent_id", ev.AgentID)
	case *event.CompactionFinished:
		l.Str("agent_id", ev.AgentID)
		l.Uint("replaced_items", val(body.ReplacedItems))
		l.Uint("preserved_items", val(body.PreservedItems))
		l.Uint("transcript_len", val(body.TranscriptLen))
		l.Uint("extracted_facts", val(body.ExtractedFacts))
		s := ""
		if body.SummaryPreview != nil {
			s = *body.SummaryPreview
		}
		l.Str("summary_preview", s)
	case *event.ContextElided:
		l.Str("agent_id", ev.AgentID)
		l.Raw("policy", body.Policy)
		l.Uint("canonical_tool_result_content_bytes", val(body.OriginalBytes))
		l.Uint("projected_tool_result_content_bytes", val(body.ProjectedBytes))
		if l.Key("results") {
			l.B = append(l.B, '[')
			for i, r := range body.Results {
				if i > 0 {
					l.B = append(l.B, ',')
				}
				f := true
				l.B = append(l.B, '{')
				l.B = jsonenc.Key(l.B, &f, "tool_call_id")
				l.B = jsonenc.String(l.B, r.CallID)
				if r.Name != "" {
					l.B = jsonenc.Key(l.B, &f, "tool_name")
					l.B = jsonenc.String(l.B, r.Name)
				}
				l.B = jsonenc.Key(l.B, &f, "is_error")
				l.B = jsonenc.Bool(l.B, r.IsError)
				l.B = jsonenc.Key(l.B, &f, "canonical_content_kind")
				l.B = jsonenc.String(l.B, r.ContentKind)
				l.B = jsonenc.Key(l.B, &f, "action")
				l.B = jsonenc.String(l.B, r.Action)
				l.B = jsonenc.Key(l.B, &f, "canonical_content_bytes")
				l.B = jsonenc.Uint(l.B, r.OriginalBytes)
				l.B = jsonenc.Key(l.B, &f, "projected_content_bytes")
				l.B = jsonenc.Uint(l.B, r.ProjectedBytes)
				l.B = append(l.B, '}')
			}
			l.B = append(l.B, ']')
		}
	case *event.MemoryUpdated:
		l.Str("agent_id", ev.AgentID)
		l.Uint("stored_records", val(body.StoredRecords))
	case *event.Usage:
		l.Str("agent_id", ev.AgentID)
		l.Uint("input_tokens", val(body.InputTokens))
		l.Uint("output_tokens", val(body.OutputTokens))
		l.Uint("cache_read_tokens", val(body.CacheReadTokens))
		l.Uint("cache_creation_tokens", val(body.CacheCreationTokens))
		l.OptUint("reasoning_tokens", body.ReasoningTokens)
		l.OptUint("thoughts_tokens", body.ThoughtsTokens)
		if body.TotalTokens != nil {
			e.opts.Losses.Add(lossUsageTotal)
		}
	case *event.Notice:
		sev, ok := wordOf(severities, body.Severity)
		if !ok && body.Severity != "" {
			sev = "warning"
			e.opts.Losses.Add(lossNoticeSeverityError)
		}
		l.OptStr("severity", sev)
		l.Str("message", body.Message)
	case *event.Retry:
		l.Str("agent_id", ev.AgentID)
		l.Str("error", body.Error)
		l.Uint("attempt", e.fit32(val(body.Attempt), "retry attempt"))
		l.Uint("max_attempts", e.fit32(val(body.MaxAttempts), "retry attempt"))
		l.Uint("next_delay_ms", val(body.NextDelayMS))
	case *event.Error:
		e.errors = append(e.errors, body.Message)
		l.Str("message", body.Message)
		if body.Recoverable == nil {
			e.opts.Losses.Add(lossErrorRecoverable)
		}
		rec := false
		if body.Recoverable != nil {
			rec = *body.Recoverable
		}
		l.Bool("recoverable", rec)
	case *event.Branched:
		l.Str("entry_id", body.EntryID)
		l.Uint("abandoned_entries", val(body.AbandonedEntries))
	case *event.SessionFinished:
		status, message := string(body.Status), body.Message
		switch body.Status {
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
			if body.Errors != nil && len(*body.Errors) > 0 {
				message = (*body.Errors)[len(*body.Errors)-1]
			}
			e.opts.Losses.Add(lossFinishMessage)
		}
		l.Str("status", status)
		l.OptStr("message", message)
		l.OptStr("stopped_by", string(body.StoppedBy))
		u := body.Usage
		// A usage that states only a total has nothing basis can write.
		if u != nil && u.TotalTokens != nil && u.InputTokens == nil && u.OutputTokens == nil && u.CacheReadTokens == nil &&
			u.CacheCreationTokens == nil && u.ReasoningTokens == nil && u.ThoughtsTokens == nil && u.ModelResponses == nil && !l.Has("usage") {
			e.opts.Losses.Add(lossRunTokenTotal)
			u = nil
		}
		if (u != nil || l.Has("usage")) && l.Key("usage") {
			// RunUsage states its four token counts by kind always; a
			// source that left one out gets 0 there (a basis line is written
			// as it was).
			u2 := *u
			for _, p := range []**uint64{&u2.InputTokens, &u2.OutputTokens, &u2.CacheReadTokens, &u2.CacheCreationTokens} {
				if *p == nil && !native(ev) {
					*p = new(uint64)
					e.opts.Losses.Add(lossRunTokenCountUnstated)
				}
			}
			u = &u2
			f := true
			l.B = append(l.B, '{')
			for _, p := range []struct {
				k string
				v *uint64
			}{
				{"input_tokens", u.InputTokens}, {"output_tokens", u.OutputTokens},
				{"cache_read_tokens", u.CacheReadTokens}, {"cache_creation_tokens", u.CacheCreationTokens},
				{"reasoning_tokens", u.ReasoningTokens}, {"thoughts_tokens", u.ThoughtsTokens},
				{"model_responses", u.ModelResponses},
			} {
				if p.v != nil {
					l.B = jsonenc.Key(l.B, &f, p.k)
					l.B = jsonenc.Uint(l.B, *p.v)
				}
			}
			l.B = append(l.B, '}')
			if u.TotalTokens != nil {
				e.opts.Losses.Add(lossRunTokenTotal)
			}
		}
		if body.Text != nil && *body.Text != "" && !e.texts {
			e.opts.Losses.Add(lossFinalAnswer)
		}
	}
	out := l.End()
	if seps := separatorsOf(ev.Ext.Get(Name)); seps != "" {
		out, _ = respell(out, seps)
	}
	_, err := e.w.Write(out)
	return err
}

// Close implements dialect.Encoder.
func (e *Encoder) Close() error { return nil }

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

func basisType(b event.Body) (string, bool) {
	switch b.(type) {
	case *event.SessionStarted:
		return "run_started", true
	case *event.UserMessage:
		return "user_message", true
	case *event.MessageDelta:
		return "assistant_delta", true
	case *event.ReasoningDelta:
		return "assistant_reasoning_delta", true
	case *event.Message:
		return "assistant_message", true
	case *event.ToolCall:
		return "tool_queued", true
	case *event.ToolStarted:
		return "tool_started", true
	case *event.ToolProgress:
		return "tool_progress", true
	case *event.ToolFinished:
		return "tool_completed", true
	case *event.PermissionRequested:
		return "permission_requested", true
	case *event.PermissionResolved:
		return "permission_resolved", true
	case *event.TaskUpdated:
		return "task_updated", true
	case *event.CompactionStarted:
		return "compaction_started", true
	case *event.CompactionFinished:
		return "compaction_completed", true
	case *event.ContextElided:
		return "request_tool_results_elided", true
	case *event.MemoryUpdated:
		return "memory_updated", true
	case *event.Usage:
		return "usage", true
	case *event.Notice:
		return "notice", true
	case *event.Retry:
		return "retry", true
	case *event.Error:
		return "error", true
	case *event.Branched:
		return "branched", true
	case *event.SessionFinished:
		return "run_finished", true
	}
	return "", false
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

func val(p *uint64) uint64 {
	if p == nil {
		return 0
	}
	return *p
}

func appendContextFiles(l *jsonobj.Writer, v []event.ContextFile) {
	l.B = append(l.B, '[')
	for i, c := range v {
		if i > 0 {
			l.B = append(l.B, ',')
		}
		f := true
		l.B = append(l.B, '{')
		l.B = jsonenc.Key(l.B, &f, "path")
		l.B = jsonenc.String(l.B, c.Path)
		l.B = jsonenc.Key(l.B, &f, "scope")
		l.B = jsonenc.String(l.B, c.Scope)
		l.B = append(l.B, '}')
	}
	l.B = append(l.B, ']')
}
