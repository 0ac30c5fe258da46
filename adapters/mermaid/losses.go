package mermaid

import "github.com/evtool/evtool/dialect"

// The loss catalogue of the mermaid encoder: every kind of fact it drops,
// approximates or synthesizes, each with a stable id (see dialect.LossKind).
// LossKinds lists them in the order they are declared here.
var losses = dialect.NewLossCatalog("mermaid")

var (
	lossSynthesizedSessionStartedDefaults = losses.Synthesize("synthesized-session-started-defaults",
		"session_started line", "session_started lines",
		"the source stream has no header; built from defaults")
	lossSynthesizedSessionStarted = losses.Synthesize("synthesized-session-started",
		"session_started line", "session_started lines",
		"the source has no header line; built from its facts")
	lossUnknownEvent = losses.Shared(dialect.LossUnknownEvent,
		"mermaid cannot carry another dialect's unknown lines")
	lossMessageId = losses.Drop("message-id",
		"message id", "message ids",
		"mermaid text has no message id")
	lossToolTitleMutability = losses.Drop("tool-title-mutability",
		"tool's title and mutability", "tools' titles and mutability",
		"mermaid's tool_started has only a call id")
	lossToolInput = losses.Drop("tool-input",
		"tool input", "tool inputs",
		"mermaid's tool_started carries no input")
	lossRepeatedToolStart = losses.Shared(dialect.LossRepeatedToolStart,
		"mermaid starts a call once")
	lossToolStatusRejected = losses.Shared(dialect.LossToolStatusRejected,
		"mermaid has no rejected status; written as cancelled")
	lossToolStatus = losses.Shared(dialect.LossToolStatus,
		"mermaid statuses are success, error and cancelled; written as error")
	lossToolOutput = losses.Shared(dialect.LossToolOutput,
		"mermaid's tool_finished has only a summary")
	lossToolEdit = losses.Drop("tool-edit",
		"tool edit fact", "tool edit facts",
		"mermaid's tool_finished has no edit details")
	lossToolWeb = losses.Drop("tool-web",
		"tool's web details", "tools' web details",
		"not a WebEventDetails object of the types mermaid's schema pins (another agent's web results)")
	lossPermissionRequestNoCall = losses.Shared(dialect.LossPermissionRequestNoCall,
		"mermaid's approval_required names a call")
	lossPermissionRisk = losses.Approximate("permission-risk",
		"permission risk", "permission risks",
		"the source does not classify risk; written as unknown")
	lossPermissionPreview = losses.Shared(dialect.LossPermissionPreview,
		"mermaid's approval_required has only a prompt")
	lossErrorRecoverable = losses.Drop("error-recoverable",
		"error's recoverability", "errors' recoverability",
		"mermaid errors have only a message")
	lossUsage = losses.Shared(dialect.LossUsage,
		"mermaid has no per-round usage")
	lossTurnOutcome = losses.Drop("turn-outcome",
		"turn outcome (status, reason, text)", "turn outcomes (status, reason, text)",
		"mermaid's turn_done has only a token total and a stop reason")
	lossTurnTokenCounts = losses.Drop("turn-token-counts",
		"turn's token counts by kind", "turns' token counts by kind",
		"mermaid's turn_done has one total")
	lossRoundTokenCounts = losses.Drop("round-token-counts",
		"round's token counts by kind", "rounds' token counts by kind",
		"mermaid's turn_done has one total")
	lossTurnEnd = losses.Drop("turn-end",
		"turn end", "turn ends",
		"mermaid's run is one turn; its rounds were written as turn_done")
	lossSynthesizedResult = losses.Shared(dialect.LossSynthesizedResult,
		"the source has no such line; built from its facts")
	lossTurnPrompt = losses.Shared(dialect.LossTurnPrompt,
		"mermaid has no turn start; a turn is implied")
	lossUserMessage = losses.Shared(dialect.LossUserMessage,
		"mermaid has no user message event")
	lossPermissionOutcome = losses.Shared(dialect.LossPermissionOutcome,
		"mermaid shows an approval's outcome only as the tool's status")
	lossTaskUpdated = losses.Shared(dialect.LossTaskUpdated,
		"mermaid has no subagent or background-task events")
	lossToolProgress = losses.Shared(dialect.LossToolProgress,
		"mermaid has no tool progress")
	lossToolOutputChunk = losses.Drop("tool-output-chunk",
		"tool output chunk", "tool output chunks",
		"mermaid has no tool output")
	lossNoSuchEvent = losses.Shared(dialect.LossNoSuchEvent,
		"mermaid has no such event")
	lossBeyondU64 = losses.Approximate("beyond-u64",
		"token total beyond 18446744073709551615", "token totals beyond 18446744073709551615",
		"mermaid's totals are u64; written as the largest u64")
	lossProducerVersion = losses.Shared(dialect.LossProducerVersion,
		"mermaid's cli_version names a mermaid version")
	lossSessionFacts = losses.Drop("session-facts",
		"session fact (workspace, context files, skills, commands, MCP)", "session facts (workspace, context files, skills, commands, MCP)",
		"mermaid's session_started names only the model and ids")
	lossSynthesizedToolStarted = losses.Synthesize("synthesized-tool-started",
		"tool_started line", "tool_started lines",
		"mermaid pairs every tool_finished with a tool_started")
	lossPlanEntryId = losses.Approximate("plan-entry-id",
		"plan entry id", "plan entry ids",
		"mermaid task ids are integers; numbered by position")
	lossPlanStatus = losses.Shared(dialect.LossPlanStatus,
		"mermaid's task statuses are pending, in_progress and completed; written as it is")
	lossPlanOrigin = losses.Approximate("plan-origin",
		"plan entry origin %[1]s", "plan entry origins %[1]s",
		"mermaid's task origins are model and user; written as it is")
	lossPlanPriority = losses.Drop("plan-priority",
		"plan priority", "plan priorities",
		"mermaid tasks have no priority")
	lossRunTokenTotalByKind = losses.Shared(dialect.LossRunTokenTotalByKind,
		"mermaid has one total; summed from input, output and thoughts tokens")
	lossRunTokenTotalByRound = losses.Shared(dialect.LossRunTokenTotalByRound,
		"mermaid has one total; summed from the per-round usage")
	lossRunBound = losses.Shared(dialect.LossRunBound,
		"mermaid's result does not say what ended a run")
	lossRunStatusCancelled = losses.Drop("run-status-cancelled",
		"cancelled run status", "cancelled run statuses",
		"mermaid's result has no status")
	lossBeyondU32 = losses.Shared(dialect.LossBeyondU32,
		"mermaid types them as u32; written as 4294967295")
	lossAfterRunFinished = losses.Shared(dialect.LossAfterRunFinished,
		"result is mermaid's last line")
	lossRepeatedSessionStart = losses.Shared(dialect.LossRepeatedSessionStart,
		"mermaid has one session_started, on the first line")
	lossAfterToolFinished = losses.Drop("after-tool-finished",
		"tool event after the call finished", "tool events after the call finished",
		"nothing follows a call's tool_finished in mermaid")
	lossRepeatedToolFinish = losses.Shared(dialect.LossRepeatedToolFinish,
		"mermaid finishes a call once")
	lossPermissionRequestAfterFinish = losses.Drop("permission-request-after-finish",
		"permission request after the call finished", "permission requests after the call finished",
		"mermaid's approval_required comes before the call's tool_finished")
	lossSynthesizedToolFinished = losses.Synthesize("synthesized-tool-finished",
		"tool_finished line", "tool_finished lines",
		"the run ended with the call open; written as cancelled")
	lossCost = losses.Shared(dialect.LossCost,
		"mermaid states no cost")
)
