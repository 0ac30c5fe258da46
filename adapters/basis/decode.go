package basis

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/jsonenc"
	"github.com/tidwall/gjson"
)

// Decoder reads basis lines into canonical events. It synthesises a
// turn_started before each user_message, since basis has no turn events.
type Decoder struct {
	opts  dialect.DecodeOptions
	turns int
	turn  string
	o     object
}

// A DecodeError is a known basis field with a value canonical cannot hold.
type DecodeError struct {
	Pointer string
	Msg     string
}

func (e *DecodeError) Error() string { return e.Pointer + ": " + e.Msg }

// Decode implements dialect.Decoder.
func (d *Decoder) Decode(out []*event.Event, line []byte, n int) ([]*event.Event, error) {
	root := gjson.ParseBytes(line)
	if !root.IsObject() {
		return out, &DecodeError{Msg: "a basis line must be a JSON object"}
	}
	o := &d.o
	o.reset(root)
	typ, _ := o.str("type")
	if o.err != nil {
		return out, o.err
	}
	if typ == "" {
		return out, &DecodeError{Pointer: "/type", Msg: "missing event type"}
	}
	if _, ok := fields[typ]; !ok {
		ev := &event.Event{Body: &event.Unknown{Dialect: Name, SourceType: typ, Raw: cloneRaw(line)}}
		d.finish(ev, typ, n)
		return append(out, ev), nil
	}
	ext := newResidue()
	if v, ok := o.get("seq"); ok {
		if s, err := strconv.ParseUint(v.Raw, 10, 64); err == nil && v.Type == gjson.Number {
			ext.add("seq", []byte(v.Raw))
			_ = s
		} else {
			return out, &DecodeError{Pointer: "/seq", Msg: "must be a non-negative integer"}
		}
	}
	for i, k := range o.keys {
		if !knownField(typ, k) {
			ext.add(k, []byte(o.vals[i].Raw))
		}
	}
	ev := &event.Event{}
	var pre *event.Event
	switch typ {
	case "run_started":
		s := &event.SessionStarted{Schema: event.SchemaVersion, Source: event.SourceInfo{Dialect: Name}}
		s.Source.Version = o.u64("schema")
		if v, ok := o.str("basis"); ok {
			s.Agent = &event.Agent{Name: Name, Version: v}
		}
		s.SessionID, _ = o.str("session_id")
		s.Workspace, _ = o.str("workspace")
		s.Model, _ = o.str("model")
		s.Provider, _ = o.str("provider")
		if v, ok := o.get("context_files"); ok {
			cf := o.contextFiles("context_files", v, ext)
			s.ContextFiles = &cf
		}
		s.SkillsDirs = o.strings("skills_dirs", ext)
		s.Skills = o.skills(ext)
		s.CommandsDirs = o.strings("templates_dirs", ext)
		s.Commands = o.templates(ext)
		if v, ok := o.get("mcp_files"); ok {
			s.MCPFiles = o.contextFiles("mcp_files", v, ext)
			o.keepEmpty("mcp_files", len(s.MCPFiles) == 0, ext)
		}
		s.MCPServers = o.strings("mcp_servers", ext)
		if v, ok := o.get("a2a_files"); ok {
			s.A2AFiles = o.contextFiles("a2a_files", v, ext)
			o.keepEmpty("a2a_files", len(s.A2AFiles) == 0, ext)
		}
		s.A2AAgents = o.strings("a2a_agents", ext)
		ev.Body = s
	case "user_message":
		text, _ := o.str("text")
		d.turns++
		d.turn = "turn-" + strconv.Itoa(d.turns)
		pre = &event.Event{Synthetic: true, TurnID: d.turn, Body: &event.TurnStarted{Prompt: &text}}
		ev.Body = &event.UserMessage{Text: text, ImageCount: o.u64("image_count")}
	case "assistant_delta":
		text, _ := o.str("text")
		ev.Body = &event.MessageDelta{Text: text}
	case "assistant_reasoning_delta":
		text, _ := o.str("text")
		ev.Body = &event.ReasoningDelta{Text: text}
	case "assistant_message":
		text, _ := o.str("text")
		ev.Body = &event.Message{Text: text}
	case "tool_queued":
		b := &event.ToolCall{}
		b.CallID, _ = o.str("tool_call_id")
		b.Name, _ = o.str("tool_name")
		b.Title, _ = o.str("summary")
		b.Mutability, _ = o.str("mutability")
		b.Input = o.raw("input")
		b.Kind = ToolKind(b.Name, b.Mutability, b.Input)
		ev.Body = b
	case "tool_started":
		b := &event.ToolStarted{}
		b.CallID, _ = o.str("tool_call_id")
		b.Name, _ = o.str("tool_name")
		ev.Body = b
	case "tool_progress":
		b := &event.ToolProgress{}
		b.CallID, _ = o.str("tool_call_id")
		b.Name, _ = o.str("tool_name")
		b.Message, _ = o.str("progress")
		ev.Body = b
	case "tool_completed":
		b := &event.ToolFinished{Status: "success"}
		b.CallID, _ = o.str("tool_call_id")
		b.Name, _ = o.str("tool_name")
		if s, ok := o.str("summary"); ok {
			b.Summary = &s
		}
		if e := o.boolean("is_error"); e != nil && *e {
			b.Status = "error"
		}
		ev.Body = b
	case "permission_requested":
		b := &event.PermissionRequested{}
		b.RequestID, _ = o.str("request_id")
		b.CallID, _ = o.str("tool_call_id")
		b.Tool, _ = o.str("tool_name")
		b.Description, _ = o.str("description")
		b.Preview = o.raw("preview")
		ev.Body = b
	case "permission_resolved":
		b := &event.PermissionResolved{}
		b.RequestID, _ = o.str("request_id")
		b.CallID, _ = o.str("tool_call_id")
		b.Tool, _ = o.str("tool_name")
		b.Outcome, _ = o.str("outcome")
		b.Scope = o.optStr("rule_scope", ext)
		ev.Body = b
	case "task_updated":
		b := &event.TaskUpdated{}
		b.TaskID, _ = o.str("task_id")
		b.Kind, _ = o.str("kind")
		b.Status, _ = o.str("status")
		b.Title, _ = o.str("title")
		b.Detail = o.optStr("detail", ext)
		ev.Body = b
	case "compaction_started":
		ev.AgentID, _ = o.str("agent_id")
		ev.Body = &event.CompactionStarted{}
	case "compaction_completed":
		ev.AgentID, _ = o.str("agent_id")
		b := &event.CompactionFinished{
			ReplacedItems:  o.u64("replaced_items"),
			PreservedItems: o.u64("preserved_items"),
			TranscriptLen:  o.u64("transcript_len"),
			ExtractedFacts: o.u64("extracted_facts"),
		}
		if s, ok := o.str("summary_preview"); ok {
			b.SummaryPreview = &s
		}
		ev.Body = b
	case "request_tool_results_elided":
		ev.AgentID, _ = o.str("agent_id")
		ev.Body = &event.ContextElided{
			Policy:         o.raw("policy"),
			OriginalBytes:  o.u64("canonical_tool_result_content_bytes"),
			ProjectedBytes: o.u64("projected_tool_result_content_bytes"),
			Results:        o.elided(ext),
		}
	case "memory_updated":
		ev.AgentID, _ = o.str("agent_id")
		ev.Body = &event.MemoryUpdated{StoredRecords: o.u64("stored_records")}
	case "usage":
		ev.AgentID, _ = o.str("agent_id")
		ev.Body = &event.Usage{
			InputTokens:         o.u64("input_tokens"),
			OutputTokens:        o.u64("output_tokens"),
			CacheReadTokens:     o.u64("cache_read_tokens"),
			CacheCreationTokens: o.u64("cache_creation_tokens"),
			ReasoningTokens:     o.u64("reasoning_tokens"),
			ThoughtsTokens:      o.u64("thoughts_tokens"),
		}
	case "notice":
		b := &event.Notice{}
		b.Severity = o.optStr("severity", ext)
		b.Message, _ = o.str("message")
		ev.Body = b
	case "retry":
		ev.AgentID, _ = o.str("agent_id")
		b := &event.Retry{Attempt: o.u64("attempt"), MaxAttempts: o.u64("max_attempts"), NextDelayMS: o.u64("next_delay_ms")}
		b.Error, _ = o.str("error")
		ev.Body = b
	case "error":
		b := &event.Error{Recoverable: o.boolean("recoverable")}
		b.Message, _ = o.str("message")
		ev.Body = b
	case "branched":
		b := &event.Branched{AbandonedEntries: o.u64("abandoned_entries")}
		b.EntryID, _ = o.str("entry_id")
		ev.Body = b
	case "run_finished":
		b := &event.SessionFinished{}
		b.Status, _ = o.str("status")
		b.Message = o.optStr("message", ext)
		b.StoppedBy = o.optStr("stopped_by", ext)
		b.Usage = o.runUsage(ext)
		ev.Body = b
	}
	if o.err != nil {
		return out, o.err
	}
	if !ext.empty() {
		ev.Ext = event.Ext{Name: ext.bytes()}
	}
	if pre != nil {
		d.finish(pre, typ, n)
		pre.Src = nil // a synthetic line has no source line
		out = append(out, pre)
	}
	d.finish(ev, typ, n)
	return append(out, ev), nil
}

// End implements dialect.Decoder. basis needs nothing synthesised at the end.
func (d *Decoder) End(out []*event.Event) []*event.Event { return out }

func (d *Decoder) finish(ev *event.Event, typ string, n int) {
	switch ev.Body.(type) {
	case *event.SessionStarted, *event.SessionFinished:
	default:
		if ev.TurnID == "" {
			ev.TurnID = d.turn
		}
	}
	if d.opts.Provenance && !ev.Synthetic {
		ev.Src = &event.Source{Dialect: Name, Line: n, Type: typ}
	}
}

func cloneRaw(b []byte) json.RawMessage { return append(json.RawMessage(nil), b...) }

// residue collects the ext.basis object of one line, in input order.
type residue struct{ buf []byte }

func newResidue() *residue { return &residue{} }

func (r *residue) add(k string, raw []byte) {
	if len(r.buf) == 0 {
		r.buf = append(r.buf, '{')
	} else {
		r.buf = append(r.buf, ',')
	}
	r.buf = jsonenc.String(r.buf, k)
	r.buf = append(r.buf, ':')
	r.buf = append(r.buf, raw...)
}

func (r *residue) empty() bool { return len(r.buf) == 0 }

func (r *residue) bytes() json.RawMessage { return append(r.buf, '}') }

// object gives typed access to the top-level keys of one line. It is reused
// from line to line, so decoding a known type allocates no maps.
type object struct {
	keys []string
	vals []gjson.Result
	err  error
}

func (o *object) reset(root gjson.Result) {
	o.keys, o.vals, o.err = o.keys[:0], o.vals[:0], nil
	root.ForEach(func(k, v gjson.Result) bool {
		o.keys = append(o.keys, k.Str)
		o.vals = append(o.vals, v)
		return true
	})
}

func (o *object) get(k string) (gjson.Result, bool) {
	// The last occurrence wins, as in most JSON readers.
	for i := len(o.keys) - 1; i >= 0; i-- {
		if o.keys[i] == k {
			return o.vals[i], true
		}
	}
	return gjson.Result{}, false
}

func (o *object) fail(ptr, format string, args ...any) {
	if o.err == nil {
		o.err = &DecodeError{Pointer: ptr, Msg: fmt.Sprintf(format, args...)}
	}
}

func (o *object) str(k string) (string, bool) {
	v, ok := o.get(k)
	if !ok {
		return "", false
	}
	if v.Type != gjson.String {
		o.fail("/"+k, "must be a string")
		return "", false
	}
	return v.Str, true
}

// optStr reads an optional string. canonical omits empty strings, so a
// present "" is kept in the residue to come back as written.
func (o *object) optStr(k string, ext *residue) string {
	v, ok := o.str(k)
	if ok && v == "" {
		ext.add(k, []byte(`""`))
	}
	return v
}

func (o *object) u64(k string) *uint64 {
	v, ok := o.get(k)
	if !ok {
		return nil
	}
	n, ok := parseU64(v)
	if !ok {
		o.fail("/"+k, "must be a non-negative integer, not %s", v.Raw)
		return nil
	}
	return &n
}

func parseU64(v gjson.Result) (uint64, bool) {
	if v.Type != gjson.Number {
		return 0, false
	}
	n, err := strconv.ParseUint(v.Raw, 10, 64)
	return n, err == nil
}

func (o *object) boolean(k string) *bool {
	v, ok := o.get(k)
	if !ok {
		return nil
	}
	if !v.IsBool() {
		o.fail("/"+k, "must be true or false")
		return nil
	}
	b := v.Bool()
	return &b
}

func (o *object) raw(k string) json.RawMessage {
	v, ok := o.get(k)
	if !ok {
		return nil
	}
	return json.RawMessage(v.Raw)
}

// keepEmpty records an explicitly empty optional list in the residue, since
// the canonical model omits empty lists and basis would too.
func (o *object) keepEmpty(k string, empty bool, ext *residue) {
	if empty {
		v, _ := o.get(k)
		ext.add(k, []byte(v.Raw))
	}
}

func (o *object) strings(k string, ext *residue) []string {
	v, ok := o.get(k)
	if !ok {
		return nil
	}
	if !v.IsArray() {
		o.fail("/"+k, "must be an array of strings")
		return nil
	}
	var out []string
	i := 0
	v.ForEach(func(_, e gjson.Result) bool {
		if e.Type != gjson.String {
			o.fail(fmt.Sprintf("/%s/%d", k, i), "must be a string")
			return false
		}
		out = append(out, e.Str)
		i++
		return true
	})
	if out == nil {
		ext.add(k, []byte(v.Raw))
	}
	return out
}

// each calls f for every element of an array of objects, and stores the
// whole original value in the residue when an element has keys that the
// canonical type has no place for.
func (o *object) each(k, kind string, ext *residue, f func(ptr string, e gjson.Result)) bool {
	v, ok := o.get(k)
	if !ok {
		return false
	}
	if !v.IsArray() {
		o.fail("/"+k, "must be an array")
		return false
	}
	extra := false
	i := 0
	v.ForEach(func(_, e gjson.Result) bool {
		ptr := fmt.Sprintf("/%s/%d", k, i)
		if !e.IsObject() {
			o.fail(ptr, "must be an object")
			return false
		}
		e.ForEach(func(ek, ev gjson.Result) bool {
			if !contains(nested[kind], ek.Str) || (contains(nestedOptional[kind], ek.Str) && ev.Type == gjson.String && ev.Str == "") {
				extra = true
			}
			return true
		})
		for _, k := range nestedRequired[kind] {
			if !e.Get(gjson.Escape(k)).Exists() {
				extra = true // keep the element as written, not with defaults
			}
		}
		f(ptr, e)
		i++
		return true
	})
	if extra {
		ext.add(k, []byte(v.Raw))
	}
	return true
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (o *object) field(ptr string, e gjson.Result, k string) string {
	v := e.Get(gjson.Escape(k))
	if !v.Exists() {
		return ""
	}
	if v.Type != gjson.String {
		o.fail(ptr+"/"+k, "must be a string")
	}
	return v.Str
}

func (o *object) fieldU64(ptr string, e gjson.Result, k string) uint64 {
	v := e.Get(gjson.Escape(k))
	if !v.Exists() {
		return 0
	}
	n, ok := parseU64(v)
	if !ok {
		o.fail(ptr+"/"+k, "must be a non-negative integer, not %s", v.Raw)
	}
	return n
}

func (o *object) contextFiles(k string, _ gjson.Result, ext *residue) []event.ContextFile {
	out := []event.ContextFile{}
	o.each(k, "context_file", ext, func(ptr string, e gjson.Result) {
		out = append(out, event.ContextFile{Path: o.field(ptr, e, "path"), Scope: o.field(ptr, e, "scope")})
	})
	return out
}

func (o *object) skills(ext *residue) []event.Skill {
	var out []event.Skill
	if o.each("skills", "skill", ext, func(ptr string, e gjson.Result) {
		out = append(out, event.Skill{Name: o.field(ptr, e, "name"), Description: o.field(ptr, e, "description")})
	}) {
		o.keepEmpty("skills", len(out) == 0, ext)
	}
	return out
}

func (o *object) templates(ext *residue) []event.Command {
	var out []event.Command
	if o.each("templates", "template", ext, func(ptr string, e gjson.Result) {
		out = append(out, event.Command{
			Name:        o.field(ptr, e, "name"),
			Description: o.field(ptr, e, "description"),
			Hint:        o.field(ptr, e, "argument_hint"),
		})
	}) {
		o.keepEmpty("templates", len(out) == 0, ext)
	}
	return out
}

func (o *object) elided(ext *residue) []event.ElidedResult {
	var out []event.ElidedResult
	if o.each("results", "elided_result", ext, func(ptr string, e gjson.Result) {
		r := event.ElidedResult{
			CallID:         o.field(ptr, e, "tool_call_id"),
			Name:           o.field(ptr, e, "tool_name"),
			ContentKind:    o.field(ptr, e, "canonical_content_kind"),
			Action:         o.field(ptr, e, "action"),
			OriginalBytes:  o.fieldU64(ptr, e, "canonical_content_bytes"),
			ProjectedBytes: o.fieldU64(ptr, e, "projected_content_bytes"),
		}
		if v := e.Get("is_error"); v.Exists() {
			if !v.IsBool() {
				o.fail(ptr+"/is_error", "must be true or false")
			}
			r.IsError = v.Bool()
		}
		out = append(out, r)
	}) {
		o.keepEmpty("results", len(out) == 0, ext)
	}
	return out
}

func (o *object) runUsage(ext *residue) *event.Usage {
	v, ok := o.get("usage")
	if !ok {
		return nil
	}
	if !v.IsObject() {
		o.fail("/usage", "must be an object")
		return nil
	}
	u := &event.Usage{}
	extra := false
	v.ForEach(func(k, val gjson.Result) bool {
		var dst **uint64
		switch k.Str {
		case "input_tokens":
			dst = &u.InputTokens
		case "output_tokens":
			dst = &u.OutputTokens
		case "cache_read_tokens":
			dst = &u.CacheReadTokens
		case "cache_creation_tokens":
			dst = &u.CacheCreationTokens
		case "reasoning_tokens":
			dst = &u.ReasoningTokens
		case "thoughts_tokens":
			dst = &u.ThoughtsTokens
		case "model_responses":
			dst = &u.ModelResponses
		default:
			extra = true
			return true
		}
		n, ok := parseU64(val)
		if !ok {
			o.fail("/usage/"+k.Str, "must be a non-negative integer, not %s", val.Raw)
			return false
		}
		*dst = &n
		return true
	})
	if extra {
		ext.add("usage", []byte(v.Raw))
	}
	return u
}

// Position returns the JSON pointer of the offending value.
func (e *DecodeError) Position() string { return e.Pointer }
