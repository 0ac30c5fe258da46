package basis

import (
	"encoding/json"
	"slices"
	"strconv"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/idset"
	"github.com/evtool/evtool/internal/jsonenc"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/evtool/evtool/internal/linesep"
	"github.com/evtool/evtool/internal/wireint"
	"github.com/evtool/evtool/ndjson"
	"github.com/tidwall/gjson"
)

// The integer types of basis's fields.
var (
	u32   = jsonobj.U32
	u64   = jsonobj.U64
	usize = jsonobj.USize
)

// Decoder reads basis lines into canonical events. It synthesises a
// turn_started before each user_message, since basis has no turn events.
type Decoder struct {
	jsonobj.OwnLine // a long line is read in place (UseOwn)
	opts            dialect.DecodeOptions
	turns           int
	turn            string
	o               jsonobj.Object
	res             jsonobj.Residue // a line's residue, reused: what is kept is copied
	// queued holds the tool call ids announced so far: by a tool_queued
	// line, or by a tool_call synthesised for a call that was not. Digests
	// only: a decoder's memory must not grow with the ids of a long run.
	queued idset.Set
	// ms are the members of the line the next Decode reads, as the
	// reading's syntax check found them (UseMembers); nil: read the line.
	ms []ndjson.Member
}

// UseMembers hands the decoder the top-level members of the line its next
// Decode reads, found by the syntax check of the reading: the decoder
// then does not read the line's keys again.
func (d *Decoder) UseMembers(ms []ndjson.Member) { d.ms = ms }

// A DecodeError is a known basis field with a value canonical cannot hold.
type DecodeError = jsonobj.FieldError

// Decode implements dialect.Decoder.
func (d *Decoder) Decode(out []*event.Event, line []byte, n int) ([]*event.Event, error) {
	// One copy of the line (the reader reuses its buffer), which the
	// event's strings and raw values share rather than copying each.
	// (append to nil: the runtime then leaves the copy's memory unzeroed
	// before it writes it, which make does not.)
	// A line of its own (UseOwn) is read in place.
	own := line
	if !d.Own() {
		own = append([]byte(nil), line...)
	}
	root := jsonobj.View(own)
	o := &d.o
	ms := d.ms
	d.ms = nil
	typ, err := o.OpenMembers(root, ms, "a basis line")
	if err != nil {
		return out, err
	}
	known, ok := fields[typ]
	if !ok {
		ev := &event.Event{Body: &event.Unknown{Dialect: Name, SourceType: typ, Raw: cloneRaw(line)}}
		d.finish(ev, typ, n)
		return append(out, ev), nil
	}
	ext := &d.res
	ext.Reset()
	if v, ok := o.Get("seq"); ok {
		if _, msg := jsonobj.ParseUint(v, u64); msg != "" {
			return out, &DecodeError{Pointer: "/seq", Msg: msg}
		}
		ext.Add("seq", []byte(v.Raw))
	}
	o.KeepUnknown(ext, func(k string) bool { return knownField(known, k) })
	// Nearly every basis line has a seq, kept in ext.basis: the event and
	// its one ext entry are allocated together.
	pair := &struct {
		ev  event.Event
		ext [1]event.ExtEntry
	}{}
	ev := &pair.ev
	pre := d.body(typ, ev)
	if o.Err() != nil {
		return out, o.Err()
	}
	if seps := linesep.Of(own); seps != "" {
		ext.Add(linesep.Key, jsonenc.String(nil, seps))
	}
	if !ext.Empty() {
		pair.ext[0] = event.ExtEntry{Dialect: Name, Raw: ext.Bytes()}
		ev.Ext = pair.ext[:]
	}
	if tc, ok := ev.Body.(*event.ToolCall); ok {
		d.announce(tc.CallID)
	}
	if pre != nil {
		if tc, ok := pre.Body.(*event.ToolCall); ok {
			d.announce(tc.CallID)
		}
		d.finish(pre, typ, n)
		pre.Src = nil // a synthetic line has no source line
		out = append(out, pre)
	}
	d.finish(ev, typ, n)
	return append(out, ev), nil
}

// body reads the fields of a line of the known type typ into ev, by one
// method per type, and returns the synthetic event that goes before it:
// the turn_started of a user_message, the tool_call of a call no
// tool_queued announced, else nil. A field error is left in d.o.
func (d *Decoder) body(typ string, ev *event.Event) (pre *event.Event) {
	switch typ {
	case "run_started":
		ev.Body = d.runStarted()
	case "user_message":
		ev.Body, pre = d.userMessage()
	case "assistant_delta":
		ev.Body = &event.MessageDelta{Text: d.str("text")}
	case "assistant_reasoning_delta":
		ev.Body = &event.ReasoningDelta{Text: d.str("text")}
	case "assistant_message":
		ev.Body = &event.Message{Text: d.str("text")}
	case "tool_queued":
		ev.Body = d.toolQueued()
	case "tool_started":
		ev.Body, pre = d.toolStarted()
	case "tool_progress":
		ev.Body, pre = d.toolProgress()
	case "tool_completed":
		ev.Body, pre = d.toolCompleted()
	case "permission_requested":
		ev.Body = d.permissionRequested()
	case "permission_resolved":
		ev.Body = d.permissionResolved()
	case "task_updated":
		ev.Body = d.taskUpdated()
	case "compaction_started":
		ev.AgentID = d.str("agent_id")
		ev.Body = &event.CompactionStarted{}
	case "compaction_completed":
		ev.AgentID = d.str("agent_id")
		ev.Body = d.compactionCompleted()
	case "request_tool_results_elided":
		ev.AgentID = d.str("agent_id")
		ev.Body = d.resultsElided()
	case "memory_updated":
		ev.AgentID = d.str("agent_id")
		ev.Body = &event.MemoryUpdated{StoredRecords: wireint.Field(&d.o, "stored_records", usize)}
	case "usage":
		ev.AgentID = d.str("agent_id")
		ev.Body = d.usage()
	case "notice":
		ev.Body = d.notice()
	case "retry":
		ev.AgentID = d.str("agent_id")
		ev.Body = d.retry()
	case "error":
		b := &event.Error{Recoverable: d.o.Bool("recoverable")}
		b.Message = d.str("message")
		ev.Body = b
	case "branched":
		b := &event.Branched{AbandonedEntries: wireint.Field(&d.o, "abandoned_entries", usize)}
		b.EntryID = d.str("entry_id")
		ev.Body = b
	case "run_finished":
		ev.Body = d.runFinished()
	}
	return pre
}

// str reads a string field of the line; "" when absent or not a string
// (which d.o records).
func (d *Decoder) str(k string) string {
	s, _ := d.o.Str(k)
	return s
}

func (d *Decoder) runStarted() *event.SessionStarted {
	o, ext := &d.o, &d.res
	s := &event.SessionStarted{Schema: event.SchemaVersion, Source: event.SourceInfo{Dialect: Name}}
	s.Source.Version = wireint.Field(o, "schema", u32)
	if v, ok := o.Str("basis"); ok {
		s.Agent = &event.Agent{Name: Name, Version: v}
	}
	s.SessionID = d.str("session_id")
	s.Workspace = d.str("workspace")
	s.Model = d.str("model")
	s.Provider = d.str("provider")
	if _, ok := o.Get("context_files"); ok {
		cf := contextFiles(o, "context_files", ext)
		s.ContextFiles = &cf
	}
	s.SkillsDirs = o.Strings("skills_dirs", ext)
	s.Skills = skills(o, ext)
	s.CommandsDirs = o.Strings("templates_dirs", ext)
	s.Commands = templates(o, ext)
	if _, ok := o.Get("mcp_files"); ok {
		s.MCPFiles = contextFiles(o, "mcp_files", ext)
		keepEmpty(o, "mcp_files", len(s.MCPFiles) == 0, ext)
	}
	s.MCPServers = o.Strings("mcp_servers", ext)
	if _, ok := o.Get("a2a_files"); ok {
		s.A2AFiles = contextFiles(o, "a2a_files", ext)
		keepEmpty(o, "a2a_files", len(s.A2AFiles) == 0, ext)
	}
	s.A2AAgents = o.Strings("a2a_agents", ext)
	return s
}

// userMessage reads a user_message, which begins a turn: basis has no turn
// events, so the turn_started is synthesised.
func (d *Decoder) userMessage() (*event.UserMessage, *event.Event) {
	text := d.str("text")
	d.turns++
	d.turn = "turn-" + strconv.Itoa(d.turns)
	pre := &event.Event{Synthetic: true, TurnID: d.turn, Body: &event.TurnStarted{Prompt: &text}}
	return &event.UserMessage{Text: text, ImageCount: wireint.Field(&d.o, "image_count", usize)}, pre
}

func (d *Decoder) toolQueued() *event.ToolCall {
	o, ext := &d.o, &d.res
	b := &event.ToolCall{}
	b.CallID = d.str("tool_call_id")
	b.Name = d.str("tool_name")
	b.Title = d.str("summary")
	if o.OptStr("mutability", ext) != "" { // a present "" is kept, not defaulted
		b.Mutability = jsonobj.Word(o, "mutability", mutabilities, event.MutabilityUnknown, ext)
	}
	b.Input = o.RawShared("input")
	b.Kind = ToolKind(b.Name, b.Mutability, b.Input)
	return b
}

func (d *Decoder) toolStarted() (*event.ToolStarted, *event.Event) {
	b := &event.ToolStarted{}
	b.CallID = d.str("tool_call_id")
	b.Name = d.str("tool_name")
	return b, d.implied(b.CallID, b.Name)
}

func (d *Decoder) toolProgress() (*event.ToolProgress, *event.Event) {
	b := &event.ToolProgress{}
	b.CallID = d.str("tool_call_id")
	b.Name = d.str("tool_name")
	b.Message = d.str("progress")
	return b, d.implied(b.CallID, b.Name)
}

func (d *Decoder) toolCompleted() (*event.ToolFinished, *event.Event) {
	b := &event.ToolFinished{Status: "success"}
	b.CallID = d.str("tool_call_id")
	b.Name = d.str("tool_name")
	if s, ok := d.o.Str("summary"); ok {
		b.Summary = &s
	}
	if e := d.o.Bool("is_error"); e != nil && *e {
		b.Status = "error"
	}
	return b, d.implied(b.CallID, b.Name)
}

func (d *Decoder) permissionRequested() *event.PermissionRequested {
	b := &event.PermissionRequested{}
	b.RequestID = d.str("request_id")
	b.CallID = d.str("tool_call_id")
	b.Tool = d.str("tool_name")
	b.Description = d.str("description")
	b.Preview = d.o.RawShared("preview")
	return b
}

func (d *Decoder) permissionResolved() *event.PermissionResolved {
	b := &event.PermissionResolved{}
	b.RequestID = d.str("request_id")
	b.CallID = d.str("tool_call_id")
	b.Tool = d.str("tool_name")
	b.Outcome = jsonobj.Word(&d.o, "outcome", outcomes, event.Denied, &d.res)
	b.Scope = optString(&d.o, "rule_scope", &d.res)
	return b
}

func (d *Decoder) taskUpdated() *event.TaskUpdated {
	o, ext := &d.o, &d.res
	b := &event.TaskUpdated{}
	b.TaskID = d.str("task_id")
	b.Kind = jsonobj.Word(o, "kind", taskKinds, event.TaskBackground, ext)
	b.Status = jsonobj.Word(o, "status", taskStatuses, event.TaskRunning, ext)
	b.Title = d.str("title")
	b.Detail = optString(o, "detail", ext)
	return b
}

func (d *Decoder) compactionCompleted() *event.CompactionFinished {
	o := &d.o
	b := &event.CompactionFinished{
		ReplacedItems:  wireint.Field(o, "replaced_items", usize),
		PreservedItems: wireint.Field(o, "preserved_items", usize),
		TranscriptLen:  wireint.Field(o, "transcript_len", usize),
		ExtractedFacts: wireint.Field(o, "extracted_facts", usize),
	}
	if s, ok := o.Str("summary_preview"); ok {
		b.SummaryPreview = &s
	}
	return b
}

func (d *Decoder) resultsElided() *event.ContextElided {
	o := &d.o
	return &event.ContextElided{
		Policy:         policy(o),
		OriginalBytes:  wireint.Field(o, "canonical_tool_result_content_bytes", usize),
		ProjectedBytes: wireint.Field(o, "projected_tool_result_content_bytes", usize),
		Results:        elided(o, &d.res),
	}
}

func (d *Decoder) usage() *event.Usage {
	o := &d.o
	return &event.Usage{
		InputTokens:         wireint.Field(o, "input_tokens", u64),
		OutputTokens:        wireint.Field(o, "output_tokens", u64),
		CacheReadTokens:     wireint.Field(o, "cache_read_tokens", u64),
		CacheCreationTokens: wireint.Field(o, "cache_creation_tokens", u64),
		ReasoningTokens:     wireint.Field(o, "reasoning_tokens", u64),
		ThoughtsTokens:      wireint.Field(o, "thoughts_tokens", u64),
	}
}

func (d *Decoder) notice() *event.Notice {
	b := &event.Notice{}
	if sev := d.o.OptStr("severity", &d.res); sev != "" {
		b.Severity = jsonobj.Word(&d.o, "severity", severities, event.SeverityWarning, &d.res)
	}
	b.Message = d.str("message")
	return b
}

func (d *Decoder) retry() *event.Retry {
	o := &d.o
	b := &event.Retry{Attempt: wireint.Field(o, "attempt", u32), MaxAttempts: wireint.Field(o, "max_attempts", u32), NextDelayMS: wireint.Field(o, "next_delay_ms", u64)}
	b.Error = d.str("error")
	return b
}

func (d *Decoder) runFinished() *event.SessionFinished {
	o, ext := &d.o, &d.res
	b := &event.SessionFinished{}
	b.Status = jsonobj.Word(o, "status", runStatuses, event.StatusError, ext)
	b.Message = finishMessage(o, b.Status, ext)
	if optString(o, "stopped_by", ext) != "" {
		b.StoppedBy = jsonobj.Word(o, "stopped_by", bounds, "", ext)
	}
	b.Usage = runUsage(o, ext)
	return b
}

// announce records a tool call id as announced.
func (d *Decoder) announce(id string) { d.queued.Add(id, 0) }

// implied returns a synthetic tool_call for a call that a tool line names
// without a tool_queued before it (Decode records it once the line is
// read), so that the canonical stream announces every call it finishes.
// The residue marks it as implied: basis's own writer does not write it
// back, since the source had no such line.
func (d *Decoder) implied(id, name string) *event.Event {
	if d.queued.Has(id) {
		return nil
	}
	return &event.Event{Synthetic: true, Body: &event.ToolCall{CallID: id, Name: name},
		Ext: event.ExtOf(Name, json.RawMessage(`{"`+impliedKey+`":true}`))}
}

// impliedKey marks, in ext.basis, a tool_call the decoder synthesised for a
// call the source never queued.
const impliedKey = "@implied"

// finishMessage reads run_finished's message. RunOutcome is tagged on
// status: an error carries a required string message; an ok outcome has no
// message field at all, so serde ignores whatever a "message" key holds.
// A string there is still the run's message; anything else is kept only in
// the residue. An error without a message is reported by the stream rule
// basis/error-message, once, not here as well.
func finishMessage(o *jsonobj.Object, status event.Status, res *jsonobj.Residue) string {
	v, ok := o.Get("message")
	switch {
	case !ok:
		return ""
	case v.Type == gjson.String:
		if v.Str == "" {
			res.Add("message", []byte(`""`))
		}
		return v.Str
	case status == "error":
		o.Fail("/message", "got %s, want a string", jsonobj.TypeName(v))
		return ""
	}
	res.Add("message", []byte(v.Raw))
	return ""
}

// policyInts lists the integer fields of each known elision policy kind.
var policyInts = map[string][]string{
	"keep_recent": {"configured_keep_recent_tool_results"},
	"byte_budget": {"configured_max_bytes", "configured_prioritize_recent_results", "configured_max_preview_bytes"},
}

// policy returns the elision policy as written, after checking the literal
// form of the integers of a known kind (the schema checks their types).
func policy(o *jsonobj.Object) json.RawMessage {
	v, ok := o.Get("policy")
	if !ok {
		return nil
	}
	if v.IsObject() {
		for _, k := range policyInts[v.Get("kind").Str] {
			if n := jsonobj.Lookup(v, k); n.Type == gjson.Number {
				wireint.At(o, "/policy/"+k, n, usize)
			}
		}
	}
	return json.RawMessage(v.Raw)
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

// Shapes of basis's nested object types.
var (
	contextFileShape = jsonobj.Shape{Known: []string{"path", "scope"}, Required: []string{"path", "scope"}}
	skillShape       = jsonobj.Shape{Known: []string{"name", "description"}, Required: []string{"name", "description"}}
	templateShape    = jsonobj.Shape{Known: []string{"name", "description", "argument_hint"}, Required: []string{"name", "description"}, Exact: []string{"argument_hint"}}
	elidedShape      = jsonobj.Shape{
		Known:    []string{"tool_call_id", "tool_name", "is_error", "canonical_content_kind", "action", "canonical_content_bytes", "projected_content_bytes"},
		Required: []string{"tool_call_id", "is_error", "canonical_content_kind", "action", "canonical_content_bytes", "projected_content_bytes"},
		Exact:    []string{"tool_name"},
	}
	runUsageShape = jsonobj.Shape{Known: runUsageKeys()}
)

// A usageCount is one token count of basis's RunUsage: its key, and the
// canonical count it holds.
type usageCount struct {
	key   string
	count func(*event.Usage) **uint64
}

// runUsageCounts are RunUsage's counts in basis's declared order, the
// first statedCounts of them always written. The decoder, the encoder and
// runUsageShape all read this one list.
var runUsageCounts = []usageCount{
	{"input_tokens", func(u *event.Usage) **uint64 { return &u.InputTokens }},
	{"output_tokens", func(u *event.Usage) **uint64 { return &u.OutputTokens }},
	{"cache_read_tokens", func(u *event.Usage) **uint64 { return &u.CacheReadTokens }},
	{"cache_creation_tokens", func(u *event.Usage) **uint64 { return &u.CacheCreationTokens }},
	{"reasoning_tokens", func(u *event.Usage) **uint64 { return &u.ReasoningTokens }},
	{"thoughts_tokens", func(u *event.Usage) **uint64 { return &u.ThoughtsTokens }},
	{"model_responses", func(u *event.Usage) **uint64 { return &u.ModelResponses }},
}

// statedCounts is how many of runUsageCounts RunUsage states always (they
// are not Options upstream).
const statedCounts = 4

func runUsageKeys() []string {
	out := make([]string, len(runUsageCounts))
	for i, c := range runUsageCounts {
		out[i] = c.key
	}
	return out
}

// keepEmpty records an explicitly empty optional list in the residue, since
// the canonical model omits empty lists and basis would too.
func keepEmpty(o *jsonobj.Object, k string, empty bool, res *jsonobj.Residue) {
	if v, ok := o.Get(k); ok && empty {
		res.Add(k, []byte(v.Raw))
	}
}

func contextFiles(o *jsonobj.Object, k string, res *jsonobj.Residue) []event.ContextFile {
	out := []event.ContextFile{}
	o.Each(k, contextFileShape, res, func(ptr string, e gjson.Result) {
		out = append(out, event.ContextFile{Path: o.Field(ptr, e, "path"), Scope: o.Field(ptr, e, "scope")})
	})
	return out
}

func skills(o *jsonobj.Object, res *jsonobj.Residue) []event.Skill {
	var out []event.Skill
	if o.Each("skills", skillShape, res, func(ptr string, e gjson.Result) {
		out = append(out, event.Skill{Name: o.Field(ptr, e, "name"), Description: o.Field(ptr, e, "description")})
	}) {
		keepEmpty(o, "skills", len(out) == 0, res)
	}
	return out
}

func templates(o *jsonobj.Object, res *jsonobj.Residue) []event.Command {
	var out []event.Command
	if o.Each("templates", templateShape, res, func(ptr string, e gjson.Result) {
		out = append(out, event.Command{
			Name:        o.Field(ptr, e, "name"),
			Description: o.Field(ptr, e, "description"),
			Hint:        o.Field(ptr, e, "argument_hint"),
		})
	}) {
		keepEmpty(o, "templates", len(out) == 0, res)
	}
	return out
}

func elided(o *jsonobj.Object, res *jsonobj.Residue) []event.ElidedResult {
	var out []event.ElidedResult
	if o.Each("results", elidedShape, res, func(ptr string, e gjson.Result) {
		r := event.ElidedResult{
			CallID:         o.Field(ptr, e, "tool_call_id"),
			Name:           o.Field(ptr, e, "tool_name"),
			ContentKind:    o.Field(ptr, e, "canonical_content_kind"),
			Action:         o.Field(ptr, e, "action"),
			OriginalBytes:  wireint.Value(wireint.Nested(o, ptr, e, "canonical_content_bytes", usize)),
			ProjectedBytes: wireint.Value(wireint.Nested(o, ptr, e, "projected_content_bytes", usize)),
		}
		if v := e.Get("is_error"); v.Exists() {
			if !v.IsBool() {
				o.Fail(ptr+"/is_error", "must be true or false")
			}
			r.IsError = v.Bool()
		}
		out = append(out, r)
	}) {
		keepEmpty(o, "results", len(out) == 0, res)
	}
	return out
}

func runUsage(o *jsonobj.Object, res *jsonobj.Residue) *event.Usage {
	v, ok := o.Get("usage")
	if !ok {
		return nil
	}
	if v.Type == gjson.Null { // Option<RunUsage>: null is None
		res.Add("usage", []byte("null"))
		return nil
	}
	if !v.IsObject() {
		o.Fail("/usage", "got %s, want an object or null", jsonobj.TypeName(v))
		return nil
	}
	u := &event.Usage{}
	extra := false
	jsonobj.ForEach(v, func(k, val gjson.Result) bool {
		i := slices.IndexFunc(runUsageCounts, func(c usageCount) bool { return c.key == k.Str })
		if i < 0 {
			extra = true
			return true
		}
		n := wireint.At(o, "/usage/"+k.Str, val, u64)
		if n == nil {
			return false
		}
		*runUsageCounts[i].count(u) = n
		return true
	})
	if extra {
		res.Add("usage", []byte(v.Raw))
	}
	return u
}

// optString reads an Option<String> field: absent and null are None, and a
// null (or a present "", which the canonical model cannot tell from
// absence) is kept in the residue so that it comes back as written.
func optString(o *jsonobj.Object, k string, res *jsonobj.Residue) string {
	v, ok := o.Get(k)
	switch {
	case !ok:
		return ""
	case v.Type == gjson.Null:
		res.Add(k, []byte("null"))
		return ""
	case v.Type != gjson.String:
		o.Fail("/"+k, "got %s, want a string or null", jsonobj.TypeName(v))
		return ""
	case v.Str == "":
		res.Add(k, []byte(`""`))
	}
	return v.Str
}
