package muse

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/evtool/evtool/adapters/internal/check"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/internal/idset"
	"github.com/evtool/evtool/internal/openset"
	"github.com/tidwall/gjson"
)

// The stream rules of muse, in the order `evtool rules` and
// docs/rules.md list them. Each is declared once: the checker reports
// through the value, which gives a finding its id and severity.
var rules dialect.RuleSet

var (
	ruleSchemaVersion = rules.Warning("muse/schema-version",
		"schema_version and payload_schema_version are 1 (no version policy is published, so others are read with a warning)")
	ruleDuplicateID = rules.Error("muse/duplicate-id",
		"(stream.id, id) is unique: id alone repeats across sessions")
	ruleSequence = rules.Error("muse/sequence-increasing",
		"sequence strictly increases within a turn (causation_id)")
	ruleSequenceGap = rules.Warning("muse/sequence-gap",
		"sequence starts at 1 and increases by 1 within a turn")
	ruleRecordedAt = rules.Warning("muse/recorded-at",
		"recorded_at does not decrease")
	ruleEphemeral = rules.Error("muse/ephemeral-status",
		"durability is ephemeral if and only if record_type is status")
	ruleCausation = rules.Warning("muse/causation",
		"causation_id equals payload.command_id")
	ruleTurnStart = rules.Warning("muse/turn-start",
		"a turn's first record is runtime.command.accepted")
	ruleTurnEnd = rules.Error("muse/turn-unterminated",
		"a turn ends with run.terminal.* before the next turn begins")
	ruleAfterTerminal = rules.Error("muse/after-terminal",
		"nothing follows a turn's run.terminal.* in that turn")
	ruleTruncated = rules.Error("muse/truncated",
		"the last turn ends with run.terminal.*; without it the stream is truncated")
	ruleTaskNotLinked = rules.Error("muse/task-not-linked",
		"task.stream.linked comes before a task's lifecycle events")
	ruleTransition = rules.Error("muse/lifecycle-transition",
		"each lifecycle event is a legal transition from the task's last one")
	ruleLifecycleKind = rules.Error("muse/lifecycle-kind",
		"payload_type is task.lifecycle.<event.kind> and event.task_id is payload.task_id")
	ruleToolResult = rules.Warning("muse/tool-result-unjoined",
		"a tool.result joins a tool task, by its scheduled idempotency key or its tool name")
	ruleUnknownPayload = rules.Unknown("muse/unknown-payload",
		"payload_type and lifecycle kinds are known (error under --strict)")
	ruleUnknownField = rules.Unknown("muse/unknown-field",
		"envelope, payload and event keys are known (error under --strict)")
	ruleUnknownValue = rules.Unknown("muse/unknown-value",
		"payload.kind is its payload type's kind, run.terminal's terminal is completed, failed or cancelled, and correlation_facts.outcome is success or failure: open strings in Muse's types, closed sets on the wire (error under --strict)")
)

// payloadKinds are the payload.kind words Muse writes for each known
// payload family. The field is a plain String in Muse's types, but each
// payload type has exactly one kind on the wire.
var payloadKinds = map[string]string{
	"runtime.command.accepted": "command_accepted",
	"session.run.linked":       "session_run_linked",
	"turn.input.user":          "turn_input_user",
	"run.lifecycle.started":    "run_started",
	"run.model.configured":     "run_model_configured",
	"run.output.delta":         "run_output_delta",
	"tool.result":              "tool_result",
	"run.terminal":             "run_terminal",
	"task.stream.linked":       "task_stream_linked",
	"task.lifecycle":           "task_lifecycle",
}

// terminalStates are the states a run.terminal names: completed (every
// capture), and the two abnormal ends muse's lifecycle words name, failed
// and cancelled. toolOutcomes are correlation_facts.outcome's words.
var (
	terminalStates = []string{"completed", "failed", "cancelled"}
	toolOutcomes   = []string{"success", "failure"}
)

// next lists the legal lifecycle transitions: from a state, the kinds that
// may follow. They are the sequences the reference and every capture
// show; failed and cancelled may also end a task at any point before it
// ends, and status and output repeat while it runs.
var next = map[string][]string{
	"":                   {"proposed"},
	"proposed":           {"accepted", "rejected", "failed", "cancelled"},
	"accepted":           {"scheduled", "started", "failed", "cancelled"},
	"scheduled":          {"side_effect_intent", "started", "failed", "cancelled"},
	"side_effect_intent": {"started", "failed", "cancelled"},
	"started":            {"status", "output", "completed", "failed", "cancelled"},
	"status":             {"status", "output", "completed", "failed", "cancelled"},
	"output":             {"status", "output", "completed", "failed", "cancelled"},
}

func terminalKind(k string) bool {
	return k == "completed" || k == "failed" || k == "cancelled" || k == "rejected"
}

var payloadKeys = map[string][]string{
	"runtime.command.accepted": {"kind", "command_id", "client_id", "command_kind"},
	"session.run.linked":       {"kind", "command_id", "run_stream"},
	"turn.input.user":          {"kind", "command_id", "run_stream", "prompt"},
	"run.lifecycle.started":    {"kind", "command_id", "run_stream", "prompt"},
	"run.model.configured":     {"kind", "command_id", "run_stream", "model_id", "display_label", "profile_id", "provider_id", "source"},
	"run.output.delta":         {"kind", "command_id", "run_stream", "text"},
	"tool.result":              {"kind", "command_id", "run_stream", "call_id", "text", "correlation_facts", "edit_facts"},
	"run.terminal":             {"kind", "command_id", "run_stream", "terminal", "text", "reason"},
	"task.stream.linked":       {"kind", "command_id", "run_stream", "task_id", "task_stream"},
	"task.lifecycle":           {"kind", "command_id", "run_stream", "task_stream", "task_id", "event"},
}

var eventKeys = map[string][]string{
	"proposed": {"task_kind"}, "scheduled": {"idempotency_key"},
	"side_effect_intent": {"operation", "idempotency_key", "policy_decision", "cancellation_handle", "parent_task_id"},
	"started":            {"span_id"}, "status": {"message", "details"}, "output": {"chunk"},
	"cancelled": {"reason"}, "rejected": {"reason"}, "failed": {"reason"},
}

type turnState struct {
	seq      uint64
	terminal int // line of run.terminal.*, 0 if none
}

// checker keeps full state for the open turns and tasks only. Every record
// id, an ended turn the stream has moved on from, an ended task, and the
// call ids and tool names tool.result may join leave an 8-byte digest (with
// a value) in an idset.Set.
type checker struct {
	check.Frame
	ids    idset.Set             // stream id + "\x00" + id → line
	turns  map[string]*turnState // open turns, and the current one
	ended  idset.Set             // ended turns left behind → packTurn
	turn   string                // causation of the last record
	lastAt uint64
	tasks  openset.Set // open tasks (linked, or begun and not yet ended) → openFlags
	closed idset.Set   // ended tasks → packTask
	calls  idset.Set   // provider call ids scheduled as a tool task
	tools  idset.Set   // tool names of proposed tool tasks
}

func newChecker() *checker {
	return &checker{
		Frame: check.Frame{EmptyRule: ruleTruncated, EmptyMsg: "the stream has no JSON line"},
		turns: map[string]*turnState{},
	}
}

// packTurn keeps an ended turn's last sequence and run.terminal line in one
// value; either beyond 2^32-1 reads back as 2^32-1.
func packTurn(t *turnState) uint64 { return clamp32(t.seq)<<32 | idset.Line(t.terminal) }

func unpackTurn(v uint64) *turnState {
	return &turnState{seq: v >> 32, terminal: int(v & (1<<32 - 1))}
}

func clamp32(v uint64) uint64 { return min(v, 1<<32-1) }

const linkedBit = 1 << 8

// openFlags keeps an open task's last lifecycle kind (its index in
// LifecycleKinds plus one, 0 before the first) and whether it is linked
// in an openset entry's seven bits of flags: an open task costs about 20
// bytes, where a map of strings and structs cost 120 (2,000,000 tasks
// left open: 240 MB).
func openFlags(kind string, linked bool) uint8 {
	f := uint8(slices.Index(LifecycleKinds, kind) + 1)
	if linked {
		f |= openLinked
	}
	return f
}

const openLinked = 1 << 4

func openState(f uint8) (kind string, linked bool) {
	if i := int(f&(openLinked-1)) - 1; i >= 0 && i < len(LifecycleKinds) {
		kind = LifecycleKinds[i]
	}
	return kind, f&openLinked != 0
}

// packTask keeps an ended task's last kind (its index in LifecycleKinds) and
// whether it was linked.
func packTask(kind string, linked bool) uint64 {
	v := uint64(slices.Index(LifecycleKinds, kind))
	if linked {
		v |= linkedBit
	}
	return v
}

// leave is called when the stream moves on from turn: an ended turn keeps
// only its digest and packed state.
func (c *checker) leave(turn string) {
	if t := c.turns[turn]; t != nil && t.terminal > 0 {
		c.ended.Add(turn, packTurn(t))
		delete(c.turns, turn)
	}
}

// Line checks one record: its envelope, its place in its turn (the turn it
// begins or continues, its sequence), then its payload.
func (c *checker) Line(line []byte, n int, report func(dialect.Finding)) {
	r, rep, ok := c.View(line, n, report) // what is kept is cloned, or a digest
	if !ok {
		return
	}
	c.envelope(r, n, rep)
	pt := r.Get("payload_type").Str
	cause := r.Get("causation_id").Str
	t := c.enter(cause, pt, rep)
	c.sequence(r, t, rep)
	p := r.Get("payload")
	if cmd := p.Get("command_id"); cmd.Exists() && cmd.Str != cause {
		rep.Reportf(ruleCausation, "/payload/command_id", "payload.command_id %q differs from causation_id %q", cmd.Str, cause)
	}
	c.payload(pt, p, t, n, rep)
}

// envelope checks the record's envelope: its keys and versions, its id,
// its durability and its clock.
func (c *checker) envelope(r gjson.Result, n int, rep dialect.Reporter) {
	check.Keys(rep, ruleUnknownField, r, "", check.In(envelopeKeys), "unknown envelope key %q")
	for _, k := range []string{"schema_version", "payload_schema_version"} {
		if v := r.Get(k); v.Type == gjson.Number && v.Raw != "1" {
			rep.Reportf(ruleSchemaVersion, "/"+k, "%s is %s; only 1 is known", k, v.Raw)
		}
	}
	key := r.Get("stream.id").Str + "\x00" + r.Get("id").Str
	if prev, dup := c.ids.Get(key); dup {
		rep.Reportf(ruleDuplicateID, "/id", "record id %q repeats line %d in the same stream", r.Get("id").Str, prev)
	} else {
		c.ids.Add(key, uint64(n))
	}
	rt, du := r.Get("record_type").Str, r.Get("durability").Str
	if (du == "ephemeral") != (rt == "status") {
		rep.Reportf(ruleEphemeral, "/durability", "durability %q with record_type %q: ephemeral goes with status and only with status", du, rt)
	}
	if at := r.Get("recorded_at"); at.Type == gjson.Number {
		if v, err := strconv.ParseUint(at.Raw, 10, 64); err == nil {
			if v < c.lastAt {
				rep.Reportf(ruleRecordedAt, "/recorded_at", "recorded_at %d is before the previous record's %d", v, c.lastAt)
			}
			c.lastAt = v
		}
	}
}

// enter returns the state of the record's turn (its causation): a turn it
// continues, a turn that ended (a record after its end), or a turn it
// begins.
func (c *checker) enter(cause, pt string, rep dialect.Reporter) *turnState {
	t := c.turns[cause]
	if t == nil {
		if v, ok := c.ended.Get(cause); ok {
			t = unpackTurn(v) // a record after the turn ended: reported below
			c.turns[strings.Clone(cause)] = t
		}
	}
	if t == nil {
		if prev := c.turns[c.turn]; c.turn != "" && prev != nil && prev.terminal == 0 {
			rep.Reportf(ruleTurnEnd, "/causation_id", "turn %q begins before turn %q ended with run.terminal.*", cause, c.turn)
		}
		t = &turnState{}
		c.turns[strings.Clone(cause)] = t
		if pt != "runtime.command.accepted" {
			rep.Reportf(ruleTurnStart, "/payload_type", "turn %q begins with %s, not runtime.command.accepted", cause, pt)
		}
	} else if t.terminal > 0 {
		rep.Reportf(ruleAfterTerminal, "/payload_type", "%s after the turn's run.terminal on line %d", pt, t.terminal)
	}
	if cause != c.turn {
		c.leave(c.turn)
		c.turn = strings.Clone(cause)
	}
	return t
}

// sequence checks that the record's sequence goes up by one in its turn.
func (c *checker) sequence(r gjson.Result, t *turnState, rep dialect.Reporter) {
	s := r.Get("sequence")
	if s.Type != gjson.Number {
		return
	}
	v, err := strconv.ParseUint(s.Raw, 10, 64)
	if err != nil {
		return
	}
	switch {
	case t.seq > 0 && v <= t.seq:
		rep.Reportf(ruleSequence, "/sequence", "sequence %d does not increase within the turn (previous %d)", v, t.seq)
	case v != t.seq+1:
		rep.Reportf(ruleSequenceGap, "/sequence", "sequence %d, want %d", v, t.seq+1)
	}
	if v > t.seq {
		t.seq = v
	}
}

// payload checks the payload of a record of type pt: its keys, the words
// of its closed sets, and what its family says of tasks and calls.
func (c *checker) payload(pt string, p gjson.Result, t *turnState, n int, rep dialect.Reporter) {
	family := pt
	switch {
	case strings.HasPrefix(pt, "run.terminal."):
		family = "run.terminal"
		t.terminal = n
	case strings.HasPrefix(pt, "task.lifecycle."):
		family = "task.lifecycle"
	}
	keys, known := payloadKeys[family]
	if !known {
		rep.Reportf(ruleUnknownPayload, "/payload_type", "unknown payload type %q (passed through)", pt)
		return
	}
	check.Keys(rep, ruleUnknownField, p, "/payload", check.In(keys), "unknown key %q in a %s payload", pt)
	// Words of closed sets in open strings: reported, and kept as read
	// (the decoder's residue holds them).
	value := func(ptr string, v gjson.Result, known []string, what string) {
		if v.Type == gjson.String && !slices.Contains(known, v.Str) {
			rep.Reportf(ruleUnknownValue, ptr, "unknown %s %q (known: %s; kept as read)", what, v.Str, strings.Join(known, ", "))
		}
	}
	value("/payload/kind", p.Get("kind"), []string{payloadKinds[family]}, "kind for a "+pt+" payload")
	switch family {
	case "run.terminal":
		value("/payload/terminal", p.Get("terminal"), terminalStates, "run.terminal state")
	case "tool.result":
		if f := p.Get("correlation_facts"); f.IsObject() {
			value("/payload/correlation_facts/outcome", f.Get("outcome"), toolOutcomes, "tool outcome")
		}
	}
	switch family {
	case "task.stream.linked":
		c.linked(p.Get("task_id").Str)
	case "task.lifecycle":
		c.lifecycle(pt, p, n, rep)
	case "tool.result":
		call := p.Get("call_id").Str
		if !c.calls.Has(call) && !c.tools.Has(p.Get("correlation_facts.tool_name").Str) {
			rep.Reportf(ruleToolResult, "/payload/call_id", "tool.result for call %q joins no tool task", call)
		}
	}
}

// linked marks a task linked to the stream, open or ended.
func (c *checker) linked(task string) {
	if e, open := c.tasks.Get(task); open {
		c.tasks.SetFlags(task, e.Flags|openLinked)
	} else if v, ended := c.closed.Get(task); ended {
		c.closed.Add(task, v|linkedBit)
	} else {
		c.tasks.Add(task, 0, "")
		c.tasks.SetFlags(task, openFlags("", true))
	}
}

// lifecycle checks a task.lifecycle.* record: its event against its
// payload, its place in the task's lifecycle, and what a tool task
// proposes or schedules for a later tool.result to join.
func (c *checker) lifecycle(pt string, p gjson.Result, n int, rep dialect.Reporter) {
	task := p.Get("task_id").Str
	e := p.Get("event")
	kind := e.Get("kind").Str
	if _, typed := liftEvent(e); !typed {
		// Muse reads it as its Unknown lifecycle variant: passed through.
		msg := fmt.Sprintf("unknown lifecycle kind %q (passed through)", kind)
		if slices.Contains(LifecycleKinds, kind) {
			msg = fmt.Sprintf("lifecycle event of kind %q does not fit that kind's fields (passed through as unknown)", kind)
		}
		rep.Reportf(ruleUnknownPayload, "/payload/event", "%s", msg)
		return
	}
	if pt != "task.lifecycle."+kind {
		rep.Reportf(ruleLifecycleKind, "/payload/event/kind", "event kind %q under payload_type %s", kind, pt)
	}
	if id := e.Get("task_id"); id.Str != task {
		rep.Reportf(ruleLifecycleKind, "/payload/event/task_id", "event.task_id %q differs from payload.task_id %q", id.Str, task)
	}
	check.Keys(rep, ruleUnknownField, e, "/payload/event", func(k string) bool {
		return k == "kind" || k == "task_id" || slices.Contains(eventKeys[kind], k)
	}, "unknown key %q in a %s event", kind)
	open, isOpen := c.tasks.Get(task)
	var prev string
	var linked bool
	if isOpen {
		prev, linked = openState(open.Flags)
	} else if v, ended := c.closed.Get(task); ended {
		prev, linked = LifecycleKinds[v&(linkedBit-1)], v&linkedBit != 0
	}
	if !linked {
		rep.Reportf(ruleTaskNotLinked, "/payload/task_id", "%s for task %q before its task.stream.linked", pt, task)
	}
	if terminalKind(prev) {
		rep.Reportf(ruleTransition, "/payload/event/kind", "%s after the task already ended (%s)", kind, prev)
	} else if !slices.Contains(next[prev], kind) {
		from := prev
		if from == "" {
			from = "nothing"
		}
		rep.Reportf(ruleTransition, "/payload/event/kind", "%s may not follow %s (legal: %s)", kind, from, strings.Join(next[prev], ", "))
	}
	switch {
	case terminalKind(kind):
		c.tasks.Delete(task)
		c.closed.Add(task, packTask(kind, linked))
	default:
		// open, new, or going on after it ended (reported above)
		c.tasks.Add(task, 0, "")
		c.tasks.SetFlags(task, openFlags(kind, linked))
	}
	switch kind {
	case "proposed":
		if name, ok := strings.CutPrefix(e.Get("task_kind").Str, "tool."); ok {
			c.tools.Add(name, 0)
		}
	case "scheduled", "side_effect_intent":
		if call, ok := strings.CutPrefix(e.Get("idempotency_key").Str, "tool:"); ok && task != "" {
			c.calls.Add(call, 0)
		}
	}
}

func (c *checker) End(last int, report func(dialect.Finding)) {
	if c.Empty(report) {
		return
	}
	if t := c.turns[c.turn]; t != nil && t.terminal == 0 {
		report(ruleTruncated.Finding(last, "", fmt.Sprintf("turn %q ends without run.terminal.*: the stream is truncated", c.turn)))
	}
}
