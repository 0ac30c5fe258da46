package claude

import "github.com/evtool/evtool/dialect"

// The loss catalogue of the Claude Code encoder: every kind of fact it
// drops, approximates or synthesizes when it writes another dialect's
// stream, each with a stable id (see dialect.LossKind). A stream read from
// Claude Code is written back from its residue and loses nothing.
var (
	// Lines and values no source line stands behind.
	lossSynthesizedInit = dialect.SynthesizeKind("claude/synthesized-init",
		"system/init line", "system/init lines",
		"the source has no header line; built from its facts")
	lossInitFromDefaults = dialect.SynthesizeKind("claude/init-from-defaults",
		"system/init line", "system/init lines",
		"the source stream has no header; built from defaults")
	lossSynthesizedResult = dialect.SynthesizeKind("claude/synthesized-result",
		"result line", "result lines",
		"the run ended without a turn's result; built from the session's end")
	lossSynthesizedToolUse = dialect.SynthesizeKind("claude/synthesized-tool-use",
		"tool_use block", "tool_use blocks",
		"Claude Code shows every call as a tool_use before its result")
	lossUUID = dialect.SynthesizeKind("claude/uuid",
		"uuid", "uuids",
		"every Claude Code line but a control message has one; the source has none, so each is a placeholder")
	lossMessageID = dialect.SynthesizeKind("claude/message-id",
		"message id", "message ids",
		"Claude Code names each API message; the source does not")
	lossPermissionRequestID = dialect.SynthesizeKind("claude/permission-request-id",
		"permission request id", "permission request ids",
		"Claude Code's control_request needs one")

	// Values Claude Code needs that the source states otherwise or not at all.
	lossSessionSettings = dialect.ApproximateKind("claude/session-settings",
		"session's settings (permissionMode, apiKeySource, output_style)",
		"sessions' settings (permissionMode, apiKeySource, output_style)",
		"the source states none; written as Claude Code's defaults")
	lossMCPServerStatuses = dialect.ApproximateKind("claude/mcp-server-statuses",
		"session's MCP server statuses", "sessions' MCP server statuses",
		"the source lists names only; written as connected")
	lossMessageDelta = dialect.ApproximateKind("claude/message-delta",
		"message delta", "message deltas",
		"Claude Code's print mode writes assembled text blocks; the deltas are joined")
	lossReasoningDelta = dialect.ApproximateKind("claude/reasoning-delta",
		"reasoning delta", "reasoning deltas",
		"Claude Code's print mode writes assembled thinking blocks; the deltas are joined")
	lossReasoningSignature = dialect.ApproximateKind("claude/reasoning-signature",
		"reasoning signature", "reasoning signatures",
		"Claude Code's thinking blocks carry an API signature the source has not; written empty")
	lossAssistantUsage = dialect.ApproximateKind("claude/assistant-usage",
		"assistant line's usage", "assistant lines' usage",
		"Claude Code states usage on each assistant line, before the source states it; written as 0")
	lossToolInputNotObject = dialect.ApproximateKind("claude/tool-input-not-object",
		"tool input that is not an object", "tool inputs that are not objects",
		"Claude Code's tool_use input is an object; wrapped as {\"input\": …}")
	lossToolName = dialect.ApproximateKind("claude/tool-name",
		"tool name", "tool names",
		"the source names no tool; Claude Code's tool_use needs one, written as \"tool\"")
	lossToolOutputChunk = dialect.ApproximateKind("claude/tool-output-chunk",
		"tool output chunk", "tool output chunks",
		"Claude Code writes a call's output once, in its tool_result; the chunks are joined")
	lossToolStatus = dialect.ApproximateKind("claude/tool-status",
		"tool status %[1]s", "tool statuses %[1]s",
		"Claude Code's tool_result is an error or not; written as an error")
	lossPermissionPreview = dialect.ApproximateKind("claude/permission-preview-not-object",
		"permission preview that is not an object", "permission previews that are not objects",
		"Claude Code's request input is an object; wrapped as {\"input\": …}")
	lossErrorNotice = dialect.ApproximateKind("claude/error-notice",
		"error notice", "error notices",
		"Claude Code's informational levels end at warning; written as warning")
	lossRetryError = dialect.ApproximateKind("claude/retry-error",
		"retry error", "retry errors",
		"Claude Code's api_retry names the error with one of its words; written as unknown")
	lossErrorAsText = dialect.ApproximateKind("claude/error-as-text",
		"error", "errors",
		"Claude Code's assistant error is one of its words; the message is written as the line's text, the error as unknown")
	lossCompactionTokens = dialect.ApproximateKind("claude/compaction-tokens",
		"compaction's token count", "compactions' token counts",
		"Claude Code's compact_boundary states pre_tokens, which the source has not; written as 0")
	lossTurnUsage = dialect.ApproximateKind("claude/turn-usage",
		"turn's usage", "turns' usage",
		"Claude Code's result states the turn's total; summed from the rounds")
	lossStopMaxTurnRequests = dialect.ApproximateKind("claude/stop-max-turn-requests",
		"stop reason \"max_turn_requests\" of a successful turn", "stop reasons \"max_turn_requests\" of successful turns",
		"Claude Code states it only as an error_max_turns result; written as null")
	lossStopReason = dialect.ApproximateKind("claude/stop-reason",
		"stop reason %[1]s", "stop reasons %[1]s",
		"Claude Code has no such stop reason; written as null")
	lossResultDurations = dialect.ApproximateKind("claude/result-durations",
		"result's durations", "results' durations",
		"Claude Code's result states durations the source has not; written as 0")

	// Facts Claude Code's lines have no place for.
	lossProducerVersion = dialect.DropKind("claude/producer-version",
		"producer version", "producer versions",
		"Claude Code's claude_code_version names a Claude Code version")
	lossSessionFacts = dialect.DropKind("claude/session-facts",
		"session fact (provider, task, context files, directories, A2A)",
		"session facts (provider, task, context files, directories, A2A)",
		"Claude Code's system/init has no place for them")
	lossSkillCommandDescriptions = dialect.DropKind("claude/skill-command-descriptions",
		"session's skill and command descriptions", "sessions' skill and command descriptions",
		"Claude Code's system/init lists names only")
	lossRepeatedSessionStart = dialect.DropKind("claude/repeated-session-start",
		"repeated session start", "repeated session starts",
		"Claude Code states a session once, in system/init")
	lossTurnStarted = dialect.DropKind("claude/turn-started",
		"turn_started event", "turn_started events",
		"Claude Code has no turn ids; a turn begins at its first line and ends at its result")
	lossTurnPrompt = dialect.DropKind("claude/turn-prompt",
		"turn prompt", "turn prompts",
		"Claude Code's print mode does not echo the prompt")
	lossImageCount = dialect.DropKind("claude/image-count",
		"user message's image count", "user messages' image counts",
		"the source has only the count; Claude Code writes the image data")
	lossToolTitleMutability = dialect.DropKind("claude/tool-title-mutability",
		"tool call's title and mutability", "tool calls' titles and mutability",
		"Claude Code's tool_use block has a name and an input")
	lossRepeatedToolCall = dialect.DropKind("claude/repeated-tool-call",
		"repeated tool call", "repeated tool calls",
		"Claude Code states a tool call once, as its tool_use block")
	lossProgressAfterResult = dialect.DropKind("claude/progress-after-result",
		"tool progress event after the result", "tool progress events after the result",
		"Claude Code reports progress of running calls only")
	lossToolProgressMessage = dialect.DropKind("claude/tool-progress-message",
		"tool progress message", "tool progress messages",
		"Claude Code's tool_progress states the elapsed time only, written as 0 s")
	lossStreamedToolOutput = dialect.DropKind("claude/streamed-tool-output",
		"call's streamed output", "calls' streamed outputs",
		"the call's stated output is written instead")
	lossRepeatedToolResult = dialect.DropKind("claude/repeated-tool-result",
		"repeated tool result", "repeated tool results",
		"Claude Code answers a tool_use once")
	lossToolSummary = dialect.DropKind("claude/tool-summary",
		"tool summary", "tool summaries",
		"Claude Code's tool_result has one content")
	lossToolErrorText = dialect.DropKind("claude/tool-error-text",
		"tool error text", "tool error texts",
		"Claude Code's tool_result has one content and an is_error flag")
	lossToolResultDetails = dialect.DropKind("claude/tool-result-details",
		"tool result's details (exit code, command, edit, web)", "tool results' details (exit code, command, edit, web)",
		"Claude Code keeps them in tool_use_result, whose shape is each tool's own")
	lossRepeatedPermissionRequest = dialect.DropKind("claude/repeated-permission-request",
		"repeated permission request", "repeated permission requests",
		"Claude Code asks once per request id")
	lossPermissionDescriptionRisk = dialect.DropKind("claude/permission-description-risk",
		"permission request's description and risk", "permission requests' descriptions and risks",
		"Claude Code's can_use_tool request names the tool and its input")
	lossPermissionScope = dialect.DropKind("claude/permission-scope",
		"permission scope", "permission scopes",
		"Claude Code's control_response says allow or deny")
	lossPermissionOutcomeUnasked = dialect.DropKind("claude/permission-outcome-unasked",
		"permission outcome without an open request", "permission outcomes without an open request",
		"Claude Code answers each of its requests once")
	lossPlanUpdate = dialect.DropKind("claude/plan-update",
		"plan update", "plan updates",
		"Claude Code states a plan only as the input of a TodoWrite tool call")
	lossTaskKindDetailParent = dialect.DropKind("claude/task-kind-detail-parent",
		"task's kind, detail and parent", "tasks' kinds, details and parents",
		"Claude Code's task_updated patch has a status, a description and an error")
	lossUsageEvent = dialect.DropKind("claude/usage-event",
		"usage event", "usage events",
		"Claude Code states usage on assistant lines, written before it is known, and in result")
	lossRoundFinished = dialect.DropKind("claude/round-finished",
		"round_finished event", "round_finished events",
		"Claude Code states round usage on assistant lines, written before it is known")
	lossRunBounds = dialect.DropKind("claude/run-bounds",
		"run bound (stopped_by)", "run bounds (stopped_by)",
		"Claude Code's result says only that the turn failed")
	lossRunOutcome = dialect.DropKind("claude/run-outcome",
		"session end's outcome beyond the last result (status, errors, bounds, structured output)",
		"session ends' outcomes beyond the last result (status, errors, bounds, structured output)",
		"Claude Code's last result ends the run and says no more")
	lossStructuredOutput = dialect.DropKind("claude/structured-output",
		"structured output", "structured outputs",
		"the result built from the session's end carries no structured_output")
	lossErrorRecoverable = dialect.DropKind("claude/error-recoverable",
		"error's recoverability", "errors' recoverability",
		"Claude Code's assistant error names the error only")
	lossCompactionFigures = dialect.DropKind("claude/compaction-figures",
		"compaction's figures", "compactions' figures",
		"Claude Code's compact_boundary has its own token figures")
	lossModelChange = dialect.DropKind("claude/model-change",
		"model change", "model changes",
		"Claude Code states the model in system/init and on each assistant message")
	lossUsageCounts = dialect.DropKind("claude/usage-counts",
		"turn's reasoning, thoughts, total or response count", "turns' reasoning, thoughts, total or response counts",
		"Claude Code's usage counts input, output and cache tokens")
	lossFailedTurnText = dialect.DropKind("claude/failed-turn-text",
		"failed turn's text", "failed turns' texts",
		"Claude Code's error results carry errors, not a result text")
	lossEventTime = dialect.DropKind("claude/event-time",
		"event time", "event times",
		"Claude Code dates user and assistant lines only")
	lossUnknownEvent = dialect.DropKind("claude/unknown-event",
		"unknown %[1]s event", "unknown %[1]s events",
		"Claude Code cannot carry another dialect's unknown lines")
	lossNoSuchLine = dialect.DropKind("claude/no-such-line",
		"%[1]s event", "%[1]s events",
		"Claude Code has no such line")
)

// LossKinds implements dialect.LossLister.
func (Dialect) LossKinds() []*dialect.LossKind {
	return []*dialect.LossKind{
		lossSynthesizedInit,
		lossInitFromDefaults,
		lossSynthesizedResult,
		lossSynthesizedToolUse,
		lossUUID,
		lossMessageID,
		lossPermissionRequestID,
		lossSessionSettings,
		lossMCPServerStatuses,
		lossMessageDelta,
		lossReasoningDelta,
		lossReasoningSignature,
		lossAssistantUsage,
		lossToolInputNotObject,
		lossToolName,
		lossToolOutputChunk,
		lossToolStatus,
		lossPermissionPreview,
		lossErrorNotice,
		lossRetryError,
		lossErrorAsText,
		lossCompactionTokens,
		lossTurnUsage,
		lossStopMaxTurnRequests,
		lossStopReason,
		lossResultDurations,
		lossProducerVersion,
		lossSessionFacts,
		lossSkillCommandDescriptions,
		lossRepeatedSessionStart,
		lossTurnStarted,
		lossTurnPrompt,
		lossImageCount,
		lossToolTitleMutability,
		lossRepeatedToolCall,
		lossProgressAfterResult,
		lossToolProgressMessage,
		lossStreamedToolOutput,
		lossRepeatedToolResult,
		lossToolSummary,
		lossToolErrorText,
		lossToolResultDetails,
		lossRepeatedPermissionRequest,
		lossPermissionDescriptionRisk,
		lossPermissionScope,
		lossPermissionOutcomeUnasked,
		lossPlanUpdate,
		lossTaskKindDetailParent,
		lossUsageEvent,
		lossRoundFinished,
		lossRunBounds,
		lossRunOutcome,
		lossStructuredOutput,
		lossErrorRecoverable,
		lossCompactionFigures,
		lossModelChange,
		lossUsageCounts,
		lossFailedTurnText,
		lossEventTime,
		lossUnknownEvent,
		lossNoSuchLine,
	}
}

// DefaultKeys names the facts the Claude Code encoder takes from --default
// (or --session-id) for system/init when the source lacks them, instead of
// leaving them empty.
func (Dialect) DefaultKeys() []dialect.DefaultKey {
	return []dialect.DefaultKey{dialect.DefaultModel, dialect.DefaultSessionID, dialect.DefaultWorkspace}
}
