package gemini

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/evtool/evtool/adapters/internal/geminicli"
	"github.com/evtool/evtool/ndjson"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/jsonenc"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/evtool/evtool/internal/jsonptr"
	"github.com/evtool/evtool/internal/openset"
	"github.com/tidwall/gjson"
)

// DecodeError is a known Gemini CLI field with a value the producer's
// types do not allow.
type DecodeError = jsonobj.FieldError

// Decoder reads Gemini CLI lines into canonical events.
//
// One process is one turn: the user's message begins it (a turn_started is
// synthesised before the user_message) and result ends it (turn_finished,
// then session_finished). No line marks a model round; a tool_result after
// the model's text and tool calls implies that the round ended to call
// tools, so a round_finished (stop_reason tool_use) is synthesised before
// the first tool_result of a batch, and one for the last round before
// result. Assistant text comes only as deltas: each run of deltas is
// followed by a synthesised message that assembles it, before any other
// event, so that every writer sees the message next to its deltas.
type Decoder struct {
	jsonobj.OwnLine // a long line is read in place (UseOwn)
	opts            dialect.DecodeOptions
	// ms are the members of the line the next Decode reads (UseMembers).
	ms  []ndjson.Member
	o   jsonobj.Object
	res jsonobj.Residue
	sub jsonobj.Residue // the residue of a nested object (stats)

	started   bool // session_started was emitted
	turns     int
	turn      string      // current turn id, "" outside a turn
	open      openset.Set // tool ids of tool_use lines without a tool_result yet
	roundOpen bool        // the model said something since the last round boundary

	text     strings.Builder // the assistant deltas since the last non-delta line
	inText   bool
	textTime string
	answer   strings.Builder // assistant text since the last tool_result: the final answer
	said     bool            // answer holds text that was said
}

// Decode implements dialect.Decoder. A line is read whole first, by one
// method per line type (read), and only then placed in the stream
// (place): a line that does not fit gives no events.
func (d *Decoder) Decode(out []*event.Event, line []byte, n int) ([]*event.Event, error) {
	root := d.ParseLine(line)
	o := &d.o
	ms := d.ms
	d.ms = nil
	typ, err := o.OpenMembers(root, ms, "a gemini line")
	if err != nil {
		return out, err
	}
	ts, hasTS := o.Str("timestamp")
	if o.Err() != nil {
		if _, known := fields[typ]; known {
			return out, o.Err()
		}
	}
	t, exact := "", false
	if hasTS {
		t, exact = geminicli.CanonTime(ts)
	}
	emit := func(ev *event.Event) {
		if ev.Time == "" {
			ev.Time = t
		}
		if d.opts.Provenance && !ev.Synthetic {
			ev.Src = &event.Source{Dialect: Name, Line: n, Type: typ}
		}
		out = append(out, ev)
	}
	if _, ok := fields[typ]; !ok {
		d.header(emit)
		d.flushText(emit)
		emit(&event.Event{TurnID: d.turn, Body: &event.Unknown{Dialect: Name, SourceType: typ, Raw: append(json.RawMessage(nil), line...)}})
		return out, nil
	}

	// Read the line whole before emitting anything: a line that does not
	// fit gives no events, and the reader keeps it as an unknown event.
	d.residue(typ, hasTS, exact)
	var l lineFacts
	body := d.read(typ, &l)
	if o.Err() != nil {
		return out, o.Err()
	}
	ev := &event.Event{Body: body}
	if !d.res.Empty() {
		ev.Ext = event.ExtOf(Name, d.res.Bytes())
	}
	d.place(ev, &l, t, emit)
	return out, nil
}

// residue keeps what the line says beyond its canonical event: unknown
// keys, required keys it lacks, and a timestamp canonical cannot hold.
func (d *Decoder) residue(typ string, hasTS, exact bool) {
	o, res := &d.o, &d.res
	res.Reset()
	o.KeepUnknown(res, func(k string) bool { return knownField(typ, k) })
	o.KeepAbsent(res, required[typ]) // a line the schema refuses is still written back as it was
	if !hasTS {
		res.Absent("timestamp")
	} else if !exact {
		v, _ := o.Get("timestamp")
		res.Add("timestamp", []byte(v.Raw))
	}
}

// read returns the canonical event of a line of a known type, and in l
// what the line says beyond it.
func (d *Decoder) read(typ string, l *lineFacts) Body {
	switch typ {
	case "init":
		return d.readInit()
	case "message":
		return d.readMessage(l)
	case "tool_use":
		return d.readToolUse()
	case "tool_result":
		return d.readToolResult()
	case "error":
		return d.readError()
	case "result":
		return d.readResult(l)
	}
	return nil
}

func (d *Decoder) readInit() Body {
	b := &event.SessionStarted{Schema: event.SchemaVersion, Source: event.SourceInfo{Dialect: Name}}
	b.SessionID, _ = d.o.Str("session_id")
	b.Model, _ = d.o.Str("model")
	return b
}

// readMessage reads a message line: the user's, or the assistant's
// delta or whole message.
func (d *Decoder) readMessage(l *lineFacts) Body {
	o := &d.o
	role, _ := o.Str("role")
	content, _ := o.Str("content")
	delta := o.Bool("delta")
	if v, ok := o.Get("delta"); ok && delta != nil && (role != "assistant" || !*delta) {
		d.res.Add("delta", []byte(v.Raw)) // only an assistant's delta:true is implied
	}
	switch {
	case o.Err() != nil:
	case role == "user":
		return &event.UserMessage{Text: content}
	case role == "assistant" && delta != nil && *delta:
		l.delta = true
		return &event.MessageDelta{Text: content}
	case role == "assistant":
		return &event.Message{Text: content}
	default:
		o.Fail("/role", "got %s, want \"user\" or \"assistant\"", strconv.Quote(role))
	}
	return nil
}

func (d *Decoder) readToolUse() Body {
	o := &d.o
	b := &event.ToolCall{}
	b.Name, _ = o.Str("tool_name")
	b.CallID, _ = o.Str("tool_id")
	b.Kind = toolKind(b.Name)
	if v, ok := o.Get("parameters"); ok {
		if !v.IsObject() {
			o.Fail("/parameters", "got %s, want an object", jsonobj.TypeName(v))
		}
		b.Input = json.RawMessage(v.Raw)
	} else {
		d.res.Absent("parameters")
	}
	return b
}

func (d *Decoder) readToolResult() Body {
	o, res := &d.o, &d.res
	b := &event.ToolFinished{}
	b.CallID, _ = o.Str("tool_id")
	b.Status = jsonobj.Word(o, "status", toolStatuses, event.ToolError, res)
	if b.Status == "" {
		b.Status = event.ToolError
		res.Absent("status")
	}
	if s, ok := o.Str("output"); ok {
		b.Output = &s
	}
	b.Error, _ = errorObject(o, res)
	return b
}

// readError reads an error line: an error, or a notice of its severity.
func (d *Decoder) readError() Body {
	o := &d.o
	msg, _ := o.Str("message")
	sev, _ := o.Str("severity")
	switch sev {
	case "error":
		return &event.Error{Message: msg}
	case "warning":
		return &event.Notice{Severity: event.SeverityWarning, Message: msg}
	}
	// A newer severity: a notice, the word kept to be written back.
	if _, ok := o.Get("severity"); ok {
		d.res.Add("severity", jsonenc.String(nil, sev))
	} else {
		d.res.Absent("severity")
	}
	return &event.Notice{Message: msg}
}

// readResult reads result: the run's end, and in l its outcome as the
// last turn's.
func (d *Decoder) readResult(l *lineFacts) Body {
	o, res := &d.o, &d.res
	b := &event.SessionFinished{}
	b.Status = jsonobj.Word(o, "status", runStatuses, event.StatusError, res)
	if b.Status == "" {
		b.Status = event.StatusError
		res.Absent("status")
	}
	msg, errType := errorObject(o, res)
	b.Message = msg
	b.Usage = d.stats(o, res)
	l.status, l.stop = runOutcome(b.Status, errType)
	b.Status = l.status
	return b
}

// place emits the event of a line read whole, with the events the stream
// implies around it: the session's start, the assembled deltas, the turn
// and round boundaries.
func (d *Decoder) place(ev *event.Event, l *lineFacts, t string, emit func(*event.Event)) {
	if _, ok := ev.Body.(*event.SessionStarted); ok {
		d.started = true
		emit(ev)
		return
	}
	d.header(emit)
	if !l.delta {
		d.flushText(emit)
	}
	switch b := ev.Body.(type) {
	case *event.UserMessage:
		if d.turn == "" {
			prompt := b.Text
			d.beginTurn(&prompt, emit)
		}
	case *event.ToolFinished:
		d.toolResult(b, emit)
	case *event.SessionFinished:
		d.result(ev, b, l, emit)
		return
	case *event.MessageDelta:
		d.beginTurn(nil, emit)
		d.text.WriteString(b.Text)
		d.inText, d.textTime = true, t
		d.said, d.roundOpen = true, true
		d.answer.WriteString(b.Text)
	case *event.Message:
		d.beginTurn(nil, emit)
		d.answer.WriteString(b.Text)
		d.said, d.roundOpen = true, true
	case *event.ToolCall:
		d.toolUse(ev, b, emit)
		return
	default:
		d.beginTurn(nil, emit)
	}
	ev.TurnID = d.turn
	emit(ev)
}

// toolUse emits a tool_use's call and its start: the CLI runs the calls
// of a response as soon as the response ends.
func (d *Decoder) toolUse(ev *event.Event, b *event.ToolCall, emit func(*event.Event)) {
	d.beginTurn(nil, emit)
	d.roundOpen = true
	d.open.Add(b.CallID, 0, "")
	ev.TurnID = d.turn
	emit(ev)
	emit(&event.Event{TurnID: d.turn, Synthetic: true, Body: &event.ToolStarted{CallID: b.CallID, Name: b.Name}})
}

// toolResult emits what a tool_result implies before its event: the
// round that ended to call tools, and the call, if the stream never
// announced it.
func (d *Decoder) toolResult(b *event.ToolFinished, emit func(*event.Event)) {
	d.beginTurn(nil, emit)
	if d.roundOpen {
		d.roundOpen = false
		emit(&event.Event{TurnID: d.turn, Synthetic: true, Body: &event.RoundFinished{StopReason: event.StopToolUse}})
	}
	if !d.open.Has(b.CallID) {
		// A result for a call the stream never announced: the call
		// becomes known here, with no name.
		emit(&event.Event{TurnID: d.turn, Synthetic: true, Body: &event.ToolCall{CallID: b.CallID}})
	}
	d.open.Delete(b.CallID)
	d.answer.Reset()
	d.said = false
}

// result emits the run's end: its last round's and its turn's end, then
// session_finished with the final answer.
func (d *Decoder) result(ev *event.Event, b *event.SessionFinished, l *lineFacts, emit func(*event.Event)) {
	d.beginTurn(nil, emit)
	if d.roundOpen {
		d.roundOpen = false
		// The last round ended the turn, for the turn's reason.
		emit(&event.Event{TurnID: d.turn, Synthetic: true, Body: &event.RoundFinished{StopReason: l.stop}})
	}
	var usage *event.Usage
	if b.Usage != nil {
		u := *b.Usage
		usage = &u
	}
	// The error's text (result.error.message, e.g. "[API Error: …]") is
	// the turn's reason as well as the session's message: writers that
	// end a turn with its failure find it there.
	emit(&event.Event{TurnID: d.turn, Body: &event.TurnFinished{Status: l.status, StopReason: l.stop, Reason: b.Message, Usage: usage}})
	if d.said {
		s := d.answer.String()
		b.Text = &s
	}
	d.turn = ""
	d.open = openset.Set{}
	emit(ev)
}

// Body is the type-specific part of an event.
type Body = event.Body

// required lists the string keys every line of a type has; the encoder
// writes them, as "" when canonical has nothing, unless the residue says
// the line lacked them.
var required = map[string][]string{
	"init":        {"session_id", "model"},
	"message":     {"content"},
	"tool_use":    {"tool_name", "tool_id"},
	"tool_result": {"tool_id"},
	"error":       {"message"},
}

// lineFacts are what one line says beyond its main event.
type lineFacts struct {
	delta  bool // an assistant delta: the deltas before it go on
	status event.Status
	stop   event.StopReason
}

// header synthesises the session_started of a stream whose first JSON line
// is not init (an init glued to a banner is not JSON, and is lost).
func (d *Decoder) header(emit func(*event.Event)) {
	if d.started {
		return
	}
	d.started = true
	emit(&event.Event{Synthetic: true, Body: &event.SessionStarted{Schema: event.SchemaVersion, Source: event.SourceInfo{Dialect: Name}}})
}

// beginTurn synthesises a turn_started when an event arrives outside a turn.
func (d *Decoder) beginTurn(prompt *string, emit func(*event.Event)) {
	if d.turn != "" {
		return
	}
	d.turns++
	d.turn = "turn-" + strconv.Itoa(d.turns)
	emit(&event.Event{TurnID: d.turn, Synthetic: true, Body: &event.TurnStarted{Prompt: prompt}})
}

// flushText emits the message that assembles the deltas just read.
func (d *Decoder) flushText(emit func(*event.Event)) {
	if !d.inText {
		return
	}
	emit(&event.Event{Time: d.textTime, TurnID: d.turn, Synthetic: true, Body: &event.Message{Text: d.text.String()}})
	d.text.Reset()
	d.inText = false
}

// End implements dialect.Decoder. The deltas of a stream cut short are
// still assembled; a stream without result stays truncated.
func (d *Decoder) End(out []*event.Event) []*event.Event {
	d.flushText(func(ev *event.Event) { out = append(out, ev) })
	return out
}

// errorObject reads the error object of tool_result and result: its
// message goes to canonical, and the object, which also names the error's
// type, is kept whole in the residue, to be written back as it was.
func errorObject(o *jsonobj.Object, res *jsonobj.Residue) (msg, typ string) {
	v, ok := o.Get("error")
	if !ok {
		return "", ""
	}
	if !v.IsObject() {
		o.Fail("/error", "got %s, want an object", jsonobj.TypeName(v))
		return "", ""
	}
	for _, k := range errorFields {
		f := v.Get(k)
		if !f.Exists() {
			continue
		}
		if f.Type != gjson.String {
			o.Fail("/error/"+k, "got %s, want a string", jsonobj.TypeName(f))
			return "", ""
		}
	}
	res.Add("error", []byte(v.Raw))
	return v.Get("message").Str, v.Get("type").Str
}

// stats reads result.stats into canonical usage, whose counts are
// disjoint: Gemini's input_tokens includes the cached tokens, so the
// canonical input_tokens is input_tokens − cached, and cache_read_tokens
// is cached (see docs/dialects/gemini.md for the mapping). A stream from
// before 0.22 states no cached count; its input_tokens is then the input
// as stated. Counts canonical cannot hold disjointly (cached above
// input_tokens, which gemini/stats-cached reports) leave the canonical
// input unstated, and input_tokens is kept as written. What canonical has
// no place for (duration_ms, tool_calls, the per-model map, unknown keys,
// an input that is not input_tokens − cached) is kept under "stats" in the
// residue.
func (d *Decoder) stats(o *jsonobj.Object, res *jsonobj.Residue) *event.Usage {
	v, ok := o.Get("stats")
	if !ok {
		return nil
	}
	if !v.IsObject() {
		o.Fail("/stats", "got %s, want an object", jsonobj.TypeName(v))
		return nil
	}
	sub := &d.sub
	sub.Reset()
	u := &event.Usage{}
	var inTokens, input *uint64
	inTokensRaw, inputRaw := "", ""
	jsonobj.ForEach(v, func(k, f gjson.Result) bool {
		ptr := "/stats/" + jsonptr.Escape(k.Str)
		switch k.Str {
		case "total_tokens":
			u.TotalTokens = uintAt(o, ptr, f)
		case "input_tokens":
			inTokens, inTokensRaw = uintAt(o, ptr, f), f.Raw
		case "output_tokens":
			u.OutputTokens = uintAt(o, ptr, f)
		case "cached":
			u.CacheReadTokens = uintAt(o, ptr, f)
		case "input":
			input, inputRaw = uintAt(o, ptr, f), f.Raw
		case "duration_ms", "tool_calls":
			uintAt(o, ptr, f)
			sub.Add(k.Str, []byte(f.Raw))
		case "models":
			models(o, f)
			sub.Add(k.Str, []byte(f.Raw))
		default:
			sub.Add(k.Str, []byte(f.Raw))
		}
		return o.Err() == nil
	})
	if o.Err() != nil {
		return nil
	}
	switch {
	case inTokens == nil:
	case u.CacheReadTokens == nil:
		u.InputTokens = inTokens
	case *u.CacheReadTokens <= *inTokens:
		n := *inTokens - *u.CacheReadTokens
		u.InputTokens = &n
	default:
		// More cached than input: no disjoint input exists. Never
		// underflow; keep the count as written, for the encoder.
		sub.Add("input_tokens", []byte(inTokensRaw))
	}
	derived, derivable := derivedInput(inTokens, u.CacheReadTokens)
	switch {
	case input != nil && (!derivable || *input != derived):
		sub.Add("input", []byte(inputRaw))
	case input == nil && derivable:
		sub.Absent("input")
	}
	empty := u.TotalTokens == nil && inTokens == nil && u.OutputTokens == nil && u.CacheReadTokens == nil
	switch {
	case !sub.Empty():
		res.Add("stats", sub.Bytes())
	case empty:
		res.Add("stats", []byte("{}"))
	}
	if empty {
		return nil
	}
	return u
}

// derivedInput is StreamStats.input as the producer computes it from
// input_tokens and cached as written: input_tokens − cached, at least 0.
// It is derivable when both are stated.
func derivedInput(inTokens, cached *uint64) (uint64, bool) {
	if inTokens == nil || cached == nil {
		return 0, false
	}
	if *cached > *inTokens {
		return 0, true
	}
	return *inTokens - *cached, true
}

// models checks the integers of stats.models, which is kept as written.
func models(o *jsonobj.Object, v gjson.Result) {
	if !v.IsObject() {
		o.Fail("/stats/models", "got %s, want an object", jsonobj.TypeName(v))
		return
	}
	jsonobj.ForEach(v, func(name, m gjson.Result) bool {
		ptr := "/stats/models/" + jsonptr.Escape(name.Str)
		if !m.IsObject() {
			o.Fail(ptr, "got %s, want an object", jsonobj.TypeName(m))
			return false
		}
		for _, k := range modelFields {
			if f := jsonobj.Lookup(m, k); f.Exists() {
				uintAt(o, ptr+"/"+k, f)
			}
		}
		return o.Err() == nil
	})
}

// uintAt reads the count v at ptr: a non-negative integer literal that
// fits in 64 bits. It records a field error and returns nil otherwise.
func uintAt(o *jsonobj.Object, ptr string, v gjson.Result) *uint64 {
	n, msg := jsonobj.ParseUint(v, jsonobj.U64)
	if msg != "" {
		o.Fail(ptr, "%s", msg)
		return nil
	}
	return &n
}

// UseMembers hands the decoder the top-level members of the line its next
// Decode reads, found by the syntax check of the reading: the decoder
// then does not read the line's keys again.
func (d *Decoder) UseMembers(ms []ndjson.Member) { d.ms = ms }
