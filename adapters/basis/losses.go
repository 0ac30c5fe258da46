package basis

import "github.com/evtool/evtool/dialect"

// The loss catalogue of the basis encoder: every kind of fact it drops,
// approximates or synthesizes, each with a stable id (see dialect.LossKind).
// LossKinds lists them in the order they are declared here.
var losses = dialect.NewLossCatalog("basis")

var (
	lossSessionTaskId = losses.Shared(dialect.LossSessionTaskID,
		"basis's run_started has no task id")
	lossProducerVersion = losses.Shared(dialect.LossProducerVersion,
		"basis's run_started names only a basis version")
	lossFinalReasoning = losses.Shared(dialect.LossFinalReasoning,
		"basis's run_finished has no reasoning and none was streamed")
	lossRunError = losses.Drop("run-error",
		"run error", "run errors",
		"basis's run_finished lists no errors; this one was not an error line")
	lossStructuredOutput = losses.Shared(dialect.LossStructuredOutput,
		"basis's run_finished has no structured output")
	lossMessageId = losses.Drop("message-id",
		"message id", "message ids",
		"basis assistant text has no message id")
	lossToolOutput = losses.Shared(dialect.LossToolOutput,
		"basis's tool_completed has only a summary")
	lossToolEdit = losses.Drop("tool-edit",
		"tool edit fact", "tool edit facts",
		"basis's tool_completed has only a summary")
	lossToolWeb = losses.Drop("tool-web",
		"tool web detail", "tool web details",
		"basis's tool_completed has only a summary")
	lossPermissionRisk = losses.Drop("permission-risk",
		"permission risk", "permission risks",
		"basis's permission_requested has no risk")
	lossTaskReasonParent = losses.Drop("task-reason-parent",
		"task's reason and parent", "tasks' reasons and parents",
		"basis's task_updated has neither")
	lossUnknownEvent = losses.Shared(dialect.LossUnknownEvent,
		"basis cannot carry another dialect's unknown lines")
	lossTurnStarted = losses.Shared(dialect.LossTurnStarted,
		"basis has no turn events; a turn begins at its user_message")
	lossNoSuchEvent = losses.Shared(dialect.LossNoSuchEvent,
		"basis has no such event")
	lossSynthesizedLine = losses.Synthesize("synthesized-line",
		"%[1]s line", "%[1]s lines",
		"the source has no such line; built from its facts")
	lossToolNameAtQueue = losses.Approximate("tool-name-at-queue",
		"tool name at queue time", "tool names at queue time",
		"the source names the tool only later; tool_queued has an empty tool_name")
	lossToolErrorDetail = losses.Drop("tool-error-detail",
		"tool error detail", "tool error details",
		"basis's tool_completed has only a summary")
	lossToolStatus = losses.Shared(dialect.LossToolStatus,
		"basis says only is_error")
	lossPermissionRequestId = losses.Approximate("permission-request-id",
		"permission request id", "permission request ids",
		"the source has none; named approval-<call id>")
	lossTaskKindStatus = losses.Approximate("task-kind-status",
		"task's kind and status", "tasks' kinds and statuses",
		"basis tasks are subagents, background tasks or teammates, spawned, running, finished or failed")
	lossUsageTotal = losses.Drop("usage-total",
		"usage total", "usage totals",
		"basis usage has no total_tokens")
	lossNoticeSeverityError = losses.Approximate("notice-severity-error",
		"notice severity \"error\"", "notice severities \"error\"",
		"basis notices are info or warning; written as warning")
	lossErrorRecoverable = losses.Approximate("error-recoverable",
		"error's recoverability", "errors' recoverability",
		"the source does not say; written as recoverable: false")
	lossRunStatusCancelled = losses.Approximate("run-status-cancelled",
		"cancelled run status", "cancelled run statuses",
		"basis run outcomes are ok and error; written as error")
	lossFinishMessage = losses.Approximate("finish-message",
		"finish message", "finish messages",
		"basis requires a message on an error finish; taken from the run's errors")
	lossRunTokenTotal = losses.Drop("run-token-total",
		"run token total", "run token totals",
		"basis run usage counts tokens by kind, not in total")
	lossRunTokenCountUnstated = losses.Approximate("run-token-count-unstated",
		"run token count not stated", "run token counts not stated",
		"basis's run usage always has input, output, cache read and cache creation counts; written as 0")
	lossFinalAnswer = losses.Shared(dialect.LossFinalAnswer,
		"basis's run_finished has no text and no assistant text was streamed")
	lossBeyondU32 = losses.Shared(dialect.LossBeyondU32,
		"basis types them as u32; written as 4294967295")
	lossRepeatedSessionStart = losses.Shared(dialect.LossRepeatedSessionStart,
		"basis has one run_started, on the first line")
	lossAfterRunFinished = losses.Shared(dialect.LossAfterRunFinished,
		"run_finished is basis's last line")
	lossAfterToolCompleted = losses.Drop("after-tool-completed",
		"tool event after the call completed", "tool events after the call completed",
		"nothing follows a call's tool_completed in basis")
	lossRepeatedToolCall = losses.Drop("repeated-tool-call",
		"repeated tool call", "repeated tool calls",
		"basis queues a call once")
	lossRepeatedToolStart = losses.Shared(dialect.LossRepeatedToolStart,
		"basis starts a call once")
	lossRepeatedToolFinish = losses.Shared(dialect.LossRepeatedToolFinish,
		"basis completes a call once")
	lossRepeatedPermissionRequest = losses.Shared(dialect.LossRepeatedPermissionRequest,
		"basis asks a request id once")
	lossPermissionOutcomeUnasked = losses.Drop("permission-outcome-unasked",
		"permission outcome decided without a request", "permission outcomes decided without a request",
		"basis records only the permissions it asked for")
	lossRepeatedPermissionOutcome = losses.Drop("repeated-permission-outcome",
		"repeated permission outcome", "repeated permission outcomes",
		"basis resolves a request once")
	lossSynthesizedToolQueued = losses.Synthesize("synthesized-tool-queued",
		"tool_queued line", "tool_queued lines",
		"the source never announced the call; basis queues every call first")
	lossSynthesizedToolCompleted = losses.Synthesize("synthesized-tool-completed",
		"tool_completed line", "tool_completed lines",
		"the run ended with the call open; written as failed")
	lossSynthesizedTaskUpdated = losses.Synthesize("synthesized-task-updated",
		"task_updated line", "task_updated lines",
		"the run ended with the task open; written as failed")
	lossCost = losses.Shared(dialect.LossCost,
		"basis states no cost")
)
