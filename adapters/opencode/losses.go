package opencode

import "github.com/evtool/evtool/dialect"

// The loss catalogue of the opencode encoder: every kind of fact it drops,
// approximates or synthesizes, each with a stable id (see dialect.LossKind).
// An opencode source comes back as it was and counts none of them; they
// are what another dialect's stream loses on its way into run json.
var (
	lossUnknownEvent = dialect.DropKind("opencode/unknown-event",
		"unknown %[1]s event", "unknown %[1]s events",
		"opencode cannot carry another dialect's unknown lines")
	lossNoSuchEvent = dialect.DropKind("opencode/no-such-event",
		"%[1]s event", "%[1]s events",
		"opencode has no such event")
	lossUserMessage = dialect.DropKind("opencode/user-message",
		"user message", "user messages",
		"opencode run json does not echo the user's message")
	lossTurnPrompt = dialect.DropKind("opencode/turn-prompt",
		"turn prompt", "turn prompts",
		"opencode run json does not echo the user's message")
	lossMessageDeltas = dialect.ApproximateKind("opencode/message-deltas",
		"message streamed in deltas", "messages streamed in deltas",
		"opencode writes a text part whole; the deltas are joined")
	lossReasoningDeltas = dialect.ApproximateKind("opencode/reasoning-deltas",
		"reasoning text streamed in deltas", "reasoning texts streamed in deltas",
		"opencode writes a reasoning part whole; the deltas are joined")
	lossToolMutability = dialect.DropKind("opencode/tool-mutability",
		"tool's mutability", "tools' mutability",
		"opencode tool calls do not say whether they change anything")
	lossToolKind = dialect.ApproximateKind("opencode/tool-kind",
		"tool kind", "tool kinds",
		"opencode names a tool; its kind is read from the name")
	lossToolProgress = dialect.DropKind("opencode/tool-progress",
		"tool progress event", "tool progress events",
		"opencode writes a tool call once, when it has ended")
	lossToolName = dialect.ApproximateKind("opencode/tool-name",
		"tool name", "tool names",
		"the source does not name the tool; written as tool")
	lossToolStatus = dialect.ApproximateKind("opencode/tool-status",
		"tool status %[1]s", "tool statuses %[1]s",
		"opencode's ended calls are completed or error; written as error")
	lossToolInputNotObject = dialect.ApproximateKind("opencode/tool-input-not-object",
		"tool input that is not an object", "tool inputs that are not objects",
		"opencode's tool input is an object; written as {}")
	lossToolOutputChunks = dialect.ApproximateKind("opencode/tool-output-chunks",
		"tool output streamed in chunks", "tool outputs streamed in chunks",
		"opencode writes a call's output whole; the chunks are joined")
	lossToolSummary = dialect.DropKind("opencode/tool-summary",
		"tool summary", "tool summaries",
		"opencode's tool state has a title, not a summary")
	lossToolCommand = dialect.DropKind("opencode/tool-command",
		"tool command", "tool commands",
		"opencode's bash input names the command; a separate command field has no place")
	lossToolEdit = dialect.DropKind("opencode/tool-edit",
		"tool edit fact", "tool edit facts",
		"opencode's tool state carries the tool's own metadata only")
	lossToolWeb = dialect.DropKind("opencode/tool-web",
		"tool web detail", "tool web details",
		"opencode's tool state carries the tool's own metadata only")
	lossErrorRecoverable = dialect.DropKind("opencode/error-recoverable",
		"error's recoverability", "errors' recoverability",
		"opencode errors have a name and data only")
	lossNotice = dialect.DropKind("opencode/notice",
		"notice", "notices",
		"opencode run json writes messages for people on stderr")
	lossPermissionRequest = dialect.DropKind("opencode/permission-request",
		"permission request", "permission requests",
		"opencode run json answers permission requests itself and writes nothing")
	lossPermissionOutcome = dialect.DropKind("opencode/permission-outcome",
		"permission outcome", "permission outcomes",
		"opencode run json answers permission requests itself and writes nothing")
	lossPlanUpdate = dialect.DropKind("opencode/plan-update",
		"plan update", "plan updates",
		"opencode's todo list is a todowrite tool call, not an event")
	lossTaskUpdated = dialect.DropKind("opencode/task-updated",
		"task_updated event", "task_updated events",
		"opencode run json writes only its own session's parts")
	lossModelConfigured = dialect.DropKind("opencode/model-configured",
		"model_configured event", "model_configured events",
		"opencode run json names no model")
	lossRepeatedSessionStart = dialect.DropKind("opencode/repeated-session-start",
		"repeated session start", "repeated session starts",
		"an opencode stream is one session")
	lossSessionModel = dialect.DropKind("opencode/session-model",
		"session's model and provider", "sessions' models and providers",
		"opencode run json names no model")
	lossProducerVersion = dialect.DropKind("opencode/producer-version",
		"producer version", "producer versions",
		"opencode run json names no version")
	lossSessionFacts = dialect.DropKind("opencode/session-facts",
		"session fact (workspace, context files, skills, commands, MCP, task id)",
		"session facts (workspace, context files, skills, commands, MCP, task id)",
		"opencode run json has no session header")
	lossLaterTurn = dialect.ApproximateKind("opencode/later-turn",
		"turn after the first", "turns after the first",
		"an opencode run is one turn; later turns follow in the same stream")
	lossLineTimestamp = dialect.ApproximateKind("opencode/line-timestamp",
		"line timestamp", "line timestamps",
		"the source states no time for the line; written as the last time stated, or 0")
	lossSubMillisecond = dialect.ApproximateKind("opencode/sub-millisecond",
		"sub-millisecond time", "sub-millisecond times",
		"opencode times are epoch milliseconds")
	lossSynthesizedStepStart = dialect.SynthesizeKind("opencode/synthesized-step-start",
		"step_start line", "step_start lines",
		"opencode opens each model round with a step_start")
	lossSynthesizedStepFinish = dialect.SynthesizeKind("opencode/synthesized-step-finish",
		"step_finish line", "step_finish lines",
		"opencode closes each model round with a step_finish")
	lossSynthesizedError = dialect.SynthesizeKind("opencode/synthesized-error",
		"error line", "error lines",
		"opencode shows a failed run by an error line")
	lossUsageEvent = dialect.DropKind("opencode/usage-event",
		"usage event", "usage events",
		"opencode states usage on step_finish only")
	lossUsageBesideRound = dialect.DropKind("opencode/usage-beside-round",
		"round's usage events beside its own usage", "rounds' usage events beside their own usage",
		"opencode states one usage per step")
	lossStopReason = dialect.ApproximateKind("opencode/stop-reason",
		"stop reason %[1]s", "stop reasons %[1]s",
		"opencode's finish reasons are the model SDK's; written as other")
	lossUnstatedCount = dialect.ApproximateKind("opencode/unstated-count",
		"unstated %[1]s count", "unstated %[1]s counts",
		"opencode states every count of a step; written as 0")
	lossUnstatedCost = dialect.ApproximateKind("opencode/unstated-cost",
		"unstated step cost", "unstated step costs",
		"opencode states a cost for every step; written as 0")
	lossTokenTotalNotSum = dialect.DropKind("opencode/token-total-not-sum",
		"token total that is not the sum of the stated counts", "token totals that are not the sum of the stated counts",
		"opencode's tokens.total is input + output + reasoning + cache read + cache write")
	lossThoughtsResponses = dialect.DropKind("opencode/thoughts-responses",
		"thoughts token or model response count", "thoughts token or model response counts",
		"opencode counts input, output, reasoning and cache tokens")
	lossTurnReason = dialect.DropKind("opencode/turn-reason",
		"turn reason", "turn reasons",
		"opencode does not say why a turn ended")
	lossTurnStopToolUse = dialect.ApproximateKind("opencode/turn-stop-tool-use",
		"turn stop reason \"tool_use\"", "turn stop reasons \"tool_use\"",
		"an opencode run that hands back to the user ends with a step that stops; written as stop")
	lossTurnUsageTotal = dialect.ApproximateKind("opencode/turn-usage-total",
		"turn usage total", "turn usage totals",
		"opencode states usage per step; the turn's total is written on its last step")
	lossTurnUsageTotalDiffers = dialect.DropKind("opencode/turn-usage-total-differs",
		"turn usage total that differs from the sum of the steps", "turn usage totals that differ from the sum of the steps",
		"opencode states usage per step only")
	lossRunBound = dialect.DropKind("opencode/run-bound",
		"run bound (stopped_by)", "run bounds (stopped_by)",
		"opencode does not say what limit ended a run")
	lossStructuredOutput = dialect.DropKind("opencode/structured-output",
		"structured output", "structured outputs",
		"opencode run json has no structured output")
	lossRunErrorList = dialect.DropKind("opencode/run-error-list",
		"run error list", "run error lists",
		"opencode writes each error as it happens, not as a list at the end")
	lossRunReasoning = dialect.DropKind("opencode/run-reasoning",
		"run reasoning summary", "run reasoning summaries",
		"opencode writes reasoning parts as they end")
)

// LossKinds implements dialect.LossLister.
func (Dialect) LossKinds() []*dialect.LossKind {
	return []*dialect.LossKind{
		lossUnknownEvent,
		lossNoSuchEvent,
		lossUserMessage,
		lossTurnPrompt,
		lossMessageDeltas,
		lossReasoningDeltas,
		lossToolMutability,
		lossToolKind,
		lossToolProgress,
		lossToolName,
		lossToolStatus,
		lossToolInputNotObject,
		lossToolOutputChunks,
		lossToolSummary,
		lossToolCommand,
		lossToolEdit,
		lossToolWeb,
		lossErrorRecoverable,
		lossNotice,
		lossPermissionRequest,
		lossPermissionOutcome,
		lossPlanUpdate,
		lossTaskUpdated,
		lossModelConfigured,
		lossRepeatedSessionStart,
		lossSessionModel,
		lossProducerVersion,
		lossSessionFacts,
		lossLaterTurn,
		lossLineTimestamp,
		lossSubMillisecond,
		lossSynthesizedStepStart,
		lossSynthesizedStepFinish,
		lossSynthesizedError,
		lossUsageEvent,
		lossUsageBesideRound,
		lossStopReason,
		lossUnstatedCount,
		lossUnstatedCost,
		lossTokenTotalNotSum,
		lossThoughtsResponses,
		lossTurnReason,
		lossTurnStopToolUse,
		lossTurnUsageTotal,
		lossTurnUsageTotalDiffers,
		lossRunBound,
		lossStructuredOutput,
		lossRunErrorList,
		lossRunReasoning,
	}
}

// DefaultKeys names the facts the opencode encoder takes from --default
// (or --session-id) when the source lacks them: every line of run json
// names its session.
func (Dialect) DefaultKeys() []dialect.DefaultKey {
	return []dialect.DefaultKey{dialect.DefaultSessionID}
}
