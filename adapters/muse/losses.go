package muse

import "github.com/evtool/evtool/dialect"

// The loss catalogue of the muse encoder: every kind of fact it drops,
// approximates or synthesizes, each with a stable id (see dialect.LossKind).
var (
	lossSynthesizedCommandAccepted = dialect.SynthesizeKind("muse/synthesized-command-accepted",
		"runtime.command.accepted record", "runtime.command.accepted records",
		"muse journals it; the source has no such line")
	lossSynthesizedRunLinked = dialect.SynthesizeKind("muse/synthesized-run-linked",
		"session.run.linked record", "session.run.linked records",
		"muse journals it; the source has no such line")
	lossSynthesizedRunTerminal = dialect.SynthesizeKind("muse/synthesized-run-terminal",
		"run.terminal record", "run.terminal records",
		"muse journals it; the source has no such line")
	lossSynthesizedTaskRecord = dialect.SynthesizeKind("muse/synthesized-task-record",
		"task.%[1]s record", "task.%[1]s records",
		"muse journals it; the source has no such line")
	lossSessionFacts = dialect.DropKind("muse/session-facts",
		"session fact (model, workspace, context files)", "session facts (model, workspace, context files)",
		"muse journals the model per turn, and no workspace or context files")
	lossSynthesizedRunStarted = dialect.SynthesizeKind("muse/synthesized-run-started",
		"run.lifecycle.started record", "run.lifecycle.started records",
		"muse journals it; the source has no such line")
	lossImageCount = dialect.DropKind("muse/image-count",
		"image count", "image counts",
		"muse's turn.input.user has only the prompt")
	lossTurnEndOutside = dialect.DropKind("muse/turn-end-outside",
		"turn end outside a turn", "turn ends outside a turn",
		"muse ends only an open turn")
	lossTurnTokenCounts = dialect.DropKind("muse/turn-token-counts",
		"turn's token counts", "turns' token counts",
		"muse has no usage")
	lossRunOutcome = dialect.DropKind("muse/run-outcome",
		"run outcome's details (usage, bounds, errors, structured output)", "run outcomes' details (usage, bounds, errors, structured output)",
		"muse ends a run with its last run.terminal only")
	lossSynthesizedStreamLinked = dialect.SynthesizeKind("muse/synthesized-stream-linked",
		"task.stream.linked record", "task.stream.linked records",
		"muse journals it; the source has no such line")
	lossToolInputTitle = dialect.DropKind("muse/tool-input-title",
		"tool's input and title", "tools' inputs and titles",
		"muse journals no tool input")
	lossPermissionRequest = dialect.DropKind("muse/permission-request",
		"permission request", "permission requests",
		"muse has no approval round trip; it journals the policy decision")
	lossPermissionOutcomeUnknownTask = dialect.DropKind("muse/permission-outcome-unknown-task",
		"permission outcome", "permission outcomes",
		"muse journals a decision only for a known tool task")
	lossPermissionOutcomeLate = dialect.DropKind("muse/permission-outcome-late",
		"permission outcome", "permission outcomes",
		"muse journals the decision before the tool starts")
	lossEventUnknownCall = dialect.DropKind("muse/event-unknown-call",
		"%[1]s event for an unknown call", "%[1]s events for unknown calls",
		"muse journals lifecycle events of known tasks only")
	lossIllegalStep = dialect.DropKind("muse/illegal-step",
		"%[1]s event", "%[1]s events",
		"not a legal lifecycle step for the task at that point")
	lossUnknownEvent = dialect.DropKind("muse/unknown-event",
		"unknown %[1]s event", "unknown %[1]s events",
		"muse cannot carry another dialect's unknown lines")
	lossNoSuchRecord = dialect.DropKind("muse/no-such-record",
		"%[1]s event", "%[1]s events",
		"muse has no such record")
	lossResultUnknownCall = dialect.DropKind("muse/result-unknown-call",
		"tool result for an unknown call", "tool results for unknown calls",
		"muse journals results of known tool tasks only")
	lossToolStatusRejected = dialect.ApproximateKind("muse/tool-status-rejected",
		"tool status \"rejected\"", "tool statuses \"rejected\"",
		"muse rejects only a proposed task; written as cancelled")
	lossIllegalToolFinish = dialect.DropKind("muse/illegal-tool-finish",
		"tool finish", "tool finishes",
		"not a legal lifecycle step for the task at that point")
	lossToolSummary = dialect.DropKind("muse/tool-summary",
		"tool summary", "tool summaries",
		"muse's tool.result has one text")
	lossToolExitCommand = dialect.DropKind("muse/tool-exit-command",
		"tool's exit code and command", "tools' exit codes and commands",
		"written into muse's tool.result text only for bash")
	lossToolWeb = dialect.DropKind("muse/tool-web",
		"tool web detail", "tool web details",
		"muse's tool.result has no web details")
	lossTaskStatusUnknown = dialect.DropKind("muse/task-status-unknown",
		"task update", "task updates",
		"a task status outside the canonical vocabulary")
	lossSynthesizedTaskProposed = dialect.SynthesizeKind("muse/synthesized-task-proposed",
		"task.proposed record", "task.proposed records",
		"muse journals it; the source has no such line")
	lossTaskPendingLate = dialect.DropKind("muse/task-pending-late",
		"task update", "task updates",
		"a task is pending only before its lifecycle starts")
	lossIllegalTaskStep = dialect.DropKind("muse/illegal-task-step",
		"task update", "task updates",
		"not a legal lifecycle step for the task at that point")
	lossTaskTitleDetail = dialect.DropKind("muse/task-title-detail",
		"task's title and details", "tasks' titles and details",
		"muse lifecycle events carry a task kind and a reason only")
	lossRecordedAtMoved = dialect.ApproximateKind("muse/recorded-at-moved",
		"event's time", "events' times",
		"muse's recorded_at never decreases: an event earlier than a record already written takes that record's time")
	lossParentTaskId = dialect.DropKind("muse/parent-task-id",
		"parent task id", "parent task ids",
		"muse journals a parent task only on a side_effect_intent")
)

// LossKinds implements dialect.LossLister.
func (Dialect) LossKinds() []*dialect.LossKind {
	return []*dialect.LossKind{
		lossSynthesizedCommandAccepted,
		lossSynthesizedRunLinked,
		lossSynthesizedRunTerminal,
		lossSynthesizedTaskRecord,
		lossSessionFacts,
		lossSynthesizedRunStarted,
		lossImageCount,
		lossTurnEndOutside,
		lossTurnTokenCounts,
		lossRunOutcome,
		lossSynthesizedStreamLinked,
		lossToolInputTitle,
		lossPermissionRequest,
		lossPermissionOutcomeUnknownTask,
		lossPermissionOutcomeLate,
		lossEventUnknownCall,
		lossIllegalStep,
		lossUnknownEvent,
		lossNoSuchRecord,
		lossResultUnknownCall,
		lossToolStatusRejected,
		lossIllegalToolFinish,
		lossToolSummary,
		lossToolExitCommand,
		lossToolWeb,
		lossTaskStatusUnknown,
		lossSynthesizedTaskProposed,
		lossTaskPendingLate,
		lossIllegalTaskStep,
		lossTaskTitleDetail,
		lossParentTaskId,
		lossRecordedAtMoved,
	}
}

// DefaultKeys names the facts the muse encoder takes from --default (or
// --session-id) when the source lacks them, instead of leaving them empty.
func (Dialect) DefaultKeys() []dialect.DefaultKey {
	return []dialect.DefaultKey{dialect.DefaultSessionID}
}
