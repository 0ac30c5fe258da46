package view

import (
	"github.com/evtool/evtool/event"
)

// The model of a run's page: turns holding blocks of items, built while
// the stream is read (model.add) and written once it ends (render.go).
// Every text in it is cut by the run's budget when it is stored, so the
// model's size is bounded by the page's.

// block is a sequence of items: a turn's, a subagent's, or what comes
// before the first turn.
type block struct {
	items []any // *msg, *call, *task, *agent, *note, *hk, *plan, *perm, *round
}

func (b *block) add(it any) { b.items = append(b.items, it) }

// turn is one user turn.
type turn struct {
	n          int
	id         string
	prompt     *text
	images     uint64
	command    string
	start, end string // the first and last time its events state
	b          block
	fin        *event.TurnFinished // Text cut into finText
	finText    *text
	finished   bool
	hasText    bool // an assistant message was shown
	rounds     int
	finishTime string
}

// msgKind says who speaks.
type msgKind int

const (
	msgAssistant msgKind = iota
	msgReasoning
	msgUser
)

// msg is a message: the assistant's (from deltas, or assembled),
// its reasoning, or a user's (a subagent's prompt, a later user message).
type msg struct {
	kind   msgKind
	t      text
	id     string
	deltas bool // built from deltas, to be replaced by the assembled message
	images uint64
}

// call is one tool call, from its first event to its tool_finished.
type call struct {
	n          int
	id         string
	name       string
	title      string
	kind       event.ToolKind
	mut        event.Mutability
	input      *text // the input as JSON, indented when it fits
	cmd        *text // an execute call's command
	progress   *text
	out        *text // the chunks of tool_output
	fin        *event.ToolFinished
	finOut     *text
	finSummary *text
	finError   *text
	finEdit    *text
	finWeb     *text
	perms      []*perm
	finished   bool
	start, end string
	sub        *agent
	diff       *diffView // an edit's change, when the input says it
}

// perm is a permission asked for, and its answer.
type perm struct {
	req     *event.PermissionRequested
	desc    *text
	preview *text
	res     *event.PermissionResolved
}

// task is a piece of concurrent work, shown once with its latest state.
type task struct {
	id      string
	kind    event.TaskKind
	status  event.TaskStatus
	title   string
	detail  *text
	reason  string
	parent  string
	updates int
	sub     *agent
}

// agent is what a subagent (an agent_id other than the main one) did.
type agent struct {
	id     string
	b      block
	placed bool
}

// note is one line about the run: a notice, an error, a retry, a
// compaction, a branch, a model change.
type note struct {
	class string // info, warn, err
	label string
	t     *text
	more  *text // a folded detail (a compaction's summary, a raw line)
	task  *task // an internal task, shown with its latest state
}

// hk gathers consecutive housekeeping events (informational notices,
// internal tasks, memory updates, unknown lines) into one folded line.
type hk struct {
	notes []*note
	more  int // beyond those kept
}

// plan is a snapshot of the agent's checklist.
type plan struct {
	entries []event.PlanEntry
	more    int
}

// round marks the end of one model call.
type round struct {
	n      int
	stop   event.StopReason
	tokens uint64
	stated bool
	time   string
}
