package gemini

import "github.com/evtool/evtool/dialect"

// The loss catalogue of the gemini encoder: every kind of fact it drops,
// approximates or synthesizes, each with a stable id (see dialect.LossKind).
var (
	lossSynthesizedInitDefaults = dialect.SynthesizeKind("gemini/synthesized-init-defaults",
		"init line", "init lines",
		"the source stream has no header; built from defaults")
	lossSynthesizedInit = dialect.SynthesizeKind("gemini/synthesized-init",
		"init line", "init lines",
		"the source has no header line; built from its facts")
	lossRepeatedSessionStart = dialect.DropKind("gemini/repeated-session-start",
		"repeated session start", "repeated session starts",
		"gemini has one init, on the first line")
	lossProducer = dialect.DropKind("gemini/producer",
		"producer name and version", "producer names and versions",
		"gemini's init names no producer version")
	lossModelProvider = dialect.DropKind("gemini/model-provider",
		"model provider", "model providers",
		"gemini's init names the model only")
	lossSessionTaskId = dialect.DropKind("gemini/session-task-id",
		"session task id", "session task ids",
		"gemini's init has a session id only")
	lossSessionFacts = dialect.DropKind("gemini/session-facts",
		"session fact (workspace, context files, skills, commands, MCP, A2A)",
		"session facts (workspace, context files, skills, commands, MCP, A2A)",
		"gemini's init names only the session and the model")
	lossModelConfigured = dialect.DropKind("gemini/model-configured",
		"model_configured event", "model_configured events",
		"gemini's init names the configured model only")
	lossUnknownEvent = dialect.DropKind("gemini/unknown-event",
		"unknown %[1]s event", "unknown %[1]s events",
		"gemini cannot carry another dialect's unknown lines")
	lossNoSuchEvent = dialect.DropKind("gemini/no-such-event",
		"%[1]s event", "%[1]s events",
		"gemini has no such event")
	lossAfterRunFinished = dialect.DropKind("gemini/after-run-finished",
		"%[1]s event after the run finished", "%[1]s events after the run finished",
		"result is gemini's last line")
	lossLaterTurn = dialect.ApproximateKind("gemini/later-turn",
		"turn after the first", "turns after the first",
		"a gemini run is one turn; later turns continue the same run")
	lossTurnCommandId = dialect.DropKind("gemini/turn-command-id",
		"turn command id", "turn command ids",
		"gemini has no turn start; the user's message begins a turn")
	lossTurnStopReason = dialect.DropKind("gemini/turn-stop-reason",
		"turn stop reason", "turn stop reasons",
		"gemini's result has a status only")
	lossTurnReason = dialect.DropKind("gemini/turn-reason",
		"turn reason", "turn reasons",
		"gemini's result carries one error text, the run's")
	lossImageCount = dialect.DropKind("gemini/image-count",
		"image count", "image counts",
		"gemini's user message is text only")
	lossSynthesizedUserMessage = dialect.SynthesizeKind("gemini/synthesized-user-message",
		"user message line", "user message lines",
		"the source states the prompt on its turn start only")
	lossMessageId = dialect.DropKind("gemini/message-id",
		"message id", "message ids",
		"gemini messages have no id")
	lossReasoning = dialect.DropKind("gemini/reasoning",
		"%[1]s event", "%[1]s events",
		"gemini's stream-json has no thought events")
	lossFinalReasoning = dialect.DropKind("gemini/final-reasoning",
		"final reasoning text", "final reasoning texts",
		"gemini's stream-json has no thought events")
	lossRepeatedToolCall = dialect.DropKind("gemini/repeated-tool-call",
		"repeated tool call", "repeated tool calls",
		"gemini announces a call once")
	lossToolTitle = dialect.DropKind("gemini/tool-title",
		"tool title", "tool titles",
		"gemini's tool_use names the tool only")
	lossToolMutability = dialect.DropKind("gemini/tool-mutability",
		"tool's mutability", "tools' mutability",
		"gemini's tool_use names the tool only")
	lossToolKind = dialect.DropKind("gemini/tool-kind",
		"tool kind", "tool kinds",
		"gemini names the tool only; its kind follows from the name")
	lossToolInputNotObject = dialect.ApproximateKind("gemini/tool-input-not-object",
		"tool input that is not an object", "tool inputs that are not objects",
		`gemini's parameters is an object; written as {"input":…}`)
	lossSynthesizedToolUse = dialect.SynthesizeKind("gemini/synthesized-tool-use",
		"tool_use line", "tool_use lines",
		"gemini announces every call before its result; built from the call's later events")
	lossAfterToolResult = dialect.DropKind("gemini/after-tool-result",
		"tool event after the call finished", "tool events after the call finished",
		"nothing follows a call's tool_result in gemini")
	lossRepeatedToolFinish = dialect.DropKind("gemini/repeated-tool-finish",
		"repeated tool finish", "repeated tool finishes",
		"gemini finishes a call once")
	lossToolStatus = dialect.ApproximateKind("gemini/tool-status",
		"tool status %[1]s", "tool statuses %[1]s",
		"gemini's tool statuses are success and error; written as error")
	lossToolOutputChunks = dialect.DropKind("gemini/tool-output-chunks",
		"tool's streamed output", "tools' streamed output",
		"gemini has the tool's final output only")
	lossToolSummary = dialect.DropKind("gemini/tool-summary",
		"tool summary", "tool summaries",
		"gemini's tool_result has the output only")
	lossToolExitCode = dialect.DropKind("gemini/tool-exit-code",
		"tool exit code", "tool exit codes",
		"gemini's tool_result has the output only")
	lossToolCommand = dialect.DropKind("gemini/tool-command",
		"tool command", "tool commands",
		"gemini's tool_result has the output only")
	lossToolEdit = dialect.DropKind("gemini/tool-edit",
		"tool's edit facts", "tools' edit facts",
		"gemini's tool_result has the output only")
	lossToolWeb = dialect.DropKind("gemini/tool-web",
		"tool's web facts", "tools' web facts",
		"gemini's tool_result has the output only")
	lossPermission = dialect.DropKind("gemini/permission",
		"%[1]s event", "%[1]s events",
		"gemini writes no permission events; a refusal shows as a tool error")
	lossPlanUpdated = dialect.DropKind("gemini/plan-updated",
		"plan_updated event", "plan_updated events",
		"gemini shows a plan only as a write_todos tool call")
	lossTaskUpdated = dialect.DropKind("gemini/task-updated",
		"task_updated event", "task_updated events",
		"gemini has no task events; a subagent shows only as a tool call")
	lossNoticeSeverityInfo = dialect.ApproximateKind("gemini/notice-severity-info",
		"notice of severity info", "notices of severity info",
		"gemini's error lines are warnings or errors; written as warning")
	lossFatalError = dialect.ApproximateKind("gemini/fatal-error",
		"fatal error", "fatal errors",
		"gemini's error lines are non-fatal; a fatal error ends the run in result")
	lossUsage = dialect.DropKind("gemini/usage",
		"usage event", "usage events",
		"gemini states usage once, for the whole run, in result.stats")
	lossRoundUsage = dialect.DropKind("gemini/round-usage",
		"round's usage", "rounds' usage",
		"gemini states usage once, for the whole run, in result.stats")
	lossRoundStopReason = dialect.DropKind("gemini/round-stop-reason",
		"round stop reason", "round stop reasons",
		"gemini marks no round; a round ends to call tools or with the run")
	lossSubMillisecondTime = dialect.ApproximateKind("gemini/sub-millisecond-time",
		"sub-millisecond time", "sub-millisecond times",
		"gemini stamps lines in milliseconds")
	lossSynthesizedTimestamp = dialect.SynthesizeKind("gemini/synthesized-timestamp",
		"timestamp", "timestamps",
		"every gemini line has one and the source states none; the previous line's (or 1970-01-01) is written")
	lossSynthesizedResult = dialect.SynthesizeKind("gemini/synthesized-result",
		"result line", "result lines",
		"the source has no such line; built from its facts")
	lossErrorClass = dialect.ApproximateKind("gemini/error-class",
		"error class", "error classes",
		"the source names no error class; written as "+errGeneric)
	lossSuccessMessage = dialect.DropKind("gemini/success-message",
		"message of a successful run", "messages of successful runs",
		"gemini's result has an error only on failure")
	lossRunBound = dialect.DropKind("gemini/run-bound",
		"run bound (stopped_by)", "run bounds (stopped_by)",
		"gemini's result does not say what ended a run")
	lossRunErrorList = dialect.DropKind("gemini/run-error-list",
		"run error list", "run error lists",
		"gemini's result has one error; the others are its error lines")
	lossStructuredOutput = dialect.DropKind("gemini/structured-output",
		"structured output", "structured outputs",
		"gemini's stream-json has no structured output")
	lossRunTokenTotalByTurn = dialect.ApproximateKind("gemini/run-token-total-by-turn",
		"run token total", "run token totals",
		"gemini states one run total; summed from the turns' usage")
	lossRunTokenTotalByRound = dialect.ApproximateKind("gemini/run-token-total-by-round",
		"run token total", "run token totals",
		"gemini states one run total; summed from the per-round usage")
	lossRunTokenTotalByKind = dialect.ApproximateKind("gemini/run-token-total-by-kind",
		"run token total", "run token totals",
		"gemini states a total; summed from input, output and thoughts tokens")
	lossTokenCountUnstated = dialect.ApproximateKind("gemini/token-count-unstated",
		"%[1]s token count not stated", "%[1]s token counts not stated",
		"gemini's stats has input and output counts; written as 0")
	lossTokenCountSaturated = dialect.ApproximateKind("gemini/token-count-saturated",
		"token count beyond 2^64-1", "token counts beyond 2^64-1",
		"gemini's input_tokens and total_tokens are sums of the source's counts; written as 18446744073709551615")
	lossRunDuration = dialect.ApproximateKind("gemini/run-duration",
		"run duration", "run durations",
		"the source states no start and end times; duration_ms is written as 0")
	lossCacheCreationTokens = dialect.DropKind("gemini/cache-creation-tokens",
		"cache creation token count", "cache creation token counts",
		"gemini's stats has no such count; the tokens are counted within input_tokens")
	lossReasoningTokens = dialect.DropKind("gemini/reasoning-tokens",
		"reasoning token count", "reasoning token counts",
		"gemini's stats has no such count")
	lossThoughtsTokens = dialect.DropKind("gemini/thoughts-tokens",
		"thoughts token count", "thoughts token counts",
		"gemini's stats has no such count")
	lossModelResponses = dialect.DropKind("gemini/model-responses",
		"model response count", "model response counts",
		"gemini's stats has no such count")
	lossCost = dialect.DropKind("gemini/cost",
		"cost", "costs",
		"gemini states no cost")
)

// LossKinds implements dialect.LossLister.
func (Dialect) LossKinds() []*dialect.LossKind {
	return []*dialect.LossKind{
		lossSynthesizedInitDefaults,
		lossSynthesizedInit,
		lossRepeatedSessionStart,
		lossProducer,
		lossModelProvider,
		lossSessionTaskId,
		lossSessionFacts,
		lossModelConfigured,
		lossUnknownEvent,
		lossNoSuchEvent,
		lossAfterRunFinished,
		lossLaterTurn,
		lossTurnCommandId,
		lossTurnStopReason,
		lossTurnReason,
		lossImageCount,
		lossSynthesizedUserMessage,
		lossMessageId,
		lossReasoning,
		lossFinalReasoning,
		lossRepeatedToolCall,
		lossToolTitle,
		lossToolMutability,
		lossToolKind,
		lossToolInputNotObject,
		lossSynthesizedToolUse,
		lossAfterToolResult,
		lossRepeatedToolFinish,
		lossToolStatus,
		lossToolOutputChunks,
		lossToolSummary,
		lossToolExitCode,
		lossToolCommand,
		lossToolEdit,
		lossToolWeb,
		lossPermission,
		lossPlanUpdated,
		lossTaskUpdated,
		lossNoticeSeverityInfo,
		lossFatalError,
		lossUsage,
		lossRoundUsage,
		lossRoundStopReason,
		lossSubMillisecondTime,
		lossSynthesizedTimestamp,
		lossSynthesizedResult,
		lossErrorClass,
		lossSuccessMessage,
		lossRunBound,
		lossRunErrorList,
		lossStructuredOutput,
		lossRunTokenTotalByTurn,
		lossRunTokenTotalByRound,
		lossRunTokenTotalByKind,
		lossTokenCountUnstated,
		lossTokenCountSaturated,
		lossRunDuration,
		lossCacheCreationTokens,
		lossReasoningTokens,
		lossThoughtsTokens,
		lossModelResponses,
		lossCost,
	}
}

// DefaultKeys names the facts the gemini encoder takes from --default (or
// --session-id) when the source lacks them: init's session_id and model,
// which Gemini CLI always writes.
func (Dialect) DefaultKeys() []dialect.DefaultKey {
	return []dialect.DefaultKey{dialect.DefaultModel, dialect.DefaultSessionID}
}
