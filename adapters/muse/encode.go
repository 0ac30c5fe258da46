package muse

import (
	"bufio"
	"encoding/json"

	"github.com/tidwall/gjson"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/jsonenc"
)

// render writes the record of ev (nil for a record carried as residue)
// with its residue, at time t ("" when unknown).
func (s *state) render(ev *event.Event, res residue, t string, b []byte) []byte {
	if len(res.Line) > 0 {
		return applyLayout(append(b, res.Line...), res.WS)
	}
	pt, cause := "", s.lastCause
	if ev != nil {
		pt, cause = payloadTypeOf(ev), ev.TurnID
	}
	env := record{env: s.deriveEnv(pt, cause, t, res.EOrder == "sorted")}
	env = res.apply(env) // the final envelope decides the payload's shape
	fpt, _ := env.env.get("payload_type")
	fcause, _ := env.env.get("causation_id")
	// Strings, or "" (a value of another type says nothing here).
	ptS, causeS := gjson.Parse(fpt).Str, gjson.Parse(fcause).Str
	derived := record{env: env.env, payload: s.derivePayload(ev, ptS, causeS, res.Task, res.TaskKind, res.Order == "sorted")}
	r := res.apply(derived)
	return applyLayout(r.render(b), res.WS)
}

// Encoder writes canonical events as muse records.
type Encoder struct {
	w    *bufio.Writer
	opts dialect.EncodeOptions
	st   *state
	buf  []byte
	tbuf []byte   // emitText's
	f    *foreign // state for events from other dialects
	// decided is set once the first event has said whether the stream
	// comes from muse.
	decided bool
}

func newEncoder(w *bufio.Writer, opts dialect.EncodeOptions) *Encoder {
	return &Encoder{w: w, opts: opts, st: newEncoderState()}
}

// museExt is ext.muse of a canonical event.
type museExt struct {
	Before []json.RawMessage `json:"before,omitempty"`
	residue
}

// Encode implements dialect.Encoder.
func (e *Encoder) Encode(ev *event.Event) error {
	if u, ok := ev.Body.(*event.Unknown); ok && u.Dialect == Name {
		if err := e.carried(ev); err != nil {
			return err
		}
		var x museExt
		if raw, ok := ev.Ext.Lookup(Name); ok {
			if err := parseMuseExt(raw, &x); err != nil {
				return err
			}
		}
		line, _ := compactLine(u.Raw)
		return e.emit(applyLayout(line, x.WS))
	}
	if !e.decided {
		e.decided = true
		if !e.native(ev) {
			e.f = newForeign(e)
		}
	}
	if e.f != nil {
		return e.f.encode(ev)
	}
	if b, ok := ev.Body.(*event.ToolFinished); ok {
		// The decoder finishes a call once (a synthetic finish too), so
		// no later record derives its provider call id.
		defer e.st.forgetTask(b.CallID)
	}
	if err := e.carried(ev); err != nil {
		return err
	}
	if s, ok := ev.Body.(*event.SessionStarted); ok && e.st.session == "" {
		e.st.session = s.SessionID
	}
	if ev.Synthetic || payloadTypeOf(ev) == "" {
		return nil // muse has no line for it: session_started/finished are synthesised from envelopes
	}
	var x museExt
	if raw, ok := ev.Ext.Lookup(Name); ok {
		if err := parseMuseExt(raw, &x); err != nil {
			return err
		}
	}
	if e.movesBack(ev, &x.residue) && e.opts.Losses != nil {
		e.opts.Losses.Add(lossRecordedAtMoved)
	}
	e.buf = e.st.render(ev, x.residue, ev.Time, e.buf[:0])
	return e.emit(e.buf)
}

// movesBack reports whether ev's record is stamped later than ev's own
// time: its time is before a record already written and its residue does
// not keep a recorded_at of its own (deriveEnv then holds the clock).
func (e *Encoder) movesBack(ev *event.Event, res *residue) bool {
	if len(res.Line) > 0 || res.Env["recorded_at"] != nil {
		return false
	}
	us, ok := microsOf(ev.Time)
	return ok && e.st.records > 0 && us < e.st.lastAt
}

// native reports, from the first event, whether the stream was read from
// muse: its session_started names muse as the source.
func (e *Encoder) native(ev *event.Event) bool {
	if s, ok := ev.Body.(*event.SessionStarted); ok {
		return s.Source.Dialect == Name
	}
	return ev.Ext.Get(Name) != nil
}

// carried writes the records an event carries in ext.muse.before.
func (e *Encoder) carried(ev *event.Event) error {
	raw, ok := ev.Ext.Lookup(Name)
	if !ok {
		return nil
	}
	var x museExt
	if err := parseMuseExt(raw, &x); err != nil {
		return err
	}
	for _, b := range x.Before {
		var r residue
		if err := parseResidue(b, &r); err != nil {
			return err
		}
		e.buf = e.st.render(nil, r, "", e.buf[:0])
		if err := e.emit(e.buf); err != nil {
			return err
		}
	}
	return nil
}

// emit writes one record and lets the state learn from it.
func (e *Encoder) emit(line []byte) error {
	e.learn(line)
	if _, err := e.w.Write(line); err != nil {
		return err
	}
	return e.w.WriteByte('\n')
}

// learn lets the state learn from a record.
func (e *Encoder) learn(line []byte) {
	compact, _ := compactLine(line)
	if r, _, ok := parseRecord(compact); ok {
		e.st.update(r)
	}
}

// emitText writes a record whose bytes [at, at+n) of line are a JSON
// string standing for text (in pieces), which is written in their place
// straight to the output. The state learns from line: what it keeps of a
// record does not come from such a text (a run.terminal's).
func (e *Encoder) emitText(line []byte, at, n int, text *answer) error {
	e.learn(line)
	if _, err := e.w.Write(line[:at]); err != nil {
		return err
	}
	var err, rerr error
	if e.tbuf, err = jsonenc.StringsTo(e.w, e.tbuf, text.pieces(&rerr)); err != nil {
		return err
	}
	if rerr != nil {
		return rerr
	}
	if _, err := e.w.Write(line[at+n:]); err != nil {
		return err
	}
	return e.w.WriteByte('\n')
}

// Close implements dialect.Encoder.
func (e *Encoder) Close() error {
	if e.f != nil {
		return e.f.close()
	}
	return nil
}
