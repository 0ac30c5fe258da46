package muse

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/idset"
	"github.com/evtool/evtool/internal/jsonenc"
)

// foreign writes muse records for a stream read from another dialect. It
// builds every record through the same derivation the native path uses,
// and synthesises the records muse always has (session.run.linked,
// run.lifecycle.started, task.stream.linked, accepted, scheduled, a turn's
// run.terminal), counting each in the loss report.
type foreign struct {
	e     *Encoder
	turn  string // current turn id; "" between turns
	ended bool   // the current turn has its run.terminal
	// text is the answer of the current turn, for a run.terminal that
	// states none, which carries it whole: it is as long as a line the
	// encoder writes. (A source whose end states its answer makes it
	// unneeded, but that is known only at the end.)
	text    answer
	inDelta bool
	// The tasks and tool calls: those open, by id (cloned, as a key cut
	// from a source line would keep the line), and the ids of those that
	// ended, which is all that is kept of them (bounded: idset), so that
	// a run of millions of calls costs what its open calls do.
	tasks  map[string]*ftask
	done   idset.Set
	reopen int // turns opened again after their end, for fresh ids

	// The clock. Every record written for a source event, its own and the
	// bookkeeping records muse needs around it, is stamped with that
	// event's time (src, in microseconds, when hasSrc). recorded_at never
	// decreases (muse's journal never goes back, and muse/recorded-at
	// says so): an event whose time is before a record already written is
	// stamped with that record's time instead, counted once per event
	// (moved). An event that states no time holds the clock where it is.
	src    uint64
	hasSrc bool
	badSrc bool // the event states a time that is no canonical time
	moved  bool
}

type ftask struct {
	tool      bool
	name      string
	state     string // last lifecycle kind written
	scheduled bool
}

func newForeign(e *Encoder) *foreign { return &foreign{e: e, tasks: map[string]*ftask{}} }

// lookup returns the task of id: open, ended, or nil when id names none.
func (f *foreign) lookup(id string) *ftask {
	if t := f.tasks[id]; t != nil {
		return t
	}
	if f.done.Has(id) {
		// Any end will do: no step is legal from one, so nothing is
		// written for it, and nothing reads the rest.
		return &ftask{state: "completed"}
	}
	return nil
}

// open makes t the open task of id.
func (f *foreign) open(id string, t *ftask) {
	t.name = strings.Clone(t.name)
	f.tasks[strings.Clone(id)] = t
}

// end forgets an open task whose end is written, but for its id.
func (f *foreign) end(id string) {
	delete(f.tasks, id)
	f.done.Add(id, 0)
	f.e.st.forgetTask(id)
}

// loss counts one fact of a kind of the muse loss catalogue.
func (f *foreign) loss(k *dialect.LossKind) { f.e.opts.Losses.Add(k) }

// lossDetail counts one fact of a kind whose wording takes a detail.
func (f *foreign) lossDetail(k *dialect.LossKind, detail string) {
	f.e.opts.Losses.AddDetail(k, detail)
}

// record renders and writes one record.
func (f *foreign) record(ev *event.Event, res residue) error {
	st := f.e.st
	f.e.buf = st.render(ev, res, f.clock(), f.e.buf[:0])
	return f.e.emit(f.e.buf)
}

// setClock takes the time of the source event about to be written.
func (f *foreign) setClock(ev *event.Event) {
	f.src, f.hasSrc, f.badSrc, f.moved = 0, false, false, false
	if ev.Time != "" {
		f.src, f.hasSrc = microsOf(ev.Time)
		f.badSrc = !f.hasSrc
	}
}

// clock returns the recorded_at of the next record, as a canonical time:
// the source event's time, or the last record's when that is later or
// the event states none. The first record of a stream without a time is
// at 0, as before any record.
func (f *foreign) clock() string {
	st := f.e.st
	at := st.lastAt
	switch {
	case f.hasSrc && (st.records == 0 || f.src >= st.lastAt):
		at = f.src
	case f.hasSrc || f.badSrc:
		// Before a record already written (or not a time at all): the
		// journal's clock does not go back.
		if !f.moved {
			f.moved = true
			f.loss(lossRecordedAtMoved)
		}
	}
	t, _ := timeOf(at)
	return t
}

// bare writes a record that has no canonical event: payload type pt for
// task (if any), with payload overrides p.
func (f *foreign) bare(pt, task string, p map[string]json.RawMessage) error {
	return f.record(nil, residue{Env: map[string]json.RawMessage{"payload_type": json.RawMessage(str(pt)), "causation_id": json.RawMessage(str(f.turn))}, P: p, Task: task})
}

func (f *foreign) at(ev *event.Event) *event.Event {
	c := *ev
	c.TurnID = f.turn
	return &c
}

// beginTurn opens a turn, ending an open one first.
func (f *foreign) beginTurn(id string, ev *event.Event) error {
	if err := f.endTurn(nil); err != nil {
		return err
	}
	if id == "" {
		id = "turn-0"
	}
	f.turn, f.ended = id, false
	if err := f.text.Reset(); err != nil {
		return err
	}
	if ev == nil {
		ev = &event.Event{Body: &event.TurnStarted{}}
		f.loss(lossSynthesizedCommandAccepted)
	}
	if err := f.record(f.at(ev), residue{}); err != nil {
		return err
	}
	f.loss(lossSynthesizedRunLinked)
	return f.bare("session.run.linked", "", nil)
}

// endTurn writes the run.terminal of an open turn that has none: from a
// turn_finished when there is one, else synthesised.
func (f *foreign) endTurn(fin *event.Event) error {
	if f.turn == "" || f.ended {
		return nil
	}
	f.ended = true
	if fin == nil {
		f.loss(lossSynthesizedRunTerminal)
		return f.terminal(&event.Event{Body: &event.TurnFinished{Status: "ok"}}, &f.text)
	}
	if b := fin.Body.(*event.TurnFinished); b.Text != nil {
		return f.terminal(fin, stated(*b.Text))
	}
	return f.terminal(fin, &f.text)
}

// stated is the answer a source states.
func stated(s string) *answer { return &answer{blocks: []string{s}, n: len(s)} }

// textMark stands for the text of a run.terminal in the record that
// terminal writes it in place of.
const textMark = "\x00muse:text\x00"

var textMarkJSON = []byte(str(textMark))

// terminal writes the run.terminal of fin (a turn_finished) with text as
// its text. A long text is written straight to the output, in place of a
// mark in the record: made whole, escaped, rendered and read back, a 60 MB
// answer took four copies of itself at once.
func (f *foreign) terminal(fin *event.Event, text *answer) error {
	b := *fin.Body.(*event.TurnFinished)
	whole := func() error {
		s, err := text.String()
		if err != nil {
			return err
		}
		b.Text = &s
		return f.record(f.at(&event.Event{Time: fin.Time, Body: &b}), residue{})
	}
	if text.Len() < jsonenc.LongValue {
		return whole()
	}
	mark := textMark
	b.Text = &mark
	line := f.e.st.render(f.at(&event.Event{Time: fin.Time, Body: &b}), residue{}, f.clock(), f.e.buf[:0])
	f.e.buf = line
	at := bytes.Index(line, textMarkJSON)
	if at < 0 || bytes.Contains(line[at+len(textMarkJSON):], textMarkJSON) {
		return whole() // the mark is in another value too
	}
	return f.e.emitText(line, at, len(textMarkJSON), text)
}

func (f *foreign) ensureTurn(ev *event.Event) error {
	if f.turn == "" || f.ended {
		id := ev.TurnID
		if f.ended && (id == f.turn || id == "") {
			// An event of a turn that has ended (a model change after
			// the turn's end, say): muse journals nothing after a run's
			// terminal record, so it opens a run of its own.
			f.reopen++
			id = fmt.Sprintf("%s~%d", f.turn, f.reopen)
		}
		return f.beginTurn(id, nil)
	}
	return nil
}

// step moves a task to lifecycle kind k if that is legal, writing the
// bookkeeping kinds muse needs on the way; otherwise it counts the event
// as illegal (with detail, for a kind that takes one) and reports false.
func (f *foreign) step(t *ftask, id, k string, illegal *dialect.LossKind, detail string) (bool, error) {
	ok, err := f.steps(t, id, k)
	if err == nil && !ok {
		f.lossDetail(illegal, detail)
	}
	return ok, err
}

// steps moves a task to lifecycle kind k, as step does, and counts nothing.
func (f *foreign) steps(t *ftask, id, k string) (bool, error) {
	path := map[string][]string{
		"started":            {"accepted", "scheduled"},
		"side_effect_intent": {"accepted", "scheduled"},
		"status":             {"accepted", "scheduled", "started"},
		"output":             {"accepted", "scheduled", "started"},
		"completed":          {"accepted", "scheduled", "started"},
		"failed":             {},
		"cancelled":          {},
	}
	for _, need := range path[k] {
		if need == "scheduled" && !t.tool {
			continue
		}
		if t.state == need || (need == "accepted" && t.state != "proposed") ||
			(need == "scheduled" && t.scheduled) || (need == "started" && isRunning(t.state)) {
			continue
		}
		if !legal(t.state, need) {
			return false, nil
		}
		var p map[string]json.RawMessage
		if need == "scheduled" {
			p = map[string]json.RawMessage{"event": json.RawMessage(obj(false, kv{"kind", str("scheduled")}, kv{"task_id", str(id)}, kv{"idempotency_key", str("tool:" + id)}))}
			t.scheduled = true
		}
		f.lossDetail(lossSynthesizedTaskRecord, need)
		if err := f.bare("task.lifecycle."+need, id, p); err != nil {
			return false, err
		}
		t.state = need
	}
	if !legal(t.state, k) {
		return false, nil
	}
	t.state = k
	return true, nil
}

func isRunning(s string) bool { return s == "started" || s == "status" || s == "output" }

func legal(from, to string) bool {
	if terminalKind(from) {
		return false
	}
	for _, k := range next[from] {
		if k == to {
			return true
		}
	}
	return false
}

// encode writes the records of one event of another dialect's stream.
func (f *foreign) encode(ev *event.Event) error {
	f.e.opts.Losses.Foreign(ev.Ext, Name)
	f.setClock(ev)
	switch b := ev.Body.(type) {
	case *event.SessionStarted:
		f.sessionStarted(b)
		return nil
	case *event.TurnStarted:
		return f.beginTurn(ev.TurnID, ev)
	case *event.UserMessage:
		return f.userMessage(ev, b)
	case *event.ModelConfigured:
		if err := f.ensureTurn(ev); err != nil {
			return err
		}
		return f.record(f.at(ev), residue{})
	case *event.MessageDelta:
		f.inDelta = true
		return f.message(ev, b.Text)
	case *event.Message:
		if f.inDelta { // an assembled message repeats its deltas
			f.inDelta = false
			return nil
		}
		return f.message(ev, b.Text)
	case *event.TurnFinished:
		return f.turnFinished(ev, b)
	case *event.SessionFinished:
		return f.sessionFinished(ev, b)
	case *event.ToolCall:
		return f.toolCall(ev, b)
	case *event.PermissionRequested:
		f.loss(lossPermissionRequest)
		return nil
	case *event.PermissionResolved:
		return f.permissionResolved(ev, b)
	case *event.ToolStarted:
		return f.toolStep(ev, b.CallID, "started")
	case *event.ToolProgress:
		return f.toolStep(ev, b.CallID, "status")
	case *event.ToolOutput:
		return f.toolStep(ev, b.CallID, "output")
	case *event.ToolFinished:
		return f.toolFinished(ev, b)
	case *event.TaskUpdated:
		return f.task(ev, b)
	case *event.Unknown:
		f.lossDetail(lossUnknownEvent, b.Dialect)
		return nil
	}
	f.lossDetail(lossNoSuchRecord, string(ev.Type()))
	return nil
}

// sessionStarted takes the session's id; muse's records hold none of its
// other facts.
func (f *foreign) sessionStarted(b *event.SessionStarted) {
	st := f.e.st
	st.session = b.SessionID
	if st.session == "" {
		st.session = f.e.opts.Defaults.SessionID
	}
	if b.Model != "" || b.Workspace != "" || b.ContextFiles != nil && len(*b.ContextFiles) > 0 {
		f.loss(lossSessionFacts)
	}
}

// userMessage writes the user's message and the run.lifecycle.started
// muse writes after it.
func (f *foreign) userMessage(ev *event.Event, b *event.UserMessage) error {
	if err := f.ensureTurn(ev); err != nil {
		return err
	}
	if err := f.record(f.at(ev), residue{}); err != nil {
		return err
	}
	f.loss(lossSynthesizedRunStarted)
	if b.ImageCount != nil && *b.ImageCount > 0 {
		f.loss(lossImageCount)
	}
	return f.bare("run.lifecycle.started", "", nil)
}

// message writes text of the answer as a delta, and keeps it for the
// turn's run.terminal.
func (f *foreign) message(ev *event.Event, text string) error {
	if err := f.ensureTurn(ev); err != nil {
		return err
	}
	if err := f.text.WriteString(text); err != nil {
		return err
	}
	return f.record(f.at(&event.Event{Time: ev.Time, Body: &event.MessageDelta{Text: text}}), residue{})
}

// turnFinished ends the open turn with its run.terminal.
func (f *foreign) turnFinished(ev *event.Event, b *event.TurnFinished) error {
	if f.turn == "" || f.ended {
		f.loss(lossTurnEndOutside)
		return nil
	}
	if b.Usage != nil {
		f.loss(lossTurnTokenCounts)
	}
	return f.endTurn(ev)
}

// sessionFinished ends the open turn, if it has not ended, with the
// session's outcome.
func (f *foreign) sessionFinished(ev *event.Event, b *event.SessionFinished) error {
	if f.turn == "" {
		// A run that ended before any turn (it failed before its
		// prompt, say): muse journals every run as a turn, and a
		// journal without one is empty, which muse's validator
		// rejects. The turn is synthesised, and ended below with the
		// session's outcome.
		if err := f.beginTurn("", nil); err != nil {
			return err
		}
	}
	if f.turn != "" && !f.ended {
		text := &f.text
		if b.Text != nil {
			text = stated(*b.Text)
		}
		fin := &event.Event{Time: ev.Time, Body: &event.TurnFinished{Status: b.Status, Reason: b.Message}}
		f.loss(lossSynthesizedRunTerminal)
		f.ended = true
		if err := f.terminal(fin, text); err != nil {
			return err
		}
	}
	if b.Usage != nil || b.StoppedBy != "" || b.Errors != nil && len(*b.Errors) > 0 || len(b.StructuredOutput) > 0 {
		f.loss(lossRunOutcome)
	}
	return nil
}

// toolCall proposes a tool task, linked to the stream first.
func (f *foreign) toolCall(ev *event.Event, b *event.ToolCall) error {
	if err := f.ensureTurn(ev); err != nil {
		return err
	}
	t := &ftask{tool: true, name: b.Name, state: "proposed"}
	f.open(b.CallID, t)
	f.loss(lossSynthesizedStreamLinked)
	if err := f.bare("task.stream.linked", b.CallID, nil); err != nil {
		return err
	}
	if len(b.Input) > 0 && string(b.Input) != "null" || b.Title != "" {
		f.loss(lossToolInputTitle)
	}
	return f.record(f.at(ev), residue{})
}

// permissionResolved writes a tool task's side_effect_intent with the
// outcome.
func (f *foreign) permissionResolved(ev *event.Event, b *event.PermissionResolved) error {
	t := f.callTask(b.CallID, lossPermissionOutcomeUnknownTask, "")
	if t == nil {
		return nil
	}
	ok, err := f.step(t, b.CallID, "side_effect_intent", lossPermissionOutcomeLate, "")
	if err != nil || !ok {
		return err
	}
	c := *b
	if c.Tool == "" {
		c.Tool = t.name
	}
	if c.Scope == "" {
		c.Scope = "user"
	}
	return f.record(f.at(&event.Event{Time: ev.Time, Body: &c}), residue{})
}

// callTask returns the task of a call in the open turn; when there is none,
// it counts the event as unknown (with detail, for a kind that takes one)
// and returns nil: muse journals events of known tasks only.
func (f *foreign) callTask(id string, unknown *dialect.LossKind, detail string) *ftask {
	t := f.lookup(id)
	if t == nil || f.turn == "" {
		f.lossDetail(unknown, detail)
		return nil
	}
	return t
}

// toolStep moves a tool task to lifecycle kind k (started, status or
// output) and writes the event's record.
func (f *foreign) toolStep(ev *event.Event, id, k string) error {
	t := f.callTask(id, lossEventUnknownCall, string(ev.Type()))
	if t == nil {
		return nil
	}
	ok, err := f.step(t, id, k, lossIllegalStep, string(ev.Type()))
	if err != nil || !ok {
		return err
	}
	return f.record(f.at(ev), residue{})
}

func (f *foreign) toolFinished(ev *event.Event, b *event.ToolFinished) error {
	t := f.callTask(b.CallID, lossResultUnknownCall, "")
	if t == nil {
		return nil
	}
	kind := map[event.ToolStatus]string{event.ToolSuccess: "completed", event.ToolError: "failed", event.ToolCancelled: "cancelled", event.ToolRejected: "rejected"}[b.Status]
	if kind == "" {
		kind = "failed"
	}
	if kind == "rejected" && t.state != "proposed" {
		kind = "cancelled"
		f.e.opts.Losses.Add(lossToolStatusRejected)
	}
	ok, err := f.step(t, b.CallID, kind, lossIllegalToolFinish, "")
	if err != nil || !ok {
		return err
	}
	defer f.end(b.CallID) // once its tool.result, if any, is written
	reason := b.Error
	if reason == "" && kind != "completed" {
		reason = string(b.Status)
	}
	if kind == "failed" || kind == "cancelled" || kind == "rejected" {
		p := map[string]json.RawMessage{"event": json.RawMessage(obj(false, kv{"kind", str(kind)}, kv{"task_id", str(b.CallID)}, kv{"reason", str(reason)}))}
		if err := f.bare("task.lifecycle."+kind, b.CallID, p); err != nil {
			return err
		}
	} else if err := f.bare("task.lifecycle.completed", b.CallID, nil); err != nil {
		return err
	}
	if !t.scheduled {
		return nil // a task that never ran has no tool.result
	}
	c := *b
	if c.Name == "" {
		c.Name = t.name
	}
	text := ""
	switch {
	case b.Output != nil:
		text = *b.Output
		if b.Summary != nil {
			f.loss(lossToolSummary)
		}
	case b.Summary != nil:
		text = *b.Summary
	default:
		text = b.Error
	}
	c.Output = &text
	if b.ExitCode != nil || b.Command != "" {
		f.loss(lossToolExitCommand)
	}
	if len(b.Web) > 0 {
		f.loss(lossToolWeb)
	}
	return f.record(f.at(&event.Event{Time: ev.Time, Body: &c}), residue{})
}

// task writes a non-tool task's state as the muse lifecycle step it
// means, from the canonical status: pending is proposed, running is
// started (and a status message once the task runs), and the ends are
// muse's kinds of the same names.
func (f *foreign) task(ev *event.Event, b *event.TaskUpdated) error {
	kind := lifecycleKind(b.Status)
	if kind == "" {
		f.loss(lossTaskStatusUnknown)
		return nil
	}
	if err := f.ensureTurn(ev); err != nil {
		return err
	}
	t := f.lookup(b.TaskID)
	if t != nil && kind == "started" && isRunning(t.state) {
		kind = "status" // a running task's news
	}
	if t == nil {
		t = &ftask{}
		f.open(b.TaskID, t)
		f.loss(lossSynthesizedStreamLinked)
		if err := f.bare("task.stream.linked", b.TaskID, nil); err != nil {
			return err
		}
		if kind != "proposed" {
			p := &event.Event{Time: ev.Time, Body: &event.TaskUpdated{TaskID: b.TaskID, Kind: b.Kind, Status: event.TaskPending}}
			f.loss(lossSynthesizedTaskProposed)
			if err := f.record(f.at(p), residue{}); err != nil {
				return err
			}
		}
		t.state = "proposed"
		if kind == "proposed" {
			return f.writeTask(ev, b, kind)
		}
	} else if kind == "proposed" {
		f.loss(lossTaskPendingLate)
		return nil
	}
	ok, err := f.step(t, b.TaskID, kind, lossIllegalTaskStep, "")
	if err != nil || !ok {
		return err
	}
	if terminalKind(kind) {
		defer f.end(b.TaskID)
	}
	return f.writeTask(ev, b, kind)
}

// writeTask writes the lifecycle record of kind for a task update.
func (f *foreign) writeTask(ev *event.Event, b *event.TaskUpdated, kind string) error {
	c := *b
	detail := kind == "status"
	if (kind == "failed" || kind == "cancelled") && c.Reason == "" {
		c.Reason, detail = b.Detail, true
	}
	if b.Title != "" || b.Detail != "" && !detail {
		f.loss(lossTaskTitleDetail)
	}
	if b.ParentTaskID != "" {
		f.loss(lossParentTaskId)
	}
	res := residue{Env: map[string]json.RawMessage{"payload_type": json.RawMessage(str("task.lifecycle." + kind))}}
	return f.record(f.at(&event.Event{Time: ev.Time, Body: &c}), res)
}

// close removes what is left of the last turn's answer.
func (f *foreign) close() error { return f.text.Reset() }
