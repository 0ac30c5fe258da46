package muse

import (
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/evtool/evtool/ndjson"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/idset"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/tidwall/gjson"
)

// maxHeld bounds how many records the decoder holds back at the start of
// a stream while it waits for facts that belong on session_started.
const maxHeld = 8

// Decoder reads muse journal records into canonical events.
//
// Every record becomes one canonical event, except records that say
// nothing the canonical vocabulary has a place for (session.run.linked,
// run.lifecycle.started, task.stream.linked, a tool task's accepted and
// scheduled, and its terminal lifecycle event while its tool.result is
// awaited): those ride, as residue, on the next event's ext.muse.before.
// The stream's session_started is synthesised from the first envelope
// (and the first run.model.configured, if it comes within the first few
// records) and its session_finished from the last run.terminal.
//
// Every tool call the canonical stream names is announced by a tool_call
// and finished by exactly one tool_finished: a tool.result joined to no
// task announces its call with a synthetic tool_call, and a call still
// open when its run ends (run.terminal) is finished there.
type Decoder struct {
	jsonobj.OwnLine // a long line is read in place (UseOwn)
	opts            dialect.DecodeOptions
	st              *state
	started         bool
	before          []json.RawMessage    // residue of records waiting for a carrier
	tools           map[string]*toolTask // tool tasks a later record may still join (see forget)
	order           []string             // tasks of tools, in the order they were proposed; some may be forgotten since
	orderAt         int                  // len(order) at which the forgotten are dropped from it
	open            []string             // tool tasks not yet finished, in order; some may have finished since (keepOpen)
	openAt          int                  // len(open) at which the finished are dropped from it
	waiting         []string             // finished tool tasks awaiting a tool.result, oldest first; some may be answered since
	nwait           int                  // how many in waiting still wait
	forgets         []string             // tool tasks to forget once the record that ended them is derived
	ends            []string             // other tasks to forget, likewise
	scrub           []string             // forgotten tasks a record named again: what the state took of it goes
	// proposed are the tool tasks the record just read proposed: their
	// kinds leave the state's table, where each cost a map entry, for
	// toolTask.kind (kindOf).
	proposed []string
	plain    map[string]bool // other tasks, while open
	plainOf  []string        // open other tasks, in order; some may have ended since
	plainAt  int             // len(plainOf) at which the ended are dropped from it
	// doneCalls and donePlain remember, compactly and within a bound
	// (idset.Generation), the ids of what the decoder forgot: tool tasks
	// and synthetic calls (doneTool, doneCall), and other tasks that
	// ended, with their kinds (kinds' index plus one). Two sets, for a
	// task and a synthetic call may share an id.
	doneCalls idset.Set
	donePlain idset.Set
	kinds     kindTable
	lastEnd   *event.TurnFinished
	buf       []byte
	// verdicts: the caller reads no event (stream.Options.VerdictsOnly),
	// so no residue is derived.
	verdicts bool
	// ms are the members of the line the next Decode reads (UseMembers).
	ms []ndjson.Member

	holding bool
	held    []*event.Event
	records int // records held so far
	header  *event.SessionStarted
}

type toolTask struct {
	kind     string // its task_kind: "tool." and the tool's name
	reason   string
	terminal uint8 // the lifecycle kind that ended the task: its index in LifecycleKinds
	ended    bool  // the source ended the task by a lifecycle event
	finished bool  // its tool_finished is written
	// dropped: the state's table no longer holds the task's kind (its
	// first, which kind holds): a repeated proposal's kind goes too, as
	// the first proposal's kind stays the task's.
	dropped  bool
	answered bool // a tool.result was joined to it
}

// name is the tool's name.
func (t *toolTask) name() string { return t.kind[len("tool."):] }

// end is the lifecycle kind that ended the task, once ended.
func (t *toolTask) end() string { return LifecycleKinds[t.terminal] }

func (d *Decoder) init() {
	if d.st == nil {
		d.st, d.tools, d.plain = newState(), map[string]*toolTask{}, map[string]bool{}
	}
}

// VerdictsOnly makes the decoder derive no residue of its records (what
// a line holds beyond its event, found by deriving the line back and
// comparing): for a caller that reads the lines' verdicts and no event,
// as validate does. Errors are the same. Call it before the first line.
func (d *Decoder) VerdictsOnly() { d.verdicts = true }

// UseMembers hands the decoder the top-level members of the line its next
// Decode reads, found by the syntax check of the reading: the decoder
// then does not read the line's keys again.
func (d *Decoder) UseMembers(ms []ndjson.Member) { d.ms = ms }

// Decode implements dialect.Decoder.
func (d *Decoder) Decode(out []*event.Event, line []byte, n int) ([]*event.Event, error) {
	d.init()
	ms := d.ms
	d.ms = nil
	own := d.Own()
	compact, gaps := compactLine(line)
	if len(gaps) > 0 {
		ms = nil   // the members' places are in line, not in compact
		own = true // compact is a buffer of its own
	}
	rec, err := parseRecordMembers(compact, ms, own)
	if err != nil {
		return out, err
	}
	actual, _, _ := parseRecordMS(compact, ms, own)
	p, err := rec.Lift()
	if err != nil && !errors.Is(err, ErrUnknownPayload) {
		return out, err
	}
	if !d.started {
		d.started, d.holding = true, true
		d.st.session = strings.Clone(rec.Stream.ID) // kept for the stream: not a slice of its line
		v := uint64(rec.SchemaVersion)
		d.header = &event.SessionStarted{
			Schema:    event.SchemaVersion,
			Source:    event.SourceInfo{Dialect: Name, Version: &v},
			Agent:     &event.Agent{Name: Name},
			SessionID: rec.Stream.ID,
		}
		d.held = append(d.held, &event.Event{Synthetic: true, Body: d.header})
	}
	d.lastEnd = nil
	var evs []*event.Event
	if err != nil { // an unknown payload type or lifecycle event
		evs = append(evs, d.unknown(line, rec, gaps, n))
		d.st.update(actual)
	} else {
		evs = d.record(evs, rec, p, actual, compact, gaps, n)
	}
	d.forgetEnded()
	return d.flow(out, rec.PayloadType, evs), nil
}

// flow passes events on, holding back the start of the stream until
// session_started has what the source states about the session.
func (d *Decoder) flow(out []*event.Event, pt string, evs []*event.Event) []*event.Event {
	if !d.holding {
		return append(out, evs...)
	}
	d.held = append(d.held, evs...)
	d.records++
	switch pt {
	case "runtime.command.accepted", "session.run.linked", "turn.input.user", "run.lifecycle.started":
		if d.records < maxHeld {
			return out
		}
	}
	return d.release(out)
}

func (d *Decoder) release(out []*event.Event) []*event.Event {
	out = append(out, d.held...)
	d.held, d.holding = nil, false
	return out
}

// record decodes a typed record into its events.
func (d *Decoder) record(evs []*event.Event, rec *Record, p Payload, actual record, compact []byte, gaps []gap, n int) []*event.Event {
	t, hasTime := timeOf(rec.RecordedAt)
	pre, ev, task := d.canonical(rec, p)
	for _, s := range pre {
		s.Synthetic, s.TurnID = true, rec.CausationID
		if hasTime {
			s.Time = t
		}
	}
	evs = append(evs, pre...)
	if ev == nil {
		// A record with no canonical event of its own: residue for the next.
		if !d.verdicts {
			res := d.residueFor(nil, rec, actual, task, jqSorted(actual.payload.keys()), compact, gaps)
			d.before = append(d.before, res.appendJSON(nil))
		}
		d.st.update(actual)
		return evs
	}
	ev.TurnID = rec.CausationID
	if hasTime {
		ev.Time = t
	}
	if !d.verdicts {
		res := d.residueFor(ev, rec, actual, "", jqSorted(actual.payload.keys()), compact, gaps)
		d.attach(ev, res)
	}
	if d.opts.Provenance {
		ev.Src = &event.Source{Dialect: Name, Line: n, Type: rec.PayloadType}
	}
	d.st.update(actual)
	if end, ok := ev.Body.(*event.TurnFinished); ok {
		d.lastEnd = end
	}
	return append(evs, ev)
}

// residueFor derives the record ev (or a carried record) would be written
// as, and returns what it takes to turn that into the actual line. It
// verifies the result and keeps the whole line when derivation cannot
// rebuild it.
func (d *Decoder) residueFor(ev *event.Event, rec *Record, actual record, task string, sorted bool, compact []byte, gaps []gap) residue {
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
	derived := record{env: d.st.deriveEnv(pt, cause, t, jqSorted(actual.env.keys()))}
	museKind := sourceTaskKind(ev, actual)
	derived.payload = d.st.derivePayload(ev, rec.PayloadType, rec.CausationID, task, museKind, sorted)
	res := diff(actual, derived)
	res.Task, res.TaskKind = task, museKind
	if ev == nil {
		// A carried record's envelope has no event to derive its type from.
		if res.Env == nil {
			res.Env = map[string]json.RawMessage{}
		}
		res.Env["payload_type"] = json.RawMessage(str(rec.PayloadType))
	}
	check := d.st.render(ev, res, t, d.buf[:0])
	d.buf = check
	if !sameBytes(check, compact) {
		res = residue{Line: append(json.RawMessage(nil), compact...)}
	}
	res.WS = gaps
	return res
}

// sourceTaskKind returns the task_kind of a task_updated's proposed record
// when the canonical kind does not derive it, so ext.muse keeps Muse's word.
func sourceTaskKind(ev *event.Event, actual record) string {
	if ev == nil {
		return ""
	}
	b, ok := ev.Body.(*event.TaskUpdated)
	if !ok {
		return ""
	}
	e, ok := actual.payload.get("event")
	if !ok {
		return ""
	}
	k := gjson.Get(e, "task_kind")
	if k.Type != gjson.String || k.Str == museTaskKind(b.Kind) {
		return ""
	}
	return k.Str
}

// attach sets ev's ext.muse from its own residue and the records it carries.
func (d *Decoder) attach(ev *event.Event, res residue) {
	x := museExt{Before: d.before, residue: res}
	d.before = nil
	if len(x.Before) == 0 && res.empty() {
		return
	}
	ev.Ext = event.ExtOf(Name, x.appendJSON(nil))
}

func (d *Decoder) unknown(line []byte, rec *Record, gaps []gap, n int) *event.Event {
	ev := &event.Event{TurnID: rec.CausationID, Body: &event.Unknown{Dialect: Name, SourceType: rec.PayloadType, Raw: append(json.RawMessage(nil), line...)}}
	if d.opts.Provenance {
		ev.Src = &event.Source{Dialect: Name, Line: n, Type: rec.PayloadType}
	}
	d.attach(ev, residue{WS: gaps})
	return ev
}

// canonical maps a lifted record to its canonical event, or to nil (and
// the task it concerns) for a record that is only carried as residue. pre
// are synthetic events that must come before it.
func (d *Decoder) canonical(rec *Record, p Payload) (pre []*event.Event, ev *event.Event, task string) {
	switch b := p.(type) {
	case *CommandAccepted:
		return nil, &event.Event{Body: &event.TurnStarted{CommandID: b.CommandID}}, ""
	case *SessionRunLinked, *RunStarted:
		return nil, nil, ""
	case *TaskStreamLinked:
		return nil, nil, b.TaskID
	case *TurnInputUser:
		return nil, &event.Event{Body: &event.UserMessage{Text: b.Prompt}}, ""
	case *RunModelConfigured:
		if d.holding && d.header.Model == "" {
			d.header.Model, d.header.Provider = b.ModelID, b.ProviderID
		}
		m := &event.ModelConfigured{Model: b.ModelID, Provider: b.ProviderID, Label: b.DisplayLabel, Source: b.Source}
		if b.ProfileID != nil {
			m.Profile = *b.ProfileID // null (no profile) and "" both read as no profile; the residue tells them apart
		}
		return nil, &event.Event{Body: m}, ""
	case *RunOutputDelta:
		return nil, &event.Event{Body: &event.MessageDelta{Text: b.Text}}, ""
	case *RunTerminal:
		f := &event.TurnFinished{Status: runStatus(b.Terminal), Text: b.Text}
		if b.Reason != nil {
			f.Reason = *b.Reason
		}
		return d.finishOpen("the run ended (" + rec.PayloadType + ") before the task did"), &event.Event{Body: f}, ""
	case *ToolResult:
		pre, ev := d.toolResult(b)
		return pre, ev, ""
	case *TaskLifecycle:
		return d.lifecycle(b)
	}
	return nil, nil, ""
}

func (d *Decoder) lifecycle(b *TaskLifecycle) ([]*event.Event, *event.Event, string) {
	e := b.Event
	task := b.TaskID
	if v, _ := d.doneCalls.Get(task); v == doneTool {
		// A forgotten tool task: nothing may follow the end of a call.
		d.scrub = append(d.scrub, strings.Clone(task))
		return nil, nil, task
	}
	kind := d.kindOf(task)
	if e.Kind == "proposed" && d.tools[task] == nil {
		kind = e.TaskKind
	}
	name, isTool := strings.CutPrefix(kind, "tool.")
	if !isTool {
		u := &event.TaskUpdated{TaskID: task, Kind: taskKind(kind), Status: taskStatus(e.Kind), Detail: e.Message, Reason: e.Reason}
		if e.ParentTaskID != nil {
			u.ParentTaskID = *e.ParentTaskID
		}
		d.trackPlain(task, e.Kind)
		return nil, &event.Event{Body: u}, ""
	}
	t := d.tools[task]
	if e.Kind == "proposed" {
		if t != nil {
			d.proposed = append(d.proposed, strings.Clone(task))
			return nil, nil, task // a repeated proposal
		}
		d.newTool(task, name)
		return nil, &event.Event{Body: &event.ToolCall{CallID: task, Name: name, Kind: toolKind(name)}}, ""
	}
	if t == nil || t.finished || t.ended {
		// Nothing may follow the end of a call: kept as residue.
		return nil, nil, task
	}
	switch e.Kind {
	case "accepted", "scheduled":
		return nil, nil, task
	case "side_effect_intent":
		verb, scope, ok := strings.Cut(e.PolicyDecision, ":")
		if !ok || (verb != "allow" && verb != "deny") {
			return nil, nil, task
		}
		outcome := event.Allowed
		if verb == "deny" {
			outcome = event.Denied
		}
		return nil, &event.Event{Body: &event.PermissionResolved{CallID: task, Tool: name, Outcome: outcome, Scope: scope}}, ""
	case "started":
		return nil, &event.Event{Body: &event.ToolStarted{CallID: task, Name: name}}, ""
	case "status":
		return nil, &event.Event{Body: &event.ToolProgress{CallID: task, Name: name, Message: e.Message}}, ""
	case "output":
		return nil, &event.Event{Body: &event.ToolOutput{CallID: task, Name: name, Chunk: e.Chunk}}, ""
	}
	// A terminal event. A task scheduled as a tool call has its outcome
	// completed by the tool.result that follows (or by the run's end);
	// others end here.
	t.ended, t.terminal, t.reason = true, uint8(max(0, slices.Index(LifecycleKinds, e.Kind))), strings.Clone(e.Reason)
	if d.st.callID[task] != "" {
		return nil, nil, task
	}
	return nil, d.finish(task, toolStatus(e.Kind), e.Reason), ""
}

func (d *Decoder) newTool(task, name string) *toolTask {
	// Cloned, as the state's tables are (derive.go).
	task = strings.Clone(task)
	kind := "tool." + name
	t := &toolTask{kind: kind}
	d.proposed = append(d.proposed, task)
	d.tools[task] = t
	d.order = append(d.order, task)
	if len(d.order) >= d.orderAt {
		d.order = slices.DeleteFunc(d.order, func(id string) bool { return d.tools[id] == nil })
		d.orderAt = max(64, 2*len(d.order))
	}
	d.open = append(d.open, task)
	if len(d.open) >= d.openAt {
		d.keepOpen()
	}
	return t
}

// keepOpen drops the finished tasks from open. A task's finish leaves it
// there (cutting it out was a search and a copy of the list: a run's end
// that finished n open calls took n² steps); the list is cut down to the
// open ones each time it has doubled.
func (d *Decoder) keepOpen() {
	d.open = slices.DeleteFunc(d.open, func(id string) bool { t := d.tools[id]; return t == nil || t.finished })
	d.openAt = max(64, 2*len(d.open))
}

// stillOpen returns the tasks not yet finished, in order: a copy, for
// finishing them.
func (d *Decoder) stillOpen() []string {
	d.keepOpen()
	return slices.Clone(d.open)
}

// finish ends the call of a tool task.
func (d *Decoder) finish(task string, status event.ToolStatus, reason string) *event.Event {
	t := d.tools[task]
	t.finished = true
	if t.answered {
		d.forgets = append(d.forgets, task)
	} else {
		d.waiting = append(d.waiting, task)
		d.nwait++
	}
	return &event.Event{Body: &event.ToolFinished{CallID: task, Name: t.name(), Status: status, Error: reason}}
}

// What doneCalls remembers of an id.
const (
	doneTool = 1 // a tool task, finished and answered, or waited for too long
	doneCall = 2 // the call of a tool.result joined to no task
)

// maxWaiting is how many finished tool tasks wait for a tool.result that
// may join them (a task rejected before it was scheduled may still get
// one). Muse writes a task's tool.result within its run; a task finished
// without one stops waiting after this many others, and a tool.result
// for it is then read as one joined to no task.
const maxWaiting = 4096

// forgetEnded forgets the tasks the record just read ended, now that the
// record is derived: a tool task no later record can join is kept only
// as its id (doneCalls), another task with its kind (donePlain). A tool task a
// tool.result may still join waits, within maxWaiting.
func (d *Decoder) forgetEnded() {
	for _, task := range d.forgets {
		d.forgetTool(task)
	}
	for _, task := range d.ends {
		if !d.donePlain.Has(task) {
			d.donePlain.Add(task, d.kinds.index(d.st.taskKind[task])+1)
		}
		d.st.forgetTask(task)
	}
	for _, task := range d.scrub {
		d.st.forgetTask(task)
	}
	for _, task := range d.proposed {
		if t := d.tools[task]; t != nil && (t.dropped || d.st.taskKind[task] == t.kind) {
			delete(d.st.taskKind, task)
			t.dropped = true
		}
	}
	d.forgets, d.ends, d.scrub, d.proposed = d.forgets[:0], d.ends[:0], d.scrub[:0], d.proposed[:0]
	for d.nwait > maxWaiting {
		task := d.waiting[0]
		d.waiting = d.waiting[1:]
		if t := d.tools[task]; t != nil && t.finished && !t.answered {
			d.nwait--
			d.forgetTool(task)
		}
	}
	if len(d.waiting) > 2*maxWaiting+64 {
		d.waiting = slices.DeleteFunc(slices.Clone(d.waiting), func(id string) bool { t := d.tools[id]; return t == nil || t.answered })
	}
}

func (d *Decoder) forgetTool(task string) {
	delete(d.tools, task)
	d.st.forgetTask(task)
	d.doneCalls.Add(task, doneTool)
}

// callInUse reports whether a canonical call id is taken.
func (d *Decoder) callInUse(id string) bool {
	if d.tools[id] != nil {
		return true
	}
	return d.doneCalls.Has(id)
}

// kindOf returns the task_kind of a task: from the state while the task
// is known, from donePlain once it ended.
func (d *Decoder) kindOf(task string) string {
	if k, ok := d.st.taskKind[task]; ok {
		return k
	}
	if t := d.tools[task]; t != nil {
		return t.kind
	}
	if v, ok := d.donePlain.Get(task); ok {
		return d.kinds.kind(v - 1)
	}
	return ""
}

// kindTable numbers the task kinds of ended tasks, so that donePlain keeps
// a number for each. A run names a few kinds; past maxKinds of them, or a
// kind longer than maxKindLen, a kind is kept as none, and a later record
// of its task reads as one of an unknown kind.
type kindTable struct {
	names  []string
	byName map[string]uint64
}

const (
	maxKinds   = 4096
	maxKindLen = 256
)

func (k *kindTable) index(name string) uint64 {
	if k.byName == nil {
		k.names, k.byName = []string{""}, map[string]uint64{"": 0}
	}
	if i, ok := k.byName[name]; ok {
		return i
	}
	if len(k.names) >= maxKinds || len(name) > maxKindLen {
		return 0
	}
	name = strings.Clone(name)
	k.names = append(k.names, name)
	k.byName[name] = uint64(len(k.names) - 1)
	return uint64(len(k.names) - 1)
}

func (k *kindTable) kind(i uint64) string {
	if i < uint64(len(k.names)) {
		return k.names[i]
	}
	return ""
}

// trackPlain follows whether a task that is not a tool call is open. An
// ended task is forgotten but for its id and kind (donePlain): a later record
// of it does not open it again.
func (d *Decoder) trackPlain(task, kind string) {
	open := d.plain[task]
	if !open {
		if d.donePlain.Has(task) {
			d.scrub = append(d.scrub, strings.Clone(task))
			return
		}
	}
	switch {
	case terminalKind(kind):
		d.endPlain(task)
	case !open:
		task = strings.Clone(task)
		d.plain[task] = true
		d.plainOf = append(d.plainOf, task)
		if len(d.plainOf) >= d.plainAt {
			d.plainOf = slices.DeleteFunc(d.plainOf, func(id string) bool { return !d.plain[id] })
			d.plainAt = max(64, 2*len(d.plainOf))
		}
	}
}

// endPlain forgets a task that is not a tool call, once its record is
// derived, but for its id and kind.
func (d *Decoder) endPlain(task string) {
	delete(d.plain, task)
	d.ends = append(d.ends, strings.Clone(task))
}

// finishOpen finishes every call and task the run's end ends: a call whose
// task ended while its result was awaited gets that end, others are
// cancelled by the run's end.
func (d *Decoder) finishOpen(why string) []*event.Event {
	var out []*event.Event
	for _, id := range d.stillOpen() {
		t := d.tools[id]
		if t.finished {
			continue // a task open twice in the list
		}
		if t.ended {
			out = append(out, d.finish(id, toolStatus(t.end()), t.reason))
		} else {
			t.ended = true
			out = append(out, d.finish(id, event.ToolCancelled, why))
		}
	}
	for _, id := range d.plainOf {
		if !d.plain[id] {
			continue // ended since
		}
		out = append(out, &event.Event{Body: &event.TaskUpdated{TaskID: id, Kind: taskKind(d.st.taskKind[id]), Status: event.TaskCancelled, Reason: why}})
		d.endPlain(id)
	}
	d.plainOf = nil
	return out
}

// toolResult joins a tool.result to its task: by the scheduled idempotency
// key, else the latest task of the same tool that awaits a result. A
// result joined to no task announces its call with a synthetic tool_call;
// a result for a call that already finished (a task rejected before it was
// scheduled) is kept as residue, since a call finishes once.
func (d *Decoder) toolResult(b *ToolResult) ([]*event.Event, *event.Event) {
	name, outcome := "", ""
	if b.CorrelationFacts != nil {
		name, outcome = b.CorrelationFacts.ToolName, b.CorrelationFacts.Outcome
	}
	task := ""
	if id := d.st.taskOf[b.CallID]; id != "" && d.tools[id] != nil && !d.tools[id].answered {
		task = id
	}
	if task == "" && name != "" {
		for i := len(d.order) - 1; i >= 0; i-- {
			id := d.order[i]
			t := d.tools[id]
			if t != nil && t.name() == name && !t.answered && (d.st.callID[id] == "" || d.st.callID[id] == b.CallID) {
				task = id
				break
			}
		}
	}
	var pre []*event.Event
	var f *event.ToolFinished
	if task != "" {
		t := d.tools[task]
		t.answered = true
		if t.finished {
			d.nwait--
			d.forgets = append(d.forgets, task)
			return nil, nil
		}
		status, reason := event.ToolSuccess, ""
		if t.ended {
			status, reason = toolStatus(t.end()), t.reason
		} else if outcome == "failure" {
			status = event.ToolError
		}
		f = d.finish(task, status, reason).Body.(*event.ToolFinished)
	} else {
		id := b.CallID
		for i := 2; d.callInUse(id); i++ {
			id = b.CallID + "#" + strconv.Itoa(i)
		}
		d.doneCalls.Add(id, doneCall)
		// The call is named only here: its kind is known at its end.
		kind := toolKind(name)
		pre = append(pre, &event.Event{Body: &event.ToolCall{CallID: id, Name: name, Kind: kind}})
		f = &event.ToolFinished{CallID: id, Name: name, Status: event.ToolSuccess, Kind: kind}
		if outcome == "failure" {
			f.Status = event.ToolError
		}
	}
	f.Edit = b.EditFacts
	text := b.Text
	f.Output = &text
	// A bash or command result is a CommandResult in text: lift it.
	if cr, ok := liftCommandResult(text); ok {
		code, out := cr.ExitCode, cr.Output
		f.Command, f.ExitCode, f.Output = cr.Command, &code, &out
		if cr.Truncated {
			f.Summary = ptr("output truncated")
		}
	}
	return pre, &event.Event{Body: f}
}

func ptr(s string) *string { return &s }

// End implements dialect.Decoder: a stream whose last record ended its
// turn gets a synthesised session_finished, carrying any records still
// waiting for one. A truncated stream gets none, but the calls its source
// ended are finished.
func (d *Decoder) End(out []*event.Event) []*event.Event {
	out = d.release(out)
	if d.lastEnd == nil {
		for _, id := range d.stillOpen() {
			if t := d.tools[id]; t.ended && !t.finished {
				ev := d.finish(id, toolStatus(t.end()), t.reason)
				ev.Synthetic, ev.TurnID = true, d.st.lastCause
				out = append(out, ev)
			}
		}
		if len(d.before) > 0 {
			// Records of a cut-off stream with nothing to ride on.
			ev := &event.Event{Synthetic: true, Body: &event.Notice{Severity: event.SeverityWarning, Message: "muse stream ended inside a turn; its last records are kept in ext.muse"}}
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
