package codex

import (
	"strings"

	"github.com/evtool/evtool/event"
)

// Codex's words for the canonical vocabulary. A word a table lacks (a
// newer producer's) reads as the table's default; the line's residue
// keeps the word itself, so it is written back as it was.

// The canonical tool names this dialect gives its item types. Codex names
// no tool for a command or a patch; these are the names of the model
// tools behind them.
const (
	toolShell     = "shell"
	toolPatch     = "apply_patch"
	toolWebSearch = "web_search"
)

// finalStatuses read the status of a completed tool item. in_progress on
// a completed item is one the turn's end closed before it finished.
var finalStatuses = map[string]event.ToolStatus{
	"completed":   event.ToolSuccess,
	"failed":      event.ToolError,
	"declined":    event.ToolRejected, // command_execution: approval refused
	"in_progress": event.ToolCancelled,
}

// statusWord renders a canonical tool status for an item type. Only
// command_execution has a word for a refused call; every other item
// reports it, and a cancelled call, as failed (a declined patch is
// reported as failed by Codex itself).
func statusWord(itemType string, s event.ToolStatus) (word string, exact bool) {
	switch s {
	case event.ToolSuccess:
		return "completed", true
	case event.ToolError:
		return "failed", true
	case event.ToolRejected:
		if itemType == "command_execution" {
			return "declined", true
		}
	}
	return "failed", false
}

// The word sets of Codex's closed enums, as far as they are known: the
// union of the Rust types and the SDK. They grow between minor versions
// (command's declined, a patch's in_progress, an agent's interrupted came
// that way), so a reader takes a newer word: codex/unknown-value reports
// it, the decoder reads it by its table's default and the line's residue
// keeps the word.
var (
	// statusWords are the item statuses per tool item type.
	statusWords = map[string][]string{
		"command_execution": {"in_progress", "completed", "failed", "declined"},
		"file_change":       {"in_progress", "completed", "failed"},
		"mcp_tool_call":     {"in_progress", "completed", "failed"},
		"collab_tool_call":  {"in_progress", "completed", "failed"},
	}
	// changeKinds are file_change's PatchChangeKind values.
	changeKinds = []string{"add", "delete", "update"}
	// agentWordSet are CollabAgentStatus's values.
	agentWordSet = []string{"pending_init", "running", "completed", "errored", "shutdown", "not_found", "interrupted"}
	// actionTypes are WebSearchAction's tags (serde(other) reads any other
	// one as other).
	actionTypes = []string{"search", "open_page", "find_in_page", "other"}
)

// agentStatuses read a collab agent's CollabAgentStatus into a task
// status; agentWords is the way back.
var agentStatuses = map[string]event.TaskStatus{
	"pending_init": event.TaskPending,
	"running":      event.TaskRunning,
	"completed":    event.TaskCompleted,
	"errored":      event.TaskFailed,
	"shutdown":     event.TaskCancelled,
	"not_found":    event.TaskFailed,
	"interrupted":  event.TaskCancelled, // newer processors only
}

var agentWords = map[event.TaskStatus]string{
	event.TaskPending:   "pending_init",
	event.TaskRunning:   "running",
	event.TaskCompleted: "completed",
	event.TaskFailed:    "errored",
	event.TaskCancelled: "shutdown",
}

// collabTools are CollabTool's values.
var collabTools = []string{"spawn_agent", "send_input", "wait", "close_agent"}

// webKind gives a web search's kind by its action: opening a page fetches
// it; every other action searches.
func webKind(action string) event.ToolKind {
	if action == "open_page" {
		return event.KindFetch
	}
	return event.KindSearch
}

// mcpKind gives an MCP tool's kind by its name, in the words MCP servers
// commonly use; any other tool is "other".
func mcpKind(tool string) event.ToolKind {
	n := strings.ToLower(tool)
	if k, ok := mcpKinds[n]; ok {
		return k
	}
	for _, p := range mcpPrefixes {
		if strings.HasPrefix(n, p.prefix) {
			return p.kind
		}
	}
	return event.KindOther
}

var mcpKinds = map[string]event.ToolKind{
	"read": event.KindRead, "read_file": event.KindRead, "read_text_file": event.KindRead, "read_multiple_files": event.KindRead,
	"list_directory": event.KindRead, "list_files": event.KindRead, "directory_tree": event.KindRead, "get_file_info": event.KindRead,
	"write": event.KindEdit, "write_file": event.KindEdit, "edit": event.KindEdit, "edit_file": event.KindEdit,
	"create_directory": event.KindEdit, "apply_patch": event.KindEdit,
	"delete": event.KindDelete, "delete_file": event.KindDelete, "remove_file": event.KindDelete,
	"move": event.KindMove, "move_file": event.KindMove, "rename_file": event.KindMove,
	"search": event.KindSearch, "search_files": event.KindSearch, "grep": event.KindSearch, "glob": event.KindSearch,
	"web_search": event.KindSearch, "search_code": event.KindSearch,
	"fetch": event.KindFetch, "web_fetch": event.KindFetch, "fetch_url": event.KindFetch,
	"shell": event.KindExecute, "bash": event.KindExecute, "exec": event.KindExecute, "execute_command": event.KindExecute,
	"run_command": event.KindExecute, "run_terminal_cmd": event.KindExecute,
	"think": event.KindThink, "sequentialthinking": event.KindThink, "sequential_thinking": event.KindThink,
}

// mcpPrefixes give the kind of tools named by a verb prefix, such as
// GitHub's get_issue or search_repositories.
var mcpPrefixes = []struct {
	prefix string
	kind   event.ToolKind
}{
	{"search_", event.KindSearch}, {"find_", event.KindSearch}, {"query_", event.KindSearch},
	{"read_", event.KindRead}, {"get_", event.KindRead}, {"list_", event.KindRead},
	{"fetch_", event.KindFetch},
	{"write_", event.KindEdit}, {"edit_", event.KindEdit}, {"create_", event.KindEdit}, {"update_", event.KindEdit},
	{"delete_", event.KindDelete}, {"remove_", event.KindDelete},
	{"move_", event.KindMove}, {"rename_", event.KindMove},
	{"run_", event.KindExecute}, {"exec_", event.KindExecute},
}

// changeKind gives a patch's kind: a patch that only deletes files
// deletes; any other edits.
func changeKind(kinds []string) event.ToolKind {
	if len(kinds) == 0 {
		return event.KindEdit
	}
	for _, k := range kinds {
		if k != "delete" {
			return event.KindEdit
		}
	}
	return event.KindDelete
}
