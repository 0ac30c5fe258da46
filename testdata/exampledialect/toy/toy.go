// Package toy is a dialect written outside evtool: a stream of three kinds
// of line, {"toy":1,"kind":"start"|"say"|"end",...}. It registers itself,
// so that a program that imports it and calls cli.Run reads and writes
// toy streams like any of evtool's own.
package toy

import (
	"bufio"
	_ "embed"
	"fmt"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
	"github.com/tidwall/gjson"
)

// Name is the dialect's name on the command line.
const Name = "toy"

func init() { dialect.Register(Dialect{}) }

// Dialect is the toy dialect.
type Dialect struct{}

//go:embed toy.schema.json
var schemaJSON []byte

// Name implements dialect.Dialect.
func (Dialect) Name() string { return Name }

// Description implements dialect.Dialect.
func (Dialect) Description() string { return "a toy dialect written outside evtool" }

// Sniff implements dialect.Dialect: a toy line says "toy":1.
func (Dialect) Sniff(line []byte) bool { return gjson.GetBytes(line, "toy").Raw == "1" }

// Schema implements dialect.Dialect.
func (Dialect) Schema() []byte { return schemaJSON }

// The rules of a toy stream.
const (
	RuleFirstLine = "toy/first-line"
	RuleAfterEnd  = "toy/after-end"
	RuleTruncated = "toy/truncated"
)

// Rules implements dialect.RuleLister.
func (Dialect) Rules() []dialect.Rule {
	return []dialect.Rule{
		dialect.ErrorRule(RuleFirstLine, "the first line is a start"),
		dialect.ErrorRule(RuleAfterEnd, "nothing follows the end"),
		dialect.WarningRule(RuleTruncated, "the stream ends with an end"),
	}
}

// LossDropped is what the writer cannot say: any event but a start, a
// whole message and an end.
var LossDropped = dialect.DropKind("toy/event", "%[1]s event", "%[1]s events", "toy has no such line")

// LossStart is the start a stream without one is given.
var LossStart = dialect.SynthesizeKind("toy/start", "start line", "start lines", "a toy stream begins with a start")

// LossAfterEnd is an event after the stream's end, which toy cannot say.
var LossAfterEnd = dialect.DropKind("toy/after-end", "event after the end", "events after the end", "nothing follows a toy end")

// LossKinds implements dialect.LossLister.
func (Dialect) LossKinds() []*dialect.LossKind {
	return []*dialect.LossKind{LossDropped, LossStart, LossAfterEnd}
}

// NewDecoder implements dialect.Dialect.
func (Dialect) NewDecoder(dialect.DecodeOptions) dialect.Decoder { return decoder{} }

type decoder struct{}

// Error is a field that does not fit, at its JSON pointer.
type Error struct{ Pointer, Msg string }

func (e *Error) Error() string { return e.Pointer + ": " + e.Msg }

// Position returns the JSON pointer of the offending value.
func (e *Error) Position() string { return e.Pointer }

func (decoder) Decode(out []*event.Event, line []byte, n int) ([]*event.Event, error) {
	r := gjson.ParseBytes(line)
	if !r.IsObject() {
		return out, &Error{"", "got " + r.Type.String() + ", want an object"}
	}
	str := func(k string) (string, error) {
		v := r.Get(k)
		if v.Exists() && v.Type != gjson.String {
			return "", &Error{"/" + k, "got " + v.Type.String() + ", want a string"}
		}
		return v.Str, nil
	}
	kind, err := str("kind")
	if err != nil {
		return out, err
	}
	switch kind {
	case "start":
		s, err := str("session")
		if err != nil {
			return out, err
		}
		return append(out, &event.Event{Body: &event.SessionStarted{Schema: 1, Source: event.SourceInfo{Dialect: Name}, SessionID: s}}), nil
	case "say":
		s, err := str("text")
		if err != nil {
			return out, err
		}
		return append(out, &event.Event{Body: &event.Message{Text: s}}), nil
	case "end":
		s, err := str("status")
		if err != nil {
			return out, err
		}
		return append(out, &event.Event{Body: &event.SessionFinished{Status: event.Status(s)}}), nil
	}
	return append(out, &event.Event{Body: &event.Unknown{Dialect: Name, SourceType: kind, Raw: append([]byte(nil), line...)}}), nil
}

func (decoder) End(out []*event.Event) []*event.Event { return out }

// NewEncoder implements dialect.Dialect.
func (Dialect) NewEncoder(w *bufio.Writer, opts dialect.EncodeOptions) dialect.Encoder {
	return &encoder{w: w, losses: opts.Losses}
}

type encoder struct {
	w              *bufio.Writer
	losses         *dialect.Losses
	started, ended bool
}

func (e *encoder) line(format string, args ...any) {
	fmt.Fprintf(e.w, `{"toy":1,"kind":`+format+"}\n", args...)
}

func (e *encoder) Encode(ev *event.Event) error {
	if _, ok := ev.Body.(*event.SessionStarted); !ok && !e.started {
		e.line(`"start","session":""`)
		e.losses.Add(LossStart)
		e.started = true
	}
	if e.ended {
		e.losses.Add(LossAfterEnd)
		return nil
	}
	switch b := ev.Body.(type) {
	case *event.SessionStarted:
		e.started = true
		e.line(`"start","session":%s`, quote(b.SessionID))
	case *event.Message:
		e.line(`"say","text":%s`, quote(b.Text))
	case *event.SessionFinished:
		e.ended = true
		e.line(`"end","status":%s`, quote(string(b.Status)))
	case *event.Unknown:
		if b.Dialect == Name {
			e.w.Write(b.Raw)
			e.w.WriteByte('\n')
			return nil
		}
		e.losses.AddDetail(LossDropped, string(ev.Type()))
	default:
		e.losses.AddDetail(LossDropped, string(ev.Type()))
	}
	return nil
}

func (e *encoder) Close() error { return nil }

func quote(s string) string {
	b, _ := jsonMarshal(s)
	return string(b)
}

// NewChecker implements dialect.Dialect.
func (Dialect) NewChecker(dialect.CheckOptions) dialect.Checker { return &checker{} }

type checker struct{ ended int }

func (c *checker) Line(line []byte, n int, report func(dialect.Finding)) {
	r := dialect.Reporter{Line: n, Report: report}
	kind := gjson.GetBytes(line, "kind").Str
	switch {
	case n == 1 && kind != "start":
		r.Errorf("/kind", RuleFirstLine, "the first line is %q, want start", kind)
	case c.ended > 0:
		r.Errorf("/kind", RuleAfterEnd, "%s after the end on line %d", kind, c.ended)
	}
	if kind == "end" && c.ended == 0 {
		c.ended = n
	}
}

func (c *checker) End(last int, report func(dialect.Finding)) {
	if c.ended == 0 {
		dialect.Reporter{Line: last, Report: report}.Warnf("", RuleTruncated, "the stream ends without an end")
	}
}
