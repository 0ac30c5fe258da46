package claude

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/jsonenc"
	"github.com/evtool/evtool/internal/jsonobj"
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
	opts dialect.DecodeOptions
	st   *wireState

	started   bool
	held      []*event.Event
	heldLines int
	firstSID  string // the first session_id seen, for a synthesised session_started

	turns    int
	turn     string // the open turn, "" between turns
	calls    map[string]*call
	rounds   map[string]*round // open model rounds by thread
	order    []string          // threads with an open round, in opening order
	closed   map[string]string // thread → the message id of its last closed round
	curMsg   map[string]string // thread → message id of the streamed message
	tasks    map[string]event.TaskKind
	titles   map[string]string // task → its description at task_started
	statuses map[string]event.TaskStatus
	perms    map[string]permInfo
	before   [][]byte

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
}

type permInfo struct{ call, tool string }

func newDecoder(opts dialect.DecodeOptions) *Decoder {
	return &Decoder{opts: opts, st: newWireState(), calls: map[string]*call{}, rounds: map[string]*round{},
		closed: map[string]string{}, curMsg: map[string]string{}, tasks: map[string]event.TaskKind{}, titles: map[string]string{},
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

// u64 reads a count (nil when absent, null or not a count; checkNumbers
// reported that already).
func (l *line) u64(v gjson.Result, _ string) *uint64 {
	if !v.Exists() || v.Type == gjson.Null {
		return nil
	}
	n, msg := jsonobj.ParseUint(v, jsonobj.U64)
	if msg != "" {
		return nil
	}
	return &n
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

// optU64 reads a JavaScript number that is a count only when it is a
// non-negative integer literal (a delay may be fractional): nil otherwise.
func optU64(v gjson.Result) *uint64 {
	if v.Type != gjson.Number {
		return nil
	}
	n, msg := jsonobj.ParseUint(v, jsonobj.U64)
	if msg != "" {
		return nil
	}
	return &n
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
	r := gjson.ParseBytes(raw)
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
		d.firstSID = r.Get("session_id").Str
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
	d.st.observe(raw)
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

// interruptMarker begins the text Claude Code puts into the conversation
// when the user interrupts a turn: "[Request interrupted by user]", or
// "[Request interrupted by user for tool use]" as a tool_result.
const interruptMarker = "[Request interrupted by user"

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
	if _, unknown := l.group[0].Body.(*event.Unknown); !unknown {
		var x obj
		if dk := defaultKind(l.group[0]); dk != l.kind {
			x.set(keyKind, jsonStr(l.kind))
		}
		derived := derive(l.kind, l.group, d.st, hints{})
		if patch, ok := diff(gjson.ParseBytes(derived.bytes(nil)), l.r); ok {
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
	d.closed[thread] = r.id
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
	notice := func(sev event.Severity, msg string) {
		l.group = append(l.group, &event.Event{Body: &event.Notice{Severity: sev, Message: msg}})
	}
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
	case "rate_limit_event":
		info := l.r.Get("rate_limit_info")
		status := info.Get("status").Str
		sev, ok := rateLimitSeverities[status]
		if !ok {
			sev = event.SeverityInfo
		}
		msg := "rate limit " + status
		if t := info.Get("rateLimitType").Str; t != "" {
			msg += " (" + t + ")"
		}
		if v := info.Get("utilization"); v.Type == gjson.Number {
			msg += ", utilization " + v.Raw
		}
		notice(sev, msg)
	case "tool_progress":
		id, name := l.str("tool_use_id"), l.str("tool_name")
		c := l.knownCall(id, name)
		msg := name + " running"
		if v := l.r.Get("elapsed_time_seconds"); v.Type == gjson.Number {
			msg += " for " + v.Raw + " s"
		}
		if c.closed {
			notice(event.SeverityInfo, msg+" (after its result)")
			break
		}
		l.group = append(l.group, &event.Event{AgentID: l.thread(), Body: &event.ToolProgress{CallID: id, Name: name, Message: msg}})
	case "tool_use_summary":
		notice(event.SeverityInfo, l.str("summary"))
	case "auth_status":
		msg, sev := "authenticating", event.SeverityInfo
		var lines []string
		jsonobj.ForEach(l.r.Get("output"), func(_, v gjson.Result) bool {
			lines = append(lines, v.Str)
			return true
		})
		if len(lines) > 0 {
			msg = strings.Join(lines, "\n")
		}
		if e := l.str("error"); e != "" {
			msg, sev = e, event.SeverityError
		}
		notice(sev, msg)
	case "prompt_suggestion":
		notice(event.SeverityInfo, "suggested prompt: "+l.str("suggestion"))
	case "conversation_reset":
		notice(event.SeverityInfo, "conversation reset; new conversation "+l.str("new_conversation_id"))
	case "system/thinking_tokens":
		notice(event.SeverityInfo, "thinking, about "+l.r.Get("estimated_tokens").Raw+" tokens so far")
	case "system/compact_boundary":
		l.group = append(l.group, &event.Event{Body: &event.CompactionFinished{}})
	case "system/status":
		switch {
		case l.str("status") == "compacting":
			l.group = append(l.group, &event.Event{Body: &event.CompactionStarted{}})
		case l.str("compact_result") == "failed":
			notice(event.SeverityWarning, "compaction failed: "+l.str("compact_error"))
		default:
			s := l.str("status")
			if s == "" {
				s = "idle"
			}
			notice(event.SeverityInfo, "status: "+s)
		}
	case "system/api_retry":
		b := &event.Retry{Error: l.str("error"), Attempt: optU64(l.r.Get("attempt")), MaxAttempts: optU64(l.r.Get("max_retries")),
			NextDelayMS: optU64(l.r.Get("retry_delay_ms"))}
		if s := l.r.Get("error_status"); s.Type == gjson.Number {
			b.Error += " (HTTP " + s.Raw + ")"
		}
		l.group = append(l.group, &event.Event{Body: b})
	case "system/model_refusal_fallback", "system/model_refusal_no_fallback":
		msg := "the model refused"
		if f := l.str("fallback_model"); f != "" {
			msg += "; falling back to " + f
		}
		if c := l.str("content"); c != "" {
			msg += ": " + c
		}
		notice(event.SeverityWarning, msg)
	case "system/task_started", "system/task_progress", "system/task_updated", "system/task_notification":
		l.task()
	case "system/background_tasks_changed":
		jsonobj.ForEach(l.r.Get("tasks"), func(_, t gjson.Result) bool {
			id := t.Get("task_id").Str
			k := taskKind(t.Get("task_type").Str, t.Get("subagent_type").Str)
			d.tasks[id] = k
			l.group = append(l.group, &event.Event{Body: &event.TaskUpdated{TaskID: id, Kind: k, Status: d.taskStatus(id, event.TaskRunning),
				Title: t.Get("description").Str, ParentTaskID: t.Get("parent_task_id").Str}})
			return true
		})
		if len(l.group) == 0 {
			notice(event.SeverityInfo, "no background tasks")
		}
	case "system/hook_started", "system/hook_progress", "system/hook_response":
		sev := event.SeverityInfo
		what := strings.TrimPrefix(l.kind, "system/hook_")
		if o := l.str("outcome"); o != "" {
			what = o
			if o != "success" {
				sev = event.SeverityWarning
			}
		}
		notice(sev, "hook "+l.str("hook_event")+" "+l.str("hook_name")+": "+what)
	case "system/permission_denied":
		l.group = append(l.group, &event.Event{Body: &event.PermissionResolved{CallID: l.str("tool_use_id"), Tool: l.str("tool_name"), Outcome: event.Denied}})
	case "system/informational":
		sev, ok := levels[l.str("level")]
		if !ok {
			sev = event.SeverityInfo
		}
		notice(sev, l.str("content"))
	case "system/notification":
		sev := event.SeverityInfo
		if p := l.str("priority"); p == "high" || p == "immediate" {
			sev = event.SeverityWarning
		}
		notice(sev, l.str("text"))
	case "system/local_command_output":
		notice(event.SeverityInfo, l.str("content"))
	case "system/post_turn_summary":
		notice(event.SeverityInfo, cmp.Or(l.str("status_detail"), l.str("status_category"), "turn summary"))
	case "system/task_summary":
		notice(event.SeverityInfo, cmp.Or(l.str("detail"), "task summary"))
	case "system/plugin_install":
		sev := event.SeverityInfo
		if l.str("status") == "failed" {
			sev = event.SeverityWarning
		}
		notice(sev, "plugin "+l.str("name")+": "+l.str("status"))
	case "system/files_persisted":
		notice(event.SeverityInfo, fmt.Sprintf("files persisted: %d, failed: %d", len(l.r.Get("files").Array()), len(l.r.Get("failed").Array())))
	case "system/memory_recall":
		notice(event.SeverityInfo, fmt.Sprintf("memory recall (%s): %d memories", l.str("mode"), len(l.r.Get("memories").Array())))
	case "system/elicitation_complete":
		notice(event.SeverityInfo, "MCP elicitation complete: "+l.str("mcp_server_name"))
	case "system/worker_shutting_down":
		notice(event.SeverityWarning, "worker shutting down: "+l.str("reason"))
	case "system/mirror_error":
		notice(event.SeverityWarning, "mirror error: "+l.str("error"))
	case "system/session_writes_lost":
		notice(event.SeverityError, "session writes lost: "+l.str("error_code"))
	case "control_request":
		if l.str("request.subtype") != "can_use_tool" {
			return true
		}
		req := l.r.Get("request")
		b := &event.PermissionRequested{RequestID: l.str("request_id"), CallID: req.Get("tool_use_id").Str, Tool: req.Get("tool_name").Str}
		for _, k := range []string{"title", "description", "display_name"} {
			if v := req.Get(k); v.Type == gjson.String && v.Str != "" {
				b.Description = v.Str
				break
			}
		}
		if in := req.Get("input"); in.Exists() {
			b.Preview = compact(in.Raw)
		}
		d.perms[b.RequestID] = permInfo{call: b.CallID, tool: b.Tool}
		l.group = append(l.group, &event.Event{Body: b})
	case "control_response":
		id := l.str("response.request_id")
		p, ok := d.perms[id]
		if !ok {
			return true
		}
		delete(d.perms, id)
		outcome := event.Denied
		if l.str("response.subtype") == "success" && l.str("response.response.behavior") == "allow" {
			outcome = event.Allowed
		}
		l.group = append(l.group, &event.Event{Body: &event.PermissionResolved{RequestID: id, CallID: p.call, Tool: p.tool, Outcome: outcome}})
	default:
		// Protocol and bookkeeping lines: keep_alive, control_cancel_request,
		// active_goal, autocompact_state, system/session_state_changed,
		// system/control_request_progress, system/commands_changed.
		return true
	}
	return false
}

func (l *line) init() {
	d := l.d
	model := l.str("model")
	if d.started {
		// A later init (streaming input starts each turn with one).
		l.group = append(l.group, &event.Event{Body: &event.ModelConfigured{Model: model}})
		return
	}
	s := &event.SessionStarted{Schema: event.SchemaVersion, Source: event.SourceInfo{Dialect: Name}, Agent: &event.Agent{Name: agentName},
		SessionID: l.str("session_id"), Workspace: l.str("cwd"), Model: model}
	s.Agent.Version = l.str("claude_code_version")
	jsonobj.ForEach(l.r.Get("mcp_servers"), func(_, v gjson.Result) bool {
		if n := v.Get("name"); n.Type == gjson.String {
			s.MCPServers = append(s.MCPServers, n.Str)
		}
		return true
	})
	jsonobj.ForEach(l.r.Get("slash_commands"), func(_, v gjson.Result) bool {
		if v.Type == gjson.String {
			s.Commands = append(s.Commands, event.Command{Name: v.Str})
		}
		return true
	})
	jsonobj.ForEach(l.r.Get("skills"), func(_, v gjson.Result) bool {
		if v.Type == gjson.String {
			s.Skills = append(s.Skills, event.Skill{Name: v.Str})
		}
		return true
	})
	l.group = append(l.group, &event.Event{Body: s})
}

// knownCall returns the call of an id, synthesising its tool_call when the
// id is new (a result or progress line for a call the stream never showed).
func (l *line) knownCall(id, name string) *call {
	c := l.d.calls[id]
	if c == nil {
		c = &call{name: name}
		l.d.calls[strings.Clone(id)] = c
		l.pre = append(l.pre, &event.Event{Synthetic: true, AgentID: l.thread(), Body: &event.ToolCall{CallID: id, Name: name, Kind: kindIfNamed(name)}})
	}
	return c
}

func kindIfNamed(name string) event.ToolKind {
	if name == "" {
		return ""
	}
	return toolKind(name)
}

func (l *line) assistant() {
	d := l.d
	agent := l.thread()
	m := l.r.Get("message")
	id := m.Get("id").Str
	if r := d.rounds[agent]; r != nil && r.id != id {
		l.pre = append(l.pre, d.closeRound(agent))
	}
	r := d.rounds[agent]
	if r == nil && d.closed[agent] != id {
		r = &round{id: id, agent: agent}
		d.rounds[agent] = r
		d.order = append(d.order, agent)
	}
	if r != nil {
		u := m.Get("usage")
		r.usage = event.Usage{
			InputTokens:         l.u64(u.Get("input_tokens"), "/message/usage/input_tokens"),
			OutputTokens:        l.u64(u.Get("output_tokens"), "/message/usage/output_tokens"),
			CacheReadTokens:     l.u64(u.Get("cache_read_input_tokens"), "/message/usage/cache_read_input_tokens"),
			CacheCreationTokens: l.u64(u.Get("cache_creation_input_tokens"), "/message/usage/cache_creation_input_tokens"),
		}
		if s := m.Get("stop_reason"); s.Type == gjson.String {
			if w, ok := stopReasons[s.Str]; ok {
				r.stop = w
			} else {
				r.stop = event.StopOther
			}
		}
	}
	i := 0
	jsonobj.ForEach(m.Get("content"), func(_, b gjson.Result) bool {
		switch b.Get("type").Str {
		case "text":
			l.group = append(l.group, &event.Event{AgentID: agent, Body: &event.Message{Text: b.Get("text").Str, MessageID: id}})
		case "thinking":
			l.group = append(l.group, &event.Event{AgentID: agent, Body: &event.Reasoning{Text: b.Get("thinking").Str}})
		case "redacted_thinking":
			l.group = append(l.group, &event.Event{AgentID: agent, Body: &event.Reasoning{Text: ""}})
		case "tool_use":
			l.toolUse(b, agent, i, r)
		}
		i++
		return true
	})
	if e := l.r.Get("error"); e.Type == gjson.String {
		l.group = append(l.group, &event.Event{AgentID: agent, Body: &event.Error{Message: e.Str}})
	}
	if len(l.group) == 0 {
		l.group = append(l.group, &event.Event{AgentID: agent, Body: &event.Message{Text: "", MessageID: id}})
	}
	l.stamp()
}

// stamp gives the line's events its timestamp (user lines, and assistant
// lines since CLI 2.1.226), as canonical time.
func (l *line) stamp() {
	if t, ok := canonicalTime(l.str("timestamp")); ok {
		for _, ev := range l.group {
			ev.Time = t
		}
	}
}

func (l *line) toolUse(b gjson.Result, agent string, i int, r *round) {
	d := l.d
	id, name := b.Get("id").Str, b.Get("name").Str
	if r != nil {
		r.toolUse = true
	}
	if c := d.calls[id]; c != nil {
		l.group = append(l.group, &event.Event{AgentID: agent, Body: &event.Notice{Severity: event.SeverityWarning,
			Message: "tool_use " + id + " repeated"}})
		return
	}
	d.calls[strings.Clone(id)] = &call{name: name}
	input := compact(b.Get("input").Raw)
	c := &event.ToolCall{CallID: id, Name: name, Kind: toolKind(name), Input: input}
	in := gjson.ParseBytes(input)
	for _, k := range titleKeys {
		if v := in.Get(k); v.Type == gjson.String && v.Str != "" {
			c.Title = firstLine(v.Str)
			break
		}
	}
	l.group = append(l.group, &event.Event{AgentID: agent, Body: c})
	l.post = append(l.post, &event.Event{AgentID: agent, Body: &event.ToolStarted{CallID: id, Name: name}})
	if isTodoWrite(name) {
		if p := plan(in); p != nil {
			l.post = append(l.post, &event.Event{AgentID: agent, Synthetic: true, Body: p})
		}
	}
	_ = i
}

// plan reads TodoWrite's input.todos as a checklist snapshot.
func plan(in gjson.Result) *event.PlanUpdated {
	todos := in.Get("todos")
	if !todos.IsArray() {
		return nil
	}
	p := &event.PlanUpdated{Entries: []event.PlanEntry{}}
	var done uint64
	jsonobj.ForEach(todos, func(_, t gjson.Result) bool {
		e := event.PlanEntry{ID: t.Get("id").Str, Content: t.Get("content").Str, Status: t.Get("status").Str,
			ActiveForm: t.Get("activeForm").Str, Priority: t.Get("priority").Str}
		if e.Status == "completed" {
			done++
		}
		p.Entries = append(p.Entries, e)
		return true
	})
	total := uint64(len(p.Entries))
	p.Completed, p.Total = &done, &total
	return p
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 200 {
		s = s[:200]
		for len(s) > 0 && s[len(s)-1]&0xC0 == 0x80 {
			s = s[:len(s)-1]
		}
		if len(s) > 0 && s[len(s)-1] >= 0xC0 {
			s = s[:len(s)-1]
		}
	}
	return s
}

// compact returns raw JSON without white space between tokens, as
// canonical writes it.
func compact(raw string) json.RawMessage {
	if raw == "" {
		return nil
	}
	var b strings.Builder
	b.Grow(len(raw))
	in := false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if in {
			b.WriteByte(c)
			if c == '\\' && i+1 < len(raw) {
				i++
				b.WriteByte(raw[i])
			} else if c == '"' {
				in = false
			}
			continue
		}
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		case '"':
			in = true
		}
		b.WriteByte(c)
	}
	return json.RawMessage(b.String())
}

// userText is the text of a user message's content: a string, or its
// text blocks joined by newlines.
func userText(c gjson.Result) string {
	if c.Type == gjson.String {
		return c.Str
	}
	var parts []string
	jsonobj.ForEach(c, func(_, b gjson.Result) bool {
		if b.Get("type").Str == "text" {
			parts = append(parts, b.Get("text").Str)
		}
		return true
	})
	return strings.Join(parts, "\n")
}

func (l *line) user() {
	d := l.d
	agent := l.thread()
	content := l.r.Get("message.content")
	if agent == "" && strings.Contains(content.Raw, interruptMarker) {
		d.interrupted = true
	}
	if d.rounds[agent] != nil && strings.Contains(content.Raw, `"tool_result"`) {
		// Tool results answer the thread's last model call: that round is over.
		l.pre = append(l.pre, d.closeRound(agent))
	}
	if content.Type == gjson.String {
		l.group = append(l.group, &event.Event{AgentID: agent, Body: &event.UserMessage{Text: content.Str}})
	}
	jsonobj.ForEach(content, func(_, b gjson.Result) bool {
		switch b.Get("type").Str {
		case "text":
			l.group = append(l.group, &event.Event{AgentID: agent, Body: &event.UserMessage{Text: b.Get("text").Str}})
		case "image":
			one := uint64(1)
			l.group = append(l.group, &event.Event{AgentID: agent, Body: &event.UserMessage{Text: "", ImageCount: &one}})
		case "tool_result":
			id := b.Get("tool_use_id").Str
			if d.rounds[id] != nil {
				// The subagent this call ran has answered: its last round is over.
				l.pre = append(l.pre, d.closeRound(id))
			}
			c := l.knownCall(id, "")
			if c.closed {
				l.group = append(l.group, &event.Event{AgentID: agent, Body: &event.Notice{Severity: event.SeverityWarning,
					Message: "a second tool_result for " + id}})
				break
			}
			c.closed = true
			f := &event.ToolFinished{CallID: id, Name: c.name, Status: event.ToolSuccess}
			if b.Get("is_error").Type == gjson.True {
				f.Status = event.ToolError
			}
			out := userText(b.Get("content"))
			f.Output = &out
			l.group = append(l.group, &event.Event{AgentID: agent, Body: f})
		}
		return true
	})
	if len(l.group) == 0 {
		l.group = append(l.group, &event.Event{AgentID: agent, Body: &event.UserMessage{Text: ""}})
	}
	l.stamp()
}

func (l *line) streamEvent() bool {
	agent := l.thread()
	e := l.r.Get("event")
	switch e.Get("type").Str {
	case "message_start":
		l.d.curMsg[agent] = e.Get("message.id").Str
	case "content_block_delta":
		switch e.Get("delta.type").Str {
		case "text_delta":
			l.group = append(l.group, &event.Event{AgentID: agent, Body: &event.MessageDelta{Text: e.Get("delta.text").Str, MessageID: l.d.curMsg[agent]}})
			return false
		case "thinking_delta":
			l.group = append(l.group, &event.Event{AgentID: agent, Body: &event.ReasoningDelta{Text: e.Get("delta.thinking").Str}})
			return false
		}
	}
	return true
}

func (l *line) result() {
	d := l.d
	for _, t := range slices.Clone(d.order) {
		l.pre = append(l.pre, d.closeRound(t))
	}
	l.beginTurn(nil)
	b := &event.TurnFinished{Status: event.StatusOK}
	sub := l.str("subtype")
	if sub != "success" || l.r.Get("is_error").Type == gjson.True {
		b.Status = event.StatusError
	}
	if tr := l.str("terminal_reason"); tr == "aborted_streaming" || tr == "aborted_tools" {
		b.Status = event.StatusCancelled
	} else if d.interrupted && tr == "" && b.Status == event.StatusError && sub == "error_during_execution" {
		// A CLI without terminal_reason: the user's interrupt shows only as
		// the marker Claude Code writes into the conversation.
		b.Status = event.StatusCancelled
	}
	d.interrupted = false
	if s := l.r.Get("stop_reason"); s.Type == gjson.String {
		if w, ok := stopReasons[s.Str]; ok {
			b.StopReason = w
		} else {
			b.StopReason = event.StopOther
		}
	} else if sub == "error_max_turns" {
		b.StopReason = event.StopMaxTurnRequests
	} else if b.Status == event.StatusCancelled {
		b.StopReason = event.StopCancelled
	}
	if v := l.r.Get("result"); v.Type == gjson.String {
		s := v.Str
		b.Text = &s
	}
	var errs []string
	if v := l.r.Get("errors"); v.IsArray() {
		errs = []string{}
		jsonobj.ForEach(v, func(_, e gjson.Result) bool {
			errs = append(errs, e.Str)
			return true
		})
		b.Reason = strings.Join(errs, "; ")
	}
	u := l.r.Get("usage")
	b.Usage = &event.Usage{
		InputTokens:         l.u64(u.Get("input_tokens"), "/usage/input_tokens"),
		OutputTokens:        l.u64(u.Get("output_tokens"), "/usage/output_tokens"),
		CacheReadTokens:     l.u64(u.Get("cache_read_input_tokens"), "/usage/cache_read_input_tokens"),
		CacheCreationTokens: l.u64(u.Get("cache_creation_input_tokens"), "/usage/cache_creation_input_tokens"),
	}
	if c := l.r.Get("total_cost_usd"); c.Type == gjson.Number {
		// A running total for the process: the turn's own cost is what it
		// adds to the previous result's (cost.go).
		b.Usage.CostUSD = json.Number(turnCost(c.Raw, d.st.cost))
	}
	if *b.Usage == (event.Usage{}) {
		b.Usage = nil
	}
	d.modelUsage(l.r)
	ev := &event.Event{TurnID: d.turn, Body: b}
	l.group = append(l.group, ev)
	d.results++
	d.last, d.lastErr = b, errs
	d.lastOut = nil
	if v := l.r.Get("structured_output"); v.Exists() && v.Type != gjson.Null {
		d.lastOut = compact(v.Raw)
	}
	d.turn = ""
}

// taskStatus returns a task's status, or its last known one (else def)
// when the line does not say.
func (d *Decoder) taskStatus(id string, s event.TaskStatus) event.TaskStatus {
	if s == "" {
		if s = d.statuses[id]; s == "" {
			s = event.TaskRunning
		}
	}
	d.statuses[strings.Clone(id)] = s
	return s
}

func (l *line) task() {
	d := l.d
	id := l.str("task_id")
	b := &event.TaskUpdated{TaskID: id}
	switch l.kind {
	case "system/task_started":
		b.Kind = taskKind(l.str("task_type"), l.str("subagent_type"))
		d.tasks[strings.Clone(id)] = b.Kind
		b.Status = d.taskStatus(id, event.TaskRunning)
		b.Title, b.Detail, b.ParentTaskID = l.str("description"), l.str("prompt"), l.str("parent_task_id")
	case "system/task_progress":
		b.Status = d.taskStatus(id, event.TaskRunning)
		b.Title = l.str("description")
		if s := l.str("summary"); s != "" {
			b.Detail = s
		} else if t := l.str("last_tool_name"); t != "" {
			b.Detail = "last tool: " + t
		}
	case "system/task_updated":
		var s event.TaskStatus
		if w := l.str("patch.status"); w != "" {
			if s = taskStatuses[w]; s == "" {
				s = event.TaskRunning
			}
		}
		b.Status = d.taskStatus(id, s)
		b.Title, b.Reason = l.str("patch.description"), l.str("patch.error")
	case "system/task_notification":
		s := notificationStatuses[l.str("status")]
		if s == "" {
			s = event.TaskCompleted
		}
		b.Status = d.taskStatus(id, s)
		b.Title, b.Detail, b.Reason = l.str("summary"), l.str("output_file"), l.str("reason")
	}
	if b.Kind == "" {
		b.Kind = d.tasks[id]
	}
	if b.Title == "" {
		b.Title = d.titles[id] // what the task is, as its start said
	} else if l.kind == "system/task_started" {
		d.titles[strings.Clone(id)] = b.Title
	}
	l.group = append(l.group, &event.Event{Body: b})
}
