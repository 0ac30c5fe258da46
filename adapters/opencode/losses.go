package opencode

import "github.com/evtool/evtool/dialect"

// The loss catalogue of the opencode encoder: every kind of fact it drops,
// approximates or synthesizes, each with a stable id (see dialect.LossKind).
// An opencode source comes back as it was and counts none of them; they
// are what another dialect's stream loses on its way into run json.
// LossKinds lists them in the order they are declared below.
var losses = dialect.NewLossCatalog("opencode")

var (
	lossUnknownEvent = losses.Shared(dialect.LossUnknownEvent,
		"opencode cannot carry another dialect's unknown lines")
	lossNoSuchEvent = losses.Shared(dialect.LossNoSuchEvent,
		"opencode has no such event")
	lossUserMessage = losses.Shared(dialect.LossUserMessage,
		"opencode run json does not echo the user's message")
	lossTurnPrompt = losses.Shared(dialect.LossTurnPrompt,
		"opencode run json does not echo the user's message")
	lossMessageDeltas = losses.Approximate("message-deltas",
		"message streamed in deltas", "messages streamed in deltas",
		"opencode writes a text part whole; the deltas are joined")
	lossReasoningDeltas = losses.Approximate("reasoning-deltas",
		"reasoning text streamed in deltas", "reasoning texts streamed in deltas",
		"opencode writes a reasoning part whole; the deltas are joined")
	lossToolMutability = losses.Drop("tool-mutability",
		"tool's mutability", "tools' mutability",
		"opencode tool calls do not say whether they change anything")
	lossToolKind = losses.Approximate("tool-kind",
		"tool kind", "tool kinds",
		"opencode names a tool; its kind is read from the name")
	lossToolProgress = losses.Shared(dialect.LossToolProgress,
		"opencode writes a tool call once, when it has ended")
	lossToolName = losses.Shared(dialect.LossToolName,
		"the source does not name the tool; written as tool")
	lossToolStatus = losses.Shared(dialect.LossToolStatus,
		"opencode's ended calls are completed or error; written as error")
	lossToolInputNotObject = losses.Shared(dialect.LossToolInputNotObject,
		"opencode's tool input is an object; written as {}")
	lossToolOutputChunks = losses.Approximate("tool-output-chunks",
		"tool output streamed in chunks", "tool outputs streamed in chunks",
		"opencode writes a call's output whole; the chunks are joined")
	lossToolSummary = losses.Shared(dialect.LossToolSummary,
		"opencode's tool state has a title, not a summary")
	lossToolCommand = losses.Shared(dialect.LossToolCommand,
		"opencode's bash input names the command; a separate command field has no place")
	lossToolEdit = losses.Drop("tool-edit",
		"tool edit fact", "tool edit facts",
		"opencode's tool state carries the tool's own metadata only")
	lossToolWeb = losses.Drop("tool-web",
		"tool web detail", "tool web details",
		"opencode's tool state carries the tool's own metadata only")
	lossErrorRecoverable = losses.Drop("error-recoverable",
		"error's recoverability", "errors' recoverability",
		"opencode errors have a name and data only")
	lossNotice = losses.Drop("notice",
		"notice", "notices",
		"opencode run json writes messages for people on stderr")
	lossPermissionRequest = losses.Shared(dialect.LossPermissionRequest,
		"opencode run json answers permission requests itself and writes nothing")
	lossPermissionOutcome = losses.Shared(dialect.LossPermissionOutcome,
		"opencode run json answers permission requests itself and writes nothing")
	lossPlanUpdate = losses.Shared(dialect.LossPlanUpdate,
		"opencode's todo list is a todowrite tool call, not an event")
	lossTaskUpdated = losses.Shared(dialect.LossTaskUpdated,
		"opencode run json writes only its own session's parts")
	lossModelConfigured = losses.Shared(dialect.LossModelConfigured,
		"opencode run json names no model")
	lossRepeatedSessionStart = losses.Shared(dialect.LossRepeatedSessionStart,
		"an opencode stream is one session")
	lossSessionModel = losses.Drop("session-model",
		"session's model and provider", "sessions' models and providers",
		"opencode run json names no model")
	lossProducerVersion = losses.Shared(dialect.LossProducerVersion,
		"opencode run json names no version")
	lossSessionFacts = losses.Drop("session-facts",
		"session fact (workspace, context files, skills, commands, MCP, task id)",
		"session facts (workspace, context files, skills, commands, MCP, task id)",
		"opencode run json has no session header")
	lossLaterTurn = losses.Shared(dialect.LossLaterTurn,
		"an opencode run is one turn; later turns follow in the same stream")
	lossLineTimestamp = losses.Approximate("line-timestamp",
		"line timestamp", "line timestamps",
		"the source states no time for the line; written as the last time stated, or 0")
	lossSubMillisecond = losses.Approximate("sub-millisecond",
		"sub-millisecond time", "sub-millisecond times",
		"opencode times are epoch milliseconds")
	lossSynthesizedStepStart = losses.Synthesize("synthesized-step-start",
		"step_start line", "step_start lines",
		"opencode opens each model round with a step_start")
	lossSynthesizedStepFinish = losses.Synthesize("synthesized-step-finish",
		"step_finish line", "step_finish lines",
		"opencode closes each model round with a step_finish")
	lossSynthesizedError = losses.Synthesize("synthesized-error",
		"error line", "error lines",
		"opencode shows a failed run by an error line")
	lossUsageEvent = losses.Shared(dialect.LossUsageEvent,
		"opencode states usage on step_finish only")
	lossUsageBesideRound = losses.Drop("usage-beside-round",
		"round's usage events beside its own usage", "rounds' usage events beside their own usage",
		"opencode states one usage per step")
	lossStopReason = losses.Shared(dialect.LossStopReason,
		"opencode's finish reasons are the model SDK's; written as other")
	lossUnstatedCount = losses.Approximate("unstated-count",
		"unstated %[1]s count", "unstated %[1]s counts",
		"opencode states every count of a step; written as 0")
	lossUnstatedCost = losses.Approximate("unstated-cost",
		"unstated step cost", "unstated step costs",
		"opencode states a cost for every step; written as 0")
	lossTokenTotalNotSum = losses.Drop("token-total-not-sum",
		"token total that is not the sum of the stated counts", "token totals that are not the sum of the stated counts",
		"opencode's tokens.total is input + output + reasoning + cache read + cache write")
	lossReasoningAboveOutput = losses.Approximate("reasoning-above-output",
		"reasoning token count above the output token count", "reasoning token counts above the output token counts",
		"the canonical output includes reasoning, opencode's excludes it; a step's output and reasoning are written as stated")
	lossThoughtsResponses = losses.Drop("thoughts-responses",
		"thoughts token or model response count", "thoughts token or model response counts",
		"opencode counts input, output, reasoning and cache tokens")
	lossTurnReason = losses.Shared(dialect.LossTurnReason,
		"opencode does not say why a turn ended")
	lossTurnStopToolUse = losses.Approximate("turn-stop-tool-use",
		"turn stop reason \"tool_use\"", "turn stop reasons \"tool_use\"",
		"an opencode run that hands back to the user ends with a step that stops; written as stop")
	lossTurnUsageTotal = losses.Approximate("turn-usage-total",
		"turn usage total", "turn usage totals",
		"opencode states usage per step; the turn's total is written on its last step")
	lossTurnUsageTotalDiffers = losses.Drop("turn-usage-total-differs",
		"turn usage total that differs from the sum of the steps", "turn usage totals that differ from the sum of the steps",
		"opencode states usage per step only")
	lossRunBound = losses.Shared(dialect.LossRunBound,
		"opencode does not say what limit ended a run")
	lossStructuredOutput = losses.Shared(dialect.LossStructuredOutput,
		"opencode run json has no structured output")
	lossRunErrorList = losses.Shared(dialect.LossRunErrorList,
		"opencode writes each error as it happens, not as a list at the end")
	lossRunReasoning = losses.Drop("run-reasoning",
		"run reasoning summary", "run reasoning summaries",
		"opencode writes reasoning parts as they end")
)
