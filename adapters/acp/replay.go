package acp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/evtool/evtool/ndjson"
	"github.com/tidwall/gjson"
)

// Script is a recorded run split into turns, as an ACP agent replays it.
type Script struct {
	Turns []Turn
}

// Turn is what the agent sends for one session/prompt: its updates and
// permission requests, in order, and the prompt's stop reason.
type Turn struct {
	Messages   []json.RawMessage
	StopReason string
}

// NewScript splits a transcript (the output of the encoder with
// "transcript" set) into turns. The client's side of it is dropped: a real
// client answers now.
func NewScript(transcript []byte) (*Script, error) {
	s := &Script{}
	rd := ndjson.NewReader(bytes.NewReader(transcript))
	var cur *Turn
	prompts := map[string]bool{}
	for {
		line, _, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		r := gjson.ParseBytes(line)
		method, id := r.Get("method").Str, r.Get("id")
		switch {
		case method == "session/prompt":
			s.Turns = append(s.Turns, Turn{})
			cur = &s.Turns[len(s.Turns)-1]
			prompts[id.Raw] = true
		case method != "" && cur != nil:
			cur.Messages = append(cur.Messages, append(json.RawMessage(nil), line...))
		case method == "" && prompts[id.Raw] && cur != nil:
			cur.StopReason = r.Get("result.stopReason").Str
		}
	}
	return s, nil
}

// Replay serves the script as an ACP agent over in and out (stdio). It
// answers initialize and session/new; on each session/prompt it sends the
// next recorded turn's updates, sends its permission requests and waits
// for their answers, then returns the turn's stop reason. It returns when
// in ends.
func (s *Script) Replay(in io.Reader, out io.Writer, sessionID string) error {
	msgs := make(chan []byte)
	errc := make(chan error, 1)
	go func() {
		rd := ndjson.NewReader(in)
		for {
			line, _, err := rd.Next()
			if err != nil {
				if err == io.EOF {
					err = nil
				}
				errc <- err
				close(msgs)
				return
			}
			msgs <- append([]byte(nil), line...)
		}
	}()
	w := bufio.NewWriter(out)
	send := func(b []byte) error {
		if _, err := w.Write(b); err != nil {
			return err
		}
		if err := w.WriteByte('\n'); err != nil {
			return err
		}
		return w.Flush()
	}
	respond := func(id string, result []byte) error {
		return send([]byte(`{"jsonrpc":"2.0","id":` + id + `,"result":` + string(result) + `}`))
	}
	fail := func(id string, code int, msg string) error {
		b, _ := json.Marshal(msg)
		return send([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%s}}`, id, code, b)))
	}
	next, reqID := 0, 0
	pending := map[string]bool{} // ids of our permission requests awaiting answers
	var backlog [][]byte         // messages that arrived while a turn was streaming
	for {
		var line []byte
		if len(backlog) > 0 {
			line, backlog = backlog[0], backlog[1:]
		} else {
			var ok bool
			if line, ok = <-msgs; !ok {
				return <-errc
			}
		}
		r := gjson.ParseBytes(line)
		method, id := r.Get("method").Str, r.Get("id")
		switch {
		case method == "initialize":
			err := respond(id.Raw, []byte(`{"protocolVersion":1,"agentCapabilities":{"loadSession":false,"promptCapabilities":{"image":false,"audio":false,"embeddedContext":false}},"authMethods":[],"agentInfo":{"name":"evtool","title":"evtool replay","version":"1"}}`))
			if err != nil {
				return err
			}
		case method == "authenticate":
			if err := respond(id.Raw, []byte(`{}`)); err != nil {
				return err
			}
		case method == "session/new":
			b, _ := json.Marshal(sessionID)
			if err := respond(id.Raw, []byte(`{"sessionId":`+string(b)+`}`)); err != nil {
				return err
			}
		case method == "session/prompt" && id.Exists():
			sid := r.Get("params.sessionId").Str
			reason, gone := "end_turn", false
			if next < len(s.Turns) {
				t := s.Turns[next]
				next++
				cancelled, err := s.play(t, sid, send, msgs, &reqID, pending, &backlog)
				if err != nil && !errors.Is(err, errClientGone) {
					return err
				}
				gone = errors.Is(err, errClientGone)
				if t.StopReason != "" {
					reason = t.StopReason
				}
				if cancelled {
					reason = "cancelled"
				}
			}
			if err := respond(id.Raw, []byte(`{"stopReason":"`+reason+`"}`)); err != nil {
				return err
			}
			if gone {
				return <-errc
			}
		case method == "session/cancel":
			// Nothing is streaming between prompts.
		case method != "" && id.Exists():
			if err := fail(id.Raw, -32601, "method not found: "+method); err != nil {
				return err
			}
		}
	}
}

// errClientGone means the client closed its input during a turn.
var errClientGone = errors.New("the client went away during a turn")

// play sends one turn. It reports whether the client cancelled it.
// Messages that are neither a cancel nor an awaited answer are kept in
// backlog for the main loop.
func (s *Script) play(t Turn, sid string, send func([]byte) error, msgs <-chan []byte, reqID *int, pending map[string]bool, backlog *[][]byte) (bool, error) {
	// handle looks at one incoming message during the turn and reports a cancel.
	handle := func(line []byte) bool {
		a := gjson.ParseBytes(line)
		switch {
		case a.Get("method").Str == "session/cancel":
			return true
		case !a.Get("method").Exists():
			// An answer; one that comes before its request (a scripted
			// client) is kept until the request is sent.
			if pending[a.Get("id").Raw] {
				delete(pending, a.Get("id").Raw)
			} else {
				pending["early:"+a.Get("id").Raw] = true
			}
		default:
			*backlog = append(*backlog, line)
		}
		return false
	}
	closed := false // the client closed its input; it may still read
	for _, m := range t.Messages {
		// A cancel may arrive at any point of the turn.
		for drained := closed; !drained; {
			select {
			case line, ok := <-msgs:
				if !ok {
					closed, drained = true, true
					break
				}
				if handle(line) {
					return true, nil
				}
			default:
				drained = true
			}
		}
		r := gjson.ParseBytes(m)
		var params map[string]json.RawMessage
		if err := json.Unmarshal([]byte(r.Get("params").Raw), &params); err != nil {
			return false, err
		}
		sidJSON, _ := json.Marshal(sid)
		params["sessionId"] = sidJSON
		p, err := marshalOrdered(r.Get("params"), params)
		if err != nil {
			return false, err
		}
		method := r.Get("method").Str
		if !r.Get("id").Exists() {
			if err := send([]byte(`{"jsonrpc":"2.0","method":"` + method + `","params":` + string(p) + `}`)); err != nil {
				return false, err
			}
			continue
		}
		// A request: send it with a fresh id and wait for its answer.
		*reqID++
		id := fmt.Sprint(*reqID)
		pending[id] = !pending["early:"+id]
		delete(pending, "early:"+id)
		if err := send([]byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `","params":` + string(p) + `}`)); err != nil {
			return false, err
		}
		for pending[id] {
			line, ok := <-msgs
			if !ok || closed {
				// No answer can come any more: the turn ends as cancelled.
				return true, errClientGone
			}
			if handle(line) {
				return true, nil
			}
		}
	}
	return false, nil
}

// marshalOrdered writes params with the keys in their recorded order.
func marshalOrdered(orig gjson.Result, vals map[string]json.RawMessage) ([]byte, error) {
	b := []byte{'{'}
	first := true
	var err error
	orig.ForEach(func(k, _ gjson.Result) bool {
		if !first {
			b = append(b, ',')
		}
		first = false
		kb, e := json.Marshal(k.Str)
		if e != nil {
			err = e
			return false
		}
		b = append(append(append(b, kb...), ':'), vals[k.Str]...)
		return true
	})
	return append(b, '}'), err
}

// SessionOf returns the session id a transcript's messages name.
func SessionOf(transcript []byte) string {
	rd := ndjson.NewReader(bytes.NewReader(transcript))
	for {
		line, _, err := rd.Next()
		if err != nil {
			return DefaultSessionID
		}
		if sid := gjson.GetBytes(line, "params.sessionId"); sid.Type == gjson.String {
			return sid.Str
		}
	}
}
