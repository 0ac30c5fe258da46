package codex

import "github.com/evtool/evtool/dialect"

// The loss catalogue of the codex encoder: every kind of fact it drops,
// approximates or synthesizes when it writes another dialect's stream, each
// with a stable id (see dialect.LossKind).
var (
	lossBeyondI64 = dialect.ApproximateKind("codex/beyond-i64",
		"token count beyond 9223372036854775807", "token counts beyond 9223372036854775807",
		"codex's counts are i64; written as the largest i64")
	lossUnknownEvent = dialect.DropKind("codex/unknown-event",
		"unknown %[1]s event", "unknown %[1]s events",
		"codex cannot carry another dialect's unknown lines")
	lossNoSuchEvent = dialect.DropKind("codex/no-such-event",
		"%[1]s event", "%[1]s events",
		"codex has no such event")
	lossExitCode = dialect.DropKind("codex/exit-code-beyond-i32",
		"exit code beyond i32", "exit codes beyond i32",
		"codex's exit_code is an i32")
	lossToolStatus = dialect.ApproximateKind("codex/tool-status",
		"tool status %[1]s", "tool statuses %[1]s",
		"the codex item has no such status; written as failed")
	lossAfterRun = dialect.DropKind("codex/after-run-finished",
		"%[1]s event after the run finished", "%[1]s events after the run finished",
		"a codex stream ends with its last turn")
	lossAgentID = dialect.DropKind("codex/agent-id",
		"agent id", "agent ids",
		"codex lines do not say which agent spoke")
	lossTime = dialect.DropKind("codex/event-time",
		"event time", "event times",
		"codex lines carry no time (thread.started's timestamp aside)")
	lossHeaderDefaults = dialect.SynthesizeKind("codex/synthesized-thread-started-defaults",
		"thread.started line", "thread.started lines",
		"a codex stream starts with thread.started; the source has no header")
	lossRepeatedSession = dialect.DropKind("codex/repeated-session-start",
		"repeated session start", "repeated session starts",
		"a codex stream has one thread.started")
	lossTurnPrompt = dialect.DropKind("codex/turn-prompt",
		"turn prompt", "turn prompts",
		"codex exec does not echo the prompt")
	lossTurnCommandID = dialect.DropKind("codex/turn-command-id",
		"turn command id", "turn command ids",
		"codex turns have no id")
	lossStopReason = dialect.DropKind("codex/turn-stop-reason",
		"turn stop reason", "turn stop reasons",
		"codex's turn.completed and turn.failed have no stop reason")
	lossTurnReason = dialect.DropKind("codex/turn-reason",
		"turn reason", "turn reasons",
		"codex's turn.completed has no reason")
	lossMessageID = dialect.DropKind("codex/message-id",
		"message id", "message ids",
		"codex gives items ids of its own")
	lossMessageDelta = dialect.ApproximateKind("codex/message-delta",
		"message delta", "message deltas",
		"codex exec writes whole messages; the deltas are joined into one agent_message")
	lossReasoningDelta = dialect.ApproximateKind("codex/reasoning-delta",
		"reasoning delta", "reasoning deltas",
		"codex exec writes whole reasoning summaries; the deltas are joined into one reasoning item")
	lossRepeatedToolCall = dialect.DropKind("codex/repeated-tool-call",
		"repeated tool_call event", "repeated tool_call events",
		"a codex item is announced once")
	lossCommandTitle = dialect.DropKind("codex/command-title",
		"tool title", "tool titles",
		"a codex command is shown by its command line")
	lossMCPTitle = dialect.DropKind("codex/mcp-title",
		"tool title", "tool titles",
		"a codex MCP call is shown by its server and tool")
	lossToolKind = dialect.DropKind("codex/tool-kind",
		"tool kind", "tool kinds",
		"codex states no kind; a reader tells it by the tool's name")
	lossMutability = dialect.DropKind("codex/tool-mutability",
		"tool mutability", "tool mutabilities",
		"codex states no mutability")
	lossCommandInput = dialect.DropKind("codex/command-input",
		"tool input beyond the command", "tool inputs beyond the command",
		"codex's command_execution has only the command line")
	lossAfterToolFinished = dialect.DropKind("codex/after-tool-finished",
		"tool event after the call finished", "tool events after the call finished",
		"nothing follows a codex item's item.completed")
	lossRepeatedToolStart = dialect.DropKind("codex/repeated-tool-start",
		"repeated tool start", "repeated tool starts",
		"a codex item starts once")
	lossToolProgress = dialect.DropKind("codex/tool-progress",
		"tool progress event", "tool progress events",
		"codex exec reports no tool progress")
	lossOrphanChunk = dialect.DropKind("codex/orphan-output-chunk",
		"tool output chunk", "tool output chunks",
		"the chunk's call is not open")
	lossOutputChunk = dialect.ApproximateKind("codex/output-chunk",
		"tool output chunk", "tool output chunks",
		"codex exec writes a call's output whole; the chunks are joined")
	lossRepeatedToolFinish = dialect.DropKind("codex/repeated-tool-finish",
		"repeated tool finish", "repeated tool finishes",
		"a codex item completes once")
	lossPlanStatus = dialect.ApproximateKind("codex/plan-status",
		"plan status %[1]s", "plan statuses %[1]s",
		"codex's to-do items are done or not; written as not done")
	lossPlanDetails = dialect.DropKind("codex/plan-entry-details",
		"plan entry's details", "plan entries' details",
		"codex's to-do items have only a text and a done flag")
	lossPlanCounts = dialect.DropKind("codex/plan-counts",
		"plan's counts", "plans' counts",
		"codex's to-do list has no counts")
	lossNoticeSeverity = dialect.ApproximateKind("codex/notice-severity",
		"notice severity", "notice severities",
		"codex's error items are warnings")
	lossRecoverable = dialect.DropKind("codex/error-recoverable",
		"error's recoverability", "errors' recoverability",
		"codex's error line has only a message")
	lossUsage = dialect.DropKind("codex/usage",
		"usage event", "usage events",
		"codex has no per-round usage; the rounds are summed into turn.completed's thread total")
	lossRound = dialect.DropKind("codex/round-finished",
		"round_finished event", "round_finished events",
		"codex exec does not show model rounds")
	lossUserMessage = dialect.DropKind("codex/user-message",
		"user message", "user messages",
		"codex exec does not echo the prompt")
	lossPermissionRequest = dialect.DropKind("codex/permission-request",
		"permission request", "permission requests",
		"codex exec runs without approval prompts")
	lossPermissionOutcome = dialect.DropKind("codex/permission-outcome",
		"permission outcome", "permission outcomes",
		"codex exec runs without approval prompts; a refused command is only its status")
	lossTask = dialect.DropKind("codex/task-updated",
		"task_updated event", "task_updated events",
		"codex shows subagents only inside its own collab_tool_call items")
	lossModelConfigured = dialect.DropKind("codex/model-configured",
		"model_configured event", "model_configured events",
		"codex exec names no model")
	lossHeader = dialect.SynthesizeKind("codex/synthesized-thread-started",
		"thread.started line", "thread.started lines",
		"the source has no header line; built from its facts")
	lossModel = dialect.DropKind("codex/model",
		"model", "models",
		"codex exec names no model")
	lossProducerVersion = dialect.DropKind("codex/producer-version",
		"producer version", "producer versions",
		"codex's stream has no version")
	lossSessionFacts = dialect.DropKind("codex/session-facts",
		"session fact (task, workspace, context files, skills, commands, MCP, A2A)", "session facts (task, workspace, context files, skills, commands, MCP, A2A)",
		"codex's thread.started names only the thread")
	lossTurnStarted = dialect.SynthesizeKind("codex/synthesized-turn-started",
		"turn.started line", "turn.started lines",
		"codex items belong to a turn; the source starts none here")
	lossOpenCall = dialect.SynthesizeKind("codex/synthesized-call-completion",
		"item.completed line of a call left open", "item.completed lines of calls left open",
		"the turn ended with the call open; written as failed")
	lossOpenTodo = dialect.SynthesizeKind("codex/synthesized-todo-completion",
		"item.completed line of a to-do list", "item.completed lines of to-do lists",
		"codex completes the to-do list at the turn's end")
	lossTurnCompleted = dialect.SynthesizeKind("codex/synthesized-turn-end",
		"turn end", "turn ends",
		"the source starts a turn without ending the one before")
	lossRunTurnEnd = dialect.SynthesizeKind("codex/synthesized-run-turn-end",
		"turn end", "turn ends",
		"the run ended with the turn open; the turn ends with the run's status")
	lossTurnStatus = dialect.ApproximateKind("codex/turn-status",
		"turn status %[1]s", "turn statuses %[1]s",
		"codex turns complete or fail; written as turn.failed")
	lossFailedUsage = dialect.DropKind("codex/failed-turn-usage",
		"failed turn's usage", "failed turns' usage",
		"codex's turn.failed carries no usage")
	lossTotalOnly = dialect.DropKind("codex/token-total-only",
		"token total without input and output counts", "token totals without input and output counts",
		"codex counts input and output, not a total")
	lossCost = dialect.DropKind("codex/cost",
		"cost", "costs",
		"codex states no cost")
	lossModelResponses = dialect.DropKind("codex/model-responses",
		"model response count", "model response counts",
		"codex does not count model calls")
	lossZeroUsage = dialect.ApproximateKind("codex/zero-usage",
		"turn's token counts", "turns' token counts",
		"codex's turn.completed requires a usage; the source states none, written as 0")
	lossRunBound = dialect.DropKind("codex/run-bound",
		"run bound (stopped_by)", "run bounds (stopped_by)",
		"codex does not say what ended a run")
	lossStructured = dialect.DropKind("codex/structured-output",
		"structured output", "structured outputs",
		"codex writes structured output as the agent_message text")
	lossFinalReasoning = dialect.DropKind("codex/final-reasoning",
		"final reasoning text", "final reasoning texts",
		"codex has no run summary and no reasoning was written")
	lossFinalAnswer = dialect.DropKind("codex/final-answer",
		"final answer text", "final answer texts",
		"codex has no run summary, and the turns are closed")
	lossRunTotals = dialect.DropKind("codex/run-token-totals",
		"run token total", "run token totals",
		"codex's only total is the last turn.completed's usage, which differs")
	lossRunErrors = dialect.DropKind("codex/run-errors",
		"run error", "run errors",
		"the run's error came after its last turn ended; codex writes errors inside a process")
	lossRunErrorLine = dialect.SynthesizeKind("codex/synthesized-error-line",
		"error line of a run error", "error lines of run errors",
		"the run's end names an error no error event said; written as an error line before the turn's end")
	lossSummary = dialect.DropKind("codex/tool-summary",
		"tool summary", "tool summaries",
		"codex items have no summary")
	lossEdit = dialect.DropKind("codex/tool-edit",
		"tool edit fact", "tool edit facts",
		"codex's file_change is written only for its own patches")
	lossWeb = dialect.DropKind("codex/tool-web",
		"tool web detail", "tool web details",
		"codex's web_search is written only for its own searches")
	lossCommandError = dialect.DropKind("codex/command-error",
		"tool error text", "tool error texts",
		"codex's command_execution has only output and exit code")
	lossMCPCommand = dialect.DropKind("codex/mcp-command",
		"tool command and exit code", "tool commands and exit codes",
		"codex's MCP call has no command or exit code")
)

// LossKinds implements dialect.LossLister.
func (Dialect) LossKinds() []*dialect.LossKind {
	return []*dialect.LossKind{
		lossBeyondI64,
		lossUnknownEvent,
		lossNoSuchEvent,
		lossExitCode,
		lossToolStatus,
		lossAfterRun,
		lossAgentID,
		lossTime,
		lossHeaderDefaults,
		lossRepeatedSession,
		lossTurnPrompt,
		lossTurnCommandID,
		lossStopReason,
		lossTurnReason,
		lossMessageID,
		lossMessageDelta,
		lossReasoningDelta,
		lossRepeatedToolCall,
		lossCommandTitle,
		lossMCPTitle,
		lossToolKind,
		lossMutability,
		lossCommandInput,
		lossAfterToolFinished,
		lossRepeatedToolStart,
		lossToolProgress,
		lossOrphanChunk,
		lossOutputChunk,
		lossRepeatedToolFinish,
		lossPlanStatus,
		lossPlanDetails,
		lossPlanCounts,
		lossNoticeSeverity,
		lossRecoverable,
		lossUsage,
		lossRound,
		lossUserMessage,
		lossPermissionRequest,
		lossPermissionOutcome,
		lossTask,
		lossModelConfigured,
		lossHeader,
		lossModel,
		lossProducerVersion,
		lossSessionFacts,
		lossTurnStarted,
		lossOpenCall,
		lossOpenTodo,
		lossTurnCompleted,
		lossRunTurnEnd,
		lossTurnStatus,
		lossFailedUsage,
		lossTotalOnly,
		lossCost,
		lossModelResponses,
		lossZeroUsage,
		lossRunBound,
		lossStructured,
		lossFinalReasoning,
		lossFinalAnswer,
		lossRunTotals,
		lossRunErrors,
		lossRunErrorLine,
		lossSummary,
		lossEdit,
		lossWeb,
		lossCommandError,
		lossMCPCommand,
	}
}

// DefaultKeys names the facts the codex encoder takes from --default (or
// --session-id) when the source lacks them.
func (Dialect) DefaultKeys() []dialect.DefaultKey {
	return []dialect.DefaultKey{dialect.DefaultSessionID}
}
