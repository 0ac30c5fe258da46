package replay

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"

	"github.com/evtool/evtool/adapters/acp"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/internal/jsonenc"
	"github.com/evtool/evtool/stream"
	"github.com/tidwall/gjson"
)

// kind classifies a message of a transcript.
type kind int

const (
	update   kind = iota // session/update notification
	ask                  // session/request_permission request
	prompt               // the client's session/prompt
	response             // the agent's answer to session/prompt
	answer               // the client's recorded answer to a permission request
	other                // anything else, passed over
)

// item is one message of the transcript a feed produces.
type item struct {
	kind kind
	id   string // its JSON-RPC id, raw
	msg  []byte // the whole message
}

// params returns the message's params, raw.
func (it *item) params() []byte { return field(it.msg, "params") }

// result returns the message's result, raw.
func (it *item) result() []byte { return field(it.msg, "result") }

func field(msg []byte, key string) []byte {
	r := gjson.GetBytes(msg, key)
	if !r.Exists() {
		return nil
	}
	if r.Index > 0 {
		return msg[r.Index : r.Index+len(r.Raw)]
	}
	return []byte(r.Raw)
}

// maxQueued bounds the bytes of transcript a feed holds ahead of its
// reader; one message of any size is always let through.
const maxQueued = 4 << 20

// feed converts a recording to ACP messages as they are read: a goroutine
// reads and encodes, a bounded queue hands the messages over. Memory stays
// bounded whatever the recording's length.
type feed struct {
	mu     sync.Mutex
	cond   *sync.Cond
	items  []item
	bytes  int
	closed bool  // the producer is done
	err    error // why, when it failed
	stop   bool  // the reader gave up: the producer stops
	peeked *item
}

// feedConfig says how to read and project the recording.
type feedConfig struct {
	open       Opener
	name       string
	from       dialect.Dialect
	profile    string
	meta       bool
	session    string
	transcript bool
	warn       func(string)
}

func startFeed(c feedConfig) *feed {
	f := &feed{}
	f.cond = sync.NewCond(&f.mu)
	go func() {
		err := f.produce(c)
		f.mu.Lock()
		f.closed, f.err = true, err
		f.cond.Broadcast()
		f.mu.Unlock()
	}()
	return f
}

var errStopped = errors.New("replay: the feed's reader stopped")

func (f *feed) produce(c feedConfig) error {
	rc, err := c.open()
	if err != nil {
		return err
	}
	defer rc.Close()
	to, err := dialect.Lookup(acp.Name)
	if err != nil {
		return err
	}
	sink := &lineSink{f: f}
	bw := bufio.NewWriterSize(sink, 64<<10)
	cfg := &acp.Config{Profile: c.profile, Meta: c.meta, Transcript: c.transcript}
	enc := dialect.KeepInPlace(to.NewEncoder(bw, dialect.EncodeOptions{Losses: &dialect.Losses{}, Defaults: dialect.Defaults{SessionID: c.session}, Config: cfg}))
	rd := stream.NewReader(rc, c.name, stream.Options{Dialect: c.from, Lookahead: true})
	notes, events := 0, 0
	for {
		// A closed feed stops here too, not only when it next queues a
		// message: a recording may go on long without one.
		if f.stopped() {
			return errStopped
		}
		ev, err := rd.Next()
		if err == io.EOF {
			break
		}
		var le *stream.LineError
		if errors.As(err, &le) {
			// A torn or broken line: skipped, with a warning for the
			// operator and a note for the user where the recording breaks.
			msg := le.Error()
			c.warn(msg + " (skipped)")
			if len(le.Diags) > 0 {
				msg = le.Diags[0].Message
			}
			notes++
			note := fmt.Sprintf("⚠ evtool: line %d of the recording could not be read and is skipped (%s); the recording may break off here.", le.Line, msg)
			if err = bw.Flush(); err == nil {
				err = f.push(classify(noteMessage(c.session, notes, note)))
			}
		} else if err != nil {
			return err
		} else {
			events++
			err = enc.Encode(ev)
		}
		if err == nil {
			err = bw.Flush()
		}
		if err != nil {
			return err
		}
	}
	if events == 0 && notes == 0 {
		// Nothing to replay (an empty file, blank lines only; a line that
		// cannot be read has its own note): the session is served, empty,
		// but not in silence.
		c.warn(c.name + ": the recording holds no event (it is empty, or blank lines only); the session replays as empty")
		if err := f.push(classify(noteMessage(c.session, 1, "⚠ evtool: the recording holds nothing to replay (it is empty, or blank lines only)."))); err != nil {
			return err
		}
	}
	if err := enc.Close(); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return sink.err
}

// noteMessage is a message of evtool's own to the user, as the agent's text.
func noteMessage(session string, n int, text string) []byte {
	b := jsonenc.String([]byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":`), session)
	b = append(b, `,"update":{"sessionUpdate":"agent_message_chunk","messageId":"evtool-note-`...)
	b = strconv.AppendInt(b, int64(n), 10)
	b = append(b, `","content":{"type":"text","text":`...)
	b = jsonenc.String(b, text)
	return append(b, "}}}}"...)
}

// lineSink splits the encoder's output into messages and queues them.
type lineSink struct {
	f    *feed
	part []byte // a message not yet ended
	err  error
}

func (s *lineSink) Write(b []byte) (int, error) {
	n := len(b)
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			s.part = append(s.part, b...)
			break
		}
		var line []byte
		if len(s.part) > 0 {
			line = append(s.part, b[:i]...)
			s.part = nil
		} else {
			line = append([]byte(nil), b[:i]...)
		}
		b = b[i+1:]
		if err := s.f.push(classify(line)); err != nil {
			s.err = err
			return n, err
		}
	}
	return n, nil
}

func classify(line []byte) item {
	r := gjson.ParseBytes(line)
	it := item{msg: line, kind: other}
	m := r.Get("method").Str
	id := r.Get("id")
	if id.Exists() {
		it.id = id.Raw
	}
	switch {
	case m == "session/update":
		it.kind = update
	case m == "session/request_permission":
		it.kind = ask
	case m == "session/prompt":
		it.kind = prompt
	case m == "" && r.Get("result.stopReason").Exists():
		it.kind = response
	case m == "" && r.Get("result.outcome").Exists():
		it.kind = answer
	}
	return it
}

func (f *feed) push(it item) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	for !f.stop && f.bytes > 0 && f.bytes+len(it.msg) > maxQueued {
		f.cond.Wait()
	}
	if f.stop {
		return errStopped
	}
	f.items = append(f.items, it)
	f.bytes += len(it.msg)
	f.cond.Broadcast()
	return nil
}

// next returns the next message, blocking until there is one; false at
// the end (err says whether the recording could be read to its end).
func (f *feed) next() (item, bool) {
	if f.peeked != nil {
		it := *f.peeked
		f.peeked = nil
		return it, true
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for len(f.items) == 0 && !f.closed {
		f.cond.Wait()
	}
	if len(f.items) == 0 {
		return item{}, false
	}
	it := f.items[0]
	f.items[0] = item{}
	f.items = f.items[1:]
	if len(f.items) == 0 {
		f.items = nil
	}
	f.bytes -= len(it.msg)
	f.cond.Broadcast()
	return it, true
}

// peek returns the next message without taking it.
func (f *feed) peek() (item, bool) {
	if f.peeked == nil {
		it, ok := f.next()
		if !ok {
			return item{}, false
		}
		f.peeked = &it
	}
	return *f.peeked, true
}

// failure returns why the producer stopped early, once it has.
func (f *feed) failure() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if errors.Is(f.err, errStopped) {
		return nil
	}
	return f.err
}

func (f *feed) stopped() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.stop
}

// close stops the producer.
func (f *feed) close() {
	f.mu.Lock()
	f.stop = true
	f.items, f.bytes = nil, 0
	f.cond.Broadcast()
	f.mu.Unlock()
}
