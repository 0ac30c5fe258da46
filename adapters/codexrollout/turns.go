package codexrollout

import (
	"strconv"

	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/tidwall/gjson"
)

// Turns, their ends and rollbacks, subagents, compaction and token
// counts: what the envelope's event and item readers hand on.

// userMessage appends a user message, and the turn it begins where no
// task_started opened one.
func (d *Decoder) userMessage(l *line, text string, images *uint64, consumed func(string) bool) {
	if !d.turnOpen || !d.explicit {
		d.beginTurn("", false)
		p := text
		d.synth(l, &event.TurnStarted{Prompt: &p})
	}
	d.emit(l, &event.UserMessage{Text: text, ImageCount: images}, consumed)
}

// beginTurn opens a turn with Codex's id, or the next turn-N.
func (d *Decoder) beginTurn(id string, explicit bool) {
	d.turns++
	if id == "" {
		id = "turn-" + strconv.Itoa(d.turns)
	}
	d.turn, d.turnOpen, d.explicit = cloneStr(id), true, explicit
	d.searchItems, d.searchEnds = d.searchItems[:0], d.searchEnds[:0]
	if len(d.recent) == maxRecent {
		d.recent = append(d.recent[:0], d.recent[1:]...)
	}
	d.recent = append(d.recent, d.turn)
}

// turnStarted reads task_started. A turn task_started opened and nothing
// ended (the process died inside it) ends here.
func (d *Decoder) turnStarted(l *line) {
	id := l.optStr("turn_id")
	l.optInt("started_at", jsonobj.I64)
	if l.err != nil {
		return
	}
	if d.turnOpen && d.explicit {
		d.synth(l, &event.TurnFinished{Status: event.StatusError,
			Reason: "the rollout has no task_complete or turn_aborted for the turn: the process ended inside it"})
	}
	d.beginTurn(id, true)
	consumed := keys()
	if id != "" {
		consumed = keys("turn_id")
	}
	d.emit(l, &event.TurnStarted{}, consumed)
}

// turnEnded reads task_complete and turn_aborted. An end with no open
// turn still ends one, begun where nothing said so.
func (d *Decoder) turnEnded(l *line, status event.Status) {
	id := l.optStr("turn_id")
	var reason, answer string
	hasAnswer := false
	if status == event.StatusCancelled {
		reason = l.str("reason")
	} else {
		if a := l.get("last_agent_message"); a.Type == gjson.String {
			answer, hasAnswer = a.Str, true
		} else {
			l.optStr("last_agent_message")
		}
		// Newer builds end a failed turn with task_complete and its error.
		if e := l.get("error"); e.IsObject() {
			if m := jsonobj.Lookup(e, "message"); m.Type == gjson.String {
				// The error object stays in the residue; its message
				// is the reason.
				status, reason = event.StatusError, m.Str
			}
		}
	}
	if l.err != nil {
		return
	}
	if !d.turnOpen {
		d.beginTurn(id, true)
		d.synth(l, &event.TurnStarted{})
	}
	b := &event.TurnFinished{Status: status, Reason: reason}
	consumed := []string{}
	if status == event.StatusCancelled {
		// interrupted, replaced, review_ended, budget_limited: the word
		// is the reason.
		b.StopReason = event.StopCancelled
		consumed = append(consumed, "reason")
	}
	if hasAnswer {
		b.Text = &answer
		consumed = append(consumed, "last_agent_message")
	}
	if id != "" && id == d.turn {
		consumed = append(consumed, "turn_id")
	}
	d.emit(l, b, keys(consumed...))
	d.turnOpen, d.explicit = false, false
	d.searchItems, d.searchEnds = d.searchItems[:0], d.searchEnds[:0]
}

// rolledBack reads thread_rolled_back: the last num_turns user turns
// dropped from the model's context (the file keeps them). It branches
// back to the turn before them, named by its id where the decoder still
// knows it ("" where not).
func (d *Decoder) rolledBack(l *line) {
	v := l.get("num_turns")
	n, msg := jsonobj.ParseUint(v, jsonobj.U32)
	if msg != "" {
		l.fail(l.ptr("num_turns"), msg)
		return
	}
	entry := ""
	if keep := len(d.recent) - int(n); n < uint64(len(d.recent)) && keep > 0 {
		entry = d.recent[keep-1]
		d.recent = d.recent[:keep]
	} else {
		d.recent = d.recent[:0]
	}
	d.emit(l, &event.Branched{EntryID: entry, AbandonedEntries: &n}, keys("num_turns"))
}

// subagent reads sub_agent_activity: a subagent thread's state.
func (d *Decoder) subagent(l *line) {
	id, kind := l.str("agent_thread_id"), l.optStr("kind")
	if l.err != nil {
		return
	}
	status, ok := subagentStates[kind]
	if !ok {
		status = event.TaskRunning // a newer word, kept in the residue
	}
	d.emit(l, &event.TaskUpdated{TaskID: id, Kind: event.TaskSubagent, Status: status}, keys("agent_thread_id"))
}

// subagentStates read SubAgentActivityKind.
var subagentStates = map[string]event.TaskStatus{
	"started":     event.TaskRunning,
	"interacted":  event.TaskRunning,
	"interrupted": event.TaskCancelled,
	"completed":   event.TaskCompleted,
}

// compaction appends a compaction's end. Codex reports one compaction on
// up to three lines (compacted, a compaction item, context_compacted);
// the first makes the event and the others, until the next content
// event, are copies.
func (d *Decoder) compaction(l *line, b *event.CompactionFinished, consumed func(string) bool) {
	if d.compacted {
		d.kept(l, keptCopy)
		return
	}
	d.emit(l, b, consumed)
	d.compacted = true
}

// compactedLine reads compacted: the summary that replaced the history
// and, in later builds, the history kept beside it.
func (d *Decoder) compactedLine(l *line) {
	msg := l.str("message")
	h := l.get("replacement_history")
	if l.err == nil && h.Exists() && h.Type != gjson.Null && !h.IsArray() {
		l.fail(l.ptr("replacement_history"), "got "+jsonobj.TypeName(h)+", want an array")
	}
	if l.err != nil {
		return
	}
	b := &event.CompactionFinished{SummaryPreview: &msg}
	if h.IsArray() {
		var n uint64
		jsonobj.ForEachRaw(h, func(_, _ gjson.Result) bool { n++; return true })
		b.PreservedItems = &n
	}
	d.compaction(l, b, keys("message"))
}

// tokenCount reads token_count. info null carries rate limits only.
func (d *Decoder) tokenCount(l *line) {
	info := l.get("info")
	if !info.Exists() || info.Type == gjson.Null {
		d.kept(l, keptUnmapped)
		return
	}
	total, last, ok := totalOf(l)
	if !ok {
		return
	}
	d.usage(l, total, last)
}

// usageRecord reads token_usage_record: one response's usage and the
// thread's total after it. Codex writes the same total on its
// token_count too; whichever comes first counts.
func (d *Decoder) usageRecord(l *line) {
	total, last, ok := totalOf(l)
	if !ok {
		return
	}
	d.usage(l, total, last)
}

// totalOf reads a line's running total and, if stated, the last
// response's usage: token_count's info, token_usage_record's
// thread_token_usage and usage. ok is false when the line states none
// (its error, if any, recorded).
func totalOf(l *line) (total counts, last *counts, ok bool) {
	var tv, lv gjson.Result
	var tp, lp string
	switch {
	case l.v.typ == "token_usage_record":
		tv, tp = l.get("thread_token_usage"), l.ptr("thread_token_usage")
		lv, lp = l.get("usage"), l.ptr("usage")
		if tt := l.get("turn_token_usage"); tt.Exists() {
			if _, err := readCounts(tt, l.ptr("turn_token_usage")); err != nil && l.err == nil {
				l.err = err
				return total, nil, false
			}
		}
	case l.v.ptype == "token_count":
		info := l.get("info")
		if !info.Exists() || info.Type == gjson.Null {
			return total, nil, false
		}
		if !info.IsObject() {
			l.fail("/payload/info", "got "+jsonobj.TypeName(info)+", want an object")
			return total, nil, false
		}
		tv, tp = jsonobj.Lookup(info, "total_token_usage"), "/payload/info/total_token_usage"
		lv, lp = jsonobj.Lookup(info, "last_token_usage"), "/payload/info/last_token_usage"
		if w := jsonobj.Lookup(info, "model_context_window"); w.Exists() && w.Type != gjson.Null {
			if _, msg := jsonobj.ParseInt(w, jsonobj.I64); msg != "" {
				l.fail("/payload/info/model_context_window", msg)
				return total, nil, false
			}
		}
	default:
		return total, nil, false
	}
	t, err := readCounts(tv, tp)
	if err != nil {
		if l.err == nil {
			l.err = err
		}
		return total, nil, false
	}
	if lv.Exists() && lv.Type != gjson.Null {
		c, err := readCounts(lv, lp)
		if err != nil {
			if l.err == nil {
				l.err = err
			}
			return total, nil, false
		}
		last = &c
	}
	return t, last, true
}

// usage appends what a running total adds, as one model round's usage;
// a total that adds nothing (written again, or a rate-limit refresh) is
// kept whole.
func (d *Decoder) usage(l *line, total counts, last *counts) {
	delta, ok := d.m.advance(total, last)
	if !ok {
		if total.negative() {
			d.kept(l, keptUnmapped)
		} else {
			d.kept(l, keptNoTokens)
		}
		return
	}
	d.emit(l, d.m.canonical(delta), nil)
}
