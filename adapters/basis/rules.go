package basis

import (
	"fmt"
	"iter"
	"slices"
	"strconv"
	"strings"

	"github.com/evtool/evtool/adapters/internal/check"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/internal/idset"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/evtool/evtool/internal/jsonptr"
	"github.com/evtool/evtool/internal/openset"
	"github.com/tidwall/gjson"
)

// The stream rules of basis, in the order `evtool rules` and
// docs/rules.md list them. Each is declared once: the checker reports
// through the value, which gives a finding its id and severity.
var rules dialect.RuleSet

var (
	ruleFirstLine = rules.Error("basis/first-line",
		"the first line is run_started")
	ruleRunStartedAgain = rules.Error("basis/run-started-repeated",
		"run_started appears only as the first line")
	ruleAfterFinish = rules.Error("basis/after-finish",
		"nothing follows run_finished")
	ruleTruncated = rules.Error("basis/truncated",
		"the stream ends with run_finished; without it the stream is truncated")
	ruleSeqIncreasing = rules.Error("basis/seq-increasing",
		"seq strictly increases")
	ruleSeqGap = rules.Warning("basis/seq-gap",
		"seq increases by 1 (gap-free is not promised upstream)")
	ruleSeqStart = rules.Warning("basis/seq-start",
		"the first line has seq 0")
	ruleSchemaVersion = rules.Error("basis/schema-version",
		"run_started.schema is 1 or 2")
	ruleTypeVersion = rules.Error("basis/type-version",
		"every type exists in the stream's schema version (request_tool_results_elided needs 2)")
	ruleErrorMessage = rules.Error("basis/error-message",
		"a run_finished with status error has a message")
	ruleToolNotQueued = rules.Error("basis/tool-not-queued",
		"tool and permission events name a tool call queued before")
	ruleToolRequeued = rules.Error("basis/tool-requeued",
		"a tool call is queued once")
	ruleToolRestarted = rules.Error("basis/tool-restarted",
		"a tool call starts at most once")
	ruleToolClosed = rules.Error("basis/tool-closed",
		"nothing happens to a tool call after its tool_completed")
	ruleToolName = rules.Warning("basis/tool-name",
		"tool_name repeats the name the call was queued with (unless it was queued without one)")
	ruleToolUnfinished = rules.Warning("basis/tool-unfinished",
		"every queued tool call completes before run_finished")
	rulePermNotRequested = rules.Error("basis/permission-not-requested",
		"permission_resolved answers a permission_requested")
	rulePermDuplicate = rules.Error("basis/permission-duplicate",
		"a request_id is requested once")
	rulePermResolvedTwice = rules.Error("basis/permission-resolved-twice",
		"a permission request is resolved at most once")
	rulePermUnresolved = rules.Warning("basis/permission-unresolved",
		"every permission request is resolved before run_finished")
	ruleUnknownType = rules.Unknown("basis/unknown-type",
		"the type is one of the 22 known types (error under --strict)")
	ruleUnknownField = rules.Unknown("basis/unknown-field",
		"every field is known for its type (error under --strict)")
	ruleUnknownValue = rules.Unknown("basis/unknown-value",
		"the elision policy's kind is keep_recent or byte_budget: the policy is non_exhaustive upstream, so another kind is read, kept as written and reported (error under --strict)")
)

// started flags an open call (in checker.tools) whose tool_started was
// read.
const started = 1

// checker keeps state for open calls and requests only, compactly (an
// openset.Set: the line that opened each, its tool name, whether it
// started), so that millions of calls left open cost tens of megabytes
// and no work of the collector's: a completed call, or a resolved
// request, leaves its id in an idset.Set with the line it was queued or
// requested on, which is all a later line can need of it.
type checker struct {
	check.Frame
	schema   uint64
	seq      uint64
	haveSeq  bool
	tools    openset.Set      // open calls, by tool_call_id
	done     idset.Set        // completed calls → line queued
	perms    openset.Set      // open requests, by request_id
	resolved idset.Set        // resolved requests → line requested
	o        jsonobj.Object   // the line's keys, reused
	rep      dialect.Reporter // reports about the line being checked
}

func newChecker() *checker {
	return &checker{Frame: check.Frame{
		Start: "run_started", End: "run_finished",
		FirstLine: ruleFirstLine, Repeated: ruleRunStartedAgain, After: ruleAfterFinish, Truncated: ruleTruncated,
		UnknownType: ruleUnknownType,
	}}
}

// Earliest returns the lowest line a finding still to come may name,
// beside the lines to come and the last (validate's earliest): the line of
// the oldest call or request still open, which End reports; 0 before any
// line, where End reports an empty stream.
func (c *checker) Earliest() int {
	if c.Lines == 0 {
		return 0
	}
	return min(c.tools.Earliest(), c.perms.Earliest())
}

// Line checks one line: its place in the stream and its seq, its keys,
// then the rules of its type, by one method per type (see rules).
func (c *checker) Line(line []byte, n int, report func(dialect.Finding)) {
	r, rep, ok := c.View(line, n, report) // what is kept is cloned
	if !ok {
		return // the schema reports it
	}
	// One pass over the keys: a Get on the line itself would scan it again
	// for every key asked for, long tool inputs included.
	c.o.Reset(r)
	c.rep = rep
	typ := c.get("type").Str
	c.Place(rep, typ)
	c.checkSeq()
	known, isKnown := fields[typ]
	if !c.Known(rep, typ, isKnown) {
		return
	}
	for i := range c.o.Len() {
		if k, _ := c.o.Member(i); !knownField(known, k) {
			c.rep.Reportf(ruleUnknownField, "/"+jsonptr.Escape(k), "unknown field %q on %s", k, typ)
		}
	}
	c.nestedUnknown(typ)
	if schema2Only[typ] && c.schema == 1 {
		c.rep.Reportf(ruleTypeVersion, "/type", "%s does not exist in schema 1 (the stream's run_started says schema 1)", typ)
	}
	c.rules(typ, n)
}

// get returns the value of a key of the line being checked.
func (c *checker) get(k string) gjson.Result {
	v, _ := c.o.Get(k)
	return v
}

// checkSeq checks that seq starts at 0 and increases, by 1 as a rule.
func (c *checker) checkSeq() {
	v := c.get("seq")
	if v.Type != gjson.Number {
		return
	}
	s, err := strconv.ParseUint(v.Raw, 10, 64)
	if err != nil {
		return
	}
	switch {
	case !c.haveSeq && c.Lines == 1 && s != 0:
		c.rep.Reportf(ruleSeqStart, "/seq", "seq of the first line is %d, want 0", s)
	case c.haveSeq && s <= c.seq:
		c.rep.Reportf(ruleSeqIncreasing, "/seq", "seq %d does not increase (previous line had %d)", s, c.seq)
	case c.haveSeq && s > c.seq+1:
		c.rep.Reportf(ruleSeqGap, "/seq", "seq jumps from %d to %d", c.seq, s)
	}
	if !c.haveSeq || s > c.seq {
		c.seq = s
	}
	c.haveSeq = true
}

// rules checks the rules of a line's type, by one method per type (the
// three steps of a call share one).
func (c *checker) rules(typ string, n int) {
	id := c.get("tool_call_id").Str
	switch typ {
	case "run_started":
		c.runStarted()
	case "request_tool_results_elided":
		c.resultsElided()
	case "run_finished":
		c.runFinished()
	case "tool_queued":
		c.toolQueued(id, n)
	case "tool_started", "tool_progress", "tool_completed":
		c.toolStep(typ, id)
	case "permission_requested":
		c.permissionRequested(id, n)
	case "permission_resolved":
		c.permissionResolved(id)
	}
}

func (c *checker) runStarted() {
	v := c.get("schema")
	if v.Type != gjson.Number {
		return
	}
	s, err := strconv.ParseUint(v.Raw, 10, 64)
	if err != nil || (s != 1 && s != 2) {
		c.rep.Reportf(ruleSchemaVersion, "/schema", "schema %s is not a known basis schema version (1 or 2)", v.Raw)
	} else if c.Lines == 1 {
		c.schema = s
	}
}

// resultsElided reports an elision policy kind basis does not document.
// The policy is non_exhaustive upstream and its kind an open tag here (the
// schema takes any string); the other basis words are closed Rust enums,
// which the schema holds to their sets.
func (c *checker) resultsElided() {
	if k := c.get("policy").Get("kind"); k.Type == gjson.String && !slices.Contains(policyKinds, k.Str) {
		c.rep.Reportf(ruleUnknownValue, "/policy/kind", "elision policy kind %q is not one basis documents (%s); the policy is kept as written",
			k.Str, strings.Join(policyKinds, ", "))
	}
}

func (c *checker) runFinished() {
	if c.get("status").Str == "error" && !c.get("message").Exists() {
		c.rep.Reportf(ruleErrorMessage, "/status", "a run_finished with status \"error\" must have a message")
	}
}

func (c *checker) toolQueued(id string, n int) {
	if t, ok := c.tools.Get(id); ok {
		c.rep.Reportf(ruleToolRequeued, "/tool_call_id", "tool call %q was already queued on line %d", id, t.Line)
		return
	}
	if line, ok := c.done.Get(id); ok {
		c.rep.Reportf(ruleToolRequeued, "/tool_call_id", "tool call %q was already queued on line %d", id, line)
		return
	}
	c.tools.Add(id, n, c.get("tool_name").Str) // copied: no string of the line is kept
}

// toolStep checks tool_started, tool_progress and tool_completed: each
// names an open call, by the name it was queued with; a call starts once,
// and completing it closes it.
func (c *checker) toolStep(typ, id string) {
	t, ok := c.tools.Get(id)
	if !ok {
		c.closedCall(id, typ)
		return
	}
	if name := c.get("tool_name"); name.Exists() && name.Str != t.Name && t.Name != "" {
		c.rep.Reportf(ruleToolName, "/tool_name", "tool_name %q differs from %q given when the call was queued on line %d", name.Str, t.Name, t.Line)
	}
	switch typ {
	case "tool_started":
		if t.Flags&started != 0 {
			c.rep.Reportf(ruleToolRestarted, "/tool_call_id", "tool call %q was already started", id)
		}
		c.tools.SetFlags(id, t.Flags|started)
	case "tool_completed":
		c.tools.Delete(id)
		c.done.Add(id, uint64(t.Line))
	}
}

func (c *checker) permissionRequested(id string, n int) {
	rid := c.get("request_id").Str
	if p, ok := c.perms.Get(rid); ok {
		c.rep.Reportf(rulePermDuplicate, "/request_id", "permission request %q was already made on line %d", rid, p.Line)
	} else if line, ok := c.resolved.Get(rid); ok {
		c.rep.Reportf(rulePermDuplicate, "/request_id", "permission request %q was already made on line %d", rid, line)
	} else {
		c.perms.Add(rid, n, "")
	}
	c.permTool(id, "permission_requested")
}

func (c *checker) permissionResolved(id string) {
	rid := c.get("request_id").Str
	p, open := c.perms.Delete(rid)
	switch {
	case open:
		c.resolved.Add(rid, uint64(p.Line))
	case c.resolved.Has(rid):
		c.rep.Reportf(rulePermResolvedTwice, "/request_id", "permission request %q was already resolved", rid)
	default:
		c.rep.Reportf(rulePermNotRequested, "/request_id", "permission_resolved for request %q, which was never requested", rid)
	}
	c.permTool(id, "permission_resolved")
}

// permTool checks that a permission event names a call between its queueing
// and its completion.
func (c *checker) permTool(id, typ string) {
	if !c.tools.Has(id) {
		c.closedCall(id, typ)
	}
}

// closedCall reports a line of type typ about a call that is not open:
// completed already, or never queued.
func (c *checker) closedCall(id, typ string) {
	if c.done.Has(id) {
		c.rep.Reportf(ruleToolClosed, "/tool_call_id", "%s for tool call %q, which already completed", typ, id)
	} else {
		c.rep.Reportf(ruleToolNotQueued, "/tool_call_id", "%s for tool call %q, which was never queued", typ, id)
	}
}

// nestedUnknown reports the unknown keys of the nested objects of a line.
func (c *checker) nestedUnknown(typ string) {
	switch typ {
	case "run_started":
		c.nested("context_files", contextFileShape)
		c.nested("mcp_files", contextFileShape)
		c.nested("a2a_files", contextFileShape)
		c.nested("skills", skillShape)
		c.nested("templates", templateShape)
	case "request_tool_results_elided":
		c.nested("results", elidedShape)
	case "run_finished":
		c.nested("usage", runUsageShape)
	}
}

// nested reports the unknown keys of field, an object or a list of them.
func (c *checker) nested(field string, shape jsonobj.Shape) {
	v := c.get(field)
	if !v.IsArray() && !v.IsObject() {
		return
	}
	visit := func(ptr string, obj gjson.Result) {
		if !obj.IsObject() {
			return
		}
		check.Keys(c.rep, ruleUnknownField, obj, ptr, check.In(shape.Known), "unknown field %q in %s", field)
	}
	if v.IsObject() {
		visit("/"+field, v)
		return
	}
	i := 0
	jsonobj.ForEach(v, func(_, e gjson.Result) bool {
		visit(fmt.Sprintf("/%s/%d", field, i), e)
		i++
		return true
	})
}

func (c *checker) End(last int, report func(dialect.Finding)) {
	if c.Empty(report) || !c.Complete(last, report) {
		return
	}
	// Open calls and requests, in the order they were queued or requested
	// (one per line, so by line), the two lists merged: each finding in
	// the order of the report, with no list of them made.
	type open struct {
		id string
		e  openset.Entry
	}
	pull := func(s *openset.Set) (func() (open, bool), func()) {
		next, stop := iter.Pull2(s.All)
		return func() (open, bool) {
			id, e, ok := next()
			return open{id, e}, ok
		}, stop
	}
	nextTool, stopTools := pull(&c.tools)
	defer stopTools()
	nextPerm, stopPerms := pull(&c.perms)
	defer stopPerms()
	t, tok := nextTool()
	p, pok := nextPerm()
	for tok || pok {
		if pok && (!tok || p.e.Line <= t.e.Line) {
			report(rulePermUnresolved.Finding(p.e.Line, "/request_id", fmt.Sprintf("permission request %q was never resolved", p.id)))
			p, pok = nextPerm()
			continue
		}
		report(ruleToolUnfinished.Finding(t.e.Line, "/tool_call_id", fmt.Sprintf("tool call %q never completed", t.id)))
		t, tok = nextTool()
	}
}
