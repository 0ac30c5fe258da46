package replay

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/evtool/evtool/internal/jsonenc"
	"github.com/tidwall/gjson"
)

// session is one ACP session: an id and a cursor on the recording.
type session struct {
	srv    *server
	id     string
	loaded bool // its history was loaded: no turn is left to play

	mu   sync.Mutex // one prompt at a time; guards feed and skip
	feed *feed      // the recording as a transcript, from where the session is
	skip bool       // the last turn was cancelled: its rest is passed over

	ready     chan struct{} // closed once what precedes the first turn is sent
	readyOnce sync.Once

	cmu    sync.Mutex
	cancel context.CancelFunc // ends the turn in progress
}

func newSession(srv *server, id string) *session {
	return &session{srv: srv, id: id, ready: make(chan struct{})}
}

func (ss *session) markReady() { ss.readyOnce.Do(func() { close(ss.ready) }) }

// cursor returns the session's transcript, starting it on first use.
func (ss *session) cursor() *feed {
	if ss.feed == nil {
		ss.feed = startFeed(ss.srv.config(ss.id, true))
	}
	return ss.feed
}

// start sends what the recording says before its first turn (the commands
// it offers). It runs right after the session/new answer is written.
func (ss *session) start() {
	defer ss.markReady() // after the unlock: a prompt waits for both
	ss.mu.Lock()
	defer ss.mu.Unlock()
	f := ss.cursor()
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

func (ss *session) close() {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.feed != nil {
		ss.feed.close()
	}
	ss.markReady()
}

func (ss *session) cancelTurn() {
	ss.cmu.Lock()
	defer ss.cmu.Unlock()
	if ss.cancel != nil {
		ss.cancel()
	}
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
// the recording a prompt ends at once, end_turn.
func (ss *session) prompt(ctx context.Context) (any, *sdk.RequestError) {
	select {
	case <-ss.ready:
	case <-ctx.Done():
		return cancelled, nil
	}
	if !ss.mu.TryLock() {
		return nil, sdk.NewInvalidRequest(map[string]string{"detail": "a prompt is already running in session " + ss.id})
	}
	defer ss.mu.Unlock()
	if ss.loaded {
		return endTurn, nil
	}
	tctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ss.cmu.Lock()
	ss.cancel = cancel
	ss.cmu.Unlock()
	defer func() {
		ss.cmu.Lock()
		ss.cancel = nil
		ss.cmu.Unlock()
	}()

	f := ss.cursor()
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
				return nil, sdk.NewInternalError(map[string]string{"detail": "the recording cannot be read: " + err.Error()})
			}
			if begun {
				return endTurn, nil
			}
			return endTurn, nil // past the end of the recording
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
	ss.skip = begun
	return cancelled, nil
}

// history streams the whole recording as the session's history: the
// updates a notification log of it has, user messages included; no
// permission is asked again.
func (ss *session) history(ctx context.Context) *sdk.RequestError {
	defer ss.markReady()
	ss.mu.Lock()
	defer ss.mu.Unlock()
	f := startFeed(ss.srv.config(ss.id, false))
	defer f.close()
	for ctx.Err() == nil {
		it, ok := f.next()
		if !ok {
			if err := f.failure(); err != nil {
				return sdk.NewInternalError(map[string]string{"detail": "the recording cannot be read: " + err.Error()})
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
