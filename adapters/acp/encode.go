package acp

import (
	"bufio"
	"cmp"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/idset"
)

// Encoder writes canonical events as ACP JSON-RPC messages.
//
// Turns: a turn begins at turn_started (or, before any, at the first event
// that needs one) and ends at turn_finished, at the next turn_started, at
// session_finished or at the end of the stream; round_finished (one model
// call inside a turn) never ends it. Before a turn ends, its open
// permission requests are answered cancelled and its open calls are closed
// as failed, outcome unknown, so that every turn is closed in itself. In a
// transcript each turn is one session/prompt and its response; the turn's
// prompt is what the client sent, so the user message that is the prompt
// is not echoed (a notification log, which is the history session/load
// streams, has it as user_message_chunk).
type Encoder struct {
	w   *bufio.Writer
	buf []byte // the message being written
	// scratch holds the fields of objects made with lit for the messages
	// of the event being encoded.
	scratch []field
	// lastID is the last message id made, by chunkID.
	lastID struct {
		prefix, id string
		n          int
	}
	loss       *dialect.Losses
	profile    string
	meta       bool
	carry      [][]byte // with meta: canonical events not yet carried
	transcript bool
	session    string
	sessionSet bool // the session id came from a flag
	workspace  string

	nextID int // JSON-RPC ids, one counter for both sides of a transcript

	// Tool calls: the open ones in full; a finished one as its id's digest
	// in done, with what a later permission request for it shows (its kind,
	// and its title in titles).
	tools     toolSet
	announced int // tool calls announced so far
	done      idset.Set
	titles    titleStore

	msgs, thoughts int  // message and thought counters for messageId
	users          int  // user message counter for messageId
	inMsg, inThink bool // a message or thought is being streamed
	msgDelta       bool // the current message came as deltas

	// The turn.
	turnOpen  bool        // a turn has begun and not yet ended
	explicit  bool        // it began with turn_started
	promptID  int         // transcript: id of the turn's session/prompt, 0 until it is sent
	prompt    string      // the prompt text, once known
	gotPrompt bool        // the turn's prompt message was seen
	usage     event.Usage // the turn's usage, summed from rounds and usage events
	haveUsage bool
	turnUsage *event.Usage // the turn's usage as turn_finished states it
	failed    bool         // the turn's failure was shown to the user
	begun     bool         // a turn has begun in the stream
	// In a transcript, the stop reason of a turn that turn_finished ended,
	// whose response waits: events of no turn that follow it (Claude Code's
	// prompt_suggestion after a result, a background task ending) are
	// updates of that turn, not a new prompt the user never sent.
	ended string
	free  bool // the event being written belongs to no turn (outside)

	// Permission requests, by key (the request id, or "call:" and the call
	// id): the unanswered ones, also by call; an answered key as a digest in
	// answered, with its first position.
	perms    map[string]*perm
	byCall   map[string][]*perm
	answered idset.Set
	asked    uint64 // requests made so far
}

func newEncoder(w *bufio.Writer, opts dialect.EncodeOptions) *Encoder {
	cfg, _ := opts.Config.(*Config)
	if cfg == nil {
		cfg = &Config{Profile: Stable}
	}
	e := &Encoder{w: w, loss: opts.Losses, profile: cmp.Or(cfg.Profile, Stable), meta: cfg.Meta,
		transcript: cfg.Transcript, perms: map[string]*perm{},
		byCall: map[string][]*perm{}, nextID: 1}
	if e.meta {
		// Every event rides whole under _meta: what the ACP messages
		// cannot say is not lost, so it is not counted.
		e.loss = &dialect.Losses{}
	}
	if id := opts.Defaults.SessionID; id != "" {
		e.session, e.sessionSet = id, true
	} else {
		e.session = DefaultSessionID
	}
	return e
}

func (e *Encoder) basis() bool { return e.profile == Basis }

// lit returns an object of the fields given, held in the encoder's
// scratch space until the next event: for the objects of a message about
// to be written, never for one kept (a tool's content, say).
func (e *Encoder) lit(fs ...field) obj {
	start := len(e.scratch)
	e.scratch = append(e.scratch, fs...)
	return e.scratch[start:len(e.scratch):len(e.scratch)]
}

// written frees the scratch space taken since mark, whose messages are
// written: for an event that writes a message for each of many calls (a
// turn's end closing every call left open), which would otherwise hold
// the objects of all of them until the next event.
func (e *Encoder) written(mark int) {
	clear(e.scratch[mark:])
	e.scratch = e.scratch[:mark]
}

// writeObj writes a message, rendered into the encoder's reused buffer.
func (e *Encoder) writeObj(o obj) error {
	if n := o.size(); cap(e.buf) < n {
		e.buf = make([]byte, 0, n)
	}
	e.buf = o.appendTo(e.buf[:0])
	err := e.write(e.buf)
	if cap(e.buf) > 1<<20 {
		e.buf = nil // a giant message's buffer is not kept
	}
	return err
}

func (e *Encoder) write(b []byte) error {
	if _, err := e.w.Write(b); err != nil {
		return err
	}
	return e.w.WriteByte('\n')
}

// notify writes a session/update notification of the current turn.
func (e *Encoder) notify(update obj, ev *event.Event) error {
	if e.free {
		return e.update(update, ev)
	}
	if err := e.inTurn(); err != nil {
		return err
	}
	return e.update(update, ev)
}

// update writes a session/update notification, in a turn or not.
func (e *Encoder) update(update obj, ev *event.Event) error {
	params := e.lit(sf("sessionId", e.session), of("update", update))
	params = e.withMeta(params, ev)
	return e.writeObj(e.lit(sf("jsonrpc", "2.0"), sf("method", "session/update"), of("params", params)))
}

// withMeta, with --acp-meta, puts under _meta["evtool/source"].events
// every canonical event consumed since the last message that carried
// some, whole: --from acp reads them back in place of the messages, so
// that nothing is lost on the way through ACP.
func (e *Encoder) withMeta(params obj, _ *event.Event) obj {
	if !e.meta {
		return params
	}
	evs := []byte{'['}
	for i, b := range e.carry {
		if i > 0 {
			evs = append(evs, ',')
		}
		evs = append(evs, b...)
	}
	evs = append(evs, ']')
	e.carry = e.carry[:0]
	return params.sub("_meta", obj{}.sub(MetaKey, obj{}.add("events", evs)))
}

// MetaKey is the _meta key under which --acp-meta carries canonical events.
const MetaKey = "evtool/source"

// MetaMethod is the extension notification that carries, at the end of a
// stream, the canonical events no ACP message carried.
const MetaMethod = "_evtool/events"

// Encode implements dialect.Encoder.
func (e *Encoder) Encode(ev *event.Event) error {
	// The objects of the last event's messages are written: their space
	// is free.
	clear(e.scratch)
	e.scratch = e.scratch[:0]
	if e.ended != "" && !trailing(ev) {
		reason := e.ended
		e.ended = ""
		if err := e.endTurn(reason, false); err != nil {
			return err
		}
	}
	if e.meta {
		b, err := event.Append(nil, ev)
		if err != nil {
			return err
		}
		e.carry = append(e.carry, b)
	} else {
		// Without --acp-meta another dialect's residue has no place,
		// nor has a cost; nor, but in the unstable profile's response
		// to a prompt, has usage.
		e.loss.Foreign(ev.Ext, Name)
		e.dropsOfUsage(ev.Body)
	}
	switch ev.Body.(type) {
	case *event.ToolCall, *event.ToolStarted, *event.ToolProgress, *event.ToolOutput, *event.ToolFinished,
		*event.PermissionRequested, *event.PermissionResolved:
		return e.encodeTool(ev)
	case *event.PlanUpdated, *event.TaskUpdated, *event.Notice, *event.Retry, *event.Error:
		return e.encodeNews(ev)
	}
	return e.encodeTurn(ev)
}

// encodeTurn writes the events of the session, its turns and the
// conversation in them.
func (e *Encoder) encodeTurn(ev *event.Event) error {
	switch b := ev.Body.(type) {
	case *event.SessionStarted:
		return e.sessionStarted(ev, b)
	case *event.TurnStarted:
		return e.turnStarted(b)
	case *event.UserMessage:
		return e.userMessage(ev, b)
	case *event.MessageDelta:
		return e.chunk(ev, b.Text, b.MessageID, false, true)
	case *event.Message:
		return e.message(ev, b)
	case *event.ReasoningDelta:
		return e.chunk(ev, b.Text, "", true, true)
	case *event.Reasoning:
		return e.reasoning(ev, b)
	case *event.Usage:
		e.addUsage(b)
		e.loss.Add(lossUsage)
		return nil
	case *event.RoundFinished:
		// One model call inside the turn: its usage counts toward the
		// turn's; the turn goes on.
		if b.Usage != nil {
			e.addUsage(b.Usage)
		}
		return nil
	case *event.TurnFinished:
		return e.turnFinished(ev, b)
	case *event.SessionFinished:
		return e.sessionFinished(ev, b)
	case *event.Unknown:
		e.loss.AddDetail(lossUnknownEvent, b.Dialect)
		return nil
	}
	e.loss.AddDetail(lossNoSuchUpdate, string(ev.Type()))
	return nil
}

// encodeTool writes the events of tool calls and their permissions.
func (e *Encoder) encodeTool(ev *event.Event) error {
	if _, ok := ev.Body.(*event.PermissionResolved); !ok {
		e.endStreams()
	}
	switch b := ev.Body.(type) {
	case *event.ToolCall:
		return e.toolCall(ev, b)
	case *event.ToolStarted:
		return e.toolStarted(ev, b)
	case *event.ToolProgress:
		return e.toolProgress(ev, b)
	case *event.ToolOutput:
		return e.toolOutput(ev, b)
	case *event.ToolFinished:
		return e.toolFinished(ev, b)
	case *event.PermissionRequested:
		return e.permission(ev, b)
	case *event.PermissionResolved:
		return e.resolved(b)
	}
	return nil
}

// encodeNews writes what the agent tells the user besides the
// conversation: plans, tasks, notices, retries and errors. Each ends the
// message or thought being streamed.
func (e *Encoder) encodeNews(ev *event.Event) error {
	e.endStreams()
	switch b := ev.Body.(type) {
	case *event.PlanUpdated:
		return e.plan(ev, b)
	case *event.TaskUpdated:
		return e.task(ev, b)
	case *event.Notice:
		return e.notice(ev, b)
	case *event.Retry:
		return e.thought(ev, retryText(b))
	case *event.Error:
		return e.thought(ev, "error: "+b.Message)
	}
	return nil
}

// finite writes numbers a double cannot hold as strings, counted.
func (e *Encoder) finite(raw []byte) []byte {
	raw, changed := finiteNumbers(raw)
	if changed {
		e.loss.Add(lossBigNumber)
	}
	return raw
}

// Close implements dialect.Encoder: a turn still open is closed in itself
// (its calls failed with an outcome-unknown text, its requests answered
// cancelled) and, in a transcript, answered end_turn.
func (e *Encoder) Close() error {
	if e.ended != "" {
		reason := e.ended
		e.ended = ""
		if err := e.endTurn(reason, false); err != nil {
			return err
		}
	}
	if err := e.endTurn("end_turn", true); err != nil {
		return err
	}
	if e.meta && len(e.carry) > 0 {
		params := e.withMeta(obj{}.str("sessionId", e.session), nil)
		return e.writeObj(obj{}.str("jsonrpc", "2.0").str("method", MetaMethod).sub("params", params))
	}
	return nil
}

// dropsOfUsage counts what of an event's usage ACP cannot carry: any cost
// (a prompt's usage has token counts only), and, but in the unstable
// profile, a turn's or a session's usage (a round's and a usage event's
// are counted where they are read).
func (e *Encoder) dropsOfUsage(b event.Body) {
	u := event.UsageOf(b)
	if u == nil {
		return
	}
	if u.CostUSD != "" {
		e.loss.Add(lossCost)
	}
	switch b.(type) {
	case *event.TurnFinished, *event.SessionFinished:
		if e.profile != Unstable {
			e.loss.Add(lossTurnUsage)
		}
	}
}
