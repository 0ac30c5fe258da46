package replay

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/evtool/evtool/internal/jsonenc"
	"github.com/evtool/evtool/ndjson"
	"github.com/tidwall/gjson"
)

// The filter: the client's messages, read in the order they were sent,
// judged and passed on to the SDK (or answered here); and the writer, which
// tells the server of every answer written.

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

// maxIncoming bounds one client message: the ACP SDK's connection reads
// lines of less than 10 MiB, and a longer one ends its reading, after
// which nothing the client sends is answered. A longer message is answered
// here, and never reaches it.
const maxIncoming = 10<<20 - 1

// filter passes the client's well-formed messages to the SDK's connection
// and answers the others itself: a message that is not JSON gets -32700
// when its id can be read, a JSON value that is not a request object gets
// -32600. Either is reported to the log.
func (s *server) filter(in io.Reader, pw *io.PipeWriter) error {
	br := bufio.NewReaderSize(in, 64<<10)
	var line []byte
	n := 0
	long := false // the line is over maxIncoming: line keeps its head
	for {
		chunk, err := br.ReadSlice('\n')
		switch {
		case long:
		case len(line)+len(chunk) <= maxIncoming:
			line = append(line, chunk...)
		default:
			long = true
			line = append(line, chunk[:min(len(chunk), max(0, 64<<10-len(line)))]...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if long {
			n++
			if werr := s.tooLong(line, n); werr != nil {
				return werr
			}
		} else if len(line) > 0 || err == nil {
			n++
			if werr := s.judge(bytes.TrimSpace(line), n, pw); werr != nil {
				return werr
			}
		}
		line, long = line[:0], false
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
	if se := ndjson.Check(line); se != nil && se.Kind == ndjson.DuplicateKey {
		// A key twice ("id":3,"id":4) is read one way by the client's
		// JSON.parse (the last) and another by evtool's reading (the
		// first): a request that is not one request. Its id is unknown.
		fmt.Fprintf(s.opts.Log, "evtool: acp replay: client message %d has a key twice (%s at %s); answered -32600\n", n, se.Msg, orRoot(se.Pointer))
		return s.reply("null", -32600, "Invalid request", "a key appears twice in the message: "+se.Msg)
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
	if id.Exists() && id.Type == gjson.Null && r.Get("method").Exists() {
		// JSON-RPC 2.0 calls a message with "id": null a request (a
		// notification has no id member), and a request is answered. An
		// answer with id null cannot be told from another such request's,
		// so evtool refuses it rather than play it; it is not dropped
		// silently as a notification would be.
		fmt.Fprintf(s.opts.Log, "evtool: acp replay: client message %d is %s with id null; answered -32600\n", n, m)
		return s.reply("null", -32600, "Invalid request", "an id of null cannot be told from another request's: send a number or a string")
	}
	request := r.Get("method").Exists() && (id.Type == gjson.Number || id.Type == gjson.String)
	if !request && !id.Exists() && requests[m] {
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

// tooLong answers a client message longer than maxIncoming, of which head
// is the beginning: Invalid request, to its id when the head names one.
func (s *server) tooLong(head []byte, n int) error {
	id := gjson.GetBytes(head, "id")
	if id.Type != gjson.Number && id.Type != gjson.String {
		fmt.Fprintf(s.opts.Log, "evtool: acp replay: client message %d is longer than 10 MiB, the most an ACP connection reads; it has no id to answer, and is ignored\n", n)
		return nil
	}
	fmt.Fprintf(s.opts.Log, "evtool: acp replay: client message %d is longer than 10 MiB, the most an ACP connection reads; answered -32600\n", n)
	return s.reply(id.Raw, -32600, "Invalid request", "the message is longer than 10 MiB, the most an ACP connection reads")
}

// orRoot names the JSON Pointer p, the message itself when it is "".
func orRoot(p string) string {
	if p == "" {
		return "the top level"
	}
	return p
}
