package muse

import "github.com/evtool/evtool/dialect"

// The loss catalogue of the muse encoder: every kind of fact it drops,
// approximates or synthesizes, each with a stable id (see dialect.LossKind).
// LossKinds lists them in the order they are declared here.
var losses = dialect.NewLossCatalog("muse")

var (
	lossSynthesizedCommandAccepted = losses.Synthesize("synthesized-command-accepted",
		"runtime.command.accepted record", "runtime.command.accepted records",
		"muse journals it; the source has no such line")
	lossSynthesizedRunLinked = losses.Synthesize("synthesized-run-linked",
		"session.run.linked record", "session.run.linked records",
		"muse journals it; the source has no such line")
	lossSynthesizedRunTerminal = losses.Synthesize("synthesized-run-terminal",
		"run.terminal record", "run.terminal records",
		"muse journals it; the source has no such line")
	lossSynthesizedTaskRecord = losses.Synthesize("synthesized-task-record",
		"task.%[1]s record", "task.%[1]s records",
		"muse journals it; the source has no such line")
	lossSessionFacts = losses.Drop("session-facts",
		"session fact (model, workspace, context files)", "session facts (model, workspace, context files)",
		"muse journals the model per turn, and no workspace or context files")
	lossSynthesizedRunStarted = losses.Synthesize("synthesized-run-started",
		"run.lifecycle.started record", "run.lifecycle.started records",
		"muse journals it; the source has no such line")
	lossImageCount = losses.Drop("image-count",
		"image count", "image counts",
		"muse's turn.input.user has only the prompt")
	lossTurnEndOutside = losses.Drop("turn-end-outside",
		"turn end outside a turn", "turn ends outside a turn",
		"muse ends only an open turn")
	lossTurnTokenCounts = losses.Drop("turn-token-counts",
		"turn's token counts", "turns' token counts",
		"muse has no usage")
	lossRunOutcome = losses.Drop("run-outcome",
		"run outcome's details (usage, bounds, errors, structured output)", "run outcomes' details (usage, bounds, errors, structured output)",
		"muse ends a run with its last run.terminal only")
	lossSynthesizedStreamLinked = losses.Synthesize("synthesized-stream-linked",
		"task.stream.linked record", "task.stream.linked records",
		"muse journals it; the source has no such line")
	lossToolInputTitle = losses.Drop("tool-input-title",
		"tool's input and title", "tools' inputs and titles",
		"muse journals no tool input")
	lossPermissionRequest = losses.Shared(dialect.LossPermissionRequest,
		"muse has no approval round trip; it journals the policy decision")
	lossPermissionOutcomeUnknownTask = losses.Drop("permission-outcome-unknown-task",
		"permission outcome", "permission outcomes",
		"muse journals a decision only for a known tool task")
	lossPermissionOutcomeLate = losses.Drop("permission-outcome-late",
		"permission outcome", "permission outcomes",
		"muse journals the decision before the tool starts")
	lossEventUnknownCall = losses.Drop("event-unknown-call",
		"%[1]s event for an unknown call", "%[1]s events for unknown calls",
		"muse journals lifecycle events of known tasks only")
	lossIllegalStep = losses.Drop("illegal-step",
		"%[1]s event", "%[1]s events",
		"not a legal lifecycle step for the task at that point")
	lossUnknownEvent = losses.Shared(dialect.LossUnknownEvent,
		"muse cannot carry another dialect's unknown lines")
	lossNoSuchRecord = losses.Drop("no-such-record",
		"%[1]s event", "%[1]s events",
		"muse has no such record")
	lossResultUnknownCall = losses.Drop("result-unknown-call",
		"tool result for an unknown call", "tool results for unknown calls",
		"muse journals results of known tool tasks only")
	lossToolStatusRejected = losses.Shared(dialect.LossToolStatusRejected,
		"muse rejects only a proposed task; written as cancelled")
	lossIllegalToolFinish = losses.Drop("illegal-tool-finish",
		"tool finish", "tool finishes",
		"not a legal lifecycle step for the task at that point")
	lossToolSummary = losses.Shared(dialect.LossToolSummary,
		"muse's tool.result has one text")
	lossToolExitCommand = losses.Drop("tool-exit-command",
		"tool's exit code and command", "tools' exit codes and commands",
		"written into muse's tool.result text only for bash")
	lossToolWeb = losses.Drop("tool-web",
		"tool web detail", "tool web details",
		"muse's tool.result has no web details")
	lossTaskStatusUnknown = losses.Drop("task-status-unknown",
		"task update", "task updates",
		"a task status outside the canonical vocabulary")
	lossSynthesizedTaskProposed = losses.Synthesize("synthesized-task-proposed",
		"task.proposed record", "task.proposed records",
		"muse journals it; the source has no such line")
	lossTaskPendingLate = losses.Drop("task-pending-late",
		"task update", "task updates",
		"a task is pending only before its lifecycle starts")
	lossIllegalTaskStep = losses.Drop("illegal-task-step",
		"task update", "task updates",
		"not a legal lifecycle step for the task at that point")
	lossTaskTitleDetail = losses.Drop("task-title-detail",
		"task's title and details", "tasks' titles and details",
		"muse lifecycle events carry a task kind and a reason only")
	lossParentTaskId = losses.Drop("parent-task-id",
		"parent task id", "parent task ids",
		"muse journals a parent task only on a side_effect_intent")
	lossRecordedAtMoved = losses.Approximate("recorded-at-moved",
		"event's time", "events' times",
		"muse's recorded_at never decreases: an event earlier than a record already written takes that record's time")
)
