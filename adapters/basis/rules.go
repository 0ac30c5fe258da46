package basis

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/internal/idset"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/evtool/evtool/internal/jsonptr"
	"github.com/tidwall/gjson"
)

// Rule ids of basis's stream rules. docs/rules.md describes each.
const (
	RuleFirstLine         = "basis/first-line"
	RuleRunStartedAgain   = "basis/run-started-repeated"
	RuleAfterFinish       = "basis/after-finish"
	RuleTruncated         = "basis/truncated"
	RuleSeqIncreasing     = "basis/seq-increasing"
	RuleSeqGap            = "basis/seq-gap"
	RuleSeqStart          = "basis/seq-start"
	RuleSchemaVersion     = "basis/schema-version"
	RuleTypeVersion       = "basis/type-version"
	RuleErrorMessage      = "basis/error-message"
	RuleToolNotQueued     = "basis/tool-not-queued"
	RuleToolRequeued      = "basis/tool-requeued"
	RuleToolRestarted     = "basis/tool-restarted"
	RuleToolClosed        = "basis/tool-closed"
	RuleToolName          = "basis/tool-name"
	RuleToolUnfinished    = "basis/tool-unfinished"
	RulePermNotRequested  = "basis/permission-not-requested"
	RulePermDuplicate     = "basis/permission-duplicate"
	RulePermResolvedTwice = "basis/permission-resolved-twice"
	RulePermUnresolved    = "basis/permission-unresolved"
	RuleUnknownType       = "basis/unknown-type"
	RuleUnknownField      = "basis/unknown-field"
	RuleUnknownValue      = "basis/unknown-value"
)

// toolState is an open call: queued and not yet completed.
type toolState struct {
	line    int // of its tool_queued
	name    string
	started bool
}

// checker keeps state for open calls and requests only: a completed call,
// or a resolved request, leaves its id in an idset.Set with the line it
// was queued or requested on, which is all a later line can need of it.
type checker struct {
	lines    int
	schema   uint64
	seq      uint64
	haveSeq  bool
	finished int                   // line of run_finished, 0 if none yet
	tools    map[string]*toolState // open calls
	done     idset.Set             // completed calls → line queued
	perms    map[string]int        // open requests → line requested
	resolved idset.Set             // resolved requests → line requested
	o        jsonobj.Object        // the line's keys, reused
}

func newChecker() *checker {
	return &checker{tools: map[string]*toolState{}, perms: map[string]int{}}
}

func (c *checker) Line(line []byte, n int, report func(dialect.Finding)) {
	c.lines++
	r := jsonobj.View(line) // what is kept is cloned
	if !r.IsObject() {
		return // the schema reports it
	}
	// One pass over the keys: a Get on the line itself would scan it again
	// for every key asked for, long tool inputs included.
	o := &c.o
	o.Reset(r)
	get := func(k string) gjson.Result { v, _ := o.Get(k); return v }
	rep := dialect.Reporter{Line: n, Report: report}
	errf, warnf := rep.Errorf, rep.Warnf
	typ := get("type").Str

	if c.finished > 0 {
		errf("/type", RuleAfterFinish, "%s after run_finished on line %d: run_finished must be the last line", typ, c.finished)
	}
	if c.lines == 1 && typ != "run_started" {
		errf("/type", RuleFirstLine, "the first line is %q, want run_started", typ)
	}
	if c.lines > 1 && typ == "run_started" {
		errf("/type", RuleRunStartedAgain, "run_started may only be the first line")
	}

	if v := get("seq"); v.Type == gjson.Number {
		if s, err := strconv.ParseUint(v.Raw, 10, 64); err == nil {
			switch {
			case !c.haveSeq && c.lines == 1 && s != 0:
				warnf("/seq", RuleSeqStart, "seq of the first line is %d, want 0", s)
			case c.haveSeq && s <= c.seq:
				errf("/seq", RuleSeqIncreasing, "seq %d does not increase (previous line had %d)", s, c.seq)
			case c.haveSeq && s > c.seq+1:
				warnf("/seq", RuleSeqGap, "seq jumps from %d to %d", c.seq, s)
			}
			if !c.haveSeq || s > c.seq {
				c.seq = s
			}
			c.haveSeq = true
		}
	}

	known, isKnown := fields[typ]
	if !isKnown {
		if typ != "" {
			rep.Unknownf("/type", RuleUnknownType, "unknown event type %q (kept as opaque data)", typ)
		}
		return
	}
	for i := range o.Len() {
		if k, _ := o.Member(i); !knownField(known, k) {
			rep.Unknownf("/"+jsonptr.Escape(k), RuleUnknownField, "unknown field %q on %s", k, typ)
		}
	}
	c.nestedUnknown(get, typ, n, report)

	if schema2Only[typ] && c.schema == 1 {
		errf("/type", RuleTypeVersion, "%s does not exist in schema 1 (the stream's run_started says schema 1)", typ)
	}

	id := get("tool_call_id").Str
	switch typ {
	case "run_started":
		if v := get("schema"); v.Type == gjson.Number {
			s, err := strconv.ParseUint(v.Raw, 10, 64)
			if err != nil || (s != 1 && s != 2) {
				errf("/schema", RuleSchemaVersion, "schema %s is not a known basis schema version (1 or 2)", v.Raw)
			} else if c.lines == 1 {
				c.schema = s
			}
		}
	case "request_tool_results_elided":
		// The policy is non_exhaustive upstream and its kind an open tag
		// here (the schema takes any string); the other basis words are
		// closed Rust enums, which the schema holds to their sets.
		if k := get("policy").Get("kind"); k.Type == gjson.String && !slices.Contains(policyKinds, k.Str) {
			rep.Unknownf("/policy/kind", RuleUnknownValue, "elision policy kind %q is not one basis documents (%s); the policy is kept as written",
				k.Str, strings.Join(policyKinds, ", "))
		}
	case "run_finished":
		c.finished = n
		if get("status").Str == "error" && !get("message").Exists() {
			errf("/status", RuleErrorMessage, "a run_finished with status \"error\" must have a message")
		}
	case "tool_queued":
		if t, ok := c.tools[id]; ok {
			errf("/tool_call_id", RuleToolRequeued, "tool call %q was already queued on line %d", id, t.line)
			return
		}
		if line, ok := c.done.Get(id); ok {
			errf("/tool_call_id", RuleToolRequeued, "tool call %q was already queued on line %d", id, line)
			return
		}
		// Clone: a gjson string shares the whole line's memory.
		c.tools[strings.Clone(id)] = &toolState{line: n, name: strings.Clone(get("tool_name").Str)}
	case "tool_started", "tool_progress", "tool_completed":
		t, ok := c.tools[id]
		if !ok {
			if c.done.Has(id) {
				errf("/tool_call_id", RuleToolClosed, "%s for tool call %q, which already completed", typ, id)
			} else {
				errf("/tool_call_id", RuleToolNotQueued, "%s for tool call %q, which was never queued", typ, id)
			}
			return
		}
		if name := get("tool_name"); name.Exists() && name.Str != t.name && t.name != "" {
			warnf("/tool_name", RuleToolName, "tool_name %q differs from %q given when the call was queued on line %d", name.Str, t.name, t.line)
		}
		switch typ {
		case "tool_started":
			if t.started {
				errf("/tool_call_id", RuleToolRestarted, "tool call %q was already started", id)
			}
			t.started = true
		case "tool_completed":
			delete(c.tools, id)
			c.done.Add(id, uint64(t.line))
		}
	case "permission_requested":
		rid := get("request_id").Str
		if line, ok := c.perms[rid]; ok {
			errf("/request_id", RulePermDuplicate, "permission request %q was already made on line %d", rid, line)
		} else if line, ok := c.resolved.Get(rid); ok {
			errf("/request_id", RulePermDuplicate, "permission request %q was already made on line %d", rid, line)
		} else {
			c.perms[strings.Clone(rid)] = n
		}
		c.permTool(id, typ, errf)
	case "permission_resolved":
		rid := get("request_id").Str
		line, open := c.perms[rid]
		switch {
		case open:
			delete(c.perms, rid)
			c.resolved.Add(rid, uint64(line))
		case c.resolved.Has(rid):
			errf("/request_id", RulePermResolvedTwice, "permission request %q was already resolved", rid)
		default:
			errf("/request_id", RulePermNotRequested, "permission_resolved for request %q, which was never requested", rid)
		}
		c.permTool(id, typ, errf)
	}
}

// permTool checks that a permission event names a call between its queueing
// and its completion.
func (c *checker) permTool(id, typ string, errf func(ptr, rule, format string, args ...any)) {
	if _, open := c.tools[id]; open {
		return
	}
	if c.done.Has(id) {
		errf("/tool_call_id", RuleToolClosed, "%s for tool call %q, which already completed", typ, id)
	} else {
		errf("/tool_call_id", RuleToolNotQueued, "%s for tool call %q, which was never queued", typ, id)
	}
}

func (c *checker) nestedUnknown(get func(string) gjson.Result, typ string, n int, report func(dialect.Finding)) {
	check := func(field string, shape jsonobj.Shape) {
		v := get(field)
		if !v.IsArray() && !v.IsObject() {
			return
		}
		visit := func(ptr string, obj gjson.Result) {
			if !obj.IsObject() {
				return
			}
			jsonobj.ForEach(obj, func(k, _ gjson.Result) bool {
				if !slices.Contains(shape.Known, k.Str) {
					dialect.Reporter{Line: n, Report: report}.Unknownf(ptr+"/"+jsonptr.Escape(k.Str), RuleUnknownField, "unknown field %q in %s", k.Str, field)
				}
				return true
			})
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
	switch typ {
	case "run_started":
		check("context_files", contextFileShape)
		check("mcp_files", contextFileShape)
		check("a2a_files", contextFileShape)
		check("skills", skillShape)
		check("templates", templateShape)
	case "request_tool_results_elided":
		check("results", elidedShape)
	case "run_finished":
		check("usage", runUsageShape)
	}
}

func (c *checker) End(last int, report func(dialect.Finding)) {
	if c.lines == 0 {
		report(dialect.Finding{Line: 0, Severity: dialect.Error, Rule: RuleFirstLine, Message: "the stream is empty: want run_started first"})
		return
	}
	if c.finished == 0 {
		report(dialect.Finding{Line: last, Severity: dialect.Error, Rule: RuleTruncated,
			Message: "the stream ends without run_finished: it is truncated"})
		return
	}
	// Open calls and requests, in the order they were queued or requested:
	// one of each per line, so by line.
	calls := make([]string, 0, len(c.tools))
	for id := range c.tools {
		calls = append(calls, id)
	}
	slices.SortFunc(calls, func(a, b string) int { return cmp.Compare(c.tools[a].line, c.tools[b].line) })
	for _, id := range calls {
		report(dialect.Finding{Line: c.tools[id].line, Pointer: "/tool_call_id", Severity: dialect.Warning, Rule: RuleToolUnfinished,
			Message: fmt.Sprintf("tool call %q never completed", id)})
	}
	reqs := make([]string, 0, len(c.perms))
	for id := range c.perms {
		reqs = append(reqs, id)
	}
	slices.SortFunc(reqs, func(a, b string) int { return cmp.Compare(c.perms[a], c.perms[b]) })
	for _, id := range reqs {
		report(dialect.Finding{Line: c.perms[id], Pointer: "/request_id", Severity: dialect.Warning, Rule: RulePermUnresolved,
			Message: fmt.Sprintf("permission request %q was never resolved", id)})
	}
}

// Rules implements dialect.RuleLister.
func (Dialect) Rules() []dialect.Rule {
	return []dialect.Rule{
		dialect.ErrorRule(RuleFirstLine, "the first line is run_started"),
		dialect.ErrorRule(RuleRunStartedAgain, "run_started appears only as the first line"),
		dialect.ErrorRule(RuleAfterFinish, "nothing follows run_finished"),
		dialect.ErrorRule(RuleTruncated, "the stream ends with run_finished; without it the stream is truncated"),
		dialect.ErrorRule(RuleSeqIncreasing, "seq strictly increases"),
		dialect.WarningRule(RuleSeqGap, "seq increases by 1 (gap-free is not promised upstream)"),
		dialect.WarningRule(RuleSeqStart, "the first line has seq 0"),
		dialect.ErrorRule(RuleSchemaVersion, "run_started.schema is 1 or 2"),
		dialect.ErrorRule(RuleTypeVersion, "every type exists in the stream's schema version (request_tool_results_elided needs 2)"),
		dialect.ErrorRule(RuleErrorMessage, "a run_finished with status error has a message"),
		dialect.ErrorRule(RuleToolNotQueued, "tool and permission events name a tool call queued before"),
		dialect.ErrorRule(RuleToolRequeued, "a tool call is queued once"),
		dialect.ErrorRule(RuleToolRestarted, "a tool call starts at most once"),
		dialect.ErrorRule(RuleToolClosed, "nothing happens to a tool call after its tool_completed"),
		dialect.WarningRule(RuleToolName, "tool_name repeats the name the call was queued with (unless it was queued without one)"),
		dialect.WarningRule(RuleToolUnfinished, "every queued tool call completes before run_finished"),
		dialect.ErrorRule(RulePermNotRequested, "permission_resolved answers a permission_requested"),
		dialect.ErrorRule(RulePermDuplicate, "a request_id is requested once"),
		dialect.ErrorRule(RulePermResolvedTwice, "a permission request is resolved at most once"),
		dialect.WarningRule(RulePermUnresolved, "every permission request is resolved before run_finished"),
		dialect.WarningRule(RuleUnknownType, "the type is one of the 22 known types (error under --strict)"),
		dialect.WarningRule(RuleUnknownField, "every field is known for its type (error under --strict)"),
		dialect.WarningRule(RuleUnknownValue, "the elision policy's kind is keep_recent or byte_budget: the policy is non_exhaustive upstream, so another kind is read, kept as written and reported (error under --strict)"),
	}
}
