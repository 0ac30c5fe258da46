package claude

import (
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/evtool/evtool/adapters/internal/check"
	"github.com/evtool/evtool/adapters/internal/claudecode"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/internal/idset"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/evtool/evtool/internal/usagesum"
	"github.com/tidwall/gjson"
)

// rules is the catalogue of Claude Code's stream rules, in the order
// `evtool rules` and docs/rules.md list them; docs/dialects/claude.md
// describes each.
var rules dialect.RuleSet

var (
	ruleInitFirst        = rules.Error("claude/init-first", "system/init comes before the first line of a turn (hook, protocol and other system lines may precede it)")
	ruleTruncated        = rules.Error("claude/truncated", "every turn ends with a result: a stream without one after its last turn line was killed (incomplete)")
	ruleToolUseRepeated  = rules.Error("claude/tool-use-repeated", "a tool_use id is used by one tool_use block")
	ruleResultUnknown    = rules.Error("claude/tool-result-unknown", "a tool_result answers a tool_use that came before it")
	ruleResultRepeated   = rules.Error("claude/tool-result-repeated", "a tool_use is answered by one tool_result")
	ruleToolUnanswered   = rules.Warning("claude/tool-unanswered", "every tool_use has its tool_result by the end of a complete stream (result.deferred_tool_use excepted)")
	ruleSubagentUnknown  = rules.Warning("claude/subagent-unknown", "parent_tool_use_id names a tool_use that came before the line")
	ruleSessionID        = rules.Warning("claude/session-id", "every line's session_id is system/init's (until a conversation_reset)")
	ruleUsageTotal       = rules.Warning("claude/usage-total", "a success result's usage is at least the sum of its turn's main-thread API messages, each counted once however many block lines repeat its usage")
	ruleCostTotal        = rules.Warning("claude/cost-total", "result.total_cost_usd is the sum of modelUsage[*].costUSD")
	ruleUnknownType      = rules.Unknown("claude/unknown-type", "the type (and a system line's subtype) is one Claude Code 2.1.333 writes (error under --strict)")
	ruleUnknownField     = rules.Unknown("claude/unknown-field", "every top-level field is known for its type (error under --strict)")
	ruleUnknownValue     = rules.Unknown("claude/unknown-value", "a word in an open string field with a documented set (result subtype, result stop_reason) is one of that set (error under --strict)")
	rulePermissionAnswer = rules.Error("claude/permission-answered-twice", "a can_use_tool control_request is answered by one control_response")
)

// resultSubtypes are the result subtypes of SDK 0.3.333.
var resultSubtypes = []string{"success", "error_during_execution", "error_max_turns", "error_max_budget_usd", "error_max_structured_output_retries"}

// checker keeps the tool calls (see check.Calls), the main-thread usage
// of the open turn by message id, and the open permission requests.
type checker struct {
	check.Frame
	init     int // line of the first system/init
	session  string
	results  int // line of the last result
	activity int // line of the last turn line after it, 0 if none
	calls    check.Calls
	turnMsgs map[string]counts
	requests map[string]int // open can_use_tool requests → line
	replied  idset.Set
}

// counts are the usage of one API message, as its last line stated it.
type counts struct{ input, output, cacheRead, cacheWrite uint64 }

func newChecker() *checker {
	return &checker{
		Frame: check.Frame{EmptyRule: ruleTruncated, EmptyMsg: "the stream has no JSON line: it has no result"},
		calls: check.Calls{
			Reused: ruleToolUseRepeated, ReusedOpen: "tool_use %[1]q was used on line %[2]d", ReusedAnswered: "tool_use %[1]q was used and answered before",
			Unknown: ruleResultUnknown, UnknownMsg: "tool_result for %[1]q, which no tool_use before it names",
			Twice: ruleResultRepeated, TwiceMsg: "tool_use %[1]q was answered already",
			Unfinished: ruleToolUnanswered, UnfinishedMsg: "tool_use %q has no tool_result",
		},
		turnMsgs: map[string]counts{}, requests: map[string]int{},
	}
}

// Line checks one line: its type and fields, its place in the run (after
// init, in its session, under a known parent), then what its kind says.
func (c *checker) Line(line []byte, n int, report func(dialect.Finding)) {
	r, rep, ok := c.View(line, n, report) // what is kept is cloned
	if !ok || r.Get("type").Type != gjson.String {
		return
	}
	kind, known := kindOf(r)
	if !known {
		ptr := "/type"
		if r.Get("type").Str == "system" {
			ptr = "/subtype"
		}
		rep.Reportf(ruleUnknownType, ptr, "unknown message type %q (kept whole)", kind)
		return
	}
	check.Keys(rep, ruleUnknownField, r, "", func(k string) bool { return knownField(kind, k) }, "unknown field %q on %s", kind)
	c.place(kind, r, n, rep)
	switch kind {
	case "assistant":
		c.assistant(r, rep)
	case "user":
		c.user(r, rep)
	case "result":
		c.resultWords(r, rep)
		c.result(r, n, rep)
	case "control_request":
		if r.Get("request.subtype").Str == "can_use_tool" {
			c.requests[strings.Clone(r.Get("request_id").Str)] = n
		}
	case "control_response":
		c.controlResponse(r, rep)
	}
}

// place checks a line's place in the run: a turn's line after system/init,
// the session's id, and a parent_tool_use_id that names a tool_use.
func (c *checker) place(kind string, r gjson.Result, n int, rep dialect.Reporter) {
	if kind == "system/init" && c.init == 0 {
		c.init = n
		c.session = strings.Clone(r.Get("session_id").Str)
	}
	if opensTurn(kind) && c.init == 0 {
		rep.Reportf(ruleInitFirst, "/type", "%s before system/init: the stream does not start with its run's init", kind)
		c.init = -1 // once
	}
	// Both keys end the line, after its message: found in one walk.
	var sid, p gjson.Result
	jsonobj.ForEachRaw(r, func(k, v gjson.Result) bool {
		switch jsonobj.Text(k) {
		case "session_id":
			if !sid.Exists() { // the first, as Get finds it
				sid = jsonobj.Full(v)
			}
		case "parent_tool_use_id":
			if !p.Exists() {
				p = jsonobj.Full(v)
			}
		}
		return !sid.Exists() || !p.Exists()
	})
	if sid.Type == gjson.String && c.session != "" && sid.Str != c.session && kind != "system/init" {
		rep.Reportf(ruleSessionID, "/session_id", "session_id %q is not the session's %q", sid.Str, c.session)
	}
	if kind == "conversation_reset" {
		c.session = ""
	} else if kind == "system/init" {
		c.session = strings.Clone(sid.Str)
	}
	if opensTurn(kind) && kind != "result" {
		c.activity = n
	}
	if p.Type == gjson.String {
		if !c.calls.Known(p.Str) {
			rep.Reportf(ruleSubagentUnknown, "/parent_tool_use_id", "parent_tool_use_id %q names no tool_use seen before", p.Str)
		}
	}
}

// resultWords reports a result's words Claude Code's SDK does not list.
func (c *checker) resultWords(r gjson.Result, rep dialect.Reporter) {
	if sub := r.Get("subtype").Str; !slices.Contains(resultSubtypes, sub) {
		rep.Reportf(ruleUnknownValue, "/subtype", "unknown result subtype %q (read as an error, kept as written)", sub)
	}
	// result.stop_reason is string|null in the SDK: an API stop reason
	// of a newer model API is kept, and read as "other".
	if s := r.Get("stop_reason"); s.Type == gjson.String {
		if _, ok := claudecode.StopReasons[s.Str]; !ok {
			rep.Reportf(ruleUnknownValue, "/stop_reason", "unknown stop_reason %q (read as other, kept as written)", s.Str)
		}
	}
}

// controlResponse checks that a permission request is answered once.
func (c *checker) controlResponse(r gjson.Result, rep dialect.Reporter) {
	id := r.Get("response.request_id").Str
	if _, ok := c.requests[id]; ok {
		delete(c.requests, id)
		c.replied.Add(id, 0)
	} else if c.replied.Has(id) {
		rep.Reportf(rulePermissionAnswer, "/response/request_id", "control_request %q was answered already", id)
	}
}

// blocksOf calls f with each block of a message's content whose type is
// typ, and its index in the content (for a finding's pointer).
func blocksOf(content gjson.Result, typ string, f func(i int, b gjson.Result)) {
	i := 0
	jsonobj.ForEach(content, func(_, b gjson.Result) bool {
		if b.Get("type").Str == typ {
			f(i, b)
		}
		i++
		return true
	})
}

func (c *checker) assistant(r gjson.Result, rep dialect.Reporter) {
	m := r.Get("message")
	blocksOf(m.Get("content"), "tool_use", func(i int, b gjson.Result) {
		c.calls.Announce(rep, fmt.Sprintf("/message/content/%d/id", i), b.Get("id").Str, "")
	})
	if r.Get("parent_tool_use_id").Type == gjson.String {
		return // subagent usage is in modelUsage only
	}
	u := m.Get("usage")
	num := func(k string) uint64 {
		n, _ := jsonobj.ParseUint(u.Get(k), jsonobj.U64)
		return n
	}
	id := m.Get("id").Str
	c.turnMsgs[strings.Clone(id)] = counts{num("input_tokens"), num("output_tokens"), num("cache_read_input_tokens"), num("cache_creation_input_tokens")}
}

func (c *checker) user(r gjson.Result, rep dialect.Reporter) {
	blocksOf(r.Get("message.content"), "tool_result", func(i int, b gjson.Result) {
		c.calls.Answer(rep, fmt.Sprintf("/message/content/%d/tool_use_id", i), b.Get("tool_use_id").Str, "")
	})
}

func (c *checker) result(r gjson.Result, n int, rep dialect.Reporter) {
	c.results, c.activity = n, 0
	if d := r.Get("deferred_tool_use.id"); d.Type == gjson.String {
		c.calls.Close(d.Str, n)
	}
	msgs := c.turnMsgs
	c.turnMsgs = map[string]counts{}
	if r.Get("subtype").Str == "success" && len(msgs) > 0 {
		var sum counts
		for _, m := range msgs {
			sum.input = usagesum.Sat(sum.input, m.input)
			sum.output = usagesum.Sat(sum.output, m.output)
			sum.cacheRead = usagesum.Sat(sum.cacheRead, m.cacheRead)
			sum.cacheWrite = usagesum.Sat(sum.cacheWrite, m.cacheWrite)
		}
		u := r.Get("usage")
		for _, f := range []struct {
			k   string
			sum uint64
		}{{"input_tokens", sum.input}, {"output_tokens", sum.output}, {"cache_read_input_tokens", sum.cacheRead}, {"cache_creation_input_tokens", sum.cacheWrite}} {
			v := u.Get(f.k)
			total, msg := jsonobj.ParseUint(v, jsonobj.U64)
			if !v.Exists() || msg != "" {
				continue
			}
			if total < f.sum {
				rep.Reportf(ruleUsageTotal, "/usage/"+f.k, "usage.%s is %d, less than the %d the turn's %d API messages state (each counted once)", f.k, total, f.sum, len(msgs))
			}
		}
	}
	c.checkCost(r, rep)
}

// checkCost compares total_cost_usd with the sum of the per-model costs,
// in exact decimal arithmetic, allowing for the rounding of a double.
func (c *checker) checkCost(r gjson.Result, rep dialect.Reporter) {
	total := r.Get("total_cost_usd")
	models := r.Get("modelUsage")
	if total.Type != gjson.Number || !models.IsObject() {
		return
	}
	want, ok := new(big.Float).SetPrec(200).SetString(total.Raw)
	if !ok {
		return
	}
	sum := new(big.Float).SetPrec(200)
	found := false
	jsonobj.ForEach(models, func(_, m gjson.Result) bool {
		if v := m.Get("costUSD"); v.Type == gjson.Number {
			if f, ok := new(big.Float).SetPrec(200).SetString(v.Raw); ok {
				sum.Add(sum, f)
				found = true
			}
		}
		return true
	})
	if !found {
		return
	}
	diff := new(big.Float).Sub(want, sum)
	d, _ := diff.Float64()
	w, _ := want.Float64()
	if math.Abs(d) > 1e-9+1e-9*math.Abs(w) {
		s, _ := sum.Float64()
		rep.Reportf(ruleCostTotal, "/total_cost_usd", "total_cost_usd is %s, but modelUsage's costs add up to %s", total.Raw, strconv.FormatFloat(s, 'g', -1, 64))
	}
}

func (c *checker) End(last int, report func(dialect.Finding)) {
	if c.Empty(report) {
		return
	}
	switch {
	case c.results == 0:
		report(ruleTruncated.Finding(last, "", "the stream ends without a result: the run was killed or is incomplete"))
		return
	case c.activity > 0:
		report(ruleTruncated.Finding(c.activity, "",
			fmt.Sprintf("the turn that begins after the result on line %d has no result: the run was killed or is incomplete", c.results)))
		return
	}
	c.calls.End(report)
}
