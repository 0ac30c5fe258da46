package gemini

import "github.com/evtool/evtool/dialect"

// The loss catalogue of the gemini encoder: every kind of fact it drops,
// approximates or synthesizes, each with a stable id (see dialect.LossKind).
// LossKinds lists them in the order they are declared below.
var losses = dialect.NewLossCatalog("gemini")

var (
	lossSynthesizedInitDefaults = losses.Synthesize("synthesized-init-defaults",
		"init line", "init lines",
		"the source stream has no header; built from defaults")
	lossSynthesizedInit = losses.Synthesize("synthesized-init",
		"init line", "init lines",
		"the source has no header line; built from its facts")
	lossRepeatedSessionStart = losses.Shared(dialect.LossRepeatedSessionStart,
		"gemini has one init, on the first line")
	lossProducer = losses.Drop("producer",
		"producer name and version", "producer names and versions",
		"gemini's init names no producer version")
	lossModelProvider = losses.Drop("model-provider",
		"model provider", "model providers",
		"gemini's init names the model only")
	lossSessionTaskId = losses.Shared(dialect.LossSessionTaskID,
		"gemini's init has a session id only")
	lossSessionFacts = losses.Drop("session-facts",
		"session fact (workspace, context files, skills, commands, MCP, A2A)",
		"session facts (workspace, context files, skills, commands, MCP, A2A)",
		"gemini's init names only the session and the model")
	lossModelConfigured = losses.Shared(dialect.LossModelConfigured,
		"gemini's init names the configured model only")
	lossUnknownEvent = losses.Shared(dialect.LossUnknownEvent,
		"gemini cannot carry another dialect's unknown lines")
	lossNoSuchEvent = losses.Shared(dialect.LossNoSuchEvent,
		"gemini has no such event")
	lossAfterRunFinished = losses.Shared(dialect.LossAfterRunFinished,
		"result is gemini's last line")
	lossLaterTurn = losses.Shared(dialect.LossLaterTurn,
		"a gemini run is one turn; later turns continue the same run")
	lossTurnCommandId = losses.Shared(dialect.LossTurnCommandID,
		"gemini has no turn start; the user's message begins a turn")
	lossTurnStopReason = losses.Shared(dialect.LossTurnStopReason,
		"gemini's result has a status only")
	lossTurnReason = losses.Shared(dialect.LossTurnReason,
		"gemini's result carries one error text, the run's")
	lossImageCount = losses.Drop("image-count",
		"image count", "image counts",
		"gemini's user message is text only")
	lossSynthesizedUserMessage = losses.Synthesize("synthesized-user-message",
		"user message line", "user message lines",
		"the source states the prompt on its turn start only")
	lossMessageId = losses.Drop("message-id",
		"message id", "message ids",
		"gemini messages have no id")
	lossReasoning = losses.Drop("reasoning",
		"%[1]s event", "%[1]s events",
		"gemini's stream-json has no thought events")
	lossFinalReasoning = losses.Shared(dialect.LossFinalReasoning,
		"gemini's stream-json has no thought events")
	lossRepeatedToolCall = losses.Drop("repeated-tool-call",
		"repeated tool call", "repeated tool calls",
		"gemini announces a call once")
	lossToolTitle = losses.Drop("tool-title",
		"tool title", "tool titles",
		"gemini's tool_use names the tool only")
	lossToolMutability = losses.Drop("tool-mutability",
		"tool's mutability", "tools' mutability",
		"gemini's tool_use names the tool only")
	lossToolKind = losses.Drop("tool-kind",
		"tool kind", "tool kinds",
		"gemini names the tool only; its kind follows from the name")
	lossToolInputNotObject = losses.Shared(dialect.LossToolInputNotObject,
		`gemini's parameters is an object; written as {"input":…}`)
	lossSynthesizedToolUse = losses.Synthesize("synthesized-tool-use",
		"tool_use line", "tool_use lines",
		"gemini announces every call before its result; built from the call's later events")
	lossAfterToolResult = losses.Drop("after-tool-result",
		"tool event after the call finished", "tool events after the call finished",
		"nothing follows a call's tool_result in gemini")
	lossRepeatedToolFinish = losses.Shared(dialect.LossRepeatedToolFinish,
		"gemini finishes a call once")
	lossToolStatus = losses.Shared(dialect.LossToolStatus,
		"gemini's tool statuses are success and error; written as error")
	lossToolOutputChunks = losses.Drop("tool-output-chunks",
		"tool's streamed output", "tools' streamed output",
		"gemini has the tool's final output only")
	lossToolSummary = losses.Shared(dialect.LossToolSummary,
		"gemini's tool_result has the output only")
	lossToolExitCode = losses.Drop("tool-exit-code",
		"tool exit code", "tool exit codes",
		"gemini's tool_result has the output only")
	lossToolCommand = losses.Shared(dialect.LossToolCommand,
		"gemini's tool_result has the output only")
	lossToolEdit = losses.Drop("tool-edit",
		"tool's edit facts", "tools' edit facts",
		"gemini's tool_result has the output only")
	lossToolWeb = losses.Drop("tool-web",
		"tool's web facts", "tools' web facts",
		"gemini's tool_result has the output only")
	lossPermission = losses.Drop("permission",
		"%[1]s event", "%[1]s events",
		"gemini writes no permission events; a refusal shows as a tool error")
	lossPlanUpdated = losses.Drop("plan-updated",
		"plan_updated event", "plan_updated events",
		"gemini shows a plan only as a write_todos tool call")
	lossTaskUpdated = losses.Shared(dialect.LossTaskUpdated,
		"gemini has no task events; a subagent shows only as a tool call")
	lossNoticeSeverityInfo = losses.Approximate("notice-severity-info",
		"notice of severity info", "notices of severity info",
		"gemini's error lines are warnings or errors; written as warning")
	lossFatalError = losses.Approximate("fatal-error",
		"fatal error", "fatal errors",
		"gemini's error lines are non-fatal; a fatal error ends the run in result")
	lossUsage = losses.Shared(dialect.LossUsage,
		"gemini states usage once, for the whole run, in result.stats")
	lossRoundUsage = losses.Drop("round-usage",
		"round's usage", "rounds' usage",
		"gemini states usage once, for the whole run, in result.stats")
	lossRoundStopReason = losses.Drop("round-stop-reason",
		"round stop reason", "round stop reasons",
		"gemini marks no round; a round ends to call tools or with the run")
	lossSubMillisecondTime = losses.Approximate("sub-millisecond-time",
		"sub-millisecond time", "sub-millisecond times",
		"gemini stamps lines in milliseconds")
	lossSynthesizedTimestamp = losses.Synthesize("synthesized-timestamp",
		"timestamp", "timestamps",
		"every gemini line has one and the source states none; the previous line's (or 1970-01-01) is written")
	lossSynthesizedResult = losses.Shared(dialect.LossSynthesizedResult,
		"the source has no such line; built from its facts")
	lossErrorClass = losses.Approximate("error-class",
		"error class", "error classes",
		"the source names no error class; written as "+errGeneric)
	lossSuccessMessage = losses.Drop("success-message",
		"message of a successful run", "messages of successful runs",
		"gemini's result has an error only on failure")
	lossRunBound = losses.Shared(dialect.LossRunBound,
		"gemini's result does not say what ended a run")
	lossRunErrorList = losses.Shared(dialect.LossRunErrorList,
		"gemini's result has one error; the others are its error lines")
	lossStructuredOutput = losses.Shared(dialect.LossStructuredOutput,
		"gemini's stream-json has no structured output")
	lossRunTokenTotalByTurn = losses.Approximate("run-token-total-by-turn",
		"run token total", "run token totals",
		"gemini states one run total; summed from the turns' usage")
	lossRunTokenTotalByRound = losses.Shared(dialect.LossRunTokenTotalByRound,
		"gemini states one run total; summed from the per-round usage")
	lossRunTokenTotalByKind = losses.Shared(dialect.LossRunTokenTotalByKind,
		"gemini states a total; summed from input, output and thoughts tokens")
	lossTokenCountUnstated = losses.Approximate("token-count-unstated",
		"%[1]s token count not stated", "%[1]s token counts not stated",
		"gemini's stats has input and output counts; written as 0")
	lossTokenCountSaturated = losses.Approximate("token-count-saturated",
		"token count beyond 2^64-1", "token counts beyond 2^64-1",
		"gemini's input_tokens and total_tokens are sums of the source's counts; written as 18446744073709551615")
	lossRunDuration = losses.Approximate("run-duration",
		"run duration", "run durations",
		"the source states no start and end times; duration_ms is written as 0")
	lossCacheCreationTokens = losses.Drop("cache-creation-tokens",
		"cache creation token count", "cache creation token counts",
		"gemini's stats has no such count; the tokens are counted within input_tokens")
	lossReasoningTokens = losses.Drop("reasoning-tokens",
		"reasoning token count", "reasoning token counts",
		"gemini's stats has no such count")
	lossThoughtsTokens = losses.Drop("thoughts-tokens",
		"thoughts token count", "thoughts token counts",
		"gemini's stats has no such count")
	lossModelResponses = losses.Shared(dialect.LossModelResponses,
		"gemini's stats has no such count")
	lossCost = losses.Shared(dialect.LossCost,
		"gemini states no cost")
)
