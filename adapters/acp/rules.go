package acp

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/evtool/evtool/adapters/internal/check"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/internal/byline"
	"github.com/evtool/evtool/internal/idset"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/evtool/evtool/internal/openset"
	"github.com/tidwall/gjson"
)

// rules is the catalogue of ACP's stream rules, in the order `evtool
// rules` and docs/rules.md list them.
var rules dialect.RuleSet

var (
	ruleJSONRPC        = rules.Error("acp/jsonrpc", `each line is a JSON-RPC 2.0 request, notification or response (jsonrpc "2.0"; a response has result or error)`)
	ruleMethod         = rules.Unknown("acp/method", "the method is one of ACP v1's (custom methods start with _); error under --strict")
	ruleSession        = rules.Warning("acp/session-id", "one session id throughout")
	ruleToolCallFirst  = rules.Error("acp/tool-call-first", "a tool_call comes before any tool_call_update or permission request for its id")
	ruleToolCallTwice  = rules.Error("acp/tool-call-duplicate", "one tool_call per id; later sightings are tool_call_updates")
	ruleToolCallOpen   = rules.Error("acp/tool-call-open", "every tool call is completed or failed by the end of the stream")
	ruleCustomField    = rules.Error("acp/custom-field", "no custom field at the root of an ACP type: extensions go under _meta")
	ruleAbsolutePath   = rules.Error("acp/absolute-path", "paths in locations and diffs are absolute")
	ruleAfterResponse  = rules.Error("acp/update-after-response", "every update of a turn comes before that turn's session/prompt response")
	ruleUnknownID      = rules.Warning("acp/response-unknown-id", "a response answers a request of the stream")
	ruleUnanswered     = rules.Warning("acp/request-unanswered", "every request of a transcript is answered")
	ruleUnstableUpdate = rules.Warning("acp/unstable-variant", "session updates are stable v1 variants (unstable ones are opt-in)")
	ruleTurnClosed     = rules.Error("acp/turn-closed", "a turn is closed in itself: its tool calls completed or failed and its permission requests answered before its session/prompt response")
)

// knownMethods are ACP v1's method names (meta.json and meta.unstable.json).
var knownMethods = []string{
	"initialize", "authenticate", "session/new", "session/load", "session/set_mode", "session/set_config_option",
	"session/prompt", "session/cancel", "session/list", "session/delete", "session/resume", "session/close", "logout",
	"session/update", "session/request_permission", "fs/read_text_file", "fs/write_text_file",
	"terminal/create", "terminal/output", "terminal/release", "terminal/wait_for_exit", "terminal/kill",
	"elicitation/create", "elicitation/complete", "$/cancel_request",
	"session/fork", "session/set_model",
}

var stableUpdates = []string{"user_message_chunk", "agent_message_chunk", "agent_thought_chunk", "tool_call", "tool_call_update",
	"plan", "available_commands_update", "current_mode_update", "config_option_update", "session_info_update", "usage_update"}

// fieldsOf lists the keys each update variant may have at its root.
var fieldsOf = map[string][]string{
	"user_message_chunk":        {"content", "messageId"},
	"agent_message_chunk":       {"content", "messageId"},
	"agent_thought_chunk":       {"content", "messageId"},
	"tool_call":                 {"toolCallId", "title", "kind", "status", "content", "locations", "rawInput", "rawOutput", "name"},
	"tool_call_update":          {"toolCallId", "title", "kind", "status", "content", "locations", "rawInput", "rawOutput", "name"},
	"plan":                      {"entries"},
	"available_commands_update": {"availableCommands"},
	"current_mode_update":       {"currentModeId"},
	"config_option_update":      {"configOptions"},
	"session_info_update":       {"title", "updatedAt"},
	"usage_update":              {"used", "size", "cost"},
	"notice":                    {"severity", "title", "description"},
}

// checker keeps state for open tool calls and unanswered requests only. A
// call whose last status is completed or failed leaves its id in done, with
// its rank (which orders the end-of-stream report should it open again).
type checker struct {
	check.Frame
	session  string
	tools    openTools          // open calls
	done     idset.Set          // closed calls → rank
	ranked   uint64             // calls seen so far
	requests map[string]request // JSON-RPC id → request not yet answered
	prompts  int                // prompts sent
	answered int                // prompts answered
	turn     bool               // a prompt is open
}

// openTool is a call not (or no longer) completed or failed.
type openTool struct {
	rank   uint64 // by its first sighting
	status string // its last status
}

// openTools are the open calls. Most are kept compactly, in the order of
// their rank (an openset: a stream can leave millions open, and a Go map
// of them took 79 MiB for 120,000); a call opened again after it closed,
// whose rank is below the last one kept so, and a call whose status is no
// word ACP knows, are kept in a map beside.
type openTools struct {
	set  openset.Set // Line: rank; Flags: 1 + the status's index in toolStatuses
	last uint64      // the rank last added to set
	odd  map[string]openTool
}

func (o *openTools) get(id string) (openTool, bool) {
	if t, ok := o.odd[id]; ok {
		return t, true
	}
	e, ok := o.set.Get(id)
	if !ok {
		return openTool{}, false
	}
	return openTool{rank: uint64(e.Line), status: toolStatuses[e.Flags-1]}, true
}

func (o *openTools) put(id string, t openTool) {
	k := slices.Index(toolStatuses, t.status)
	if o.set.Has(id) {
		if k >= 0 {
			o.set.SetFlags(id, uint8(k+1))
			return
		}
		o.set.Delete(id)
	} else if _, ok := o.odd[id]; !ok && k >= 0 && t.rank >= o.last && t.rank <= math.MaxInt32 {
		o.set.Add(id, int(t.rank), "")
		o.set.SetFlags(id, uint8(k+1))
		o.last = t.rank
		return
	}
	if o.odd == nil {
		o.odd = map[string]openTool{}
	}
	o.odd[strings.Clone(id)] = t
}

func (o *openTools) del(id string) {
	delete(o.odd, id)
	o.set.Delete(id)
}

// each calls f with every open call, first seen first; the calls must not
// change meanwhile.
func (o *openTools) each(f func(id string, t openTool)) {
	odd := byline.Keys(o.odd, func(t openTool) uint64 { return t.rank })
	for id, e := range o.set.All {
		for len(odd) > 0 && o.odd[odd[0]].rank < uint64(e.Line) {
			f(odd[0], o.odd[odd[0]])
			odd = odd[1:]
		}
		f(id, openTool{rank: uint64(e.Line), status: toolStatuses[e.Flags-1]})
	}
	for _, id := range odd {
		f(id, o.odd[id])
	}
}

type request struct {
	method string
	line   int
}

func newChecker() *checker {
	return &checker{requests: map[string]request{}}
}

// intern returns s itself when it is one of known, so that keeping it does
// not keep the line it was read from (a gjson string shares the line's
// memory), and a copy otherwise.
func intern(s string, known []string) string {
	if i := slices.Index(known, s); i >= 0 {
		return known[i]
	}
	return strings.Clone(s)
}

var toolStatuses = []string{"pending", "in_progress", "completed", "failed"}

// tool returns the call id's rank and last status, and whether it is known.
func (c *checker) tool(id string) (rank uint64, status string, known bool) {
	if t, ok := c.tools.get(id); ok {
		return t.rank, t.status, true
	}
	if rank, ok := c.done.Get(id); ok {
		return rank, "completed", true // or failed: closed either way
	}
	return 0, "", false
}

// setTool records the call's status: a completed or failed call closes.
func (c *checker) setTool(id string, rank uint64, status string) {
	if status == "completed" || status == "failed" {
		c.tools.del(id)
		c.done.Add(id, rank)
		return
	}
	if t, ok := c.tools.get(id); ok {
		rank = t.rank
	}
	c.tools.put(id, openTool{rank: rank, status: intern(status, toolStatuses)})
}

func (c *checker) Line(line []byte, n int, report func(dialect.Finding)) {
	r, rep, ok := c.Read(line, n, report)
	if !ok {
		return
	}
	if r.Get("jsonrpc").Str != "2.0" {
		rep.Reportf(ruleJSONRPC, "/jsonrpc", `jsonrpc must be "2.0"`)
	}
	method, id := r.Get("method"), r.Get("id")
	switch {
	case method.Exists():
		if method.Type != gjson.String {
			rep.Reportf(ruleJSONRPC, "/method", "method must be a string")
			return
		}
		if !slices.Contains(knownMethods, method.Str) && !strings.HasPrefix(method.Str, "_") {
			rep.Reportf(ruleMethod, "/method", "unknown method %q", method.Str)
		}
		if id.Exists() {
			c.requests[strings.Clone(id.Raw)] = request{intern(method.Str, knownMethods), n}
		}
	case id.Exists():
		res, rerr := r.Get("result").Exists(), r.Get("error").Exists()
		if res == rerr {
			rep.Reportf(ruleJSONRPC, "", "a response has exactly one of result and error")
		}
		q, ok := c.requests[id.Raw]
		if !ok {
			rep.Reportf(ruleUnknownID, "/id", "response %s answers no request of this stream", id.Raw)
			return
		}
		delete(c.requests, id.Raw)
		if q.method == "session/prompt" {
			c.answered++
			c.turn = false
			c.turnClosed(n, report)
		}
		return
	default:
		rep.Reportf(ruleJSONRPC, "", "a message has a method or an id")
		return
	}
	p := r.Get("params")
	if sid := p.Get("sessionId"); sid.Type == gjson.String {
		if c.session == "" {
			c.session = sid.Str
		} else if sid.Str != c.session {
			rep.Reportf(ruleSession, "/params/sessionId", "session %q, earlier lines name %q", sid.Str, c.session)
		}
	}
	switch method.Str {
	case "session/prompt":
		c.prompts++
		c.turn = true
	case "session/update":
		if c.prompts > 0 && !c.turn {
			rep.Reportf(ruleAfterResponse, "/params/update", "a session/update outside a turn: after the last session/prompt response")
		}
		c.update(p.Get("update"), rep)
	case "session/request_permission":
		call := p.Get("toolCall.toolCallId").Str
		if _, _, ok := c.tool(call); !ok {
			rep.Reportf(ruleToolCallFirst, "/params/toolCall/toolCallId", "permission requested for tool call %q before its tool_call", call)
		}
		c.custom(p.Get("toolCall"), "/params/toolCall", fieldsOf["tool_call_update"], rep)
	}
}

func (c *checker) update(u gjson.Result, rep dialect.Reporter) {
	kind := u.Get("sessionUpdate").Str
	if !slices.Contains(stableUpdates, kind) {
		rep.Reportf(ruleUnstableUpdate, "/params/update/sessionUpdate", "%q is not a stable ACP v1 session update", kind)
	}
	if f, ok := fieldsOf[kind]; ok {
		c.custom(u, "/params/update", append([]string{"sessionUpdate"}, f...), rep)
	}
	id := u.Get("toolCallId").Str
	switch kind {
	case "tool_call":
		rank, _, dup := c.tool(id)
		if dup {
			rep.Reportf(ruleToolCallTwice, "/params/update/toolCallId", "a second tool_call for %q", id)
		} else {
			c.ranked++
			rank = c.ranked
		}
		c.setTool(id, rank, statusOr(u, "pending"))
	case "tool_call_update":
		rank, status, ok := c.tool(id)
		if !ok {
			rep.Reportf(ruleToolCallFirst, "/params/update/toolCallId", "tool_call_update for %q before its tool_call", id)
			c.ranked++
			rank = c.ranked
		}
		c.setTool(id, rank, statusOr(u, status))
	}
	jsonobj.ForEach(u.Get("locations"), func(k, l gjson.Result) bool {
		if p := l.Get("path").Str; !strings.HasPrefix(p, "/") {
			rep.Reportf(ruleAbsolutePath, fmt.Sprintf("/params/update/locations/%d/path", k.Int()), "location path %q is not absolute", p)
		}
		return true
	})
	i := 0
	jsonobj.ForEach(u.Get("content"), func(_, ct gjson.Result) bool {
		if ct.Get("type").Str == "diff" && !strings.HasPrefix(ct.Get("path").Str, "/") {
			rep.Reportf(ruleAbsolutePath, fmt.Sprintf("/params/update/content/%d/path", i), "diff path %q is not absolute", ct.Get("path").Str)
		}
		i++
		return true
	})
}

func statusOr(u gjson.Result, def string) string {
	if s := u.Get("status"); s.Type == gjson.String {
		return s.Str
	}
	return def
}

// custom reports keys at the root of an ACP type that the type lacks.
func (c *checker) custom(o gjson.Result, ptr string, allowed []string, rep dialect.Reporter) {
	check.Keys(rep, ruleCustomField, o, ptr, func(k string) bool { return k == "_meta" || slices.Contains(allowed, k) },
		"custom field %q at the root of an ACP type: extensions belong under _meta")
}

// turnClosed reports, at a prompt's response, the calls still open and the
// permission requests still unanswered: the turn left them for the next.
func (c *checker) turnClosed(n int, report func(dialect.Finding)) {
	c.tools.each(func(id string, t openTool) {
		report(ruleTurnClosed.Finding(n, "", fmt.Sprintf("the turn ends with tool call %q still %s", id, t.status)))
	})
	for _, id := range c.pending("session/request_permission") {
		report(ruleTurnClosed.Finding(n, "", fmt.Sprintf("the turn ends with permission request %s (line %d) unanswered", id, c.requests[id].line)))
	}
}

func (c *checker) End(last int, report func(dialect.Finding)) {
	if c.Lines == 0 {
		// The one acp/jsonrpc finding that is a warning, not an error: an
		// empty stream breaks no message's framing, it only has none.
		f := ruleJSONRPC.Finding(0, "", "the stream has no JSON line")
		f.Severity = dialect.Warning
		report(f)
		return
	}
	c.tools.each(func(id string, t openTool) {
		report(ruleToolCallOpen.Finding(last, "", fmt.Sprintf("tool call %q is still %s at the end of the stream", id, t.status)))
	})
	if c.prompts > 0 {
		for _, id := range c.pending("") {
			q := c.requests[id]
			report(ruleUnanswered.Finding(q.line, "/id", fmt.Sprintf("%s request %s is never answered", q.method, id)))
		}
	}
}

// pending returns the ids of the requests not yet answered (of one method,
// or of any when method is ""), oldest first: each is on a line of its own,
// so the order is the same every run.
func (c *checker) pending(method string) []string {
	ids := byline.Keys(c.requests, func(q request) int { return q.line })
	if method != "" {
		ids = slices.DeleteFunc(ids, func(id string) bool { return c.requests[id].method != method })
	}
	return ids
}
