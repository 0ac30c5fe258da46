package claudetranscript

import (
	"strconv"
	"strings"

	"github.com/evtool/evtool/adapters/internal/recent"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/internal/idset"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/tidwall/gjson"
)

// rules is the catalogue of the transcript's stream rules, in the order
// `evtool rules` and docs/rules.md list them; docs/dialects/
// claude-transcript.md describes each. A transcript is a file the agent
// wrote for itself, resumed, compacted and appended to over months: what
// breaks a rule is unusual but does not stop reading, so the rules warn.
var rules dialect.RuleSet

var (
	ruleUnknownType   = rules.Unknown("claude-transcript/unknown-type", "the type (and a system line's subtype) is one Claude Code 1.0 to 2.1 writes (error under --strict)")
	ruleParentUnknown = rules.Warning("claude-transcript/parent-unknown", "parentUuid names the uuid of an earlier line of the file (file order follows the tree)")
	ruleUUIDRepeated  = rules.Warning("claude-transcript/uuid-repeated", "a uuid is written once, except by a resumed session replaying the lines it continues under another sessionId")
	ruleSession       = rules.Warning("claude-transcript/session-changed", "one sessionId per file, except a resumed session, whose first line repeats or continues a line of the file")
	ruleUsageFell     = rules.Warning("claude-transcript/usage-fell", "the output_tokens of the lines of one API response (one message.id and requestId) never fall")
	ruleCompact       = rules.Warning("claude-transcript/compact-summary", "a compact_boundary is followed by the user line with isCompactSummary")
	ruleToolUseAgain  = rules.Warning("claude-transcript/tool-use-repeated", "a tool_use id is used by one tool_use block")
	ruleResultUnknown = rules.Warning("claude-transcript/tool-result-unknown", "a tool_result answers a tool_use of an earlier line")
	ruleResultAgain   = rules.Warning("claude-transcript/tool-result-repeated", "a tool_use is answered by one tool_result")
)

// Bounds of the checker's memory besides its id sets.
const (
	maxSessions  = 64  // sessionIds of one file (a resume adds one)
	maxResponses = 256 // recent API responses whose output_tokens are followed
)

// checker checks one transcript. Its memory is bounded: sets of id
// digests (idset; each remembers at least the last 196,608 ids), the
// file's few session ids and the last few API responses.
type checker struct {
	uuids     idset.Set // uuids read; value: the index of their sessionId (0 for the first: no values stored while there is one)
	calls     idset.Set // tool_use ids; value: the line of their tool_result, 0 while open
	sessions  []string
	session   int // index of the current sessionId, -1 before the first
	responses recent.Map[uint64]
	boundary  int // the line of a compact_boundary awaiting its summary
}

func newChecker() *checker {
	return &checker{session: -1, responses: recent.New[uint64](maxResponses)}
}

// Line implements dialect.Checker.
func (c *checker) Line(raw []byte, n int, report func(dialect.Finding)) {
	r := jsonobj.View(raw) // read in place: what is kept is cloned (or a digest)
	t := r.Get("type")
	if !r.IsObject() || t.Type != gjson.String {
		return // the schema says so
	}
	rep := dialect.Reporter{Line: n, Report: report}
	sub := r.Get("subtype")
	if !known(t.Str, sub.Str, sub.Type == gjson.String) {
		if t.Str == "system" {
			rep.Reportf(ruleUnknownType, "/subtype", "unknown system subtype %q (kept whole)", sub.Str)
		} else {
			rep.Reportf(ruleUnknownType, "/type", "unknown line type %q (kept whole)", t.Str)
		}
	}
	uuid := r.Get("uuid")
	if !conversation[t.Str] || uuid.Type != gjson.String {
		return
	}
	sid, fresh := c.sessionIndex(r.Get("sessionId").Str)
	if v, seen := c.uuids.Get(uuid.Str); seen {
		if int(v) == sid {
			rep.Reportf(ruleUUIDRepeated, "/uuid", "uuid %s was written before under the same sessionId", uuid.Str)
		}
		c.session = sid
		return // a replayed line: its own line was checked
	}
	parent := r.Get("parentUuid")
	parentSeen := parent.Type == gjson.String && c.uuids.Has(parent.Str)
	if fresh && c.session >= 0 && !parentSeen {
		rep.Reportf(ruleSession, "/sessionId", "the sessionId changes from %s to %s, and the line continues no earlier line",
			c.sessions[c.session], c.sessions[sid])
	}
	c.session = sid
	if parent.Type == gjson.String && !parentSeen {
		rep.Reportf(ruleParentUnknown, "/parentUuid", "parentUuid %s names no earlier line", parent.Str)
	}
	c.uuids.Add(uuid.Str, uint64(sid))
	switch {
	case t.Str == "system" && sub.Str == "compact_boundary":
		c.awaitSummary(rep)
		c.boundary = n
	case t.Str == "user" || t.Str == "assistant":
		if c.boundary > 0 && !(t.Str == "user" && r.Get("isCompactSummary").Type == gjson.True) {
			rep.Reportf(ruleCompact, "", "the compact_boundary on line %d is followed by a %s line without isCompactSummary", c.boundary, t.Str)
		}
		c.boundary = 0
	}
	switch t.Str {
	case "assistant":
		c.assistant(r, rep)
	case "user":
		c.user(r, rep)
	}
}

// sessionIndex returns the index of a sessionId among the file's, and
// whether it is new: a sessionId that appears for the first time after
// another must continue the file (a resumed session's first line repeats
// or continues an earlier line).
func (c *checker) sessionIndex(sid string) (int, bool) {
	for i, s := range c.sessions {
		if s == sid {
			return i, false
		}
	}
	if len(c.sessions) >= maxSessions {
		return len(c.sessions) - 1, false // past the bound, new ids are not told apart
	}
	c.sessions = append(c.sessions, strings.Clone(sid))
	return len(c.sessions) - 1, true
}

func (c *checker) awaitSummary(rep dialect.Reporter) {
	if c.boundary > 0 {
		rep.Reportf(ruleCompact, "", "the compact_boundary on line %d is followed by another before its isCompactSummary line", c.boundary)
	}
}

func (c *checker) assistant(r gjson.Result, rep dialect.Reporter) {
	m := r.Get("message")
	if id := m.Get("id"); id.Type == gjson.String {
		if out, msg := jsonobj.ParseUint(m.Get("usage.output_tokens"), jsonobj.U64); msg == "" {
			key := id.Str + "\x00" + r.Get("requestId").Str
			if prev, ok := c.responses.Get(key); ok && out < prev {
				rep.Reportf(ruleUsageFell, "/message/usage/output_tokens", "output_tokens %d of message %s fell from %d on an earlier line", out, id.Str, prev)
			}
			c.responses.Put(key, out)
		}
	}
	i := 0
	m.Get("content").ForEach(func(_, b gjson.Result) bool {
		if bt := b.Get("type").Str; bt == "tool_use" || bt == "server_tool_use" || bt == "mcp_tool_use" {
			if id := b.Get("id"); id.Type == gjson.String {
				if _, seen := c.calls.Get(id.Str); seen {
					rep.Reportf(ruleToolUseAgain, "/message/content/"+strconv.Itoa(i)+"/id", "tool_use id %s was used before", id.Str)
				} else {
					c.calls.Add(id.Str, 0)
				}
			}
		}
		i++
		return true
	})
}

func (c *checker) user(r gjson.Result, rep dialect.Reporter) {
	i := 0
	r.Get("message.content").ForEach(func(_, b gjson.Result) bool {
		if b.Get("type").Str == "tool_result" {
			ptr := "/message/content/" + strconv.Itoa(i) + "/tool_use_id"
			id := b.Get("tool_use_id").Str
			switch v, seen := c.calls.Get(id); {
			case !seen:
				rep.Reportf(ruleResultUnknown, ptr, "tool_result for %s, which no earlier tool_use names", id)
			case v > 0:
				rep.Reportf(ruleResultAgain, ptr, "tool_result for %s, which was answered on line %d", id, v)
			default:
				c.calls.Add(id, uint64(rep.Line))
			}
		}
		i++
		return true
	})
}

// End implements dialect.Checker.
func (c *checker) End(lastLine int, report func(dialect.Finding)) {
	if c.boundary > 0 {
		dialect.Reporter{Line: lastLine, Report: report}.Reportf(ruleCompact, "",
			"the compact_boundary on line %d is the last conversation line: no isCompactSummary line follows", c.boundary)
	}
}
