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
	"context"
	"io"
	"log/slog"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/evtool/evtool/adapters/acp"
	"github.com/evtool/evtool/dialect"
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
	// Library, when set, makes the server offer many past sessions rather
	// than one recording: open is not used, session/list lists the
	// library's sessions and session/load streams one; session/new is
	// refused (there is no recording to play turn by turn).
	Library Library
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

// recording is what the head of the recording says.
type recording struct {
	id    string // the first session's id
	cwd   string // its working directory, when absolute
	title string // its first user message, shortened
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
