package geminichat

import (
	"strings"

	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/tidwall/gjson"
)

// emitRecord emits the events of a final record.
func (d *Decoder) emitRecord(h *held) {
	rec := h.rec
	switch rec.typ {
	case "user":
		d.userRecord(h)
	case "gemini":
		d.geminiRecord(h)
	default:
		if h.again {
			return
		}
		var ev *event.Event
		if sev, ok := noticeSeverities[rec.typ]; ok {
			ev = d.event(&event.Notice{Severity: sev, Message: rec.text.text}, rec.ts.time, rec.n, rec.typ)
			ev.Ext = d.residue(rec, false)
		} else {
			ev = d.unknown(rec.raw, rec.typ, rec.n, rec.typ)
			ev.Time = rec.ts.time
		}
		d.emit(ev)
	}
}

// residue is what a record says beyond its events, for its main event's
// ext: its id (first), and, in the record's order, a timestamp not in
// Gemini CLI's form, content that is more than its text, displayContent
// (what the CLI showed instead), tokens canonical cannot hold exactly,
// and the keys its type does not have.
func (d *Decoder) residue(rec *record, keepTokens bool) event.Ext {
	res := &d.res
	res.Reset()
	res.Add("id", jsonString(rec.id))
	// Only the values as written are kept: they are not completed
	// (ForEach would unescape the whole content to have its Raw).
	jsonobj.ForEachRaw(gjson.Parse(rec.raw), func(k, v gjson.Result) bool {
		switch key := k.Str; {
		case key == "id", key == "type":
		case key == "timestamp":
			if !rec.ts.exact {
				res.Add(key, []byte(v.Raw))
			}
		case key == "content":
			if !rec.text.plain {
				res.Add(key, []byte(v.Raw))
			}
		case rec.typ == "gemini" && (key == "model" || key == "thoughts" || key == "toolCalls"):
			// their own events
		case rec.typ == "gemini" && key == "tokens":
			if keepTokens || v.Type == gjson.Null {
				res.Add(key, []byte(v.Raw))
			}
		default: // displayContent, and keys the type does not have
			res.Add(key, []byte(v.Raw))
		}
		return true
	})
	return event.ExtOf(Name, res.Bytes())
}

// userRecord emits a user record. A record whose shown content (its
// displayContent, else its content) holds something other than function
// responses is the user's prompt: it begins a turn, named by the record's
// id. Gemini CLI also writes user records of its own: the tool results it
// sends back (function responses only: kept whole, as unknown, since the
// gemini record's tool calls already say them) and continuations such as
// "System: Please continue." shown as a function response (a user_message
// within the turn). A subagent's user records are its parent's words: they
// begin no turn of the session.
func (d *Decoder) userRecord(h *held) {
	rec := h.rec
	if h.again {
		return
	}
	shown := rec.text
	if rec.shown != nil {
		shown = *rec.shown
	}
	t, n := rec.ts.time, rec.n
	switch {
	case !d.sec.sub && !shown.onlyResponses():
		d.beginTurn(rec, h.pos)
	case rec.text.text != "":
		if !d.sec.sub && d.sec.turn == "" {
			d.beginTurn(rec, h.pos)
		}
	default:
		ev := d.unknown(rec.raw, "user", n, "user")
		ev.Time = t
		d.emit(ev)
		return
	}
	b := &event.UserMessage{Text: rec.text.text}
	if rec.text.images > 0 {
		k := rec.text.images
		b.ImageCount = &k
	}
	ev := d.event(b, t, n, "user")
	ev.Ext = d.residue(rec, false)
	d.emit(ev)
}

// beginTurn begins the turn of a prompt.
func (d *Decoder) beginTurn(rec *record, pos uint64) {
	d.sec.turn, d.sec.turnPos = rec.id, pos
	prompt := rec.text.text
	d.emit(d.event(&event.TurnStarted{Prompt: &prompt}, rec.ts.time, 0, ""))
}

// geminiRecord emits a gemini record: one model round (a model's
// response: its thoughts, its text, its tool calls, and the round with its
// usage), or, for a record Gemini CLI made up, a message.
func (d *Decoder) geminiRecord(h *held) {
	rec := h.rec
	t, n := rec.ts.time, rec.n
	if rec.model != "" && rec.model != d.sec.model {
		d.sec.model = rec.model
		if d.hdr != nil && !d.sec.sub {
			d.hdr.Body.(*event.SessionStarted).Model = rec.model
			d.flushHeader()
		} else {
			d.emit(d.event(&event.ModelConfigured{Model: rec.model}, t, n, "gemini"))
		}
	}
	model := rec.isModelCall()
	if !h.again {
		for _, th := range rec.thoughts {
			text := th.description
			if th.subject != "" {
				// The model wrote the thought as "**Subject** description";
				// Gemini CLI split it.
				text = "**" + th.subject + "**\n\n" + th.description
			}
			ev := d.event(&event.Reasoning{Text: text}, th.ts.time, n, "gemini")
			if th.more {
				var res jsonobj.Residue
				res.Add("thought", []byte(th.raw))
				ev.Ext = event.ExtOf(Name, res.Bytes())
			}
			d.emit(ev)
		}
		if rec.text.thought != "" {
			// Thought parts of the content (a record Gemini CLI made up
			// may hold one): reasoning, kept with the content in the
			// residue.
			d.emit(d.event(&event.Reasoning{Text: rec.text.thought}, t, n, "gemini"))
		}
		if rec.text.text != "" || !model {
			ev := d.event(&event.Message{Text: rec.text.text, MessageID: rec.id}, t, n, "gemini")
			if !model {
				ev.Ext = d.residue(rec, false)
			}
			d.emit(ev)
		}
	}
	for i := range rec.calls {
		d.announce(&rec.calls[i], t, n)
	}
	if model && !h.again {
		b := &event.RoundFinished{}
		keep := false
		if rec.tokens != nil {
			b.Usage, keep = rec.tokens.usage()
			d.total.add(b.Usage)
		}
		if len(rec.calls) > 0 {
			b.StopReason = event.StopToolUse
		}
		ev := d.event(b, t, n, "gemini")
		ev.Ext = d.residue(rec, keep)
		d.emit(ev)
	}
	for i := range rec.calls {
		d.finish(&rec.calls[i], n)
	}
}

// announce emits a call's tool_call, once per call id. What the event
// has no place for rides in its residue: the CLI's display name, whether
// it renders the output as markdown, the subagent it ran, unknown keys;
// and, for a call that had not ended, its status word and what it holds
// of a result.
func (d *Decoder) announce(c *call, t string, n int) {
	if c.agentID != "" {
		d.remember(c)
	}
	if d.open[c.id] || d.finished.Has(c.id) {
		return
	}
	_, ended := toolStatuses[c.status]
	if !ended && len(d.open) < maxOpen {
		d.open[strings.Clone(c.id)] = true
	}
	b := &event.ToolCall{CallID: c.id, Name: c.name, Title: c.description, Kind: toolKind(c.name)}
	if c.args != "" {
		b.Input = []byte(c.args)
	}
	res := &d.res
	res.Reset()
	jsonobj.ForEach(c.raw, func(k, v gjson.Result) bool {
		switch k.Str {
		case "id", "name", "args", "description", "timestamp":
		case "status", "result", "resultDisplay":
			if !ended {
				res.Add(k.Str, []byte(v.Raw))
			}
		default:
			res.Add(k.Str, []byte(v.Raw))
		}
		return true
	})
	ev := d.event(b, t, n, "gemini")
	if !res.Empty() {
		ev.Ext = event.ExtOf(Name, res.Bytes())
	}
	d.emit(ev)
}

// finish emits the tool_finished of a call that ended, once per call id,
// at the call's own time (when it completed).
func (d *Decoder) finish(c *call, n int) {
	st, ok := toolStatuses[c.status]
	if !ok {
		return
	}
	if d.finished.Has(c.id) {
		return
	}
	d.finished.Add(c.id, 0)
	delete(d.open, c.id)
	b := &event.ToolFinished{CallID: c.id, Name: c.name, Status: st}
	out, errText, whole := readResult(c)
	b.Output, b.Error = out, errText
	shown := true
	switch rd := c.resultDisplay; {
	case !rd.Exists() || rd.Type == gjson.Null:
	case rd.Type == gjson.String:
		if rd.Str != "" {
			s := rd.Str
			b.Summary = &s
		}
	case rd.IsObject() && jsonobj.Lookup(rd, "fileDiff").Exists():
		b.Edit = []byte(rd.Raw)
	default:
		shown = false
	}
	res := &d.res
	res.Reset()
	if !whole {
		res.Add("result", []byte(c.result.Raw))
	}
	if !shown {
		res.Add("resultDisplay", []byte(c.resultDisplay.Raw))
	}
	if c.ts.set && !c.ts.exact {
		res.Add("timestamp", []byte(jsonobj.Lookup(c.raw, "timestamp").Raw))
	}
	ev := d.event(b, c.ts.time, n, "gemini")
	if !res.Empty() {
		ev.Ext = event.ExtOf(Name, res.Bytes())
	}
	d.emit(ev)
}

// remember keeps the call that ran a subagent, for the subagent's chat.
func (d *Decoder) remember(c *call) {
	a := d.agents[c.agentID]
	if a == nil {
		if len(d.agents) >= maxAgents {
			return
		}
		a = &agentCall{}
		d.agents[strings.Clone(c.agentID)] = a
	}
	title := c.description
	if title == "" {
		title = c.name
	}
	// Clones: the record's line is not to be kept for them.
	*a = agentCall{callID: strings.Clone(c.id), turn: d.sec.turn, title: strings.Clone(title), status: strings.Clone(c.status), ts: c.ts}
	a.ts.time = strings.Clone(a.ts.time)
}

// readResult reads a call's result (the function response parts sent
// back to the model): the output and error text of its responses, and
// whether they say all of it (one functionResponse of the call, whose
// response holds only output or error strings), so that the result need
// not be kept beside them.
func readResult(c *call) (output *string, errText string, whole bool) {
	v := c.result
	switch {
	case !v.Exists() || v.Type == gjson.Null:
		return nil, "", true
	case v.Type == gjson.String:
		s := v.Str
		return &s, "", true
	}
	whole = true
	parts := 0
	var out strings.Builder
	said := false
	one := func(p gjson.Result) {
		parts++
		fr := jsonobj.Lookup(p, "functionResponse")
		if !p.IsObject() || !fr.IsObject() || countKeys(p) != 1 {
			whole = false
			return
		}
		jsonobj.ForEach(fr, func(k, x gjson.Result) bool {
			switch k.Str {
			case "id":
				whole = whole && x.Str == c.id
			case "name":
				whole = whole && x.Str == c.name
			case "response":
			default:
				whole = false
			}
			return true
		})
		resp := jsonobj.Lookup(fr, "response")
		if !resp.IsObject() {
			whole = false
			return
		}
		jsonobj.ForEach(resp, func(k, x gjson.Result) bool {
			switch {
			case k.Str == "output" && x.Type == gjson.String:
				out.WriteString(x.Str)
				said = true
			case k.Str == "error" && x.Type == gjson.String:
				errText = x.Str
			default:
				whole = false
			}
			return true
		})
	}
	if v.IsArray() {
		jsonobj.ForEach(v, func(_, p gjson.Result) bool { one(p); return true })
	} else {
		one(v)
	}
	if parts != 1 {
		whole = false
	}
	if said {
		s := out.String()
		output = &s
	}
	return output, errText, whole
}

func countKeys(v gjson.Result) int {
	n := 0
	jsonobj.ForEach(v, func(_, _ gjson.Result) bool { n++; return true })
	return n
}
