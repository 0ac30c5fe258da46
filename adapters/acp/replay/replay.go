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
// The client's messages pass through a filter first, which reads them in
// the order they were sent: what depends on that order is decided there,
// not in the SDK's goroutines, whose order is the scheduler's. A
// session/cancel cancels the prompt the client sent before it, even when
// that prompt's goroutine has not started yet; a prompt sent while the
// session's previous one is still playing (and not cancelled) is refused
// there; every request read is counted, so that Serve answers each one
// before it returns.
//
// Each session/new opens a session with its own id and its own cursor on
// the recording; session/prompt plays the next recorded user turn of it
// (its updates and permission requests) and answers with the turn's
// recorded stop reason; session/load streams the whole recording as
// history, user messages included, and returns when done; session/list
// lists the recording's session. The recording is read as it is replayed,
// with memory bounded whatever its length, and initialize is answered
// before it is opened.
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
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

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
	// no cap, as fast as the client reads). A client's SDK may queue
	// notifications in bounded memory: the Go SDK drops the connection
	// when more than 1024 wait, and a replay, unlike a live agent, could
	// send them faster than any client handles them.
	Rate int
	// Log receives warnings (a line of the recording that cannot be read,
	// a client message that is not JSON); nil discards them.
	Log io.Writer

	// hooks lets this package's tests stop the server at the points
	// where the order of goroutines matters; nil in use.
	hooks *testHooks
}

// testHooks are called, when set, at the points a race could fall
// either way, so that a test can force each order.
type testHooks struct {
	promptEntered func()       // a prompt's handler started, its cancel hook not yet installed
	promptHooked  func()       // a prompt's cancel hook is installed
	judged        func(string) // the filter handled a client message (its method)
}

// DefaultRate is the default cap on notifications per second, with bursts
// of up to rateBurst: a client that handles 5000 updates a second keeps
// up, and the Go SDK's queue of 1024 never fills.
const DefaultRate = 5000

const rateBurst = 256

// exitGrace bounds how long Serve waits, once the client's input has
// ended, for the answers to the requests it read: turns still playing are
// cancelled and answer at once, unless the client stopped reading.
var exitGrace = 5 * time.Second

// commandsDelay is how long the messages that follow a session/new answer
// (the commands the recording offers) wait after it, unless the client
// uses the session first. The order on the wire is what the protocol
// promises, and the answer is written and flushed first whatever the
// delay; the delay is for clients that register a new session only when
// the task awaiting the answer next runs, and drop an update for a session
// they do not know yet (the issue reports commands sent 0.1–1.5 ms after
// the answer being dropped). A prompt, load or cancel of the session ends
// the wait: the client knows the session then.
var commandsDelay = 50 * time.Millisecond

// Serve acts as an ACP agent on in and out until in ends (or ctx is
// done), replaying the recording open opens. Every request read from in
// is answered before Serve returns (turns still playing end cancelled),
// unless out does not take the answers within a few seconds.
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
	if opts.hooks == nil {
		opts.hooks = &testHooks{}
	}
	s := &server{opts: opts, open: open, sessions: map[string]*session{}, pace: newPacer(opts.Rate),
		pending: map[string]int{}, gates: map[uint64]*gate{}, byKey: map[string]*gate{}, latest: map[string]*gate{},
		afterNew: map[string]func(){}, answered: make(chan struct{}, 1)}
	s.quit, s.stop = context.WithCancel(context.Background())
	defer s.stop()
	s.out = &syncWriter{w: out, srv: s}
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
	// The filter may be blocked on a connection that stopped reading.
	pr.CloseWithError(io.ErrClosedPipe)
	s.stopAll()
	s.drain()
	s.stop()
	s.mu.Lock()
	for _, ss := range s.sessions {
		ss.retire()
	}
	s.mu.Unlock()
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
	pace *pacer
	quit context.Context // done once Serve stops serving: every handler ends
	stop context.CancelFunc

	recMu sync.Mutex // guards rec and read: reading the recording's head takes a while
	rec   recording
	read  bool

	mu       sync.Mutex
	sessions map[string]*session
	created  int // sessions created by session/new

	// What the filter decided, in the client's order, and the answers the
	// writer has seen.
	pending  map[string]int    // requests passed to the SDK and not yet answered, by id key
	tickets  uint64            // the last prompt's ticket
	gates    map[uint64]*gate  // prompts passed to the SDK and not yet answered, by ticket
	byKey    map[string]*gate  // the same, by id key
	latest   map[string]*gate  // each session's last such prompt
	afterNew map[string]func() // session id → what follows its session/new answer
	answered chan struct{}     // a request was answered (capacity 1)
}

// gate is a prompt the filter passed on: whether the client cancelled it,
// and how to stop it once it runs.
type gate struct {
	ticket    uint64
	key       string // its request's id key
	session   string
	cancelled bool               // a session/cancel came after it
	hook      context.CancelFunc // stops its turn, once installed
	done      chan struct{}      // closed once its answer is written
}

// recording is what the head of the recording says.
type recording struct {
	id    string // the first session's id
	cwd   string // its working directory, when absolute
	title string // its first user message, shortened
}

// syncWriter serialises the SDK's messages and evtool's own (answers to
// lines the SDK cannot parse), flushes each one when out can be flushed,
// and tells the server of each answer the SDK writes.
type syncWriter struct {
	mu  sync.Mutex
	w   io.Writer
	err error
	srv *server
}

type flusher interface{ Flush() error }

// Write writes one message of the SDK's.
func (w *syncWriter) Write(b []byte) (int, error) {
	// An answer has an id and no method; the SDK writes the method before
	// anything long, so the head tells.
	if bytes.Contains(b[:min(len(b), 64)], []byte(`"method"`)) {
		return w.write(b)
	}
	key := idKey(gjson.GetBytes(b, "id"))
	// The prompt's gate opens before its answer is written: a client may
	// send its next prompt as soon as it reads the answer.
	g := w.srv.settle(key)
	n, err := w.write(b)
	if g != nil {
		close(g.done) // after: a session/load waits for the answer
	}
	w.srv.sent(key, b)
	return n, err
}

func (w *syncWriter) write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n, err := w.w.Write(b)
	if f, ok := w.w.(flusher); ok && err == nil {
		err = f.Flush()
	}
	if err != nil && w.err == nil {
		w.err = err
	}
	return n, err
}

func (w *syncWriter) error() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// idKey identifies a JSON-RPC id whatever its spelling: a string by its
// value (the SDK may escape it differently), a number by its text (the SDK
// echoes it as it came).
func idKey(id gjson.Result) string {
	switch id.Type {
	case gjson.String:
		return "s" + id.Str
	case gjson.Number:
		return "n" + id.Raw
	}
	return ""
}

// settle retires the gate of the prompt whose answer is about to be
// written, and returns it (nil if the answer is not a prompt's).
func (s *server) settle(key string) *gate {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.byKey[key]
	if g == nil {
		return nil
	}
	delete(s.byKey, key)
	delete(s.gates, g.ticket)
	if s.latest[g.session] == g {
		delete(s.latest, g.session)
	}
	return g
}

// sent counts an answer written, and starts what follows a session/new
// answer.
func (s *server) sent(key string, b []byte) {
	var f func()
	s.mu.Lock()
	if s.pending[key] > 1 {
		s.pending[key]--
	} else {
		delete(s.pending, key)
	}
	if len(s.afterNew) > 0 {
		if sid := gjson.GetBytes(b, "result.sessionId"); sid.Type == gjson.String {
			f = s.afterNew[sid.Str]
			delete(s.afterNew, sid.Str)
		}
	}
	s.mu.Unlock()
	select {
	case s.answered <- struct{}{}:
	default:
	}
	if f != nil {
		go f()
	}
}

// drain waits until every request read has been answered, out fails, or
// exitGrace passes.
func (s *server) drain() {
	deadline := time.NewTimer(exitGrace)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		n := len(s.pending)
		s.mu.Unlock()
		if n == 0 || s.out.error() != nil {
			return
		}
		select {
		case <-s.answered:
		case <-deadline.C:
			fmt.Fprintf(s.opts.Log, "evtool: acp replay: %d requests still unanswered %v after the client's input ended (is it reading?); exiting\n", n, exitGrace)
			return
		}
	}
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
	m := r.Get("method").Str
	defer s.opts.hooks.judgedHook(m)
	request := r.Get("method").Exists() && (id.Type == gjson.Number || id.Type == gjson.String)
	if !request && (!id.Exists() || id.Type == gjson.Null) && requests[m] {
		// A request sent as a notification cannot be answered; playing a
		// turn for it would answer nobody.
		fmt.Fprintf(s.opts.Log, "evtool: acp replay: client message %d is %s without an id (a notification); ignored\n", n, m)
		return nil
	}
	if m == "session/cancel" {
		// Decided here, in the client's order: it cancels the prompt sent
		// before it, started or not.
		s.cancelFromClient(r.Get("params.sessionId"), n)
		if !request {
			return nil
		}
	}
	if !request {
		_, err := pw.Write(append(line, '\n'))
		return err
	}
	key := idKey(id)
	s.mu.Lock()
	if s.pending[key] > 0 {
		s.mu.Unlock()
		fmt.Fprintf(s.opts.Log, "evtool: acp replay: client message %d reuses the id of a request not yet answered; answered -32600\n", n)
		return s.reply(id.Raw, -32600, "Invalid request", "the id "+id.Raw+" is the id of a request not yet answered")
	}
	if m == "session/prompt" {
		return s.admit(r, id, key, n, pw) // unlocks s.mu
	}
	s.pending[key]++
	s.mu.Unlock()
	_, err := pw.Write(append(line, '\n'))
	return err
}

func (h *testHooks) judgedHook(m string) {
	if h.judged != nil {
		h.judged(m)
	}
}

// admit passes a prompt on with a ticket, by which its handler finds its
// gate; or, when the session's previous prompt is still playing and was
// not cancelled, refuses it with -32600. Called with s.mu held; unlocks it.
func (s *server) admit(r, id gjson.Result, key string, n int, pw *io.PipeWriter) error {
	sid := r.Get("params.sessionId")
	if sid.Type == gjson.String {
		if cur := s.latest[sid.Str]; cur != nil && !cur.cancelled {
			s.mu.Unlock()
			fmt.Fprintf(s.opts.Log, "evtool: acp replay: client message %d prompts session %s while its previous prompt plays; answered -32600\n", n, sid.Str)
			return s.reply(id.Raw, -32600, "Invalid request",
				"session "+sid.Str+" is still playing the previous prompt: wait for its answer, or send session/cancel first")
		}
	}
	s.tickets++
	g := &gate{ticket: s.tickets, key: key, session: sid.Str, done: make(chan struct{})}
	s.gates[g.ticket], s.byKey[key] = g, g
	if sid.Type == gjson.String {
		s.latest[sid.Str] = g
	}
	s.pending[key]++
	s.mu.Unlock()
	params := r.Get("params").Raw
	if params == "" {
		params = "null"
	}
	b := []byte(`{"jsonrpc":"2.0","id":` + id.Raw + `,"method":"session/prompt","params":{"ticket":`)
	b = strconv.AppendUint(b, g.ticket, 10)
	b = append(b, `,"params":`...)
	b = append(b, params...)
	b = append(b, "}}\n"...)
	_, err := pw.Write(b)
	return err
}

// cancelFromClient cancels the session's prompt in progress, if any.
func (s *server) cancelFromClient(sid gjson.Result, n int) {
	if sid.Type != gjson.String {
		fmt.Fprintf(s.opts.Log, "evtool: acp replay: client message %d is session/cancel without a sessionId; ignored\n", n)
		return
	}
	s.mu.Lock()
	ss, g := s.sessions[sid.Str], s.latest[sid.Str]
	if g != nil {
		g.cancel()
	}
	s.mu.Unlock()
	if ss == nil && g == nil {
		fmt.Fprintf(s.opts.Log, "evtool: acp replay: client message %d cancels session %s, which does not exist; ignored\n", n, sid.Str)
		return
	}
	if ss != nil {
		ss.hurryUp()
	}
}

// cancel marks the prompt cancelled and stops its turn if it runs. Called
// with s.mu held.
func (g *gate) cancel() {
	g.cancelled = true
	if g.hook != nil {
		g.hook()
	}
}

// hook installs the cancel of a prompt's turn; false if the prompt was
// already cancelled.
func (s *server) hook(g *gate, cancel context.CancelFunc) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if g.cancelled {
		return false
	}
	g.hook = cancel
	return true
}

func (s *server) unhook(g *gate) {
	s.mu.Lock()
	defer s.mu.Unlock()
	g.hook = nil
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
	_, err := s.out.write(b)
	return err
}

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
		case *event.UserMessage:
			if rec.title == "" {
				t, _, _ := strings.Cut(strings.TrimSpace(b.Text), "\n")
				rec.title = clip(strings.TrimSpace(t), 120)
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
	return rec, nil
}

func (s *server) config(session string, transcript bool) feedConfig {
	return feedConfig{open: s.open, name: s.opts.Name, from: s.opts.From, profile: s.opts.Profile, meta: s.opts.Meta,
		session: session, transcript: transcript, warn: func(m string) { fmt.Fprintf(s.opts.Log, "evtool: acp replay: %s\n", m) }}
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
	rec, err := s.recording()
	if err != nil {
		return nil, unreadable(err)
	}
	s.mu.Lock()
	old := s.sessions[id]
	if old == nil && id != rec.id {
		s.mu.Unlock()
		return nil, unknownSession(id)
	}
	ss := newSession(s, id)
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
