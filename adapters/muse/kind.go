package muse

import (
	"strings"

	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/toolkind"
)

// toolKinds maps Muse's tool names (the <name> of a tool.<name> task and
// correlation_facts.tool_name) to what the call does. Muse names its tools
// in snake_case: write_file, read_file, bash and command are in the
// captures and Muse's own types; the rest are its names for the same kinds
// of work.
var toolKinds = map[string]event.ToolKind{
	"read_file": event.KindRead, "read_many_files": event.KindRead, "list_files": event.KindRead,
	"list_directory": event.KindRead, "view_file": event.KindRead,

	"write_file": event.KindEdit, "edit_file": event.KindEdit, "apply_patch": event.KindEdit,
	"create_file": event.KindEdit, "create_directory": event.KindEdit,

	"delete_file": event.KindDelete, "remove_file": event.KindDelete,

	"move_file": event.KindMove, "rename_file": event.KindMove,

	"search_files": event.KindSearch, "grep": event.KindSearch, "glob": event.KindSearch,
	"find_files": event.KindSearch, "web_search": event.KindSearch,

	"bash": event.KindExecute, "command": event.KindExecute, "shell": event.KindExecute,
	"execute_command": event.KindExecute, "background_command": event.KindExecute,

	"web_fetch": event.KindFetch, "fetch": event.KindFetch,

	"think": event.KindThink, "load_skill": event.KindThink,

	"enter_plan_mode": event.KindSwitchMode, "exit_plan_mode": event.KindSwitchMode,
}

// toolKind returns what a Muse tool call does, from its tool name. An MCP
// tool, "<server>/<tool>", is known by its last part; an unknown name is
// "other".
func toolKind(name string) event.ToolKind { return toolkind.ByName(toolKinds, name) }

// taskKind returns the canonical kind of a task that is not a tool call,
// from Muse's task_kind: a subagent's task (task_kind "subagent" or
// "subagent.<name>", or "agent.subagent…") is a subagent; the kinds
// evtool writes for background tasks and teammates read back as those;
// everything else (model.<provider>.response, reminder.agent.plugin:…,
// kinds Muse adds) is Muse's own housekeeping.
func taskKind(museKind string) event.TaskKind {
	switch {
	case museKind == "subagent" || strings.HasPrefix(museKind, "subagent.") || strings.HasPrefix(museKind, "agent.subagent"):
		return event.TaskSubagent
	case museKind == string(event.TaskBackground):
		return event.TaskBackground
	case museKind == string(event.TaskTeammate):
		return event.TaskTeammate
	}
	return event.TaskInternal
}

// museTaskKind is the task_kind written for a task of canonical kind k
// whose source task_kind is unknown: the canonical word, which taskKind
// reads back as k ("task" when the kind is not stated).
func museTaskKind(k event.TaskKind) string {
	if k == "" {
		return "task"
	}
	return string(k)
}

// taskStatus returns where a task stands after a lifecycle event of kind k.
func taskStatus(k string) event.TaskStatus {
	switch k {
	case "proposed", "accepted", "scheduled", "side_effect_intent":
		return event.TaskPending
	case "started", "status", "output":
		return event.TaskRunning
	case "completed":
		return event.TaskCompleted
	case "cancelled":
		return event.TaskCancelled
	}
	return event.TaskFailed // failed, rejected
}

// lifecycleKind is the lifecycle kind written for a task status when the
// source's own kind is unknown, or "" for a status outside the vocabulary.
func lifecycleKind(s event.TaskStatus) string {
	switch s {
	case event.TaskPending:
		return "proposed"
	case event.TaskRunning:
		return "started"
	case event.TaskCompleted, event.TaskFailed, event.TaskCancelled:
		return string(s)
	}
	return ""
}

// runStatus returns how a turn ended from a run.terminal state.
func runStatus(terminal string) event.Status {
	switch terminal {
	case "completed":
		return event.StatusOK
	case "cancelled":
		return event.StatusCancelled
	}
	return event.StatusError
}

// terminalOf is the run.terminal state written for a turn's status.
func terminalOf(s event.Status) string {
	switch s {
	case event.StatusError:
		return "failed"
	case event.StatusCancelled:
		return "cancelled"
	}
	return "completed"
}

// toolStatus returns how a tool call ended from its task's terminal kind.
func toolStatus(k string) event.ToolStatus {
	switch k {
	case "completed":
		return event.ToolSuccess
	case "cancelled":
		return event.ToolCancelled
	case "rejected":
		return event.ToolRejected
	}
	return event.ToolError
}
