package event

// The canonical vocabulary: closed sets of words every decoder normalises
// its producer's words into, and every encoder renders from. A decoder
// keeps its producer's own word in ext.<dialect> when it differs from what
// its encoder would write back, so nothing is lost; no adapter needs to
// know another adapter's words.

// Status says how a session or a turn ended.
type Status string

// Statuses of sessions and turns.
const (
	StatusOK        Status = "ok"
	StatusError     Status = "error"
	StatusCancelled Status = "cancelled"
)

// ToolStatus says how a tool call ended.
type ToolStatus string

// Statuses of finished tool calls.
const (
	ToolSuccess   ToolStatus = "success"
	ToolError     ToolStatus = "error"
	ToolCancelled ToolStatus = "cancelled"
	ToolRejected  ToolStatus = "rejected" // refused before it ran
)

// ToolKind says what a tool call does. The words are ACP's ToolKind, which
// editors show as icons.
type ToolKind string

// Kinds of tool calls.
const (
	KindRead       ToolKind = "read"
	KindEdit       ToolKind = "edit"
	KindDelete     ToolKind = "delete"
	KindMove       ToolKind = "move"
	KindSearch     ToolKind = "search"
	KindExecute    ToolKind = "execute"
	KindThink      ToolKind = "think"
	KindFetch      ToolKind = "fetch"
	KindSwitchMode ToolKind = "switch_mode"
	KindOther      ToolKind = "other"
)

// Mutability says whether a tool call changes anything.
type Mutability string

// Mutabilities of tool calls.
const (
	ReadOnly          Mutability = "read_only"
	Mutating          Mutability = "mutating"
	MutabilityUnknown Mutability = "unknown"
)

// Outcome is the answer to a permission request.
type Outcome string

// Outcomes of permission requests.
const (
	Allowed Outcome = "allowed"
	Denied  Outcome = "denied"
)

// Severity ranks a notice; a notice without one reads as info.
type Severity string

// Severities of notices.
const (
	SeverityInfo    Severity = "info"
	SeverityWarning Severity = "warning"
	SeverityError   Severity = "error"
)

// TaskKind says what a piece of concurrent work is.
type TaskKind string

// Kinds of tasks.
const (
	TaskSubagent   TaskKind = "subagent"        // another agent working for this one
	TaskBackground TaskKind = "background_task" // work running beside the conversation
	TaskTeammate   TaskKind = "teammate"        // a peer agent
	TaskInternal   TaskKind = "internal"        // the producer's own housekeeping: model calls, reminders
)

// TaskStatus says where a task stands.
type TaskStatus string

// Statuses of tasks.
const (
	TaskPending   TaskStatus = "pending" // known, not yet running
	TaskRunning   TaskStatus = "running"
	TaskCompleted TaskStatus = "completed"
	TaskFailed    TaskStatus = "failed"
	TaskCancelled TaskStatus = "cancelled"
)

// StopReason says why a turn or a model round stopped. The words are
// ACP's StopReason, and tool_use for a round that ends to call tools.
type StopReason string

// Reasons a turn or round stopped.
const (
	StopEndTurn         StopReason = "end_turn"          // the model said all it had to say
	StopToolUse         StopReason = "tool_use"          // the model stopped to call tools
	StopMaxTokens       StopReason = "max_tokens"        // the output token limit was reached
	StopMaxTurnRequests StopReason = "max_turn_requests" // the limit of model requests in a turn was reached
	StopRefusal         StopReason = "refusal"           // the model or a filter refused
	StopCancelled       StopReason = "cancelled"         // the user stopped it
	StopOther           StopReason = "other"             // a reason the vocabulary has no word for
)

// Bound names a limit that stopped a run.
type Bound string

// Limits that stop runs.
const (
	BoundDeadline    Bound = "deadline"
	BoundToolBudget  Bound = "tool_budget"
	BoundTokenBudget Bound = "token_budget"
)

// Valid reports whether s is one of the statuses.
func (s Status) Valid() bool { return oneOf(s, StatusOK, StatusError, StatusCancelled) }

// Valid reports whether s is one of the tool statuses.
func (s ToolStatus) Valid() bool {
	return oneOf(s, ToolSuccess, ToolError, ToolCancelled, ToolRejected)
}

// ToolKinds lists every tool kind.
func ToolKinds() []ToolKind {
	return []ToolKind{KindRead, KindEdit, KindDelete, KindMove, KindSearch, KindExecute, KindThink, KindFetch, KindSwitchMode, KindOther}
}

// Valid reports whether k is one of the tool kinds.
func (k ToolKind) Valid() bool { return oneOf(k, ToolKinds()...) }

// Valid reports whether k is one of the task kinds.
func (k TaskKind) Valid() bool {
	return oneOf(k, TaskSubagent, TaskBackground, TaskTeammate, TaskInternal)
}

// Valid reports whether s is one of the task statuses.
func (s TaskStatus) Valid() bool {
	return oneOf(s, TaskPending, TaskRunning, TaskCompleted, TaskFailed, TaskCancelled)
}

// StopReasons lists every stop reason.
func StopReasons() []StopReason {
	return []StopReason{StopEndTurn, StopToolUse, StopMaxTokens, StopMaxTurnRequests, StopRefusal, StopCancelled, StopOther}
}

// Valid reports whether r is one of the stop reasons.
func (r StopReason) Valid() bool { return oneOf(r, StopReasons()...) }

func oneOf[T comparable](v T, set ...T) bool {
	for _, s := range set {
		if v == s {
			return true
		}
	}
	return false
}
