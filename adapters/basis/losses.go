package basis

import "github.com/evtool/evtool/dialect"

// The loss catalogue of the basis encoder: every kind of fact it drops,
// approximates or synthesizes, each with a stable id (see dialect.LossKind).
var (
	lossSessionTaskId = dialect.DropKind("basis/session-task-id",
		"session task id", "session task ids",
		"basis's run_started has no task id")
	lossProducerVersion = dialect.DropKind("basis/producer-version",
		"producer version", "producer versions",
		"basis's run_started names only a basis version")
	lossFinalReasoning = dialect.DropKind("basis/final-reasoning",
		"final reasoning text", "final reasoning texts",
		"basis's run_finished has no reasoning and none was streamed")
	lossRunError = dialect.DropKind("basis/run-error",
		"run error", "run errors",
		"basis's run_finished lists no errors; this one was not an error line")
	lossStructuredOutput = dialect.DropKind("basis/structured-output",
		"structured output", "structured outputs",
		"basis's run_finished has no structured output")
	lossMessageId = dialect.DropKind("basis/message-id",
		"message id", "message ids",
		"basis assistant text has no message id")
	lossToolOutput = dialect.DropKind("basis/tool-output",
		"tool output", "tool outputs",
		"basis's tool_completed has only a summary")
	lossToolEdit = dialect.DropKind("basis/tool-edit",
		"tool edit fact", "tool edit facts",
		"basis's tool_completed has only a summary")
	lossToolWeb = dialect.DropKind("basis/tool-web",
		"tool web detail", "tool web details",
		"basis's tool_completed has only a summary")
	lossPermissionRisk = dialect.DropKind("basis/permission-risk",
		"permission risk", "permission risks",
		"basis's permission_requested has no risk")
	lossTaskReasonParent = dialect.DropKind("basis/task-reason-parent",
		"task's reason and parent", "tasks' reasons and parents",
		"basis's task_updated has neither")
	lossUnknownEvent = dialect.DropKind("basis/unknown-event",
		"unknown %[1]s event", "unknown %[1]s events",
		"basis cannot carry another dialect's unknown lines")
	lossTurnStarted = dialect.DropKind("basis/turn-started",
		"turn_started event", "turn_started events",
		"basis has no turn events; a turn begins at its user_message")
	lossNoSuchEvent = dialect.DropKind("basis/no-such-event",
		"%[1]s event", "%[1]s events",
		"basis has no such event")
	lossSynthesizedLine = dialect.SynthesizeKind("basis/synthesized-line",
		"%[1]s line", "%[1]s lines",
		"the source has no such line; built from its facts")
	lossToolNameAtQueue = dialect.ApproximateKind("basis/tool-name-at-queue",
		"tool name at queue time", "tool names at queue time",
		"the source names the tool only later; tool_queued has an empty tool_name")
	lossToolErrorDetail = dialect.DropKind("basis/tool-error-detail",
		"tool error detail", "tool error details",
		"basis's tool_completed has only a summary")
	lossToolStatus = dialect.ApproximateKind("basis/tool-status",
		"tool status %[1]s", "tool statuses %[1]s",
		"basis says only is_error")
	lossPermissionRequestId = dialect.ApproximateKind("basis/permission-request-id",
		"permission request id", "permission request ids",
		"the source has none; named approval-<call id>")
	lossTaskKindStatus = dialect.ApproximateKind("basis/task-kind-status",
		"task's kind and status", "tasks' kinds and statuses",
		"basis tasks are subagents, background tasks or teammates, spawned, running, finished or failed")
	lossUsageTotal = dialect.DropKind("basis/usage-total",
		"usage total", "usage totals",
		"basis usage has no total_tokens")
	lossNoticeSeverityError = dialect.ApproximateKind("basis/notice-severity-error",
		"notice severity \"error\"", "notice severities \"error\"",
		"basis notices are info or warning; written as warning")
	lossErrorRecoverable = dialect.ApproximateKind("basis/error-recoverable",
		"error's recoverability", "errors' recoverability",
		"the source does not say; written as recoverable: false")
	lossRunStatusCancelled = dialect.ApproximateKind("basis/run-status-cancelled",
		"cancelled run status", "cancelled run statuses",
		"basis run outcomes are ok and error; written as error")
	lossFinishMessage = dialect.ApproximateKind("basis/finish-message",
		"finish message", "finish messages",
		"basis requires a message on an error finish; taken from the run's errors")
	lossRunTokenTotal = dialect.DropKind("basis/run-token-total",
		"run token total", "run token totals",
		"basis run usage counts tokens by kind, not in total")
	lossRunTokenCountUnstated = dialect.ApproximateKind("basis/run-token-count-unstated",
		"run token count not stated", "run token counts not stated",
		"basis's run usage always has input, output, cache read and cache creation counts; written as 0")
	lossFinalAnswer = dialect.DropKind("basis/final-answer",
		"final answer text", "final answer texts",
		"basis's run_finished has no text and no assistant text was streamed")
	lossBeyondU32 = dialect.ApproximateKind("basis/beyond-u32",
		"%[1]s beyond 4294967295", "%[1]ss beyond 4294967295",
		"basis types them as u32; written as 4294967295")
	lossRepeatedSessionStart = dialect.DropKind("basis/repeated-session-start",
		"repeated session start", "repeated session starts",
		"basis has one run_started, on the first line")
	lossAfterRunFinished = dialect.DropKind("basis/after-run-finished",
		"%[1]s event after the run finished", "%[1]s events after the run finished",
		"run_finished is basis's last line")
	lossAfterToolCompleted = dialect.DropKind("basis/after-tool-completed",
		"tool event after the call completed", "tool events after the call completed",
		"nothing follows a call's tool_completed in basis")
	lossRepeatedToolCall = dialect.DropKind("basis/repeated-tool-call",
		"repeated tool call", "repeated tool calls",
		"basis queues a call once")
	lossRepeatedToolStart = dialect.DropKind("basis/repeated-tool-start",
		"repeated tool start", "repeated tool starts",
		"basis starts a call once")
	lossRepeatedToolFinish = dialect.DropKind("basis/repeated-tool-finish",
		"repeated tool finish", "repeated tool finishes",
		"basis completes a call once")
	lossRepeatedPermissionRequest = dialect.DropKind("basis/repeated-permission-request",
		"repeated permission request", "repeated permission requests",
		"basis asks a request id once")
	lossPermissionOutcomeUnasked = dialect.DropKind("basis/permission-outcome-unasked",
		"permission outcome decided without a request", "permission outcomes decided without a request",
		"basis records only the permissions it asked for")
	lossRepeatedPermissionOutcome = dialect.DropKind("basis/repeated-permission-outcome",
		"repeated permission outcome", "repeated permission outcomes",
		"basis resolves a request once")
	lossSynthesizedToolQueued = dialect.SynthesizeKind("basis/synthesized-tool-queued",
		"tool_queued line", "tool_queued lines",
		"the source never announced the call; basis queues every call first")
	lossSynthesizedToolCompleted = dialect.SynthesizeKind("basis/synthesized-tool-completed",
		"tool_completed line", "tool_completed lines",
		"the run ended with the call open; written as failed")
	lossSynthesizedTaskUpdated = dialect.SynthesizeKind("basis/synthesized-task-updated",
		"task_updated line", "task_updated lines",
		"the run ended with the task open; written as failed")
)

// LossKinds implements dialect.LossLister.
func (Dialect) LossKinds() []*dialect.LossKind {
	return []*dialect.LossKind{
		lossSessionTaskId,
		lossProducerVersion,
		lossFinalReasoning,
		lossRunError,
		lossStructuredOutput,
		lossMessageId,
		lossToolOutput,
		lossToolEdit,
		lossToolWeb,
		lossPermissionRisk,
		lossTaskReasonParent,
		lossUnknownEvent,
		lossTurnStarted,
		lossNoSuchEvent,
		lossSynthesizedLine,
		lossToolNameAtQueue,
		lossToolErrorDetail,
		lossToolStatus,
		lossPermissionRequestId,
		lossTaskKindStatus,
		lossUsageTotal,
		lossNoticeSeverityError,
		lossErrorRecoverable,
		lossRunStatusCancelled,
		lossFinishMessage,
		lossRunTokenTotal,
		lossRunTokenCountUnstated,
		lossFinalAnswer,
		lossBeyondU32,
		lossRepeatedSessionStart,
		lossAfterRunFinished,
		lossAfterToolCompleted,
		lossRepeatedToolCall,
		lossRepeatedToolStart,
		lossRepeatedToolFinish,
		lossRepeatedPermissionRequest,
		lossPermissionOutcomeUnasked,
		lossRepeatedPermissionOutcome,
		lossSynthesizedToolQueued,
		lossSynthesizedToolCompleted,
		lossSynthesizedTaskUpdated,
	}
}

// DefaultKeys names the facts the basis encoder takes from --default (or
// --session-id) when the source lacks them, instead of leaving them empty.
func (Dialect) DefaultKeys() []dialect.DefaultKey {
	return []dialect.DefaultKey{dialect.DefaultBasisVersion, dialect.DefaultModel, dialect.DefaultProvider, dialect.DefaultSessionID, dialect.DefaultWorkspace}
}
