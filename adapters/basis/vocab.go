package basis

import "github.com/evtool/evtool/event"

// basis's words for the canonical vocabulary. Where a word is the same in
// both, the table still lists it: the tables are the whole of what basis
// says, and a word missing from them is a newer producer's, kept in
// ext.basis and written back as it was.
var (
	taskStatuses = map[string]event.TaskStatus{
		"spawned":  event.TaskPending,
		"running":  event.TaskRunning,
		"finished": event.TaskCompleted,
		"failed":   event.TaskFailed,
	}
	taskKinds = map[string]event.TaskKind{
		"subagent":        event.TaskSubagent,
		"background_task": event.TaskBackground,
		"teammate":        event.TaskTeammate,
	}
	runStatuses  = map[string]event.Status{"ok": event.StatusOK, "error": event.StatusError}
	outcomes     = map[string]event.Outcome{"allowed": event.Allowed, "denied": event.Denied}
	severities   = map[string]event.Severity{"info": event.SeverityInfo, "warning": event.SeverityWarning}
	mutabilities = map[string]event.Mutability{
		"read_only": event.ReadOnly,
		"mutating":  event.Mutating,
		"unknown":   event.MutabilityUnknown,
	}
	bounds = map[string]event.Bound{
		"deadline":     event.BoundDeadline,
		"tool_budget":  event.BoundToolBudget,
		"token_budget": event.BoundTokenBudget,
	}
)

// wordOf returns basis's word for a canonical value, and whether basis has
// one of its own.
func wordOf[T comparable](table map[string]T, v T) (string, bool) {
	for w, c := range table {
		if c == v {
			return w, true
		}
	}
	return "", false
}

// basisTaskStatus renders a canonical task status; a cancelled task is
// failed to basis.
func basisTaskStatus(s event.TaskStatus) (string, bool) {
	if w, ok := wordOf(taskStatuses, s); ok {
		return w, true
	}
	return "failed", false
}

// basisTaskKind renders a canonical task kind; a producer's internal work
// is background work to basis.
func basisTaskKind(k event.TaskKind) (string, bool) {
	if w, ok := wordOf(taskKinds, k); ok {
		return w, true
	}
	return "background_task", false
}

// policyKinds are the elision policy kinds basis documents
// (RequestToolResultElisionPolicy, tagged on kind). The policy is
// non_exhaustive upstream: another kind is kept as written and reported as
// basis/unknown-value.
var policyKinds = []string{"keep_recent", "byte_budget"}
