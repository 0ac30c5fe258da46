package claude

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/evtool/evtool/adapters/internal/claudecode"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/tidwall/gjson"
)

// The lines besides messages and results: system lines, control lines
// (permissions) and the other notices Claude Code prints.

// system reads a system line (and any other line decode does not know);
// it reports whether the line only rides along.
func (l *line) system() bool {
	switch l.kind {
	case "system/compact_boundary":
		l.group = append(l.group, &event.Event{Body: &event.CompactionFinished{}})
	case "system/status":
		l.status()
	case "system/api_retry":
		l.apiRetry()
	case "system/task_started", "system/task_progress", "system/task_updated", "system/task_notification":
		l.task()
	case "system/background_tasks_changed":
		l.backgroundTasks()
	case "system/permission_denied":
		l.group = append(l.group, &event.Event{Body: &event.PermissionResolved{CallID: l.str("tool_use_id"), Tool: l.str("tool_name"), Outcome: event.Denied}})
	default:
		sev, msg, ok := l.systemNotice()
		if !ok {
			// Protocol and bookkeeping lines: keep_alive, control_cancel_request,
			// active_goal, autocompact_state, system/session_state_changed,
			// system/control_request_progress, system/commands_changed.
			return true
		}
		l.notice(sev, msg)
	}
	return false
}

// systemNotice returns the notice a system line that is only news is
// read as; ok is false for a line that is not one.
func (l *line) systemNotice() (sev event.Severity, msg string, ok bool) {
	switch l.kind {
	case "system/thinking_tokens":
		return event.SeverityInfo, "thinking, about " + l.r.Get("estimated_tokens").Raw + " tokens so far", true
	case "system/model_refusal_fallback", "system/model_refusal_no_fallback":
		return event.SeverityWarning, l.refusal(), true
	case "system/hook_started", "system/hook_progress", "system/hook_response":
		sev, msg = l.hook()
	case "system/informational":
		sev, ok = levels[l.str("level")]
		if !ok {
			sev = event.SeverityInfo
		}
		msg = l.str("content")
	case "system/notification":
		sev = event.SeverityInfo
		if p := l.str("priority"); p == "high" || p == "immediate" {
			sev = event.SeverityWarning
		}
		msg = l.str("text")
	case "system/local_command_output":
		return event.SeverityInfo, l.str("content"), true
	case "system/post_turn_summary":
		return event.SeverityInfo, cmp.Or(l.str("status_detail"), l.str("status_category"), "turn summary"), true
	case "system/task_summary":
		return event.SeverityInfo, cmp.Or(l.str("detail"), "task summary"), true
	case "system/plugin_install":
		sev = event.SeverityInfo
		if l.str("status") == "failed" {
			sev = event.SeverityWarning
		}
		msg = "plugin " + l.str("name") + ": " + l.str("status")
	case "system/files_persisted":
		return event.SeverityInfo, fmt.Sprintf("files persisted: %d, failed: %d", len(l.r.Get("files").Array()), len(l.r.Get("failed").Array())), true
	case "system/memory_recall":
		return event.SeverityInfo, fmt.Sprintf("memory recall (%s): %d memories", l.str("mode"), len(l.r.Get("memories").Array())), true
	case "system/elicitation_complete":
		return event.SeverityInfo, "MCP elicitation complete: " + l.str("mcp_server_name"), true
	case "system/worker_shutting_down":
		return event.SeverityWarning, "worker shutting down: " + l.str("reason"), true
	case "system/mirror_error":
		return event.SeverityWarning, "mirror error: " + l.str("error"), true
	case "system/session_writes_lost":
		return event.SeverityError, "session writes lost: " + l.str("error_code"), true
	default:
		return "", "", false
	}
	return sev, msg, true
}

func (l *line) rateLimit() {
	info := l.r.Get("rate_limit_info")
	status := info.Get("status").Str
	sev, ok := rateLimitSeverities[status]
	if !ok {
		sev = event.SeverityInfo
	}
	msg := "rate limit " + status
	if t := info.Get("rateLimitType").Str; t != "" {
		msg += " (" + t + ")"
	}
	if v := info.Get("utilization"); v.Type == gjson.Number {
		msg += ", utilization " + v.Raw
	}
	l.notice(sev, msg)
}

// toolProgress reads a tool_progress line: progress of a running call, a
// notice for one that has its result.
func (l *line) toolProgress() {
	id, name := l.str("tool_use_id"), l.str("tool_name")
	c := l.knownCall(id, name)
	msg := name + " running"
	if v := l.r.Get("elapsed_time_seconds"); v.Type == gjson.Number {
		msg += " for " + v.Raw + " s"
	}
	if c.closed {
		l.notice(event.SeverityInfo, msg+" (after its result)")
		return
	}
	l.group = append(l.group, &event.Event{AgentID: l.thread(), Body: &event.ToolProgress{CallID: id, Name: name, Message: msg}})
}

func (l *line) authStatus() {
	msg, sev := "authenticating", event.SeverityInfo
	var lines []string
	jsonobj.ForEach(l.r.Get("output"), func(_, v gjson.Result) bool {
		lines = append(lines, v.Str)
		return true
	})
	if len(lines) > 0 {
		msg = strings.Join(lines, "\n")
	}
	if e := l.str("error"); e != "" {
		msg, sev = e, event.SeverityError
	}
	l.notice(sev, msg)
}

// status reads system/status: compaction starting, failing, or the
// session's status.
func (l *line) status() {
	switch {
	case l.str("status") == "compacting":
		l.group = append(l.group, &event.Event{Body: &event.CompactionStarted{}})
	case l.str("compact_result") == "failed":
		l.notice(event.SeverityWarning, "compaction failed: "+l.str("compact_error"))
	default:
		s := l.str("status")
		if s == "" {
			s = "idle"
		}
		l.notice(event.SeverityInfo, "status: "+s)
	}
}

func (l *line) apiRetry() {
	b := &event.Retry{Error: l.str("error"), Attempt: claudecode.Count(l.r.Get("attempt")), MaxAttempts: claudecode.Count(l.r.Get("max_retries")),
		NextDelayMS: claudecode.Count(l.r.Get("retry_delay_ms"))}
	if s := l.r.Get("error_status"); s.Type == gjson.Number {
		b.Error += " (HTTP " + s.Raw + ")"
	}
	l.group = append(l.group, &event.Event{Body: b})
}

// refusal is the text of a model_refusal line.
func (l *line) refusal() string {
	msg := "the model refused"
	if f := l.str("fallback_model"); f != "" {
		msg += "; falling back to " + f
	}
	if c := l.str("content"); c != "" {
		msg += ": " + c
	}
	return msg
}

// hook is the notice of a hook line: a warning for a hook that failed.
func (l *line) hook() (event.Severity, string) {
	sev := event.SeverityInfo
	what := strings.TrimPrefix(l.kind, "system/hook_")
	if o := l.str("outcome"); o != "" {
		what = o
		if o != "success" {
			sev = event.SeverityWarning
		}
	}
	return sev, "hook " + l.str("hook_event") + " " + l.str("hook_name") + ": " + what
}

// backgroundTasks reads the background tasks a line lists, one
// task_updated each.
func (l *line) backgroundTasks() {
	d := l.d
	jsonobj.ForEach(l.r.Get("tasks"), func(_, t gjson.Result) bool {
		id := t.Get("task_id").Str
		k := taskKind(t.Get("task_type").Str, t.Get("subagent_type").Str)
		d.tasks[strings.Clone(id)] = k
		l.group = append(l.group, &event.Event{Body: &event.TaskUpdated{TaskID: id, Kind: k, Status: d.taskStatus(id, event.TaskRunning),
			Title: t.Get("description").Str, ParentTaskID: t.Get("parent_task_id").Str}})
		return true
	})
	if len(l.group) == 0 {
		l.notice(event.SeverityInfo, "no background tasks")
	}
}

// controlRequest reads a can_use_tool request as a permission request;
// every other control request rides along.
func (l *line) controlRequest() bool {
	if l.str("request.subtype") != "can_use_tool" {
		return true
	}
	req := l.r.Get("request")
	b := &event.PermissionRequested{RequestID: l.str("request_id"), CallID: req.Get("tool_use_id").Str, Tool: req.Get("tool_name").Str}
	for _, k := range []string{"title", "description", "display_name"} {
		if v := req.Get(k); v.Type == gjson.String && v.Str != "" {
			b.Description = v.Str
			break
		}
	}
	if in := req.Get("input"); in.Exists() {
		b.Preview = compact(in.Raw)
	}
	l.d.perms[strings.Clone(b.RequestID)] = permInfo{call: strings.Clone(b.CallID), tool: strings.Clone(b.Tool)}
	l.group = append(l.group, &event.Event{Body: b})
	return false
}

// controlResponse reads the answer to a permission request; an answer to
// any other request rides along.
func (l *line) controlResponse() bool {
	d := l.d
	id := l.str("response.request_id")
	p, ok := d.perms[id]
	if !ok {
		return true
	}
	delete(d.perms, id)
	outcome := event.Denied
	if l.str("response.subtype") == "success" && l.str("response.response.behavior") == "allow" {
		outcome = event.Allowed
	}
	l.group = append(l.group, &event.Event{Body: &event.PermissionResolved{RequestID: id, CallID: p.call, Tool: p.tool, Outcome: outcome}})
	return false
}

func (l *line) init() {
	d := l.d
	model := l.str("model")
	if d.started {
		if d.st.newProcess(l.r) {
			// Another process's run appended to the same file (`claude -p
			// … >> log.jsonl`): its running totals start anew, and what
			// the earlier process spent stays in the session's usage.
			d.newProcess()
			l.pre = append(l.pre, &event.Event{Synthetic: true, Body: &event.Notice{Severity: event.SeverityInfo,
				Message: "another Claude Code process begins: session " + l.str("session_id")}})
		}
		// A later init (streaming input starts each turn with one).
		l.group = append(l.group, &event.Event{Body: &event.ModelConfigured{Model: model}})
		d.models[""] = strings.Clone(model)
		return
	}
	d.models[""] = strings.Clone(model)
	s := &event.SessionStarted{Schema: event.SchemaVersion, Source: event.SourceInfo{Dialect: Name}, Agent: &event.Agent{Name: agentName},
		SessionID: l.str("session_id"), Workspace: l.str("cwd"), Model: model}
	s.Agent.Version = l.str("claude_code_version")
	jsonobj.ForEach(l.r.Get("mcp_servers"), func(_, v gjson.Result) bool {
		if n := v.Get("name"); n.Type == gjson.String {
			s.MCPServers = append(s.MCPServers, n.Str)
		}
		return true
	})
	jsonobj.ForEach(l.r.Get("slash_commands"), func(_, v gjson.Result) bool {
		if v.Type == gjson.String {
			s.Commands = append(s.Commands, event.Command{Name: v.Str})
		}
		return true
	})
	jsonobj.ForEach(l.r.Get("skills"), func(_, v gjson.Result) bool {
		if v.Type == gjson.String {
			s.Skills = append(s.Skills, event.Skill{Name: v.Str})
		}
		return true
	})
	l.group = append(l.group, &event.Event{Body: s})
}

// taskStatus returns a task's status, or its last known one (else def)
// when the line does not say.
func (d *Decoder) taskStatus(id string, s event.TaskStatus) event.TaskStatus {
	if s == "" {
		if s = d.statuses[id]; s == "" {
			s = event.TaskRunning
		}
	}
	d.statuses[strings.Clone(id)] = s
	return s
}

func (l *line) task() {
	d := l.d
	id := l.str("task_id")
	b := &event.TaskUpdated{TaskID: id}
	switch l.kind {
	case "system/task_started":
		b.Kind = taskKind(l.str("task_type"), l.str("subagent_type"))
		d.tasks[strings.Clone(id)] = b.Kind
		b.Status = d.taskStatus(id, event.TaskRunning)
		b.Title, b.Detail, b.ParentTaskID = l.str("description"), l.str("prompt"), l.str("parent_task_id")
	case "system/task_progress":
		b.Status = d.taskStatus(id, event.TaskRunning)
		b.Title = l.str("description")
		if s := l.str("summary"); s != "" {
			b.Detail = s
		} else if t := l.str("last_tool_name"); t != "" {
			b.Detail = "last tool: " + t
		}
	case "system/task_updated":
		var s event.TaskStatus
		if w := l.str("patch.status"); w != "" {
			if s = taskStatuses[w]; s == "" {
				s = event.TaskRunning
			}
		}
		b.Status = d.taskStatus(id, s)
		b.Title, b.Reason = l.str("patch.description"), l.str("patch.error")
	case "system/task_notification":
		s := notificationStatuses[l.str("status")]
		if s == "" {
			s = event.TaskCompleted
		}
		b.Status = d.taskStatus(id, s)
		b.Title, b.Detail, b.Reason = l.str("summary"), l.str("output_file"), l.str("reason")
	}
	if b.Kind == "" {
		b.Kind = d.tasks[id]
	}
	if b.Title == "" {
		b.Title = d.titles[id] // what the task is, as its start said
	} else if l.kind == "system/task_started" {
		d.titles[strings.Clone(id)] = strings.Clone(b.Title)
	}
	l.group = append(l.group, &event.Event{Body: b})
}
