package mermaid

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/internal/jsonptr"
	"github.com/tidwall/gjson"
)

// Rule ids of mermaid's stream rules. docs/rules.md describes each.
const (
	RuleFirstLine        = "mermaid/first-line"
	RuleStartedAgain     = "mermaid/session-started-repeated"
	RuleAfterResult      = "mermaid/after-result"
	RuleTruncated        = "mermaid/truncated"
	RuleProtocolVersion  = "mermaid/protocol-version"
	RuleToolNotStarted   = "mermaid/tool-not-started"
	RuleToolRestarted    = "mermaid/tool-restarted"
	RuleToolFinished     = "mermaid/tool-finished-twice"
	RuleToolUnfinished   = "mermaid/tool-unfinished"
	RuleApprovalUnknown  = "mermaid/approval-unknown-call"
	RuleApprovalFinished = "mermaid/approval-after-finish"
	RuleTaskCounts       = "mermaid/task-counts"
	RuleSessionID        = "mermaid/session-id"
	RuleUnknownType      = "mermaid/unknown-type"
	RuleUnknownField     = "mermaid/unknown-field"
)

// Rules implements dialect.RuleLister.
func (Dialect) Rules() []dialect.Rule {
	return []dialect.Rule{
		dialect.ErrorRule(RuleFirstLine, "the first line is session_started"),
		dialect.ErrorRule(RuleStartedAgain, "session_started appears only as the first line"),
		dialect.ErrorRule(RuleAfterResult, "nothing follows result"),
		dialect.ErrorRule(RuleTruncated, "the stream ends with result; without it the stream is truncated"),
		dialect.ErrorRule(RuleProtocolVersion, "session_started.protocol_version is 1"),
		dialect.ErrorRule(RuleToolNotStarted, "tool_finished names a call that had a tool_started"),
		dialect.ErrorRule(RuleToolRestarted, "a call id is started once (call ids are unique within a run)"),
		dialect.ErrorRule(RuleToolFinished, "a call is finished at most once"),
		dialect.WarningRule(RuleToolUnfinished, "every started call finishes before result"),
		dialect.ErrorRule(RuleApprovalUnknown, "approval_required names a call that has a tool_started, before or after it"),
		dialect.ErrorRule(RuleApprovalFinished, "approval_required comes before its call's tool_finished"),
		dialect.WarningRule(RuleTaskCounts, "tasks_updated total is the number of tasks and completed the number completed"),
		dialect.WarningRule(RuleSessionID, "result.session_id repeats session_started.session_id"),
		dialect.WarningRule(RuleUnknownType, "the type is one of the ten protocol-1 types (error under --strict)"),
		dialect.WarningRule(RuleUnknownField, "every field is known for its type (error under --strict)"),
	}
}

type call struct {
	started  int // line of tool_started, 0 if none
	finished int // line of tool_finished, 0 if none
}

type checker struct {
	lines     int
	result    int
	session   string
	calls     map[string]*call
	order     []string
	approvals []approval
}

type approval struct {
	id   string
	line int
}

func newChecker() *checker { return &checker{calls: map[string]*call{}} }

func (c *checker) call(id string) *call {
	k := c.calls[id]
	if k == nil {
		k = &call{}
		c.calls[id] = k
		c.order = append(c.order, id)
	}
	return k
}

func (c *checker) Line(line []byte, n int, report func(dialect.Finding)) {
	c.lines++
	r := gjson.ParseBytes(line)
	if !r.IsObject() {
		return
	}
	rep := dialect.Reporter{Line: n, Report: report}
	errf, warnf := rep.Errorf, rep.Warnf
	typ := r.Get("type").Str
	if c.result > 0 {
		errf("/type", RuleAfterResult, "%s after result on line %d: result must be the last line", typ, c.result)
	}
	if c.lines == 1 && typ != "session_started" {
		errf("/type", RuleFirstLine, "the first line is %q, want session_started", typ)
	}
	if c.lines > 1 && typ == "session_started" {
		errf("/type", RuleStartedAgain, "session_started may only be the first line")
	}
	if _, known := fields[typ]; !known {
		if typ != "" {
			report(dialect.Finding{Line: n, Pointer: "/type", Severity: dialect.Warning, Rule: RuleUnknownType,
				Message: fmt.Sprintf("unknown event type %q (kept as opaque data)", typ), Unknown: true})
		}
		return
	}
	r.ForEach(func(k, _ gjson.Result) bool {
		if !knownField(typ, k.Str) {
			report(dialect.Finding{Line: n, Pointer: "/" + jsonptr.Escape(k.Str), Severity: dialect.Warning, Rule: RuleUnknownField,
				Message: fmt.Sprintf("unknown field %q on %s", k.Str, typ), Unknown: true})
		}
		return true
	})
	if typ == "tasks_updated" {
		i := 0
		r.Get("tasks").ForEach(func(_, t gjson.Result) bool {
			t.ForEach(func(k, _ gjson.Result) bool {
				if !slices.Contains(taskShape.Known, k.Str) {
					report(dialect.Finding{Line: n, Pointer: fmt.Sprintf("/tasks/%d/%s", i, jsonptr.Escape(k.Str)), Severity: dialect.Warning,
						Rule: RuleUnknownField, Message: fmt.Sprintf("unknown field %q in a task", k.Str), Unknown: true})
				}
				return true
			})
			i++
			return true
		})
	}

	id := r.Get("call_id").Str
	switch typ {
	case "session_started":
		if v := r.Get("protocol_version"); v.Type == gjson.Number && v.Raw != strconv.Itoa(ProtocolVersion) {
			errf("/protocol_version", RuleProtocolVersion, "protocol_version %s is not 1, the only mermaid run-event protocol", v.Raw)
		}
		c.session = r.Get("session_id").Str
	case "tool_started":
		k := c.call(id)
		if k.started > 0 {
			errf("/call_id", RuleToolRestarted, "call %q was already started on line %d", id, k.started)
			return
		}
		k.started = n
	case "tool_finished":
		k := c.call(id)
		switch {
		case k.finished > 0:
			errf("/call_id", RuleToolFinished, "call %q already finished on line %d", id, k.finished)
		case k.started == 0:
			errf("/call_id", RuleToolNotStarted, "tool_finished for call %q, which never started", id)
		}
		if k.finished == 0 {
			k.finished = n
		}
	case "approval_required":
		k := c.call(id)
		if k.finished > 0 {
			errf("/call_id", RuleApprovalFinished, "approval_required for call %q, which already finished on line %d", id, k.finished)
		}
		c.approvals = append(c.approvals, approval{id, n})
	case "tasks_updated":
		tasks := r.Get("tasks")
		total, done := 0, 0
		tasks.ForEach(func(_, t gjson.Result) bool {
			total++
			if t.Get("status").Str == "completed" {
				done++
			}
			return true
		})
		if v := r.Get("total"); v.Type == gjson.Number && tasks.IsArray() && v.Raw != strconv.Itoa(total) {
			warnf("/total", RuleTaskCounts, "total is %s but the list has %d tasks", v.Raw, total)
		}
		if v := r.Get("completed"); v.Type == gjson.Number && tasks.IsArray() && v.Raw != strconv.Itoa(done) {
			warnf("/completed", RuleTaskCounts, "completed is %s but %d tasks are completed", v.Raw, done)
		}
	case "result":
		c.result = n
		if v := r.Get("session_id"); v.Exists() && c.session != "" && v.Str != c.session {
			warnf("/session_id", RuleSessionID, "result names session %q, session_started %q", v.Str, c.session)
		}
	}
}

func (c *checker) End(last int, report func(dialect.Finding)) {
	if c.lines == 0 {
		report(dialect.Finding{Severity: dialect.Error, Rule: RuleFirstLine, Message: "the stream is empty: want session_started first"})
		return
	}
	for _, a := range c.approvals {
		if c.calls[a.id].started == 0 {
			report(dialect.Finding{Line: a.line, Pointer: "/call_id", Severity: dialect.Error, Rule: RuleApprovalUnknown,
				Message: fmt.Sprintf("approval_required for call %q, which never has a tool_started", a.id)})
		}
	}
	if c.result == 0 {
		report(dialect.Finding{Line: last, Severity: dialect.Error, Rule: RuleTruncated,
			Message: "the stream ends without result: it is truncated"})
		return
	}
	for _, id := range c.order {
		if k := c.calls[id]; k.started > 0 && k.finished == 0 {
			report(dialect.Finding{Line: k.started, Pointer: "/call_id", Severity: dialect.Warning, Rule: RuleToolUnfinished,
				Message: fmt.Sprintf("call %q never finished", id)})
		}
	}
}
