package opencode

import (
	"github.com/evtool/evtool/adapters/internal/opencodewire"
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
func toolKind(name string) event.ToolKind { return opencodewire.ToolKind(name, nil) }

// The documented words of opencode's open strings. A word outside them is
// a newer producer's: the checker reports it (opencode/unknown-value) and
// the decoder keeps it as written.
var (
	// knownFinish are the finish reasons of the model SDK (the AI SDK's
	// FinishReason) that a step-finish part's reason string carries.
	knownFinish = map[string]bool{
		"stop": true, "length": true, "content-filter": true, "tool-calls": true,
		"error": true, "other": true, "unknown": true,
	}
	// busPartTypes are the part types of @opencode-ai/sdk 1.19.3's Part
	// union, which the bus's message.part.updated carries; run json
	// writes five of them.
	busPartTypes = map[string]bool{
		"text": true, "subtask": true, "reasoning": true, "file": true, "tool": true,
		"step-start": true, "step-finish": true, "snapshot": true, "patch": true,
		"agent": true, "retry": true, "compaction": true,
	}
	// errorNames are the error names of @opencode-ai/sdk 1.19.3 that run
	// json's error line and the bus's session.error carry: the
	// session.error union, and the errors of the prompt request.
	errorNames = map[string]bool{
		"ProviderAuthError": true, "UnknownError": true, "MessageOutputLengthError": true,
		"MessageAbortedError": true, "StructuredOutputError": true, "ContextOverflowError": true,
		"ContentFilterError": true, "APIError": true,
		"BadRequest": true, "NotFoundError": true, "InvalidRequestError": true,
	}
)
