package claude

import (
	"fmt"
	"strings"
	"time"

	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/tidwall/gjson"
)

// wireState is what the lines written so far tell about the next one. The
// decoder learns it from the source lines and the encoder from the lines it
// writes; since the encoder writes back the source lines, both derive the
// same line from the same events, and the residue fits.
type wireState struct {
	lines   uint64 // lines seen
	session string // the session id: system/init's, else the first line's
	model   string // system/init's model
	threads map[string]*thread
	tasks   map[string]taskInfo // by the tool_use_id that started the task
	rounds  uint64              // main-thread API messages since the last result
	cost    string              // the last result's total_cost_usd: the process's running total (cost.go)
	inits   uint64              // system/init lines seen
	initSID string              // the last system/init's session_id
	resetTo string              // the conversation id the last conversation_reset announced
}

// thread is what the last assistant line of one agent (the main thread
// "", a subagent by its parent_tool_use_id) said.
type thread struct {
	model, msgID, reqID string
	usage               []byte // the message's usage snapshot, as written
}

// taskInfo is what system/task_started says of a subagent, which its lines
// repeat.
type taskInfo struct{ subagentType, description string }

func newWireState() *wireState {
	return &wireState{threads: map[string]*thread{}, tasks: map[string]taskInfo{}}
}

// observe learns from a line as written. What it keeps is cloned: a
// string cut from the line would keep the whole line alive, a task's for
// the rest of the run.
func (st *wireState) observe(line []byte) {
	st.lines++
	r := jsonobj.View(line) // nothing of it is kept uncloned
	if sid := r.Get("session_id"); sid.Type == gjson.String && st.session == "" {
		st.session = strings.Clone(sid.Str)
	}
	switch kind, _ := kindOf(r); kind {
	case "system/init":
		if st.newProcess(r) {
			st.cost = "" // a new process's running total starts at 0
		}
		st.inits++
		if sid := r.Get("session_id"); sid.Type == gjson.String {
			st.session = strings.Clone(sid.Str)
			st.initSID = st.session
		}
		st.model = strings.Clone(r.Get("model").Str)
	case "conversation_reset":
		st.resetTo = strings.Clone(r.Get("new_conversation_id").Str)
	case "assistant":
		agent := r.Get("parent_tool_use_id").Str
		th := st.threads[agent]
		if th == nil {
			th = &thread{}
			st.threads[strings.Clone(agent)] = th
		}
		m := r.Get("message")
		id := m.Get("id").Str
		if agent == "" && id != th.msgID {
			st.rounds++
		}
		keep(&th.model, m.Get("model").Str)
		keep(&th.msgID, id)
		keep(&th.reqID, r.Get("request_id").Str)
		th.usage = []byte(m.Get("usage").Raw)
	case "system/task_started":
		if id := r.Get("tool_use_id").Str; id != "" {
			st.tasks[strings.Clone(id)] = taskInfo{subagentType: strings.Clone(r.Get("subagent_type").Str),
				description: strings.Clone(r.Get("description").Str)}
		}
	case "result":
		st.rounds = 0
		if c := r.Get("total_cost_usd"); c.Type == gjson.Number {
			st.cost = strings.Clone(c.Raw)
		}
	}
}

// newProcess reports whether a system/init line begins another Claude
// Code process: an init after an earlier one, with another session_id
// that no conversation_reset announced. Two `claude -p` runs appended to
// one file read so; a streaming-input process repeats its own session's
// id at each turn's init.
func (st *wireState) newProcess(r gjson.Result) bool {
	sid := r.Get("session_id")
	return st.inits > 0 && st.initSID != "" && sid.Type == gjson.String && sid.Str != st.initSID && sid.Str != st.resetTo
}

// keep sets *dst to a copy of s, unless it holds s already (most
// assistant lines repeat their thread's model and message id).
func keep(dst *string, s string) {
	if *dst != s {
		*dst = strings.Clone(s)
	}
}

// hints are what the encoder of another dialect's stream supplies that a
// Claude Code stream would have stated.
type hints struct {
	msgID string // the API message id of assistant blocks
}

// placeholderUUID is the uuid a derived line carries: the line's position.
// A Claude Code source line keeps its own in the residue; a line written
// for another dialect's stream gets this one (counted as synthesized).
func placeholderUUID(n uint64) string {
	return fmt.Sprintf("00000000-0000-4000-8000-%012x", n)
}

// defaultKind is the kind of line an event is written as.
func defaultKind(ev *event.Event) string {
	switch b := ev.Body.(type) {
	case *event.SessionStarted, *event.ModelConfigured:
		return "system/init"
	case *event.Message, *event.Reasoning, *event.ToolCall, *event.Error:
		return "assistant"
	case *event.UserMessage, *event.ToolFinished:
		return "user"
	case *event.MessageDelta, *event.ReasoningDelta:
		return "stream_event"
	case *event.TurnFinished:
		return "result"
	case *event.Notice:
		return "system/informational"
	case *event.Retry:
		return "system/api_retry"
	case *event.ToolProgress:
		return "tool_progress"
	case *event.TaskUpdated:
		return "system/task_updated"
	case *event.CompactionStarted:
		return "system/status"
	case *event.CompactionFinished:
		return "system/compact_boundary"
	case *event.PermissionRequested:
		return "control_request"
	case *event.PermissionResolved:
		if b.RequestID == "" {
			return "system/permission_denied"
		}
		return "control_response"
	}
	return ""
}

// claudeTime renders a canonical time as Claude Code writes timestamps
// (JavaScript's toISOString: milliseconds, Z).
func claudeTime(t string) (string, bool) {
	tt, err := time.Parse(time.RFC3339Nano, t)
	if err != nil {
		return "", false
	}
	return tt.UTC().Format("2006-01-02T15:04:05.000Z"), true
}

// canonicalTime renders a Claude Code timestamp as canonical time (RFC 3339,
// UTC, microseconds).
func canonicalTime(t string) (string, bool) {
	tt, err := time.Parse(time.RFC3339Nano, t)
	if err != nil {
		return "", false
	}
	return tt.UTC().Format("2006-01-02T15:04:05.000000Z"), true
}

// parent renders an agent id as parent_tool_use_id.
func parent(agent string) []byte {
	if agent == "" {
		return []byte("null")
	}
	return jsonStr(agent)
}

func jsonStr(s string) []byte {
	var o obj
	o.str("", s)
	return o[0].v
}

// derive renders the line a group of events (the events of one line, in
// order) is written as, in kind, with nothing but canonical facts, the
// state and the hints. It returns nil for a group no line stands for.
func derive(kind string, group []*event.Event, st *wireState, h hints) obj {
	if len(group) == 0 {
		return nil
	}
	first := group[0]
	// Every line but a control message ends with these; where they go
	// among the keys is each kind's own.
	uuid := jsonStr(placeholderUUID(st.lines))
	session := jsonStr(st.session)
	var o obj
	typ, sub := kind, ""
	if len(kind) > 7 && kind[:7] == "system/" {
		typ, sub = "system", kind[7:]
	}
	o.str("type", typ)
	if sub != "" {
		o.str("subtype", sub)
	}
	switch kind {
	case "system/init":
		deriveInit(&o, first, st)
		o.set("uuid", uuid)
	case "assistant":
		deriveAssistantLine(&o, group, st, h, uuid, session)
	case "user":
		deriveUser(&o, group, st, uuid, session)
	case "stream_event":
		deriveStreamEvent(&o, first, uuid, session)
	case "result":
		deriveResult(&o, first, st)
		o.set("uuid", uuid)
	case "control_request":
		deriveControlRequest(&o, first)
	case "control_response":
		deriveControlResponse(&o, first)
	default:
		deriveSystem(&o, kind, first)
		o.set("uuid", uuid)
		o.set("session_id", session)
	}
	return o
}

// deriveAssistantLine renders an assistant line: its message, then the
// line's own keys.
func deriveAssistantLine(o *obj, group []*event.Event, st *wireState, h hints, uuid, session []byte) {
	first := group[0]
	deriveAssistant(o, group, st, h)
	o.set("session_id", session)
	o.set("uuid", uuid)
	th := st.threads[first.AgentID]
	if th != nil && th.reqID != "" && th.msgID == messageID(group, st, h) {
		o.str("request_id", th.reqID)
	}
	for _, ev := range group {
		if b, ok := ev.Body.(*event.Error); ok {
			o.str("error", b.Message)
		}
	}
	subagent(o, first, st)
	if t, ok := claudeTime(first.Time); ok && first.Time != "" {
		o.str("timestamp", t)
	}
}

// deriveUser renders a user line: text, image and tool_result blocks.
func deriveUser(o *obj, group []*event.Event, st *wireState, uuid, session []byte) {
	first := group[0]
	var blocks [][]byte
	for _, ev := range group {
		switch b := ev.Body.(type) {
		case *event.UserMessage:
			blocks = userBlocks(blocks, b)
		case *event.ToolFinished:
			var blk obj
			blk.str("tool_use_id", b.CallID)
			blk.str("type", "tool_result")
			out := ""
			if b.Output != nil {
				out = *b.Output
			}
			blk.str("content", out)
			blk.boolean("is_error", b.Status != event.ToolSuccess)
			blocks = append(blocks, blk.bytes(nil))
		}
	}
	var m obj
	m.str("role", "user")
	m.set("content", array(nil, blocks...))
	o.sub("message", m)
	o.set("parent_tool_use_id", parent(first.AgentID))
	o.set("session_id", session)
	o.set("uuid", uuid)
	if t, ok := claudeTime(first.Time); ok && first.Time != "" {
		o.str("timestamp", t)
	}
	subagent(o, first, st)
}

// userBlocks appends the blocks of a user message: its text, or the
// images it only counts.
func userBlocks(blocks [][]byte, b *event.UserMessage) [][]byte {
	if b.Text == "" && b.ImageCount != nil && *b.ImageCount > 0 {
		for i := uint64(0); i < *b.ImageCount && i < 1024; i++ {
			blocks = append(blocks, []byte(`{"type":"image"}`))
		}
		return blocks
	}
	var blk obj
	blk.str("type", "text")
	blk.str("text", b.Text)
	return append(blocks, blk.bytes(nil))
}

// deriveStreamEvent renders a text or thinking delta.
func deriveStreamEvent(o *obj, first *event.Event, uuid, session []byte) {
	delta := []byte(nil)
	switch b := first.Body.(type) {
	case *event.MessageDelta:
		delta = []byte(`{"type":"text_delta","text":` + string(jsonStr(b.Text)) + `}`)
	case *event.ReasoningDelta:
		delta = []byte(`{"type":"thinking_delta","thinking":` + string(jsonStr(b.Text)) + `}`)
	}
	var e obj
	e.str("type", "content_block_delta")
	e.uint("index", 0)
	if delta != nil {
		e.set("delta", delta)
	}
	o.sub("event", e)
	o.set("session_id", session)
	o.set("parent_tool_use_id", parent(first.AgentID))
	o.set("uuid", uuid)
}

// deriveControlRequest renders a permission request as can_use_tool.
func deriveControlRequest(o *obj, first *event.Event) {
	if b, ok := first.Body.(*event.PermissionRequested); ok {
		o.str("request_id", b.RequestID)
		var r obj
		r.str("subtype", "can_use_tool")
		r.str("tool_name", b.Tool)
		r.set("input", inputObject(b.Preview))
		r.str("tool_use_id", b.CallID)
		o.sub("request", r)
	}
}

// deriveControlResponse renders the answer to a permission request.
func deriveControlResponse(o *obj, first *event.Event) {
	if b, ok := first.Body.(*event.PermissionResolved); ok {
		behavior := "allow"
		if b.Outcome == event.Denied {
			behavior = "deny"
		}
		o.set("response", []byte(`{"subtype":"success","request_id":`+string(jsonStr(b.RequestID))+`,"response":{"behavior":"`+behavior+`"}}`))
	}
}

// deriveSystem renders the keys of the other lines (system lines, and
// the notices Claude Code prints as lines of their own) before their
// uuid and session_id.
func deriveSystem(o *obj, kind string, first *event.Event) {
	switch kind {
	case "system/informational":
		if b, ok := first.Body.(*event.Notice); ok {
			o.str("content", b.Message)
			o.str("level", levelWord(b.Severity))
		}
	case "rate_limit_event":
		deriveRateLimit(o, first)
	case "system/api_retry":
		if b, ok := first.Body.(*event.Retry); ok {
			o.uint("attempt", val(b.Attempt))
			o.uint("max_retries", val(b.MaxAttempts))
			o.uint("retry_delay_ms", val(b.NextDelayMS))
			o.null("error_status")
			o.str("error", errorWord(b.Error))
		}
	case "tool_progress":
		if b, ok := first.Body.(*event.ToolProgress); ok {
			o.str("tool_use_id", b.CallID)
			o.str("tool_name", b.Name)
			o.set("parent_tool_use_id", parent(first.AgentID))
			o.uint("elapsed_time_seconds", 0)
		}
	case "tool_use_summary":
		if b, ok := first.Body.(*event.Notice); ok {
			o.str("summary", b.Message)
		}
	case "system/task_updated", "system/task_started", "system/task_progress", "system/task_notification":
		if b, ok := first.Body.(*event.TaskUpdated); ok {
			deriveTask(o, kind, b)
		}
	case "system/status":
		if _, ok := first.Body.(*event.CompactionStarted); ok {
			o.str("status", "compacting")
		} else {
			o.null("status")
		}
	case "system/compact_boundary":
		o.set("compact_metadata", []byte(`{"trigger":"auto","pre_tokens":0}`))
	case "system/permission_denied":
		if b, ok := first.Body.(*event.PermissionResolved); ok {
			o.str("tool_name", b.Tool)
			o.str("tool_use_id", b.CallID)
			o.str("message", "")
		}
	}
}

// deriveRateLimit renders a notice's severity as a rate limit's status.
func deriveRateLimit(o *obj, first *event.Event) {
	status := "allowed"
	if b, ok := first.Body.(*event.Notice); ok {
		switch b.Severity {
		case event.SeverityWarning:
			status = "allowed_warning"
		case event.SeverityError:
			status = "rejected"
		}
	}
	o.set("rate_limit_info", []byte(`{"status":"`+status+`"}`))
}

// messageID is the API message id of an assistant group: a message's own,
// else the hint, else the thread's current one.
func messageID(group []*event.Event, st *wireState, h hints) string {
	for _, ev := range group {
		if b, ok := ev.Body.(*event.Message); ok && b.MessageID != "" {
			return b.MessageID
		}
	}
	if h.msgID != "" {
		return h.msgID
	}
	if th := st.threads[group[0].AgentID]; th != nil {
		return th.msgID
	}
	return ""
}

// zeroUsage is the usage of an assistant line whose usage is not known.
const zeroUsage = `{"input_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":0}`

func deriveAssistant(o *obj, group []*event.Event, st *wireState, h hints) {
	agent := group[0].AgentID
	th := st.threads[agent]
	model := st.model
	if th != nil && th.model != "" {
		model = th.model
	}
	id := messageID(group, st, h)
	var blocks [][]byte
	for _, ev := range group {
		var blk obj
		switch b := ev.Body.(type) {
		case *event.Message:
			blk.str("type", "text")
			blk.str("text", b.Text)
		case *event.Reasoning:
			blk.str("type", "thinking")
			blk.str("thinking", b.Text)
			blk.str("signature", "")
		case *event.ToolCall:
			blk.str("type", "tool_use")
			blk.str("id", b.CallID)
			blk.str("name", b.Name)
			blk.set("input", inputObject(b.Input))
		default:
			continue
		}
		blocks = append(blocks, blk.bytes(nil))
	}
	usage := []byte(zeroUsage)
	if th != nil && th.msgID == id && len(th.usage) > 0 {
		usage = th.usage
	}
	var m obj
	m.str("model", model)
	m.str("id", id)
	m.str("type", "message")
	m.str("role", "assistant")
	m.set("content", array(nil, blocks...))
	m.null("stop_reason")
	m.null("stop_sequence")
	m.null("stop_details")
	m.set("usage", usage)
	m.null("diagnostics")
	m.null("context_management")
	o.sub("message", m)
	o.set("parent_tool_use_id", parent(agent))
}

// subagent adds the subagent keys a subagent's lines repeat from its
// system/task_started.
func subagent(o *obj, ev *event.Event, st *wireState) {
	if ev.AgentID == "" {
		return
	}
	if t, ok := st.tasks[ev.AgentID]; ok {
		if t.subagentType != "" {
			o.str("subagent_type", t.subagentType)
		}
		if t.description != "" {
			o.str("task_description", t.description)
		}
	}
}

func deriveInit(o *obj, ev *event.Event, st *wireState) {
	var s event.SessionStarted
	switch b := ev.Body.(type) {
	case *event.SessionStarted:
		s = *b
	case *event.ModelConfigured:
		s = event.SessionStarted{Model: b.Model, SessionID: st.session}
	}
	o.str("cwd", s.Workspace)
	o.str("session_id", s.SessionID)
	o.set("tools", []byte("[]"))
	var servers [][]byte
	for _, n := range s.MCPServers {
		servers = append(servers, []byte(`{"name":`+string(jsonStr(n))+`,"status":"connected"}`))
	}
	o.set("mcp_servers", array(nil, servers...))
	o.str("model", s.Model)
	o.str("permissionMode", "default")
	var cmds []string
	for _, c := range s.Commands {
		cmds = append(cmds, c.Name)
	}
	o.set("slash_commands", stringsArray(cmds))
	o.str("apiKeySource", "none")
	if s.Agent != nil && s.Agent.Name == agentName && s.Agent.Version != "" {
		o.str("claude_code_version", s.Agent.Version)
	}
	o.str("output_style", "default")
	var skills []string
	for _, k := range s.Skills {
		skills = append(skills, k.Name)
	}
	o.set("skills", stringsArray(skills))
	o.set("plugins", []byte("[]"))
}

// agentName names Claude Code in session_started.agent.
const agentName = "claude-code"

func deriveResult(o *obj, ev *event.Event, st *wireState) {
	b, _ := ev.Body.(*event.TurnFinished)
	if b == nil {
		b = &event.TurnFinished{Status: event.StatusOK}
	}
	subtype := "success"
	switch {
	case b.Status == event.StatusOK:
	case b.StopReason == event.StopMaxTurnRequests:
		subtype = "error_max_turns"
	default:
		subtype = "error_during_execution"
	}
	o.str("subtype", subtype)
	o.boolean("is_error", b.Status != event.StatusOK)
	o.uint("duration_ms", 0)
	o.uint("duration_api_ms", 0)
	o.uint("num_turns", st.rounds)
	if subtype == "success" {
		text := ""
		if b.Text != nil {
			text = *b.Text
		}
		o.str("result", text)
	}
	if w := stopWord(b.StopReason); w != "" {
		o.str("stop_reason", w)
	} else {
		o.null("stop_reason")
	}
	o.str("session_id", st.session)
	u := b.Usage
	if u == nil {
		u = &event.Usage{}
	}
	if u.CostUSD != "" {
		// The turn's share, written as the process's running total.
		o.set("total_cost_usd", []byte(runningCost(string(u.CostUSD), st.cost)))
	} else {
		o.uint("total_cost_usd", 0)
	}
	var us obj
	us.uint("input_tokens", val(u.InputTokens))
	us.uint("cache_creation_input_tokens", val(u.CacheCreationTokens))
	us.uint("cache_read_input_tokens", val(u.CacheReadTokens))
	us.uint("output_tokens", val(u.OutputTokens))
	o.sub("usage", us)
	o.set("modelUsage", []byte("{}"))
	o.set("permission_denials", []byte("[]"))
	if b.Status == event.StatusCancelled {
		o.str("terminal_reason", "aborted_streaming")
	}
	if subtype != "success" {
		var errs []string
		if b.Reason != "" {
			errs = append(errs, b.Reason)
		}
		o.set("errors", stringsArray(errs))
	}
}

func deriveTask(o *obj, kind string, b *event.TaskUpdated) {
	o.str("task_id", b.TaskID)
	switch kind {
	case "system/task_started":
		o.str("description", b.Title)
		if b.Kind == event.TaskSubagent {
			o.str("task_type", "local_agent")
		}
	case "system/task_progress":
		o.str("description", b.Title)
	case "system/task_notification":
		status := "completed"
		switch b.Status {
		case event.TaskFailed:
			status = "failed"
		case event.TaskCancelled:
			status = "stopped"
		}
		o.str("status", status)
		o.str("output_file", "")
		o.str("summary", b.Title)
	default:
		var p obj
		p.str("status", taskWord(b.Status))
		if b.Title != "" {
			p.str("description", b.Title)
		}
		if b.Reason != "" {
			p.str("error", b.Reason)
		}
		o.sub("patch", p)
	}
}

// inputObject renders a tool input as Claude Code's tool_use.input, an
// object: another JSON value is wrapped as {"input": value}.
func inputObject(raw []byte) []byte {
	r := gjson.ParseBytes(raw)
	switch {
	case len(raw) == 0:
		return []byte("{}")
	case r.IsObject():
		return raw
	}
	return append(append([]byte(`{"input":`), raw...), '}')
}

// errorWords are the assistant error enum of SDK 0.3.333.
var errorWords = []string{"authentication_failed", "oauth_org_not_allowed", "account_on_hold", "verification_required",
	"billing_error", "rate_limit", "overloaded", "invalid_request", "model_not_found", "server_error", "unknown",
	"max_output_tokens", "cloud_credential_error"}

// errorWord renders an error as the assistant error enum: the word itself
// when it is one, else "unknown".
func errorWord(s string) string {
	for _, w := range errorWords {
		if s == w {
			return s
		}
	}
	return "unknown"
}

func val(p *uint64) uint64 {
	if p == nil {
		return 0
	}
	return *p
}
