package acp

import "github.com/evtool/evtool/dialect"

// The loss catalogue of the acp encoder: every kind of fact it drops,
// approximates or synthesizes, each with a stable id (see dialect.LossKind).
var (
	lossPlanStatus = dialect.ApproximateKind("acp/plan-status",
		"plan status %[1]s", "plan statuses %[1]s",
		"ACP plan entries are pending, in_progress or completed")
	lossInternalTask = dialect.DropKind("acp/internal-task",
		"internal task update", "internal task updates",
		"ACP has no task vocabulary; only subagent and background work is shown, as thoughts")
	lossUsage = dialect.DropKind("acp/usage",
		"usage event", "usage events",
		"ACP has no per-round usage; its usage_update is about the context window")
	lossUnknownEvent = dialect.DropKind("acp/unknown-event",
		"unknown %[1]s event", "unknown %[1]s events",
		"ACP cannot carry them (use --acp-meta to keep residue)")
	lossNoSuchUpdate = dialect.DropKind("acp/no-such-update",
		"%[1]s event", "%[1]s events",
		"ACP has no such update")
	lossRepeatedToolCall = dialect.DropKind("acp/repeated-tool-call",
		"repeated tool_call event", "repeated tool_call events",
		"ACP allows one tool_call per id; later sightings carry no new facts")
	lossAfterToolFinished = dialect.DropKind("acp/after-tool-finished",
		"event after a tool call finished", "events after a tool call finished",
		"ACP closes a tool call once")
	lossSynthesizedToolCall = dialect.SynthesizeKind("acp/synthesized-tool-call",
		"tool_call update", "tool_call updates",
		"ACP needs a tool_call before any update for its id")
	lossRepeatedToolResult = dialect.DropKind("acp/repeated-tool-result",
		"repeated tool result", "repeated tool results",
		"ACP closes a tool call once")
	lossSynthesizedFinishedToolCall = dialect.SynthesizeKind("acp/synthesized-finished-tool-call",
		"finished tool_call update", "finished tool_call updates",
		"the source shows the call only through its result")
	lossPermissionRequestNoCall = dialect.DropKind("acp/permission-request-no-call",
		"permission request without a call id", "permission requests without a call id",
		"ACP asks permission for a tool call")
	lossSynthesizedToolCallForPermission = dialect.SynthesizeKind("acp/synthesized-tool-call-for-permission",
		"tool_call update", "tool_call updates",
		"ACP needs a tool_call before a permission request for it")
	lossPermissionPreview = dialect.DropKind("acp/permission-preview",
		"permission preview", "permission previews",
		"ACP's permission request shows the tool call only; kept under _meta with --acp-meta")
	lossPermissionOutcomeUnasked = dialect.DropKind("acp/permission-outcome-unasked",
		"permission outcome without a request", "permission outcomes without a request",
		"ACP has an outcome only as the answer to a request")
	lossPermissionAnswerInferred = dialect.ApproximateKind("acp/permission-answer-inferred",
		"permission answer", "permission answers",
		"not recorded; inferred from the tool's outcome")
	lossSynthesizedFailedToolCall = dialect.SynthesizeKind("acp/synthesized-failed-tool-call",
		"failed tool_call update for a call left open", "failed tool_call updates for calls left open",
		"the turn or the recording ends before the calls finish; ACP clients need every call closed")
	lossBigNumber = dialect.ApproximateKind("acp/big-number",
		"number beyond a double's range", "numbers beyond a double's range",
		"ACP clients read numbers as doubles; written as strings of the same text")
	lossLargeToolInput = dialect.DropKind("acp/large-tool-input",
		"tool input too large for one message", "tool inputs too large for one message",
		"an ACP message stays under 8 MiB; the input is left out")
)

// LossKinds implements dialect.LossLister.
func (Dialect) LossKinds() []*dialect.LossKind {
	return []*dialect.LossKind{
		lossPlanStatus,
		lossInternalTask,
		lossUsage,
		lossUnknownEvent,
		lossNoSuchUpdate,
		lossRepeatedToolCall,
		lossAfterToolFinished,
		lossSynthesizedToolCall,
		lossRepeatedToolResult,
		lossSynthesizedFinishedToolCall,
		lossPermissionRequestNoCall,
		lossSynthesizedToolCallForPermission,
		lossPermissionPreview,
		lossPermissionOutcomeUnasked,
		lossPermissionAnswerInferred,
		lossSynthesizedFailedToolCall,
		lossBigNumber,
		lossLargeToolInput,
	}
}

// DefaultKeys names the facts the acp encoder takes from --default (or
// --session-id) when the source lacks them, instead of leaving them empty.
func (Dialect) DefaultKeys() []dialect.DefaultKey {
	return []dialect.DefaultKey{dialect.DefaultSessionID}
}
