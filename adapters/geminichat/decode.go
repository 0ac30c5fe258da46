package geminichat

import (
	"encoding/json"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/idset"
	"github.com/evtool/evtool/internal/jsonenc"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/evtool/evtool/internal/jsonptr"
	"github.com/tidwall/gjson"
)

// Decoder reads the lines of a Gemini CLI chat into canonical events.
//
// It holds the last message record (held) until a later line shows that
// it is final: a record of another id, a $rewindTo, the metadata of a
// subagent's chat, or the end. A record of the same id replaces it, as in
// Gemini CLI's own reader, so each record is read once, in its last form.
// Events of lines that come while a record is held and that the record
// does not depend on ($set and unknown lines) wait behind it (later), so
// that the stream keeps the file's order. Nothing emitted is taken back: a
// $rewindTo is a branched event.
//
// Its memory is bounded: one record, the events behind it, the ids it has
// seen as digests (idset), and the subagent calls of the chat.
type Decoder struct {
	jsonobj.OwnLine // a long line is read in place (UseOwn)
	opts            dialect.DecodeOptions
	out             []*event.Event // the events of the line being decoded
	res             jsonobj.Residue
	rec             jsonobj.Object // the members of the record being read (readRecord)

	started bool
	// hdr is the session_started held back, with Lookahead, until the
	// first model response names the model; pre are the events behind it.
	hdr  *event.Event
	pre  []*event.Event
	recs int // records emitted behind hdr

	sec   section
	held  *held
	later []*event.Event

	// finished and open remember the calls announced, so that a call in a
	// re-appended record (or in two records) is announced and finished
	// once: finished by digest, open (announced, not ended: rare) by id,
	// up to maxOpen.
	finished idset.Set
	open     map[string]bool
	// agents are the calls that ran a subagent, by the subagent's id (its
	// chat's sessionId): a subagent's chat follows its parent's.
	agents map[string]*agentCall
	// total sums the usage of every round, subagents' too, for
	// session_finished.
	total usageSum
}

// section is one chat of the stream: the session's own, or a subagent's
// gathered after it (see Store.Open).
type section struct {
	session string
	sub     bool   // a subagent's chat after its parent's
	agent   string // the agent_id of its events: the subagent's session id
	turn    string // the current turn: the id of the user record that began it
	turnPos uint64 // that record's position on the path, 0 if not on it
	model   string // the model last named
	path    path
	call    *agentCall // the parent's call that ran the subagent
}

// held is the last record, not yet known to be final.
type held struct {
	rec *record
	// again says the record's id was on the path before another record
	// came: a record re-appended out of turn, which Gemini CLI does not
	// write (gemini-chat/id-reappended); only what was not said of it
	// before is emitted.
	again bool
	pos   uint64 // its position on the path
}

// agentCall is a call that ran a subagent.
type agentCall struct {
	callID, turn, title string
	status              string // its status word
	ts                  stamp
}

// Bounds on what the decoder keeps.
const (
	maxHeaderRecords = 16   // records emitted behind a session_started that waits for its model
	maxLater         = 64   // events waiting behind a held record
	maxAgents        = 4096 // subagent calls remembered
	maxOpen          = 4096 // calls announced and not ended, remembered
)

func newDecoder(opts dialect.DecodeOptions) *Decoder {
	return &Decoder{opts: opts, agents: map[string]*agentCall{}, open: map[string]bool{}}
}

// Decode implements dialect.Decoder. A line is read whole before
// anything is emitted: a line that does not fit gives no events and
// changes nothing.
func (d *Decoder) Decode(out []*event.Event, line []byte, n int) ([]*event.Event, error) {
	r := d.ParseLine(line) // a copy (or the line itself, when it is its own): a held record keeps it
	if !r.IsObject() {
		return out, &DecodeError{Msg: "got a line that is no JSON object, want an object"}
	}
	d.out = out
	var err error
	switch classify(r) {
	case lineMeta:
		err = d.meta(r, n)
	case lineRecord:
		err = d.record(r, n)
	case lineSet:
		d.start(n)
		d.set(r, n)
	case lineRewind:
		d.start(n)
		d.rewind(r, n)
	default:
		// A line of no chat kind (a wrapper's log line before the
		// metadata, say) is kept as it stands; it starts no session, so
		// that the metadata that follows still does.
		typ := sourceType(r)
		d.behind(d.unknown(r.Raw, typ, n, typ))
	}
	out = d.out
	d.out = nil
	return out, err
}

// End implements dialect.Decoder: the last record is final, a
// subagent's chat ends, and so does the session. A chat has no last line:
// Gemini CLI appends to it until the session is left, and again when it
// is resumed. The chat is taken as complete as it stands, with a
// synthetic session_finished (status ok: the chat states no other) that
// holds the sum of its rounds' usage, subagents' included.
func (d *Decoder) End(out []*event.Event) []*event.Event {
	d.out = out
	if !d.started {
		d.out = nil
		return out
	}
	d.endSection()
	d.flushHeader()
	d.emit(&event.Event{Synthetic: true, Body: &event.SessionFinished{Status: event.StatusOK, Usage: d.total.usage()}})
	out = d.out
	d.out = nil
	return out
}

// emit places an event: behind a waiting session_started, or out.
func (d *Decoder) emit(ev *event.Event) {
	if d.hdr != nil {
		d.pre = append(d.pre, ev)
		return
	}
	d.out = append(d.out, ev)
}

// behind emits an event of a line read after the held record, after it.
func (d *Decoder) behind(ev *event.Event) {
	if d.held == nil {
		d.emit(ev)
		return
	}
	if len(d.later) == maxLater {
		d.flushHeld()
		d.emit(ev)
		return
	}
	d.later = append(d.later, ev)
}

// event makes an event of the current section, from source line n of
// type typ (n 0 for a synthetic event).
func (d *Decoder) event(b event.Body, t string, n int, typ string) *event.Event {
	ev := &event.Event{Time: t, TurnID: d.sec.turn, AgentID: d.sec.agent, Body: b}
	if n == 0 {
		ev.Synthetic = true
	} else if d.opts.Provenance {
		ev.Src = &event.Source{Dialect: Name, Line: n, Type: typ}
	}
	return ev
}

// flushHeader emits a session_started held for its model, and the events
// behind it.
func (d *Decoder) flushHeader() {
	if d.hdr == nil {
		return
	}
	d.out = append(d.out, d.hdr)
	d.out = append(d.out, d.pre...)
	d.hdr, d.pre = nil, nil
}

// start makes the session_started of a stream whose first line is not
// the metadata (a chat read from its middle): synthetic, and empty.
func (d *Decoder) start(n int) {
	if d.started {
		return
	}
	d.started = true
	d.emit(&event.Event{Synthetic: true, Body: &event.SessionStarted{Schema: event.SchemaVersion, Source: event.SourceInfo{Dialect: Name}}})
}

// unknown keeps a line, or a value of one, whole.
func (d *Decoder) unknown(raw, typ string, n int, srcType string) *event.Event {
	return d.event(&event.Unknown{Dialect: Name, SourceType: typ, Raw: json.RawMessage(raw)}, "", n, srcType)
}

// sourceType names a line that is none of the chat's kinds: its type if
// it has a string one.
func sourceType(r gjson.Result) string {
	return jsonobj.Lookup(r, "type").Str
}

// meta reads a metadata line: the session's start, or a later chat's.
func (d *Decoder) meta(r gjson.Result, n int) error {
	var f faults
	var m struct {
		session, kind, root string
		start               stamp
		messages            gjson.Result
	}
	d.res.Reset()
	jsonobj.ForEach(r, func(k, v gjson.Result) bool {
		ptr := "/" + jsonptr.Escape(k.Str)
		switch k.Str {
		case "sessionId":
			m.session = v.Str
		case "startTime":
			m.start = readStamp(&f, ptr, v)
			if !m.start.exact {
				d.res.Add(k.Str, []byte(v.Raw))
			}
		case "kind":
			m.kind = f.str(ptr, v)
			d.res.Add(k.Str, []byte(v.Raw))
		case "lastUpdated", "summary":
			f.str(ptr, v)
			d.res.Add(k.Str, []byte(v.Raw))
		case "messages":
			if !v.IsArray() {
				f.fail(ptr, "got %s, want an array", jsonobj.TypeName(v))
			}
			m.messages = v
		case evtoolKey:
			if !v.IsObject() {
				f.fail(ptr, "got %s, want an object", jsonobj.TypeName(v))
			}
			m.root = f.str(ptr+"/projectRoot", jsonobj.Lookup(v, "projectRoot"))
		default:
			d.res.Add(k.Str, []byte(v.Raw))
		}
		return f.err == nil
	})
	if err := f.error(); err != nil {
		return err
	}
	var ext event.Ext
	if !d.res.Empty() {
		ext = event.ExtOf(Name, d.res.Bytes())
	}
	if !d.started {
		d.started = true
		d.sec = section{session: m.session}
		ev := d.event(&event.SessionStarted{Schema: event.SchemaVersion, Source: event.SourceInfo{Dialect: Name},
			SessionID: m.session, Workspace: m.root}, m.start.time, n, "")
		ev.Ext = ext
		if d.opts.Lookahead {
			d.hdr = ev // until a model response names the model
		} else {
			d.emit(ev)
		}
	} else {
		d.endSection()
		if m.kind == "subagent" {
			d.beginSubagent(m.session, m.start, ext, n)
		} else {
			// Another session's chat after this one's: kept whole, and
			// read on as a chat of its own.
			d.sec = section{session: m.session}
			d.emit(d.unknown(r.Raw, "", n, ""))
		}
	}
	// A legacy chat on one line: its messages are its records. One that
	// does not read is kept whole, as the line could not be refused for
	// it without losing the others.
	jsonobj.ForEach(m.messages, func(_, e gjson.Result) bool {
		if classify(e) != lineRecord {
			d.behind(d.unknown(e.Raw, "", n, ""))
		} else if err := d.record(e, n); err != nil {
			d.behind(d.unknown(e.Raw, jsonobj.Lookup(e, "type").Str, n, ""))
		}
		return true
	})
	return nil
}

// beginSubagent begins a subagent's chat: a task of the parent's turn, if
// the parent's call that ran it is known.
func (d *Decoder) beginSubagent(id string, start stamp, ext event.Ext, n int) {
	c := d.agents[id]
	d.sec = section{session: id, sub: true, agent: id, call: c}
	b := &event.TaskUpdated{TaskID: id, Kind: event.TaskSubagent, Status: event.TaskRunning}
	if c != nil {
		d.sec.turn = c.turn
		b.Title = c.title
		// canonical's task_updated has no call_id yet: the parent's call
		// rides in the residue.
		var res jsonobj.Residue
		res.Add("call_id", jsonString(c.callID))
		if raw := ext.Get(Name); len(raw) > 0 {
			jsonobj.ForEach(gjson.ParseBytes(raw), func(k, v gjson.Result) bool {
				res.Add(k.Str, []byte(v.Raw))
				return true
			})
		}
		ext = event.ExtOf(Name, res.Bytes())
	}
	ev := d.event(b, start.time, n, "")
	ev.AgentID = "" // the parent's view of its subagent
	ev.Ext = ext
	d.emit(ev)
}

// endSection ends the current chat: its last record is final; a
// subagent's task ends as the parent's call that ran it ended, if that is
// known.
func (d *Decoder) endSection() {
	d.flushHeld()
	if d.sec.sub && d.sec.call != nil {
		if st, ok := toolStatuses[d.sec.call.status]; ok {
			ev := d.event(&event.TaskUpdated{TaskID: d.sec.session, Kind: event.TaskSubagent, Status: taskStatuses[st]}, d.sec.call.ts.time, 0, "")
			ev.AgentID = ""
			d.emit(ev)
		}
	}
	d.flushHeader()
}

// record reads a message record and holds it: the record it follows is
// final unless it is the same record again.
func (d *Decoder) record(r gjson.Result, n int) error {
	rec, err := readRecord(&d.rec, r, n)
	if err != nil {
		return err
	}
	d.start(n)
	if d.held != nil && d.held.rec.id == rec.id {
		d.held.rec = rec // the last record of an id wins
		return nil
	}
	d.flushHeld()
	again := d.sec.path.add(rec.id)
	pos, _ := d.sec.path.pos(rec.id)
	d.held = &held{rec: rec, again: again, pos: pos}
	return nil
}

// flushHeld emits the held record, which is final, and the events that
// waited behind it.
func (d *Decoder) flushHeld() {
	if d.held == nil {
		return
	}
	h := d.held
	d.held = nil
	d.emitRecord(h)
	for _, ev := range d.later {
		d.emit(ev)
	}
	clear(d.later)
	d.later = d.later[:0]
	if d.hdr != nil {
		if d.recs++; d.recs >= maxHeaderRecords {
			d.flushHeader() // no model named early on: the session starts without one
		}
	}
}

// set reads a $set line. lastUpdated (written after every record) and a
// sessionId the chat already has say nothing new: the line gives no event
// then. Any other key (summary, directories, memoryScratchpad, messages,
// …) has no place in the canonical model: the line is kept whole, as
// unknown. messages replaces the conversation's records (Gemini CLI
// rewrites its history so after a compression or when it masks tool
// output): the path is reset to them, and the held record, if among them,
// takes its place in the list as its last form.
func (d *Decoder) set(r gjson.Result, n int) {
	news := false
	jsonobj.ForEach(r, func(k, _ gjson.Result) bool {
		news = news || k.Str != "$set"
		return true
	})
	jsonobj.ForEach(jsonobj.Lookup(r, "$set"), func(k, v gjson.Result) bool {
		switch {
		case k.Str == "lastUpdated" && v.Type == gjson.String:
		case k.Str == "sessionId" && v.Type == gjson.String && v.Str == d.sec.session:
		case k.Str == "messages" && v.IsArray():
			news = true
			d.checkpoint(v)
		default:
			news = true
		}
		return true
	})
	if news {
		d.behind(d.unknown(r.Raw, "$set", n, "$set"))
	}
}

// checkpoint places the records of a $set.messages on a new path.
func (d *Decoder) checkpoint(list gjson.Result) {
	d.sec.path.reset()
	jsonobj.ForEach(list, func(_, e gjson.Result) bool {
		if classify(e) != lineRecord {
			return true
		}
		id := jsonobj.Lookup(e, "id").Str
		d.sec.path.add(id)
		if d.held != nil && id == d.held.rec.id {
			if rec, err := readRecord(&d.rec, e, d.held.rec.n); err == nil {
				d.held.rec = rec
			}
		}
		return true
	})
	if d.held != nil {
		d.held.pos, _ = d.sec.path.pos(d.held.rec.id)
	}
	if d.sec.turnPos > 0 {
		d.sec.turnPos, _ = d.sec.path.pos(d.sec.turn)
	}
}

// rewind reads a $rewindTo: the held record is final (it leaves the
// conversation, but it was written, and its model call spent its tokens),
// and a branched event says the conversation went back to before the
// record named, abandoning it and every record after it. The turn ends if
// the record that began it was abandoned.
func (d *Decoder) rewind(r gjson.Result, n int) {
	d.flushHeld()
	id := jsonobj.Lookup(r, "$rewindTo").Str
	pos, onPath := d.sec.path.pos(id)
	abandoned, _ := d.sec.path.rewind(id)
	d.res.Reset()
	jsonobj.ForEach(r, func(k, v gjson.Result) bool {
		if k.Str != "$rewindTo" {
			d.res.Add(k.Str, []byte(v.Raw))
		}
		return true
	})
	ev := d.event(&event.Branched{EntryID: id, AbandonedEntries: &abandoned}, "", n, "$rewindTo")
	if !d.res.Empty() {
		ev.Ext = event.ExtOf(Name, d.res.Bytes())
	}
	d.emit(ev)
	if d.sec.turnPos > 0 && (!onPath || pos <= d.sec.turnPos) {
		d.sec.turn, d.sec.turnPos = "", 0
	}
}

// jsonString returns s as a JSON string.
func jsonString(s string) []byte { return jsonenc.String(nil, s) }
