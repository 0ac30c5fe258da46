package mermaid

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/evtool/evtool/ndjson"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/idset"
	"github.com/evtool/evtool/internal/jsonenc"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/evtool/evtool/internal/linesep"
	"github.com/evtool/evtool/internal/wireint"
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
	jsonobj.OwnLine // a long line is read in place (UseOwn)
	opts            dialect.DecodeOptions
	// ms are the members of the line the next Decode reads (UseMembers).
	ms      []ndjson.Member
	o       jsonobj.Object
	res     jsonobj.Residue
	session string
	turns   int
	turn    string    // current turn id, "" before the run's first event
	calls   idset.Set // the ids of the calls made known: a digest each
	// The last round's stop reason: the turn's, unless the model stopped to
	// call tools.
	lastStop event.StopReason

	// Lookahead: events held back, the unnamed calls among them (their
	// synthetic tool_call), and the size of the lines behind them.
	held      []*event.Event
	unnamed   map[string]*event.ToolCall
	heldBytes int

	// The line being read: where its events go, its number and its type.
	out []*event.Event
	n   int
	typ string
}

// The integer types of mermaid's fields.
var (
	u32 = jsonobj.U32
	u64 = jsonobj.U64
)

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
	root := d.ParseLine(line)
	ms := d.ms
	d.ms = nil
	typ, err := d.o.OpenMembers(root, ms, "a mermaid line")
	if err != nil {
		return out, err
	}
	d.out, d.n, d.typ = out, n, typ
	err = d.line(line)
	out = d.out
	d.out, d.typ = nil, ""
	return out, err
}

// line reads a line of type d.typ into events, which go to d.out: the
// events it implies (the run's turn_started, a call's tool_call, the
// turn_finished before result), then its own. Its fields are read by one
// method per type (see body).
func (d *Decoder) line(line []byte) error {
	o, typ := &d.o, d.typ
	if typ != "session_started" {
		d.beginTurn()
	}
	if _, ok := fields[typ]; !ok {
		d.emit(&event.Event{TurnID: d.turn, Body: &event.Unknown{Dialect: Name, SourceType: typ, Raw: append(json.RawMessage(nil), line...)}})
		return nil
	}
	res := &d.res
	res.Reset()
	o.KeepUnknown(res, func(k string) bool { return knownField(typ, k) })
	o.KeepAbsent(res, writtenAsNull[typ])
	ev := &event.Event{Body: d.body(typ)}
	if o.Err() != nil {
		return o.Err()
	}
	if seps := linesep.Of(line); seps != "" {
		res.Add(linesep.Key, jsonenc.String(nil, seps))
	}
	if !res.Empty() {
		ev.Ext = event.ExtOf(Name, res.Bytes())
	}
	switch b := ev.Body.(type) {
	case *event.SessionStarted:
	case *event.SessionFinished:
		d.emit(d.endTurn(b))
	default:
		ev.TurnID = d.turn
	}
	d.emit(ev)
	return nil
}

// emit appends an event of the line being read to d.out.
func (d *Decoder) emit(ev *event.Event) {
	if d.opts.Provenance && !ev.Synthetic {
		ev.Src = &event.Source{Dialect: Name, Line: d.n, Type: d.typ}
	}
	d.out = append(d.out, ev)
}

// body reads the fields of a line of the known type typ, by one method per
// type. A field error is left in d.o.
func (d *Decoder) body(typ string) event.Body {
	switch typ {
	case "session_started":
		return d.sessionStarted()
	case "text":
		return &event.MessageDelta{Text: d.str("delta")}
	case "reasoning":
		return &event.ReasoningDelta{Text: d.str("delta")}
	case "tool_started":
		id := d.str("call_id")
		d.callFor(id, "")
		return &event.ToolStarted{CallID: id}
	case "tool_finished":
		return d.toolFinished()
	case "approval_required":
		return d.approvalRequired()
	case "tasks_updated":
		return d.tasksUpdated()
	case "error":
		return &event.Error{Message: d.str("message")}
	case "turn_done":
		return d.turnDone()
	case "result":
		return d.result()
	}
	return nil
}

// str reads a string field of the line; "" when absent or not a string
// (which d.o records).
func (d *Decoder) str(k string) string {
	s, _ := d.o.Str(k)
	return s
}

// emptyString keeps in the residue a present "" of a field that is a
// string or null: "" is a fact; null is its absence.
func (d *Decoder) emptyString(k string) {
	if v, ok := d.o.Get(k); ok && v.Type == gjson.String && v.Str == "" {
		d.res.Add(k, []byte(`""`))
	}
}

func (d *Decoder) sessionStarted() *event.SessionStarted {
	o := &d.o
	s := &event.SessionStarted{Schema: event.SchemaVersion, Source: event.SourceInfo{Dialect: Name, Version: wireint.Field(o, "protocol_version", u32)}}
	if v, ok := o.Str("cli_version"); ok {
		s.Agent = &event.Agent{Name: Name, Version: v}
	}
	s.Model = d.str("model")
	s.TaskID, _ = o.NullableStr("task_id")
	d.emptyString("task_id")
	s.SessionID = d.str("session_id")
	d.session = strings.Clone(s.SessionID)
	return s
}

func (d *Decoder) toolFinished() *event.ToolFinished {
	o, res := &d.o, &d.res
	b := &event.ToolFinished{}
	b.CallID = d.str("call_id")
	b.Name = d.str("name")
	// status is a plain String upstream. A word outside mermaid's three is
	// kept as written in ext.mermaid (and the checker reports it,
	// mermaid/unknown-value); the canonical status, required and without a
	// word for "not known", says error, the one reading that claims no
	// success mermaid did not state.
	b.Status = jsonobj.Word(o, "status", toolStatuses, event.ToolError, res)
	if b.Name != "" {
		b.Kind = toolKind(b.Name)
	}
	if s, ok := o.Str("summary"); ok {
		b.Summary = &s
	}
	b.Error, _ = o.NullableStr("error")
	d.emptyString("error")
	// plan is accepted and otherwise ignored, as upstream now does; fuzzy
	// has no canonical field. Both ride in the residue.
	if v, ok := o.Get("plan"); ok {
		res.Add("plan", []byte(v.Raw))
	}
	b.Web = web(o, res)
	if v, ok := o.Get("fuzzy"); ok {
		res.Add("fuzzy", []byte(v.Raw))
	}
	d.callFor(b.CallID, b.Name)
	return b
}

func (d *Decoder) approvalRequired() *event.PermissionRequested {
	b := &event.PermissionRequested{}
	b.CallID = d.str("call_id")
	b.Tool = d.str("tool")
	b.Risk = d.o.OptStr("risk", &d.res)
	b.Description = d.o.OptStr("prompt", &d.res)
	d.callFor(b.CallID, b.Tool)
	return b
}

func (d *Decoder) tasksUpdated() *event.PlanUpdated {
	o := &d.o
	b := &event.PlanUpdated{Entries: []event.PlanEntry{}, Completed: wireint.Field(o, "completed", u32), Total: wireint.Field(o, "total", u32)}
	o.Each("tasks", taskShape, &d.res, func(ptr string, e gjson.Result) {
		p := event.PlanEntry{
			Content:     o.Field(ptr, e, "subject"),
			Status:      o.Field(ptr, e, "status"),
			ActiveForm:  o.Field(ptr, e, "active_form"),
			Origin:      o.Field(ptr, e, "origin"),
			ElapsedSecs: wireint.NullableNested(o, ptr, e, "elapsed_secs", u64),
			TokensSpent: wireint.NullableNested(o, ptr, e, "tokens_spent", u64),
		}
		if id := wireint.Nested(o, ptr, e, "id", u32); id != nil {
			p.ID = strconv.FormatUint(*id, 10)
		}
		b.Entries = append(b.Entries, p)
	})
	return b
}

func (d *Decoder) turnDone() *event.RoundFinished {
	o := &d.o
	b := &event.RoundFinished{}
	if t := wireint.NullableField(o, "total_tokens", u64); t != nil {
		b.Usage = &event.Usage{TotalTokens: t}
	}
	if r, ok := o.NullableStr("stop_reason"); ok {
		b.StopReason = jsonobj.Word(o, "stop_reason", stopReasons, event.StopOther, &d.res)
		if _, known := stopReasons[r]; known && stopWord(b.StopReason) != r {
			// A synonym (end_turn for stop, say) comes back as written.
			d.res.Add("stop_reason", jsonenc.String(nil, r))
		}
	}
	d.lastStop = b.StopReason
	return b
}

func (d *Decoder) result() *event.SessionFinished {
	o, res := &d.o, &d.res
	b := &event.SessionFinished{Status: "ok"}
	if s, ok := o.Str("response"); ok {
		b.Text = &s
	}
	if s, ok := o.NullableStr("reasoning"); ok {
		b.Reasoning = &s
	}
	if t := wireint.Field(o, "total_tokens", u64); t != nil {
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
	return b
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
				wireint.At(o, "/web/"+k, n, u64)
			}
		}
		if n := v.Get("status"); n.Type == gjson.Number {
			wireint.At(o, "/web/status", n, u64) // an HTTP status; its Rust type is not pinned upstream
		}
	}
	return json.RawMessage(v.Raw)
}

// beginTurn synthesises the run's turn_started before its first event.
func (d *Decoder) beginTurn() {
	if d.turn != "" {
		return
	}
	d.turns++
	d.turn = "turn-" + strconv.Itoa(d.turns)
	d.emit(&event.Event{TurnID: d.turn, Synthetic: true, Body: &event.TurnStarted{}})
}

// callFor synthesises the tool_call of a call id seen for the first time.
func (d *Decoder) callFor(id, name string) {
	if d.calls.Has(id) {
		return
	}
	d.calls.Add(id, 0)
	d.emit(&event.Event{TurnID: d.turn, Synthetic: true, Body: &event.ToolCall{CallID: id, Name: name, Kind: kindOf(name)}})
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

// UseMembers hands the decoder the top-level members of the line its next
// Decode reads, found by the syntax check of the reading: the decoder
// then does not read the line's keys again.
func (d *Decoder) UseMembers(ms []ndjson.Member) { d.ms = ms }
