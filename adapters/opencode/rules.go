package opencode

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/evtool/evtool/adapters/internal/check"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/internal/idset"
	"github.com/tidwall/gjson"
)

// rules is the catalogue of opencode's stream rules (see dialect.RuleSet).
var rules dialect.RuleSet

// The rules, in the order `evtool rules` and docs/rules.md list them.
var (
	ruleEmpty = rules.Error("opencode/empty",
		"a stream has at least one line")
	ruleFirstLine = rules.Error("opencode/first-line",
		"a run json stream starts with step_start, error or done: a run's parts come inside steps")
	ruleTruncated = rules.Error("opencode/truncated",
		"a run ends with a step_finish that does not stop to call tools, an error or done (the bus: session.idle); any other last line means the stream was cut")
	ruleAfterDone = rules.Error("opencode/after-done",
		"nothing follows done, the run's terminal line")
	ruleShape = rules.Error("opencode/shape-mixed",
		"a stream is run json or the server bus throughout, as its first line is")
	ruleSessionID = rules.Error("opencode/session-id",
		"every run json line and its part name the session of the first line: run writes only its own session's parts")
	rulePartSession = rules.Warning("opencode/part-session",
		"a bus part names the session of its line (the bus carries every session's events, so this is a warning only)")
	rulePartType = rules.Error("opencode/part-type",
		"a run json part line carries the part type of its line type (text: text, tool_use: tool, …)")
	rulePartRepeated = rules.Warning("opencode/part-repeated",
		"a part is written once; opencode writes a part again when it is republished after it ended (the first reading stands)")
	ruleStepOpen = rules.Warning("opencode/step-unfinished",
		"a step_start comes after the previous step's step_finish")
	ruleOutsideStep = rules.Warning("opencode/outside-step",
		"reasoning, text, tool_use and step_finish come inside a step, after its step_start")
	ruleToolState = rules.Error("opencode/tool-not-ended",
		"run json writes a tool call when it has ended: state.status is completed or error, never pending or running")
	ruleTextState = rules.Error("opencode/text-not-ended",
		"run json writes a text or reasoning part when it has ended: its time.end is set")
	ruleUsageTotal = rules.Warning("opencode/usage-total",
		"tokens.total, when stated, is input + output + reasoning + cache.read + cache.write")
	ruleUnknownType = rules.Unknown("opencode/unknown-type",
		"the type is one of the known run json or bus types (error under --strict)")
	ruleUnknownField = rules.Unknown("opencode/unknown-field",
		"every field of a run json line and its part is known (error under --strict)")
	ruleUnknownValue = rules.Unknown("opencode/unknown-value",
		"an open string of a documented set (a step's finish reason, a bus part's type, an error's name, done's reason) holds one of its documented words (error under --strict)")
)

// checker keeps, besides a few flags, the ids of the parts read so far
// (as compact digests).
type checker struct {
	check.Frame
	objects int    // lines that are JSON objects
	bus     bool   // the stream is the server bus
	session string // the first line's session
	done    int    // line of done, 0 if none
	inStep  int    // line of the open step's step_start, 0 if none
	last    int    // lastNone…lastOther, as in the decoder
	open    bool   // bus: a turn's events since the last session.idle
	parts   idset.Set
}

func newChecker() *checker {
	return &checker{Frame: check.Frame{EmptyRule: ruleEmpty, EmptyMsg: "the stream has no JSON line", UnknownType: ruleUnknownType}}
}

func (c *checker) Line(line []byte, n int, report func(dialect.Finding)) {
	r, rep, ok := c.View(line, n, report) // what is kept is cloned: a long line is not copied
	if !ok {
		return
	}
	typ := r.Get("type").Str
	bus := isBus(r)
	// The stream's shape and session are its first object's: a line that
	// is not an object (reported by the reader) says nothing of them.
	c.objects++
	first := c.objects == 1
	if first {
		c.bus = bus
		c.session = strings.Clone(r.Get("sessionID").Str)
	} else if bus != c.bus && r.Get("type").Type == gjson.String {
		rep.Reportf(ruleShape, "", "a %s line in a stream whose first line is %s", shapeName(bus), shapeName(c.bus))
		return
	}
	if c.done > 0 {
		rep.Reportf(ruleAfterDone, "/type", "%s after done on line %d: done is the run's last line", typ, c.done)
	}
	if bus {
		c.busLine(r, typ, rep)
		return
	}
	if _, ok := runFields[typ]; !c.Known(rep, typ, ok) {
		c.last = lastOther
		return
	}
	check.Keys(rep, ruleUnknownField, r, "", func(k string) bool { return knownRunField(typ, k) }, "unknown field %q on %s", typ)
	if first && typ != "step_start" && typ != "error" && typ != "done" {
		rep.Reportf(ruleFirstLine, "/type", "the first line is %s: a run's parts come inside steps, which step_start opens", typ)
	}
	if s := r.Get("sessionID"); s.Type == gjson.String && s.Str != c.session {
		rep.Reportf(ruleSessionID, "/sessionID", "session %q, but the stream's first line names %q", s.Str, c.session)
	}
	switch typ {
	case "error":
		c.errorName(r.Get("error.name"), "/error/name", rep)
		c.last = lastError
		return
	case "done":
		if v := r.Get("reason"); v.Type == gjson.String && v.Str != "idle" {
			rep.Reportf(ruleUnknownValue, "/reason", "done with reason %q: run writes idle (kept as written)", v.Str)
		}
		c.done = n
		c.last = lastOther
		return
	}
	p := r.Get("part")
	if !p.IsObject() {
		c.last = lastOther
		return
	}
	want := partType[typ]
	if pt := p.Get("type"); pt.Exists() && pt.Str != want {
		rep.Reportf(rulePartType, "/part/type", "a %s line carries a %s part, want %s", typ, pt.Str, want)
	}
	check.Keys(rep, ruleUnknownField, p, "/part", check.In(partFields[want]), "unknown field %q on a %s part", want)
	switch typ {
	case "tool_use":
		if st := p.Get("state.status"); st.Type == gjson.String {
			if _, ended := toolStatuses[st.Str]; !ended {
				rep.Reportf(ruleToolState, "/part/state/status", "tool_use with state.status %q: run writes a call only once it is completed or error", st.Str)
			}
		}
	case "text", "reasoning":
		// run.ts writes these parts when part.time.end is set, so a line
		// without it cannot come from opencode run.
		if p.Get("time").IsObject() && !p.Get("time.end").Exists() {
			rep.Reportf(ruleTextState, "/part/time", "a %s part without time.end: run writes it only once it has ended", want)
		} else if !p.Get("time").Exists() && want == "text" {
			rep.Reportf(ruleTextState, "/part", "a text part without time: run writes it only once time.end is set")
		}
	}
	// In run json the part's session is the stream's: run keeps only its
	// own session's parts.
	if s := p.Get("sessionID"); s.Type == gjson.String && c.session != "" && s.Str != c.session {
		rep.Reportf(ruleSessionID, "/part/sessionID", "the part names session %q, but the stream's first line names %q", s.Str, c.session)
	}
	c.part(p, "/part", want, gjson.Result{}, rep)
}

// errorName reports an error name outside those the SDK documents.
func (c *checker) errorName(v gjson.Result, ptr string, rep dialect.Reporter) {
	if v.Type == gjson.String && !errorNames[v.Str] {
		rep.Reportf(ruleUnknownValue, ptr, "error name %q is not one of the SDK's error types (kept as written)", v.Str)
	}
}

// part checks one part that run json writes (or the bus states ended).
func (c *checker) part(p gjson.Result, ptr, typ string, session gjson.Result, rep dialect.Reporter) {
	if s := p.Get("sessionID"); s.Type == gjson.String && session.Type == gjson.String && s.Str != session.Str {
		rep.Reportf(rulePartSession, ptr+"/sessionID", "the part names session %q, its line %q", s.Str, session.Str)
	}
	id := p.Get("id").Str
	if typ != "step-start" && id != "" {
		if first, seen := c.parts.Get(id); seen {
			rep.Reportf(rulePartRepeated, ptr+"/id", "part %q was written already on line %d", id, first)
			return
		}
		c.parts.Add(id, idset.Line(rep.Line))
	}
	switch typ {
	case "step-start":
		if c.inStep > 0 {
			rep.Reportf(ruleStepOpen, ptr+"/type", "a step_start while the step of line %d has no step_finish", c.inStep)
		}
		c.inStep = rep.Line
		c.last = lastOther
	case "step-finish":
		if c.inStep == 0 {
			rep.Reportf(ruleOutsideStep, ptr+"/type", "a step_finish with no step_start before it")
		}
		c.inStep = 0
		c.last = lastStepEnd
		if r := p.Get("reason"); r.Str == "tool-calls" {
			c.last = lastStepMore
		} else if r.Type == gjson.String && !knownFinish[r.Str] {
			rep.Reportf(ruleUnknownValue, ptr+"/reason", "finish reason %q is not one of the model SDK's (kept as written, read as other)", r.Str)
		}
		c.total(p.Get("tokens"), ptr+"/tokens", rep)
	default:
		if c.inStep == 0 {
			rep.Reportf(ruleOutsideStep, ptr+"/type", "a %s part outside a step (no step_start before it)", typ)
		}
		c.last = lastOther
	}
}

// total checks tokens.total against its parts, exactly.
func (c *checker) total(t gjson.Result, ptr string, rep dialect.Reporter) {
	tot := t.Get("total")
	if tot.Type != gjson.Number {
		return
	}
	want, ok := uint64(0), true
	for _, k := range []string{"input", "output", "reasoning", "cache.read", "cache.write"} {
		v := t.Get(k)
		n, err := strconv.ParseUint(v.Raw, 10, 64)
		if v.Type != gjson.Number || err != nil || want+n < want {
			ok = false
			break
		}
		want += n
	}
	if ok && tot.Raw != strconv.FormatUint(want, 10) {
		rep.Reportf(ruleUsageTotal, ptr+"/total", "total is %s, but input + output + reasoning + cache read + cache write is %d", tot.Raw, want)
	}
}

func (c *checker) busLine(r gjson.Result, typ string, rep dialect.Reporter) {
	if !busTypes[typ] {
		rep.Reportf(ruleUnknownType, "/type", "unknown bus event type %q (kept as opaque data)", typ)
		return
	}
	props := r.Get("properties")
	switch typ {
	case "message.part.updated":
		p := props.Get("part")
		if pt := p.Get("type"); pt.Type == gjson.String && !busPartTypes[pt.Str] {
			rep.Reportf(ruleUnknownValue, "/properties/part/type", "part type %q is not one of the SDK's (kept as written)", pt.Str)
		}
		if p.IsObject() && finished(p) {
			c.open = true
			c.part(p, "/properties/part", p.Get("type").Str, props.Get("sessionID"), rep)
		}
	case "message.part.delta":
		c.open = true
	case "session.error":
		c.errorName(props.Get("error.name"), "/properties/error/name", rep)
		c.open = true
	case "session.idle":
		c.open = false
		c.inStep = 0
	}
}

func (c *checker) End(last int, report func(dialect.Finding)) {
	if c.Empty(report) {
		return
	}
	if c.bus {
		if c.open {
			report(ruleTruncated.Finding(last, "", "the bus stream ends inside a turn: no session.idle after its last events"))
		}
		return
	}
	if c.done > 0 || c.last == lastStepEnd || c.last == lastError {
		return
	}
	why := "its last line is not a step_finish, an error or done"
	if c.last == lastStepMore {
		why = "its last step stopped to call tools, and the step that should follow is missing"
	}
	report(ruleTruncated.Finding(last, "", fmt.Sprintf("the run is incomplete: %s (opencode 1.18 writes no terminal line; this is how its end is read)", why)))
}

func shapeName(bus bool) string {
	if bus {
		return "server bus"
	}
	return "run json"
}
