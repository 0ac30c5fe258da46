package codexrollout

import (
	"time"

	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/tidwall/gjson"
)

// A fork (`codex fork`, /fork, thread/fork) and a subagent spawned with
// its parent's context begin their rollout with a copy of the parent's
// history: the child's own session_meta, then the parent's lines as the
// parent's file holds them (its session_meta first, with the parent's
// id), then the child's own lines. Codex seeds the child's token counter
// with the parent's last total, so the copied token_count lines state
// totals the parent's file already counted.
//
// replay tells the copied lines from the child's own, line by line, with
// no look ahead:
//
//   - A rollout whose header states subagent_history_start_ordinal (2026
//     builds that number their lines) says it: a line whose ordinal is
//     below it is inherited.
//   - Otherwise the copy begins at a session_meta after the first line
//     whose id is not the stream's own, before the stream's first turn of
//     its own (the copied parent header), and ends at the first line of
//     the child's own:
//   - where the copied lines keep their original timestamps (the copied
//     header's line is more than a minute older than the first line), the
//     first line at or after the first line's time;
//   - where Codex stamped the copied lines anew when it wrote them (the
//     form seen in 2026 files), the first task_started whose started_at
//     (its turn's start, in seconds, which a copy keeps) falls in the
//     second its line was written, at or after the fork: a copied
//     task_started was written long after its turn began; failing that,
//     the first line written more than a minute after the copy began.
//     Where no copied task_started states started_at (builds whose
//     task_started has none, and builds that write no task events), the
//     first line written more than a second after the line before it:
//     Codex writes the copy in one burst, its lines milliseconds apart,
//     and a fork's own first line waits for its prompt. A line ending the
//     copy so that is no turn's first (the fork's own turn began inside
//     the burst: a subagent prompted at once) leaves the start of that
//     turn in the copy, and codex-rollout/replay-unended says so.
//
// A copy with no such line is the rest of the stream: the decoder counts
// nothing of it, rather than the parent's usage twice, and
// codex-rollout/replay-unended says so.
type replay struct {
	lines    int
	head     bool   // the stream's header was read
	own      string // the stream's own session id
	headTime time.Time
	hasHead  bool
	start    uint64 // subagent_history_start_ordinal
	hasStart bool

	state     replayState
	preserved bool // the copy keeps its original timestamps
	copyTime  time.Time
	hasCopy   bool   // copyTime is the copied header's line time
	from      string // the copied header's id
	fromLine  int    // line of the copied header
	ownTurn   bool   // the stream began a turn of its own
	endedLine int    // line of the child's first own line after the copy
	// Of a copy stamped anew: the time of its latest line, and whether
	// the line that ended it, after a pause, opens no turn.
	lastTime time.Time
	hasLast  bool
	midTurn  bool
	// A copied task_started stated started_at: the build writes it, and
	// the fork's own first task_started will say it is its own.
	startedAt bool
}

type replayState uint8

const (
	replayNone   replayState = iota // no copy seen
	replayActive                    // inside the copy
	replayDone                      // after the copy
)

// preservedGap is how much older than the fork's own header a copied
// header's line must be for the copy to be taken as keeping its original
// times: a copy stamped anew is written within milliseconds of the fork.
const preservedGap = time.Minute

// copyPause is the longest a copy stamped anew pauses between two of its
// lines: Codex writes the copy in one burst (hundreds of lines within
// milliseconds, ccusage #1501), so a longer pause is the fork waiting for
// its own first prompt.
const copyPause = time.Second

// step reads one line and reports whether it is a copied line, and
// whether it is the copy's first.
func (r *replay) step(v *view) (copied, began bool) {
	r.lines++
	if !r.head && r.state == replayNone && v.isSessionMeta() {
		// The stream's header (its first line, unless the stream was cut
		// at its head).
		r.head = true
		r.own = jsonobj.Lookup(v.payload, "id").Str
		r.headTime, r.hasHead = timeOf(v.ts)
		if !r.hasHead {
			r.headTime, r.hasHead = timeOf(jsonobj.Lookup(v.payload, "timestamp"))
		}
		if n, msg := jsonobj.ParseUint(jsonobj.Lookup(v.payload, "subagent_history_start_ordinal"), jsonobj.U64); msg == "" {
			r.start, r.hasStart = n, true
		}
		r.own = cloneStr(r.own)
		return false, false
	}
	if r.hasStart {
		o, msg := jsonobj.ParseUint(v.ordinal, jsonobj.U64)
		if msg != "" || o >= r.start {
			if r.state == replayActive {
				r.state, r.endedLine = replayDone, r.lines
			}
			return false, false
		}
		began = r.state == replayNone
		if began {
			r.fromLine = r.lines
		}
		r.state = replayActive
		return true, began
	}
	switch r.state {
	case replayNone:
		if v.isSessionMeta() && !r.ownTurn {
			if id := jsonobj.Lookup(v.payload, "id"); id.Type == gjson.String && id.Str != r.own {
				r.state, r.from, r.fromLine = replayActive, cloneStr(id.Str), r.lines
				if t, ok := timeOf(v.ts); ok {
					r.copyTime, r.hasCopy = t, true
					r.lastTime, r.hasLast = t, true
					r.preserved = r.hasHead && t.Add(preservedGap).Before(r.headTime)
				}
				return true, true
			}
		}
		if v.form == formEnvelope && v.typ == "event_msg" && (isTurnStart(v.ptype) || v.ptype == "user_message") ||
			v.form == formBare && v.typ == "message" {
			r.ownTurn = true
		}
		return false, false
	case replayActive:
		if r.ends(v) {
			r.state, r.endedLine = replayDone, r.lines
			r.ownTurn = true
			return false, false
		}
		if t, ok := timeOf(v.ts); ok {
			r.lastTime, r.hasLast = t, true
		}
		return true, false
	}
	return false, false
}

// ends reports whether a line inside the copy is the child's first own.
func (r *replay) ends(v *view) bool {
	t, ok := timeOf(v.ts)
	if r.preserved {
		return ok && !t.Before(r.headTime)
	}
	switch {
	case !ok:
	case r.startedAt:
		// A build that writes started_at marks the fork's first turn
		// so; the time is the fallback it had.
		if r.hasCopy && t.Sub(r.copyTime) > preservedGap {
			return true
		}
	case r.hasLast && t.Sub(r.lastTime) > copyPause:
		r.midTurn = !opensTurn(v)
		return true
	}
	if !ok || v.form != formEnvelope || v.typ != "event_msg" || !isTurnStart(v.ptype) {
		return false
	}
	started, msg := jsonobj.ParseInt(jsonobj.Lookup(v.payload, "started_at"), jsonobj.I64)
	if msg != "" {
		return false
	}
	r.startedAt = true
	if started >= 100_000_000_000 || started <= -100_000_000_000 {
		started /= 1000 // milliseconds, should a build write them
	}
	sec := t.Unix()
	return started == sec && (!r.hasHead || sec >= r.headTime.Unix())
}

// unended reports whether the stream ended inside the copy.
func (r *replay) unended() bool { return r.state == replayActive }

// endedMidTurn reports whether the line just read ended the copy after a
// pause while opening no turn: the fork's own turn began inside the copy,
// and its first lines were kept as copied.
func (r *replay) endedMidTurn() bool {
	return r.state == replayDone && r.endedLine == r.lines && r.midTurn
}

// opensTurn reports whether a line is one a turn begins with: its
// turn_context, task_started, the user's message as an event or an item.
func opensTurn(v *view) bool {
	switch {
	case v.form == formBare:
		return v.typ == "message" && jsonobj.Lookup(v.root, "role").Str == "user"
	case v.form != formEnvelope:
		return false
	case v.typ == "turn_context":
		return true
	case v.typ == "event_msg":
		return isTurnStart(v.ptype) || v.ptype == "user_message"
	case v.typ == "response_item":
		return v.ptype == "message" && jsonobj.Lookup(v.payload, "role").Str == "user"
	}
	return false
}

// isTurnStart reports whether an event type starts a turn (task_started,
// and its alias turn_started).
func isTurnStart(ptype string) bool { return ptype == "task_started" || ptype == "turn_started" }

// isTurnEnd reports whether an event type ends a turn.
func isTurnEnd(ptype string) bool {
	return ptype == "task_complete" || ptype == "turn_complete" || ptype == "turn_aborted"
}

// cloneStr copies a string out of the line it may alias.
func cloneStr(s string) string { return string(append([]byte(nil), s...)) }
