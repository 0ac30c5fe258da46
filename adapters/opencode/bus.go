package opencode

// The server bus's shape, {"id", "type", "properties"}: the decoder reads
// its lines, and the encoder writes the events read from it back so.

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/jsonenc"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/tidwall/gjson"
)

// bus writes an event read from the server bus back in the bus's shape:
// {"id", "type", "properties"}. Only an opencode source has such events.
func (e *Encoder) bus(ev *event.Event, res gjson.Result) error {
	var typ string
	switch ev.Body.(type) {
	case *event.Message, *event.Reasoning, *event.ToolFinished, *event.RoundFinished, *event.UserMessage:
		typ = "message.part.updated"
	case *event.MessageDelta, *event.ReasoningDelta:
		typ = "message.part.delta"
	case *event.Error:
		typ = "session.error"
	case *event.TurnFinished:
		typ = "session.idle"
	default:
		return nil
	}
	e.b = e.b[:0]
	o := open(&e.b, res)
	o.opt("id")
	o.key("type")
	*o.b = jsonenc.String(*o.b, typ)
	o.sub("properties", func(p *obj) {
		p.str("sessionID", e.session)
		switch b := ev.Body.(type) {
		case *event.Message:
			p.sub("part", func(q *obj) { e.textPart(q, b.Text, b.MessageID) })
		case *event.UserMessage:
			p.sub("part", func(q *obj) {
				q.opt("id")
				q.str("sessionID", e.session)
				q.opt("messageID")
				q.opt("type")
				q.str("text", b.Text)
			})
		case *event.Reasoning:
			p.sub("part", func(q *obj) { e.reasoningPart(q, b.Text) })
		case *event.ToolFinished:
			p.sub("part", func(q *obj) { e.toolPart(q, b, ev) })
		case *event.RoundFinished:
			p.sub("part", func(q *obj) {
				e.ids(q, "step-finish", "")
				word, _ := finishWord(b.StopReason)
				q.str("reason", word)
				q.opt("snapshot")
				e.usage(q, b.Usage)
			})
		case *event.MessageDelta:
			p.str("messageID", b.MessageID)
			p.opt("partID")
			p.opt("field")
			p.str("delta", b.Text)
		case *event.ReasoningDelta:
			p.opt("messageID")
			p.opt("partID")
			p.opt("field")
			p.str("delta", b.Text)
		case *event.Error:
			p.opt("error")
		}
		if ev.Time != "" {
			if ms, ok := e.millis(ev.Time); ok {
				p.raw("time", []byte(ms))
			}
		}
	})
	o.close()
	e.b = append(e.b, '\n')
	return e.write(e.b)
}

// bus reads one server bus line: what its properties say is read by one
// method per type, and what the event has no place for is kept.
func (d *Decoder) bus(root gjson.Result, typ string, line []byte) ([]*event.Event, error) {
	o := &d.o
	if !busTypes[typ] {
		return []*event.Event{{Body: &event.Unknown{Dialect: Name, SourceType: typ, Raw: append(json.RawMessage(nil), line...)}}}, nil
	}
	props := root.Get("properties")
	var evs []*event.Event
	var pres jsonobj.Residue // of properties
	carried := []string{"sessionID"}
	switch typ {
	case "message.updated":
		d.busMessage(props)
	case "message.part.updated":
		evs, carried = d.busPart(props, carried, &pres)
	case "message.part.delta":
		evs, carried = d.busDelta(props, carried, &pres)
	case "session.error":
		carried = append(carried, "error")
		evs = []*event.Event{d.errorEvent(props.Get("error"), "/properties/error", &pres)}
	case "session.idle":
		if d.turn != "" {
			evs = []*event.Event{{Body: &event.TurnFinished{}}}
		}
	}
	// A line with no event of its own rides on the next event, unless it
	// does not read.
	if len(evs) == 0 || o.Err() != nil {
		return nil, o.Err()
	}
	evs[len(evs)-1].Ext = event.ExtOf(Name, d.busResidue(props, carried, &pres))
	return evs, nil
}

// busMessage notes the user's messages, whose text parts are the prompt.
func (d *Decoder) busMessage(props gjson.Result) {
	info := props.Get("info")
	if info.Get("role").Str == "user" && info.Get("id").Type == gjson.String {
		d.users[strings.Clone(info.Get("id").Str)] = true
	}
}

// busPart reads a message.part.updated of a part that run json writes:
// one that has ended (see finished), or the user's text.
func (d *Decoder) busPart(props gjson.Result, carried []string, pres *jsonobj.Residue) ([]*event.Event, []string) {
	p := props.Get("part")
	if !p.IsObject() {
		return nil, carried
	}
	pt := p.Get("type").Str
	id := p.Get("id").Str
	switch {
	case pt == "reasoning" && !p.Get("time.end").Exists():
		d.kinds[strings.Clone(id)] = true
		return nil, carried
	case pt == "text" && d.users[p.Get("messageID").Str]:
		if d.parts.Has(id) {
			return nil, carried
		}
	case !finished(p):
		return nil, carried
	}
	delete(d.kinds, id)
	carried = append(carried, "part", "time")
	sid := props.Get("sessionID")
	var evs []*event.Event
	var partRes jsonobj.Residue
	if d.users[p.Get("messageID").Str] && pt == "text" {
		evs = d.userPart(p, "/properties/part", sid.Str, &partRes)
	} else {
		evs = d.part(p, "/properties/part", pt, sid.Str, &partRes)
	}
	if len(evs) == 0 {
		return nil, carried
	}
	if !d.verdicts {
		keyOrder(p, partFields[pt], &partRes)
	}
	if !partRes.Empty() {
		pres.Add("part", partRes.Bytes())
	}
	if t := props.Get("time"); t.Exists() {
		tm := d.millis("/properties/time", t, false)
		for _, ev := range evs {
			if ev.Time == "" && !ev.Synthetic {
				ev.Time = tm
			}
		}
	} else {
		pres.Absent("time")
	}
	return evs, carried
}

// busDelta reads a message.part.delta of a part's text: a reasoning
// delta when the part is reasoning, else a message delta.
func (d *Decoder) busDelta(props gjson.Result, carried []string, pres *jsonobj.Residue) ([]*event.Event, []string) {
	if props.Get("field").Str != "text" || props.Get("delta").Type != gjson.String {
		return nil, carried
	}
	carried = append(carried, "messageID", "partID", "field", "delta")
	text := props.Get("delta").Str
	pid := props.Get("partID")
	var evs []*event.Event
	if d.kinds[pid.Str] {
		evs = []*event.Event{{Body: &event.ReasoningDelta{Text: text}}}
		keep(pres, props, "messageID")
	} else {
		mid := props.Get("messageID")
		if mid.Type != gjson.String {
			keep(pres, props, "messageID")
		}
		evs = []*event.Event{{Body: &event.MessageDelta{Text: text, MessageID: mid.Str}}}
	}
	keep(pres, props, "partID")
	keep(pres, props, "field")
	return evs, carried
}

// busResidue returns the residue of a bus line's event: the line's keys
// beyond type, with properties' session id when it is not the stream's
// and the keys of properties the event has no place for, in input order.
func (d *Decoder) busResidue(props gjson.Result, carried []string, pres *jsonobj.Residue) []byte {
	o := &d.o
	switch sid := props.Get("sessionID"); {
	case !sid.Exists():
		pres.Absent("sessionID")
	case sid.Type != gjson.String || sid.Str != d.session:
		pres.Add("sessionID", []byte(sid.Raw))
	}
	jsonobj.ForEach(props, func(k, v gjson.Result) bool {
		if !slices.Contains(carried, k.Str) {
			pres.Add(k.Str, []byte(v.Raw))
		}
		return true
	})
	var res jsonobj.Residue
	for i := 0; i < o.Len(); i++ {
		k, v := o.At(i)
		switch k {
		case "type":
		case "properties":
			if !pres.Empty() {
				res.Add("properties", pres.Bytes())
			}
		default:
			res.Add(k, []byte(v.Raw)) // id and unknown keys
		}
	}
	res.Add(keyBus, []byte("true"))
	return res.Bytes()
}

// keep adds a key of a nested object to its residue, as written.
func keep(res *jsonobj.Residue, obj gjson.Result, k string) {
	if v := jsonobj.Lookup(obj, k); v.Exists() {
		res.Add(k, []byte(v.Raw))
	} else {
		res.Absent(k)
	}
}

// finished reports whether a bus part is one that run json writes: a
// step, a text or reasoning part that has ended, or a tool call that has.
func finished(p gjson.Result) bool {
	switch p.Get("type").Str {
	case "step-start", "step-finish":
		return true
	case "text", "reasoning":
		return p.Get("time.end").Exists()
	case "tool":
		_, ok := toolStatuses[p.Get("state.status").Str]
		return ok
	}
	return false
}

// userPart reads a bus text part of the user's message: the prompt.
func (d *Decoder) userPart(p gjson.Result, ptr, session string, res *jsonobj.Residue) []*event.Event {
	id := d.str(p, ptr, "id")
	if id != "" {
		d.parts.Add(id, 0)
	}
	text := d.str(p, ptr, "text")
	jsonobj.ForEach(p, func(k, v gjson.Result) bool {
		switch k.Str {
		case "text":
		case "sessionID":
			if v.Type != gjson.String || v.Str != session {
				res.Add(k.Str, []byte(v.Raw))
			}
		default:
			res.Add(k.Str, []byte(v.Raw))
		}
		return true
	})
	if !p.Get("sessionID").Exists() {
		res.Absent("sessionID")
	}
	return []*event.Event{{Body: &event.UserMessage{Text: text}}}
}
