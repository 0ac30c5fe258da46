package replay

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/internal/jsonenc"
	"github.com/tidwall/gjson"
)

// session is one ACP session: an id and a cursor on the recording.
type session struct {
	srv *server
	id  string
	// open and from read the session's own recording, for a session of a
	// Library; nil: the server's.
	open   Opener
	from   dialect.Dialect
	loaded bool // its history was loaded: no turn is left to play

	// turn is held while the session sends: the commands that follow its
	// session/new answer, a turn, its history. One prompt plays at a time
	// (the filter refuses a second one unless the first was cancelled, and
	// that one waits here for the cancelled turn to end).
	turn chan struct{}
	skip bool // the last turn was cancelled: its rest is passed over; guarded by turn

	fmu     sync.Mutex
	feed    *feed // the recording as a transcript, from where the session is
	retired bool  // the session is gone: no feed is started

	replaced atomic.Bool // session/load replaces it: a cancelled turn does not close its calls

	ready     chan struct{} // closed once what precedes the first turn is sent
	readyOnce sync.Once
	hurry     chan struct{} // closed once the client uses the session
	hurryOnce sync.Once
}

func newSession(srv *server, id string) *session {
	return &session{srv: srv, id: id, turn: make(chan struct{}, 1), ready: make(chan struct{}), hurry: make(chan struct{})}
}

func (ss *session) markReady() { ss.readyOnce.Do(func() { close(ss.ready) }) }

func (ss *session) hurryUp() { ss.hurryOnce.Do(func() { close(ss.hurry) }) }

// acquire takes the session's turn; false if ctx ends first.
func (ss *session) acquire(ctx context.Context) bool {
	select {
	case ss.turn <- struct{}{}:
		return true
	case <-ctx.Done():
		return false
	}
}

func (ss *session) release() { <-ss.turn }

// cursor returns the session's transcript, starting it on first use; nil
// once the session is retired.
func (ss *session) cursor() *feed {
	ss.fmu.Lock()
	defer ss.fmu.Unlock()
	if ss.retired {
		return nil
	}
	if ss.feed == nil {
		ss.feed = startFeed(ss.srv.config(ss, true))
	}
	return ss.feed
}

// start sends what the recording says before its first turn (the commands
// it offers). It runs once the session/new answer is written, after
// commandsDelay or as soon as the client uses the session.
func (ss *session) start() {
	defer ss.markReady() // after the release: a prompt waits for both
	t := time.NewTimer(commandsDelay)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ss.hurry:
	case <-ss.srv.quit.Done():
		return
	}
	if !ss.acquire(ss.srv.quit) {
		return
	}
	defer ss.release()
	f := ss.cursor()
	if f == nil {
		return
	}
	for {
		it, ok := f.peek()
		if !ok || it.kind != update {
			return
		}
		f.next()
		if ss.send(it.params()) != nil {
			return
		}
	}
}

// retire stops the session's feed for good.
func (ss *session) retire() {
	ss.fmu.Lock()
	ss.retired = true
	if ss.feed != nil {
		ss.feed.close()
	}
	ss.fmu.Unlock()
	ss.hurryUp()
	ss.markReady()
}

func (ss *session) send(params []byte) error {
	ss.srv.pace.wait()
	return ss.srv.conn.SendNotification(context.Background(), "session/update", json.RawMessage(params))
}

var (
	endTurn   = json.RawMessage(`{"stopReason":"end_turn"}`)
	cancelled = json.RawMessage(`{"stopReason":"cancelled"}`)
)

// prompt plays the next recorded user turn: its updates and permission
// requests, and answers with the turn's recorded result. Past the end of
// the recording a prompt ends at once, end_turn. A prompt cancelled
// before its turn began plays nothing: the next prompt plays that turn.
func (ss *session) prompt(ctx context.Context, g *gate) (any, *sdk.RequestError) {
	hooks := ss.srv.opts.hooks
	if hooks.promptEntered != nil {
		hooks.promptEntered()
	}
	tctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if !ss.srv.hook(g, cancel) {
		return cancelled, nil // cancelled before its handler ran
	}
	defer ss.srv.unhook(g)
	if hooks.promptHooked != nil {
		hooks.promptHooked()
	}
	ss.hurryUp()
	select {
	case <-ss.ready:
	case <-tctx.Done():
		return cancelled, nil
	}
	if !ss.acquire(tctx) {
		return cancelled, nil
	}
	defer ss.release()
	if ss.loaded {
		return endTurn, nil
	}
	f := ss.cursor()
	if f == nil {
		return cancelled, nil
	}
	if ss.skip {
		// The rest of a cancelled turn is not played.
		ss.skip = false
		for {
			it, ok := f.next()
			if !ok || it.kind == response {
				break
			}
		}
	}
	t := &turn{open: map[string]bool{}}
	for begun := false; ; {
		if tctx.Err() != nil {
			return ss.stop(t, begun)
		}
		it, ok := f.next()
		if !ok {
			if err := f.failure(); err != nil {
				return nil, unreadable(err)
			}
			return endTurn, nil // the turn ends with the recording, or is past its end
		}
		switch it.kind {
		case prompt:
			begun = true
		case update:
			begun = true
			t.track(it.msg)
			if err := ss.send(it.params()); err != nil {
				return cancelled, nil
			}
		case ask:
			if !ss.ask(tctx, f, it) {
				return ss.stop(t, true)
			}
		case response:
			return json.RawMessage(it.result()), nil
		}
	}
}

// ask sends a recorded permission request and waits for the client's
// answer. A cancelled answer ends the turn (false). A rejection of what
// the recording allowed is shown on the call: the replay goes on as the
// recording did.
func (ss *session) ask(ctx context.Context, f *feed, it item) bool {
	res, err := sdk.SendRequest[json.RawMessage](ss.srv.conn, ctx, "session/request_permission", json.RawMessage(it.params()))
	if err != nil {
		return false
	}
	out := gjson.GetBytes(res, "outcome")
	if out.Get("outcome").Str != "selected" {
		return false
	}
	if !strings.HasPrefix(out.Get("optionId").Str, "reject") {
		return true
	}
	if next, ok := f.peek(); ok && next.kind == answer && next.id == it.id &&
		strings.HasPrefix(gjson.GetBytes(next.msg, "result.outcome.optionId").Str, "reject") {
		return true // the recording rejected it too
	}
	call := gjson.GetBytes(it.msg, "params.toolCall.toolCallId").Str
	u := jsonenc.String([]byte(`{"sessionId":`), ss.id)
	u = append(u, `,"update":{"sessionUpdate":"tool_call_update","toolCallId":`...)
	u = jsonenc.String(u, call)
	u = append(u, `,"content":[{"type":"content","content":{"type":"text","text":`...)
	u = jsonenc.String(u, "You rejected this call here. This is a replay: the recording goes on as it was recorded, where the call was not rejected.")
	u = append(u, "}}]}}"...)
	return ss.send(u) == nil
}

// stop ends a turn the client cancelled (or left): the calls the turn
// opened are closed as failed, and the rest of the recorded turn is passed
// over at the next prompt.
func (ss *session) stop(t *turn, begun bool) (any, *sdk.RequestError) {
	ss.skip = begun
	if ss.replaced.Load() {
		// The history that replaces the session shows the calls as
		// recorded: closing them here would come before it, stale.
		return cancelled, nil
	}
	for _, id := range t.order {
		if !t.open[id] {
			continue
		}
		u := jsonenc.String([]byte(`{"sessionId":`), ss.id)
		u = append(u, `,"update":{"sessionUpdate":"tool_call_update","toolCallId":`...)
		u = jsonenc.String(u, id)
		u = append(u, `,"status":"failed","content":[{"type":"content","content":{"type":"text","text":"cancelled: the replay of this turn was stopped before the call finished"}}]}}`...)
		if ss.send(u) != nil {
			break
		}
	}
	return cancelled, nil
}

// history streams the whole recording as the session's history: the
// updates a notification log of it has, user messages included; no
// permission is asked again.
func (ss *session) history(ctx context.Context) *sdk.RequestError {
	defer ss.markReady()
	if !ss.acquire(ctx) {
		return sdk.NewRequestCancelled(nil)
	}
	defer ss.release()
	f := startFeed(ss.srv.config(ss, false))
	defer f.close()
	for ctx.Err() == nil {
		it, ok := f.next()
		if !ok {
			if err := f.failure(); err != nil {
				return unreadable(err)
			}
			return nil
		}
		if it.kind == update {
			if err := ss.send(it.params()); err != nil {
				return sdk.NewInternalError(map[string]string{"detail": err.Error()})
			}
		}
	}
	return sdk.NewRequestCancelled(nil)
}

// turn tracks the tool calls a turn has open.
type turn struct {
	open  map[string]bool
	order []string
}

func (t *turn) track(msg []byte) {
	u := gjson.GetBytes(msg, "params.update")
	kind := u.Get("sessionUpdate").Str
	if kind != "tool_call" && kind != "tool_call_update" {
		return
	}
	id := u.Get("toolCallId").Str
	switch st := u.Get("status").Str; {
	case st == "completed" || st == "failed":
		delete(t.open, id)
		if len(t.order) > 2*len(t.open)+64 {
			t.order = slices.DeleteFunc(t.order, func(id string) bool { return !t.open[id] })
		}
	case kind == "tool_call":
		t.open[strings.Clone(id)] = true
		t.order = append(t.order, strings.Clone(id))
	}
}
