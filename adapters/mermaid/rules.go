package mermaid

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/evtool/evtool/adapters/internal/check"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/internal/byline"
	"github.com/evtool/evtool/internal/idset"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/evtool/evtool/internal/jsonptr"
	"github.com/evtool/evtool/internal/openset"
	"github.com/tidwall/gjson"
)

// The stream rules of mermaid, in the order `evtool rules` and
// docs/rules.md list them. Each is declared once: the checker reports
// through the value, which gives a finding its id and severity.
var rules dialect.RuleSet

var (
	ruleFirstLine = rules.Error("mermaid/first-line",
		"the first line is session_started")
	ruleStartedAgain = rules.Error("mermaid/session-started-repeated",
		"session_started appears only as the first line")
	ruleAfterResult = rules.Error("mermaid/after-result",
		"nothing follows result")
	ruleTruncated = rules.Error("mermaid/truncated",
		"the stream ends with result; without it the stream is truncated")
	ruleProtocolVersion = rules.Error("mermaid/protocol-version",
		"session_started.protocol_version is 1")
	ruleToolNotStarted = rules.Error("mermaid/tool-not-started",
		"tool_finished names a call that had a tool_started")
	ruleToolRestarted = rules.Error("mermaid/tool-restarted",
		"a call id is started once (call ids are unique within a run)")
	ruleToolFinished = rules.Error("mermaid/tool-finished-twice",
		"a call is finished at most once")
	ruleToolUnfinished = rules.Warning("mermaid/tool-unfinished",
		"every started call finishes before result")
	ruleApprovalUnknown = rules.Error("mermaid/approval-unknown-call",
		"approval_required names a call that has a tool_started, before or after it")
	ruleApprovalFinished = rules.Error("mermaid/approval-after-finish",
		"approval_required comes before its call's tool_finished")
	ruleTaskCounts = rules.Warning("mermaid/task-counts",
		"tasks_updated total is the number of tasks and completed the number completed")
	ruleSessionID = rules.Warning("mermaid/session-id",
		"result.session_id repeats session_started.session_id")
	ruleUnknownType = rules.Unknown("mermaid/unknown-type",
		"the type is one of the ten protocol-1 types (error under --strict)")
	ruleUnknownField = rules.Unknown("mermaid/unknown-field",
		"every field is known for its type (error under --strict)")
	ruleUnknownValue = rules.Unknown("mermaid/unknown-value",
		"tool_finished.status is success, error or cancelled, and a task's status pending, in_progress or completed and its origin model, user or null: mermaid types them as strings, so another word is read, kept and reported (error under --strict)")
)

// call is an open call: named by some line, not yet finished.
type call struct {
	ord     int // its rank among the calls, by the line that first named it
	started int // line of tool_started, 0 if none
}

// checker keeps state for open calls only. A finished call leaves its id
// in done, with the lines of its tool_started (0 if none) and tool_finished
// packed into the value (see pack); an approval that waits for its call's
// tool_started stays in pending until that comes.
type checker struct {
	check.Frame
	session string
	calls   openCalls        // open calls
	done    idset.Set        // finished calls → pack(started, finished)
	pending map[string][]int // call → lines of its approvals made before any tool_started
	named   int              // calls named so far
	rep     dialect.Reporter // reports about the line being checked
}

func newChecker() *checker {
	return &checker{
		Frame: check.Frame{
			Start: "session_started", End: "result",
			FirstLine: ruleFirstLine, Repeated: ruleStartedAgain, After: ruleAfterResult, Truncated: ruleTruncated,
			UnknownType: ruleUnknownType, Types: func(typ string) bool { _, ok := fields[typ]; return ok },
			Alias: true, // what is kept is cloned
		},
		pending: map[string][]int{},
	}
}

// pack keeps a finished call's two lines in one value; a line beyond 2^32-1
// reads back as 2^32-1.
func pack(started, finished int) uint64 { return idset.Line(started)<<32 | idset.Line(finished) }

func unpack(v uint64) (started, finished int) { return int(v >> 32), int(v & (1<<32 - 1)) }

// open returns the open call id, making it when the call is new, as
// started on line started (0: not yet).
func (c *checker) open(id string, started int) (k call, fresh bool) {
	if k, ok := c.calls.get(id); ok {
		return k, false
	}
	c.named++
	k = call{ord: c.named, started: started}
	c.calls.add(id, k)
	return k, true
}

// openCalls are the open calls. A call first named by its tool_started
// (most calls) is kept in an openset in the order named, its started line
// as its name: a stream can leave millions open. One named before it
// started (by an approval) is kept in a map beside.
type openCalls struct {
	set  openset.Set // Line: ord; Name: the started line, as a uvarint
	late map[string]*call
}

func (o *openCalls) get(id string) (call, bool) {
	if k, ok := o.late[id]; ok {
		return *k, true
	}
	e, ok := o.set.Get(id)
	if !ok {
		return call{}, false
	}
	started, _ := binary.Uvarint([]byte(e.Name))
	return call{ord: e.Line, started: int(started)}, true
}

func (o *openCalls) add(id string, k call) {
	if k.started == 0 {
		if o.late == nil {
			o.late = map[string]*call{}
		}
		o.late[strings.Clone(id)] = &k // a gjson string shares the line's memory
		return
	}
	o.set.Add(id, k.ord, string(binary.AppendUvarint(nil, uint64(k.started))))
}

// start sets the started line of a call named before it started.
func (o *openCalls) start(id string, n int) {
	if k, ok := o.late[id]; ok {
		k.started = n
	}
}

func (o *openCalls) del(id string) {
	delete(o.late, id)
	o.set.Delete(id)
}

// each calls f with every open call in the order named.
func (o *openCalls) each(f func(id string, k call)) {
	late := byline.Keys(o.late, func(k *call) int { return k.ord })
	for id, e := range o.set.All {
		for len(late) > 0 && o.late[late[0]].ord < e.Line {
			f(late[0], *o.late[late[0]])
			late = late[1:]
		}
		started, _ := binary.Uvarint([]byte(e.Name))
		f(id, call{ord: e.Line, started: int(started)})
	}
	for _, id := range late {
		f(id, *o.late[id])
	}
}

// Line checks one line: its place in the stream, its keys and words, then
// the rules of its type, by one method per type (see rules).
func (c *checker) Line(line []byte, n int, report func(dialect.Finding)) {
	r, rep, typ, ok := c.Next(line, n, report)
	if !ok {
		return
	}
	c.rep = rep
	check.Keys(rep, ruleUnknownField, r, "", func(k string) bool { return knownField(typ, k) }, "unknown field %q on %s", typ)
	switch typ {
	case "tasks_updated":
		c.taskWords(r)
	case "tool_finished":
		unknownWord(c.rep, "/status", r.Get("status"), knownToolStatuses, "tool_finished.status")
	}
	c.rules(typ, r, n)
}

// taskWords reports the unknown keys of the tasks of a tasks_updated, and
// the words of their status and origin mermaid does not document.
func (c *checker) taskWords(r gjson.Result) {
	i := 0
	jsonobj.ForEach(r.Get("tasks"), func(_, t gjson.Result) bool {
		jsonobj.ForEach(t, func(k, v gjson.Result) bool {
			ptr := fmt.Sprintf("/tasks/%d/%s", i, jsonptr.Escape(k.Str))
			switch {
			case !slices.Contains(taskShape.Known, k.Str):
				c.rep.Reportf(ruleUnknownField, ptr, "unknown field %q in a task", k.Str)
			case k.Str == "status":
				unknownWord(c.rep, ptr, v, knownTaskStatuses, "a task's status")
			case k.Str == "origin":
				unknownWord(c.rep, ptr, v, knownTaskOrigins, "a task's origin")
			}
			return true
		})
		i++
		return true
	})
}

// rules checks the rules of a line's type, by one method per type.
func (c *checker) rules(typ string, r gjson.Result, n int) {
	id := r.Get("call_id").Str
	switch typ {
	case "session_started":
		c.sessionStarted(r)
	case "tool_started":
		c.toolStarted(id, n)
	case "tool_finished":
		c.toolFinished(id, n)
	case "approval_required":
		c.approvalRequired(id, n)
	case "tasks_updated":
		c.tasksUpdated(r)
	case "result":
		c.resultLine(r)
	}
}

func (c *checker) sessionStarted(r gjson.Result) {
	if v := r.Get("protocol_version"); v.Type == gjson.Number && v.Raw != strconv.Itoa(ProtocolVersion) {
		c.rep.Reportf(ruleProtocolVersion, "/protocol_version", "protocol_version %s is not 1, the only mermaid run-event protocol", v.Raw)
	}
	c.session = strings.Clone(r.Get("session_id").Str)
}

func (c *checker) toolStarted(id string, n int) {
	if v, closed := c.done.Get(id); closed {
		// A call may finish before it starts (an error says so); it may
		// then still start, once.
		started, finished := unpack(v)
		if started > 0 {
			c.rep.Reportf(ruleToolRestarted, "/call_id", "call %q was already started on line %d", id, started)
			return
		}
		c.done.Add(id, pack(n, finished))
	} else if k, fresh := c.open(id, n); !fresh {
		if k.started > 0 {
			c.rep.Reportf(ruleToolRestarted, "/call_id", "call %q was already started on line %d", id, k.started)
			return
		}
		c.calls.start(id, n)
	}
	delete(c.pending, id)
}

func (c *checker) toolFinished(id string, n int) {
	if k, ok := c.calls.get(id); ok {
		if k.started == 0 {
			c.rep.Reportf(ruleToolNotStarted, "/call_id", "tool_finished for call %q, which never started", id)
		}
		c.calls.del(id)
		c.done.Add(id, pack(k.started, n))
	} else if v, closed := c.done.Get(id); closed {
		_, finished := unpack(v)
		c.rep.Reportf(ruleToolFinished, "/call_id", "call %q already finished on line %d", id, finished)
	} else {
		c.rep.Reportf(ruleToolNotStarted, "/call_id", "tool_finished for call %q, which never started", id)
		c.done.Add(id, pack(0, n))
	}
}

// approvalRequired checks that an approval comes before its call
// finishes; one made before the call's tool_started waits in pending for
// it.
func (c *checker) approvalRequired(id string, n int) {
	started := false
	if v, closed := c.done.Get(id); closed {
		s, finished := unpack(v)
		c.rep.Reportf(ruleApprovalFinished, "/call_id", "approval_required for call %q, which already finished on line %d", id, finished)
		started = s > 0
	} else {
		k, _ := c.open(id, 0)
		started = k.started > 0
	}
	if started {
		return
	}
	if lines, ok := c.pending[id]; ok {
		c.pending[id] = append(lines, n)
	} else {
		c.pending[strings.Clone(id)] = []int{n}
	}
}

// tasksUpdated checks that total and completed count the list.
func (c *checker) tasksUpdated(r gjson.Result) {
	tasks := r.Get("tasks")
	total, done := 0, 0
	jsonobj.ForEach(tasks, func(_, t gjson.Result) bool {
		total++
		if t.Get("status").Str == "completed" {
			done++
		}
		return true
	})
	if v := r.Get("total"); v.Type == gjson.Number && tasks.IsArray() && v.Raw != strconv.Itoa(total) {
		c.rep.Reportf(ruleTaskCounts, "/total", "total is %s but the list has %d tasks", v.Raw, total)
	}
	if v := r.Get("completed"); v.Type == gjson.Number && tasks.IsArray() && v.Raw != strconv.Itoa(done) {
		c.rep.Reportf(ruleTaskCounts, "/completed", "completed is %s but %d tasks are completed", v.Raw, done)
	}
}

func (c *checker) resultLine(r gjson.Result) {
	if v := r.Get("session_id"); v.Exists() && c.session != "" && v.Str != c.session {
		c.rep.Reportf(ruleSessionID, "/session_id", "result names session %q, session_started %q", v.Str, c.session)
	}
}

// unknownWord reports a string outside the closed set mermaid documents
// for a field it types as a plain string. Another type is the schema's to
// report.
func unknownWord(rep dialect.Reporter, ptr string, v gjson.Result, known []string, what string) {
	if v.Type != gjson.String || slices.Contains(known, v.Str) {
		return
	}
	rep.Reportf(ruleUnknownValue, ptr, "%s %q is not one of mermaid's words (%s); it is kept as written", what, v.Str, strings.Join(known, ", "))
}

func (c *checker) End(last int, report func(dialect.Finding)) {
	if c.Empty(report) {
		return
	}
	type approval struct {
		id   string
		line int
	}
	var never []approval
	for id, lines := range c.pending {
		for _, l := range lines {
			never = append(never, approval{id, l})
		}
	}
	slices.SortFunc(never, func(a, b approval) int { return cmp.Compare(a.line, b.line) })
	for _, a := range never {
		report(ruleApprovalUnknown.Finding(a.line, "/call_id", fmt.Sprintf("approval_required for call %q, which never has a tool_started", a.id)))
	}
	if !c.Complete(last, report) {
		return
	}
	c.calls.each(func(id string, k call) {
		if k.started > 0 {
			report(ruleToolUnfinished.Finding(k.started, "/call_id", fmt.Sprintf("call %q never finished", id)))
		}
	})
}
