package dialect

// The loss kinds several dialects count, worded once. A dialect's catalogue
// takes one with LossCatalog.Shared and says, in its own words, why its
// target cannot carry it; the id is "<dialect>/<name>".
//
// Declared here so that one fact lost by several targets reads the same in
// every report and can be looked for under one name.
var (
	LossAfterRunFinished          = &LossTemplate{Name: "after-run-finished", Verb: Dropped, One: "%[1]s event after the run finished", Many: "%[1]s events after the run finished"}
	LossBeyondU32                 = &LossTemplate{Name: "beyond-u32", Verb: Approximated, One: "%[1]s beyond 4294967295", Many: "%[1]ss beyond 4294967295"}
	LossCost                      = &LossTemplate{Name: "cost", Verb: Dropped, One: "cost", Many: "costs"}
	LossEventTime                 = &LossTemplate{Name: "event-time", Verb: Dropped, One: "event time", Many: "event times"}
	LossFinalAnswer               = &LossTemplate{Name: "final-answer", Verb: Dropped, One: "final answer text", Many: "final answer texts"}
	LossFinalReasoning            = &LossTemplate{Name: "final-reasoning", Verb: Dropped, One: "final reasoning text", Many: "final reasoning texts"}
	LossLaterTurn                 = &LossTemplate{Name: "later-turn", Verb: Approximated, One: "turn after the first", Many: "turns after the first"}
	LossMessageDelta              = &LossTemplate{Name: "message-delta", Verb: Approximated, One: "message delta", Many: "message deltas"}
	LossModelConfigured           = &LossTemplate{Name: "model-configured", Verb: Dropped, One: "model_configured event", Many: "model_configured events"}
	LossModelResponses            = &LossTemplate{Name: "model-responses", Verb: Dropped, One: "model response count", Many: "model response counts"}
	LossNoSuchEvent               = &LossTemplate{Name: "no-such-event", Verb: Dropped, One: "%[1]s event", Many: "%[1]s events"}
	LossPermissionOutcome         = &LossTemplate{Name: "permission-outcome", Verb: Dropped, One: "permission outcome", Many: "permission outcomes"}
	LossPermissionPreview         = &LossTemplate{Name: "permission-preview", Verb: Dropped, One: "permission preview", Many: "permission previews"}
	LossPermissionRequest         = &LossTemplate{Name: "permission-request", Verb: Dropped, One: "permission request", Many: "permission requests"}
	LossPermissionRequestNoCall   = &LossTemplate{Name: "permission-request-no-call", Verb: Dropped, One: "permission request without a call id", Many: "permission requests without a call id"}
	LossPlanStatus                = &LossTemplate{Name: "plan-status", Verb: Approximated, One: "plan status %[1]s", Many: "plan statuses %[1]s"}
	LossPlanUpdate                = &LossTemplate{Name: "plan-update", Verb: Dropped, One: "plan update", Many: "plan updates"}
	LossProducerVersion           = &LossTemplate{Name: "producer-version", Verb: Dropped, One: "producer version", Many: "producer versions"}
	LossReasoningDelta            = &LossTemplate{Name: "reasoning-delta", Verb: Approximated, One: "reasoning delta", Many: "reasoning deltas"}
	LossRepeatedPermissionRequest = &LossTemplate{Name: "repeated-permission-request", Verb: Dropped, One: "repeated permission request", Many: "repeated permission requests"}
	LossRepeatedSessionStart      = &LossTemplate{Name: "repeated-session-start", Verb: Dropped, One: "repeated session start", Many: "repeated session starts"}
	LossRepeatedToolFinish        = &LossTemplate{Name: "repeated-tool-finish", Verb: Dropped, One: "repeated tool finish", Many: "repeated tool finishes"}
	LossRepeatedToolResult        = &LossTemplate{Name: "repeated-tool-result", Verb: Dropped, One: "repeated tool result", Many: "repeated tool results"}
	LossRepeatedToolStart         = &LossTemplate{Name: "repeated-tool-start", Verb: Dropped, One: "repeated tool start", Many: "repeated tool starts"}
	LossRoundFinished             = &LossTemplate{Name: "round-finished", Verb: Dropped, One: "round_finished event", Many: "round_finished events"}
	LossRunBound                  = &LossTemplate{Name: "run-bound", Verb: Dropped, One: "run bound (stopped_by)", Many: "run bounds (stopped_by)"}
	LossRunErrorList              = &LossTemplate{Name: "run-error-list", Verb: Dropped, One: "run error list", Many: "run error lists"}
	LossRunTokenTotalByKind       = &LossTemplate{Name: "run-token-total-by-kind", Verb: Approximated, One: "run token total", Many: "run token totals"}
	LossRunTokenTotalByRound      = &LossTemplate{Name: "run-token-total-by-round", Verb: Approximated, One: "run token total", Many: "run token totals"}
	LossSessionTaskID             = &LossTemplate{Name: "session-task-id", Verb: Dropped, One: "session task id", Many: "session task ids"}
	LossStopReason                = &LossTemplate{Name: "stop-reason", Verb: Approximated, One: "stop reason %[1]s", Many: "stop reasons %[1]s"}
	LossStructuredOutput          = &LossTemplate{Name: "structured-output", Verb: Dropped, One: "structured output", Many: "structured outputs"}
	LossSynthesizedResult         = &LossTemplate{Name: "synthesized-result", Verb: Synthesized, One: "result line", Many: "result lines"}
	LossTaskUpdated               = &LossTemplate{Name: "task-updated", Verb: Dropped, One: "task_updated event", Many: "task_updated events"}
	LossToolCommand               = &LossTemplate{Name: "tool-command", Verb: Dropped, One: "tool command", Many: "tool commands"}
	LossToolInputNotObject        = &LossTemplate{Name: "tool-input-not-object", Verb: Approximated, One: "tool input that is not an object", Many: "tool inputs that are not objects"}
	LossToolName                  = &LossTemplate{Name: "tool-name", Verb: Approximated, One: "tool name", Many: "tool names"}
	LossToolOutput                = &LossTemplate{Name: "tool-output", Verb: Dropped, One: "tool output", Many: "tool outputs"}
	LossToolProgress              = &LossTemplate{Name: "tool-progress", Verb: Dropped, One: "tool progress event", Many: "tool progress events"}
	LossToolStatus                = &LossTemplate{Name: "tool-status", Verb: Approximated, One: "tool status %[1]s", Many: "tool statuses %[1]s"}
	LossToolStatusRejected        = &LossTemplate{Name: "tool-status-rejected", Verb: Approximated, One: "tool status \"rejected\"", Many: "tool statuses \"rejected\""}
	LossToolSummary               = &LossTemplate{Name: "tool-summary", Verb: Dropped, One: "tool summary", Many: "tool summaries"}
	LossTurnCommandID             = &LossTemplate{Name: "turn-command-id", Verb: Dropped, One: "turn command id", Many: "turn command ids"}
	LossTurnPrompt                = &LossTemplate{Name: "turn-prompt", Verb: Dropped, One: "turn prompt", Many: "turn prompts"}
	LossTurnReason                = &LossTemplate{Name: "turn-reason", Verb: Dropped, One: "turn reason", Many: "turn reasons"}
	LossTurnStarted               = &LossTemplate{Name: "turn-started", Verb: Dropped, One: "turn_started event", Many: "turn_started events"}
	LossTurnStopReason            = &LossTemplate{Name: "turn-stop-reason", Verb: Dropped, One: "turn stop reason", Many: "turn stop reasons"}
	LossUnknownEvent              = &LossTemplate{Name: "unknown-event", Verb: Dropped, One: "unknown %[1]s event", Many: "unknown %[1]s events"}
	LossUsage                     = &LossTemplate{Name: "usage", Verb: Dropped, One: "usage event", Many: "usage events"}
	LossUsageEvent                = &LossTemplate{Name: "usage-event", Verb: Dropped, One: "usage event", Many: "usage events"}
	LossUserMessage               = &LossTemplate{Name: "user-message", Verb: Dropped, One: "user message", Many: "user messages"}
)
