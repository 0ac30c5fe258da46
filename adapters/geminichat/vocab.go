package geminichat

import (
	"github.com/evtool/evtool/adapters/internal/geminicli"
	"github.com/evtool/evtool/event"
)

// Gemini CLI's words, from packages/core/src/services/chatRecordingTypes.ts
// and the scheduler's CoreToolCallStatus. A word missing from a table is a
// newer producer's: the checker reports it (gemini-chat/unknown-value or
// unknown-type) and the decoder keeps it in ext.gemini-chat.

// recordTypes are MessageRecord.type.
var recordTypes = map[string]bool{"user": true, "gemini": true, "info": true, "error": true, "warning": true}

// noticeSeverities gives the notice severity of the records the CLI's
// own interface writes.
var noticeSeverities = map[string]event.Severity{
	"info":    event.SeverityInfo,
	"warning": event.SeverityWarning,
	"error":   event.SeverityError,
}

// toolStatuses are the terminal CoreToolCallStatus words: a call with one
// has ended. Gemini CLI records calls once they completed, so these are
// the words a chat holds.
var toolStatuses = map[string]event.ToolStatus{
	"success":   event.ToolSuccess,
	"error":     event.ToolError,
	"cancelled": event.ToolCancelled,
}

// openToolStatuses are the other CoreToolCallStatus words: a call with
// one had not ended when its record was last written (the process died).
var openToolStatuses = map[string]bool{
	"validating": true, "scheduled": true, "executing": true, "awaiting_approval": true,
}

// taskStatuses give a subagent's status from the status of the parent's
// call that ran it.
var taskStatuses = map[event.ToolStatus]event.TaskStatus{
	event.ToolSuccess:   event.TaskCompleted,
	event.ToolError:     event.TaskFailed,
	event.ToolCancelled: event.TaskCancelled,
}

// chatKinds are ConversationRecord.kind.
var chatKinds = map[string]bool{"main": true, "subagent": true}

// Known keys, for the checker's unknown-field rule and the decoder's
// residue. metaKeys also bounds what a $set may set; "$evtool" is evtool's
// own key, which Store.Open adds to a metadata line (see Store.Open).
var (
	metaKeys = []string{"sessionId", "projectHash", "startTime", "lastUpdated", "kind", "summary",
		"directories", "memoryScratchpad", "activeExtensionName", "messages", evtoolKey}
	recordKeys  = []string{"id", "timestamp", "type", "content", "displayContent"}
	geminiKeys  = []string{"model", "tokens", "thoughts", "toolCalls"}
	tokenKeys   = []string{"input", "output", "cached", "thoughts", "tool", "total"}
	thoughtKeys = []string{"subject", "description", "timestamp"}
	callKeys    = []string{"id", "name", "args", "result", "status", "timestamp", "agentId",
		"displayName", "description", "resultDisplay", "renderOutputAsMarkdown"}
)

// evtoolKey is the metadata key Store.Open adds for facts the chat does
// not hold: {"projectRoot": the project's directory, from Gemini CLI's
// project registry}.
const evtoolKey = "$evtool"

func has(list []string, k string) bool {
	for _, s := range list {
		if s == k {
			return true
		}
	}
	return false
}

// knownRecordKey reports whether k is a key of a record of type typ.
func knownRecordKey(typ, k string) bool {
	return has(recordKeys, k) || (typ == "gemini" && has(geminiKeys, k))
}

// toolKind returns what a Gemini CLI tool does, from its name (see
// geminicli.ToolKind): the built-in tools over the chat format's history
// are those of the stream and these.
func toolKind(name string) event.ToolKind { return geminicli.ToolKind(name, toolKinds) }

var toolKinds = map[string]event.ToolKind{
	"get_internal_docs":  event.KindRead,
	"read_mcp_resource":  event.KindRead,
	"list_mcp_resources": event.KindRead,
	"update_topic":       event.KindThink, // the agent states what it is working on
}
