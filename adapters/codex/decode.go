package codex

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/jsonenc"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/evtool/evtool/internal/openset"
	"github.com/tidwall/gjson"
)

// Decoder reads codex lines into canonical events.
//
// Codex names no turn; the decoder numbers them turn-1, turn-2, … A tool
// item becomes a tool_call when it is first seen, a tool_started on its
// item.started, a tool_progress on an item.updated and a tool_finished on
// its item.completed; a collab item's agent states become task_updated
// events of its subagent threads, before the item's own event. The stream's
// session_finished is synthesised at its end when its last turn ended
// (turn.completed or turn.failed); without that the stream is incomplete
// and stays truncated.
//
// After building a line's events the decoder derives the line the encoder
// would write from them (with the same state, see state.go) and keeps the
// difference to the real line as the residue, on the event that writes the
// line.
type Decoder struct {
	jsonobj.OwnLine // a long line is read in place (UseOwn)
	opts            dialect.DecodeOptions
	enc             *Encoder // derives lines, in step with the stream
	begun           bool
	turns           int
	turn            string      // the open turn's id, "" between turns
	calls           openset.Set // tool items announced and not completed

	ended  bool // the last turn ended
	status event.Status
	reason string
	usage  *event.Usage
	answer *string // the last agent message of the last turn

	// proc is the thread.started that began the current process (after
	// the first), while no event of the process carries it yet: its
	// line, and the residue the first event that writes a line gets
	// under threadKey (nil for none).
	proc    []byte
	procRes json.RawMessage
	// verdicts: the caller reads no event (stream.Options.VerdictsOnly),
	// so no residue is found.
	verdicts bool
}

// VerdictsOnly makes the decoder find no residue of its lines (what a
// line holds beyond its events, found by writing them back): for a
// caller that reads the lines' verdicts and no event, as validate does.
// Errors are the same. Call it before the first line.
func (d *Decoder) VerdictsOnly() { d.verdicts = true }

func newDecoder(opts dialect.DecodeOptions) *Decoder {
	return &Decoder{opts: opts, enc: newMirror()}
}

// reader reads typed values of one line, keeping the first error.
type reader struct{ err error }

func (r *reader) fail(ptr, msg string) {
	if r.err == nil {
		r.err = &DecodeError{Pointer: ptr, Msg: msg}
	}
}

// str reads a string; absent reads as "" (the schema says whether it may
// be absent).
func (r *reader) str(v gjson.Result, ptr string) string {
	if !v.Exists() {
		return ""
	}
	if v.Type != gjson.String {
		r.fail(ptr, "got "+jsonobj.TypeName(v)+", want a string")
		return ""
	}
	return v.Str
}

// optStr reads an Option<String>: absent and null are None.
func (r *reader) optStr(v gjson.Result, ptr string) (string, bool) {
	if !v.Exists() || v.Type == gjson.Null {
		return "", false
	}
	return r.str(v, ptr), r.err == nil
}

// Decode implements dialect.Decoder.
func (d *Decoder) Decode(out []*event.Event, line []byte, n int) ([]*event.Event, error) {
	root := d.ParseLine(line)
	if !root.IsObject() {
		return out, &DecodeError{Msg: "a codex line must be a JSON object"}
	}
	tv := root.Get("type")
	if !tv.Exists() || tv.Type != gjson.String {
		// Kept whole, like every line the decoder cannot read.
		d.enc.commit(line)
		err := &DecodeError{Pointer: "/type", Msg: "missing event type"}
		if tv.Exists() {
			err.Msg = "got " + jsonobj.TypeName(tv) + ", want a string"
		}
		return append(out, d.unknown("", line)...), err
	}
	typ := tv.Str
	if !d.begun {
		d.begun = true
		if typ != "thread.started" {
			// A stream cut at its head still begins a canonical one.
			out = append(out, &event.Event{Synthetic: true, Body: d.header("")})
		}
	} else if typ == "thread.started" {
		r := &reader{}
		r.str(root.Get("thread_id"), "/thread_id")
		r.optStr(root.Get("timestamp"), "/timestamp")
		if r.err != nil {
			// Kept whole, like every line the decoder cannot read; it
			// still begins a process.
			out = d.process(out, nil)
			d.enc.commit(line)
			return append(out, d.unknown(typ, line)...), r.err
		}
		return d.process(out, line), nil
	}
	// Where the state derives a thread.started that the source lacks
	// (a second turn in one process), the line's first event says so.
	var procRes json.RawMessage
	switch {
	case d.proc != nil:
		procRes = d.procRes
	case d.enc.st.ended:
		procRes = json.RawMessage("false")
	}
	evs, writer, err := d.events(root, typ, line)
	if err != nil {
		// The line is kept whole, as a line the decoder cannot read.
		evs, writer = d.unknown(typ, line), -1
	}
	if writer >= 0 && !d.verdicts {
		d.residue(evs, writer, line, typ)
	}
	if d.proc != nil || procRes != nil {
		evs = d.attachProcess(evs, procRes)
	}
	if !d.verdicts {
		// The state lines are derived with (the residue) and events'
		// ids and usage are found with; no error comes of it.
		d.enc.commitRoot(root)
	}
	for _, ev := range evs {
		if d.opts.Provenance && !ev.Synthetic {
			ev.Src = &event.Source{Dialect: Name, Line: n, Type: typ}
		}
	}
	return append(out, evs...), err
}

// process reads a thread.started after the first line: the start of
// another `codex exec` (resume) process of the thread. It makes no event
// of its own (the session has begun); the first event of the process that
// writes a line carries what the encoder needs to write it back (see
// processStart). A turn the previous process left open ends here, with
// the error of an interrupted run. line is nil for a thread.started the
// decoder cannot read, which the caller keeps whole.
func (d *Decoder) process(out []*event.Event, line []byte) []*event.Event {
	if d.proc != nil {
		// The previous process wrote nothing but its thread.started.
		out = append(out, d.unknown("thread.started", d.proc)...)
		d.proc = nil
	}
	if d.turn != "" {
		out = append(out, &event.Event{TurnID: d.turn, Synthetic: true, Body: &event.TurnFinished{Status: event.StatusError,
			Reason: "the process ended inside the turn, without turn.completed or turn.failed (interrupted or killed)"}})
		d.turn, d.ended = "", false
	}
	d.calls = openset.Set{} // the process numbers its items from item_0 again
	if line == nil {
		return out // a line kept whole: it writes itself
	}
	res := diffLine(line, d.enc.threadLine(nil), false)
	if res == nil && !d.enc.st.ended {
		res = json.RawMessage("{}") // not derived here: the residue says it is there
	}
	d.proc, d.procRes = append([]byte(nil), line...), res
	d.enc.commit(line)
	return out
}

// attachProcess puts the residue of the process's thread.started on the
// first event that writes a line; a line with none keeps the
// thread.started whole before its events.
func (d *Decoder) attachProcess(evs []*event.Event, res json.RawMessage) []*event.Event {
	proc := d.proc
	d.proc, d.procRes = nil, nil
	for _, ev := range evs {
		if writesLine(ev) {
			if res != nil {
				ev.Ext = event.ExtOf(Name, withKey(ev.Ext.Get(Name), threadKey, res))
			}
			return evs
		}
	}
	if proc == nil {
		return evs
	}
	return append(d.unknown("thread.started", proc), evs...)
}

// residue derives the line from its events and puts what the real line
// has beyond it on the event that writes it.
func (d *Decoder) residue(evs []*event.Event, writer int, line []byte, typ string) {
	enc := d.enc
	enc.wrote = false
	defer enc.shed()
	for _, ev := range evs {
		if !ev.Synthetic {
			enc.line(ev) // a mirror never fails
		}
	}
	if !enc.wrote {
		return
	}
	itemLine := strings.HasPrefix(typ, "item.") && typ != "item.plan.delta"
	res := diffLine(line, enc.got, itemLine)
	if res == nil {
		return
	}
	w := evs[writer]
	w.Ext = event.ExtOf(Name, res)
	// The residue must rebuild the line; if it cannot, the line is kept
	// whole.
	enc.line(w)
	if diffLine(line, enc.got, itemLine) != nil {
		w.Ext = event.ExtOf(Name, fallback(line))
	}
}

// header is the session_started of a codex stream.
func (d *Decoder) header(thread string) *event.SessionStarted {
	return &event.SessionStarted{Schema: event.SchemaVersion, Source: event.SourceInfo{Dialect: Name}, Agent: &event.Agent{Name: Name}, SessionID: thread}
}

// events returns the events of one line and the index of the one that
// writes it back (-1 for none).
func (d *Decoder) events(root gjson.Result, typ string, line []byte) (evs []*event.Event, writer int, err error) {
	r := &reader{}
	switch typ {
	case "thread.started":
		s := d.header(r.str(root.Get("thread_id"), "/thread_id"))
		ev := &event.Event{Body: s}
		if ts, ok := r.optStr(root.Get("timestamp"), "/timestamp"); ok {
			ev.Time = canonicalTime(ts)
		}
		evs = append(evs, ev)
	case "turn.started":
		d.turns++
		d.turn = "turn-" + strconv.Itoa(d.turns)
		d.ended, d.answer = false, nil
		evs = append(evs, d.at(&event.TurnStarted{}))
	case "turn.completed", "turn.failed":
		if evs, err = d.turnEnded(r, root, typ); err != nil {
			return nil, -1, err
		}
	case "error":
		evs = append(evs, d.at(&event.Error{Message: r.str(root.Get("message"), "/message")}))
	case "item.plan.delta":
		evs = append(evs, d.at(&event.MessageDelta{Text: r.str(root.Get("delta"), "/delta"), MessageID: r.str(root.Get("item_id"), "/item_id")}))
	case "request_user_input":
		evs = append(evs, d.at(userInput(r, root)))
	case "item.started", "item.updated", "item.completed":
		item := root.Get("item")
		if !item.IsObject() {
			if !item.Exists() {
				return nil, -1, &DecodeError{Pointer: "/item", Msg: "missing item"}
			}
			return nil, -1, &DecodeError{Pointer: "/item", Msg: "got " + jsonobj.TypeName(item) + ", want an object"}
		}
		itemType := itemTypeField(item)
		if _, known := itemFields[itemType]; !known {
			return d.unknown(typ+"/"+itemType, line), -1, nil
		}
		evs, err = d.item(r, typ, itemType, item)
		if err != nil {
			return nil, -1, err
		}
	default:
		return d.unknown(typ, line), -1, nil
	}
	if r.err != nil {
		return nil, -1, r.err
	}
	// The last event of a line is the one that writes it.
	return evs, len(evs) - 1, nil
}

// turnEnded returns the events of turn.completed and turn.failed: the
// turn's end, after a start if the turn had none.
func (d *Decoder) turnEnded(r *reader, root gjson.Result, typ string) ([]*event.Event, error) {
	var evs []*event.Event
	if d.turn == "" {
		// A turn that ends without a start still ends a turn.
		d.turns++
		d.turn = "turn-" + strconv.Itoa(d.turns)
		evs = append(evs, &event.Event{TurnID: d.turn, Synthetic: true, Body: &event.TurnStarted{}})
	}
	b := &event.TurnFinished{Status: event.StatusOK}
	if typ == "turn.completed" {
		u := root.Get("usage")
		if u.Exists() && !u.IsObject() {
			r.fail("/usage", "got "+jsonobj.TypeName(u)+", want an object")
		} else if u.Exists() {
			c, err := readCounts(u)
			if err != nil {
				return nil, err
			}
			// The turn's own usage; the thread's total (and the totals
			// of the threads before it) ends the run.
			b.Usage, d.usage = c.since(d.enc.st.usage).canonical(), c.add(d.enc.st.spent).canonical()
		}
	} else {
		b.Status = event.StatusError
		if e := root.Get("error"); e.IsObject() {
			b.Reason = r.str(e.Get("message"), "/error/message")
		} else if e.Exists() {
			r.fail("/error", "got "+jsonobj.TypeName(e)+", want an object")
		}
	}
	evs = append(evs, d.at(b))
	d.turn, d.ended, d.status, d.reason = "", true, b.Status, b.Reason
	return evs, nil
}

// userInput reads request_user_input: a permission request whose
// questions are its description.
func userInput(r *reader, root gjson.Result) *event.PermissionRequested {
	b := &event.PermissionRequested{RequestID: r.str(root.Get("id"), "/id"), CallID: r.str(root.Get("call_id"), "/call_id"), Tool: "request_user_input"}
	if q := root.Get("questions"); q.IsArray() {
		b.Preview = json.RawMessage(q.Raw)
		var texts []string
		jsonobj.ForEach(q, func(_, v gjson.Result) bool {
			if t := v.Get("question"); t.Type == gjson.String {
				texts = append(texts, t.Str)
			}
			return true
		})
		b.Description = strings.Join(texts, "\n")
	} else if q.Exists() {
		r.fail("/questions", "got "+jsonobj.TypeName(q)+", want an array")
	}
	return b
}

// itemTypeField returns an item's type; items of Codex before 0.44 named
// it item_type, and called an agent message assistant_message.
func itemTypeField(item gjson.Result) string {
	if t := item.Get("type"); t.Exists() {
		return t.String()
	}
	t := item.Get("item_type").String()
	if t == "assistant_message" {
		return "agent_message"
	}
	return t
}

// unknown keeps a line of a type evtool does not know whole.
func (d *Decoder) unknown(typ string, line []byte) []*event.Event {
	return []*event.Event{{TurnID: d.turn, Body: &event.Unknown{Dialect: Name, SourceType: typ, Raw: append(json.RawMessage(nil), line...)}}}
}

// itemLine reads the fields of one item line, keeping the first error.
type itemLine struct {
	r    *reader
	item gjson.Result
}

func (l itemLine) get(k string) gjson.Result { return jsonobj.Lookup(l.item, k) }
func (l itemLine) str(k string) string       { return l.r.str(l.get(k), "/item/"+k) }

// toolItem is what a tool item's line says of its call.
type toolItem struct {
	name, title string
	kind        event.ToolKind
	input       json.RawMessage
	fin         *event.ToolFinished
	tasks       []*event.Event // a collab item's agent states
}

// at returns an event of the open turn.
func (d *Decoder) at(b event.Body) *event.Event { return &event.Event{TurnID: d.turn, Body: b} }

// item returns the events of an item line: what an item of each type
// says is read by one method per type.
func (d *Decoder) item(r *reader, evType, itemType string, item gjson.Result) ([]*event.Event, error) {
	id, id2, has2 := itemID(item)
	if v := item.Get("id"); v.Exists() && v.Type != gjson.String {
		r.fail("/item/id", "got "+jsonobj.TypeName(v)+", want a string")
	}
	l := itemLine{r: r, item: item}
	switch itemType {
	case "agent_message", "plan":
		text := l.str("text")
		if itemType == "agent_message" {
			d.answer = &text
		}
		return []*event.Event{d.at(&event.Message{Text: text, MessageID: id})}, r.err
	case "reasoning":
		return []*event.Event{d.at(&event.Reasoning{Text: l.str("text")})}, r.err
	case "error":
		return []*event.Event{d.at(&event.Notice{Severity: event.SeverityWarning, Message: l.str("message")})}, r.err
	case "todo_list":
		return []*event.Event{d.at(todoItem(l))}, r.err
	}

	// A tool item. Its call id names it in the whole session (see
	// state.callID).
	cid := d.enc.st.callID(id)
	t := toolItem{fin: &event.ToolFinished{CallID: cid}}
	switch itemType {
	case "command_execution":
		if err := commandItem(l, &t); err != nil {
			return nil, err
		}
	case "file_change":
		fileChangeItem(l, &t)
	case "mcp_tool_call":
		mcpItem(l, &t)
	case "web_search":
		webSearchItem(l, &t, id2, has2)
	case "collab_tool_call":
		d.collabItem(l, &t, cid)
	}
	if st := l.get("status"); st.Exists() && itemType != "web_search" {
		w := r.str(st, "/item/status")
		if s, ok := finalStatuses[w]; ok {
			t.fin.Status = s
		} else {
			t.fin.Status = event.ToolError // a newer word; the residue keeps it
		}
	}
	if t.fin.Status == "" {
		t.fin.Status = event.ToolSuccess
	}
	if r.err != nil {
		return nil, r.err
	}
	return d.toolEvents(evType, itemType, cid, &t), nil
}

// toolEvents returns the events of a tool item's line: its tool_call when
// it is first seen, its subagents' states, then the event of the line's
// type.
func (d *Decoder) toolEvents(evType, itemType, cid string, t *toolItem) []*event.Event {
	var evs []*event.Event
	if !d.calls.Has(cid) {
		d.calls.Add(cid, 0, "")
		evs = append(evs, d.at(&event.ToolCall{CallID: cid, Name: t.name, Title: t.title, Kind: t.kind, Input: t.input}))
	} else if itemType == "web_search" && evType == "item.completed" && t.kind != d.enc.callKind(cid) {
		t.fin.Kind = t.kind // the search's action is known only now
	}
	evs = append(evs, t.tasks...)
	switch evType {
	case "item.started":
		evs = append(evs, d.at(&event.ToolStarted{CallID: cid, Name: t.name}))
	case "item.updated":
		evs = append(evs, d.at(&event.ToolProgress{CallID: cid, Name: t.name, Message: t.title}))
	default:
		d.calls.Delete(cid)
		t.fin.Name = t.name
		evs = append(evs, d.at(t.fin))
	}
	return evs
}

// todoItem reads a todo_list item as a plan.
func todoItem(l itemLine) *event.PlanUpdated {
	r := l.r
	b := &event.PlanUpdated{Entries: []event.PlanEntry{}}
	items := l.get("items")
	if items.Exists() && !items.IsArray() {
		r.fail("/item/items", "got "+jsonobj.TypeName(items)+", want an array")
	}
	i := 0
	jsonobj.ForEach(items, func(_, t gjson.Result) bool {
		ptr := "/item/items/" + strconv.Itoa(i)
		p := event.PlanEntry{Content: r.str(t.Get("text"), ptr+"/text"), Status: "pending"}
		if c := t.Get("completed"); c.Exists() && !c.IsBool() {
			r.fail(ptr+"/completed", "got "+jsonobj.TypeName(c)+", want a boolean")
		} else if c.Bool() {
			p.Status = "completed"
		}
		b.Entries = append(b.Entries, p)
		i++
		return true
	})
	return b
}

// commandItem reads a command_execution item: a shell call.
func commandItem(l itemLine, t *toolItem) error {
	cmd := l.str("command")
	t.name, t.title, t.kind = toolShell, cmd, event.KindExecute
	t.input = jsonenc.String([]byte(`{"command":`), cmd)
	t.input = append(t.input, '}')
	out := l.str("aggregated_output")
	t.fin.Output, t.fin.Command = &out, cmd
	if v := l.get("exit_code"); v.Exists() && v.Type != gjson.Null {
		n, msg := jsonobj.ParseInt(v, jsonobj.I32)
		if msg != "" {
			return &DecodeError{Pointer: "/item/exit_code", Msg: msg}
		}
		t.fin.ExitCode = &n
	}
	return nil
}

// fileChangeItem reads a file_change item: a patch call, whose changes
// are its input and its edit.
func fileChangeItem(l itemLine, t *toolItem) {
	r := l.r
	changes := l.get("changes")
	var paths, kinds []string
	if changes.Exists() && !changes.IsArray() {
		r.fail("/item/changes", "got "+jsonobj.TypeName(changes)+", want an array")
	}
	i := 0
	jsonobj.ForEach(changes, func(_, c gjson.Result) bool {
		ptr := "/item/changes/" + strconv.Itoa(i)
		paths = append(paths, r.str(c.Get("path"), ptr+"/path"))
		kinds = append(kinds, r.str(c.Get("kind"), ptr+"/kind"))
		i++
		return true
	})
	t.name, t.title, t.kind = toolPatch, strings.Join(paths, ", "), changeKind(kinds)
	raw := changes.Raw
	if raw == "" {
		raw = "[]"
	}
	t.input = json.RawMessage(`{"changes":` + raw + `}`)
	t.fin.Edit = t.input
}

// mcpItem reads an mcp_tool_call item: its result's text is the call's
// output.
func mcpItem(l itemLine, t *toolItem) {
	r := l.r
	server, tool := l.str("server"), l.str("tool")
	t.name, t.title, t.kind = tool, server+"/"+tool, mcpKind(tool)
	if a := l.get("arguments"); a.Exists() && a.Type != gjson.Null {
		t.input = json.RawMessage(a.Raw)
	}
	if res := l.get("result"); res.IsObject() {
		var texts []string
		any := false
		jsonobj.ForEach(res.Get("content"), func(_, c gjson.Result) bool {
			if c.Get("type").Str == "text" && c.Get("text").Type == gjson.String {
				texts = append(texts, c.Get("text").Str)
				any = true
			}
			return true
		})
		if any {
			s := strings.Join(texts, "\n")
			t.fin.Output = &s
		}
	} else if res.Exists() && res.Type != gjson.Null {
		r.fail("/item/result", "got "+jsonobj.TypeName(res)+", want an object or null")
	}
	if e := l.get("error"); e.IsObject() {
		t.fin.Error = r.str(e.Get("message"), "/item/error/message")
	} else if e.Exists() && e.Type != gjson.Null {
		r.fail("/item/error", "got "+jsonobj.TypeName(e)+", want an object or null")
	}
}

// webSearchItem reads a web_search item: its id (when a second one names
// the search), query and action are its input and its web details.
func webSearchItem(l itemLine, t *toolItem, id2 string, has2 bool) {
	query := l.str("query")
	action := l.get("action")
	t.name, t.title, t.kind = toolWebSearch, query, webKind(action.Get("type").Str)
	if t.title == "" {
		t.title = action.Get("url").Str
	}
	in := []byte{'{'}
	first := true
	if has2 {
		in = jsonenc.Key(in, &first, "id")
		in = append(in, id2...)
	}
	if q := l.get("query"); q.Exists() {
		in = jsonenc.Key(in, &first, "query")
		in = append(in, q.Raw...)
	}
	if action.Exists() {
		in = jsonenc.Key(in, &first, "action")
		in = append(in, action.Raw...)
	}
	t.input = append(in, '}')
	t.fin.Web, t.fin.Status = t.input, event.ToolSuccess
	if res := l.get("results"); res.Exists() {
		// The search's results (0.157) are the web details of its
		// end, not its input.
		if !res.IsArray() && res.Type != gjson.Null {
			l.r.fail("/item/results", "got "+jsonobj.TypeName(res)+", want an array or null")
		}
		web := append([]byte(nil), in...)
		web = jsonenc.Key(web, &first, "results")
		web = append(web, res.Raw...)
		t.fin.Web = append(web, '}')
	}
}

// collabItem reads a collab_tool_call item: its agents' states are
// task_updated events of its subagents.
func (d *Decoder) collabItem(l itemLine, t *toolItem, cid string) {
	r := l.r
	tool := l.str("tool")
	t.name, t.title, t.kind = tool, tool, event.KindOther
	in := []byte{'{'}
	first := true
	for _, k := range []string{"sender_thread_id", "receiver_thread_ids", "prompt"} {
		if v := l.get(k); v.Exists() {
			in = jsonenc.Key(in, &first, k)
			in = append(in, v.Raw...)
		}
	}
	t.input = append(in, '}')
	prompt, _ := r.optStr(l.get("prompt"), "/item/prompt")
	states := l.get("agents_states")
	if states.Exists() && !states.IsObject() {
		r.fail("/item/agents_states", "got "+jsonobj.TypeName(states)+", want an object")
	}
	jsonobj.ForEach(states, func(k, v gjson.Result) bool {
		ptr := "/item/agents_states/" + k.Str
		ts := &event.TaskUpdated{TaskID: k.Str, Kind: event.TaskSubagent, Status: event.TaskRunning, Title: prompt, ParentTaskID: cid}
		if s, ok := agentStatuses[r.str(v.Get("status"), ptr+"/status")]; ok {
			ts.Status = s
		}
		ts.Detail, _ = r.optStr(v.Get("message"), ptr+"/message")
		t.tasks = append(t.tasks, d.at(ts))
		return true
	})
}

// End implements dialect.Decoder: a stream whose last turn ended finishes
// with that turn's status and the thread's usage; one that stops inside a
// turn, or before any, is incomplete and gets no session_finished.
func (d *Decoder) End(out []*event.Event) []*event.Event {
	if d.proc != nil {
		// A process that wrote only its thread.started: the run is
		// incomplete, its line kept whole.
		out = append(out, d.unknown("thread.started", d.proc)...)
		d.proc = nil
		return out
	}
	if !d.ended || d.turn != "" {
		return out
	}
	b := &event.SessionFinished{Status: d.status, Message: d.reason, Usage: d.usage, Text: d.answer}
	if b.Status == event.StatusOK {
		b.Message = ""
	}
	return append(out, &event.Event{Synthetic: true, Body: b})
}

// canonicalTime renders an RFC 3339 time in the canonical form (UTC,
// microseconds); a text that is not one gives "" (the residue keeps it).
func canonicalTime(s string) string {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return ""
	}
	return t.UTC().Format("2006-01-02T15:04:05.000000Z")
}
