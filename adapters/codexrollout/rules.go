package codexrollout

import (
	"fmt"
	"strings"
	"time"

	"github.com/evtool/evtool/adapters/internal/check"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/tidwall/gjson"
)

// rules is the catalogue of codex-rollout's stream rules: each is declared
// once below, with its id, severity and purpose, and the checker reports
// through the value. docs/dialects/codex-rollout.md describes each.
var rules dialect.RuleSet

// The rules, in the order `evtool rules` lists them.
var (
	ruleFirstLine = rules.Error("codex-rollout/first-line",
		"the first line is the session's header: session_meta, or the bare header of the mid-2025 format")
	ruleSessionMeta = rules.Warning("codex-rollout/session-meta",
		"a later session header is a fork's copy of its parent's, before the stream's own first turn")
	ruleFormat = rules.Warning("codex-rollout/format-mixed",
		"a stream keeps one format: rollout lines ({timestamp, type, payload}) or the mid-2025 bare lines")
	ruleTimestamp = rules.Warning("codex-rollout/timestamp",
		"a rollout line's timestamp is an RFC 3339 time")
	ruleTimeOrder = rules.Warning("codex-rollout/timestamp-order",
		"timestamps do not go back from one line to the next (a fork's copy of its parent's history aside)")
	ruleOrdinal = rules.Warning("codex-rollout/ordinal",
		"where lines carry an ordinal, it goes up by one from line to line")
	ruleUsageNested = rules.Warning("codex-rollout/usage-nested",
		"token counts are not negative, cached and cache-write input lie within input, and reasoning within output")
	ruleUsageFalls = rules.Warning("codex-rollout/usage-decreasing",
		"the thread's running total (total_token_usage, thread_token_usage) never falls, but to the zeros Codex writes when the context window overflows")
	ruleCallUnknown = rules.Error("codex-rollout/call-unknown",
		"an output item answers a call an earlier line of the stream announced")
	ruleCallRepeated = rules.Warning("codex-rollout/call-repeated",
		"a call id is announced once")
	ruleOutputRepeated = rules.Warning("codex-rollout/output-repeated",
		"a call's output item comes once")
	ruleArguments = rules.Warning("codex-rollout/arguments",
		"a function call's arguments are a JSON text")
	ruleTurnOpen = rules.Warning("codex-rollout/turn-open",
		"task_started comes when no turn task_started opened is open (its task_complete or turn_aborted came)")
	ruleTurnNotStarted = rules.Warning("codex-rollout/turn-not-started",
		"task_complete and turn_aborted end a turn that is open")
	ruleTruncated = rules.Warning("codex-rollout/truncated",
		"the stream does not end inside a turn task_started opened (a session still running, or a process that died)")
	ruleReplayUnended = rules.Warning("codex-rollout/replay-unended",
		"a fork's copy of its parent's history ends at a line that tells the fork's own lines from it")
	ruleUnknownType = rules.Unknown("codex-rollout/unknown-type",
		"the line type, event type and item type are ones Codex is known to write (error under --strict)")
	ruleUnknownField = rules.Unknown("codex-rollout/unknown-field",
		"the keys of a rollout line and of a token usage are ones Codex is known to write (error under --strict)")
)

// checker keeps state for what is open only: the turn, calls whose
// output has not come; finished calls leave their id in a bounded set
// (see check.Calls).
type checker struct {
	check.Frame
	rp      replay
	legacy  bool // the first line's format
	mixed   bool // format-mixed was reported
	ownTime time.Time
	hasTime bool
	timeAt  int // line of ownTime
	ord     uint64
	hasOrd  bool
	base    counts
	hasBase bool

	turnLine int // line of the open turn's task_started, 0 for none
	// A user_message began a turn no task_started opened: builds that
	// persist no task events (their turns begin with the user's message,
	// as the decoder reads them) still persist turn_aborted.
	implicit bool
	calls    check.Calls
}

func newChecker() *checker {
	return &checker{
		Frame: check.Frame{Start: "session_meta", FirstLine: ruleFirstLine},
		calls: check.Calls{
			Reused: ruleCallRepeated, ReusedOpen: "call %[1]q was announced on line %[2]d already",
			ReusedAnswered: "call %[1]q was announced on line %[2]d already", ReusedAnsweredCall: true,
			Unknown: ruleCallUnknown, UnknownMsg: "%[3]s for call %[1]q, which no earlier line announced",
			Twice: ruleOutputRepeated, TwiceMsg: "%[3]s for call %[1]q, whose output came on line %[2]d",
		},
	}
}

// Line implements dialect.Checker.
func (c *checker) Line(line []byte, n int, report func(dialect.Finding)) {
	root, rep, ok := c.View(line, n, report)
	if !ok {
		return
	}
	v := read(root)
	copied, began := c.rp.step(&v)
	if c.rp.endedMidTurn() {
		rep.Reportf(ruleReplayUnended, "", "the copy of thread %s's history that begins on line %d ends here, after a pause, inside a turn: the fork's own turn began within the copy, and its first lines are kept as the copy, uncounted", c.rp.from, c.rp.fromLine)
	}
	if c.Lines == 1 {
		c.legacy = v.legacy()
		if !v.isSessionMeta() {
			rep.Reportf(ruleFirstLine, "/type", "the first line is %s, want session_meta (or the mid-2025 bare header)", describe(&v))
		}
	} else if v.form != formOther && v.legacy() != c.legacy && !c.mixed {
		c.mixed = true
		rep.Reportf(ruleFormat, "", "a %s line in a stream of %s lines", family(v.legacy()), family(c.legacy))
	}
	c.envelope(rep, &v)
	c.ordinal(rep, &v)
	c.usage(rep, &v, copied)
	if copied {
		if began {
			c.timeAt = n // the copy's times are the parent's; the fork's own resume after it
		}
		return
	}
	c.timestamp(rep, &v)
	if c.Lines > 1 && v.isSessionMeta() {
		rep.Reportf(ruleSessionMeta, "", "a session header after line 1 that is no fork's copy of its parent's header (its id is the stream's own, or the stream's own turns began)")
	}
	switch {
	case v.form == formEnvelope && v.typ == "event_msg":
		c.event(rep, &v)
	case v.form == formEnvelope && v.typ == "response_item", v.form == formBare:
		c.item(rep, &v)
	}
}

func family(legacy bool) string {
	if legacy {
		return "mid-2025 bare"
	}
	return "rollout ({timestamp, type, payload})"
}

// describe names a line's type in messages.
func describe(v *view) string {
	if t := v.sourceType(); t != "" {
		return fmt.Sprintf("%q", t)
	}
	return "a line of no rollout shape"
}

// envelope checks a rollout line's type and keys.
func (c *checker) envelope(rep dialect.Reporter, v *view) {
	if v.form != formEnvelope {
		return
	}
	check.Keys(rep, ruleUnknownField, v.root, "", func(k string) bool { return envelopeFields[k] }, "unknown field %q of a rollout line")
	if v.typ != "" && !envelopeTypes[v.typ] {
		rep.Reportf(ruleUnknownType, "/type", "unknown rollout line type %q (kept as an unknown event)", v.typ)
	}
}

// ordinal checks that ordinals go up by one.
func (c *checker) ordinal(rep dialect.Reporter, v *view) {
	o, msg := jsonobj.ParseUint(v.ordinal, jsonobj.U64)
	if msg != "" {
		return
	}
	if c.hasOrd && o != c.ord+1 {
		rep.Reportf(ruleOrdinal, "/ordinal", "ordinal %d after %d: each line's ordinal is the one before's plus one", o, c.ord)
	}
	c.ord, c.hasOrd = o, true
}

// timestamp checks a line of the stream's own: an RFC 3339 time, not
// before the last own line's.
func (c *checker) timestamp(rep dialect.Reporter, v *view) {
	if !v.ts.Exists() {
		return
	}
	t, ok := timeOf(v.ts)
	if !ok {
		rep.Reportf(ruleTimestamp, "/timestamp", "timestamp %s is not an RFC 3339 time", v.ts.Raw)
		return
	}
	if c.hasTime && t.Before(c.ownTime) {
		rep.Reportf(ruleTimeOrder, "/timestamp", "timestamp %s is before line %d's %s", v.ts.Str, c.timeAt, c.ownTime.UTC().Format(time.RFC3339Nano))
	}
	c.ownTime, c.hasTime, c.timeAt = t, true, rep.Line
}

// usage checks a running total and the usage beside it: nested, and for
// the stream's own lines not below the total before (a copied total is
// the base the fork's own count from).
func (c *checker) usage(rep dialect.Reporter, v *view, copied bool) {
	var objs [][2]string // pointer, key path
	switch {
	case v.form == formEnvelope && v.typ == "token_usage_record":
		objs = [][2]string{{"/payload/thread_token_usage", "thread_token_usage"}, {"/payload/usage", "usage"}, {"/payload/turn_token_usage", "turn_token_usage"}}
	case v.form == formEnvelope && v.ptype == "token_count":
		info := jsonobj.Lookup(v.payload, "info")
		if !info.IsObject() {
			return
		}
		objs = [][2]string{{"/payload/info/total_token_usage", "info.total_token_usage"}, {"/payload/info/last_token_usage", "info.last_token_usage"}}
	default:
		return
	}
	for i, o := range objs {
		u := v.payload.Get(o[1])
		if !u.IsObject() {
			continue
		}
		check.Keys(rep, ruleUnknownField, u, o[0], check.In(usageFields), "unknown field %q of a token usage")
		t, err := readCounts(u, o[0])
		if err != nil {
			continue
		}
		if msg := nested(t); msg != "" {
			rep.Reportf(ruleUsageNested, o[0], "%s: Codex's counts are nested (cached and cache-write within input, reasoning within output)", msg)
		}
		if i != 0 || t.negative() {
			continue
		}
		if !copied && c.hasBase && falls(c.base, t) && !t.refill() {
			rep.Reportf(ruleUsageFalls, o[0], "the running total falls (%s): the thread's usage never goes down, and evtool counts on from the new total", fallText(c.base, t))
		}
		c.base, c.hasBase = t, true
	}
}

// fallText says which counts fell.
func fallText(base, t counts) string {
	var out []string
	for i := range fTotal {
		if base.has[i] && t.has[i] && t.n[i] < base.n[i] {
			out = append(out, fmt.Sprintf("%s %d to %d", usageFields[i], base.n[i], t.n[i]))
		}
	}
	return strings.Join(out, ", ")
}

// event checks an event_msg.
func (c *checker) event(rep dialect.Reporter, v *view) {
	switch {
	case v.ptype == "":
	case !eventTypes[v.ptype]:
		rep.Reportf(ruleUnknownType, "/payload/type", "unknown event type %q (kept as an unknown event)", v.ptype)
	case isTurnStart(v.ptype):
		if c.turnLine > 0 {
			rep.Reportf(ruleTurnOpen, "/payload/type", "%s while the turn begun on line %d is open: that turn has no task_complete or turn_aborted", v.ptype, c.turnLine)
		}
		c.turnLine, c.implicit = rep.Line, false
	case isTurnEnd(v.ptype):
		// A turn_aborted ends the turn a user_message began; no build
		// persists task_complete without task_started.
		if c.turnLine == 0 && !(c.implicit && v.ptype == "turn_aborted") {
			rep.Reportf(ruleTurnNotStarted, "/payload/type", "%s without an open turn", v.ptype)
		}
		c.turnLine, c.implicit = 0, false
	case v.ptype == "user_message":
		c.implicit = c.implicit || c.turnLine == 0
	case v.ptype == "dynamic_tool_call_request":
		c.call(rep, v, "call_id")
	}
}

// item checks a history item.
func (c *checker) item(rep dialect.Reporter, v *view) {
	ptr := "/type"
	if v.form == formEnvelope {
		ptr = "/payload/type"
	}
	switch v.ptype {
	case "":
	case "function_call":
		if a := jsonobj.Lookup(v.payload, "arguments"); a.Type == gjson.String && !gjson.Valid(a.Str) {
			rep.Reportf(ruleArguments, strings.TrimSuffix(ptr, "type")+"arguments", "the arguments are no JSON text: the model wrote them wrong, and Codex answered with an error")
		}
		c.call(rep, v, "call_id")
	case "custom_tool_call":
		c.call(rep, v, "call_id")
	case "local_shell_call", "tool_search_call":
		c.call(rep, v, "call_id")
	case "function_call_output", "custom_tool_call_output", "tool_search_output":
		c.output(rep, v, ptr)
	default:
		if !responseTypes[v.ptype] {
			rep.Reportf(ruleUnknownType, ptr, "unknown item type %q (kept as an unknown event)", v.ptype)
		}
	}
}

// call notes an announced call.
func (c *checker) call(rep dialect.Reporter, v *view, key string) {
	if id := jsonobj.Lookup(v.payload, key); id.Type == gjson.String && id.Str != "" {
		c.calls.Announce(rep, "", id.Str, "")
	}
}

// output checks an output item against the calls announced.
func (c *checker) output(rep dialect.Reporter, v *view, typePtr string) {
	if id := jsonobj.Lookup(v.payload, "call_id"); id.Type == gjson.String {
		c.calls.Answer(rep, strings.TrimSuffix(typePtr, "type")+"call_id", id.Str, v.ptype)
	}
}

// End implements dialect.Checker.
func (c *checker) End(last int, report func(dialect.Finding)) {
	if c.Empty(report) {
		return
	}
	if c.rp.unended() {
		report(ruleReplayUnended.Finding(c.rp.fromLine, "", fmt.Sprintf("the copy of thread %s's history that begins here runs to the end: no line tells the fork's own lines from it, so none is counted (a task_started whose started_at is its own second, or a line after a pause of more than a second, marks the first)", c.rp.from)))
	}
	if c.turnLine > 0 {
		report(ruleTruncated.Finding(last, "", fmt.Sprintf("the stream ends inside the turn begun on line %d: the session is running, or its process died", c.turnLine)))
	}
}
