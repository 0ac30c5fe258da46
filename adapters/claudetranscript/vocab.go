package claudetranscript

import (
	"strings"

	"github.com/evtool/evtool/adapters/internal/claudecode"
	"github.com/evtool/evtool/event"
)

// The words of Claude Code's transcripts: the line types each version
// writes, and the producer's words for the canonical vocabulary. A type
// or subtype missing here is a newer producer's: its line is kept whole
// (an unknown event) and the checker says so (claude-transcript/unknown-type).

// conversation are the line types of the conversation tree: each has a
// uuid, a parentUuid, a sessionId and a timestamp (the SDK's
// TranscriptEntry types).
var conversation = map[string]bool{
	"user": true, "assistant": true, "system": true, "progress": true, "attachment": true,
}

// metadata maps each metadata line type to the key that says what the line
// is about. Claude Code appends these beside the conversation and, from
// 2.1, appends the session's current title, tag, mode and the like again
// every so often, so they repeat. summary (1.0: the summary of an earlier
// conversation, before compact boundaries existed) and file-history-snapshot
// name no session; the others do.
var metadata = map[string]string{
	"summary":               "summary",
	"custom-title":          "customTitle",
	"ai-title":              "aiTitle",
	"tag":                   "tag",
	"last-prompt":           "lastPrompt",
	"file-history-snapshot": "snapshot",
	"queue-operation":       "operation",
	"permission-mode":       "permissionMode",
	"mode":                  "mode",
	"worktree-state":        "worktreeSession",
	"content-replacement":   "replacements",
	"agent-name":            "agentName",
	"agent-color":           "agentColor",
	"agent-setting":         "agentSetting",
	"pr-link":               "prNumber",
}

// systemSubtypes are the subtypes of system lines Claude Code writes; a
// system line of 1.0 may have none (a hook's message with a level).
var systemSubtypes = map[string]bool{
	"compact_boundary":      true,
	"microcompact_boundary": true,
	"api_error":             true,
	"turn_duration":         true,
	"informational":         true,
	"local_command":         true,
	"stop_hook_summary":     true,
	"away_summary":          true,
	"session_start":         true,
}

// known reports whether a line's kind is one Claude Code is known to
// write: its type, and for a system line its subtype.
func known(typ, subtype string, hasSubtype bool) bool {
	switch {
	case typ == "system":
		return !hasSubtype || systemSubtypes[subtype]
	case conversation[typ]:
		return true
	}
	_, ok := metadata[typ]
	return ok
}

// syntheticModel is the model Claude Code names on the assistant lines it
// writes itself (API errors, "No response requested."): no model ran.
const syntheticModel = "<synthetic>"

// levels are the level words of system lines.
var levels = map[string]event.Severity{
	"info":       event.SeverityInfo,
	"suggestion": event.SeverityInfo,
	"notice":     event.SeverityInfo,
	"warning":    event.SeverityWarning,
	"error":      event.SeverityError,
}

// spawnsAgent reports whether a tool call runs a subagent: the Task tool,
// named Agent from 2.1.
func spawnsAgent(name string) bool { return name == "Task" || name == "Agent" }

// Texts Claude Code puts into the conversation itself, besides
// claudecode.InterruptMarker: rejectMarker begins the tool result of a
// call the user refused, permissionMarker that of a call no permission
// allowed.
const (
	rejectMarker     = "The user doesn't want to proceed with this tool use"
	permissionMarker = "Claude requested permissions to "
)

// commandOutput reports whether a user text is the output of a local
// slash command (/model, /cost …), which Claude Code writes as a user
// line after the command's own: part of the command's turn, not a prompt.
func commandOutput(text string) bool {
	t := strings.TrimLeft(text, " \t\r\n")
	return strings.HasPrefix(t, "<local-command-stdout>") || strings.HasPrefix(t, "<local-command-stderr>")
}

// toolStatus says how a tool_result ended its call.
func toolStatus(isError bool, output string) event.ToolStatus {
	switch {
	case !isError:
		return event.ToolSuccess
	case strings.HasPrefix(output, claudecode.InterruptMarker):
		return event.ToolCancelled
	case strings.HasPrefix(output, rejectMarker), strings.HasPrefix(output, permissionMarker),
		strings.HasPrefix(output, "Permission to use ") && strings.Contains(output, " has been denied"):
		return event.ToolRejected
	}
	return event.ToolError
}
