package muse

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unsafe"

	"github.com/evtool/evtool/ndjson"

	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/evtool/evtool/internal/jsonptr"
	"github.com/tidwall/gjson"
)

// Record is one journal envelope of `muse exec --json`. The envelope is
// fully typed; the payload stays raw until Lift is called, because Muse
// adds payload types and keys without notice.
//
// Reading follows Muse's own serde types: key order never matters,
// unknown keys are ignored (evtool keeps them as residue), an Option<T>
// field may be absent or null, and integer fields take only integer
// literals within their Rust type's range.
type Record struct {
	SchemaVersion        uint32          `json:"schema_version"`
	ID                   string          `json:"id"`
	Stream               StreamRef       `json:"stream"`
	Sequence             uint64          `json:"sequence"`
	RecordedAt           uint64          `json:"recorded_at"` // microseconds since the Unix epoch
	RecordType           string          `json:"record_type"` // reconciliation, event, status
	Durability           string          `json:"durability"`  // durable, ephemeral
	CausationID          string          `json:"causation_id"`
	PayloadType          string          `json:"payload_type"`
	PayloadSchemaVersion uint32          `json:"payload_schema_version"`
	Payload              json.RawMessage `json:"payload"` // any JSON value
}

// StreamRef names a journal stream.
type StreamRef struct {
	Kind string `json:"kind"` // session, run, task
	ID   string `json:"id"`
}

// Payload is a typed payload; PayloadKind returns the kind Muse writes.
type Payload interface{ PayloadKind() string }

// Head is what every typed payload has: kind (any string), command_id and,
// except for runtime.command.accepted, run_stream.
type Head struct {
	Kind      string    `json:"kind"`
	CommandID string    `json:"command_id"`
	RunStream StreamRef `json:"run_stream"`
}

// CommandAccepted is runtime.command.accepted.
type CommandAccepted struct {
	Kind        string  `json:"kind"`
	CommandID   string  `json:"command_id"`
	ClientID    *string `json:"client_id"` // Option: absent or null is None
	CommandKind string  `json:"command_kind"`
}

// SessionRunLinked is session.run.linked.
type SessionRunLinked struct{ Head }

// TurnInputUser is turn.input.user.
type TurnInputUser struct {
	Head
	Prompt string `json:"prompt"`
}

// RunStarted is run.lifecycle.started.
type RunStarted struct {
	Head
	Prompt string `json:"prompt"`
}

// RunModelConfigured is run.model.configured. Every field is a required
// string, except ProfileID: Muse Code 1.0.1 writes "profile_id": null
// when no profile applies (the real captures show it; muse-codes 0.2.2
// made the field an Option<String> to match), so absent or null is None.
type RunModelConfigured struct {
	Head
	ModelID      string  `json:"model_id"`
	DisplayLabel string  `json:"display_label"`
	ProfileID    *string `json:"profile_id"` // Option: absent or null is None
	ProviderID   string  `json:"provider_id"`
	Source       string  `json:"source"`
}

// RunOutputDelta is run.output.delta.
type RunOutputDelta struct {
	Head
	Text string `json:"text"`
}

// ToolResult is tool.result. It has no task id: join it to its task by
// the task's scheduled idempotency key, "tool:" + CallID.
type ToolResult struct {
	Head
	CallID           string            `json:"call_id"`
	Text             string            `json:"text"`
	CorrelationFacts *CorrelationFacts `json:"correlation_facts,omitempty"` // absent or null is None
	EditFacts        json.RawMessage   `json:"edit_facts,omitempty"`        // any JSON; absent or null is None
}

// CorrelationFacts name the tool and its outcome; absent on older CLIs.
type CorrelationFacts struct {
	ToolName string `json:"tool_name,omitempty"`
	Outcome  string `json:"outcome,omitempty"` // success, failure (observed)
}

// CommandResult is the JSON inside a bash or command tool.result text.
// Every field is required; ExitCode is an i32.
type CommandResult struct {
	ChunkID              string `json:"chunk_id"`
	Command              string `json:"command"`
	Description          string `json:"description"`
	ExitCode             int64  `json:"exit_code"`
	TerminalStatus       string `json:"terminal_status"`
	Output               string `json:"output"`
	OriginalOutputBytes  uint64 `json:"original_output_bytes"`
	OriginalOutputTokens uint64 `json:"original_output_tokens"`
	Truncated            bool   `json:"truncated"`
}

// RunTerminal is run.terminal.<state>.
type RunTerminal struct {
	Head
	Terminal string  `json:"terminal"`
	Text     *string `json:"text,omitempty"` // absent or null is None
	Reason   *string `json:"reason"`         // absent or null is None
}

// TaskStreamLinked is task.stream.linked.
type TaskStreamLinked struct {
	Head
	TaskID     string    `json:"task_id"`
	TaskStream StreamRef `json:"task_stream"`
}

// TaskLifecycle is task.lifecycle.<kind>. Event is the lifecycle event
// when it has the shape of a known kind; otherwise Event.Kind is "" and
// the event (any JSON value) is an unknown lifecycle event.
type TaskLifecycle struct {
	Head
	TaskStream StreamRef      `json:"task_stream"`
	TaskID     string         `json:"task_id"`
	Event      LifecycleEvent `json:"event"`
}

// LifecycleEvent is the event of a task.lifecycle record, tagged on Kind.
// Which fields are set depends on Kind; see the package documentation.
type LifecycleEvent struct {
	Kind           string  `json:"kind"`
	TaskID         string  `json:"task_id"`
	TaskKind       string  `json:"task_kind,omitempty"`       // proposed
	IdempotencyKey string  `json:"idempotency_key,omitempty"` // scheduled, side_effect_intent
	Operation      string  `json:"operation,omitempty"`       // side_effect_intent
	PolicyDecision string  `json:"policy_decision,omitempty"` // side_effect_intent
	ParentTaskID   *string `json:"parent_task_id,omitempty"`  // side_effect_intent
	SpanID         *string `json:"span_id,omitempty"`         // started (live providers)
	Message        string  `json:"message,omitempty"`         // status
	Chunk          string  `json:"chunk,omitempty"`           // output
	Reason         string  `json:"reason,omitempty"`          // cancelled, rejected, failed
}

func (*CommandAccepted) PayloadKind() string    { return "command_accepted" }
func (*SessionRunLinked) PayloadKind() string   { return "session_run_linked" }
func (*TurnInputUser) PayloadKind() string      { return "turn_input_user" }
func (*RunStarted) PayloadKind() string         { return "run_started" }
func (*RunModelConfigured) PayloadKind() string { return "run_model_configured" }
func (*RunOutputDelta) PayloadKind() string     { return "run_output_delta" }
func (*ToolResult) PayloadKind() string         { return "tool_result" }
func (*RunTerminal) PayloadKind() string        { return "run_terminal" }
func (*TaskStreamLinked) PayloadKind() string   { return "task_stream_linked" }
func (*TaskLifecycle) PayloadKind() string      { return "task_lifecycle" }

// LifecycleKinds are the eleven known task.lifecycle event kinds.
var LifecycleKinds = []string{"proposed", "accepted", "scheduled", "side_effect_intent", "started", "status", "output", "completed", "cancelled", "rejected", "failed"}

// ErrUnknownPayload is returned by Lift for a payload type it does not
// know, or a lifecycle event of no known kind and shape: the record is
// then passed through untouched.
var ErrUnknownPayload = fmt.Errorf("unknown payload type")

// fields is one JSON object of a typed struct, read by exact key.
type fields struct {
	ptr  string
	keys []string
	vals []gjson.Result
}

// objectAt reads v as an object; every key must appear once.
func objectAt(v gjson.Result, ptr string) (*fields, error) { return objectAtMembers(v, ptr, nil) }

// objectAtMembers is objectAt with v's members as the syntax check found
// them (nil: read v).
func objectAtMembers(v gjson.Result, ptr string, ms []ndjson.Member) (*fields, error) {
	if !v.IsObject() {
		return nil, &DecodeError{Pointer: ptr, Msg: "must be an object, not " + typeName(v)}
	}
	f := &fields{ptr: ptr}
	var err error
	jsonobj.ForEachMember(v, ms, func(k, val gjson.Result) bool {
		for _, s := range f.keys {
			if s == k.Str {
				err = &DecodeError{Pointer: ptr + "/" + jsonptr.Escape(k.Str), Msg: "duplicate key " + strconv.Quote(k.Str)}
				return false
			}
		}
		f.keys = append(f.keys, k.Str)
		f.vals = append(f.vals, val)
		return true
	})
	if err != nil {
		return nil, err
	}
	return f, nil
}

func (f *fields) get(k string) (gjson.Result, bool) {
	for i, s := range f.keys {
		if s == k {
			return f.vals[i], true
		}
	}
	return gjson.Result{}, false
}

func (f *fields) at(k string) string { return f.ptr + "/" + jsonptr.Escape(k) }

func typeName(v gjson.Result) string {
	switch v.Type {
	case gjson.Null:
		return "null"
	case gjson.False, gjson.True:
		return "a boolean"
	case gjson.Number:
		return "a number"
	case gjson.String:
		return "a string"
	}
	if v.IsArray() {
		return "an array"
	}
	if v.IsObject() {
		return "an object"
	}
	return "nothing"
}

func (f *fields) missing(k string) error {
	return &DecodeError{Pointer: f.ptr, Msg: "missing required key " + strconv.Quote(k)}
}

// str reads a required string.
func (f *fields) str(k string) (string, error) {
	v, ok := f.get(k)
	if !ok {
		return "", f.missing(k)
	}
	if v.Type != gjson.String {
		return "", &DecodeError{Pointer: f.at(k), Msg: "must be a string, not " + typeName(v)}
	}
	return v.Str, nil
}

// A strField is a required string key and where its value goes.
type strField struct {
	k string
	s *string
}

// strs reads required strings in the order given, stopping at the first
// that is missing or not a string.
func (f *fields) strs(fs ...strField) error {
	for _, x := range fs {
		var err error
		if *x.s, err = f.str(x.k); err != nil {
			return err
		}
	}
	return nil
}

// optStr reads an Option<String>: absent or null is nil.
func (f *fields) optStr(k string) (*string, error) {
	v, ok := f.get(k)
	if !ok || v.Type == gjson.Null {
		return nil, nil
	}
	if v.Type != gjson.String {
		return nil, &DecodeError{Pointer: f.at(k), Msg: "must be a string or null, not " + typeName(v)}
	}
	s := v.Str
	return &s, nil
}

// enum reads a required string of a closed set.
func (f *fields) enum(k string, vals ...string) (string, error) {
	s, err := f.str(k)
	if err != nil {
		return "", err
	}
	for _, v := range vals {
		if s == v {
			return s, nil
		}
	}
	return "", &DecodeError{Pointer: f.at(k), Msg: fmt.Sprintf("%q is not one of %s", s, strings.Join(vals, ", "))}
}

// uint reads a required unsigned integer of type t, as Rust reads it: an
// integer literal only (no fraction, exponent or minus sign), exactly.
func (f *fields) uint(k string, t jsonobj.IntType) (uint64, error) {
	v, ok := f.get(k)
	if !ok {
		return 0, f.missing(k)
	}
	n, msg := jsonobj.ParseUint(v, t)
	if msg != "" {
		return 0, &DecodeError{Pointer: f.at(k), Msg: msg}
	}
	return n, nil
}

// stream reads a required StreamRef.
func (f *fields) stream(k string) (StreamRef, error) {
	v, ok := f.get(k)
	if !ok {
		return StreamRef{}, f.missing(k)
	}
	return streamAt(v, f.at(k))
}

func streamAt(v gjson.Result, ptr string) (StreamRef, error) {
	o, err := objectAt(v, ptr)
	if err != nil {
		return StreamRef{}, err
	}
	var s StreamRef
	if s.Kind, err = o.enum("kind", "session", "run", "task"); err != nil {
		return s, err
	}
	s.ID, err = o.str("id")
	return s, err
}

// ParseRecord reads one line into a Record the way Muse's MuseRecord
// reads it; the error names the offending value by JSON pointer.
func ParseRecord(line []byte) (*Record, error) { return parseRecordMembers(line, nil, false) }

// parseRecordMembers is ParseRecord with the line's top-level members as
// the syntax check found them (nil: read the line); own says the line is a
// buffer of its own that nothing writes again, read in place.
func parseRecordMembers(line []byte, ms []ndjson.Member, own bool) (*Record, error) {
	o, err := objectAtMembers(jsonobj.ParseLine(line, own), "", ms)
	if err != nil {
		return nil, err
	}
	r := &Record{}
	var sv, psv uint64
	if sv, err = o.uint("schema_version", jsonobj.U32); err != nil {
		return nil, err
	}
	if r.ID, err = o.str("id"); err != nil {
		return nil, err
	}
	if r.Stream, err = o.stream("stream"); err != nil {
		return nil, err
	}
	if r.Sequence, err = o.uint("sequence", jsonobj.U64); err != nil {
		return nil, err
	}
	if r.RecordedAt, err = o.uint("recorded_at", jsonobj.U64); err != nil {
		return nil, err
	}
	if r.RecordType, err = o.enum("record_type", "reconciliation", "event", "status"); err != nil {
		return nil, err
	}
	if r.Durability, err = o.enum("durability", "durable", "ephemeral"); err != nil {
		return nil, err
	}
	if err = o.strs(strField{"causation_id", &r.CausationID}, strField{"payload_type", &r.PayloadType}); err != nil {
		return nil, err
	}
	if psv, err = o.uint("payload_schema_version", jsonobj.U32); err != nil {
		return nil, err
	}
	p, ok := o.get("payload")
	if !ok {
		return nil, o.missing("payload")
	}
	r.SchemaVersion, r.PayloadSchemaVersion = uint32(sv), uint32(psv)
	if own {
		// The line is the record's for good: its payload is that part of
		// it, not a copy (a payload can be most of a line of megabytes).
		r.Payload = json.RawMessage(unsafe.Slice(unsafe.StringData(p.Raw), len(p.Raw)))
	} else {
		r.Payload = json.RawMessage(p.Raw)
	}
	return r, nil
}

// Lift decodes the payload into its typed kind, as Muse's
// MusePayload::from_parts does. An unknown payload type, or a lifecycle
// event that fits no known kind, returns ErrUnknownPayload; a payload that
// does not fit its known type is an error naming the value.
func (r *Record) Lift() (Payload, error) {
	// Read in place: the payload is the record's own copy, which nothing
	// writes again (a lifted payload's strings keep it, as they would
	// keep a copy of it).
	return liftPayload(r.PayloadType, jsonobj.View(r.Payload))
}

// liftPayload decodes a payload of type pt: the fields every run payload
// has (its Head), then those of its type, one function each.
func liftPayload(pt string, pv gjson.Result) (Payload, error) {
	known := pt == "runtime.command.accepted" || pt == "session.run.linked" || pt == "turn.input.user" ||
		pt == "run.lifecycle.started" || pt == "run.model.configured" || pt == "run.output.delta" ||
		pt == "tool.result" || pt == "task.stream.linked" ||
		strings.HasPrefix(pt, "run.terminal.") || strings.HasPrefix(pt, "task.lifecycle.")
	if !known {
		return nil, ErrUnknownPayload
	}
	o, err := objectAt(pv, "/payload")
	if err != nil {
		return nil, err
	}
	if pt == "runtime.command.accepted" {
		return liftCommandAccepted(o)
	}
	h, err := liftHead(o)
	if err != nil {
		return nil, err
	}
	switch {
	case pt == "session.run.linked":
		return &SessionRunLinked{h}, nil
	case pt == "turn.input.user":
		p := &TurnInputUser{Head: h}
		p.Prompt, err = o.str("prompt")
		return p, err
	case pt == "run.lifecycle.started":
		p := &RunStarted{Head: h}
		p.Prompt, err = o.str("prompt")
		return p, err
	case pt == "run.model.configured":
		return liftModelConfigured(o, h)
	case pt == "run.output.delta":
		p := &RunOutputDelta{Head: h}
		p.Text, err = o.str("text")
		return p, err
	case pt == "tool.result":
		return liftToolResult(o, h)
	case strings.HasPrefix(pt, "run.terminal."):
		return liftTerminal(o, h)
	case pt == "task.stream.linked":
		p := &TaskStreamLinked{Head: h}
		if p.TaskID, err = o.str("task_id"); err != nil {
			return nil, err
		}
		p.TaskStream, err = o.stream("task_stream")
		return p, err
	}
	return liftLifecycle(o, h) // task.lifecycle.*
}

func liftCommandAccepted(o *fields) (Payload, error) {
	p := &CommandAccepted{}
	err := o.strs(strField{"kind", &p.Kind}, strField{"command_id", &p.CommandID}, strField{"command_kind", &p.CommandKind})
	if err != nil {
		return nil, err
	}
	if p.ClientID, err = o.optStr("client_id"); err != nil {
		return nil, err
	}
	return p, nil
}

// liftHead reads the fields every payload of a run has.
func liftHead(o *fields) (Head, error) {
	var h Head
	err := o.strs(strField{"kind", &h.Kind}, strField{"command_id", &h.CommandID})
	if err != nil {
		return h, err
	}
	h.RunStream, err = o.stream("run_stream")
	return h, err
}

func liftModelConfigured(o *fields, h Head) (Payload, error) {
	p := &RunModelConfigured{Head: h}
	err := o.strs(strField{"model_id", &p.ModelID}, strField{"display_label", &p.DisplayLabel}, strField{"provider_id", &p.ProviderID}, strField{"source", &p.Source})
	if err != nil {
		return nil, err
	}
	p.ProfileID, err = o.optStr("profile_id")
	return p, err
}

func liftTerminal(o *fields, h Head) (Payload, error) {
	p := &RunTerminal{Head: h}
	var err error
	if p.Terminal, err = o.str("terminal"); err != nil {
		return nil, err
	}
	if p.Reason, err = o.optStr("reason"); err != nil {
		return nil, err
	}
	if p.Text, err = o.optStr("text"); err != nil {
		return nil, err
	}
	return p, nil
}

// liftLifecycle reads a task.lifecycle.* payload; an event that fits no
// known kind makes it unknown.
func liftLifecycle(o *fields, h Head) (Payload, error) {
	p := &TaskLifecycle{Head: h}
	var err error
	if p.TaskID, err = o.str("task_id"); err != nil {
		return nil, err
	}
	if p.TaskStream, err = o.stream("task_stream"); err != nil {
		return nil, err
	}
	ev, ok := o.get("event")
	if !ok {
		return nil, o.missing("event")
	}
	e, typed := liftEvent(ev)
	if !typed {
		return nil, ErrUnknownPayload
	}
	p.Event = e
	return p, nil
}

func liftToolResult(o *fields, h Head) (*ToolResult, error) {
	p := &ToolResult{Head: h}
	if err := o.strs(strField{"call_id", &p.CallID}, strField{"text", &p.Text}); err != nil {
		return nil, err
	}
	if v, ok := o.get("correlation_facts"); ok && v.Type != gjson.Null {
		cf, err := objectAt(v, o.at("correlation_facts"))
		if err != nil {
			return nil, err
		}
		p.CorrelationFacts = &CorrelationFacts{}
		name, err := cf.optStr("tool_name")
		if err != nil {
			return nil, err
		}
		outcome, err := cf.optStr("outcome")
		if err != nil {
			return nil, err
		}
		if name != nil {
			p.CorrelationFacts.ToolName = *name
		}
		if outcome != nil {
			p.CorrelationFacts.Outcome = *outcome
		}
	}
	if v, ok := o.get("edit_facts"); ok && v.Type != gjson.Null {
		p.EditFacts = json.RawMessage(v.Raw)
	}
	return p, nil
}

// liftEvent reads a lifecycle event as Muse's TaskLifecycleEvent does: a
// value that fits no known kind's shape is its Unknown variant (typed is
// false), never an error.
func liftEvent(v gjson.Result) (e LifecycleEvent, typed bool) {
	o, err := objectAt(v, "")
	if err != nil {
		return e, false
	}
	if e.Kind, err = o.enum("kind", LifecycleKinds...); err != nil {
		return e, false
	}
	if e.TaskID, err = o.str("task_id"); err != nil {
		return e, false
	}
	req := func(k string, dst *string) {
		if err == nil {
			*dst, err = o.str(k)
		}
	}
	switch e.Kind {
	case "proposed":
		req("task_kind", &e.TaskKind)
	case "scheduled":
		req("idempotency_key", &e.IdempotencyKey)
	case "side_effect_intent":
		req("idempotency_key", &e.IdempotencyKey)
		req("operation", &e.Operation)
		req("policy_decision", &e.PolicyDecision)
		if err == nil {
			e.ParentTaskID, err = o.optStr("parent_task_id")
		}
		// cancellation_handle is Option<Value>: anything goes.
	case "started":
		e.SpanID, err = o.optStr("span_id")
	case "status":
		req("message", &e.Message)
		if _, ok := o.get("details"); !ok && err == nil {
			err = o.missing("details") // details is a required Value
		}
	case "output":
		req("chunk", &e.Chunk)
	case "cancelled", "rejected", "failed":
		req("reason", &e.Reason)
	}
	return e, err == nil
}

// liftCommandResult reads a tool.result text as Muse's CommandResult; ok is
// false when the text is not one (then it is opaque prose).
func liftCommandResult(text string) (cr CommandResult, ok bool) {
	if !gjson.Valid(text) {
		return cr, false
	}
	o, err := objectAt(gjson.Parse(text), "")
	if err != nil {
		return cr, false
	}
	if o.strs(strField{"chunk_id", &cr.ChunkID}, strField{"command", &cr.Command}, strField{"description", &cr.Description},
		strField{"terminal_status", &cr.TerminalStatus}, strField{"output", &cr.Output}) != nil {
		return cr, false
	}
	v, found := o.get("exit_code")
	if !found {
		return cr, false
	}
	if n, msg := jsonobj.ParseInt(v, jsonobj.I32); msg == "" {
		cr.ExitCode = n
	} else {
		return cr, false
	}
	if cr.OriginalOutputBytes, err = o.uint("original_output_bytes", jsonobj.U64); err != nil {
		return cr, false
	}
	if cr.OriginalOutputTokens, err = o.uint("original_output_tokens", jsonobj.U64); err != nil {
		return cr, false
	}
	t, found := o.get("truncated")
	if !found || !t.IsBool() {
		return cr, false
	}
	cr.Truncated = t.Bool()
	return cr, true
}
