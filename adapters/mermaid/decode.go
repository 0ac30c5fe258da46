package mermaid

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/jsonenc"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/tidwall/gjson"
)

// DecodeError is a known mermaid field with a value canonical cannot hold.
type DecodeError = jsonobj.FieldError

// Decoder reads mermaid lines into canonical events.
//
// A mermaid run is one user turn: mermaid is given one prompt and runs
// until it writes result. Each turn_done ends one model call inside it (a
// round; stop reason tool_use says the model goes on to call tools). The
// decoder synthesises the turn_started before the run's first event and the
// turn_finished before result.
//
// mermaid names a tool only when it finishes, so the decoder synthesises a
// tool_call the first time a call id appears. Reading a file (Lookahead),
// it holds the events from an unnamed call's tool_started back until the
// call's tool_finished or approval_required names it, within a bound, so
// that the tool_call carries the name and kind from the start; on a live
// pipe the name comes with tool_finished.
type Decoder struct {
	opts    dialect.DecodeOptions
	o       jsonobj.Object
	res     jsonobj.Residue
	session string
	turns   int
	turn    string // current turn id, "" before the run's first event
	calls   map[string]bool
	// The last round's stop reason: the turn's, unless the model stopped to
	// call tools.
	lastStop event.StopReason

	// Lookahead: events held back, the unnamed calls among them (their
	// synthetic tool_call), and the size of the lines behind them.
	held      []*event.Event
	unnamed   map[string]*event.ToolCall
	heldBytes int
}

// Bounds of the lookahead: past either, held events go out with their
// calls unnamed (named at their end, as on a live pipe).
const (
	maxHeldBytes  = 4 << 20
	maxHeldEvents = 4096
)

// writtenAsNull lists, per type, the keys mermaid always writes, as null
// when absent. A line that lacks one comes from an older producer; the
// residue remembers that so the key stays absent on the way back.
var writtenAsNull = map[string][]string{
	"session_started": {"task_id", "session_id"},
	"tool_finished":   {"error"},
	"turn_done":       {"total_tokens", "stop_reason"},
	"result":          {"reasoning", "session_id"},
}

var taskShape = jsonobj.Shape{
	Known:    []string{"id", "subject", "status", "active_form", "elapsed_secs", "tokens_spent", "origin"},
	Required: []string{"id", "subject", "status", "active_form", "elapsed_secs", "tokens_spent", "origin"},
	Exact:    []string{"origin"},
	Nullable: []string{"elapsed_secs", "tokens_spent", "origin"},
}

// Decode implements dialect.Decoder.
func (d *Decoder) Decode(out []*event.Event, line []byte, n int) ([]*event.Event, error) {
	if !d.opts.Lookahead {
		return d.decode(out, line, n)
	}
	start := len(out)
	out, err := d.decode(out, line, n)
	return d.hold(out, start, len(line)), err
}

// hold keeps back the events from out[start:] while an unnamed call is
// among the held ones, and returns out with what can go.
func (d *Decoder) hold(out []*event.Event, start, size int) []*event.Event {
	evs := out[start:]
	for _, ev := range evs {
		var id, name string
		switch b := ev.Body.(type) {
		case *event.ToolCall:
			if b.Name == "" && ev.Synthetic {
				if d.unnamed == nil {
					d.unnamed = map[string]*event.ToolCall{}
				}
				d.unnamed[b.CallID] = b
			}
			continue
		case *event.ToolFinished:
			id, name = b.CallID, b.Name
		case *event.PermissionRequested:
			id, name = b.CallID, b.Tool
		default:
			continue
		}
		if tc := d.unnamed[id]; tc != nil && name != "" {
			tc.Name, tc.Kind = name, toolKind(name)
			delete(d.unnamed, id)
		}
	}
	if len(d.held) == 0 && len(d.unnamed) == 0 {
		return out
	}
	d.held = append(d.held, evs...)
	d.heldBytes += size
	out = out[:start]
	if d.heldBytes > maxHeldBytes || len(d.held) > maxHeldEvents {
		clear(d.unnamed) // named late, at their end
	}
	// Release up to the first call still unnamed.
	i := 0
	for ; i < len(d.held); i++ {
		if tc, ok := d.held[i].Body.(*event.ToolCall); ok && d.unnamed[tc.CallID] == tc {
			break
		}
	}
	out = append(out, d.held[:i]...)
	d.held = append(d.held[:0], d.held[i:]...)
	if len(d.held) == 0 {
		d.held, d.heldBytes = nil, 0
	}
	return out
}

func (d *Decoder) decode(out []*event.Event, line []byte, n int) ([]*event.Event, error) {
	root := gjson.ParseBytes(line)
	if !root.IsObject() {
		return out, &DecodeError{Msg: "a mermaid line must be a JSON object"}
	}
	o := &d.o
	o.Reset(root)
	typ, _ := o.Str("type")
	if o.Err() != nil {
		return out, o.Err()
	}
	if typ == "" {
		return out, &DecodeError{Pointer: "/type", Msg: "missing event type"}
	}
	emit := func(ev *event.Event) {
		if d.opts.Provenance && !ev.Synthetic {
			ev.Src = &event.Source{Dialect: Name, Line: n, Type: typ}
		}
		out = append(out, ev)
	}
	if _, ok := fields[typ]; !ok {
		d.beginTurn(emit)
		emit(&event.Event{TurnID: d.turn, Body: &event.Unknown{Dialect: Name, SourceType: typ, Raw: append(json.RawMessage(nil), line...)}})
		return out, nil
	}
	res := &d.res
	res.Reset()
	for i := 0; i < o.Len(); i++ {
		if k, raw := o.Member(i); !knownField(typ, k) {
			res.Add(k, []byte(raw))
		}
	}
	for _, k := range writtenAsNull[typ] {
		if _, ok := o.Get(k); !ok {
			res.Absent(k)
		}
	}
	ev := &event.Event{}
	switch typ {
	case "session_started":
		s := &event.SessionStarted{Schema: event.SchemaVersion, Source: event.SourceInfo{Dialect: Name, Version: uintField(o, "protocol_version", u32)}}
		if v, ok := o.Str("cli_version"); ok {
			s.Agent = &event.Agent{Name: Name, Version: v}
		}
		s.Model, _ = o.Str("model")
		s.TaskID, _ = o.NullableStr("task_id")
		if v, ok := o.Get("task_id"); ok && v.Type == gjson.String && v.Str == "" {
			res.Add("task_id", []byte(`""`)) // "" is a fact; null is its absence
		}
		s.SessionID, _ = o.Str("session_id")
		d.session = strings.Clone(s.SessionID)
		ev.Body = s
	case "text":
		d.beginTurn(emit)
		text, _ := o.Str("delta")
		ev.Body = &event.MessageDelta{Text: text}
	case "reasoning":
		d.beginTurn(emit)
		text, _ := o.Str("delta")
		ev.Body = &event.ReasoningDelta{Text: text}
	case "tool_started":
		d.beginTurn(emit)
		id, _ := o.Str("call_id")
		d.callFor(id, "", emit)
		ev.Body = &event.ToolStarted{CallID: id}
	case "tool_finished":
		d.beginTurn(emit)
		b := &event.ToolFinished{}
		b.CallID, _ = o.Str("call_id")
		b.Name, _ = o.Str("name")
		// status is a plain String upstream. A word outside mermaid's three
		// is kept as written in ext.mermaid (and the checker reports it,
		// mermaid/unknown-value); the canonical status, required and
		// without a word for "not known", says error, the one reading that
		// claims no success mermaid did not state.
		b.Status = jsonobj.Word(o, "status", toolStatuses, event.ToolError, res)
		if b.Name != "" {
			b.Kind = toolKind(b.Name)
		}
		if s, ok := o.Str("summary"); ok {
			b.Summary = &s
		}
		b.Error, _ = o.NullableStr("error")
		if v, ok := o.Get("error"); ok && v.Type == gjson.String && v.Str == "" {
			res.Add("error", []byte(`""`))
		}
		// plan is accepted and otherwise ignored, as upstream now does;
		// fuzzy has no canonical field. Both ride in the residue.
		if v, ok := o.Get("plan"); ok {
			res.Add("plan", []byte(v.Raw))
		}
		b.Web = web(o, res)
		if v, ok := o.Get("fuzzy"); ok {
			res.Add("fuzzy", []byte(v.Raw))
		}
		d.callFor(b.CallID, b.Name, emit)
		ev.Body = b
	case "approval_required":
		d.beginTurn(emit)
		b := &event.PermissionRequested{}
		b.CallID, _ = o.Str("call_id")
		b.Tool, _ = o.Str("tool")
		b.Risk = o.OptStr("risk", res)
		b.Description = o.OptStr("prompt", res)
		d.callFor(b.CallID, b.Tool, emit)
		ev.Body = b
	case "tasks_updated":
		d.beginTurn(emit)
		b := &event.PlanUpdated{Entries: []event.PlanEntry{}, Completed: uintField(o, "completed", u32), Total: uintField(o, "total", u32)}
		o.Each("tasks", taskShape, res, func(ptr string, e gjson.Result) {
			p := event.PlanEntry{
				Content:     o.Field(ptr, e, "subject"),
				Status:      o.Field(ptr, e, "status"),
				ActiveForm:  o.Field(ptr, e, "active_form"),
				Origin:      o.Field(ptr, e, "origin"),
				ElapsedSecs: optNestedUint(o, ptr, e, "elapsed_secs", u64),
				TokensSpent: optNestedUint(o, ptr, e, "tokens_spent", u64),
			}
			if id := nestedUint(o, ptr, e, "id", u32); id != nil {
				p.ID = strconv.FormatUint(*id, 10)
			}
			b.Entries = append(b.Entries, p)
		})
		ev.Body = b
	case "error":
		d.beginTurn(emit)
		b := &event.Error{}
		b.Message, _ = o.Str("message")
		ev.Body = b
	case "turn_done":
		d.beginTurn(emit)
		b := &event.RoundFinished{}
		if t := nullableUint(o, "total_tokens", u64); t != nil {
			b.Usage = &event.Usage{TotalTokens: t}
		}
		if r, ok := o.NullableStr("stop_reason"); ok {
			b.StopReason = jsonobj.Word(o, "stop_reason", stopReasons, event.StopOther, res)
			if _, known := stopReasons[r]; known && stopWord(b.StopReason) != r {
				// A synonym (end_turn for stop, say) comes back as written.
				res.Add("stop_reason", jsonenc.String(nil, r))
			}
		}
		d.lastStop = b.StopReason
		ev.Body = b
	case "result":
		d.beginTurn(emit)
		b := &event.SessionFinished{Status: "ok"}
		if s, ok := o.Str("response"); ok {
			b.Text = &s
		}
		if s, ok := o.NullableStr("reasoning"); ok {
			b.Reasoning = &s
		}
		if t := uintField(o, "total_tokens", u64); t != nil {
			b.Usage = &event.Usage{TotalTokens: t}
		}
		if _, ok := o.Get("errors"); ok {
			errs := o.Strings("errors", &jsonobj.Residue{}) // [] is a fact here, kept as a non-nil empty list
			if errs == nil {
				errs = []string{}
			}
			b.Errors = &errs
			// mermaid has no status; a run that produced no answer and
			// reported errors failed.
			if len(errs) > 0 && (b.Text == nil || *b.Text == "") {
				b.Status, b.Message = "error", errs[len(errs)-1]
			}
		}
		if sid, ok := o.Str("session_id"); ok && sid != d.session {
			v, _ := o.Get("session_id")
			res.Add("session_id", []byte(v.Raw))
		}
		// Option<Value>: a null is None, kept only in the residue.
		if v, ok := o.Get("structured_output"); ok && v.Type == gjson.Null {
			res.Add("structured_output", []byte("null"))
		} else {
			b.StructuredOutput = o.Raw("structured_output")
		}
		ev.Body = b
	}
	if o.Err() != nil {
		return out, o.Err()
	}
	if seps := separators(line); seps != "" {
		res.Add(separatorsKey, jsonenc.String(nil, seps))
	}
	if !res.Empty() {
		ev.Ext = event.ExtOf(Name, res.Bytes())
	}
	switch b := ev.Body.(type) {
	case *event.SessionStarted:
	case *event.SessionFinished:
		emit(d.endTurn(b))
	default:
		ev.TurnID = d.turn
	}
	emit(ev)
	return out, nil
}

// endTurn synthesises the turn_finished that result implies: the run's
// one turn ends with the run's outcome and token total, and with the last
// round's stop reason unless that round stopped to call tools.
func (d *Decoder) endTurn(f *event.SessionFinished) *event.Event {
	b := &event.TurnFinished{Status: f.Status}
	if d.lastStop != event.StopToolUse {
		b.StopReason = d.lastStop
	}
	if f.Status == event.StatusError {
		b.Reason = f.Message
	}
	if f.Usage != nil {
		u := *f.Usage
		b.Usage = &u
	}
	ev := &event.Event{TurnID: d.turn, Synthetic: true, Body: b}
	d.turn = ""
	return ev
}

// webInts lists the integer keys of WebEventDetails.
var webInts = []string{"source_byte_count", "output_byte_count", "rendered_byte_count", "line_count", "context_lines",
	"match_count", "query_count", "succeeded_count", "requested_count", "result_count", "failed_count"}

// web reads tool_finished's web details, kept as written. It is an Option
// upstream: a null is None, kept only in the residue. The schema checks the
// types of its known keys; the integers' literal form is checked here.
func web(o *jsonobj.Object, res *jsonobj.Residue) json.RawMessage {
	v, ok := o.Get("web")
	if !ok {
		return nil
	}
	if v.Type == gjson.Null {
		res.Add("web", []byte("null"))
		return nil
	}
	if v.IsObject() {
		for _, k := range webInts {
			if n := v.Get(k); n.Type == gjson.Number {
				uintAt(o, "/web/"+k, n, u64)
			}
		}
		if n := v.Get("status"); n.Type == gjson.Number {
			uintAt(o, "/web/status", n, u64) // an HTTP status; its Rust type is not pinned upstream
		}
	}
	return json.RawMessage(v.Raw)
}

// beginTurn synthesises the run's turn_started before its first event.
func (d *Decoder) beginTurn(emit func(*event.Event)) {
	if d.turn != "" {
		return
	}
	d.turns++
	d.turn = "turn-" + strconv.Itoa(d.turns)
	emit(&event.Event{TurnID: d.turn, Synthetic: true, Body: &event.TurnStarted{}})
}

// callFor synthesises the tool_call of a call id seen for the first time.
func (d *Decoder) callFor(id, name string, emit func(*event.Event)) {
	if d.calls[id] {
		return
	}
	d.calls[strings.Clone(id)] = true // a gjson string keeps its whole line alive
	emit(&event.Event{TurnID: d.turn, Synthetic: true, Body: &event.ToolCall{CallID: id, Name: name, Kind: kindOf(name)}})
}

// End implements dialect.Decoder: what is held back goes out. A stream
// without result stays truncated: its turn is not ended.
func (d *Decoder) End(out []*event.Event) []*event.Event {
	out = append(out, d.held...)
	d.held, d.heldBytes = nil, 0
	clear(d.unnamed)
	return out
}

// kindOf is a tool call's kind when its name is known.
func kindOf(name string) event.ToolKind {
	if name == "" {
		return ""
	}
	return toolKind(name)
}
