package muse

import (
	"encoding/json"
	"errors"
	"strings"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
	"github.com/tidwall/gjson"
)

// Decoder reads muse journal records into canonical events.
//
// Every record becomes one canonical event, except records that say
// nothing the canonical vocabulary has a place for (session.run.linked,
// run.lifecycle.started, task.stream.linked, a tool task's accepted and
// scheduled, and its terminal lifecycle event while its tool.result is
// awaited): those ride, as residue, on the next event's ext.muse.before.
// The stream's session_started is synthesised from the first envelope and
// its session_finished from the last run.terminal.
type Decoder struct {
	opts    dialect.DecodeOptions
	st      *state
	started bool
	before  []json.RawMessage // residue of records waiting for a carrier
	tools   map[string]*toolTask
	lastEnd *event.TurnFinished // the last run.terminal, if it ended the stream so far
	buf     []byte
}

type toolTask struct {
	name     string
	terminal string // the lifecycle kind that ended the task, while its result is awaited
	reason   string
	finished bool
}

// Decode implements dialect.Decoder.
func (d *Decoder) Decode(out []*event.Event, line []byte, n int) ([]*event.Event, error) {
	if d.st == nil {
		d.st, d.tools = newState(), map[string]*toolTask{}
	}
	var rec Record
	actual, shaped := parseRecord(line)
	if err := json.Unmarshal(line, &rec); err != nil || !shaped {
		// Not an envelope evtool can read: keep the line whole.
		pt := gjson.GetBytes(line, "payload_type").Str
		return append(out, d.unknown(line, pt, "", n)), nil
	}
	if !d.started {
		d.started = true
		d.st.session = rec.Stream.ID
		v := rec.SchemaVersion
		out = append(out, &event.Event{Synthetic: true, Body: &event.SessionStarted{
			Schema:    event.SchemaVersion,
			Source:    event.SourceInfo{Dialect: Name, Version: &v},
			Agent:     &event.Agent{Name: Name},
			SessionID: rec.Stream.ID,
		}})
	}
	d.lastEnd = nil
	p, err := rec.Lift()
	if errors.Is(err, ErrUnknownPayload) {
		ev := d.unknown(line, rec.PayloadType, rec.CausationID, n)
		d.st.update(actual)
		return append(out, ev), nil
	}
	if err != nil {
		return out, &DecodeError{Pointer: "/payload", Msg: err.Error()}
	}
	ev, task := d.canonical(&rec, p)
	sorted := isSorted(actual.payload.keys()) && len(actual.payload) > 1
	if ev == nil {
		// A record with no canonical event of its own: residue for the next.
		res := d.residueFor(nil, &rec, actual, task, sorted, line)
		b, _ := json.Marshal(res)
		d.before = append(d.before, b)
		d.st.update(actual)
		return out, nil
	}
	ev.TurnID = rec.CausationID
	if t, ok := timeOf(rec.RecordedAt); ok {
		ev.Time = t
	}
	res := d.residueFor(ev, &rec, actual, "", sorted, line)
	d.attach(ev, res)
	if d.opts.Provenance {
		ev.Src = &event.Source{Dialect: Name, Line: n, Type: rec.PayloadType}
	}
	d.st.update(actual)
	if end, ok := ev.Body.(*event.TurnFinished); ok {
		d.lastEnd = end
	}
	return append(out, ev), nil
}

// residueFor derives the record ev (or a carried record) would be written
// as, and returns what it takes to turn that into the actual line. It
// verifies the result and keeps the whole line when derivation cannot
// rebuild it.
func (d *Decoder) residueFor(ev *event.Event, rec *Record, actual record, task string, sorted bool, line []byte) residue {
	t := ""
	if ev != nil {
		t = ev.Time
		if t == "" {
			if tt, ok := timeOf(rec.RecordedAt); ok {
				t = tt
			}
		}
	}
	pt, cause := "", d.st.lastCause
	if ev != nil {
		pt, cause = payloadTypeOf(ev), ev.TurnID
	}
	derived := record{env: d.st.deriveEnv(pt, cause, t)}
	derived.payload = d.st.derivePayload(ev, rec.PayloadType, rec.CausationID, task, sorted)
	res := diff(actual, derived)
	res.Task = task
	if ev == nil {
		// A carried record's envelope has no event to derive its type from.
		if res.Env == nil {
			res.Env = map[string]json.RawMessage{}
		}
		res.Env["payload_type"] = json.RawMessage(str(rec.PayloadType))
	}
	check := d.st.render(ev, res, t, d.buf[:0])
	d.buf = check
	if !sameBytes(check, line) {
		return residue{Line: append(json.RawMessage(nil), line...)}
	}
	return res
}

// attach sets ev's ext.muse from its own residue and the records it carries.
func (d *Decoder) attach(ev *event.Event, res residue) {
	type ext struct {
		Before []json.RawMessage `json:"before,omitempty"`
		residue
	}
	x := ext{Before: d.before, residue: res}
	d.before = nil
	if len(x.Before) == 0 && res.empty() {
		return
	}
	b, _ := json.Marshal(x)
	ev.Ext = event.Ext{Name: b}
}

func (d *Decoder) unknown(line []byte, pt, cause string, n int) *event.Event {
	ev := &event.Event{TurnID: cause, Body: &event.Unknown{Dialect: Name, SourceType: pt, Raw: append(json.RawMessage(nil), line...)}}
	if d.opts.Provenance {
		ev.Src = &event.Source{Dialect: Name, Line: n, Type: pt}
	}
	if len(d.before) > 0 {
		d.attach(ev, residue{})
	}
	return ev
}

// canonical maps a lifted record to its canonical event, or to nil (and
// the task it concerns) for a record that is only carried as residue.
func (d *Decoder) canonical(rec *Record, p Payload) (*event.Event, string) {
	switch b := p.(type) {
	case *CommandAccepted:
		return &event.Event{Body: &event.TurnStarted{CommandID: b.CommandID}}, ""
	case *SessionRunLinked, *RunStarted:
		return nil, ""
	case *TaskStreamLinked:
		return nil, b.TaskID
	case *TurnInputUser:
		return &event.Event{Body: &event.UserMessage{Text: b.Prompt}}, ""
	case *RunModelConfigured:
		m := &event.ModelConfigured{Model: b.ModelID, Provider: b.ProviderID, Label: b.DisplayLabel, Source: b.Source}
		if b.ProfileID != nil {
			m.Profile = *b.ProfileID
		}
		return &event.Event{Body: m}, ""
	case *RunOutputDelta:
		return &event.Event{Body: &event.MessageDelta{Text: b.Text}}, ""
	case *RunTerminal:
		f := &event.TurnFinished{Status: statusOf(b.Terminal), Text: b.Text}
		if b.Reason != nil {
			f.Reason = *b.Reason
		}
		return &event.Event{Body: f}, ""
	case *ToolResult:
		return d.toolResult(b), ""
	case *TaskLifecycle:
		return d.lifecycle(b)
	}
	return nil, ""
}

func statusOf(terminal string) string {
	switch terminal {
	case "completed":
		return "ok"
	case "cancelled":
		return "cancelled"
	}
	return "error"
}

func toolStatus(kind string) string {
	switch kind {
	case "completed":
		return "success"
	case "cancelled":
		return "cancelled"
	case "rejected":
		return "rejected"
	}
	return "error"
}

func (d *Decoder) lifecycle(b *TaskLifecycle) (*event.Event, string) {
	e := b.Event
	task := b.TaskID
	kind := d.st.taskKind[task]
	if e.Kind == "proposed" {
		kind = e.TaskKind
	}
	name, isTool := strings.CutPrefix(kind, "tool.")
	if !isTool {
		u := &event.TaskUpdated{TaskID: task, Kind: kind, Status: e.Kind, Detail: e.Message}
		if e.Reason != nil {
			u.Reason = *e.Reason
		}
		if e.ParentTaskID != nil {
			u.ParentTaskID = *e.ParentTaskID
		}
		return &event.Event{Body: u}, ""
	}
	t := d.tools[task]
	if t == nil {
		t = &toolTask{name: name}
		d.tools[task] = t
	}
	switch e.Kind {
	case "proposed":
		return &event.Event{Body: &event.ToolCall{CallID: task, Name: name, Kind: event.ToolKind(name)}}, ""
	case "accepted", "scheduled":
		return nil, task
	case "side_effect_intent":
		verb, scope, ok := strings.Cut(e.PolicyDecision, ":")
		if !ok || (verb != "allow" && verb != "deny") {
			return nil, task
		}
		outcome := "allowed"
		if verb == "deny" {
			outcome = "denied"
		}
		return &event.Event{Body: &event.PermissionResolved{CallID: task, Tool: name, Outcome: outcome, Scope: scope}}, ""
	case "started":
		return &event.Event{Body: &event.ToolStarted{CallID: task, Name: name}}, ""
	case "status":
		return &event.Event{Body: &event.ToolProgress{CallID: task, Name: name, Message: e.Message}}, ""
	case "output":
		chunk := ""
		if e.Chunk != nil {
			chunk = *e.Chunk
		}
		return &event.Event{Body: &event.ToolOutput{CallID: task, Name: name, Chunk: chunk}}, ""
	}
	// A terminal event. A task scheduled as a tool call has its outcome
	// completed by the tool.result that follows; others end here.
	if t.finished || (d.st.callID[task] != "" && !t.finished) {
		if !t.finished {
			t.terminal = e.Kind
			if e.Reason != nil {
				t.reason = *e.Reason
			}
		}
		return nil, task
	}
	t.finished = true
	f := &event.ToolFinished{CallID: task, Name: name, Status: toolStatus(e.Kind)}
	if e.Reason != nil {
		f.Error = *e.Reason
	}
	return &event.Event{Body: f}, ""
}

// toolResult joins a tool.result to its task: by the scheduled idempotency
// key, else the latest open task of the same tool, else none (the call is
// then made known by a synthesised tool_call).
func (d *Decoder) toolResult(b *ToolResult) *event.Event {
	task := d.st.taskOf[b.CallID]
	name := ""
	if b.CorrelationFacts != nil {
		name = b.CorrelationFacts.ToolName
	}
	if task == "" && name != "" {
		for id, t := range d.tools {
			if t.name == name && !t.finished && (task == "" || id > task) {
				task = id
			}
		}
	}
	f := &event.ToolFinished{CallID: task, Name: name, Status: "success", Edit: b.EditFacts}
	if t := d.tools[task]; t != nil {
		t.finished = true
		f.Name = t.name
		if t.terminal != "" {
			f.Status = toolStatus(t.terminal)
			f.Error = t.reason
		}
	} else if task == "" {
		f.CallID = b.CallID
	}
	if (d.tools[task] == nil || d.tools[task].terminal == "") && b.CorrelationFacts != nil && b.CorrelationFacts.Outcome == "failure" {
		f.Status = "error"
	}
	text := b.Text
	f.Output = &text
	// A bash or command result is JSON in text: lift it.
	if strings.HasPrefix(strings.TrimSpace(text), "{") && json.Valid([]byte(text)) {
		var cr CommandResult
		if json.Unmarshal([]byte(text), &cr) == nil && cr.Command != "" {
			f.Command, f.ExitCode, f.Output = cr.Command, cr.ExitCode, cr.Output
			if cr.Truncated != nil && *cr.Truncated {
				f.Summary = ptr("output truncated")
			}
		}
	}
	return &event.Event{Body: f}
}

func ptr(s string) *string { return &s }

// End implements dialect.Decoder: a stream whose last record ended its
// turn gets a synthesised session_finished, carrying any records still
// waiting for one. A truncated stream gets none.
func (d *Decoder) End(out []*event.Event) []*event.Event {
	if d.lastEnd == nil {
		if len(d.before) > 0 {
			// Records of a cut-off stream with nothing to ride on.
			ev := &event.Event{Synthetic: true, Body: &event.Notice{Severity: "warning", Message: "muse stream ended inside a turn; its last records are kept in ext.muse"}}
			d.attach(ev, residue{})
			out = append(out, ev)
		}
		return out
	}
	f := &event.SessionFinished{Status: d.lastEnd.Status, Text: d.lastEnd.Text, Message: d.lastEnd.Reason}
	ev := &event.Event{Synthetic: true, Body: f}
	if len(d.before) > 0 {
		d.attach(ev, residue{})
	}
	return append(out, ev)
}
