package replay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"unicode/utf8"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/evtool/evtool/adapters/acp"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/jsonenc"
	"github.com/evtool/evtool/stream"
	"github.com/tidwall/gjson"
)

// The agent's side of ACP: the requests the SDK hands over, and the
// sessions they open, list and load.

// handle is the SDK's MethodHandler: the agent's side of ACP.
func (s *server) handle(ctx context.Context, method string, params json.RawMessage) (any, *sdk.RequestError) {
	// A handler also ends when Serve stops, not only when the client goes.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(s.quit, cancel)()
	switch method {
	case "initialize":
		v := gjson.GetBytes(params, "protocolVersion")
		if !v.Exists() {
			return nil, invalidParams("initialize needs protocolVersion")
		}
		if !uint16Literal(v) {
			return nil, invalidParams("protocolVersion must be an integer from 0 to 65535 (ProtocolVersion is a uint16), not " + clip(v.Raw, 64))
		}
		// evtool speaks version 1 only: the answer to any other version is
		// 1, and the client decides whether it can go on.
		return json.RawMessage(`{"protocolVersion":1,"agentCapabilities":{"loadSession":true,"promptCapabilities":{"image":false,"audio":false,"embeddedContext":false},"sessionCapabilities":{"list":{}}},"authMethods":[],"agentInfo":{"name":"evtool","title":"evtool replay","version":"1"}}`), nil
	case "authenticate":
		return json.RawMessage(`{}`), nil
	case "session/new":
		if gjson.GetBytes(params, "cwd").Type != gjson.String {
			return nil, invalidParams("session/new needs cwd, a string")
		}
		if s.opts.Library != nil {
			return nil, sdk.NewInvalidRequest(map[string]string{"detail": "evtool serves past sessions: load one (session/list lists them); it cannot start a new one"})
		}
		return s.newSession()
	case "session/load":
		sid := gjson.GetBytes(params, "sessionId")
		if sid.Type != gjson.String || gjson.GetBytes(params, "cwd").Type != gjson.String {
			return nil, invalidParams("session/load needs sessionId and cwd, strings")
		}
		return s.load(ctx, sid.Str)
	case "session/list":
		return s.list(params)
	case "session/prompt":
		// The filter wrapped the client's params with the prompt's ticket.
		s.mu.Lock()
		g := s.gates[gjson.GetBytes(params, "ticket").Uint()]
		s.mu.Unlock()
		params = field(params, "params")
		if g == nil {
			return nil, sdk.NewInternalError(map[string]string{"detail": "the prompt was not admitted"})
		}
		sid := gjson.GetBytes(params, "sessionId")
		if sid.Type != gjson.String || !gjson.GetBytes(params, "prompt").IsArray() {
			return nil, invalidParams("session/prompt needs sessionId, a string, and prompt, an array")
		}
		ss := s.session(sid.Str)
		if ss == nil {
			return nil, unknownSession(sid.Str)
		}
		return ss.prompt(ctx, g)
	case "session/cancel":
		return nil, nil // done by the filter, in the client's order
	}
	return nil, sdk.NewMethodNotFound(method)
}

// uint16Literal reports whether v is written as an integer from 0 to
// 65535: no sign, fraction or exponent, as a uint16 is read.
func uint16Literal(v gjson.Result) bool {
	if v.Type != gjson.Number || len(v.Raw) > 5 || v.Raw == "" || (v.Raw[0] == '0' && len(v.Raw) > 1) {
		return false
	}
	for _, c := range []byte(v.Raw) {
		if c < '0' || c > '9' {
			return false
		}
	}
	n, err := strconv.Atoi(v.Raw)
	return err == nil && n <= 65535
}

// clip shortens s to at most n bytes, on a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func invalidParams(why string) *sdk.RequestError {
	return sdk.NewInvalidParams(map[string]string{"detail": why})
}

func unknownSession(id string) *sdk.RequestError {
	return &sdk.RequestError{Code: -32002, Message: "Resource not found", Data: map[string]string{"sessionId": id, "detail": "no such session: open one with session/new or session/load"}}
}

func (s *server) session(id string) *session {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessions[id]
}

// recording returns what the head of the recording says: the first
// session's id (the option's, else the recording's, else
// acp.DefaultSessionID), its directory and its first user message.
func (s *server) recording() (recording, error) {
	s.recMu.Lock()
	defer s.recMu.Unlock()
	if s.read {
		return s.rec, nil
	}
	rc, err := s.open()
	if err != nil {
		return recording{}, err
	}
	defer rc.Close()
	rd := stream.NewReader(rc, s.opts.Name, stream.Options{Dialect: s.opts.From})
	rec := recording{id: acp.DefaultSessionID}
	started := false
	for range 64 {
		ev, err := rd.Next()
		if err != nil {
			var le *stream.LineError
			if errors.As(err, &le) {
				continue
			}
			if err == io.EOF {
				break
			}
			return recording{}, err
		}
		switch b := ev.Body.(type) {
		case *event.SessionStarted:
			if !started {
				started = true
				if b.SessionID != "" {
					rec.id = b.SessionID
				}
				if path.IsAbs(b.Workspace) || filepath.IsAbs(b.Workspace) {
					rec.cwd = b.Workspace
				}
			}
		case *event.TurnStarted:
			// A turn's prompt is the user's, where the stream does not
			// echo it as a message (Claude Code's stream-json by default).
			if rec.title == "" && b.Prompt != nil && ev.AgentID == "" {
				rec.title = titleOf(*b.Prompt)
			}
		case *event.UserMessage:
			// A subagent's prompt (agent_id) is its parent's, not the user's.
			if rec.title == "" && ev.AgentID == "" {
				rec.title = titleOf(b.Text)
			}
		}
		if started && rec.title != "" {
			break
		}
	}
	if s.opts.SessionID != "" {
		rec.id = s.opts.SessionID
	}
	if rec.title == "" && s.opts.Name != "" {
		rec.title = filepath.Base(s.opts.Name)
	}
	s.rec, s.read = rec, true
	// The head's lines and what they decoded to are garbage now. A first
	// prompt may be giant (a pasted file): collected now, its memory is
	// what the session's own reading of it takes next, instead of adding
	// to it (measured: a 200 MiB first line peaked at 3 times its size,
	// 2 times with this).
	rd.Close()
	runtime.GC()
	return rec, nil
}

func (s *server) config(ss *session, transcript bool) feedConfig {
	c := feedConfig{open: s.open, name: s.opts.Name, from: s.opts.From, profile: s.opts.Profile, meta: s.opts.Meta,
		session: ss.id, transcript: transcript, warn: func(m string) { fmt.Fprintf(s.opts.Log, "evtool: acp replay: %s\n", m) }}
	if ss.open != nil {
		// A session of a library: its own recording.
		c.open, c.from, c.name = ss.open, ss.from, ss.id
	}
	return c
}

func unreadable(err error) *sdk.RequestError {
	return sdk.NewInternalError(map[string]string{"detail": "the recording cannot be read: " + err.Error()})
}

func (s *server) newSession() (any, *sdk.RequestError) {
	rec, err := s.recording()
	if err != nil {
		return nil, unreadable(err)
	}
	s.mu.Lock()
	s.created++
	id := rec.id
	if s.created > 1 {
		id = rec.id + "-" + strconv.Itoa(s.created)
	}
	for s.sessions[id] != nil {
		s.created++
		id = rec.id + "-" + strconv.Itoa(s.created)
	}
	ss := newSession(s, id)
	s.sessions[id] = ss
	// What the recording says before its first turn (the commands it
	// offers) follows the answer, once it is written, as an agent sends
	// it after session/new.
	s.afterNew[id] = ss.start
	s.mu.Unlock()
	b := jsonenc.String([]byte(`{"sessionId":`), id)
	return json.RawMessage(append(b, '}')), nil
}

// list answers session/list with the recording's session. A replay works
// in no directory, so it is listed under the directory asked about (an
// editor lists the sessions of the project it has open), else the
// recording's own, else "/". There is one page: a cursor is not one evtool
// gave.
func (s *server) list(params json.RawMessage) (any, *sdk.RequestError) {
	cwd, cursor := gjson.GetBytes(params, "cwd"), gjson.GetBytes(params, "cursor")
	if cwd.Exists() && cwd.Type != gjson.Null && cwd.Type != gjson.String || cursor.Exists() && cursor.Type != gjson.Null && cursor.Type != gjson.String {
		return nil, invalidParams("session/list takes cwd and cursor, strings")
	}
	if s.opts.Library != nil {
		return s.listLibrary(context.Background(), cwd, cursor)
	}
	if cursor.Type == gjson.String {
		return nil, invalidParams("session/list has one page: no cursor continues it")
	}
	rec, err := s.recording()
	if err != nil {
		return nil, unreadable(err)
	}
	dir := "/"
	switch {
	case cwd.Type == gjson.String:
		dir = cwd.Str
	case rec.cwd != "":
		dir = rec.cwd
	}
	b := jsonenc.String([]byte(`{"sessions":[{"sessionId":`), rec.id)
	b = jsonenc.String(append(b, `,"cwd":`...), dir)
	if rec.title != "" {
		b = jsonenc.String(append(b, `,"title":`...), rec.title)
	}
	return json.RawMessage(append(b, "}]}"...)), nil
}

// load streams the whole recording as the history of session id, which
// must be the recording's (or one session/new gave), and returns when
// done. A session of that id is replaced: its prompt in progress is
// cancelled and answered, and what it was sending is sent, before the
// history begins; it does not close its open calls, which the history
// shows as recorded.
func (s *server) load(ctx context.Context, id string) (any, *sdk.RequestError) {
	var (
		open Opener
		from dialect.Dialect
	)
	if s.opts.Library != nil {
		o, d, ok, err := s.opts.Library.Open(ctx, id)
		if err != nil {
			return nil, unreadable(err)
		}
		if !ok {
			return nil, unknownSession(id)
		}
		open, from = o, d
	} else {
		rec, err := s.recording()
		if err != nil {
			return nil, unreadable(err)
		}
		s.mu.Lock()
		known := s.sessions[id] != nil || id == rec.id
		s.mu.Unlock()
		if !known {
			return nil, unknownSession(id)
		}
	}
	s.mu.Lock()
	old := s.sessions[id]
	ss := newSession(s, id)
	ss.open, ss.from = open, from
	ss.loaded = true
	s.sessions[id] = ss
	delete(s.afterNew, id)
	g := s.latest[id]
	if old != nil {
		old.replaced.Store(true)
	}
	if g != nil {
		g.cancel()
	}
	s.mu.Unlock()
	defer ss.markReady()
	if old != nil {
		old.hurryUp()
		if !old.acquire(ctx) {
			return nil, sdk.NewRequestCancelled(nil)
		}
		old.retire()
		old.release()
	}
	if g != nil {
		select {
		case <-g.done:
		case <-ctx.Done():
			return nil, sdk.NewRequestCancelled(nil)
		}
	}
	if err := ss.history(ctx); err != nil {
		return nil, err
	}
	return json.RawMessage(`{}`), nil
}

// stopAll ends every turn in progress, and every prompt not yet started:
// the client has gone.
func (s *server) stopAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, g := range s.gates {
		g.cancel()
	}
}

// titleOf is a session's title from its first prompt: the first line,
// clipped; "" for a prompt of white space.
func titleOf(prompt string) string {
	t, _, _ := strings.Cut(strings.TrimSpace(prompt), "\n")
	return clip(strings.TrimSpace(t), 120)
}
