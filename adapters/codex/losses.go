package codex

import "github.com/evtool/evtool/dialect"

// The loss catalogue of the codex encoder: every kind of fact it drops,
// approximates or synthesizes when it writes another dialect's stream, each
// with a stable id (see dialect.LossKind).
// LossKinds lists them in the order they are declared below.
var losses = dialect.NewLossCatalog("codex")

var (
	lossBeyondI64 = losses.Approximate("beyond-i64",
		"token count beyond 9223372036854775807", "token counts beyond 9223372036854775807",
		"codex's counts are i64; written as the largest i64")
	lossUnknownEvent = losses.Shared(dialect.LossUnknownEvent,
		"codex cannot carry another dialect's unknown lines")
	lossNoSuchEvent = losses.Shared(dialect.LossNoSuchEvent,
		"codex has no such event")
	lossExitCode = losses.Drop("exit-code-beyond-i32",
		"exit code beyond i32", "exit codes beyond i32",
		"codex's exit_code is an i32")
	lossToolStatus = losses.Shared(dialect.LossToolStatus,
		"the codex item has no such status; written as failed")
	lossAfterRun = losses.Shared(dialect.LossAfterRunFinished,
		"a codex stream ends with its last turn")
	lossAgentID = losses.Drop("agent-id",
		"agent id", "agent ids",
		"codex lines do not say which agent spoke")
	lossTime = losses.Shared(dialect.LossEventTime,
		"codex lines carry no time (thread.started's timestamp aside)")
	lossHeaderDefaults = losses.Synthesize("synthesized-thread-started-defaults",
		"thread.started line", "thread.started lines",
		"a codex stream starts with thread.started; the source has no header")
	lossRepeatedSession = losses.Shared(dialect.LossRepeatedSessionStart,
		"a codex stream has one thread.started")
	lossTurnPrompt = losses.Shared(dialect.LossTurnPrompt,
		"codex exec does not echo the prompt")
	lossTurnCommandID = losses.Shared(dialect.LossTurnCommandID,
		"codex turns have no id")
	lossStopReason = losses.Shared(dialect.LossTurnStopReason,
		"codex's turn.completed and turn.failed have no stop reason")
	lossTurnReason = losses.Shared(dialect.LossTurnReason,
		"codex's turn.completed has no reason")
	lossMessageID = losses.Drop("message-id",
		"message id", "message ids",
		"codex gives items ids of its own")
	lossMessageDelta = losses.Shared(dialect.LossMessageDelta,
		"codex exec writes whole messages; the deltas are joined into one agent_message")
	lossReasoningDelta = losses.Shared(dialect.LossReasoningDelta,
		"codex exec writes whole reasoning summaries; the deltas are joined into one reasoning item")
	lossRepeatedToolCall = losses.Drop("repeated-tool-call",
		"repeated tool_call event", "repeated tool_call events",
		"a codex item is announced once")
	lossCommandTitle = losses.Drop("command-title",
		"tool title", "tool titles",
		"a codex command is shown by its command line")
	lossMCPTitle = losses.Drop("mcp-title",
		"tool title", "tool titles",
		"a codex MCP call is shown by its server and tool")
	lossToolKind = losses.Drop("tool-kind",
		"tool kind", "tool kinds",
		"codex states no kind; a reader tells it by the tool's name")
	lossMutability = losses.Drop("tool-mutability",
		"tool mutability", "tool mutabilities",
		"codex states no mutability")
	lossCommandInput = losses.Drop("command-input",
		"tool input beyond the command", "tool inputs beyond the command",
		"codex's command_execution has only the command line")
	lossAfterToolFinished = losses.Drop("after-tool-finished",
		"tool event after the call finished", "tool events after the call finished",
		"nothing follows a codex item's item.completed")
	lossRepeatedToolStart = losses.Shared(dialect.LossRepeatedToolStart,
		"a codex item starts once")
	lossToolProgress = losses.Shared(dialect.LossToolProgress,
		"codex exec reports no tool progress")
	lossOrphanChunk = losses.Drop("orphan-output-chunk",
		"tool output chunk", "tool output chunks",
		"the chunk's call is not open")
	lossOutputChunk = losses.Approximate("output-chunk",
		"tool output chunk", "tool output chunks",
		"codex exec writes a call's output whole; the chunks are joined")
	lossRepeatedToolFinish = losses.Shared(dialect.LossRepeatedToolFinish,
		"a codex item completes once")
	lossPlanStatus = losses.Shared(dialect.LossPlanStatus,
		"codex's to-do items are done or not; written as not done")
	lossPlanDetails = losses.Drop("plan-entry-details",
		"plan entry's details", "plan entries' details",
		"codex's to-do items have only a text and a done flag")
	lossPlanCounts = losses.Drop("plan-counts",
		"plan's counts", "plans' counts",
		"codex's to-do list has no counts")
	lossNoticeSeverity = losses.Approximate("notice-severity",
		"notice severity", "notice severities",
		"codex's error items are warnings")
	lossRecoverable = losses.Drop("error-recoverable",
		"error's recoverability", "errors' recoverability",
		"codex's error line has only a message")
	lossUsage = losses.Shared(dialect.LossUsage,
		"codex has no per-round usage; the rounds are summed into turn.completed's thread total")
	lossRound = losses.Shared(dialect.LossRoundFinished,
		"codex exec does not show model rounds")
	lossUserMessage = losses.Shared(dialect.LossUserMessage,
		"codex exec does not echo the prompt")
	lossPermissionRequest = losses.Shared(dialect.LossPermissionRequest,
		"codex exec runs without approval prompts")
	lossPermissionOutcome = losses.Shared(dialect.LossPermissionOutcome,
		"codex exec runs without approval prompts; a refused command is only its status")
	lossTask = losses.Shared(dialect.LossTaskUpdated,
		"codex shows subagents only inside its own collab_tool_call items")
	lossModelConfigured = losses.Shared(dialect.LossModelConfigured,
		"codex exec names no model")
	lossHeader = losses.Synthesize("synthesized-thread-started",
		"thread.started line", "thread.started lines",
		"the source has no header line; built from its facts")
	lossModel = losses.Drop("model",
		"model", "models",
		"codex exec names no model")
	lossProducerVersion = losses.Shared(dialect.LossProducerVersion,
		"codex's stream has no version")
	lossSessionFacts = losses.Drop("session-facts",
		"session fact (task, workspace, context files, skills, commands, MCP, A2A)", "session facts (task, workspace, context files, skills, commands, MCP, A2A)",
		"codex's thread.started names only the thread")
	lossTurnStarted = losses.Synthesize("synthesized-turn-started",
		"turn.started line", "turn.started lines",
		"codex items belong to a turn; the source starts none here")
	lossOpenCall = losses.Synthesize("synthesized-call-completion",
		"item.completed line of a call left open", "item.completed lines of calls left open",
		"the turn ended with the call open; written as failed")
	lossOpenTodo = losses.Synthesize("synthesized-todo-completion",
		"item.completed line of a to-do list", "item.completed lines of to-do lists",
		"codex completes the to-do list at the turn's end")
	lossTurnCompleted = losses.Synthesize("synthesized-turn-end",
		"turn end", "turn ends",
		"the source starts a turn without ending the one before")
	lossRunTurnEnd = losses.Synthesize("synthesized-run-turn-end",
		"turn end", "turn ends",
		"the run ended with the turn open; the turn ends with the run's status")
	lossTurnStatus = losses.Approximate("turn-status",
		"turn status %[1]s", "turn statuses %[1]s",
		"codex turns complete or fail; written as turn.failed")
	lossFailedUsage = losses.Drop("failed-turn-usage",
		"failed turn's usage", "failed turns' usage",
		"codex's turn.failed carries no usage")
	lossTotalOnly = losses.Drop("token-total-only",
		"token total without input and output counts", "token totals without input and output counts",
		"codex counts input and output, not a total")
	lossCost = losses.Shared(dialect.LossCost,
		"codex states no cost")
	lossModelResponses = losses.Shared(dialect.LossModelResponses,
		"codex does not count model calls")
	lossZeroUsage = losses.Approximate("zero-usage",
		"turn's token counts", "turns' token counts",
		"codex's turn.completed requires a usage; the source states none, written as 0")
	lossRunBound = losses.Shared(dialect.LossRunBound,
		"codex does not say what ended a run")
	lossStructured = losses.Shared(dialect.LossStructuredOutput,
		"codex writes structured output as the agent_message text")
	lossFinalReasoning = losses.Shared(dialect.LossFinalReasoning,
		"codex has no run summary and no reasoning was written")
	lossFinalAnswer = losses.Shared(dialect.LossFinalAnswer,
		"codex has no run summary, and the turns are closed")
	lossRunTotals = losses.Drop("run-token-totals",
		"run token total", "run token totals",
		"codex's only total is the last turn.completed's usage, which differs")
	lossRunErrors = losses.Drop("run-errors",
		"run error", "run errors",
		"the run's error came after its last turn ended; codex writes errors inside a process")
	lossRunErrorLine = losses.Synthesize("synthesized-error-line",
		"error line of a run error", "error lines of run errors",
		"the run's end names an error no error event said; written as an error line before the turn's end")
	lossSummary = losses.Shared(dialect.LossToolSummary,
		"codex items have no summary")
	lossEdit = losses.Drop("tool-edit",
		"tool edit fact", "tool edit facts",
		"codex's file_change is written only for its own patches")
	lossWeb = losses.Drop("tool-web",
		"tool web detail", "tool web details",
		"codex's web_search is written only for its own searches")
	lossCommandError = losses.Drop("command-error",
		"tool error text", "tool error texts",
		"codex's command_execution has only output and exit code")
	lossMCPCommand = losses.Drop("mcp-command",
		"tool command and exit code", "tool commands and exit codes",
		"codex's MCP call has no command or exit code")
)
