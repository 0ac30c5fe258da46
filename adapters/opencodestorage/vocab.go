package opencodestorage

import (
	"github.com/evtool/evtool/adapters/internal/opencodewire"
	"github.com/evtool/evtool/event"
)

// opencode's words for the canonical vocabulary. A word missing from a
// table is a newer opencode's: the decoder keeps it in ext.opencode-storage
// and the checker reports it (opencode-storage/unknown-value).
var (
	// finishReasons are the AI SDK's finish reasons, which an assistant
	// message's finish (and a step-finish part's reason) carries.
	finishReasons = map[string]event.StopReason{
		"stop":           event.StopEndTurn,
		"tool-calls":     event.StopToolUse,
		"length":         event.StopMaxTokens,
		"content-filter": event.StopRefusal,
		"error":          event.StopOther,
		"other":          event.StopOther,
		"unknown":        event.StopOther,
	}
	// toolStates are a tool part's state.status values (ToolState). Only
	// completed and error end a call.
	toolStates = map[string]event.ToolStatus{
		"pending":   "",
		"running":   "",
		"completed": event.ToolSuccess,
		"error":     event.ToolError,
	}
	// errorNames are the names of an assistant message's error (the
	// AssistantError union of message-v2.ts) and of a retry part's
	// APIError.
	errorNames = map[string]bool{
		"ProviderAuthError": true, "UnknownError": true, "MessageOutputLengthError": true,
		"MessageAbortedError": true, "StructuredOutputError": true, "ContextOverflowError": true,
		"APIError": true, "ContentFilterError": true,
	}
	// roles are a message's roles (MessageV2.Info).
	roles = map[string]bool{"user": true, "assistant": true}
)

// abortedError is the error of a message the user stopped.
const abortedError = "MessageAbortedError"

// toolKind returns what an opencode tool does, from its name: opencode's
// built-in tools (packages/opencode/src/tool) have lowercase one-word
// names; an MCP tool is "<server>_<tool>", which says nothing certain.
func toolKind(name string) event.ToolKind { return opencodewire.ToolKind(name, toolKinds) }

// toolKinds are the tools the store names beyond those of run json.
var toolKinds = map[string]event.ToolKind{"apply_patch": event.KindEdit}
