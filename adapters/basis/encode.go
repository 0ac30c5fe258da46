package basis

import (
	"bufio"
	"encoding/json"
	"strconv"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/jsonenc"
	"github.com/tidwall/gjson"
)

// DefaultSchema is the basis schema version written when the source does
// not name one.
const DefaultSchema = 2

// Encoder writes canonical events as basis lines.
type Encoder struct {
	w       *bufio.Writer
	opts    dialect.EncodeOptions
	buf     []byte
	seq     uint64
	started bool // a line was written, so seq holds the last one
	ext     []extField
}

type extField struct {
	key  string
	raw  string
	used bool
}

// Encode implements dialect.Encoder.
func (e *Encoder) Encode(ev *event.Event) error {
	e.loadExt(ev)
	b := e.buf[:0]
	first := true
	var typ string
	switch body := ev.Body.(type) {
	case *event.Unknown:
		if body.Dialect == Name {
			return e.writeRaw(body.Raw)
		}
		e.opts.Losses.Drop("unknown "+body.Dialect+" events", "basis cannot carry another dialect's unknown lines")
		return nil
	case *event.TurnStarted:
		if !ev.Synthetic {
			e.opts.Losses.Drop("turn_started events", "basis has no turn events; a turn begins at its user_message")
		}
		return nil
	}
	typ, ok := basisType(ev.Body)
	if !ok {
		e.opts.Losses.Drop(string(ev.Type())+" events", "basis has no such event")
		return nil
	}
	seq := e.nextSeq()
	b = append(b, '{')
	b = jsonenc.Key(b, &first, "seq")
	b = jsonenc.Uint(b, seq)
	b = jsonenc.Key(b, &first, "type")
	b = jsonenc.String(b, typ)
	l := &lineWriter{b: b, ext: e.ext}
	switch body := ev.Body.(type) {
	case *event.SessionStarted:
		schema := uint64(DefaultSchema)
		if body.Source.Dialect == Name && body.Source.Version != nil {
			schema = *body.Source.Version
		}
		l.uint("schema", schema)
		version := e.opts.Defaults["basis_version"]
		if body.Agent != nil && body.Agent.Version != "" {
			version = body.Agent.Version
		}
		l.str("basis", version)
		l.str("session_id", body.SessionID)
		l.str("workspace", body.Workspace)
		l.str("model", body.Model)
		l.str("provider", body.Provider)
		var cf []event.ContextFile
		if body.ContextFiles != nil {
			cf = *body.ContextFiles
		}
		if l.key("context_files") {
			l.contextFiles(cf)
		}
		l.strings("skills_dirs", body.SkillsDirs)
		if len(body.Skills) > 0 || l.has("skills") {
			if l.key("skills") {
				l.b = append(l.b, '[')
				for i, s := range body.Skills {
					if i > 0 {
						l.b = append(l.b, ',')
					}
					f := true
					l.b = append(l.b, '{')
					l.b = jsonenc.Key(l.b, &f, "name")
					l.b = jsonenc.String(l.b, s.Name)
					l.b = jsonenc.Key(l.b, &f, "description")
					l.b = jsonenc.String(l.b, s.Description)
					l.b = append(l.b, '}')
				}
				l.b = append(l.b, ']')
			}
		}
		l.strings("templates_dirs", body.CommandsDirs)
		if len(body.Commands) > 0 || l.has("templates") {
			if l.key("templates") {
				l.b = append(l.b, '[')
				for i, c := range body.Commands {
					if i > 0 {
						l.b = append(l.b, ',')
					}
					f := true
					l.b = append(l.b, '{')
					l.b = jsonenc.Key(l.b, &f, "name")
					l.b = jsonenc.String(l.b, c.Name)
					l.b = jsonenc.Key(l.b, &f, "description")
					l.b = jsonenc.String(l.b, c.Description)
					if c.Hint != "" {
						l.b = jsonenc.Key(l.b, &f, "argument_hint")
						l.b = jsonenc.String(l.b, c.Hint)
					}
					l.b = append(l.b, '}')
				}
				l.b = append(l.b, ']')
			}
		}
		if len(body.MCPFiles) > 0 || l.has("mcp_files") {
			if l.key("mcp_files") {
				l.contextFiles(body.MCPFiles)
			}
		}
		l.strings("mcp_servers", body.MCPServers)
		if len(body.A2AFiles) > 0 || l.has("a2a_files") {
			if l.key("a2a_files") {
				l.contextFiles(body.A2AFiles)
			}
		}
		l.strings("a2a_agents", body.A2AAgents)
	case *event.UserMessage:
		l.str("text", body.Text)
		l.optUint("image_count", body.ImageCount)
	case *event.MessageDelta:
		l.str("text", body.Text)
	case *event.ReasoningDelta:
		l.str("text", body.Text)
	case *event.Message:
		l.str("text", body.Text)
	case *event.ToolCall:
		l.str("tool_call_id", body.CallID)
		l.str("tool_name", body.Name)
		l.str("summary", body.Title)
		mut := body.Mutability
		if mut == "" {
			mut = "unknown"
		}
		l.str("mutability", mut)
		l.raw("input", body.Input)
	case *event.ToolStarted:
		l.str("tool_call_id", body.CallID)
		l.str("tool_name", body.Name)
	case *event.ToolProgress:
		l.str("tool_call_id", body.CallID)
		l.str("tool_name", body.Name)
		l.str("progress", body.Message)
	case *event.ToolFinished:
		l.str("tool_call_id", body.CallID)
		l.str("tool_name", body.Name)
		summary := ""
		if body.Summary != nil {
			summary = *body.Summary
		} else if body.Error != "" {
			summary = body.Error
		}
		l.str("summary", summary)
		switch body.Status {
		case "success", "error":
		default:
			e.opts.Losses.Approximate("tool statuses "+strconv.Quote(body.Status), "basis says only is_error")
		}
		l.boolean("is_error", body.Status != "success")
	case *event.PermissionRequested:
		l.str("request_id", body.RequestID)
		l.str("tool_call_id", body.CallID)
		l.str("tool_name", body.Tool)
		l.str("description", body.Description)
		l.raw("preview", body.Preview)
	case *event.PermissionResolved:
		l.str("request_id", body.RequestID)
		l.str("tool_call_id", body.CallID)
		l.str("tool_name", body.Tool)
		l.str("outcome", body.Outcome)
		l.optStr("rule_scope", body.Scope)
	case *event.TaskUpdated:
		l.str("task_id", body.TaskID)
		l.str("kind", body.Kind)
		l.str("status", body.Status)
		l.str("title", body.Title)
		l.optStr("detail", body.Detail)
	case *event.CompactionStarted:
		l.str("agent_id", ev.AgentID)
	case *event.CompactionFinished:
		l.str("agent_id", ev.AgentID)
		l.uint("replaced_items", val(body.ReplacedItems))
		l.uint("preserved_items", val(body.PreservedItems))
		l.uint("transcript_len", val(body.TranscriptLen))
		l.uint("extracted_facts", val(body.ExtractedFacts))
		s := ""
		if body.SummaryPreview != nil {
			s = *body.SummaryPreview
		}
		l.str("summary_preview", s)
	case *event.ContextElided:
		l.str("agent_id", ev.AgentID)
		l.raw("policy", body.Policy)
		l.uint("canonical_tool_result_content_bytes", val(body.OriginalBytes))
		l.uint("projected_tool_result_content_bytes", val(body.ProjectedBytes))
		if l.key("results") {
			l.b = append(l.b, '[')
			for i, r := range body.Results {
				if i > 0 {
					l.b = append(l.b, ',')
				}
				f := true
				l.b = append(l.b, '{')
				l.b = jsonenc.Key(l.b, &f, "tool_call_id")
				l.b = jsonenc.String(l.b, r.CallID)
				if r.Name != "" {
					l.b = jsonenc.Key(l.b, &f, "tool_name")
					l.b = jsonenc.String(l.b, r.Name)
				}
				l.b = jsonenc.Key(l.b, &f, "is_error")
				l.b = jsonenc.Bool(l.b, r.IsError)
				l.b = jsonenc.Key(l.b, &f, "canonical_content_kind")
				l.b = jsonenc.String(l.b, r.ContentKind)
				l.b = jsonenc.Key(l.b, &f, "action")
				l.b = jsonenc.String(l.b, r.Action)
				l.b = jsonenc.Key(l.b, &f, "canonical_content_bytes")
				l.b = jsonenc.Uint(l.b, r.OriginalBytes)
				l.b = jsonenc.Key(l.b, &f, "projected_content_bytes")
				l.b = jsonenc.Uint(l.b, r.ProjectedBytes)
				l.b = append(l.b, '}')
			}
			l.b = append(l.b, ']')
		}
	case *event.MemoryUpdated:
		l.str("agent_id", ev.AgentID)
		l.uint("stored_records", val(body.StoredRecords))
	case *event.Usage:
		l.str("agent_id", ev.AgentID)
		l.uint("input_tokens", val(body.InputTokens))
		l.uint("output_tokens", val(body.OutputTokens))
		l.uint("cache_read_tokens", val(body.CacheReadTokens))
		l.uint("cache_creation_tokens", val(body.CacheCreationTokens))
		l.optUint("reasoning_tokens", body.ReasoningTokens)
		l.optUint("thoughts_tokens", body.ThoughtsTokens)
		if body.TotalTokens != nil {
			e.opts.Losses.Drop("usage totals", "basis usage has no total_tokens")
		}
	case *event.Notice:
		l.optStr("severity", body.Severity)
		l.str("message", body.Message)
	case *event.Retry:
		l.str("agent_id", ev.AgentID)
		l.str("error", body.Error)
		l.uint("attempt", val(body.Attempt))
		l.uint("max_attempts", val(body.MaxAttempts))
		l.uint("next_delay_ms", val(body.NextDelayMS))
	case *event.Error:
		l.str("message", body.Message)
		rec := false
		if body.Recoverable != nil {
			rec = *body.Recoverable
		}
		l.boolean("recoverable", rec)
	case *event.Branched:
		l.str("entry_id", body.EntryID)
		l.uint("abandoned_entries", val(body.AbandonedEntries))
	case *event.SessionFinished:
		l.str("status", body.Status)
		l.optStr("message", body.Message)
		l.optStr("stopped_by", body.StoppedBy)
		if body.Usage != nil || l.has("usage") {
			if l.key("usage") {
				u := body.Usage
				f := true
				l.b = append(l.b, '{')
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
						l.b = jsonenc.Key(l.b, &f, p.k)
						l.b = jsonenc.Uint(l.b, *p.v)
					}
				}
				l.b = append(l.b, '}')
			}
		}
	}
	// Residue the canonical model had no place for, in input order.
	for i := range l.ext {
		if f := &l.ext[i]; !f.used && f.key != "seq" {
			l.b = append(l.b, ',')
			l.b = jsonenc.String(l.b, f.key)
			l.b = append(l.b, ':')
			l.b = append(l.b, f.raw...)
		}
	}
	l.b = append(l.b, '}', '\n')
	e.buf = l.b
	_, err := e.w.Write(l.b)
	return err
}

// Close implements dialect.Encoder.
func (e *Encoder) Close() error { return nil }

// nextSeq returns the source's own seq when the residue has one, so a
// round trip is faithful even to a stream with gaps or disorder, and
// otherwise the number after the last line written.
func (e *Encoder) nextSeq() uint64 {
	seq := e.seq + 1
	if !e.started {
		seq = 0
	}
	for _, f := range e.ext {
		if f.key == "seq" {
			if n, err := strconv.ParseUint(f.raw, 10, 64); err == nil {
				seq = n
			}
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

func (e *Encoder) loadExt(ev *event.Event) {
	e.ext = e.ext[:0]
	raw, ok := ev.Ext[Name]
	if !ok {
		return
	}
	gjson.ParseBytes(raw).ForEach(func(k, v gjson.Result) bool {
		e.ext = append(e.ext, extField{key: k.Str, raw: v.Raw})
		return true
	})
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

func val(p *uint64) uint64 {
	if p == nil {
		return 0
	}
	return *p
}

// lineWriter appends the fields of one line. A known key that has an entry
// in the residue is written from the residue, verbatim: that is how values
// the canonical model holds only approximately come back exactly.
type lineWriter struct {
	b   []byte
	ext []extField
}

func (l *lineWriter) has(k string) bool {
	for _, f := range l.ext {
		if f.key == k {
			return true
		}
	}
	return false
}

// key writes the key and reports whether the caller must write the value.
func (l *lineWriter) key(k string) bool {
	l.b = append(l.b, ',')
	l.b = jsonenc.String(l.b, k)
	l.b = append(l.b, ':')
	for i := range l.ext {
		if f := &l.ext[i]; f.key == k {
			f.used = true
			l.b = append(l.b, f.raw...)
			return false
		}
	}
	return true
}

func (l *lineWriter) str(k, v string) {
	if l.key(k) {
		l.b = jsonenc.String(l.b, v)
	}
}

func (l *lineWriter) optStr(k, v string) {
	if v != "" || l.has(k) {
		l.str(k, v)
	}
}

func (l *lineWriter) uint(k string, v uint64) {
	if l.key(k) {
		l.b = jsonenc.Uint(l.b, v)
	}
}

func (l *lineWriter) optUint(k string, v *uint64) {
	if v != nil {
		l.uint(k, *v)
	} else if l.has(k) {
		l.key(k)
	}
}

func (l *lineWriter) boolean(k string, v bool) {
	if l.key(k) {
		l.b = jsonenc.Bool(l.b, v)
	}
}

func (l *lineWriter) raw(k string, v json.RawMessage) {
	if l.key(k) {
		if len(v) == 0 {
			l.b = append(l.b, "null"...)
		} else {
			l.b = append(l.b, v...)
		}
	}
}

func (l *lineWriter) strings(k string, v []string) {
	if len(v) == 0 && !l.has(k) {
		return
	}
	if l.key(k) {
		l.b = append(l.b, '[')
		for i, s := range v {
			if i > 0 {
				l.b = append(l.b, ',')
			}
			l.b = jsonenc.String(l.b, s)
		}
		l.b = append(l.b, ']')
	}
}

func (l *lineWriter) contextFiles(v []event.ContextFile) {
	l.b = append(l.b, '[')
	for i, c := range v {
		if i > 0 {
			l.b = append(l.b, ',')
		}
		f := true
		l.b = append(l.b, '{')
		l.b = jsonenc.Key(l.b, &f, "path")
		l.b = jsonenc.String(l.b, c.Path)
		l.b = jsonenc.Key(l.b, &f, "scope")
		l.b = jsonenc.String(l.b, c.Scope)
		l.b = append(l.b, '}')
	}
	l.b = append(l.b, ']')
}
