package acp

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/evtool/evtool/internal/openset"
	"github.com/tidwall/gjson"
)

// Decoder reads ACP JSON-RPC messages (notification logs or transcripts)
// into canonical events. session/prompt and its response become a turn;
// a permission request and its answer become permission_requested and
// permission_resolved; tool_call_update content, which replaces the
// stored collection, becomes the new text as a tool_output chunk.
type Decoder struct {
	jsonobj.OwnLine // a long line is read in place (UseOwn)
	opts            dialect.DecodeOptions
	started         bool
	pending         []*event.Event // events read before the session id was known
	session         string
	turns           int
	turn            string
	prompts         map[string]string // JSON-RPC id of a session/prompt → turn id
	asks            map[string]ask    // JSON-RPC id of a permission request → what it asked
	content         map[string]string // call id → text of its content so far, while it runs
	names           callNames         // call id → its name, while it runs
	prompt          string            // text of the turn's prompt, to drop its echo
	open            bool              // a prompt awaits its response
	// meta is set once a message carried canonical events (--acp-meta):
	// from then on those are the stream, and the messages themselves,
	// which show them to a client, give nothing more.
	meta bool
}

func newDecoder(opts dialect.DecodeOptions) *Decoder {
	return &Decoder{opts: opts, prompts: map[string]string{}, asks: map[string]ask{}, content: map[string]string{}}
}

// Decode implements dialect.Decoder.
func (d *Decoder) Decode(out []*event.Event, line []byte, n int) ([]*event.Event, error) {
	r := d.ParseLine(line)
	if !r.IsObject() {
		return out, &DecodeError{Msg: "an ACP message must be a JSON object"}
	}
	if carried := r.Get("params._meta." + MetaKey + ".events"); carried.IsArray() {
		d.meta, d.started = true, true
		var err error
		i := 0
		carried.ForEach(func(_, v gjson.Result) bool {
			ev, perr := event.Parse([]byte(v.Raw))
			if perr != nil {
				err = metaError(i, perr)
				return false
			}
			out = append(out, ev)
			i++
			return true
		})
		return out, err
	}
	if d.meta {
		return out, nil
	}
	evs := d.message(r, line)
	for _, ev := range evs {
		if ev.TurnID == "" {
			ev.TurnID = d.turn
		}
		if d.opts.Provenance && !ev.Synthetic {
			t := r.Get("method").Str
			if t == "" {
				t = "response"
			}
			ev.Src = &event.Source{Dialect: Name, Line: n, Type: t}
		}
	}
	if !d.started {
		if sid := r.Get("params.sessionId").Str; sid != "" || len(d.pending) > 64 {
			d.started, d.session = true, sid
			out = append(out, &event.Event{Synthetic: true, Body: &event.SessionStarted{
				Schema: event.SchemaVersion, Source: event.SourceInfo{Dialect: Name, Version: ptr(1)}, SessionID: sid}})
			out = append(out, d.pending...)
			d.pending = nil
		} else {
			d.pending = append(d.pending, evs...)
			return out, nil
		}
	}
	return append(out, evs...), nil
}

// ask is a permission request read: its call, and the kind of each of its
// options (allow_once, allow_always, reject_once, reject_always).
type ask struct {
	call  string
	kinds map[string]string
}

// maxOptions bounds the options remembered of one request.
const maxOptions = 64

// outcome reads the option a client selected by its kind, as ACP means
// it; an option the request did not offer is read by its id as evtool
// writes them (allow, allow-always, reject).
func (a ask) outcome(option string) (event.Outcome, string) {
	kind, ok := a.kinds[option]
	if !ok {
		kind = strings.ReplaceAll(option, "-", "_")
		if kind == "allow" || kind == "reject" {
			kind += "_once"
		}
	}
	switch kind {
	case "allow_once":
		return event.Allowed, ""
	case "allow_always":
		return event.Allowed, "session"
	case "reject_always":
		return event.Denied, "session"
	}
	return event.Denied, ""
}

// metaPointer is the JSON Pointer of the canonical events an ACP message
// carries (the key's "/" escaped as "~1").
var metaPointer = "/params/_meta/" + strings.ReplaceAll(strings.ReplaceAll(MetaKey, "~", "~0"), "/", "~1") + "/events/"

// metaError is the error of the i-th canonical event carried under _meta,
// placed at its pointer.
func metaError(i int, err error) error {
	at := metaPointer + strconv.Itoa(i)
	msg := err.Error()
	var fe *event.FieldError
	if errors.As(err, &fe) {
		at += fe.Pointer
		msg = fe.Msg
	}
	return &DecodeError{Msg: at + ": " + msg, Pointer: at}
}

// DecodeError is an ACP message evtool cannot read.
type DecodeError struct {
	Msg     string
	Pointer string // where in the message, when known
}

func (e *DecodeError) Error() string { return e.Msg }

// Position implements the position the stream reports the error at.
func (e *DecodeError) Position() string { return e.Pointer }

func ptr(n uint64) *uint64 { return &n }

func (d *Decoder) unknown(r gjson.Result, line []byte, what string) []*event.Event {
	return []*event.Event{{Body: &event.Unknown{Dialect: Name, SourceType: what, Raw: append(json.RawMessage(nil), line...)}}}
}

func (d *Decoder) message(r gjson.Result, line []byte) []*event.Event {
	method, id := r.Get("method").Str, r.Get("id")
	p := r.Get("params")
	switch {
	case method == "session/update":
		return d.update(p.Get("update"), line)
	case method == "session/prompt" && id.Exists():
		d.turns++
		d.turn = "turn-" + strconv.Itoa(d.turns)
		d.prompts[strings.Clone(id.Raw)] = d.turn
		d.open = true
		var parts []string
		jsonobj.ForEach(p.Get("prompt"), func(_, b gjson.Result) bool {
			if b.Get("type").Str == "text" {
				parts = append(parts, b.Get("text").Str)
			}
			return true
		})
		text := strings.Join(parts, "\n")
		d.prompt = text
		return []*event.Event{{TurnID: d.turn, Body: &event.TurnStarted{Prompt: &text}},
			{TurnID: d.turn, Synthetic: true, Body: &event.UserMessage{Text: text}}}
	case method == "session/request_permission" && id.Exists():
		call := p.Get("toolCall.toolCallId").Str
		a := ask{call: strings.Clone(call), kinds: map[string]string{}}
		jsonobj.ForEach(p.Get("options"), func(_, o gjson.Result) bool {
			if len(a.kinds) < maxOptions {
				a.kinds[o.Get("optionId").Str] = o.Get("kind").Str
			}
			return true
		})
		d.asks[strings.Clone(id.Raw)] = a
		title := p.Get("toolCall.title").Str
		return []*event.Event{{Body: &event.PermissionRequested{RequestID: id.Raw, CallID: call, Tool: d.names.get(call), Description: title}}}
	case method == "" && id.Exists() && r.Get("result").Exists():
		res := r.Get("result")
		if turn, ok := d.prompts[id.Raw]; ok && res.Get("stopReason").Exists() {
			delete(d.prompts, id.Raw)
			d.open = false
			status := event.StatusOK
			reason := event.StopReason(res.Get("stopReason").Str)
			if reason == event.StopCancelled {
				status = event.StatusCancelled
			}
			if !reason.Valid() {
				reason = event.StopOther
			}
			f := &event.TurnFinished{Status: status, StopReason: reason}
			if u := res.Get("usage"); u.IsObject() {
				f.Usage = &event.Usage{TotalTokens: num(u, "totalTokens"), InputTokens: num(u, "inputTokens"), OutputTokens: num(u, "outputTokens"),
					ThoughtsTokens: num(u, "thoughtTokens"), CacheReadTokens: num(u, "cachedReadTokens"), CacheCreationTokens: num(u, "cachedWriteTokens")}
			}
			return []*event.Event{{TurnID: turn, Body: f}}
		}
		if a, ok := d.asks[id.Raw]; ok && res.Get("outcome").Exists() {
			delete(d.asks, id.Raw)
			pr := &event.PermissionResolved{RequestID: id.Raw, CallID: a.call, Tool: d.names.get(a.call), Outcome: event.Denied}
			if res.Get("outcome.outcome").Str == "selected" {
				pr.Outcome, pr.Scope = a.outcome(res.Get("outcome.optionId").Str)
			}
			return []*event.Event{{Body: pr}}
		}
	}
	what := method
	if what == "" {
		what = "response"
	}
	return d.unknown(r, line, what)
}

func num(r gjson.Result, k string) *uint64 {
	v := r.Get(k)
	if n, err := strconv.ParseUint(v.Raw, 10, 64); err == nil && v.Type == gjson.Number {
		return &n
	}
	return nil
}

// update maps one SessionUpdate.
func (d *Decoder) update(u gjson.Result, line []byte) []*event.Event {
	text := func() string {
		if c := u.Get("content"); c.Get("type").Str == "text" {
			return c.Get("text").Str
		}
		return ""
	}
	switch kind := u.Get("sessionUpdate").Str; kind {
	case "agent_message_chunk":
		if u.Get("content.type").Str != "text" {
			break
		}
		return []*event.Event{{Body: &event.MessageDelta{Text: text(), MessageID: u.Get("messageId").Str}}}
	case "agent_thought_chunk":
		if u.Get("content.type").Str != "text" {
			break
		}
		return []*event.Event{{Body: &event.ReasoningDelta{Text: text()}}}
	case "user_message_chunk":
		if u.Get("content.type").Str != "text" {
			break
		}
		if d.open && text() == d.prompt {
			return nil // the agent echoed the prompt the client sent
		}
		return []*event.Event{{Body: &event.UserMessage{Text: text()}}}
	case "tool_call":
		id := u.Get("toolCallId").Str
		name := u.Get("name").Str
		if name == "" {
			name = u.Get("title").Str
		}
		d.names.put(id, name)
		call := &event.ToolCall{CallID: id, Name: name, Title: u.Get("title").Str, Kind: event.ToolKind(u.Get("kind").Str)}
		if !call.Kind.Valid() {
			call.Kind = event.KindOther
		}
		if in := u.Get("rawInput"); in.Exists() {
			call.Input = json.RawMessage(in.Raw)
		}
		out := []*event.Event{{Body: call}}
		return append(out, d.status(u, id)...)
	case "tool_call_update":
		id := u.Get("toolCallId").Str
		var out []*event.Event
		if t := u.Get("title"); t.Type == gjson.String {
			out = append(out, &event.Event{Body: &event.ToolProgress{CallID: id, Name: d.names.get(id), Message: t.Str}})
		}
		return append(out, d.status(u, id)...)
	case "plan":
		p := &event.PlanUpdated{Entries: []event.PlanEntry{}}
		jsonobj.ForEach(u.Get("entries"), func(_, e gjson.Result) bool {
			p.Entries = append(p.Entries, event.PlanEntry{Content: e.Get("content").Str, Status: e.Get("status").Str, Priority: e.Get("priority").Str})
			return true
		})
		return []*event.Event{{Body: p}}
	case "notice":
		sev := event.Severity(u.Get("severity").Str)
		switch sev {
		case event.SeverityInfo, event.SeverityWarning, event.SeverityError:
		default:
			sev = ""
		}
		return []*event.Event{{Body: &event.Notice{Severity: sev, Message: u.Get("title").Str}}}
	}
	return d.unknown(u, line, "session/update:"+u.Get("sessionUpdate").Str)
}

// status maps the status and content of a tool_call or tool_call_update.
func (d *Decoder) status(u gjson.Result, id string) []*event.Event {
	var out []*event.Event
	var all []string
	jsonobj.ForEach(u.Get("content"), func(_, c gjson.Result) bool {
		if c.Get("type").Str == "content" && c.Get("content.type").Str == "text" {
			all = append(all, c.Get("content.text").Str)
		}
		return true
	})
	status := u.Get("status").Str
	txt := strings.Join(all, "\n")
	if len(all) > 0 && status != "completed" && status != "failed" {
		// While a call runs, evtool shows its output first and its latest
		// progress last.
		output := all[0]
		if len(all) > 1 {
			out = append(out, &event.Event{Body: &event.ToolProgress{CallID: id, Name: d.names.get(id), Message: all[len(all)-1]}})
		}
		prev := d.content[id]
		chunk := output
		if strings.HasPrefix(output, prev) {
			chunk = output[len(prev):]
		}
		d.content[strings.Clone(id)] = strings.Clone(output)
		if chunk != "" {
			out = append(out, &event.Event{Body: &event.ToolOutput{CallID: id, Name: d.names.get(id), Chunk: chunk}})
		}
	}
	switch status {
	case "in_progress":
		out = append(out, &event.Event{Body: &event.ToolStarted{CallID: id, Name: d.names.get(id)}})
	case "completed", "failed":
		f := &event.ToolFinished{CallID: id, Name: d.names.get(id), Status: "success"}
		if status == "failed" {
			f.Status = "error"
		}
		if len(all) > 0 {
			f.Output = &txt
		}
		if raw := u.Get("rawOutput"); raw.Exists() {
			if c := raw.Get("command"); c.Type == gjson.String {
				f.Command = c.Str
			}
			if x := raw.Get("exit_code"); x.Type == gjson.Number {
				n := x.Int()
				f.ExitCode = &n
			}
		}
		out = append(out, &event.Event{Body: f})
		// The call is over: a later update of it is read as one of a
		// call never announced. Kept, a long stream's names and outputs
		// grew with every call it ever made.
		d.names.del(id)
		delete(d.content, id)
	}
	return out
}

// End implements dialect.Decoder: a log whose last prompt was answered (or
// that has no prompts) gets a synthesised session_finished.
func (d *Decoder) End(out []*event.Event) []*event.Event {
	if d.meta {
		return out // the carried events include the stream's end
	}
	if !d.started {
		d.started = true
		out = append(out, &event.Event{Synthetic: true, Body: &event.SessionStarted{Schema: event.SchemaVersion, Source: event.SourceInfo{Dialect: Name, Version: ptr(1)}}})
		out = append(out, d.pending...)
	}
	if d.open {
		return out
	}
	return append(out, &event.Event{Synthetic: true, Body: &event.SessionFinished{Status: "ok"}})
}

// callNames are the names of the calls that run, in an openset: a stream
// can leave millions of calls open.
type callNames struct {
	set  openset.Set
	adds int
}

func (c *callNames) put(id, name string) {
	c.set.Delete(id)
	c.adds++
	c.set.Add(id, c.adds, name)
}

func (c *callNames) get(id string) string {
	e, _ := c.set.Get(id)
	return e.Name
}

func (c *callNames) del(id string) { c.set.Delete(id) }
