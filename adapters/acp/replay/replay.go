// Package replay serves a recorded run to an ACP client (an editor) as an
// ACP agent over a byte stream (stdio).
//
// The transport is the connection of github.com/coder/acp-go-sdk: it
// frames JSON-RPC, runs each request in its own goroutine (so requests are
// served while a permission request waits for its answer), never answers
// notifications, and matches answers to evtool's own requests. Payloads
// stay evtool's bytes (json.RawMessage): the SDK's typed values would carry
// numbers through float64.
//
// Each session/new opens a session with its own id and its own cursor on
// the recording; session/prompt plays the next recorded user turn of it
// (its updates and permission requests) and answers with the turn's
// recorded stop reason; session/load streams the whole recording as
// history, user messages included, and returns when done. The recording is
// read as it is replayed, with memory bounded whatever its length, and
// initialize is answered before it is opened.
package replay

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/evtool/evtool/adapters/acp"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/jsonenc"
	"github.com/evtool/evtool/stream"
	"github.com/tidwall/gjson"
)

// Opener opens the recording anew: each session reads it from the start
// with a cursor of its own.
type Opener func() (io.ReadCloser, error)

// Options configure Serve.
type Options struct {
	// From is the recording's dialect; nil detects it.
	From dialect.Dialect
	// Name names the recording in warnings.
	Name string
	// Profile is the ACP profile (acp.Stable, acp.Unstable, acp.Basis);
	// "" is stable.
	Profile string
	// Meta carries each event's source residue under _meta.
	Meta bool
	// SessionID is the id of the first session; "" takes the recording's.
	SessionID string
	// Rate caps the notifications sent per second (0: DefaultRate; <0:
	// no cap). A client's SDK may queue notifications in bounded memory:
	// the Go SDK drops the connection when more than 1024 wait, and a
	// replay, unlike a live agent, could send them faster than any client
	// handles them.
	Rate int
	// Log receives warnings (a line of the recording that cannot be read,
	// a client message that is not JSON); nil discards them.
	Log io.Writer
}

// DefaultRate is the default cap on notifications per second, with bursts
// of up to rateBurst: a client that handles 5000 updates a second keeps
// up, and the Go SDK's queue of 1024 never fills.
const DefaultRate = 5000

const rateBurst = 256

// Serve acts as an ACP agent on in and out until in ends (or ctx is
// done), replaying the recording open opens.
func Serve(ctx context.Context, in io.Reader, out io.Writer, open Opener, opts Options) error {
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	if opts.Profile == "" {
		opts.Profile = acp.Stable
	}
	if opts.Rate == 0 {
		opts.Rate = DefaultRate
	}
	s := &server{opts: opts, open: open, out: &syncWriter{w: out}, sessions: map[string]*session{}, pace: newPacer(opts.Rate)}
	pr, pw := io.Pipe()
	s.conn = sdk.NewConnection(s.handle, s.out, pr)
	s.conn.SetLogger(slog.New(slog.NewTextHandler(opts.Log, &slog.HandlerOptions{Level: slog.LevelError})))
	go func() {
		err := s.filter(in, pw)
		pw.CloseWithError(err)
	}()
	select {
	case <-s.conn.Done():
	case <-ctx.Done():
	}
	s.stopAll()
	s.wg.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, ss := range s.sessions {
		ss.close()
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return s.out.error()
}

type server struct {
	opts Options
	open Opener
	conn *sdk.Connection
	out  *syncWriter
	wg   sync.WaitGroup

	pace *pacer

	mu       sync.Mutex
	sessions map[string]*session
	created  int    // sessions created by session/new
	base     string // the first session's id, once known
}

// syncWriter serialises the SDK's messages and evtool's own (answers to
// lines the SDK cannot parse), and runs a hook after a session/new answer.
type syncWriter struct {
	mu    sync.Mutex
	w     io.Writer
	err   error
	after map[string]func() // session id → what follows its session/new answer
}

func (w *syncWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	n, err := w.w.Write(b)
	if err != nil && w.err == nil {
		w.err = err
	}
	var f func()
	if len(w.after) > 0 && !bytes.Contains(b[:min(len(b), 64)], []byte(`"method"`)) {
		if sid := gjson.GetBytes(b, "result.sessionId"); sid.Type == gjson.String {
			f = w.after[sid.Str]
			delete(w.after, sid.Str)
		}
	}
	w.mu.Unlock()
	if f != nil {
		go f()
	}
	return n, err
}

func (w *syncWriter) onAnswer(session string, f func()) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.after == nil {
		w.after = map[string]func(){}
	}
	w.after[session] = f
}

func (w *syncWriter) error() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// maxIncoming bounds one client message.
const maxIncoming = 64 << 20

// filter passes the client's well-formed messages to the SDK's connection
// and answers the others itself: a message that is not JSON gets -32700
// when its id can be read, a JSON value that is not a request object gets
// -32600. Either is reported to the log.
func (s *server) filter(in io.Reader, pw *io.PipeWriter) error {
	br := bufio.NewReaderSize(in, 64<<10)
	var line []byte
	n := 0
	for {
		chunk, err := br.ReadSlice('\n')
		if len(line)+len(chunk) <= maxIncoming {
			line = append(line, chunk...)
		} else {
			line = append(line[:0], "{"...) // too long: judged as broken
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if len(line) > 0 || err == nil {
			n++
			if werr := s.judge(bytes.TrimSpace(line), n, pw); werr != nil {
				return werr
			}
		}
		line = line[:0]
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func (s *server) judge(line []byte, n int, pw *io.PipeWriter) error {
	if len(line) == 0 {
		return nil
	}
	if !json.Valid(line) {
		id := gjson.GetBytes(line, "id")
		fmt.Fprintf(s.opts.Log, "evtool: acp replay: client message %d is not JSON; ", n)
		if id.Type == gjson.Number || id.Type == gjson.String {
			fmt.Fprintf(s.opts.Log, "answered -32700\n")
			return s.reply(id.Raw, -32700, "Parse error", "the message is not valid JSON")
		}
		fmt.Fprintf(s.opts.Log, "it has no id to answer\n")
		return nil
	}
	r := gjson.ParseBytes(line)
	id := r.Get("id")
	valid := r.IsObject() && (!id.Exists() || id.Type == gjson.Number || id.Type == gjson.String || id.Type == gjson.Null) &&
		(r.Get("method").Type == gjson.String || !r.Get("method").Exists() && id.Exists())
	if !valid {
		fmt.Fprintf(s.opts.Log, "evtool: acp replay: client message %d is not a JSON-RPC request; answered -32600\n", n)
		return s.reply("null", -32600, "Invalid request", "not a JSON-RPC 2.0 request, notification or response")
	}
	if m := r.Get("method").Str; (!id.Exists() || id.Type == gjson.Null) && requests[m] {
		// A request sent as a notification cannot be answered; playing a
		// turn for it would answer nobody.
		fmt.Fprintf(s.opts.Log, "evtool: acp replay: client message %d is %s without an id (a notification); ignored\n", n, m)
		return nil
	}
	_, err := pw.Write(append(line, '\n'))
	return err
}

// requests are the agent methods that only make sense with an id.
var requests = map[string]bool{"initialize": true, "authenticate": true, "session/new": true, "session/load": true,
	"session/prompt": true, "session/set_mode": true, "session/set_config_option": true, "session/list": true,
	"session/resume": true, "session/close": true, "session/delete": true, "logout": true}

// reply writes an error answer of evtool's own.
func (s *server) reply(id string, code int, msg, detail string) error {
	b := []byte(`{"jsonrpc":"2.0","id":` + id + `,"error":{"code":` + strconv.Itoa(code) + `,"message":`)
	b = jsonenc.String(b, msg)
	b = append(b, `,"data":{"detail":`...)
	b = jsonenc.String(b, detail)
	b = append(b, "}}}\n"...)
	_, err := s.out.Write(b)
	return err
}

// handle is the SDK's MethodHandler: the agent's side of ACP.
func (s *server) handle(ctx context.Context, method string, params json.RawMessage) (any, *sdk.RequestError) {
	s.wg.Add(1)
	defer s.wg.Done()
	switch method {
	case "initialize":
		if !gjson.GetBytes(params, "protocolVersion").Exists() {
			return nil, invalidParams("initialize needs protocolVersion")
		}
		return json.RawMessage(`{"protocolVersion":1,"agentCapabilities":{"loadSession":true,"promptCapabilities":{"image":false,"audio":false,"embeddedContext":false}},"authMethods":[],"agentInfo":{"name":"evtool","title":"evtool replay","version":"1"}}`), nil
	case "authenticate":
		return json.RawMessage(`{}`), nil
	case "session/new":
		if gjson.GetBytes(params, "cwd").Type != gjson.String {
			return nil, invalidParams("session/new needs cwd, a string")
		}
		return s.newSession()
	case "session/load":
		sid := gjson.GetBytes(params, "sessionId")
		if sid.Type != gjson.String || gjson.GetBytes(params, "cwd").Type != gjson.String {
			return nil, invalidParams("session/load needs sessionId and cwd, strings")
		}
		return s.load(ctx, sid.Str)
	case "session/prompt":
		sid := gjson.GetBytes(params, "sessionId")
		if sid.Type != gjson.String || !gjson.GetBytes(params, "prompt").IsArray() {
			return nil, invalidParams("session/prompt needs sessionId, a string, and prompt, an array")
		}
		ss := s.session(sid.Str)
		if ss == nil {
			return nil, unknownSession(sid.Str)
		}
		return ss.prompt(ctx)
	case "session/cancel":
		if ss := s.session(gjson.GetBytes(params, "sessionId").Str); ss != nil {
			ss.cancelTurn()
		}
		return nil, nil
	}
	return nil, sdk.NewMethodNotFound(method)
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

// baseID returns the first session's id: the option's, else the
// recording's (read from its start), else acp.DefaultSessionID.
func (s *server) baseID() (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.base != "" {
		return s.base, nil
	}
	s.base = s.opts.SessionID
	if s.base != "" {
		return s.base, nil
	}
	rc, err := s.open()
	if err != nil {
		return "", err
	}
	defer rc.Close()
	rd := stream.NewReader(rc, s.opts.Name, stream.Options{Dialect: s.opts.From})
	s.base = acp.DefaultSessionID
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
			return "", err
		}
		if b, ok := ev.Body.(*event.SessionStarted); ok {
			if b.SessionID != "" {
				s.base = b.SessionID
			}
			break
		}
	}
	return s.base, nil
}

func (s *server) config(session string, transcript bool) feedConfig {
	return feedConfig{open: s.open, name: s.opts.Name, from: s.opts.From, profile: s.opts.Profile, meta: s.opts.Meta,
		session: session, transcript: transcript, warn: func(m string) { fmt.Fprintf(s.opts.Log, "evtool: acp replay: %s\n", m) }}
}

func (s *server) newSession() (any, *sdk.RequestError) {
	base, err := s.baseID()
	if err != nil {
		return nil, sdk.NewInternalError(map[string]string{"detail": "the recording cannot be read: " + err.Error()})
	}
	s.mu.Lock()
	s.created++
	id := base
	if s.created > 1 {
		id = base + "-" + strconv.Itoa(s.created)
	}
	for s.sessions[id] != nil {
		s.created++
		id = base + "-" + strconv.Itoa(s.created)
	}
	ss := newSession(s, id)
	s.sessions[id] = ss
	s.mu.Unlock()
	// What the recording says before its first turn (the commands it
	// offers) follows the answer, as an agent sends it after session/new.
	s.out.onAnswer(id, ss.start)
	b := jsonenc.String([]byte(`{"sessionId":`), id)
	return json.RawMessage(append(b, '}')), nil
}

// load streams the whole recording as the history of session id, which
// must be the recording's (or one session/new gave), and returns when done.
func (s *server) load(ctx context.Context, id string) (any, *sdk.RequestError) {
	base, err := s.baseID()
	if err != nil {
		return nil, sdk.NewInternalError(map[string]string{"detail": "the recording cannot be read: " + err.Error()})
	}
	s.mu.Lock()
	old := s.sessions[id]
	if old == nil && id != base {
		s.mu.Unlock()
		return nil, unknownSession(id)
	}
	ss := newSession(s, id)
	ss.loaded = true
	s.sessions[id] = ss
	s.mu.Unlock()
	if old != nil {
		old.cancelTurn()
		old.close()
	}
	if err := ss.history(ctx); err != nil {
		return nil, err
	}
	return json.RawMessage(`{}`), nil
}

// stopAll ends every turn in progress: the client has gone.
func (s *server) stopAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, ss := range s.sessions {
		ss.cancelTurn()
	}
}

// pacer is a token bucket: at most rate sends a second, in bursts of at
// most rateBurst.
type pacer struct {
	mu     sync.Mutex
	rate   float64 // 0: no cap
	tokens float64
	last   time.Time
}

func newPacer(rate int) *pacer {
	p := &pacer{tokens: rateBurst, last: time.Now()}
	if rate > 0 {
		p.rate = float64(rate)
	}
	return p
}

// wait returns when one more send is within the rate. A send may go into
// debt; the debt is paid in one sleep once it reaches pauseAt sends, since
// a sleep of a fraction of a millisecond lasts far longer under load.
func (p *pacer) wait() {
	if p.rate == 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	p.tokens = min(rateBurst, p.tokens+now.Sub(p.last).Seconds()*p.rate)
	p.last = now
	p.tokens--
	if p.tokens < -pauseAt {
		time.Sleep(time.Duration(-p.tokens / p.rate * float64(time.Second)))
	}
}

// pauseAt is the debt, in sends, paid in one sleep.
const pauseAt = 64
