package claude

import "github.com/evtool/evtool/dialect"

// losses is the loss catalogue of the Claude Code encoder: every kind of
// fact it drops, approximates or synthesizes when it writes another
// dialect's stream, each with a stable id "claude/<name>" (see
// dialect.LossKind), in the order docs/losses.md lists them. A stream read
// from Claude Code is written back from its residue and loses nothing.
var losses = dialect.NewLossCatalog("claude")

var (
	// Lines and values no source line stands behind.
	lossSynthesizedInit = losses.Synthesize("synthesized-init",
		"system/init line", "system/init lines",
		"the source has no header line; built from its facts")
	lossInitFromDefaults = losses.Synthesize("init-from-defaults",
		"system/init line", "system/init lines",
		"the source stream has no header; built from defaults")
	lossSynthesizedResult = losses.Shared(dialect.LossSynthesizedResult,
		"the run ended without a turn's result; built from the session's end")
	lossSynthesizedToolUse = losses.Synthesize("synthesized-tool-use",
		"tool_use block", "tool_use blocks",
		"Claude Code shows every call as a tool_use before its result")
	lossUUID = losses.Synthesize("uuid",
		"uuid", "uuids",
		"every Claude Code line but a control message has one; the source has none, so each is a placeholder")
	lossMessageID = losses.Synthesize("message-id",
		"message id", "message ids",
		"Claude Code names each API message; the source does not")
	lossPermissionRequestID = losses.Synthesize("permission-request-id",
		"permission request id", "permission request ids",
		"Claude Code's control_request needs one")

	// Values Claude Code needs that the source states otherwise or not at all.
	lossSessionSettings = losses.Approximate("session-settings",
		"session's settings (permissionMode, apiKeySource, output_style)",
		"sessions' settings (permissionMode, apiKeySource, output_style)",
		"the source states none; written as Claude Code's defaults")
	lossMCPServerStatuses = losses.Approximate("mcp-server-statuses",
		"session's MCP server statuses", "sessions' MCP server statuses",
		"the source lists names only; written as connected")
	lossMessageDelta = losses.Shared(dialect.LossMessageDelta,
		"Claude Code's print mode writes assembled text blocks; the deltas are joined")
	lossReasoningDelta = losses.Shared(dialect.LossReasoningDelta,
		"Claude Code's print mode writes assembled thinking blocks; the deltas are joined")
	lossReasoningSignature = losses.Approximate("reasoning-signature",
		"reasoning signature", "reasoning signatures",
		"Claude Code's thinking blocks carry an API signature the source has not; written empty")
	lossAssistantUsage = losses.Approximate("assistant-usage",
		"assistant line's usage", "assistant lines' usage",
		"Claude Code states usage on each assistant line, before the source states it; written as 0")
	lossToolInputNotObject = losses.Shared(dialect.LossToolInputNotObject,
		"Claude Code's tool_use input is an object; wrapped as {\"input\": …}")
	lossToolName = losses.Shared(dialect.LossToolName,
		"the source names no tool; Claude Code's tool_use needs one, written as \"tool\"")
	lossToolOutputChunk = losses.Approximate("tool-output-chunk",
		"tool output chunk", "tool output chunks",
		"Claude Code writes a call's output once, in its tool_result; the chunks are joined")
	lossToolStatus = losses.Shared(dialect.LossToolStatus,
		"Claude Code's tool_result is an error or not; written as an error")
	lossPermissionPreview = losses.Approximate("permission-preview-not-object",
		"permission preview that is not an object", "permission previews that are not objects",
		"Claude Code's request input is an object; wrapped as {\"input\": …}")
	lossErrorNotice = losses.Approximate("error-notice",
		"error notice", "error notices",
		"Claude Code's informational levels end at warning; written as warning")
	lossRetryError = losses.Approximate("retry-error",
		"retry error", "retry errors",
		"Claude Code's api_retry names the error with one of its words; written as unknown")
	lossErrorAsText = losses.Approximate("error-as-text",
		"error", "errors",
		"Claude Code's assistant error is one of its words; the message is written as the line's text, the error as unknown")
	lossCompactionTokens = losses.Approximate("compaction-tokens",
		"compaction's token count", "compactions' token counts",
		"Claude Code's compact_boundary states pre_tokens, which the source has not; written as 0")
	lossTurnUsage = losses.Approximate("turn-usage",
		"turn's usage", "turns' usage",
		"Claude Code's result states the turn's total; summed from the rounds")
	lossUnstatedCost = losses.Approximate("cost-unknown",
		"turn's cost read back as unknown", "turns' costs read back as unknown",
		"Claude Code's result states total_cost_usd, computed from its per-model modelUsage; a turn whose source states "+
			"no cost, or 0, is written as 0 beside an empty modelUsage, which evtool reads as an unknown cost, never a stated 0")
	lossStopMaxTurnRequests = losses.Approximate("stop-max-turn-requests",
		"stop reason \"max_turn_requests\" of a successful turn", "stop reasons \"max_turn_requests\" of successful turns",
		"Claude Code states it only as an error_max_turns result; written as null")
	lossStopReason = losses.Shared(dialect.LossStopReason,
		"Claude Code has no such stop reason; written as null")
	lossResultDurations = losses.Approximate("result-durations",
		"result's durations", "results' durations",
		"Claude Code's result states durations the source has not; written as 0")

	// Facts Claude Code's lines have no place for.
	lossProducerVersion = losses.Shared(dialect.LossProducerVersion,
		"Claude Code's claude_code_version names a Claude Code version")
	lossSessionFacts = losses.Drop("session-facts",
		"session fact (provider, task, context files, directories, A2A)",
		"session facts (provider, task, context files, directories, A2A)",
		"Claude Code's system/init has no place for them")
	lossSkillCommandDescriptions = losses.Drop("skill-command-descriptions",
		"session's skill and command descriptions", "sessions' skill and command descriptions",
		"Claude Code's system/init lists names only")
	lossRepeatedSessionStart = losses.Shared(dialect.LossRepeatedSessionStart,
		"Claude Code states a session once, in system/init")
	lossTurnStarted = losses.Shared(dialect.LossTurnStarted,
		"Claude Code has no turn ids; a turn begins at its first line and ends at its result")
	lossTurnPrompt = losses.Shared(dialect.LossTurnPrompt,
		"Claude Code's print mode does not echo the prompt")
	lossImageCount = losses.Drop("image-count",
		"user message's image count", "user messages' image counts",
		"the source has only the count; Claude Code writes the image data")
	lossToolTitleMutability = losses.Drop("tool-title-mutability",
		"tool call's title and mutability", "tool calls' titles and mutability",
		"Claude Code's tool_use block has a name and an input")
	lossRepeatedToolCall = losses.Drop("repeated-tool-call",
		"repeated tool call", "repeated tool calls",
		"Claude Code states a tool call once, as its tool_use block")
	lossProgressAfterResult = losses.Drop("progress-after-result",
		"tool progress event after the result", "tool progress events after the result",
		"Claude Code reports progress of running calls only")
	lossToolProgressMessage = losses.Drop("tool-progress-message",
		"tool progress message", "tool progress messages",
		"Claude Code's tool_progress states the elapsed time only, written as 0 s")
	lossStreamedToolOutput = losses.Drop("streamed-tool-output",
		"call's streamed output", "calls' streamed outputs",
		"the call's stated output is written instead")
	lossRepeatedToolResult = losses.Shared(dialect.LossRepeatedToolResult,
		"Claude Code answers a tool_use once")
	lossToolSummary = losses.Shared(dialect.LossToolSummary,
		"Claude Code's tool_result has one content")
	lossToolErrorText = losses.Drop("tool-error-text",
		"tool error text", "tool error texts",
		"Claude Code's tool_result has one content and an is_error flag")
	lossToolResultDetails = losses.Drop("tool-result-details",
		"tool result's details (exit code, command, edit, web)", "tool results' details (exit code, command, edit, web)",
		"Claude Code keeps them in tool_use_result, whose shape is each tool's own")
	lossRepeatedPermissionRequest = losses.Shared(dialect.LossRepeatedPermissionRequest,
		"Claude Code asks once per request id")
	lossPermissionDescriptionRisk = losses.Drop("permission-description-risk",
		"permission request's description and risk", "permission requests' descriptions and risks",
		"Claude Code's can_use_tool request names the tool and its input")
	lossPermissionScope = losses.Drop("permission-scope",
		"permission scope", "permission scopes",
		"Claude Code's control_response says allow or deny")
	lossPermissionOutcomeUnasked = losses.Drop("permission-outcome-unasked",
		"permission outcome without an open request", "permission outcomes without an open request",
		"Claude Code answers each of its requests once")
	lossPlanUpdate = losses.Shared(dialect.LossPlanUpdate,
		"Claude Code states a plan only as the input of a TodoWrite tool call")
	lossTaskKindDetailParent = losses.Drop("task-kind-detail-parent",
		"task's kind, detail and parent", "tasks' kinds, details and parents",
		"Claude Code's task_updated patch has a status, a description and an error")
	lossUsageEvent = losses.Shared(dialect.LossUsageEvent,
		"Claude Code states usage on assistant lines, written before it is known, and in result")
	lossRoundFinished = losses.Shared(dialect.LossRoundFinished,
		"Claude Code states round usage on assistant lines, written before it is known")
	lossRunBounds = losses.Drop("run-bounds",
		"run bound (stopped_by)", "run bounds (stopped_by)",
		"Claude Code's result says only that the turn failed")
	lossRunOutcome = losses.Drop("run-outcome",
		"session end's outcome beyond the last result (status, errors, bounds, structured output)",
		"session ends' outcomes beyond the last result (status, errors, bounds, structured output)",
		"Claude Code's last result ends the run and says no more")
	lossStructuredOutput = losses.Shared(dialect.LossStructuredOutput,
		"the result built from the session's end carries no structured_output")
	lossErrorRecoverable = losses.Drop("error-recoverable",
		"error's recoverability", "errors' recoverability",
		"Claude Code's assistant error names the error only")
	lossCompactionFigures = losses.Drop("compaction-figures",
		"compaction's figures", "compactions' figures",
		"Claude Code's compact_boundary has its own token figures")
	lossModelChange = losses.Drop("model-change",
		"model change", "model changes",
		"Claude Code states the model in system/init and on each assistant message")
	lossUsageCounts = losses.Drop("usage-counts",
		"turn's reasoning, thoughts, total or response count", "turns' reasoning, thoughts, total or response counts",
		"Claude Code's usage counts input, output and cache tokens")
	lossFailedTurnText = losses.Drop("failed-turn-text",
		"failed turn's text", "failed turns' texts",
		"Claude Code's error results carry errors, not a result text")
	lossEventTime = losses.Shared(dialect.LossEventTime,
		"Claude Code dates user and assistant lines only")
	lossUnknownEvent = losses.Shared(dialect.LossUnknownEvent,
		"Claude Code cannot carry another dialect's unknown lines")
	lossNoSuchLine = losses.Drop("no-such-line",
		"%[1]s event", "%[1]s events",
		"Claude Code has no such line")
)
