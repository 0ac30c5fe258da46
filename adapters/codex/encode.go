package codex

import (
	"bufio"
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/jsonenc"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/tidwall/gjson"
)

// Encoder writes canonical events as codex lines.
//
// Each line is derived from the canonical event that writes it (see
// writes), the events of the same item before it (tool_call, task_updated)
// and the state of the lines written so far; its ext.codex residue, if
// any, is laid over the derived line. A stream read from codex is written
// back that way, line for line. A stream from another dialect is first
// fitted to Codex's shape (foreign.go): a thread.started first, items
// inside turns, whole messages, cumulative usage.
type Encoder struct {
	w    *bufio.Writer
	opts dialect.EncodeOptions
	l    jsonobj.Writer // the line
	li   jsonobj.Writer // its item
	lt   jsonobj.Writer // a thread.started that begins a process
	st   state

	// native is set when the source is codex: its lines are written back
	// as they were, nothing is fitted.
	native bool
	begun  bool // the first event was seen

	// mirror is the decoder's encoder: it renders a line into got and
	// neither writes nor commits it; the decoder commits the line it read.
	mirror bool
	got    []byte
	wrote  bool

	res json.RawMessage // the residue of the line being written

	calls callSet              // tool calls announced and not yet completed
	tasks []*event.TaskUpdated // agent states waiting for their collab item's line

	f foreign // the fitting of another dialect's stream
}

// call is what the canonical events said of a tool call before its item
// completed.
type call struct {
	name, title string
	kind        event.ToolKind
	input       json.RawMessage
	itemType    string
	started     bool            // its item.started was written (another dialect's stream)
	output      strings.Builder // tool_output chunks (another dialect's stream)
}

func newEncoder(w *bufio.Writer, opts dialect.EncodeOptions) *Encoder {
	if opts.Losses == nil {
		opts.Losses = &dialect.Losses{}
	}
	return &Encoder{w: w, opts: opts}
}

// newMirror returns the encoder a decoder derives lines with.
func newMirror() *Encoder {
	return &Encoder{opts: dialect.EncodeOptions{Losses: &dialect.Losses{}}, native: true, begun: true, mirror: true}
}

// Encode implements dialect.Encoder.
func (e *Encoder) Encode(ev *event.Event) error {
	if !e.begun {
		if u, ok := ev.Body.(*event.Unknown); ok && u.Dialect != Name {
			// Another dialect's line, which writes nothing here, does not
			// decide the stream's shape or write a header: the session
			// start after it does.
			e.opts.Losses.Foreign(ev.Ext, Name)
			e.opts.Losses.AddDetail(lossUnknownEvent, u.Dialect)
			return nil
		}
		e.begun = true
		if s, ok := ev.Body.(*event.SessionStarted); ok && s.Source.Dialect == Name {
			e.native = true
		}
	}
	e.opts.Losses.Foreign(ev.Ext, Name)
	if !e.native {
		return e.fit(ev)
	}
	return e.line(ev)
}

// Close implements dialect.Encoder. A stream without its end stays
// without one: Codex writes nothing after an interrupted turn either.
func (e *Encoder) Close() error {
	if !e.native {
		if err := e.flushText(); err != nil {
			return err
		}
		if e.f.failing != "" {
			return e.writeFailed("")
		}
	}
	return nil
}

// line writes the line an event of a codex stream stands for, or records
// what a later line of the same item needs.
func (e *Encoder) line(ev *event.Event) error {
	if ev.Synthetic {
		return nil // no source line stands behind it
	}
	if err := e.processStart(ev); err != nil {
		return err
	}
	if v := gjson.GetBytes(ev.Ext.Get(Name), gjson.Escape(lineFallback)); v.IsObject() {
		return e.emit(append([]byte(v.Raw), '\n')) // a line derivation could not rebuild
	}
	switch b := ev.Body.(type) {
	case *event.SessionStarted:
		l := e.begin(ev)
		l.Str("type", "thread.started")
		l.Str("thread_id", b.SessionID)
		if ev.Time != "" || l.Has("timestamp") {
			l.Str("timestamp", ev.Time)
		}
		return e.emit(end(l, e.res))
	case *event.TurnStarted:
		return e.strLine(ev, "turn.started")
	case *event.TurnFinished:
		l := e.begin(ev)
		if b.Status == event.StatusOK {
			l.Str("type", "turn.completed")
			w := wireOf(b.Usage)
			if e.native {
				w = w.plus(e.st.usage) // the thread's running total (see usage.go)
			}
			if w.over() {
				e.opts.Losses.Add(lossBeyondI64)
			}
			if !l.Absent("usage") && l.Key("usage") {
				l.B = appendUsage(l.B, w)
			}
		} else {
			l.Str("type", "turn.failed")
			if !l.Absent("error") && l.Key("error") {
				l.B = appendMessage(l.B, cmpOr(b.Reason, "turn failed"))
			}
		}
		return e.emit(end(l, e.res))
	case *event.Error:
		return e.strLine(ev, "error", "message", b.Message)
	case *event.MessageDelta:
		return e.strLine(ev, "item.plan.delta", "item_id", b.MessageID, "delta", b.Text)
	case *event.PermissionRequested:
		l := e.begin(ev)
		l.Str("type", "request_user_input")
		l.Str("id", b.RequestID)
		l.Str("call_id", b.CallID)
		questions := b.Preview
		if len(questions) == 0 {
			questions = json.RawMessage("[]")
		}
		raw(l, "questions", questions)
		return e.emit(end(l, e.res))
	case *event.Message:
		id := cmpOr(b.MessageID, e.st.nextID())
		return e.item(ev, "item.completed", id, "agent_message", func(li *jsonobj.Writer) { li.Str("text", b.Text) })
	case *event.Reasoning:
		return e.item(ev, "item.completed", e.st.nextID(), "reasoning", func(li *jsonobj.Writer) { li.Str("text", b.Text) })
	case *event.Notice:
		return e.item(ev, "item.completed", e.st.nextID(), "error", func(li *jsonobj.Writer) { li.Str("message", b.Message) })
	case *event.PlanUpdated:
		evType, id := "item.updated", e.st.todo
		if id == "" {
			evType, id = "item.started", e.st.nextID()
		}
		return e.item(ev, evType, id, "todo_list", func(li *jsonobj.Writer) {
			if li.Absent("items") || !li.Key("items") {
				return
			}
			li.B = append(li.B, '[')
			for i, p := range b.Entries {
				if i > 0 {
					li.B = append(li.B, ',')
				}
				first := true
				li.B = append(li.B, '{')
				li.B = jsonenc.Key(li.B, &first, "text")
				li.B = jsonenc.String(li.B, p.Content)
				li.B = jsonenc.Key(li.B, &first, "completed")
				li.B = jsonenc.Bool(li.B, p.Status == "completed")
				li.B = append(li.B, '}')
			}
			li.B = append(li.B, ']')
		})
	case *event.ToolCall:
		c := &call{name: b.Name, title: b.Title, kind: b.Kind, input: b.Input}
		c.itemType = itemTypeOf(c, e.native)
		e.calls.put(b.CallID, c)
		return nil
	case *event.TaskUpdated:
		t := *b
		e.tasks = append(e.tasks, &t)
		return nil
	case *event.ToolStarted:
		return e.tool(ev, b.CallID, b.Name, "item.started", nil)
	case *event.ToolProgress:
		return e.tool(ev, b.CallID, b.Name, "item.updated", nil)
	case *event.ToolFinished:
		return e.tool(ev, b.CallID, b.Name, "item.completed", b)
	case *event.Unknown:
		if b.Dialect != Name {
			e.opts.Losses.AddDetail(lossUnknownEvent, b.Dialect)
			return nil
		}
		return e.emit(append(append([]byte(nil), b.Raw...), '\n'))
	case *event.SessionFinished:
		return nil // Codex ends a run with its last turn; EOF follows
	}
	e.opts.Losses.AddDetail(lossNoSuchEvent, string(ev.Type()))
	return nil
}

// threadKey is the residue key, on the first event that writes a line
// of a process, that tells about the thread.started beginning the
// process: false when the source had none where one is derived (a line
// after a turn ended, in the same process: a stream Codex does not
// write), an object (the thread.started's own residue, maybe {}) when the
// source had one, and none when the derived one is right.
const threadKey = "@thread"

// processStart writes the thread.started that begins a new process of the
// thread before the first line of an event after the process's turn
// ended, or where the event's residue says the source had one. The
// decoder reads such a thread.started into no event of its own: a
// canonical session has one session_started, and a codex thread is the
// output of one process per turn (see state).
func (e *Encoder) processStart(ev *event.Event) error {
	if e.mirror || !writesLine(ev) {
		return nil
	}
	v := gjson.GetBytes(ev.Ext.Get(Name), gjson.Escape(threadKey))
	if !v.IsObject() && (!e.st.ended || v.Type == gjson.False) {
		return nil
	}
	var res json.RawMessage
	if v.IsObject() {
		res = json.RawMessage(v.Raw)
	}
	l := e.threadLine(res)
	// Only the state takes it: the tool calls and agent states announced
	// for the event's line are still waiting for it.
	e.st.commit(l)
	_, err := e.w.Write(l)
	return err
}

// threadLine derives the thread.started that begins a process: the
// thread's id again, with the residue of the source's line.
func (e *Encoder) threadLine(res json.RawMessage) []byte {
	w := &e.lt
	w.Begin(res)
	w.Str("type", "thread.started")
	w.Str("thread_id", e.st.thread)
	return end(w, res)
}

// writesLine reports whether an event of a codex stream writes a line of
// its own (and so may be the first of a process).
func writesLine(ev *event.Event) bool {
	switch b := ev.Body.(type) {
	case *event.TurnStarted, *event.TurnFinished, *event.Error, *event.MessageDelta, *event.PermissionRequested,
		*event.Message, *event.Reasoning, *event.Notice, *event.PlanUpdated,
		*event.ToolStarted, *event.ToolProgress, *event.ToolFinished:
		return !ev.Synthetic
	case *event.Unknown:
		// A thread.started kept whole begins its process itself.
		return b.Dialect == Name && !ev.Synthetic && gjson.GetBytes(b.Raw, "type").Str != "thread.started"
	}
	return false
}

// begin starts a line that is not an item event, with the event's residue.
func (e *Encoder) begin(ev *event.Event) *jsonobj.Writer {
	e.res = ev.Ext.Get(Name)
	e.l.Begin(e.res)
	return &e.l
}

// strLine writes a line of the given type whose other fields are
// strings, given as key and value pairs in the order Codex writes them.
func (e *Encoder) strLine(ev *event.Event, typ string, kv ...string) error {
	l := e.begin(ev)
	l.Str("type", typ)
	for i := 0; i+1 < len(kv); i += 2 {
		l.Str(kv[i], kv[i+1])
	}
	return e.emit(end(l, e.res))
}

// end finishes a line (or an item): the source's own keys that begin with
// '@', which the residue keeps escaped as "@@…" apart from evtool's
// bookkeeping keys, are written back under their names first.
func end(w *jsonobj.Writer, res json.RawMessage) []byte {
	if len(res) > 0 {
		jsonobj.ForEach(gjson.ParseBytes(res), func(k, v gjson.Result) bool {
			if strings.HasPrefix(k.Str, "@@") && w.Key(k.Str[1:]) {
				w.B = append(w.B, v.Raw...)
			}
			return true
		})
	}
	return w.End()
}

// item writes an item event: the item's id and type, then its payload.
func (e *Encoder) item(ev *event.Event, evType, id, itemType string, payload func(li *jsonobj.Writer)) error {
	top, res := split(ev.Ext.Get(Name), true)
	li := &e.li
	li.Begin(res)
	li.Str("id", id)
	li.Str("type", itemType)
	if li.Absent("type") && li.Has("item_type") {
		li.Key("item_type") // Codex before 0.44 wrote the type here, under this name
	}
	payload(li)
	it := end(li, res)
	it = it[:len(it)-1]
	l := &e.l
	e.res = top
	l.Begin(top)
	l.Str("type", evType)
	if l.Key("item") {
		l.B = append(l.B, it...)
	}
	return e.emit(end(l, top))
}

// emit writes a line and commits it; a mirror keeps it for its decoder.
func (e *Encoder) emit(line []byte) error {
	e.wrote = true
	if e.mirror {
		// The decoder reads the line before the mirror writes another:
		// kept where it was written, not copied (a line can be hundreds of
		// megabytes), and the writer that held it takes the buffer of the
		// line before, so that nothing writes over it.
		old := e.got
		e.got = line
		if len(line) > 0 && len(e.l.B) > 0 && &line[0] == &e.l.B[0] {
			e.l.B = old[:0]
		}
		return nil
	}
	e.commit(line)
	_, err := e.w.Write(line)
	e.shed()
	return err
}

// shed lets the buffers of a long line go once a mirror's line is read:
// kept, they would be held beside the next long line's (each line's buffers
// were a line's size three times over).
func (e *Encoder) shed() {
	const long = 1 << 20
	if cap(e.got) > long {
		e.got = nil
	}
	if cap(e.l.B) > long {
		e.l.B = nil
	}
	if cap(e.li.B) > long {
		e.li.B = nil
	}
}

// commit takes a written (or read) line into the state, and forgets what
// the line used up: the agent states waiting for it, a completed call.
// The line is read in place: the state clones what it keeps.
func (e *Encoder) commit(line []byte) { e.commitRoot(jsonobj.View(line)) }

// commitRoot is commit of a line already parsed (by the decoder, which
// reads every line once rather than three times).
func (e *Encoder) commitRoot(r gjson.Result) {
	e.st.commitRoot(r)
	e.tasks = e.tasks[:0]
	if r.Get("type").Str == "item.completed" {
		id, _, _ := itemID(r.Get("item"))
		if e.native {
			id = e.st.callID(id)
		}
		e.calls.del(id)
	}
}

// tool writes a line of a tool item: its start, an update or its end.
func (e *Encoder) tool(ev *event.Event, id, name, evType string, fin *event.ToolFinished) error {
	c := e.calls.peek(id)
	if c == nil {
		c = &call{name: name}
		if fin != nil {
			c.kind = fin.Kind
		}
		c.itemType = itemTypeOf(c, e.native)
		e.calls.put(id, c)
	}
	if fin != nil && c.name == "" && fin.Name != "" {
		c.name = fin.Name // a producer that names the tool only at its end
		e.calls.put(id, c)
	}
	item := id
	if e.native {
		item = e.st.itemIDOf(id)
	}
	o := e.st.open.get(item)
	typ := c.itemType
	if o != nil && toolItems[o.typ] {
		typ = o.typ
	}
	return e.item(ev, evType, item, typ, func(li *jsonobj.Writer) {
		switch typ {
		case "command_execution":
			e.command(li, c, o, fin)
		case "file_change":
			e.fileChange(li, c, o, fin)
		case "web_search":
			e.webSearch(li, c, o, fin)
		case "collab_tool_call":
			e.collab(li, id, c, o, fin)
		default:
			e.mcp(li, c, o, fin)
		}
	})
}

// callKind returns the kind a call was announced with.
func (e *Encoder) callKind(id string) event.ToolKind {
	if c := e.calls.peek(id); c != nil {
		return c.kind
	}
	return ""
}

// itemTypeOf tells the item type of a call by its name, title and kind.
// In a codex stream the decoder named it: an MCP call is titled
// "server/tool". Another dialect's call is a command when it executes and
// an MCP tool call otherwise, the one item Codex has for any tool.
func itemTypeOf(c *call, native bool) string {
	if c.name != "" && strings.HasSuffix(c.title, "/"+c.name) {
		return "mcp_tool_call"
	}
	if native {
		switch c.name {
		case toolShell:
			return "command_execution"
		case toolPatch:
			return "file_change"
		case toolWebSearch:
			return "web_search"
		case "spawn_agent", "send_input", "wait", "close_agent":
			return "collab_tool_call"
		}
		if _, ok := c.inputField("sender_thread_id"); ok {
			return "collab_tool_call" // a collab tool newer than evtool
		}
		return "mcp_tool_call"
	}
	if c.kind == event.KindExecute {
		return "command_execution"
	}
	return "mcp_tool_call"
}

// static returns a field an earlier line of the item wrote.
func static(o *openItem, k string) (json.RawMessage, bool) {
	raw, ok := o.get(k)
	if !ok {
		return nil, false
	}
	return json.RawMessage(raw), true
}

// inputField returns a key of the call's input object.
func (c *call) inputField(k string) (json.RawMessage, bool) {
	if len(c.input) == 0 {
		return nil, false
	}
	v := gjson.GetBytes(c.input, gjson.Escape(k))
	if !v.Exists() {
		return nil, false
	}
	return json.RawMessage(v.Raw), true
}

// commandOf returns the command line of a call: its input's command (a
// string, or an argument vector joined as a shell reads it back, each
// word quoted where it must be: Codex writes "/bin/bash -lc 'exit 42'"),
// else its title or name.
func (c *call) commandOf() string {
	if len(c.input) > 0 {
		in := gjson.ParseBytes(c.input)
		for _, k := range []string{"command", "cmd"} {
			v := in.Get(k)
			if v.Type == gjson.String {
				return v.Str
			}
			if v.IsArray() {
				var parts []string
				jsonobj.ForEach(v, func(_, p gjson.Result) bool {
					parts = append(parts, shellWord(p.String()))
					return true
				})
				return strings.Join(parts, " ")
			}
		}
	}
	return cmpOr(c.title, c.name)
}

// shellWord quotes a word of an argument vector for a POSIX shell: as it
// is when it holds only characters no shell reads specially, else in
// single quotes (a quote inside closes them, escaped, and opens them
// again), so that joined with spaces the words read back as they were:
// ["bash","-lc","go test ./..."] is bash -lc 'go test ./...', not a
// command that runs something else.
func shellWord(w string) string {
	if w != "" && strings.Trim(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%+=:,./_-") == "" {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}

func (e *Encoder) command(li *jsonobj.Writer, c *call, o *openItem, fin *event.ToolFinished) {
	switch {
	case fin != nil && fin.Command != "":
		li.Str("command", fin.Command)
	default:
		if v, ok := static(o, "command"); ok {
			raw(li, "command", v)
		} else {
			li.Str("command", c.commandOf())
		}
	}
	out := ""
	if fin != nil {
		if fin.Output != nil {
			out = *fin.Output
		} else {
			out = c.output.String()
		}
	}
	li.Str("aggregated_output", out)
	var code *int64
	if fin != nil && fin.ExitCode != nil {
		if *fin.ExitCode < math.MinInt32 || *fin.ExitCode > math.MaxInt32 {
			e.opts.Losses.Add(lossExitCode)
		} else {
			code = fin.ExitCode
		}
	}
	nullInt(li, "exit_code", code)
	li.Str("status", e.status("command_execution", fin))
}

func (e *Encoder) fileChange(li *jsonobj.Writer, c *call, o *openItem, fin *event.ToolFinished) {
	changes := json.RawMessage("[]")
	if v, ok := c.inputField("changes"); ok {
		changes = v
	}
	if v, ok := static(o, "changes"); ok {
		changes = v
	}
	if fin != nil && len(fin.Edit) > 0 {
		if v := gjson.GetBytes(fin.Edit, "changes"); v.Exists() {
			changes = json.RawMessage(v.Raw)
		}
	}
	raw(li, "changes", changes)
	li.Str("status", e.status("file_change", fin))
}

func (e *Encoder) mcp(li *jsonobj.Writer, c *call, o *openItem, fin *event.ToolFinished) {
	if v, ok := static(o, "server"); ok {
		raw(li, "server", v)
	} else {
		li.Str("server", strings.TrimSuffix(c.title, "/"+c.name))
	}
	if v, ok := static(o, "tool"); ok && (string(v) != `""` || c.name == "") {
		raw(li, "tool", v)
	} else {
		li.Str("tool", c.name)
	}
	args := c.input
	if v, ok := static(o, "arguments"); ok {
		args = v
	}
	raw(li, "arguments", args)
	var result, errObj []byte
	if fin != nil {
		out := fin.Output
		if out == nil && c.output.Len() > 0 {
			s := c.output.String()
			out = &s
		}
		if out != nil {
			first := true
			result = append(result, '{')
			result = jsonenc.Key(result, &first, "content")
			result = append(result, `[{"type":"text","text":`...)
			result = jsonenc.String(result, *out)
			result = append(result, "}]"...)
			result = jsonenc.Key(result, &first, "structured_content")
			result = append(result, "null}"...)
		}
		if fin.Error != "" {
			errObj = appendMessage(nil, fin.Error)
		}
	}
	raw(li, "result", result)
	raw(li, "error", errObj)
	li.Str("status", e.status("mcp_tool_call", fin))
}

func (e *Encoder) webSearch(li *jsonobj.Writer, c *call, o *openItem, fin *event.ToolFinished) {
	pick := func(k string) (json.RawMessage, bool) {
		if fin != nil && len(fin.Web) > 0 {
			if v := gjson.GetBytes(fin.Web, k); v.Exists() {
				return json.RawMessage(v.Raw), true
			}
			return nil, false
		}
		if o != nil {
			key := k
			if k == "id" {
				key = "id2"
			}
			return static(o, key)
		}
		return c.inputField(k)
	}
	if v, ok := pick("id"); ok {
		raw(li, "id", v)
	}
	if v, ok := pick("query"); ok {
		raw(li, "query", v)
	} else {
		li.Str("query", "")
	}
	if v, ok := pick("action"); ok {
		raw(li, "action", v)
	}
	if fin != nil && len(fin.Web) > 0 {
		// Known only at the search's end (0.157).
		if v := gjson.GetBytes(fin.Web, "results"); v.Exists() {
			raw(li, "results", json.RawMessage(v.Raw))
		}
	}
}

func (e *Encoder) collab(li *jsonobj.Writer, id string, c *call, o *openItem, fin *event.ToolFinished) {
	if v, ok := static(o, "tool"); ok {
		raw(li, "tool", v)
	} else {
		li.Str("tool", c.name)
	}
	for _, k := range []string{"sender_thread_id", "receiver_thread_ids", "prompt"} {
		v, ok := static(o, k)
		if !ok {
			v, ok = c.inputField(k)
		}
		if !ok {
			switch k {
			case "sender_thread_id":
				v = json.RawMessage(`""`)
			case "receiver_thread_ids":
				v = json.RawMessage("[]")
			}
		}
		raw(li, k, v)
	}
	if !li.Absent("agents_states") && li.Key("agents_states") {
		first := true
		li.B = append(li.B, '{')
		for _, t := range e.tasks {
			if t.ParentTaskID != id {
				continue
			}
			li.B = jsonenc.Key(li.B, &first, t.TaskID)
			f := true
			li.B = append(li.B, '{')
			li.B = jsonenc.Key(li.B, &f, "status")
			li.B = jsonenc.String(li.B, cmpOr(agentWords[t.Status], "running"))
			li.B = jsonenc.Key(li.B, &f, "message")
			if t.Detail == "" {
				li.B = append(li.B, "null"...)
			} else {
				li.B = jsonenc.String(li.B, t.Detail)
			}
			li.B = append(li.B, '}')
		}
		li.B = append(li.B, '}')
	}
	li.Str("status", e.status("collab_tool_call", fin))
}

// status renders an item's status: in_progress until it completes.
func (e *Encoder) status(itemType string, fin *event.ToolFinished) string {
	if fin == nil {
		return "in_progress"
	}
	w, exact := statusWord(itemType, fin.Status)
	if !exact && !e.native {
		e.opts.Losses.AddDetail(lossToolStatus, strconv.Quote(string(fin.Status))+" on "+itemType)
	}
	return w
}

// raw writes a raw JSON field, null when v is empty, unless the line's
// residue says the source lacked it.
func raw(w *jsonobj.Writer, k string, v []byte) {
	if w.Absent(k) {
		return
	}
	if w.Key(k) {
		if len(v) == 0 {
			w.B = append(w.B, "null"...)
		} else {
			w.B = append(w.B, v...)
		}
	}
}

// nullInt writes an Option<i32> field: the number, or null.
func nullInt(w *jsonobj.Writer, k string, v *int64) {
	if w.Absent(k) {
		return
	}
	if w.Key(k) {
		if v == nil {
			w.B = append(w.B, "null"...)
		} else {
			w.B = jsonenc.Int(w.B, *v)
		}
	}
}

// appendMessage appends {"message":s}.
func appendMessage(dst []byte, s string) []byte {
	dst = append(dst, `{"message":`...)
	dst = jsonenc.String(dst, s)
	return append(dst, '}')
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
