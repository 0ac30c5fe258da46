package opencode

import (
	"cmp"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/evtool/evtool/adapters/internal/opencodewire"
	"github.com/evtool/evtool/ndjson"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/idset"
	"github.com/evtool/evtool/internal/jsonenc"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/evtool/evtool/internal/usagesum"
	"github.com/tidwall/gjson"
)

// DecodeError is a known opencode field with a value canonical cannot hold.
type DecodeError = jsonobj.FieldError

// Residue keys of ext.opencode beyond the source's own field names.
const (
	// keyBefore holds, in order, the whole source lines that came before
	// an event and have no canonical event of their own: step_start, a
	// part republished after it ended, and the bus's snapshots and
	// statuses. The writer puts them back before the event's own line.
	keyBefore = opencodewire.KeyBefore
	// keyBus marks an event read from the server bus, so that it is
	// written back in the bus's shape. It is evtool's bookkeeping, not a
	// fact of the run.
	keyBus = "@bus"
	// keyKeys holds an object's key order, when the writer's would differ
	// (see keyOrder). It is evtool's bookkeeping.
	keyKeys = "@keys"
)

// What the last line that said anything about the run's end was.
const (
	lastNone     = iota
	lastStepMore // a step_finish that stops to call tools: another step is due
	lastStepEnd  // a step_finish with any other reason
	lastError    // an error line
	lastOther    // anything else: the run is not over
)

// Decoder reads opencode lines into canonical events.
//
// A stream is one session. The run has no start line, so session_started
// and turn_started are synthesised before the first event; each
// step_finish is a round_finished with the step's usage and cost; a
// tool_use line, written once when the call has ended, gives a tool_call,
// tool_started and tool_finished. The turn ends at a done line (newer
// sources), at session.idle (the bus) or, since 1.18.33 writes no terminal
// line, at the end of a stream whose last line is a step_finish that did
// not stop to call tools, or an error; then turn_finished and
// session_finished carry the sums of the steps' usage and cost. Any other
// last line leaves the stream truncated.
type Decoder struct {
	jsonobj.OwnLine // a long line is read in place (UseOwn)
	opts            dialect.DecodeOptions
	// ms are the members of the line the next Decode reads (UseMembers).
	ms []ndjson.Member
	// verdicts: the caller reads no event (stream.Options.VerdictsOnly),
	// so the key order of the residue is not found.
	verdicts bool
	o        jsonobj.Object
	started  bool   // session_started is emitted
	session  string // the stream's session id: the first one a line names
	turns    int
	turn     string   // the open turn, "" between turns
	before   [][]byte // source lines waiting for the next event
	parts    idset.Set
	last     int              // lastNone…lastOther, for the run's end
	stop     event.StopReason // the last step's stop reason
	turnErr  string           // the last error of the open turn
	errored  bool             // the open turn saw an error
	ended    bool             // a turn ended
	endErr   bool             // the last turn that ended failed
	turnSum  usagesum.Tally   // usage of the open turn
	runSum   usagesum.Tally   // usage of the whole stream
	users    map[string]bool  // bus: ids of the user's messages
	kinds    map[string]bool  // bus: open reasoning parts, by id
	// firstTime and lastTime are the times of the stream's first line and of the
	// last line read: the synthetic session start and ends take them.
	firstTime, lastTime string
}

func newDecoder(opts dialect.DecodeOptions) *Decoder {
	return &Decoder{opts: opts, users: map[string]bool{}, kinds: map[string]bool{}}
}

// Decode implements dialect.Decoder.
func (d *Decoder) Decode(out []*event.Event, line []byte, n int) ([]*event.Event, error) {
	root := d.ParseLine(line)
	ms := d.ms
	d.ms = nil
	typ, err := d.o.OpenMembers(root, ms, "an opencode line")
	if err != nil {
		return out, err
	}
	if t, msg := opencodewire.Millis(root.Get("timestamp")); msg == "" && t != "" {
		if d.firstTime == "" {
			d.firstTime = t
		}
		d.lastTime = t
	}
	if d.session == "" {
		if s := root.Get("sessionID"); s.Type == gjson.String {
			d.session = strings.Clone(s.Str) // not the line's copy: this stays
		} else if s := root.Get("properties.sessionID"); s.Type == gjson.String {
			d.session = strings.Clone(s.Str)
		}
	}
	var evs []*event.Event
	if isBus(root) {
		evs, err = d.bus(root, typ, line)
	} else {
		evs, err = d.run(root, typ, line)
	}
	if err != nil {
		return out, err
	}
	if len(evs) == 0 {
		d.before = append(d.before, append([]byte(nil), line...))
		return out, nil
	}
	for _, ev := range evs {
		if d.opts.Provenance && !ev.Synthetic {
			ev.Src = &event.Source{Dialect: Name, Line: n, Type: typ}
		}
	}
	return d.flush(out, evs), nil
}

// flush emits the events of one line, after the session and turn starts
// they need, with the lines held back riding on the first of them.
func (d *Decoder) flush(out []*event.Event, evs []*event.Event) []*event.Event {
	out = d.start(out, cmp.Or(d.firstTime, evs[0].Time))
	if len(d.before) > 0 {
		opencodewire.WithBefore(evs[0], Name, d.before)
		clear(d.before) // the lines are the event's now: keep none alive here
		d.before = d.before[:0]
	}
	for _, ev := range evs {
		switch b := ev.Body.(type) {
		case *event.SessionStarted, *event.SessionFinished:
		case *event.TurnFinished:
			if d.turn == "" {
				out = d.beginTurn(out, nil, ev.Time)
			}
			ev.TurnID = d.closeTurn(b)
		default:
			if d.turn == "" {
				var prompt *string
				if u, ok := b.(*event.UserMessage); ok {
					prompt = &u.Text
				}
				out = d.beginTurn(out, prompt, ev.Time)
			}
			ev.TurnID = d.turn
			switch b := b.(type) {
			case *event.RoundFinished:
				d.stop = b.StopReason
				d.turnSum.Add(b.Usage)
				d.runSum.Add(b.Usage)
			case *event.Error:
				d.errored, d.turnErr = true, strings.Clone(b.Message)
			}
		}
		out = append(out, ev)
	}
	return out
}

// start emits session_started before the stream's first event, at the
// time of that event: every opencode line has one, and a target whose
// header states a time (Gemini CLI's init) would have none.
func (d *Decoder) start(out []*event.Event, at string) []*event.Event {
	if d.started {
		return out
	}
	d.started = true
	return append(out, &event.Event{Synthetic: true, Time: at, Body: &event.SessionStarted{
		Schema:    event.SchemaVersion,
		Source:    event.SourceInfo{Dialect: Name},
		Agent:     &event.Agent{Name: Name},
		SessionID: d.session,
	}})
}

func (d *Decoder) beginTurn(out []*event.Event, prompt *string, at string) []*event.Event {
	d.turns++
	d.turn = "turn-" + strconv.Itoa(d.turns)
	d.turnSum, d.errored, d.turnErr, d.stop = usagesum.Tally{}, false, "", ""
	return append(out, &event.Event{TurnID: d.turn, Synthetic: true, Time: at, Body: &event.TurnStarted{Prompt: prompt}})
}

// closeTurn fills a turn_finished with what the turn's lines said and
// ends the turn, returning its id.
func (d *Decoder) closeTurn(b *event.TurnFinished) string {
	id := d.turn
	b.Status = event.StatusOK
	if d.errored {
		b.Status = event.StatusError
		b.Reason = d.turnErr
	}
	b.StopReason = d.stop
	b.Usage = d.turnSum.Usage()
	d.ended, d.endErr = true, d.errored
	d.turn = ""
	return id
}

// run reads one run json line. It returns no event for a line that rides
// on the next event.
func (d *Decoder) run(root gjson.Result, typ string, line []byte) ([]*event.Event, error) {
	o := &d.o
	if _, ok := runFields[typ]; !ok {
		d.last = lastOther
		return []*event.Event{{Body: &event.Unknown{Dialect: Name, SourceType: typ, Raw: append(json.RawMessage(nil), line...)}}}, nil
	}
	var res jsonobj.Residue
	o.KeepUnknown(&res, func(k string) bool { return knownRunField(typ, k) })
	tm := d.millis("/timestamp", root.Get("timestamp"), true)
	sid, ok := o.Str("sessionID")
	switch {
	case !ok && o.Err() == nil:
		res.Absent("sessionID")
	case ok && sid != d.session:
		res.Add("sessionID", []byte(root.Get("sessionID").Raw))
	}
	var evs []*event.Event
	switch typ {
	case "error":
		evs = []*event.Event{d.errorEvent(root.Get("error"), "/error", &res)}
	case "done":
		// The stored run.ts's terminal line: the session went idle.
		for _, k := range []string{"reason", "rejected"} {
			if v, ok := o.Get(k); ok {
				res.Add(k, []byte(v.Raw))
			}
		}
		if v, ok := o.Get("reason"); ok && v.Type != gjson.String {
			o.Fail("/reason", "must be a string")
		}
		if v, ok := o.Get("rejected"); ok {
			checkStrings(o, "/rejected", v)
		}
		d.last = lastOther
		evs = []*event.Event{{Body: &event.TurnFinished{}}}
	default:
		p, ok := o.Get("part")
		if !ok {
			// A part line without its part says nothing more than its type.
			d.last = lastOther
			evs = []*event.Event{{Body: &event.Unknown{Dialect: Name, SourceType: typ, Raw: append(json.RawMessage(nil), line...)}}}
			break
		}
		var pres jsonobj.Residue
		evs = d.part(p, "/part", partType[typ], sid, &pres)
		if !d.verdicts {
			keyOrder(p, partFields[partType[typ]], &pres)
		}
		if !pres.Empty() {
			res.Add("part", pres.Bytes())
		}
	}
	if o.Err() != nil {
		return nil, o.Err()
	}
	if len(evs) == 0 {
		return nil, nil
	}
	carrier := evs[len(evs)-1]
	for _, ev := range evs {
		if ev.Time == "" && !ev.Synthetic {
			ev.Time = tm
		}
	}
	if !d.verdicts {
		keyOrder(root, append([]string{"type"}, runFields[typ]...), &res)
	}
	if !res.Empty() {
		carrier.Ext = event.ExtOf(Name, res.Bytes())
	}
	return evs, nil
}

// keyOrder keeps an object's key order in its residue (as @keys) when
// the writer would not give it back: the writer puts the known keys in
// the order of known and the others after them, in input order. opencode
// 1.15 and later write a part's keys in another order than the SDK's
// (id, messageID, sessionID, type, …; a step-finish's reason second), and
// a line must come back as it was written.
func keyOrder(v gjson.Result, known []string, res *jsonobj.Residue) {
	var keys, others []string
	jsonobj.ForEach(v, func(k, _ gjson.Result) bool {
		keys = append(keys, k.Str)
		return true
	})
	want := make([]string, 0, len(keys))
	for _, k := range known {
		if slices.Contains(keys, k) {
			want = append(want, k)
		}
	}
	for _, k := range keys {
		if !slices.Contains(known, k) {
			others = append(others, k)
		}
	}
	if slices.Equal(keys, append(want, others...)) {
		return
	}
	b := []byte{'['}
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonenc.String(b, k)
	}
	res.Add(keyKeys, append(b, ']'))
}

// errorEvent reads the error of a run json error line or a bus
// session.error. The error object is kept whole in the residue; its
// message is the canonical message.
func (d *Decoder) errorEvent(e gjson.Result, ptr string, res *jsonobj.Residue) *event.Event {
	o := &d.o
	b := &event.Error{}
	switch {
	case !e.Exists():
		res.Absent("error")
	case !e.IsObject():
		o.Fail(ptr, "must be an object")
	default:
		res.Add("error", []byte(e.Raw))
		name := e.Get("name")
		if name.Exists() && name.Type != gjson.String {
			o.Fail(ptr+"/name", "must be a string")
		}
		msg := e.Get("data.message")
		if msg.Exists() && msg.Type != gjson.String {
			o.Fail(ptr+"/data/message", "must be a string")
		}
		b.Message = msg.Str
		if b.Message == "" {
			b.Message = name.Str
		}
	}
	d.last = lastError
	return &event.Event{Body: b}
}

// part reads one part into canonical events, leaving in res what they
// cannot hold. typ is the part type the line says it carries. It returns
// no event for a part that rides on the next event: a step start, and a
// part republished after it was read.
func (d *Decoder) part(p gjson.Result, ptr, typ, session string, res *jsonobj.Residue) []*event.Event {
	o := &d.o
	if !p.IsObject() {
		o.Fail(ptr, "must be an object")
		return nil
	}
	id := d.str(p, ptr, "id")
	if pt := p.Get("type"); !pt.Exists() {
		res.Absent("type")
	} else if pt.Str != typ || pt.Type != gjson.String {
		res.Add("type", []byte(pt.Raw))
	}
	sid := p.Get("sessionID")
	switch {
	case !sid.Exists():
		res.Absent("sessionID")
	case sid.Type != gjson.String:
		o.Fail(ptr+"/sessionID", "must be a string")
	case sid.Str != session:
		res.Add("sessionID", []byte(sid.Raw))
	}
	if typ == "step-start" {
		d.last = lastOther
		d.str(p, ptr, "messageID")
		d.str(p, ptr, "snapshot")
		return nil
	}
	if id != "" && d.parts.Has(id) {
		// opencode writes a part again when it is republished after it
		// ended; the first reading stands, and the line rides as it was.
		return nil
	}
	if id != "" {
		d.parts.Add(id, 0)
	}
	keepID := func() {
		if v := p.Get("id"); v.Exists() {
			res.Add("id", []byte(v.Raw))
		} else {
			res.Absent("id")
		}
	}
	carried := map[string]bool{"type": true, "sessionID": true}
	var evs []*event.Event
	switch typ {
	case "text":
		keepID()
		text := d.str(p, ptr, "text")
		mid := p.Get("messageID")
		if mid.Type != gjson.String {
			keep(res, p, "messageID")
		} else {
			carried["messageID"] = true
		}
		carried["id"], carried["text"] = true, true
		d.last = lastOther
		evs = []*event.Event{{Body: &event.Message{Text: text, MessageID: mid.Str}}}
	case "reasoning":
		keepID()
		text := d.str(p, ptr, "text")
		carried["id"], carried["text"] = true, true
		d.last = lastOther
		evs = []*event.Event{{Body: &event.Reasoning{Text: text}}}
	case "tool":
		evs = d.tool(p, ptr, id, res)
		carried["id"], carried["tool"], carried["state"] = true, true, true
		d.last = lastOther
	case "step-finish":
		keepID()
		carried["id"], carried["reason"], carried["cost"], carried["tokens"] = true, true, true, true
		evs = []*event.Event{{Body: d.stepFinish(p, ptr, res)}}
	default:
		d.last = lastOther
		return nil
	}
	if typ != "text" && !p.Get("messageID").Exists() {
		res.Absent("messageID")
	}
	opencodewire.KeepOthers(res, p, carried)
	return evs
}

// str reads a string key of a nested object; "" when absent.
func (d *Decoder) str(obj gjson.Result, ptr, k string) string {
	v := jsonobj.Lookup(obj, k)
	if !v.Exists() {
		return ""
	}
	if v.Type != gjson.String {
		d.o.Fail(ptr+"/"+k, "must be a string")
		return ""
	}
	return v.Str
}

// checkStrings checks an array of strings.
func checkStrings(o *jsonobj.Object, ptr string, v gjson.Result) {
	if !v.IsArray() {
		o.Fail(ptr, "must be an array of strings")
		return
	}
	i := 0
	jsonobj.ForEach(v, func(_, e gjson.Result) bool {
		if e.Type != gjson.String {
			o.Fail(ptr+"/"+strconv.Itoa(i), "must be a string")
			return false
		}
		i++
		return true
	})
}

// millis reads an epoch-milliseconds integer as an RFC 3339 time. A
// missing required one is the schema's to report.
func (d *Decoder) millis(ptr string, v gjson.Result, required bool) string {
	if !v.Exists() {
		return ""
	}
	t, msg := opencodewire.Millis(v)
	if msg != "" {
		d.o.Fail(ptr, "%s", msg)
	}
	return t
}

// End implements dialect.Decoder: the end of the run, read from the last
// line (see Decoder).
func (d *Decoder) End(out []*event.Event) []*event.Event {
	switch {
	case d.turn != "" && (d.last == lastStepEnd || d.last == lastError):
		tf := &event.TurnFinished{}
		ev := &event.Event{Synthetic: true, Time: d.lastTime, Body: tf}
		out = d.flush(out, []*event.Event{ev})
		return append(out, d.finish())
	case d.turn != "":
		out = append(out, d.carrier("the opencode stream ended before its run did: no final step_finish, error or done line"))
		return out
	case d.ended:
		f := d.finish()
		if len(d.before) > 0 {
			opencodewire.WithBefore(f, Name, d.before)
			d.before = nil
		}
		return append(out, f)
	case len(d.before) > 0:
		out = d.start(out, "")
		return append(out, d.carrier("the opencode stream has no event of a run"))
	}
	return out
}

// carrier is a synthetic notice at the end of a stream that stops inside
// a run; it carries the lines held back, if any.
func (d *Decoder) carrier(msg string) *event.Event {
	ev := &event.Event{Synthetic: true, TurnID: d.turn, Body: &event.Notice{Severity: event.SeverityWarning, Message: msg}}
	if len(d.before) > 0 {
		opencodewire.WithBefore(ev, Name, d.before)
		d.before = nil
	}
	return ev
}

// finish is the synthetic session_finished of a stream whose last turn
// ended.
func (d *Decoder) finish() *event.Event {
	b := &event.SessionFinished{Status: event.StatusOK, Usage: d.runSum.Usage()}
	if d.endErr {
		b.Status = event.StatusError
		b.Message = d.turnErr
	}
	return &event.Event{Synthetic: true, Time: d.lastTime, Body: b}
}

// UseMembers hands the decoder the top-level members of the line its next
// Decode reads, found by the syntax check of the reading: the decoder
// then does not read the line's keys again.
func (d *Decoder) UseMembers(ms []ndjson.Member) { d.ms = ms }

// VerdictsOnly makes the decoder leave the key order of its lines out of
// their residue (a walk of every part's members, a sixth of validate's
// time): for a caller that reads the lines' verdicts and no event, as
// validate does. Errors are the same: the key order has no error path.
// Call it before the first line.
func (d *Decoder) VerdictsOnly() { d.verdicts = true }
