package muse

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/idset"
	"github.com/tidwall/gjson"
)

// FirstID is the record id Muse's counter starts at.
const FirstID = "018f0000-0000-7000-8000-00000000c350"

// state is what both the decoder and the encoder know when a record is
// derived. Both update it from the same record bytes, so a derivation made
// while decoding is repeated exactly while encoding (an encoder's state
// forgets what it can no longer need: see enc).
type state struct {
	session   string
	lastID    string
	lastAt    uint64
	records   int
	lastCause string            // causation id of the last record
	prompt    map[string]string // causation id → its turn's user prompt, until the turn's run.terminal
	callID    map[string]string // task id → provider call id ("tool:" idempotency key)
	taskKind  map[string]string // task id → task_kind (a decoder's; see forgetTask)
	taskOf    map[string]string // provider call id → task id (a decoder's)
	// moreKeys: a task's earlier provider call ids, when it was scheduled
	// with more than one (a decoder's): their taskOf entries go with it.
	moreKeys map[string][]string

	// seqs holds the last sequence of each causation id. It is bounded
	// (idset.Generation): a cause whose records resume after more than
	// 196,608 other causes starts its sequence again, and a decoder that
	// derives such a record keeps the line whole instead (residueFor).
	// A map of every cause grew with a run's turns.
	seqs idset.Set

	// enc marks an encoder's state (newEncoderState). An encoder derives
	// records and reads none back, so it keeps only what its derivations
	// read, and only while they can read it: on a run of 540,000 calls,
	// tables of every id ever seen held most of the memory, and the
	// collector most of the time. It keeps no taskKind or taskOf (only
	// the decoder's reading of a record consults them), and a task's
	// callID until the encoder is done with the task (forgetTask). A
	// decoder forgets a task when no later record can join it
	// (Decoder.forget). Both forget a turn's prompt at its run.terminal:
	// muse journals nothing of a run after it.
	enc bool
}

func newState() *state {
	return &state{prompt: map[string]string{}, callID: map[string]string{}, taskKind: map[string]string{}, taskOf: map[string]string{}}
}

// newEncoderState returns the state of an encoder (see state.enc).
func newEncoderState() *state {
	return &state{enc: true, prompt: map[string]string{}, callID: map[string]string{}}
}

// lastSeq returns the last sequence of causation id cause, 0 before its
// first record.
func (s *state) lastSeq(cause string) uint64 {
	v, _ := s.seqs.Get(cause)
	return v
}

// forgetTask drops what the state keeps of a task no later derivation
// reads: an encoder's task whose tool.result is written, or that ended
// without one; a decoder's task that no later record can join.
func (s *state) forgetTask(task string) {
	if id, ok := s.callID[task]; ok && s.taskOf[id] == task {
		delete(s.taskOf, id)
	}
	for _, id := range s.moreKeys[task] {
		if s.taskOf[id] == task {
			delete(s.taskOf, id)
		}
	}
	delete(s.moreKeys, task)
	delete(s.callID, task)
	delete(s.taskKind, task)
}

// update records what a written or read record tells later derivations.
func (s *state) update(r record) {
	s.records++
	if v, ok := r.env.get("id"); ok {
		s.lastID = gjson.Parse(v).Str
	}
	if v, ok := r.env.get("recorded_at"); ok {
		s.lastAt, _ = strconv.ParseUint(v, 10, 64)
	}
	if s.session == "" {
		if v, ok := r.env.get("stream"); ok {
			s.session = gjson.Get(v, "id").Str
		}
	}
	// What the tables below keep is cloned: a record's strings share its
	// line's memory, which a kept string would keep whole for the rest of
	// the stream.
	cause := ""
	if v, ok := r.env.get("causation_id"); ok {
		cause = strings.Clone(gjson.Parse(v).Str)
	}
	s.lastCause = cause
	if v, ok := r.env.get("sequence"); ok {
		n, _ := strconv.ParseUint(v, 10, 64)
		s.seqs.Add(cause, n)
	}
	pt, _ := r.env.get("payload_type")
	ptS := gjson.Parse(pt).Str
	switch {
	case ptS == "turn.input.user":
		if v, ok := r.payload.get("prompt"); ok {
			s.prompt[cause] = strings.Clone(gjson.Parse(v).Str)
		}
	case strings.HasPrefix(ptS, "run.terminal."):
		delete(s.prompt, cause)
	}
	if ev, ok := r.payload.get("event"); ok && strings.HasPrefix(ptS, "task.lifecycle.") {
		// Only a lifecycle event of a known shape says anything.
		if e, typed := liftEvent(gjson.Parse(ev)); typed {
			task := strings.Clone(e.TaskID)
			if e.Kind == "proposed" && !s.enc {
				if _, known := s.taskKind[task]; !known {
					s.taskKind[task] = strings.Clone(e.TaskKind)
				}
			}
			if id, ok := strings.CutPrefix(e.IdempotencyKey, "tool:"); ok {
				id = strings.Clone(id)
				if prev, had := s.callID[task]; had && prev != id && !s.enc && !slices.Contains(s.moreKeys[task], prev) {
					if s.moreKeys == nil {
						s.moreKeys = map[string][]string{}
					}
					s.moreKeys[task] = append(s.moreKeys[task], prev)
				}
				s.callID[task] = id
				if !s.enc {
					s.taskOf[id] = task
				}
			}
		}
	}
}

// nextID returns the id after the last one: Muse's ids count up in the
// last twelve hex digits, by two after the first few records.
func (s *state) nextID() string {
	if s.lastID == "" {
		return FirstID
	}
	i := strings.LastIndexByte(s.lastID, '-')
	if i < 0 {
		return s.lastID
	}
	n, err := strconv.ParseUint(s.lastID[i+1:], 16, 64)
	if err != nil {
		return s.lastID
	}
	return fmt.Sprintf("%s%0*x", s.lastID[:i+1], len(s.lastID)-i-1, n+2)
}

// timeOf renders recorded_at as the canonical time.
func timeOf(us uint64) (string, bool) {
	if us > 253402300799999999 { // after 9999-12-31
		return "", false
	}
	return time.UnixMicro(int64(us)).UTC().Format("2006-01-02T15:04:05.000000Z"), true
}

// microsOf is the inverse of timeOf.
func microsOf(t string) (uint64, bool) {
	tt, err := time.Parse("2006-01-02T15:04:05.000000Z", t)
	if err != nil || tt.UnixMicro() < 0 {
		return 0, false
	}
	return uint64(tt.UnixMicro()), true
}

// defaultClass gives the record_type and durability Muse uses for a payload type.
func defaultClass(pt string) (string, string) {
	switch pt {
	case "runtime.command.accepted":
		return "reconciliation", "durable"
	case "turn.input.user", "run.output.delta":
		return "status", "ephemeral"
	}
	return "event", "durable"
}

// deriveEnv returns the envelope a record would have: payload type pt
// ("" when it cannot be derived), in turn cause, at time t ("" when unknown).
func (s *state) deriveEnv(pt, cause, t string, sorted bool) kvs {
	at := s.lastAt + 2
	if s.records == 0 {
		at = 0
	}
	if t != "" {
		if us, ok := microsOf(t); ok {
			at = us
			if s.records > 0 && at < s.lastAt {
				// Muse's journal clock never goes back: a record is never
				// stamped before one already written. A source whose
				// recorded_at does decrease keeps its own value in the
				// residue; a writer counts the move (muse/recorded-at-moved).
				at = s.lastAt
			}
		}
	}
	rt, du := defaultClass(pt)
	env := kvs{
		{"schema_version", "1"},
		{"id", str(s.nextID())},
		{"stream", streamRef(sorted, "session", s.session)},
		{"sequence", strconv.FormatUint(s.lastSeq(cause)+1, 10)},
		{"recorded_at", strconv.FormatUint(at, 10)},
		{"record_type", str(rt)},
		{"durability", str(du)},
		{"causation_id", str(cause)},
	}
	if pt != "" {
		env = append(env, kv{"payload_type", str(pt)})
	}
	return append(env, kv{"payload_schema_version", "1"}, kv{"payload", ""})
}

// obj renders a nested object, sorted when the payload is.
func obj(sorted bool, pairs ...kv) string {
	l := kvs(slices.Clone(pairs))
	if sorted {
		sort.Slice(l, func(i, j int) bool { return l[i].k < l[j].k })
	}
	return string(appendObject(nil, l))
}

func streamRef(sorted bool, kind, id string) string {
	return obj(sorted, kv{"kind", str(kind)}, kv{"id", str(id)})
}

// payloadTypeOf returns the payload type Muse would give a canonical event.
func payloadTypeOf(ev *event.Event) string {
	switch b := ev.Body.(type) {
	case *event.TurnStarted:
		return "runtime.command.accepted"
	case *event.UserMessage:
		return "turn.input.user"
	case *event.ModelConfigured:
		return "run.model.configured"
	case *event.MessageDelta:
		return "run.output.delta"
	case *event.TurnFinished:
		return "run.terminal." + terminalOf(b.Status)
	case *event.ToolCall:
		return "task.lifecycle.proposed"
	case *event.PermissionResolved:
		return "task.lifecycle.side_effect_intent"
	case *event.ToolStarted:
		return "task.lifecycle.started"
	case *event.ToolProgress:
		return "task.lifecycle.status"
	case *event.ToolOutput:
		return "task.lifecycle.output"
	case *event.ToolFinished:
		return "tool.result"
	case *event.TaskUpdated:
		if k := lifecycleKind(b.Status); k != "" {
			return "task.lifecycle." + k
		}
	}
	return ""
}

// derivePayload returns the payload a record of type pt would have for ev,
// in declared order; ev is nil for a record carried as residue, and task
// names the task such a record concerns. A task_lifecycle record's event
// kind is the one pt names (the source's word, when its residue keeps
// one). museKind is the source's task_kind of a proposed task, kept in
// ext.muse; "" derives it from the canonical kind.
func (s *state) derivePayload(ev *event.Event, pt, cause, task, museKind string, sorted bool) kvs {
	d := payloadDeriver{pt: pt, cause: cause, sorted: sorted, run: streamRef(sorted, "run", cause)}
	switch pt {
	case "runtime.command.accepted":
		return d.commandAccepted(ev)
	case "session.run.linked":
		return d.head("session_run_linked")
	case "run.lifecycle.started":
		return append(d.head("run_started"), kv{"prompt", str(s.prompt[cause])})
	case "task.stream.linked":
		return append(d.head("task_stream_linked"), kv{"task_id", str(task)}, kv{"task_stream", streamRef(sorted, "task", task)})
	}
	if ev == nil {
		if kind, ok := strings.CutPrefix(pt, "task.lifecycle."); ok {
			return d.lifecycle(task, kind)
		}
		return nil
	}
	switch b := ev.Body.(type) {
	case *event.UserMessage:
		return append(d.head("turn_input_user"), kv{"prompt", str(b.Text)})
	case *event.ModelConfigured:
		return d.modelConfigured(b)
	case *event.MessageDelta:
		return append(d.head("run_output_delta"), kv{"text", str(b.Text)})
	case *event.TurnFinished:
		return d.terminal(b)
	case *event.ToolCall:
		return d.lifecycle(b.CallID, "proposed", kv{"task_kind", str("tool." + b.Name)})
	case *event.PermissionResolved:
		return d.sideEffectIntent(b, s.callID[b.CallID])
	case *event.ToolStarted:
		return d.lifecycle(b.CallID, "started")
	case *event.ToolProgress:
		return d.lifecycle(b.CallID, "status", kv{"message", str(b.Message)}, kv{"details", "{}"})
	case *event.ToolOutput:
		return d.lifecycle(b.CallID, "output", kv{"chunk", str(b.Chunk)})
	case *event.ToolFinished:
		return d.toolFinished(b, s.callID)
	case *event.TaskUpdated:
		return d.task(b, museKind)
	}
	return nil
}

// payloadDeriver derives the payload of one record of type pt in the turn
// cause (its run stream run).
type payloadDeriver struct {
	pt, cause, run string
	sorted         bool
}

// head is what every payload of a run begins with.
func (d payloadDeriver) head(kind string) kvs {
	return kvs{{"kind", str(kind)}, {"command_id", str(d.cause)}, {"run_stream", d.run}}
}

// lifecycle is a task.lifecycle payload: an event of kind evKind for task,
// with its fields.
func (d payloadDeriver) lifecycle(task string, evKind string, fields ...kv) kvs {
	e := append([]kv{{"kind", str(evKind)}, {"task_id", str(task)}}, fields...)
	return append(d.head("task_lifecycle"),
		kv{"task_stream", streamRef(d.sorted, "task", task)}, kv{"task_id", str(task)}, kv{"event", obj(d.sorted, e...)})
}

// commandAccepted is the payload that begins a turn: the command id the
// turn_started states, else the turn's.
func (d payloadDeriver) commandAccepted(ev *event.Event) kvs {
	id := d.cause
	if ev != nil {
		if b, ok := ev.Body.(*event.TurnStarted); ok && b.CommandID != "" {
			id = b.CommandID
		}
	}
	return kvs{{"kind", str("command_accepted")}, {"command_id", str(id)}, {"client_id", "null"}, {"command_kind", str("turn.submit")}}
}

func (d payloadDeriver) modelConfigured(b *event.ModelConfigured) kvs {
	// No profile is written as null, as Muse Code 1.0.1 writes it when
	// no profile applies.
	profile := "null"
	if b.Profile != "" {
		profile = str(b.Profile)
	}
	return append(d.head("run_model_configured"), kv{"model_id", str(b.Model)}, kv{"display_label", str(b.Label)},
		kv{"profile_id", profile}, kv{"provider_id", str(b.Provider)}, kv{"source", str(b.Source)})
}

func (d payloadDeriver) terminal(b *event.TurnFinished) kvs {
	p := append(d.head("run_terminal"), kv{"terminal", str(strings.TrimPrefix(d.pt, "run.terminal."))})
	if b.Text != nil {
		p = append(p, kv{"text", str(*b.Text)})
	}
	reason := "null"
	if b.Reason != "" {
		reason = str(b.Reason)
	}
	return append(p, kv{"reason", reason})
}

// sideEffectIntent is a permission's outcome, for the tool task of
// provider call id call.
func (d payloadDeriver) sideEffectIntent(b *event.PermissionResolved, call string) kvs {
	verb := "allow"
	if b.Outcome == event.Denied {
		verb = "deny"
	}
	return d.lifecycle(b.CallID, "side_effect_intent",
		kv{"operation", str("tool:" + b.Tool)}, kv{"idempotency_key", str("tool:" + call)},
		kv{"policy_decision", str(verb + ":" + b.Scope)}, kv{"cancellation_handle", "null"}, kv{"parent_task_id", "null"})
}

// toolFinished is a tool task's end (a task.lifecycle record) or its
// tool.result, with the provider call id callIDs holds for the call (the
// call's own when none).
func (d payloadDeriver) toolFinished(b *event.ToolFinished, callIDs map[string]string) kvs {
	if kind, ok := strings.CutPrefix(d.pt, "task.lifecycle."); ok {
		var f []kv
		if b.Error != "" {
			f = append(f, kv{"reason", str(b.Error)})
		}
		return d.lifecycle(b.CallID, kind, f...)
	}
	call := callIDs[b.CallID]
	if call == "" {
		call = b.CallID
	}
	text := ""
	if b.Output != nil {
		text = *b.Output
	}
	p := append(d.head("tool_result"), kv{"call_id", str(call)}, kv{"text", str(text)})
	outcome := "success"
	if b.Status != event.ToolSuccess {
		outcome = "failure"
	}
	p = append(p, kv{"correlation_facts", obj(d.sorted, kv{"tool_name", str(b.Name)}, kv{"outcome", str(outcome)})})
	if len(b.Edit) > 0 {
		p = append(p, kv{"edit_facts", string(b.Edit)})
	}
	return p
}

// task is a non-tool task's lifecycle step; museKind is the source's
// task_kind of a proposed task.
func (d payloadDeriver) task(b *event.TaskUpdated, museKind string) kvs {
	kind := strings.TrimPrefix(d.pt, "task.lifecycle.")
	var f []kv
	switch kind {
	case "proposed":
		if museKind == "" {
			museKind = museTaskKind(b.Kind)
		}
		f = append(f, kv{"task_kind", str(museKind)})
	case "status":
		f = append(f, kv{"message", str(b.Detail)}, kv{"details", "{}"})
	case "cancelled", "rejected", "failed":
		f = append(f, kv{"reason", str(b.Reason)})
	}
	return d.lifecycle(b.TaskID, kind, f...)
}
