package opencodestorage

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/evtool/evtool/adapters/internal/opencodewire"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/jsonenc"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/evtool/evtool/internal/usagesum"
	"github.com/tidwall/gjson"
)

// DecodeError is a known field with a value the canonical model cannot
// hold: its Position is the value's JSON pointer, its message says what
// was found and what is wanted.
type DecodeError = jsonobj.FieldError

// Decoder reads the lines of one stored session into canonical events.
//
// A user message begins a turn: turn_started (its prompt the message's
// first text part that is neither synthetic nor ignored) and a
// user_message for each text part. An assistant message is one model
// round: its text, reasoning and tool parts become message, reasoning and
// tool events as they come, and when the message ends (at the next
// message, or at the end of the stream) its error, if any, and a
// round_finished with the message's tokens and cost. Those message-level
// tokens are the only usage read: step-finish parts state the same tokens
// per step and are kept whole in the residue, never counted. A turn ends
// at the next user message, or at the end of the stream when its last
// assistant message completed or failed; then the session ends too, with
// the sum of every message's usage. A session whose last message has not
// ended (opencode still running, or stopped in the middle) has no
// session_finished: it is truncated.
//
// The decoder keeps the open message, the held events of a user message
// whose prompt has not come yet (bounded by one message), the calls of
// the open turn that have not ended, and sums: nothing grows with the
// length of the session.
type Decoder struct {
	opts    dialect.DecodeOptions
	err     *DecodeError // the line's first field error
	started bool
	session string // the session's id
	turns   int
	turn    string   // the open turn, "" between turns
	pending *pending // a user message whose turn_started waits for its prompt
	msg     *message // the open message
	last    *message // the open turn's last assistant message
	final   *message // the last assistant message of the last turn that ended
	calls   map[string]openCall
	before  [][]byte // lines waiting for the next event
	model   string   // the last provider/model stated
	compact bool     // a compaction began and its summary has not ended
	turnSum usagesum.Tally
	runSum  usagesum.Tally
}

// pending is a user message whose turn has begun but whose turn_started
// is held until its prompt is known: its events wait behind it.
type pending struct {
	line   int
	time   string
	ext    json.RawMessage
	prompt *string
	held   []*event.Event
	model  *event.Event // a model_configured to put after turn_started
}

// message is the open message.
type message struct {
	id        string
	assistant bool
	line      int
	time      string // when it completed
	ended     bool   // it completed or failed
	usage     *event.Usage
	stop      event.StopReason
	errMsg    string
	errName   string
	summary   bool
	ext       json.RawMessage
	raw       []byte // the message's line, kept while it has not ended
}

// openCall is a tool call of the open turn that has not ended.
type openCall struct {
	name  string
	state string
}

func newDecoder(opts dialect.DecodeOptions) *Decoder {
	return &Decoder{opts: opts, calls: map[string]openCall{}}
}

func (d *Decoder) fail(ptr, format string, args ...any) {
	if d.err == nil {
		d.err = &DecodeError{Pointer: ptr, Msg: "got " + fmt.Sprintf(format, args...)}
	}
}

// Decode implements dialect.Decoder.
func (d *Decoder) Decode(out []*event.Event, line []byte, n int) ([]*event.Event, error) {
	r := gjson.ParseBytes(line)
	if !r.IsObject() {
		return out, &DecodeError{Msg: "got " + jsonobj.TypeName(r) + ", want an object"}
	}
	d.err = nil
	t := r.Get("type")
	switch {
	case !t.Exists():
		return out, &DecodeError{Pointer: "/type", Msg: "got nothing, want a line type (session, message, part or todo)"}
	case t.Type != gjson.String:
		return out, &DecodeError{Pointer: "/type", Msg: "got " + jsonobj.TypeName(t) + ", want a string"}
	}
	for _, k := range []string{"id", "sessionID", "messageID"} {
		if v := r.Get(k); v.Exists() && v.Type != gjson.String {
			return out, &DecodeError{Pointer: "/" + k, Msg: "got " + jsonobj.TypeName(v) + ", want a string"}
		}
	}
	data := r.Get("data")
	if lineTypes[t.Str] {
		want, isObj := "an object", data.IsObject()
		if t.Str == "todo" {
			want, isObj = "an array", data.IsArray()
		}
		if !isObj {
			return out, &DecodeError{Pointer: "/data", Msg: "got " + jsonobj.TypeName(data) + ", want " + want}
		}
	}
	// Check the line whole before any event is made of it, so that a bad
	// line changes nothing.
	d.check(t.Str, data)
	if d.err != nil {
		return out, d.err
	}
	switch t.Str {
	case "session":
		return d.sessionLine(out, r, data, line, n), nil
	case "message":
		return d.messageLine(out, r, data, line, n), nil
	case "part":
		return d.partLine(out, r, data, line, n), nil
	case "todo":
		return d.todoLine(out, data, n), nil
	}
	return d.push(out, n, t.Str, unknown(t.Str, line)), nil
}

// check reads the known fields of a line's data for values the canonical
// model cannot hold, recording the first in d.err.
func (d *Decoder) check(typ string, data gjson.Result) {
	switch typ {
	case "session":
		d.strAt(data, "/data", "directory")
		d.strAt(data, "/data", "version")
		d.strAt(data, "/data", "title")
		if m := data.Get("model"); m.IsObject() {
			d.strAt(m, "/data/model", "id")
			d.strAt(m, "/data/model", "providerID")
		}
		d.millisAt(data.Get("time.created"), "/data/time/created")
		d.millisAt(data.Get("time_created"), "/data/time_created")
	case "message":
		role := data.Get("role")
		if role.Exists() && role.Type != gjson.String {
			d.fail("/data/role", "%s, want a string", jsonobj.TypeName(role))
		}
		d.millisAt(data.Get("time.created"), "/data/time/created")
		d.millisAt(data.Get("time.completed"), "/data/time/completed")
		for _, k := range []string{"modelID", "providerID", "finish"} {
			d.strAt(data, "/data", k)
		}
		if m := data.Get("model"); m.IsObject() {
			d.strAt(m, "/data/model", "modelID")
			d.strAt(m, "/data/model", "providerID")
		}
		if role.Str == "assistant" {
			d.usage(data, "/data")
		}
	case "part":
		d.checkPart(data)
	case "todo":
		i := 0
		data.ForEach(func(_, e gjson.Result) bool {
			ptr := "/data/" + strconv.Itoa(i)
			if !e.IsObject() {
				d.fail(ptr, "%s, want an object", jsonobj.TypeName(e))
			}
			for _, k := range []string{"content", "status", "priority", "id"} {
				d.strAt(e, ptr, k)
			}
			i++
			return true
		})
	}
}

func (d *Decoder) checkPart(data gjson.Result) {
	pt := data.Get("type")
	if pt.Type != gjson.String {
		d.fail("/data/type", "%s, want a part type (a string)", jsonobj.TypeName(pt))
		return
	}
	switch pt.Str {
	case "text", "reasoning":
		if v := data.Get("text"); v.Type != gjson.String {
			d.fail("/data/text", "%s, want a string", jsonobj.TypeName(v))
		}
		d.millisAt(data.Get("time.start"), "/data/time/start")
		d.millisAt(data.Get("time.end"), "/data/time/end")
	case "tool":
		d.strAt(data, "/data", "tool")
		st := data.Get("state")
		if !st.IsObject() {
			d.fail("/data/state", "%s, want an object", jsonobj.TypeName(st))
			return
		}
		if s := st.Get("status"); s.Type != gjson.String {
			d.fail("/data/state/status", "%s, want a string", jsonobj.TypeName(s))
		}
		for _, k := range []string{"output", "error", "title"} {
			d.strAt(st, "/data/state", k)
		}
		d.millisAt(st.Get("time.start"), "/data/state/time/start")
		d.millisAt(st.Get("time.end"), "/data/state/time/end")
		if x := st.Get("metadata.exit"); x.Type == gjson.Number && data.Get("tool").Str == "bash" {
			if _, msg := jsonobj.ParseInt(x, jsonobj.I64); msg != "" {
				d.err = &DecodeError{Pointer: "/data/state/metadata/exit", Msg: msg}
			}
		}
	case "subtask":
		for _, k := range []string{"prompt", "description", "agent"} {
			d.strAt(data, "/data", k)
		}
	case "agent":
		d.strAt(data, "/data", "name")
	case "retry":
		if a := data.Get("attempt"); a.Exists() {
			if _, msg := jsonobj.ParseUint(a, jsonobj.U64); msg != "" && d.err == nil {
				d.err = &DecodeError{Pointer: "/data/attempt", Msg: msg}
			}
		}
		d.millisAt(data.Get("time.created"), "/data/time/created")
	case "step-finish":
		d.usage(data, "/data")
	}
}

// strAt checks that key k of obj, if present, is a string.
func (d *Decoder) strAt(obj gjson.Result, ptr, k string) {
	if v := jsonobj.Lookup(obj, k); v.Exists() && v.Type != gjson.String {
		d.fail(ptr+"/"+k, "%s, want a string", jsonobj.TypeName(v))
	}
}

// millisAt reads an epoch-milliseconds integer as an RFC 3339 time; ""
// when absent.
func (d *Decoder) millisAt(v gjson.Result, ptr string) string {
	if !v.Exists() {
		return ""
	}
	t, msg := opencodewire.Millis(v)
	if msg != "" && d.err == nil {
		d.err = &DecodeError{Pointer: ptr, Msg: msg}
	}
	return t
}

// usage reads a message's (or step's) tokens and cost, exactly: counts as
// u64 from their literal text, the cost as its decimal text. The
// canonical output is opencode's output and reasoning together (see
// opencodewire.OutputTokens); exact is false when that sum is beyond a
// u64 and saturated.
func (d *Decoder) usage(data gjson.Result, ptr string) (u *event.Usage, exact bool) {
	u = &event.Usage{}
	exact = true
	if c := data.Get("cost"); c.Exists() {
		if c.Type != gjson.Number {
			d.fail(ptr+"/cost", "%s, want a number", jsonobj.TypeName(c))
		} else {
			u.CostUSD = json.Number(c.Raw)
		}
	}
	t := data.Get("tokens")
	if !t.Exists() {
		return u, exact
	}
	if !t.IsObject() {
		d.fail(ptr+"/tokens", "%s, want an object", jsonobj.TypeName(t))
		return u, exact
	}
	num := func(k string) *uint64 {
		v := t.Get(k)
		if !v.Exists() {
			return nil
		}
		n, msg := jsonobj.ParseUint(v, jsonobj.U64)
		if msg != "" {
			if d.err == nil {
				d.err = &DecodeError{Pointer: ptr + "/tokens/" + jsonPath(k), Msg: msg}
			}
			return nil
		}
		return &n
	}
	u.InputTokens, u.OutputTokens, u.ReasoningTokens = num("input"), num("output"), num("reasoning")
	u.OutputTokens, exact = opencodewire.OutputTokens(u.OutputTokens, u.ReasoningTokens)
	u.TotalTokens = num("total")
	if c := t.Get("cache"); c.Exists() && !c.IsObject() {
		d.fail(ptr+"/tokens/cache", "%s, want an object", jsonobj.TypeName(c))
	} else {
		u.CacheReadTokens, u.CacheCreationTokens = num("cache.read"), num("cache.write")
	}
	return u, exact
}

// jsonPath turns a gjson path of plain keys into a JSON pointer's tail.
func jsonPath(k string) string {
	b := []byte(k)
	for i := range b {
		if b[i] == '.' {
			b[i] = '/'
		}
	}
	return string(b)
}

// push emits the events of one line: it starts the session if no session
// line came first, gives each event its turn and provenance, hangs the
// lines held back on the first, and holds them all while a user message
// waits for its prompt.
func (d *Decoder) push(out []*event.Event, n int, typ string, evs ...*event.Event) []*event.Event {
	if !d.started {
		out = d.startSession(out, nil)
	}
	for _, ev := range evs {
		if d.opts.Provenance && n > 0 && !ev.Synthetic {
			ev.Src = &event.Source{Dialect: Name, Line: n, Type: typ}
		}
		if len(d.before) > 0 {
			opencodewire.WithBefore(ev, Name, d.before)
			d.before = nil
		}
		if d.turn != "" && ev.TurnID == "" {
			ev.TurnID = d.turn
		}
		if d.pending != nil {
			d.pending.held = append(d.pending.held, ev)
			continue
		}
		out = append(out, ev)
	}
	return out
}

// startSession emits session_started: from the session line, or
// synthesised when the stream starts without one.
func (d *Decoder) startSession(out []*event.Event, ev *event.Event) []*event.Event {
	d.started = true
	if ev == nil {
		ev = &event.Event{Synthetic: true, Body: &event.SessionStarted{
			Schema: event.SchemaVersion, Source: event.SourceInfo{Dialect: Name},
			Agent: &event.Agent{Name: "opencode"}, SessionID: d.session,
		}}
	}
	return append(out, ev)
}

func (d *Decoder) sessionLine(out []*event.Event, r, data gjson.Result, line []byte, n int) []*event.Event {
	if d.started {
		// A second session line: kept whole (opencode-storage/first-line).
		return d.push(out, n, "session", unknown("session", line))
	}
	id := r.Get("id").Str
	if id == "" {
		id = data.Get("id").Str
	}
	d.session = strings.Clone(id) // kept: not a slice of the line's copy
	b := &event.SessionStarted{
		Schema: event.SchemaVersion, Source: event.SourceInfo{Dialect: Name},
		Agent:     &event.Agent{Name: "opencode", Version: data.Get("version").Str},
		SessionID: id, Workspace: data.Get("directory").Str,
	}
	if m := data.Get("model"); m.IsObject() {
		b.Model, b.Provider = m.Get("id").Str, m.Get("providerID").Str
	}
	ev := &event.Event{Body: b}
	ev.Time = d.millisAt(data.Get("time.created"), "")
	if ev.Time == "" {
		ev.Time = d.millisAt(data.Get("time_created"), "")
	}
	var res jsonobj.Residue
	frameResidue(r, &res, "id", "data")
	dataResidue(data, &res, map[string]bool{"directory": true, "version": true}, id)
	if !res.Empty() {
		ev.Ext = event.ExtOf(Name, res.Bytes())
	}
	if d.opts.Provenance {
		ev.Src = &event.Source{Dialect: Name, Line: n, Type: "session"}
	}
	return d.startSession(out, ev)
}

// frameResidue keeps the frame's keys other than the known ones, under
// "@frame".
func frameResidue(r gjson.Result, res *jsonobj.Residue, known ...string) {
	var f jsonobj.Residue
	jsonobj.ForEach(r, func(k, v gjson.Result) bool {
		if k.Str != "type" && !contains(known, k.Str) {
			f.Add(k.Str, []byte(v.Raw))
		}
		return true
	})
	if !f.Empty() {
		res.Add("@frame", f.Bytes())
	}
}

// dataResidue keeps the members of data that carried does not name, and
// an "id" that differs from the frame's.
func dataResidue(data gjson.Result, res *jsonobj.Residue, carried map[string]bool, id string) {
	jsonobj.ForEach(data, func(k, v gjson.Result) bool {
		if !carried[k.Str] && !(k.Str == "id" && v.Str == id) {
			res.Add(k.Str, []byte(v.Raw))
		}
		return true
	})
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (d *Decoder) messageLine(out []*event.Event, r, data gjson.Result, line []byte, n int) []*event.Event {
	out = d.closeMessage(out)
	role := data.Get("role").Str
	if !roles[role] {
		return d.push(out, n, "message", unknown("message", line))
	}
	id := r.Get("id").Str
	var res jsonobj.Residue
	res.Add("id", jsonenc.String(nil, id))
	frameResidue(r, &res, "id", "sessionID", "data")
	created := d.millisAt(data.Get("time.created"), "")
	if role == "user" {
		out = d.closeTurn(out)
		dataResidue(data, &res, map[string]bool{"role": true}, id)
		d.beginTurn()
		d.pending = &pending{line: n, time: created, ext: res.Bytes()}
		if m := data.Get("model"); m.IsObject() {
			d.pending.model = d.modelChange(m.Get("modelID").Str, m.Get("providerID").Str, created)
		}
		d.msg = &message{id: strings.Clone(id), line: n}
		return out
	}
	if d.turn == "" {
		// An assistant message with no user message before it: its
		// turn's start is synthesised.
		d.beginTurn()
		out = d.push(out, 0, "", &event.Event{Synthetic: true, Body: &event.TurnStarted{}})
	}
	m := &message{id: strings.Clone(id), assistant: true, line: n, summary: data.Get("summary").Type == gjson.True}
	var exact bool
	m.usage, exact = d.usage(data, "/data")
	m.time = d.millisAt(data.Get("time.completed"), "")
	m.ended = m.time != ""
	if f := data.Get("finish"); f.Exists() {
		if w, ok := finishReasons[f.Str]; ok {
			m.stop = w
		} else {
			m.stop = event.StopOther
		}
	}
	if e := data.Get("error"); e.IsObject() {
		m.errName = strings.Clone(e.Get("name").Str)
		m.errMsg = strings.Clone(e.Get("data.message").Str)
		if m.errMsg == "" {
			m.errMsg = m.errName
		}
		if m.errMsg == "" {
			m.errMsg = "the message failed"
		}
		m.ended = true
	}
	carried := map[string]bool{"role": true, "cost": true}
	if exact && standardTokens(data.Get("tokens")) {
		// (a saturated output is not the record's: it is kept whole)
		carried["tokens"] = true
	}
	dataResidue(data, &res, carried, id)
	m.ext = res.Bytes()
	if !m.ended {
		m.raw = append([]byte(nil), line...)
	}
	d.msg = m
	if ev := d.modelChange(data.Get("modelID").Str, data.Get("providerID").Str, created); ev != nil {
		out = d.push(out, n, "message", ev)
	}
	return out
}

// standardTokens reports whether a tokens object has only the keys the
// canonical usage holds, so that it need not be kept whole.
func standardTokens(t gjson.Result) bool {
	ok := t.IsObject()
	jsonobj.ForEach(t, func(k, v gjson.Result) bool {
		switch k.Str {
		case "input", "output", "reasoning", "total":
		case "cache":
			jsonobj.ForEach(v, func(k, _ gjson.Result) bool {
				ok = ok && (k.Str == "read" || k.Str == "write")
				return ok
			})
		default:
			ok = false
		}
		return ok
	})
	return ok
}

// modelChange returns a model_configured when a message names a model
// other than the last one stated, else nil.
func (d *Decoder) modelChange(model, provider, at string) *event.Event {
	if model == "" {
		return nil
	}
	key := provider + "/" + model
	if key == d.model {
		return nil
	}
	d.model = key
	return &event.Event{Time: at, Body: &event.ModelConfigured{Model: model, Provider: provider}}
}

func (d *Decoder) beginTurn() {
	d.turns++
	d.turn = "turn-" + strconv.Itoa(d.turns)
	d.turnSum = usagesum.Tally{}
	d.last = nil
}

// flushPending emits a user message's turn_started, with its prompt if one
// came, and the events held behind it.
func (d *Decoder) flushPending(out []*event.Event) []*event.Event {
	p := d.pending
	if p == nil {
		return out
	}
	d.pending = nil
	ts := &event.Event{Time: p.time, TurnID: d.turn, Body: &event.TurnStarted{Prompt: p.prompt}}
	if len(p.ext) > 0 {
		ts.Ext = event.ExtOf(Name, p.ext)
	}
	if d.opts.Provenance {
		ts.Src = &event.Source{Dialect: Name, Line: p.line, Type: "message"}
	}
	evs := []*event.Event{ts}
	if p.model != nil {
		p.model.TurnID = d.turn
		if d.opts.Provenance {
			p.model.Src = &event.Source{Dialect: Name, Line: p.line, Type: "message"}
		}
		evs = append(evs, p.model)
	}
	if !d.started {
		out = d.startSession(out, nil)
	}
	out = append(out, evs...)
	return append(out, p.held...)
}

// closeMessage ends the open message: a user message's held turn start
// is let go; an assistant message gives its error and its round.
func (d *Decoder) closeMessage(out []*event.Event) []*event.Event {
	m := d.msg
	if m == nil {
		return out
	}
	d.msg = nil
	if !m.assistant {
		return d.flushPending(out)
	}
	d.last = m
	if !m.ended {
		// No round has finished: opencode has not stored the message's
		// outcome or final usage. The line rides on the next event.
		d.before = append(d.before, m.raw)
		return out
	}
	var evs []*event.Event
	if m.errMsg != "" {
		evs = append(evs, &event.Event{Time: m.time, Body: &event.Error{Message: m.errMsg}})
	}
	rf := &event.Event{Time: m.time, Body: &event.RoundFinished{StopReason: m.stop, Usage: m.usage}}
	if len(m.ext) > 0 {
		rf.Ext = event.ExtOf(Name, m.ext)
	}
	evs = append(evs, rf)
	if m.summary && d.compact {
		d.compact = false
		evs = append(evs, &event.Event{Time: m.time, Body: &event.CompactionFinished{}})
	}
	d.turnSum.Add(m.usage)
	d.runSum.Add(m.usage)
	return d.push(out, m.line, "message", evs...)
}

// closeTurn ends the open turn: calls it left open get a cancelled end,
// then turn_finished with the turn's outcome and usage.
func (d *Decoder) closeTurn(out []*event.Event) []*event.Event {
	if d.turn == "" {
		return out
	}
	out = d.flushPending(out)
	out = d.endCalls(out)
	tf := &event.TurnFinished{Status: event.StatusOK, Usage: d.turnSum.Usage()}
	if m := d.last; m != nil {
		tf.Status, tf.Reason = outcome(m)
		if m.stop != event.StopToolUse {
			tf.StopReason = m.stop
		}
	}
	ev := &event.Event{Synthetic: true, TurnID: d.turn, Body: tf}
	out = d.push(out, 0, "", ev)
	d.final = d.last
	d.turn, d.last = "", nil
	return out
}

// outcome is how a turn ends after its last assistant message.
func outcome(m *message) (event.Status, string) {
	switch {
	case m.errName == abortedError:
		return event.StatusCancelled, m.errMsg
	case m.errMsg != "":
		return event.StatusError, m.errMsg
	}
	return event.StatusOK, ""
}

// endCalls ends, in id order, the calls of the turn whose stored state
// never ended: opencode left them pending or running.
func (d *Decoder) endCalls(out []*event.Event) []*event.Event {
	if len(d.calls) == 0 {
		return out
	}
	ids := make([]string, 0, len(d.calls))
	for id := range d.calls {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		c := d.calls[id]
		out = d.push(out, 0, "", &event.Event{Synthetic: true, Body: &event.ToolFinished{
			CallID: id, Name: c.name, Status: event.ToolCancelled,
			Error: "the turn ended while opencode's stored state of the call was still " + strconv.Quote(c.state),
		}})
	}
	clear(d.calls)
	return out
}

func (d *Decoder) todoLine(out []*event.Event, data gjson.Result, n int) []*event.Event {
	out = d.closeMessage(out)
	b := &event.PlanUpdated{Entries: []event.PlanEntry{}}
	data.ForEach(func(_, e gjson.Result) bool {
		b.Entries = append(b.Entries, event.PlanEntry{
			ID: e.Get("id").Str, Content: e.Get("content").Str, Status: e.Get("status").Str,
			Priority: e.Get("priority").Str,
		})
		return true
	})
	return d.push(out, n, "todo", &event.Event{Body: b})
}

// End implements dialect.Decoder.
func (d *Decoder) End(out []*event.Event) []*event.Event {
	if !d.started && len(d.before) == 0 {
		return out
	}
	out = d.closeMessage(out)
	out = d.flushPending(out)
	if d.turn != "" {
		m := d.last
		if m == nil || !m.ended || (m.stop == event.StopToolUse && m.errMsg == "") {
			why := "its last turn has no assistant message"
			switch {
			case m != nil && !m.ended:
				why = "its last assistant message has not completed"
			case m != nil:
				why = "its last assistant message stopped to call tools, and the message that should follow is missing"
			}
			return d.push(out, 0, "", &event.Event{Synthetic: true, Body: &event.Notice{
				Severity: event.SeverityWarning,
				Message:  "the stored session has not ended: " + why + " (opencode was running, or stopped in the middle)",
			}})
		}
		out = d.closeTurn(out)
	}
	sf := &event.SessionFinished{Status: event.StatusOK, Usage: d.runSum.Usage()}
	if m := d.final; m != nil {
		sf.Status, sf.Message = outcome(m)
	}
	return d.push(out, 0, "", &event.Event{Synthetic: true, Body: sf})
}
