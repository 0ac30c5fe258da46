package claudetranscript

import (
	"strconv"
	"strings"

	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/idset"
	"github.com/evtool/evtool/internal/jsonenc"
	"github.com/tidwall/gjson"
)

// Subagents. Claude Code has written a subagent's lines three ways: inline
// in the session's file with isSidechain (1.0, each subagent a chain of
// its own from a root whose parentUuid is null), in agent-<id>.jsonl beside
// the session (2.0), and in <session>/subagents/agent-<id>.jsonl (2.1);
// from 2.0 each line names its agentId. Each subagent is a thread: a
// canonical task (task_updated, kind subagent) whose events carry its
// agent_id, linked to the Task call that ran it where the transcript says
// which one.

// thread is the main conversation or one subagent.
type thread struct {
	key     string // "" for the main thread
	agentID string // the line's agentId (2.0 and later)
	side    uint64 // the number of a 1.0 inline sidechain, 0 otherwise
	agent   string // agent_id of its events: the task id, "" for the main thread
	call    string // the Task call that ran it, when known
	turn    string // the turn of its events (the call's turn)
	done    event.TaskStatus
	model   string
	round   *round
}

// taskCall is a Task call whose subagent's lines have not been seen yet.
type taskCall struct {
	call   string
	parent string // the task of the subagent that made the call, "" for the main thread
	prompt uint64 // digest of its input.prompt, which the subagent's first line repeats
	title  string
	turn   string
	done   event.TaskStatus // how the call ended, if it did
}

// thread finds the thread of a conversation line, beginning a subagent's
// task at its first line.
func (l *line) thread() *thread {
	d := l.d
	if l.th != nil {
		return l.th
	}
	agentID := str(l.r, "agentId")
	switch {
	case agentID != "":
		if t := d.threads["agent:"+agentID]; t != nil {
			l.th = t
			return t
		}
		t := &thread{key: "agent:" + agentID, agentID: strings.Clone(agentID)}
		if call, ok := d.agentCalls.Get(agentID); ok {
			d.agentCalls.Delete(agentID)
			t.call = call
		}
		l.th = d.begin(l, t)
	case l.r.Get("isSidechain").Type == gjson.True:
		if v, ok := d.uuids.Get(str(l.r, "parentUuid")); ok && v > 0 {
			if t := d.threads["side:"+strconv.FormatUint(v, 10)]; t != nil {
				l.th = t
				return t
			}
		}
		d.sides++
		t := &thread{key: "side:" + strconv.FormatUint(d.sides, 10), side: d.sides}
		l.th = d.begin(l, t)
	default:
		l.th = d.main
	}
	return l.th
}

// begin links a new subagent to its Task call and writes its task's
// start. The link is the call the transcript names (an agent_progress
// line or the call's toolUseResult.agentId, 2.x), else the waiting Task
// call whose prompt the subagent's first line repeats (1.0 writes no
// other link).
func (d *Decoder) begin(l *line, t *thread) *thread {
	var tc *taskCall
	var prompt uint64
	if t.call == "" && l.typ == "user" {
		if p := promptText(l.r); p != "" {
			prompt = idset.Digest(p)
		}
	}
	for i, c := range d.tasks {
		if (t.call != "" && c.call == t.call) || (prompt != 0 && c.prompt == prompt) {
			tc = c
			d.tasks = append(d.tasks[:i], d.tasks[i+1:]...)
			break
		}
	}
	b := &event.TaskUpdated{Kind: event.TaskSubagent, Status: event.TaskRunning}
	if tc != nil {
		t.call, t.turn, t.done, b.Title, b.ParentTaskID = tc.call, tc.turn, tc.done, tc.title, tc.parent
	} else if t.side > 0 {
		t.turn = d.turn // inline: the subagent runs in the open turn
	}
	switch {
	case t.call != "":
		t.agent = t.call
	case t.agentID != "":
		t.agent = t.agentID
	default:
		t.agent = "sidechain-" + strconv.FormatUint(t.side, 10)
	}
	b.TaskID = t.agent
	var x []byte
	first := true
	x = append(x, '{')
	if t.call != "" {
		x = jsonenc.Key(x, &first, "call_id")
		x = jsonenc.String(x, t.call)
	}
	if t.agentID != "" {
		x = jsonenc.Key(x, &first, "agentId")
		x = jsonenc.String(x, t.agentID)
	}
	ev := &event.Event{Time: l.time, TurnID: t.turn, Body: b}
	if !first {
		ev.Ext = event.ExtOf(Name, append(x, '}'))
	}
	l.synth(ev)
	d.threads[t.key] = t
	d.order = append(d.order, t.key)
	if len(d.order) > maxThreads {
		// The oldest subagent is let go: its open round is counted, and a
		// later line of it begins a new task.
		old := d.threads[d.order[0]]
		l.closeRound(old)
		d.drop(old)
	}
	return t
}

// drop forgets a subagent.
func (d *Decoder) drop(t *thread) {
	delete(d.threads, t.key)
	for i, k := range d.order {
		if k == t.key {
			d.order = append(d.order[:i], d.order[i+1:]...)
			break
		}
	}
}

// promptText is the text of a user line: its content string, or its text
// blocks joined by newlines.
func promptText(r getter) string {
	text, _ := userText(r.Get("message.content"))
	return text
}

// addTask remembers a Task call until its subagent's lines come.
func (d *Decoder) addTask(tc *taskCall) {
	d.tasks = append(d.tasks, tc)
	if len(d.tasks) > maxTasks {
		d.tasks = d.tasks[1:]
	}
}

// callEnded ends the subagent a Task call ran, when the call's result
// comes: at once for a subagent whose lines were read (1.0 writes them
// before the result), else when its lines come, at the end of the
// transcript (2.x files are read after the session's).
func (l *line) callEnded(call string, status event.ToolStatus) {
	d := l.d
	ts := taskStatus(status)
	for _, key := range d.order {
		if t := d.threads[key]; t.call == call {
			l.closeRound(t)
			l.endTask(t, ts)
			d.drop(t)
			return
		}
	}
	for _, c := range d.tasks {
		if c.call == call {
			c.done = ts
		}
	}
}

// endTask writes a subagent task's end.
func (l *line) endTask(t *thread, s event.TaskStatus) {
	l.synth(&event.Event{Time: l.time, TurnID: t.turn, Body: &event.TaskUpdated{TaskID: t.agent, Kind: event.TaskSubagent, Status: s}})
}

// taskStatus is the status of a task whose call ended so.
func taskStatus(s event.ToolStatus) event.TaskStatus {
	switch s {
	case event.ToolSuccess:
		return event.TaskCompleted
	case event.ToolCancelled:
		return event.TaskCancelled
	}
	return event.TaskFailed
}
