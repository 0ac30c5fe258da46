package acp

import "github.com/evtool/evtool/dialect"

// losses is the loss catalogue of the acp encoder: every kind of fact it
// drops, approximates or synthesizes, each with a stable id "acp/<name>"
// (see dialect.LossKind), in the order docs/losses.md lists them.
var losses = dialect.NewLossCatalog("acp")

var (
	lossPlanStatus = losses.Shared(dialect.LossPlanStatus,
		"ACP plan entries are pending, in_progress or completed")
	lossInternalTask = losses.Drop("internal-task",
		"internal task update", "internal task updates",
		"ACP has no task vocabulary; only subagent and background work is shown, as thoughts")
	lossUsage = losses.Shared(dialect.LossUsage,
		"ACP has no per-round usage; its usage_update is about the context window")
	lossUnknownEvent = losses.Shared(dialect.LossUnknownEvent,
		"ACP cannot carry them (use --acp-meta to keep residue)")
	lossNoSuchUpdate = losses.Drop("no-such-update",
		"%[1]s event", "%[1]s events",
		"ACP has no such update")
	lossRepeatedToolCall = losses.Drop("repeated-tool-call",
		"repeated tool_call event", "repeated tool_call events",
		"ACP allows one tool_call per id; later sightings carry no new facts")
	lossAfterToolFinished = losses.Drop("after-tool-finished",
		"event after a tool call finished", "events after a tool call finished",
		"ACP closes a tool call once")
	lossSynthesizedToolCall = losses.Synthesize("synthesized-tool-call",
		"tool_call update", "tool_call updates",
		"ACP needs a tool_call before any update for its id")
	lossRepeatedToolResult = losses.Shared(dialect.LossRepeatedToolResult,
		"ACP closes a tool call once")
	lossSynthesizedFinishedToolCall = losses.Synthesize("synthesized-finished-tool-call",
		"finished tool_call update", "finished tool_call updates",
		"the source shows the call only through its result")
	lossPermissionRequestNoCall = losses.Shared(dialect.LossPermissionRequestNoCall,
		"ACP asks permission for a tool call")
	lossSynthesizedToolCallForPermission = losses.Synthesize("synthesized-tool-call-for-permission",
		"tool_call update", "tool_call updates",
		"ACP needs a tool_call before a permission request for it")
	lossPermissionPreview = losses.Shared(dialect.LossPermissionPreview,
		"ACP's permission request shows the tool call only; kept under _meta with --acp-meta")
	lossPermissionOutcomeUnasked = losses.Drop("permission-outcome-unasked",
		"permission outcome without a request", "permission outcomes without a request",
		"ACP has an outcome only as the answer to a request")
	lossPermissionAnswerInferred = losses.Approximate("permission-answer-inferred",
		"permission answer", "permission answers",
		"not recorded; inferred from the tool's outcome")
	lossSynthesizedFailedToolCall = losses.Synthesize("synthesized-failed-tool-call",
		"failed tool_call update for a call left open", "failed tool_call updates for calls left open",
		"the turn or the recording ends before the calls finish; ACP clients need every call closed")
	lossBigNumber = losses.Approximate("big-number",
		"number beyond a double's range", "numbers beyond a double's range",
		"ACP clients read numbers as doubles; written as strings of the same text")
	lossLargeToolInput = losses.Drop("large-tool-input",
		"tool input too large for one message", "tool inputs too large for one message",
		"an ACP message stays under 8 MiB; the input is left out")
	lossImageCount = losses.Drop("image-count",
		"user message's image count", "user messages' image counts",
		"the source has only the count, and ACP's image content needs the data; kept under _meta with --acp-meta")
	lossCost = losses.Shared(dialect.LossCost,
		"ACP states no cost (a prompt's usage in the unstable profile has token counts only)")
	lossTurnUsage = losses.Drop("turn-usage",
		"turn's or session's usage", "turns' or sessions' usage",
		"only the unstable profile's prompt response carries usage")
)
