// Package canonical reads and writes evtool's own canonical stream, the
// model of package event serialised as NDJSON.
package canonical

import (
	"bufio"
	_ "embed"
	"strconv"
	"strings"

	"github.com/evtool/evtool/adapters/internal/check"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/idset"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/tidwall/gjson"
)

// Name is the dialect's name.
const Name = "canonical"

func init() { dialect.Register(Dialect{}) }

// Dialect is the canonical dialect.
type Dialect struct{ dialect.Described[Dialect] }

// About implements dialect.Describer.
func (Dialect) About() dialect.About {
	return dialect.About{
		Name:        Name,
		Description: "evtool's canonical event model, version 1",
		Schema:      schemaJSON,
		Rules:       &rules,
	}
}

//go:embed canonical.schema.json
var schemaJSON []byte

// Sniff accepts a session_started line with a source object.
func (Dialect) Sniff(line []byte) bool {
	r := jsonobj.View(line) // read in place: a sniffer keeps nothing, and a first line may be huge
	return r.Get("type").Str == string(event.TypeSessionStarted) && r.Get("source").IsObject()
}

// NewDecoder implements dialect.Dialect.
func (Dialect) NewDecoder(dialect.DecodeOptions) dialect.Decoder { return &decoder{} }

// NewEncoder implements dialect.Dialect.
func (Dialect) NewEncoder(w *bufio.Writer, opts dialect.EncodeOptions) dialect.Encoder {
	return &Encoder{w: w}
}

// NewChecker implements dialect.Dialect.
func (Dialect) NewChecker(dialect.CheckOptions) dialect.Checker { return newChecker() }

type decoder struct {
	jsonobj.OwnLine // a long line is read in place (UseOwn)
}

// A DecodeError is a canonical value that does not fit the model.
type DecodeError = event.FieldError

func (d *decoder) Decode(out []*event.Event, line []byte, _ int) ([]*event.Event, error) {
	ev, err := event.ParseOwn(line, d.Own())
	if err != nil {
		return out, err
	}
	return append(out, ev), nil
}

func (*decoder) End(out []*event.Event) []*event.Event { return out }

// Encoder writes canonical lines. It numbers them from 0 in output order,
// whatever seq the events carried.
type Encoder struct {
	w   *bufio.Writer
	seq uint64
	buf []byte
}

// Encode implements dialect.Encoder.
func (e *Encoder) Encode(ev *event.Event) error {
	ev.Seq = e.seq
	// A long text goes straight to the output (event.Write), so a line
	// is in memory once, in the event, not again in buf.
	b, err := event.Write(e.w, e.buf, ev)
	if cap(b) <= maxKeptBuf {
		e.buf = b
	} else {
		e.buf = nil // a line's worth of escapes: not kept for the next
	}
	if err != nil {
		return err
	}
	e.seq++
	return nil
}

// maxKeptBuf is the largest line buffer an Encoder keeps for the next.
const maxKeptBuf = 1 << 20

// Close implements dialect.Encoder.
func (e *Encoder) Close() error { return nil }

// rules is the catalogue of the canonical stream rules, in the order
// `evtool rules` and docs/rules.md list them.
var rules dialect.RuleSet

var (
	ruleFirstLine        = rules.Error("canonical/first-line", "the first line is session_started")
	ruleStartedRepeated  = rules.Error("canonical/session-started-repeated", "session_started appears only as the first line")
	ruleAfterFinish      = rules.Error("canonical/after-finish", "nothing but unknown events (lines kept from outside the producer's stream) follows session_finished")
	ruleTruncated        = rules.Error("canonical/truncated", "the stream ends with session_finished; without it the stream is truncated")
	ruleSeqContiguous    = rules.Error("canonical/seq-contiguous", "seq is 0 on the first line and +1 on every line")
	ruleToolNotCalled    = rules.Error("canonical/tool-not-called", "tool_started, tool_progress, tool_output and tool_finished follow the call's tool_call")
	ruleToolCalledTwice  = rules.Error("canonical/tool-called-twice", "a call id has one tool_call")
	ruleToolClosed       = rules.Error("canonical/tool-closed", "nothing happens to a tool call after its tool_finished")
	ruleTurnNotStarted   = rules.Error("canonical/turn-not-started", "turn_finished follows its turn_started")
	ruleTurnClosed       = rules.Error("canonical/turn-closed", "a turn finishes once")
	rulePermNotRequested = rules.Error("canonical/permission-not-requested", "permission_resolved answers a permission_requested of the same request_id")
	rulePermClosed       = rules.Error("canonical/permission-resolved-twice", "a permission request is resolved at most once")
	ruleUnknownField     = rules.Unknown("canonical/unknown-field", "every field is known for its type (error under --strict)")
)

// checker keeps the open calls, turns and requests by id; a closed one
// leaves only its id's digest behind (see idset).
type checker struct {
	check.Frame
	next   uint64
	tools  ids                            // calls: open until tool_finished
	turns  ids                            // turns: open until turn_finished
	perms  ids                            // requests: open until permission_resolved
	fields map[event.Type]map[string]bool // event.Fields of the known types met
}

// ids are the open and the closed ids of one kind of item, named by one
// field. An id may be opened again after it closed (a second
// turn_started, say): the open set is asked first.
type ids struct {
	field  string
	open   map[string]struct{}
	closed idset.Set
	// unseen and again are the rules an event breaks that names an id
	// never opened, or closed already; their messages are formats of the
	// event's type and the id.
	unseen, again       *dialect.Rule
	unseenMsg, againMsg string
}

func newIDs(field string, unseen *dialect.Rule, unseenMsg string, again *dialect.Rule, againMsg string) ids {
	return ids{field: field, open: map[string]struct{}{}, unseen: unseen, unseenMsg: unseenMsg, again: again, againMsg: againMsg}
}

func (s *ids) isOpen(id string) bool { _, ok := s.open[id]; return ok }

// state says whether id is known, and whether it is closed.
func (s *ids) state(id string) (seen, closed bool) {
	if s.isOpen(id) {
		return true, false
	}
	if s.closed.Has(id) {
		return true, true
	}
	return false, false
}

// check reports an event of type typ about id if the id was never opened
// or is closed already, and says which.
func (s *ids) check(rep dialect.Reporter, typ event.Type, id string) (seen, closed bool) {
	seen, closed = s.state(id)
	switch {
	case !seen:
		rep.Reportf(s.unseen, "/"+s.field, s.unseenMsg, typ, id)
	case closed:
		rep.Reportf(s.again, "/"+s.field, s.againMsg, typ, id)
	}
	return seen, closed
}

func (s *ids) add(id string) {
	if !s.isOpen(id) {
		s.open[strings.Clone(id)] = struct{}{} // a gjson string shares the line's memory
	}
}

func (s *ids) close(id string) {
	delete(s.open, id)
	s.closed.Add(id, 0)
}

func newChecker() *checker {
	return &checker{
		// An unknown event keeps a line that is no part of the producer's
		// stream (stderr merged into stdout often has one after the
		// producer's last line): it may stand after the end.
		Frame: check.Frame{
			Start: string(event.TypeSessionStarted), End: string(event.TypeSessionFinished), Trailer: string(event.TypeUnknown),
			FirstLine: ruleFirstLine, Repeated: ruleStartedRepeated, After: ruleAfterFinish, Truncated: ruleTruncated,
		},
		tools:  newIDs("call_id", ruleToolNotCalled, "%s for %q before its tool_call", ruleToolClosed, "%s for %q after its tool_finished"),
		turns:  newIDs("turn_id", ruleTurnNotStarted, "%s for %q, which never started", ruleTurnClosed, "turn %[2]q finished twice"),
		perms:  newIDs("request_id", rulePermNotRequested, "%s for %q, which was never requested", rulePermClosed, "permission request %[2]q resolved twice"),
		fields: map[event.Type]map[string]bool{},
	}
}

func (c *checker) Line(line []byte, n int, report func(dialect.Finding)) {
	r, rep, ok := c.Read(line, n, report)
	if !ok {
		return
	}
	typ := event.Type(r.Get("type").Str)
	c.Place(rep, string(typ))
	if v := r.Get("seq"); v.Type == gjson.Number {
		if s, err := strconv.ParseUint(v.Raw, 10, 64); err == nil {
			if s != c.next {
				rep.Reportf(ruleSeqContiguous, "/seq", "seq is %d, want %d (0-based, +1 per line)", s, c.next)
			}
			c.next = s + 1
		}
	}
	known, ok := c.fields[typ]
	if !ok {
		if known, ok = event.Fields(typ); !ok {
			return // the schema reports the type
		}
		c.fields[event.Type(strings.Clone(string(typ)))] = known
	}
	check.Keys(rep, ruleUnknownField, r, "", func(k string) bool { return known[k] }, "unknown field %q on %s", typ)
	call := r.Get("call_id").Str
	switch typ {
	case event.TypeToolCall:
		if seen, _ := c.tools.state(call); seen {
			rep.Reportf(ruleToolCalledTwice, "/call_id", "a second tool_call for %q", call)
		} else {
			c.tools.add(call)
		}
	case event.TypeToolStarted, event.TypeToolProgress, event.TypeToolOutput, event.TypeToolFinished:
		// Only a call's own tool_finished closes it: one for a call never
		// made leaves the id free for its tool_call.
		if seen, done := c.tools.check(rep, typ, call); typ == event.TypeToolFinished && seen && !done {
			c.tools.close(call)
		}
	case event.TypeTurnStarted:
		c.turns.add(r.Get("turn_id").Str)
	case event.TypeTurnFinished:
		id := r.Get("turn_id").Str
		c.turns.check(rep, typ, id)
		c.turns.close(id)
	case event.TypePermissionRequest:
		if id := r.Get("request_id").Str; id != "" {
			c.perms.add(id)
		}
	case event.TypePermissionResolved:
		if id := r.Get("request_id").Str; id != "" {
			c.perms.check(rep, typ, id)
			c.perms.close(id)
		}
	}
}

func (c *checker) End(last int, report func(dialect.Finding)) {
	if !c.Empty(report) {
		c.Complete(last, report)
	}
}
