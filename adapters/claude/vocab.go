package claude

import (
	"strings"

	"github.com/evtool/evtool/event"
)

// Claude Code's words for the canonical vocabulary. A word missing from a
// table is a newer producer's: the canonical value says "other" (or the
// closest), and the residue keeps the word, so it is written back as it was.

// stopWord renders a canonical stop reason as Claude Code writes it; ""
// for a reason it has no word for (written as null).
func stopWord(r event.StopReason) string {
	switch r {
	case event.StopEndTurn, event.StopToolUse, event.StopMaxTokens, event.StopRefusal:
		return string(r)
	}
	return ""
}

// taskStatuses are system/task_updated's patch.status words.
var taskStatuses = map[string]event.TaskStatus{
	"pending":   event.TaskPending,
	"running":   event.TaskRunning,
	"paused":    event.TaskRunning, // not ended; canonical has no paused
	"completed": event.TaskCompleted,
	"failed":    event.TaskFailed,
	"killed":    event.TaskCancelled,
}

// notificationStatuses are system/task_notification's status words.
var notificationStatuses = map[string]event.TaskStatus{
	"completed": event.TaskCompleted,
	"failed":    event.TaskFailed,
	"stopped":   event.TaskCancelled,
}

// taskWord renders a canonical task status as task_updated's patch.status.
func taskWord(s event.TaskStatus) string {
	switch s {
	case event.TaskCancelled:
		return "killed"
	case event.TaskPending, event.TaskRunning, event.TaskCompleted, event.TaskFailed:
		return string(s)
	}
	return "running"
}

// levels are system/informational's level words.
var levels = map[string]event.Severity{
	"info":       event.SeverityInfo,
	"notice":     event.SeverityInfo,
	"suggestion": event.SeverityInfo,
	"warning":    event.SeverityWarning,
}

// levelWord renders a notice severity as system/informational's level.
// Claude Code's levels have no "error"; an error notice is a warning there.
func levelWord(s event.Severity) string {
	if s == event.SeverityWarning || s == event.SeverityError {
		return "warning"
	}
	return "info"
}

// rateLimitSeverities map rate_limit_info.status.
var rateLimitSeverities = map[string]event.Severity{
	"allowed":         event.SeverityInfo,
	"allowed_warning": event.SeverityWarning,
	"rejected":        event.SeverityError,
}

// isTodoWrite reports whether a tool's input is a checklist snapshot.
func isTodoWrite(name string) bool { return name == "TodoWrite" }

// taskKind says what a system/task_* task is, from its task_type and
// subagent_type: an agent (local_agent, remote_agent, or any task with a
// subagent type) is a subagent, anything else (a background shell) a
// background task.
func taskKind(taskType, subagentType string) event.TaskKind {
	if subagentType != "" || strings.HasSuffix(taskType, "_agent") {
		return event.TaskSubagent
	}
	return event.TaskBackground
}
