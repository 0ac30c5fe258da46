package claudetranscript

import (
	"strconv"
	"strings"
	"time"

	"github.com/evtool/evtool/adapters/internal/recent"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/idset"
	"github.com/evtool/evtool/internal/jsonenc"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/evtool/evtool/ndjson"
	"github.com/tidwall/gjson"
)

// DecodeError is a known field with a value the canonical model cannot
// hold exactly (a token count written 1.0, a timestamp that is no time).
type DecodeError = jsonobj.FieldError

// What the decoder holds, at most. Each bound keeps the memory of a
// transcript of any size under a few MiB; what it drops is named in
// docs/dialects/claude-transcript.md.
const (
	// maxHeldLines and maxHeldBytes bound the lines held back at the start
	// until the first assistant line names the session's model;
	// maxHeldMeta bounds the metadata lines among them, which do not
	// count as lines of maxHeldLines: a 1.0 file may begin with many
	// summaries (one per earlier leaf), and the start would otherwise be
	// written before the conversation's first line names its workspace.
	maxHeldLines = 64
	maxHeldMeta  = 4096
	maxHeldBytes = 8 << 20
	// maxThreads bounds the subagents open at once (a 1.0 transcript runs
	// a handful in parallel); the oldest is let go first.
	maxThreads = 256
	// maxNames bounds the open calls whose names are kept for their
	// tool_finished.
	maxNames = 4096
	// maxTasks bounds the Task calls waiting for their subagent's lines.
	maxTasks = 256
	// maxAgents bounds the agent ids whose Task call is known.
	maxAgents = 4096
)

// Values of the calls set.
const (
	callOpen = 1
	callDone = 2
)

// Decoder reads a transcript into canonical events, line by line, in the
// order of the file (see the package documentation). The session's lines
// may be followed by its subagents' files (Store.Open reads them after
// the main file): their lines carry isSidechain and agentId.
type Decoder struct {
	jsonobj.OwnLine // a long line is read in place (UseOwn)
	opts            dialect.DecodeOptions
	// summary leaves out of the events what a summary never reads
	// (Summarize).
	summary bool
	// prompted says the main thread's first prompt was read (a summary
	// keeps its text only).
	prompted bool
	// ms are the top-level members of the line the next Decode reads,
	// as the syntax check found them (UseMembers); nil: read the line.
	ms []ndjson.Member

	// The start of the stream is held back until the first assistant line
	// names the model, so that session_started has it.
	started   bool
	ss        event.SessionStarted
	ssTime    string
	held      []*event.Event
	heldLines int // conversation lines
	heldMeta  int // other lines
	heldBytes int
	lines     int    // lines decoded
	session   string // the sessionId of the last conversation line

	uuids     idset.Set // uuids read; value: the number of their 1.0 sidechain, else 0
	calls     idset.Set // tool_use ids: callOpen or callDone
	responses idset.Set // responses whose round_finished is written (responseKey), and their message ids
	names     recent.Map[string]

	turns       int
	turn        string // the open turn, "" between turns
	interrupted bool   // the user stopped the open turn
	apiError    bool   // the open turn's last main-thread answer is an API error
	stop        event.StopReason
	lastStatus  event.Status

	main       *thread
	threads    map[string]*thread // subagents by key
	order      []string           // their keys, oldest first
	sides      uint64             // 1.0 sidechains seen
	tasks      []*taskCall        // Task calls no subagent is linked to yet
	agentCalls recent.Map[string] // agent id → its Task call

	total total

	top fields // the line being decoded, reused from line to line
}

func newDecoder(opts dialect.DecodeOptions) *Decoder {
	return &Decoder{
		opts: opts, main: &thread{}, threads: map[string]*thread{},
		names: recent.New[string](maxNames), agentCalls: recent.New[string](maxAgents),
		ss: event.SessionStarted{Schema: event.SchemaVersion, Source: event.SourceInfo{Dialect: Name}, Agent: &event.Agent{Name: "claude-code"}},
	}
}

// line is one source line being decoded and the events it gives.
type line struct {
	d      *Decoder
	n      int
	raw    []byte
	r      *fields // the line's top-level members
	typ    string
	kind   string // the type, or system/<subtype>
	time   string
	th     *thread // the thread of a conversation line
	evs    []*event.Event
	first  int     // index in evs of the line's first own event, -1 before it
	extras []field // fields the residue keeps as written
}

// str returns a top-level string field, "" when absent or not a string.
func str(r getter, k string) string {
	v := r.Get(k)
	if v.Type != gjson.String {
		return ""
	}
	return v.Str
}

// UseMembers hands the decoder the top-level members of the line its next
// Decode reads, as the reading's syntax check found them, so that Decode
// need not read the line again to find them; nil: it reads the line.
func (d *Decoder) UseMembers(ms []ndjson.Member) { d.ms = ms }

// Summarize makes the decoder leave out of its events what a summary of
// the transcript (package stats: tokens, costs, times, models, tool calls
// by name, kind and status) never reads, rather than unescape and copy
// it: the text of messages, reasoning, prompts and user texts, a tool
// call's input and title, a tool's output and web result, the whole line
// an unknown event keeps, a compaction's summary, and the residue of a
// line's envelope in ext (its uuids, flags and kept fields: no key
// package stats reads). Everything else is as without it: the same
// events, in the same order, with the same times, ids, names, kinds,
// statuses, models and usage (a round's ext included), and the same
// errors. Call it before the first line.
func (d *Decoder) Summarize() { d.summary = true }

// Decode implements dialect.Decoder.
func (d *Decoder) Decode(out []*event.Event, raw []byte, n int) ([]*event.Event, error) {
	ms := d.ms
	d.ms = nil
	root := d.ParseLine(raw)
	if !root.IsObject() {
		return out, &DecodeError{Msg: "got " + jsonobj.TypeName(root) + ", want an object"}
	}
	r := &d.top
	// The members' places are in the line; root begins at its first byte
	// that is not white space.
	root.Index = len(raw) - len(root.Raw)
	r.resetMembers(root, ms)
	t := r.Get("type")
	if t.Type != gjson.String {
		return out, &DecodeError{Pointer: "/type", Msg: "got " + typeName(t) + ", want a string"}
	}
	if err := checkNumbers(r); err != nil {
		return out, err // before any state changes
	}
	l := &line{d: d, n: n, raw: raw, r: r, typ: t.Str, kind: t.Str, first: -1}
	sub := r.Get("subtype")
	if t.Str == "system" && sub.Type == gjson.String {
		l.kind = "system/" + sub.Str
	}
	uuid := str(r, "uuid")
	if conversation[t.Str] && uuid != "" && d.uuids.Has(uuid) {
		// A resumed session replays the lines it continues, under its own
		// sessionId: each is read once.
		return out, nil
	}
	d.lines++
	l.time = canonicalTime(str(r, "timestamp"))
	d.header(l)
	if conversation[t.Str] {
		l.thread()
		l.resumed()
	}
	switch {
	case !known(t.Str, sub.Str, sub.Type == gjson.String):
		l.keep()
	case t.Str == "user":
		l.user()
	case t.Str == "assistant":
		l.assistant()
	case t.Str == "system":
		l.system()
	case t.Str == "progress":
		l.progress()
	default: // attachment and metadata lines
		l.keep()
	}
	if conversation[t.Str] && uuid != "" {
		d.uuids.Add(uuid, l.th.side) // 0 for most lines: the set stores no values then
	}
	if l.first >= 0 && !d.summary {
		if _, whole := l.evs[l.first].Body.(*event.Unknown); !whole {
			if x := l.residue(); x != nil {
				l.evs[l.first].Ext = event.ExtOf(Name, x)
			}
		}
	}
	return d.flow(out, l), nil
}

// typeName names a value's JSON type, or says it is missing.
func typeName(v gjson.Result) string {
	if !v.Exists() {
		return "nothing"
	}
	return jsonobj.TypeName(v)
}

// usageCounts are the token counts of message.usage the model holds as
// u64. The cache counts may be null (the API types them number | null).
var usageCounts = []string{"input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"}

// checkNumbers refuses, before the line changes any state, a value the
// canonical model cannot hold exactly: a token count that is not an
// integer literal within u64 (JSON Schema takes 1.0 for an integer), a
// cost below zero, a timestamp that is no RFC 3339 time.
func checkNumbers(r *fields) error {
	if ts := r.Get("timestamp"); ts.Exists() {
		if ts.Type != gjson.String {
			return &DecodeError{Pointer: "/timestamp", Msg: "got " + jsonobj.TypeName(ts) + ", want an RFC 3339 time"}
		}
		if _, err := time.Parse(time.RFC3339Nano, ts.Str); err != nil {
			return &DecodeError{Pointer: "/timestamp", Msg: "got " + strconv.Quote(ts.Str) + ", want an RFC 3339 time"}
		}
	}
	if c := r.Get("costUSD"); c.Exists() {
		if c.Type != gjson.Number {
			return &DecodeError{Pointer: "/costUSD", Msg: "got " + jsonobj.TypeName(c) + ", want a number"}
		}
		if strings.HasPrefix(c.Raw, "-") && strings.Trim(c.Raw, "-0.eE+") != "" {
			return &DecodeError{Pointer: "/costUSD", Msg: "got " + c.Raw + ", want a cost of 0 or more"}
		}
	}
	if r.Get("type").Str != "assistant" {
		return nil
	}
	u, isObj := r.message().usage()
	if !isObj {
		return nil
	}
	for i, k := range usageCounts {
		v := u.Get(k)
		if !v.Exists() || (i >= 2 && v.Type == gjson.Null) {
			continue
		}
		if _, msg := jsonobj.ParseUint(v, jsonobj.U64); msg != "" {
			return &DecodeError{Pointer: "/message/usage/" + k, Msg: msg}
		}
	}
	return nil
}

// canonicalTime renders a timestamp as canonical time (UTC, microseconds);
// "" for none. Claude Code writes milliseconds, which survive exactly.
func canonicalTime(ts string) string {
	if claudeTime(ts) {
		// What Claude Code writes, in UTC to the millisecond: the canonical
		// time is the same text with three more digits. (checkNumbers has
		// parsed it: the fields are in range.)
		return ts[:23] + "000Z"
	}
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return ""
	}
	return t.UTC().Format("2006-01-02T15:04:05.000000Z")
}

// claudeTime reports whether ts has the shape 2006-01-02T15:04:05.000Z.
func claudeTime(ts string) bool {
	if len(ts) != 24 {
		return false
	}
	for i := 0; i < len(ts); i++ {
		c := ts[i]
		switch i {
		case 4, 7:
			if c != '-' {
				return false
			}
		case 10:
			if c != 'T' {
				return false
			}
		case 13, 16:
			if c != ':' {
				return false
			}
		case 19:
			if c != '.' {
				return false
			}
		case 23:
			if c != 'Z' {
				return false
			}
		default:
			if c < '0' || c > '9' {
				return false
			}
		}
	}
	return true
}

// header takes the session's facts from the lines before session_started
// is written: the first sessionId, cwd, version and timestamp.
func (d *Decoder) header(l *line) {
	if d.started {
		return
	}
	if d.ss.SessionID == "" {
		d.ss.SessionID = strings.Clone(str(l.r, "sessionId"))
	}
	if d.ss.Workspace == "" {
		d.ss.Workspace = strings.Clone(str(l.r, "cwd"))
	}
	if d.ss.Agent.Version == "" {
		d.ss.Agent.Version = strings.Clone(str(l.r, "version"))
	}
	if d.ssTime == "" {
		d.ssTime = l.time
	}
}

// resumed notes the sessionId a conversation line carries: a change is a
// resumed session continuing the transcript (checked by
// claude-transcript/session-changed).
func (l *line) resumed() {
	d := l.d
	sid := str(l.r, "sessionId")
	switch {
	case sid == "" || sid == d.session:
	case d.session == "":
		d.session = strings.Clone(sid)
	default:
		d.session = strings.Clone(sid)
		// About the session, not the turn: no turn_id.
		l.synth(&event.Event{Body: &event.Notice{Severity: event.SeverityInfo,
			Message: "session " + sid + " continues the transcript (a resumed session)"}})
	}
}

// own adds an event the line itself stands for.
func (l *line) own(b event.Body) *event.Event {
	ev := &event.Event{Body: b, Time: l.time, TurnID: l.turnID()}
	if l.th != nil {
		ev.AgentID = l.th.agent
	}
	if l.d.opts.Provenance {
		ev.Src = &event.Source{Dialect: Name, Line: l.n, Type: l.kind}
	}
	if l.first < 0 {
		l.first = len(l.evs)
	}
	l.evs = append(l.evs, ev)
	return ev
}

// synth adds an event no source line stands for.
func (l *line) synth(ev *event.Event) {
	ev.Synthetic = true
	l.evs = append(l.evs, ev)
}

// turnID is the turn of the line's events: a subagent's lines belong to
// the turn of the call that ran it, the main thread's to the open turn,
// and metadata lines (titles, modes, snapshots) to none: they describe
// the session.
func (l *line) turnID() string {
	switch {
	case l.th == nil:
		return ""
	case l.th != l.d.main:
		return l.th.turn
	}
	return l.d.turn
}

// keep keeps the whole line as an unknown event: a line of a type evtool
// does not know, or a known line the canonical vocabulary has no event
// for (metadata, attachments, progress).
func (l *line) keep() {
	if l.d.summary {
		l.own(&event.Unknown{Dialect: Name, SourceType: l.kind})
		return
	}
	l.own(&event.Unknown{Dialect: Name, SourceType: l.kind, Raw: append([]byte(nil), l.raw...)})
}

// residue is what the line's first event keeps of the envelope, in
// ext.claude-transcript: its place in the tree (uuid, parentUuid), the
// request, and the flags the canonical events do not say.
func (l *line) residue() []byte {
	b := []byte{'{'}
	first := true
	for _, k := range []string{"uuid", "parentUuid", "logicalParentUuid", "requestId", "agentId"} {
		if v := str(l.r, k); v != "" {
			b = jsonenc.Key(b, &first, k)
			b = jsonenc.String(b, v)
		}
	}
	if sid := str(l.r, "sessionId"); sid != "" && sid != l.d.ss.SessionID {
		b = jsonenc.Key(b, &first, "sessionId")
		b = jsonenc.String(b, sid)
	}
	for _, k := range []string{"isSidechain", "isMeta", "isCompactSummary", "isApiErrorMessage"} {
		if l.r.Get(k).Type == gjson.True {
			b = jsonenc.Key(b, &first, k)
			b = append(b, "true"...)
		}
	}
	for _, f := range l.extras {
		b = jsonenc.Key(b, &first, f.k)
		b = append(b, f.v...)
	}
	if first {
		return nil
	}
	return append(b, '}')
}

// flow passes the line's events on, or holds them while the start of
// the stream waits for the model.
func (d *Decoder) flow(out []*event.Event, l *line) []*event.Event {
	if d.started {
		return append(out, l.evs...)
	}
	d.held = append(d.held, l.evs...)
	if conversation[l.typ] {
		d.heldLines++
	} else {
		d.heldMeta++
	}
	d.heldBytes += len(l.raw)
	if d.ss.Model != "" || d.heldLines >= maxHeldLines || d.heldMeta >= maxHeldMeta || d.heldBytes >= maxHeldBytes {
		out = d.release(out)
	}
	return out
}

// release writes session_started and the events held back.
func (d *Decoder) release(out []*event.Event) []*event.Event {
	if d.started {
		return out
	}
	d.started = true
	ss := d.ss
	out = append(out, &event.Event{Synthetic: true, Time: d.ssTime, Body: &ss})
	out = append(out, d.held...)
	d.held = nil
	return out
}

// End implements dialect.Decoder. A transcript has no last line: the
// session ends where the file does. The rounds still open are counted,
// the subagents whose call ended are ended, the open turn ends, and a
// session_finished gives the session's usage.
func (d *Decoder) End(out []*event.Event) []*event.Event {
	if d.lines == 0 {
		return out
	}
	l := &line{d: d, first: -1}
	for _, key := range append([]string(nil), d.order...) {
		t := d.threads[key]
		l.closeRound(t)
		if t.done != "" {
			l.endTask(t, t.done)
		}
	}
	l.closeRound(d.main)
	d.endTurn(l)
	f := &event.SessionFinished{Status: event.StatusOK, Usage: d.total.usage()}
	if d.lastStatus != "" {
		f.Status = d.lastStatus
	}
	l.synth(&event.Event{Body: f})
	if !d.started {
		d.held = append(d.held, l.evs...)
		return d.release(out)
	}
	return append(out, l.evs...)
}

// beginTurn ends the open turn and begins the next: prompt is the text
// of the prompt, nil for a turn no prompt line began (an assistant line
// between turns, after a resume).
func (l *line) beginTurn(prompt *string) {
	d := l.d
	d.endTurn(l)
	d.turns++
	d.turn = "turn-" + strconv.Itoa(d.turns)
	d.interrupted, d.apiError, d.stop = false, false, ""
	l.synth(&event.Event{Time: l.time, TurnID: d.turn, Body: &event.TurnStarted{Prompt: prompt}})
}

// endTurn ends the open turn: its model rounds (the main thread's and
// the inline subagents'), then turn_finished. Claude Code marks no turn
// end; a turn ends at the next prompt or at the end of the transcript.
func (d *Decoder) endTurn(l *line) {
	if d.turn == "" {
		return
	}
	l.closeRound(d.main)
	for _, key := range d.order {
		if t := d.threads[key]; t.turn == d.turn {
			l.closeRound(t)
		}
	}
	f := &event.TurnFinished{Status: event.StatusOK}
	switch {
	case d.interrupted:
		f.Status, f.StopReason = event.StatusCancelled, event.StopCancelled
	case d.apiError:
		f.Status = event.StatusError
	case d.stop != event.StopToolUse:
		f.StopReason = d.stop
	}
	l.synth(&event.Event{TurnID: d.turn, Body: f})
	d.lastStatus = f.Status
	d.turn = ""
}
