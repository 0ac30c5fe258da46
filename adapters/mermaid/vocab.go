package mermaid

import (
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/toolkind"
)

// mermaid's words for the canonical vocabulary. A word missing from a
// table is a newer producer's: it is kept in ext.mermaid and written back
// as it was.
var (
	// toolStatuses are the words mermaid's status_str writes, and no
	// others: tool_finished.status is a plain String on the wire, so any
	// other word is read but is unknown (mermaid/unknown-value). The
	// canonical status, a closed and required set without a word for "not
	// known", is then error (see the decoder), the word kept in ext.mermaid.
	toolStatuses = map[string]event.ToolStatus{
		"success":   event.ToolSuccess,
		"error":     event.ToolError,
		"cancelled": event.ToolCancelled,
	}
	// stopReasons are the provider stop reasons mermaid passes through on
	// turn_done; other providers' words are kept as they are.
	stopReasons = map[string]event.StopReason{
		"stop":           event.StopEndTurn,
		"end_turn":       event.StopEndTurn,
		"tool_use":       event.StopToolUse,
		"tool_calls":     event.StopToolUse,
		"length":         event.StopMaxTokens,
		"max_tokens":     event.StopMaxTokens,
		"content_filter": event.StopRefusal,
		"refusal":        event.StopRefusal,
	}
)

// The documented closed sets of mermaid's open-string fields (mermaid
// types them as String, so a newer mermaid may write other words): the
// checker reports any other word as mermaid/unknown-value, and the decoder
// keeps it as written. turn_done.stop_reason and approval_required.risk are
// open sets upstream ("or any other provider string", "e.g."), so they
// have none.
var (
	// tool_finished.status: status_str in run_event.rs.
	knownToolStatuses = []string{"success", "error", "cancelled"}
	// TaskLine.status: TaskStatus::as_str ("pending / in_progress /
	// completed" in TaskLine's doc comment).
	knownTaskStatuses = []string{"pending", "in_progress", "completed"}
	// TaskLine.origin: From<&TaskItem> writes "model" or "user" (or null).
	knownTaskOrigins = []string{"model", "user"}
)

// stopWord renders a canonical stop reason as mermaid writes it.
func stopWord(r event.StopReason) string {
	switch r {
	case event.StopEndTurn:
		return "stop"
	case event.StopToolUse:
		return "tool_use"
	case event.StopMaxTokens:
		return "length"
	case event.StopRefusal:
		return "content_filter"
	}
	return string(r)
}

// toolKind returns what a mermaid tool does, from its name. mermaid's
// tools name their action; an MCP tool is "<server>/<tool>".
func toolKind(name string) event.ToolKind { return toolkind.ByName(toolKinds, name) }

var toolKinds = map[string]event.ToolKind{
	"read_file": event.KindRead, "read": event.KindRead, "view": event.KindRead, "cat": event.KindRead,
	"list_files": event.KindRead, "ls": event.KindRead, "list_directory": event.KindRead,
	"write_file": event.KindEdit, "write": event.KindEdit, "edit": event.KindEdit, "edit_file": event.KindEdit,
	"apply_patch": event.KindEdit, "patch": event.KindEdit, "create_directory": event.KindEdit, "mkdir": event.KindEdit,
	"delete_file": event.KindDelete, "delete": event.KindDelete, "remove": event.KindDelete, "rm": event.KindDelete,
	"move": event.KindMove, "move_file": event.KindMove, "rename": event.KindMove,
	"search": event.KindSearch, "grep": event.KindSearch, "glob": event.KindSearch, "find": event.KindSearch,
	"web_search": event.KindSearch, "search_files": event.KindSearch,
	"execute_command": event.KindExecute, "bash": event.KindExecute, "shell": event.KindExecute,
	"command": event.KindExecute, "exec": event.KindExecute, "run": event.KindExecute,
	"background_command": event.KindExecute, "computer_use": event.KindExecute,
	"web_fetch": event.KindFetch, "fetch": event.KindFetch, "http": event.KindFetch,
	"think": event.KindThink, "load_skill": event.KindThink,
	"exit_plan_mode": event.KindSwitchMode, "enter_plan_mode": event.KindSwitchMode,
}
