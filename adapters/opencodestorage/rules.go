package opencodestorage

import (
	"strconv"
	"strings"

	"github.com/evtool/evtool/adapters/internal/check"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/internal/idset"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/tidwall/gjson"
)

// rules is the catalogue of the dialect's stream rules: each is declared
// once below, with its id, severity and purpose, and the checker reports
// through the value.
var rules dialect.RuleSet

// The rules, in the order `evtool rules` and docs/rules.md list them.
var (
	ruleEmpty = rules.Error("opencode-storage/empty",
		"a stream has at least one line")
	ruleFirstLine = rules.Error("opencode-storage/first-line",
		"the first line is the session line, and no other line is one")
	ruleSessionID = rules.Error("opencode-storage/session-id",
		"every message, part and todo line names the session of the session line, and a record's own sessionID, where it keeps one, says the same")
	rulePartMessage = rules.Error("opencode-storage/part-message",
		"a part follows its message: its messageID is the id of the last message line")
	ruleTodoLast = rules.Error("opencode-storage/todo-last",
		"the todo line, if any, is the last line")
	ruleTokensNegative = rules.Error("opencode-storage/tokens-negative",
		"the token counts of a message and of a step-finish part are not negative")
	ruleOrder = rules.Warning("opencode-storage/order",
		"messages come in order of time.created (ties by id), a message's parts in order of id, as opencode sorts them")
	ruleRepeated = rules.Warning("opencode-storage/id-repeated",
		"a message or part id appears once (opencode updates a record in place)")
	ruleUsageTotal = rules.Warning("opencode-storage/usage-total",
		"tokens.total, when stated, is input + output + reasoning + cache.read + cache.write")
	ruleUnfinished = rules.Warning("opencode-storage/unfinished",
		"the session's last message is an assistant message that completed or failed; otherwise opencode was still running, or stopped in the middle")
	ruleUnknownType = rules.Unknown("opencode-storage/unknown-type",
		"the line type is session, message, part or todo, and a part's type one of the twelve of opencode's MessageV2.Part (error under --strict)")
	ruleUnknownValue = rules.Unknown("opencode-storage/unknown-value",
		"a message's role, a tool state's status, a finish reason and an error name are among opencode's documented words (error under --strict)")
)

// checker keeps the session's id, the last message's id, time and state,
// the last part's id, and the ids seen (as digests, bounded).
type checker struct {
	check.Frame
	session  string
	todo     int    // line of the todo line, 0 if none
	msg      string // the last message's id
	msgTime  uint64
	msgRole  string
	ended    bool   // the last message is an assistant message that ended
	part     string // the last part's id, within the message
	messages int
	ids      idset.Set
}

func newChecker() *checker {
	return &checker{Frame: check.Frame{EmptyRule: ruleEmpty, EmptyMsg: "the stream has no JSON line"}}
}

// Line implements dialect.Checker.
func (c *checker) Line(line []byte, n int, report func(dialect.Finding)) {
	r, rep, ok := c.View(line, n, report)
	if !ok {
		return
	}
	typ := r.Get("type").Str
	first := c.Lines == 1
	if c.todo > 0 {
		rep.Reportf(ruleTodoLast, "/type", "a %s line after the todo line of line %d", typ, c.todo)
	}
	if first && typ != "session" {
		rep.Reportf(ruleFirstLine, "/type", "the first line is a %s line; a stored session begins with its session line", typ)
	}
	data := r.Get("data")
	switch typ {
	case "session":
		if !first {
			rep.Reportf(ruleFirstLine, "/type", "a second session line: a stream is one session")
			return
		}
		// View aliases the line: what is kept is cloned.
		c.session = strings.Clone(r.Get("id").Str)
		if c.session == "" {
			c.session = strings.Clone(data.Get("id").Str)
		}
		return
	case "message":
		c.message(r, data, rep)
	case "part":
		c.partLine(r, data, rep)
	case "todo":
		c.todo = n
		c.sessionOf(r, data, rep)
	default:
		rep.Reportf(ruleUnknownType, "/type", "unknown line type %q (kept whole)", typ)
	}
}

// sessionOf checks the session a line names.
func (c *checker) sessionOf(r, data gjson.Result, rep dialect.Reporter) {
	if c.session == "" {
		return
	}
	if s := r.Get("sessionID"); s.Type == gjson.String && s.Str != c.session {
		rep.Reportf(ruleSessionID, "/sessionID", "session %q, but the session line is %q", s.Str, c.session)
	}
	if s := data.Get("sessionID"); data.IsObject() && s.Type == gjson.String && s.Str != c.session {
		rep.Reportf(ruleSessionID, "/data/sessionID", "the record names session %q, but the session line is %q", s.Str, c.session)
	}
}

func (c *checker) message(r, data gjson.Result, rep dialect.Reporter) {
	c.sessionOf(r, data, rep)
	id := r.Get("id").Str
	c.repeated(id, "message", rep)
	created := data.Get("time.created")
	t, msg := jsonobj.ParseUint(created, jsonobj.U64)
	if msg == "" && c.messages > 0 && (t < c.msgTime || (t == c.msgTime && id < c.msg)) {
		rep.Reportf(ruleOrder, "/data/time/created", "message %q (created %d) comes after message %q (created %d)", id, t, c.msg, c.msgTime)
	}
	c.messages++
	c.msg, c.msgTime, c.part = strings.Clone(id), t, ""
	role := data.Get("role")
	c.msgRole = strings.Clone(role.Str)
	if role.Type == gjson.String && !roles[role.Str] {
		rep.Reportf(ruleUnknownValue, "/data/role", "role %q is not user or assistant (kept whole)", role.Str)
	}
	c.ended = false
	if role.Str == "assistant" {
		fin := data.Get("finish")
		if fin.Type == gjson.String {
			if _, ok := finishReasons[fin.Str]; !ok {
				rep.Reportf(ruleUnknownValue, "/data/finish", "finish reason %q is not one of the AI SDK's (kept, read as other)", fin.Str)
			}
		}
		e := data.Get("error")
		if name := e.Get("name"); name.Type == gjson.String && !errorNames[name.Str] {
			rep.Reportf(ruleUnknownValue, "/data/error/name", "error name %q is not one of opencode's (kept)", name.Str)
		}
		c.ended = e.IsObject() || (data.Get("time.completed").Exists() && fin.Str != "tool-calls")
		c.tokens(data.Get("tokens"), "/data/tokens", rep)
	}
}

func (c *checker) partLine(r, data gjson.Result, rep dialect.Reporter) {
	c.sessionOf(r, data, rep)
	id := r.Get("id").Str
	mid := r.Get("messageID")
	switch {
	case c.messages == 0:
		rep.Reportf(rulePartMessage, "/messageID", "part %q before any message line", id)
	case mid.Type == gjson.String && mid.Str != c.msg:
		rep.Reportf(rulePartMessage, "/messageID", "part %q of message %q follows message %q", id, mid.Str, c.msg)
	}
	if s := data.Get("messageID"); data.IsObject() && s.Type == gjson.String && mid.Type == gjson.String && s.Str != mid.Str {
		rep.Reportf(rulePartMessage, "/data/messageID", "the record names message %q, its frame %q", s.Str, mid.Str)
	}
	c.repeated(id, "part", rep)
	if c.part != "" && id < c.part && mid.Str == c.msg {
		rep.Reportf(ruleOrder, "/id", "part %q comes after part %q of the same message", id, c.part)
	}
	c.part = strings.Clone(id)
	typ := data.Get("type")
	switch {
	case typ.Type != gjson.String:
		return
	case !partTypes[typ.Str]:
		rep.Reportf(ruleUnknownType, "/data/type", "unknown part type %q (kept whole)", typ.Str)
	case typ.Str == "tool":
		if s := data.Get("state.status"); s.Type == gjson.String {
			if _, ok := toolStates[s.Str]; !ok {
				rep.Reportf(ruleUnknownValue, "/data/state/status", "tool state %q is not pending, running, completed or error (the call is left open)", s.Str)
			}
		}
	case typ.Str == "step-finish":
		c.tokens(data.Get("tokens"), "/data/tokens", rep)
		if fin := data.Get("reason"); fin.Type == gjson.String {
			if _, ok := finishReasons[fin.Str]; !ok {
				rep.Reportf(ruleUnknownValue, "/data/reason", "finish reason %q is not one of the AI SDK's (kept)", fin.Str)
			}
		}
	}
}

// repeated reports an id seen before.
func (c *checker) repeated(id, what string, rep dialect.Reporter) {
	if id == "" {
		return
	}
	if line, seen := c.ids.Get(what + ":" + id); seen {
		rep.Reportf(ruleRepeated, "/id", "%s %q was on line %d already", what, id, line)
		return
	}
	c.ids.Add(what+":"+id, idset.Line(rep.Line))
}

// tokens checks that counts are not negative and that a stated total is
// their sum, exactly.
func (c *checker) tokens(t gjson.Result, ptr string, rep dialect.Reporter) {
	if !t.IsObject() {
		return
	}
	sum, exact := uint64(0), true
	for _, k := range []string{"input", "output", "reasoning", "cache.read", "cache.write"} {
		v := t.Get(k)
		if v.Type != gjson.Number {
			exact = false
			continue
		}
		if v.Num < 0 || (len(v.Raw) > 0 && v.Raw[0] == '-') {
			rep.Reportf(ruleTokensNegative, ptr+"/"+jsonPath(k), "%s tokens: %s", k, v.Raw)
			exact = false
			continue
		}
		n, err := strconv.ParseUint(v.Raw, 10, 64)
		if err != nil || sum+n < sum {
			exact = false
			continue
		}
		sum += n
	}
	tot := t.Get("total")
	if tot.Type != gjson.Number {
		return
	}
	if len(tot.Raw) > 0 && tot.Raw[0] == '-' {
		rep.Reportf(ruleTokensNegative, ptr+"/total", "total tokens: %s", tot.Raw)
		return
	}
	if exact && tot.Raw != strconv.FormatUint(sum, 10) {
		rep.Reportf(ruleUsageTotal, ptr+"/total", "total is %s, but input + output + reasoning + cache read + cache write is %d", tot.Raw, sum)
	}
}

// End implements dialect.Checker.
func (c *checker) End(last int, report func(dialect.Finding)) {
	if c.Empty(report) {
		return
	}
	if c.messages > 0 && !c.ended {
		why := "its last message is a user message with no answer"
		if c.msgRole == "assistant" {
			why = "its last assistant message has not completed (or stopped to call tools)"
		}
		report(ruleUnfinished.Finding(last, "", "the session has not ended: "+why))
	}
}
