package opencode

import (
	"strings"

	"github.com/evtool/evtool/event"
)

// opencode's words for the canonical vocabulary. A word missing from a
// table is a newer producer's: it is kept in ext.opencode and written back
// as it was.
var (
	// toolStatuses are a tool part's state.status values that end a call.
	// pending and running are states of a call still open.
	toolStatuses = map[string]event.ToolStatus{
		"completed": event.ToolSuccess,
		"error":     event.ToolError,
	}
	// finishReasons are the model SDK's finish reasons that step-finish
	// parts carry (the AI SDK's words, with a hyphen).
	finishReasons = map[string]event.StopReason{
		"stop":           event.StopEndTurn,
		"tool-calls":     event.StopToolUse,
		"length":         event.StopMaxTokens,
		"content-filter": event.StopRefusal,
	}
)

// finishWord renders a canonical stop reason as a step-finish reason, and
// reports whether the word says the same.
func finishWord(r event.StopReason) (string, bool) {
	switch r {
	case event.StopEndTurn, "":
		return "stop", true
	case event.StopToolUse:
		return "tool-calls", true
	case event.StopMaxTokens:
		return "length", true
	case event.StopRefusal:
		return "content-filter", true
	case event.StopOther:
		return "other", true
	}
	return "other", false
}

// toolKind returns what an opencode tool does, from its name. opencode's
// built-in tools have lowercase one-word names; an MCP tool is
// "<server>_<tool>", which says nothing certain and is "other".
func toolKind(name string) event.ToolKind {
	if k, ok := toolKinds[strings.ToLower(name)]; ok {
		return k
	}
	return event.KindOther
}

// toolKinds maps opencode's built-in tools (packages/opencode/src/tool) to
// ACP tool kinds.
var toolKinds = map[string]event.ToolKind{
	"bash":       event.KindExecute,
	"read":       event.KindRead,
	"list":       event.KindRead,
	"lsp":        event.KindRead,
	"edit":       event.KindEdit,
	"multiedit":  event.KindEdit,
	"write":      event.KindEdit,
	"patch":      event.KindEdit,
	"glob":       event.KindSearch,
	"grep":       event.KindSearch,
	"codesearch": event.KindSearch,
	"websearch":  event.KindSearch,
	"webfetch":   event.KindFetch,
	"todowrite":  event.KindThink,
	"todoread":   event.KindThink,
	"task":       event.KindThink,
	"skill":      event.KindThink,
	"question":   event.KindOther,
	"plan_enter": event.KindSwitchMode,
	"plan_exit":  event.KindSwitchMode,
	"invalid":    event.KindOther,
}
