package mermaid

import "github.com/evtool/evtool/dialect"

// The loss catalogue of the mermaid encoder: every kind of fact it drops,
// approximates or synthesizes, each with a stable id (see dialect.LossKind).
var (
	lossSynthesizedSessionStartedDefaults = dialect.SynthesizeKind("mermaid/synthesized-session-started-defaults",
		"session_started line", "session_started lines",
		"the source stream has no header; built from defaults")
	lossSynthesizedSessionStarted = dialect.SynthesizeKind("mermaid/synthesized-session-started",
		"session_started line", "session_started lines",
		"the source has no header line; built from its facts")
	lossUnknownEvent = dialect.DropKind("mermaid/unknown-event",
		"unknown %[1]s event", "unknown %[1]s events",
		"mermaid cannot carry another dialect's unknown lines")
	lossMessageId = dialect.DropKind("mermaid/message-id",
		"message id", "message ids",
		"mermaid text has no message id")
	lossToolTitleMutability = dialect.DropKind("mermaid/tool-title-mutability",
		"tool's title and mutability", "tools' titles and mutability",
		"mermaid's tool_started has only a call id")
	lossToolInput = dialect.DropKind("mermaid/tool-input",
		"tool input", "tool inputs",
		"mermaid's tool_started carries no input")
	lossRepeatedToolStart = dialect.DropKind("mermaid/repeated-tool-start",
		"repeated tool start", "repeated tool starts",
		"mermaid starts a call once")
	lossToolStatusRejected = dialect.ApproximateKind("mermaid/tool-status-rejected",
		"tool status \"rejected\"", "tool statuses \"rejected\"",
		"mermaid has no rejected status; written as cancelled")
	lossToolStatus = dialect.ApproximateKind("mermaid/tool-status",
		"tool status %[1]s", "tool statuses %[1]s",
		"mermaid statuses are success, error and cancelled; written as error")
	lossToolOutput = dialect.DropKind("mermaid/tool-output",
		"tool output", "tool outputs",
		"mermaid's tool_finished has only a summary")
	lossToolEdit = dialect.DropKind("mermaid/tool-edit",
		"tool edit fact", "tool edit facts",
		"mermaid's tool_finished has no edit details")
	lossPermissionRequestNoCall = dialect.DropKind("mermaid/permission-request-no-call",
		"permission request without a call id", "permission requests without a call id",
		"mermaid's approval_required names a call")
	lossPermissionRisk = dialect.ApproximateKind("mermaid/permission-risk",
		"permission risk", "permission risks",
		"the source does not classify risk; written as unknown")
	lossPermissionPreview = dialect.DropKind("mermaid/permission-preview",
		"permission preview", "permission previews",
		"mermaid's approval_required has only a prompt")
	lossErrorRecoverable = dialect.DropKind("mermaid/error-recoverable",
		"error's recoverability", "errors' recoverability",
		"mermaid errors have only a message")
	lossUsage = dialect.DropKind("mermaid/usage",
		"usage event", "usage events",
		"mermaid has no per-round usage")
	lossTurnOutcome = dialect.DropKind("mermaid/turn-outcome",
		"turn outcome (status, reason, text)", "turn outcomes (status, reason, text)",
		"mermaid's turn_done has only a token total and a stop reason")
	lossTurnTokenCounts = dialect.DropKind("mermaid/turn-token-counts",
		"turn's token counts by kind", "turns' token counts by kind",
		"mermaid's turn_done has one total")
	lossRoundTokenCounts = dialect.DropKind("mermaid/round-token-counts",
		"round's token counts by kind", "rounds' token counts by kind",
		"mermaid's turn_done has one total")
	lossTurnEnd = dialect.DropKind("mermaid/turn-end",
		"turn end", "turn ends",
		"mermaid's run is one turn; its rounds were written as turn_done")
	lossSynthesizedResult = dialect.SynthesizeKind("mermaid/synthesized-result",
		"result line", "result lines",
		"the source has no such line; built from its facts")
	lossTurnPrompt = dialect.DropKind("mermaid/turn-prompt",
		"turn prompt", "turn prompts",
		"mermaid has no turn start; a turn is implied")
	lossUserMessage = dialect.DropKind("mermaid/user-message",
		"user message", "user messages",
		"mermaid has no user message event")
	lossPermissionOutcome = dialect.DropKind("mermaid/permission-outcome",
		"permission outcome", "permission outcomes",
		"mermaid shows an approval's outcome only as the tool's status")
	lossTaskUpdated = dialect.DropKind("mermaid/task-updated",
		"task_updated event", "task_updated events",
		"mermaid has no subagent or background-task events")
	lossToolProgress = dialect.DropKind("mermaid/tool-progress",
		"tool progress event", "tool progress events",
		"mermaid has no tool progress")
	lossToolOutputChunk = dialect.DropKind("mermaid/tool-output-chunk",
		"tool output chunk", "tool output chunks",
		"mermaid has no tool output")
	lossNoSuchEvent = dialect.DropKind("mermaid/no-such-event",
		"%[1]s event", "%[1]s events",
		"mermaid has no such event")
	lossBeyondU64 = dialect.ApproximateKind("mermaid/beyond-u64",
		"token total beyond 18446744073709551615", "token totals beyond 18446744073709551615",
		"mermaid's totals are u64; written as the largest u64")
	lossProducerVersion = dialect.DropKind("mermaid/producer-version",
		"producer version", "producer versions",
		"mermaid's cli_version names a mermaid version")
	lossSessionFacts = dialect.DropKind("mermaid/session-facts",
		"session fact (workspace, context files, skills, commands, MCP)", "session facts (workspace, context files, skills, commands, MCP)",
		"mermaid's session_started names only the model and ids")
	lossSynthesizedToolStarted = dialect.SynthesizeKind("mermaid/synthesized-tool-started",
		"tool_started line", "tool_started lines",
		"mermaid pairs every tool_finished with a tool_started")
	lossPlanEntryId = dialect.ApproximateKind("mermaid/plan-entry-id",
		"plan entry id", "plan entry ids",
		"mermaid task ids are integers; numbered by position")
	lossPlanStatus = dialect.ApproximateKind("mermaid/plan-status",
		"plan status %[1]s", "plan statuses %[1]s",
		"mermaid's task statuses are pending, in_progress and completed; written as it is")
	lossPlanOrigin = dialect.ApproximateKind("mermaid/plan-origin",
		"plan entry origin %[1]s", "plan entry origins %[1]s",
		"mermaid's task origins are model and user; written as it is")
	lossPlanPriority = dialect.DropKind("mermaid/plan-priority",
		"plan priority", "plan priorities",
		"mermaid tasks have no priority")
	lossRunTokenTotalByKind = dialect.ApproximateKind("mermaid/run-token-total-by-kind",
		"run token total", "run token totals",
		"mermaid has one total; summed from input, output and thoughts tokens")
	lossRunTokenTotalByRound = dialect.ApproximateKind("mermaid/run-token-total-by-round",
		"run token total", "run token totals",
		"mermaid has one total; summed from the per-round usage")
	lossRunBound = dialect.DropKind("mermaid/run-bound",
		"run bound (stopped_by)", "run bounds (stopped_by)",
		"mermaid's result does not say what ended a run")
	lossRunStatusCancelled = dialect.DropKind("mermaid/run-status-cancelled",
		"cancelled run status", "cancelled run statuses",
		"mermaid's result has no status")
	lossBeyondU32 = dialect.ApproximateKind("mermaid/beyond-u32",
		"%[1]s beyond 4294967295", "%[1]ss beyond 4294967295",
		"mermaid types them as u32; written as 4294967295")
	lossAfterRunFinished = dialect.DropKind("mermaid/after-run-finished",
		"%[1]s event after the run finished", "%[1]s events after the run finished",
		"result is mermaid's last line")
	lossRepeatedSessionStart = dialect.DropKind("mermaid/repeated-session-start",
		"repeated session start", "repeated session starts",
		"mermaid has one session_started, on the first line")
	lossAfterToolFinished = dialect.DropKind("mermaid/after-tool-finished",
		"tool event after the call finished", "tool events after the call finished",
		"nothing follows a call's tool_finished in mermaid")
	lossRepeatedToolFinish = dialect.DropKind("mermaid/repeated-tool-finish",
		"repeated tool finish", "repeated tool finishes",
		"mermaid finishes a call once")
	lossPermissionRequestAfterFinish = dialect.DropKind("mermaid/permission-request-after-finish",
		"permission request after the call finished", "permission requests after the call finished",
		"mermaid's approval_required comes before the call's tool_finished")
	lossSynthesizedToolFinished = dialect.SynthesizeKind("mermaid/synthesized-tool-finished",
		"tool_finished line", "tool_finished lines",
		"the run ended with the call open; written as cancelled")
)

// LossKinds implements dialect.LossLister.
func (Dialect) LossKinds() []*dialect.LossKind {
	return []*dialect.LossKind{
		lossSynthesizedSessionStartedDefaults,
		lossSynthesizedSessionStarted,
		lossUnknownEvent,
		lossMessageId,
		lossToolTitleMutability,
		lossToolInput,
		lossRepeatedToolStart,
		lossToolStatusRejected,
		lossToolStatus,
		lossToolOutput,
		lossToolEdit,
		lossPermissionRequestNoCall,
		lossPermissionRisk,
		lossPermissionPreview,
		lossErrorRecoverable,
		lossUsage,
		lossTurnOutcome,
		lossTurnTokenCounts,
		lossRoundTokenCounts,
		lossTurnEnd,
		lossSynthesizedResult,
		lossTurnPrompt,
		lossUserMessage,
		lossPermissionOutcome,
		lossTaskUpdated,
		lossToolProgress,
		lossToolOutputChunk,
		lossNoSuchEvent,
		lossBeyondU64,
		lossProducerVersion,
		lossSessionFacts,
		lossSynthesizedToolStarted,
		lossPlanEntryId,
		lossPlanStatus,
		lossPlanOrigin,
		lossPlanPriority,
		lossRunTokenTotalByKind,
		lossRunTokenTotalByRound,
		lossRunBound,
		lossRunStatusCancelled,
		lossBeyondU32,
		lossAfterRunFinished,
		lossRepeatedSessionStart,
		lossAfterToolFinished,
		lossRepeatedToolFinish,
		lossPermissionRequestAfterFinish,
		lossSynthesizedToolFinished,
	}
}

// DefaultKeys names the facts the mermaid encoder takes from --default (or
// --session-id) when the source lacks them, instead of leaving them empty.
func (Dialect) DefaultKeys() []dialect.DefaultKey {
	return []dialect.DefaultKey{dialect.DefaultCLIVersion, dialect.DefaultModel, dialect.DefaultSessionID}
}
