package claude

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/idset"
	"github.com/evtool/evtool/internal/jsonenc"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/evtool/evtool/internal/openset"
	"github.com/tidwall/gjson"
)

// DecodeError is a known Claude Code field with a value canonical cannot
// hold (a token count written as 1.0, say).
type DecodeError = jsonobj.FieldError

// maxHeld bounds how many lines the decoder holds back at the start of a
// stream while it waits for system/init (hook lines can come first).
const maxHeld = 64

// Decoder reads Claude Code lines into canonical events.
//
// Each line becomes a group of events, in order (a line with several
// content blocks gives one event per block); ext.claude of the group's
// first event holds the line's residue (wire.go), and every event of the
// group but the last carries "@more". Around the group come events no
// source line stands for: before it a synthesised turn_started (Claude Code
// marks no turn start), the round_finished of a model round that ended,
// the tool_call of a call known only by its result; after it the
// tool_started of each tool_use (a tool_use means the call runs) and the
// plan_updated a TodoWrite input states.
//
// Lines that say nothing the canonical vocabulary has a place for
// (protocol lines, stream events other than text and thinking deltas)
// ride, whole, in ext.claude.before of the next event.
//
// The residue's own keys besides those of wire.go:
//
//	@kind   the kind of line ("type" or "system/<subtype>") the event is
//	        written as, when it is not the event's usual one
//	@more   the line has another event after this one
//	@after  on session_started: system/init (and the lines it carries)
//	        came after this many lines
//	before  whole lines to write before this event's own
type Decoder struct {
	jsonobj.OwnLine // a long line is read in place (UseOwn)
	opts            dialect.DecodeOptions
	st              *wireState

	started   bool
	held      []*event.Event
	heldLines int
	firstSID  string // the first session_id seen, for a synthesised session_started

	turns    int
	turn     string            // the open turn, "" between turns
	calls    openset.Set       // open calls, with their names: a closed one leaves for done
	done     idset.Set         // ids of the calls that have their result
	rounds   map[string]*round // open model rounds by thread
	order    []string          // threads with an open round, in opening order
	closed   map[string]string // thread → the message id of its last closed round
	curMsg   map[string]string // thread → message id of the streamed message
	models   map[string]string // thread → the model in force: its messages' last, the main thread's at init
	tasks    map[string]event.TaskKind
	titles   map[string]string // task → its description at task_started
	statuses map[string]event.TaskStatus
	perms    map[string]permInfo
	before   [][]byte
	// verdicts: the caller reads no event (stream.Options.VerdictsOnly),
	// so no residue is derived.
	verdicts bool

	// The start of a turn that no prompt line began (a rate_limit_event or
	// a hook line comes first in CLI 2.1) is held back, with the events
	// after it, until the turn shows its prompt (a user line) or its first
	// model output: turn_started then names the prompt whatever came first.
	waiting *event.TurnStarted
	settled bool // the line being decoded ends the wait
	pending []*event.Event
	waited  int // lines held

	interrupted bool // the open turn has Claude Code's interruption marker

	results int
	last    *event.TurnFinished // the last result's turn_finished
	lastOut json.RawMessage     // its structured_output
	lastErr []string            // its errors
	// proc is what the last result's modelUsage and total_cost_usd say
	// the process spent on every model (subagents' included, which
	// result.usage leaves out), and procBase what earlier processes of
	// the file spent (running totals that went down started anew): the
	// session's usage is their sum (procUsage).
	proc, procBase *event.Usage
}

type call struct {
	name   string
	closed bool
}

type round struct {
	id      string
	agent   string
	usage   event.Usage
	stop    event.StopReason
	toolUse bool
	final   bool // usage is the message_delta's final count, not a snapshot
}

type permInfo struct{ call, tool string }

func newDecoder(opts dialect.DecodeOptions) *Decoder {
	return &Decoder{opts: opts, st: newWireState(), rounds: map[string]*round{},
		closed: map[string]string{}, curMsg: map[string]string{}, models: map[string]string{}, tasks: map[string]event.TaskKind{}, titles: map[string]string{},
		statuses: map[string]event.TaskStatus{}, perms: map[string]permInfo{}}
}

// line is what one source line decodes to.
type line struct {
	d     *Decoder
	n     int
	kind  string
	r     gjson.Result
	pre   []*event.Event // synthesised before the group
	group []*event.Event
	post  []*event.Event
	err   error
}

// usageCounts are the BetaUsage token counts canonical holds as u64.
var usageCounts = []string{"input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"}

// checkNumbers reports a token count canonical cannot hold exactly (a
// fraction, an exponent, a negative or beyond u64) and a negative cost.
// The schema says "integer"; JSON Schema takes 1.0 for one, canonical
// does not.
func checkNumbers(kind string, r gjson.Result) error {
	var usage gjson.Result
	var ptr string
	switch kind {
	case "assistant":
		usage, ptr = r.Get("message.usage"), "/message/usage/"
	case "result":
		usage, ptr = r.Get("usage"), "/usage/"
		if c := r.Get("total_cost_usd"); c.Type == gjson.Number && strings.HasPrefix(c.Raw, "-") && strings.Trim(c.Raw, "-0.eE+") != "" {
			return &DecodeError{Pointer: "/total_cost_usd", Msg: "got " + c.Raw + ", want a cost of 0 or more"}
		}
	default:
		return nil
	}
	if !usage.IsObject() {
		return nil
	}
	for _, k := range usageCounts {
		v := usage.Get(k)
		if !v.Exists() || v.Type == gjson.Null {
			continue
		}
		if _, msg := jsonobj.ParseUint(v, jsonobj.U64); msg != "" {
			return &DecodeError{Pointer: ptr + k, Msg: msg}
		}
	}
	return nil
}

// str reads a string at a gjson path of the line ("" when absent or not a string).
func (l *line) str(path string) string {
	v := l.r.Get(path)
	if v.Type != gjson.String {
		return ""
	}
	return v.Str
}

// Decode implements dialect.Decoder.
func (d *Decoder) Decode(out []*event.Event, raw []byte, n int) ([]*event.Event, error) {
	r := d.ParseLine(raw)
	if !r.IsObject() {
		return out, &DecodeError{Msg: "a Claude Code line must be a JSON object"}
	}
	t := r.Get("type")
	if !t.Exists() {
		return out, &DecodeError{Pointer: "/type", Msg: "missing message type"}
	}
	if t.Type != gjson.String {
		return out, &DecodeError{Pointer: "/type", Msg: "got " + jsonobj.TypeName(t) + ", want a string"}
	}
	if r.Get("type").Str == "system" {
		if s := r.Get("subtype"); s.Type != gjson.String {
			return out, &DecodeError{Pointer: "/subtype", Msg: "got " + jsonobj.TypeName(s) + ", want a string"}
		}
	}
	if d.firstSID == "" {
		d.firstSID = strings.Clone(r.Get("session_id").Str)
	}
	kind, known := kindOf(r)
	if err := checkNumbers(kind, r); err != nil {
		return out, err // before any state changes: the line is kept as unknown
	}
	l := &line{d: d, n: n, kind: kind, r: r}
	rideAlong := false
	if !known {
		l.group = append(l.group, &event.Event{Body: &event.Unknown{Dialect: Name, SourceType: kind, Raw: append(json.RawMessage(nil), raw...)}})
	} else {
		rideAlong = l.decode()
	}
	if l.err != nil {
		return out, l.err
	}
	var evs []*event.Event
	carried := len(d.before)
	if rideAlong {
		d.before = append(d.before, append([]byte(nil), raw...))
		carried = 0
		// A line that rides along may still have begun a turn (a
		// stream_event message_start opens each message with
		// --include-partial-messages): its turn_started is passed on, and
		// the line rides on the next event, after it.
		evs = d.synthesised(l)
	} else {
		evs = d.finish(l, raw)
	}
	if !d.verdicts {
		// The state the residue and a result's own cost are derived with.
		d.st.observe(raw)
	}
	start := len(out)
	out = d.flow(out, l, evs, carried)
	if d.waiting != nil {
		d.pending = append(d.pending, out[start:]...)
		out = out[:start]
		if d.waited++; d.settled || d.waited >= maxHeld {
			out = d.unhold(out)
		}
	}
	d.settled = false
	return out, nil
}

// synthesised gives the events a ride-along line synthesised (its
// turn_started) their turn.
func (d *Decoder) synthesised(l *line) []*event.Event {
	for _, ev := range l.pre {
		if ev.TurnID == "" {
			ev.TurnID = d.turn
		}
	}
	return l.pre
}

// unhold passes on the events held while a turn's prompt was awaited.
func (d *Decoder) unhold(out []*event.Event) []*event.Event {
	out = append(out, d.pending...)
	d.pending, d.waiting, d.waited = nil, nil, 0
	return out
}

// promptOf returns the text of a user line that is a turn's prompt: on
// the main thread (a subagent's prompt has parent_tool_use_id), text
// rather than tool results, and not one Claude Code composed itself
// (isSynthetic).
func promptOf(r gjson.Result) (string, bool) {
	if r.Get("parent_tool_use_id").Type == gjson.String || r.Get("isSynthetic").Type == gjson.True {
		return "", false
	}
	c := r.Get("message.content")
	if strings.Contains(c.Raw, `"tool_result"`) {
		return "", false
	}
	if c.Type != gjson.String && !c.IsArray() {
		return "", false
	}
	return userText(c), true
}

// settles reports whether a line of this kind ends the wait for a turn's
// prompt: the prompt's own line or the turn's first model output (a
// prompt, when Claude Code echoes it, comes before the model is called).
func settles(kind string) bool {
	switch kind {
	case "user", "assistant", "stream_event", "result", "tool_progress", "tool_use_summary":
		return true
	}
	return false
}

// VerdictsOnly makes the decoder derive no residue of its lines (what a
// line holds beyond its events, found by deriving the line back and
// comparing, a quarter of the decoder's time), nor keep the state it is
// derived with: for a caller that reads the lines' verdicts and no
// event, as validate does. Errors are the same: neither has an error
// path. Call it before the first line.
func (d *Decoder) VerdictsOnly() { d.verdicts = true }

// finish gives the line's events their turn, agent and residue.
func (d *Decoder) finish(l *line, raw []byte) []*event.Event {
	all := slices.Concat(l.pre, l.group, l.post)
	for _, ev := range all {
		if ev.TurnID == "" {
			switch ev.Body.(type) {
			case *event.SessionStarted, *event.SessionFinished:
			default:
				ev.TurnID = d.turn
			}
		}
		if d.opts.Provenance && !ev.Synthetic {
			ev.Src = &event.Source{Dialect: Name, Line: l.n, Type: l.kind}
		}
	}
	if _, unknown := l.group[0].Body.(*event.Unknown); !unknown && !d.verdicts {
		var x obj
		if dk := defaultKind(l.group[0]); dk != l.kind {
			x.set(keyKind, jsonStr(l.kind))
		}
		derived := derive(l.kind, l.group, d.st, hints{})
		// The derived line is a buffer of its own: read in place.
		if patch, ok := diff(jsonobj.View(derived.bytes(nil)), l.r); ok {
			jsonobj.ForEach(gjson.ParseBytes(patch), func(k, v gjson.Result) bool {
				x = append(x, kv{k.Str, []byte(v.Raw)})
				return true
			})
		}
		setExt(l.group[0], x)
	}
	for _, ev := range l.group[:len(l.group)-1] {
		addExt(ev, keyMore, []byte("true"))
	}
	if len(d.before) > 0 && len(all) > 0 {
		d.carry(all[0])
	}
	return all
}

// carry puts the lines waiting for a carrier on ev.
func (d *Decoder) carry(ev *event.Event) {
	addExt(ev, "before", array(nil, d.before...))
	d.before = nil
}

func setExt(ev *event.Event, x obj) {
	if len(x) == 0 {
		return
	}
	ev.Ext = event.ExtOf(Name, x.bytes(nil))
}

// addExt adds a key to ev's ext.claude.
func addExt(ev *event.Event, k string, v []byte) {
	var x obj
	if cur := ev.Ext.Get(Name); len(cur) > 0 {
		jsonobj.ForEach(gjson.ParseBytes(cur), func(kk, vv gjson.Result) bool {
			x = append(x, kv{kk.Str, []byte(vv.Raw)})
			return true
		})
	}
	x.set(k, v)
	ev.Ext.Set(Name, x.bytes(nil))
}

// flow passes events on, holding back the start of the stream until
// system/init, so that session_started has the session's facts.
//
// carried is the number of ride-along lines the line's first event
// carries: held lines too, but written with init, just before it.
func (d *Decoder) flow(out []*event.Event, l *line, evs []*event.Event, carried int) []*event.Event {
	if d.started {
		return append(out, evs...)
	}
	if l.kind == "system/init" && len(evs) > 0 {
		if _, ok := evs[0].Body.(*event.SessionStarted); ok {
			ss := evs[0]
			if lines := d.heldLines - carried; lines > 0 {
				addExt(ss, keyAfter, jsonenc.Uint(nil, uint64(lines)))
			}
			d.started = true
			out = append(out, ss)
			out = append(out, d.held...)
			d.held = nil
			return append(out, evs[1:]...)
		}
	}
	d.held = append(d.held, evs...)
	if len(evs) > 0 || l.kind != "" {
		d.heldLines++
	}
	if opensTurn(l.kind) || d.heldLines >= maxHeld {
		return d.release(out)
	}
	return out
}

// release ends the wait for system/init: a session_started is synthesised
// from what the lines said.
func (d *Decoder) release(out []*event.Event) []*event.Event {
	if d.started {
		return out
	}
	d.started = true
	ss := &event.Event{Synthetic: true, Body: &event.SessionStarted{Schema: event.SchemaVersion, Source: event.SourceInfo{Dialect: Name},
		Agent: &event.Agent{Name: agentName}, SessionID: d.firstSID}}
	out = append(out, ss)
	out = append(out, d.held...)
	d.held = nil
	return out
}

// End implements dialect.Decoder. A stream whose last turn ended with a
// result gets a synthesised session_finished from it; a stream with
// activity after its last result (a killed run) stays truncated.
func (d *Decoder) End(out []*event.Event) []*event.Event {
	out = d.release(out)
	out = d.unhold(out)
	var evs []*event.Event
	for _, t := range slices.Clone(d.order) {
		evs = append(evs, d.closeRound(t))
	}
	if d.turn == "" && d.results > 0 {
		f := &event.SessionFinished{Status: d.last.Status, Text: d.last.Text, StructuredOutput: d.lastOut}
		if d.last.Status != event.StatusOK {
			f.Message = d.last.Reason
		}
		if d.lastErr != nil {
			errs := d.lastErr
			f.Errors = &errs
		}
		if u := d.procUsage(); u != nil {
			f.Usage = u
		} else if d.results == 1 && d.last.Usage != nil {
			// One turn and no modelUsage: its result's totals are the
			// run's.
			u := *d.last.Usage
			f.Usage = &u
		}
		evs = append(evs, &event.Event{Synthetic: true, Body: f})
	} else if len(d.before) > 0 {
		evs = append(evs, &event.Event{Synthetic: true, TurnID: d.turn, Body: &event.Notice{Severity: event.SeverityWarning,
			Message: "the Claude Code stream ended without a result; its last protocol lines are kept in ext.claude"}})
	}
	if len(d.before) > 0 && len(evs) > 0 {
		d.carry(evs[len(evs)-1])
	}
	return append(out, evs...)
}

// beginTurn synthesises a turn_started when a turn's line comes between
// turns.
func (l *line) beginTurn(prompt *string) {
	d := l.d
	if d.turn != "" {
		return
	}
	d.turns++
	d.turn = "turn-" + strconv.Itoa(d.turns)
	ts := &event.TurnStarted{Prompt: prompt}
	l.pre = append(l.pre, &event.Event{TurnID: d.turn, Synthetic: true, Body: ts})
	if prompt == nil && !settles(l.kind) {
		d.waiting = ts
	}
}

// thread is the agent a line speaks for: its parent_tool_use_id.
func (l *line) thread() string { return l.str("parent_tool_use_id") }

// closeRound ends a thread's open model round.
func (d *Decoder) closeRound(thread string) *event.Event {
	r := d.rounds[thread]
	delete(d.rounds, thread)
	d.order = slices.DeleteFunc(d.order, func(t string) bool { return t == thread })
	d.closed[r.agent] = r.id
	b := &event.RoundFinished{StopReason: r.stop}
	if b.StopReason == "" && r.toolUse {
		b.StopReason = event.StopToolUse // a model emits tool_use blocks last
	}
	u := r.usage
	b.Usage = &u
	return &event.Event{Synthetic: true, TurnID: d.turn, AgentID: r.agent, Body: b}
}

// decode reads a known line; it reports whether the line only rides
// along.
func (l *line) decode() bool {
	l.settle()
	switch l.kind {
	case "system/init":
		l.init()
	case "assistant":
		l.assistant()
	case "user":
		l.user()
	case "result":
		l.result()
	case "stream_event":
		return l.streamEvent()
	case "control_request":
		return l.controlRequest()
	case "control_response":
		return l.controlResponse()
	case "tool_progress":
		l.toolProgress()
	case "rate_limit_event":
		l.rateLimit()
	case "auth_status":
		l.authStatus()
	case "tool_use_summary":
		l.notice(event.SeverityInfo, l.str("summary"))
	case "prompt_suggestion":
		l.notice(event.SeverityInfo, "suggested prompt: "+l.str("suggestion"))
	case "conversation_reset":
		l.notice(event.SeverityInfo, "conversation reset; new conversation "+l.str("new_conversation_id"))
	default:
		return l.system()
	}
	return false
}

// settle does what a line does to the turn before its own events: a
// user line between turns may be the next turn's prompt, it or the first
// model output ends the wait for a held turn's prompt, and a turn's line
// between turns begins one.
func (l *line) settle() {
	d := l.d
	var prompt *string
	if l.kind == "user" && (d.turn == "" || d.waiting != nil) {
		if p, ok := promptOf(l.r); ok && p != "" {
			prompt = &p
		}
	}
	if d.waiting != nil && settles(l.kind) {
		d.waiting.Prompt, d.settled = prompt, true
	}
	if opensTurn(l.kind) && l.kind != "result" {
		l.beginTurn(prompt)
	}
}

// notice adds a notice to the line's events.
func (l *line) notice(sev event.Severity, msg string) {
	l.group = append(l.group, &event.Event{Body: &event.Notice{Severity: sev, Message: msg}})
}
