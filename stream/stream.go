// Package stream is evtool's one reading of a stream: framing, the syntax
// check, dialect detection, the schema check and decoding happen here, once
// per line, for every command and every library user.
//
// A Reader gives a line one verdict. Whatever is wrong inside it (its
// syntax, UTF-8, a duplicated key, its depth, a type, a range, an enum, a
// missing field, an integer written as a fraction) is found by the Reader
// and reported as diagnostics of that line, the same for `evtool validate`
// and `evtool convert`. Stream rules (order, pairing) are the business of
// the dialect's Checker, which validate runs on top.
//
// Next is the pull API, in the manner of json.Decoder:
//
//	rd := stream.NewReader(f, "run.jsonl", stream.Options{})
//	for {
//		ev, err := rd.Next()
//		if err == io.EOF {
//			break
//		}
//		var le *stream.LineError
//		if errors.As(err, &le) {
//			log.Print(le) // a bad line; the stream goes on
//			continue
//		}
//		if err != nil {
//			return err
//		}
//		use(ev)
//	}
package stream

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/evtool/evtool/diag"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/jsonptr"
	"github.com/evtool/evtool/ndjson"
	"github.com/tidwall/gjson"
)

// Rule ids of the problems the Reader finds in a line itself, beside each
// dialect's "<dialect>/schema" and "<dialect>/decode".
const (
	RuleSyntax       = "json/syntax"
	RuleUTF8         = "json/utf8"
	RuleDuplicateKey = "json/duplicate-key"
	RuleDepth        = "json/depth"
	RuleLineLength   = "json/line-length"
	RuleMismatch     = "stream/dialect-mismatch"
	RuleUndetected   = "stream/undetected"
	RuleInput        = "stream/input"
	RuleForeign      = "stream/foreign-line"
)

// Rules lists the rules of the reading itself.
func Rules() []diag.Rule {
	return []diag.Rule{
		{ID: RuleSyntax, Severity: diag.Error, Summary: "a line must hold exactly one JSON value"},
		{ID: RuleUTF8, Severity: diag.Error, Summary: "a line must be UTF-8"},
		{ID: RuleDuplicateKey, Severity: diag.Error, Summary: "no key may appear twice in one object"},
		{ID: RuleDepth, Severity: diag.Error, Summary: fmt.Sprintf("objects and arrays nest at most %d deep", ndjson.DefaultMaxDepth)},
		{ID: RuleLineLength, Severity: diag.Error, Summary: "a line is at most --max-line-bytes long (256 MiB by default); a longer one is skipped"},
		{ID: RuleMismatch, Severity: diag.Error, Summary: "the named dialect must fit the stream's first line"},
		{ID: RuleUndetected, Severity: diag.Error, Summary: "without a named dialect, the first JSON line must be of a known one"},
		{ID: RuleInput, Severity: diag.Error, Summary: "the input is UTF-8 text, plain or gzip or zstd compressed: not UTF-16, binary data or another compression"},
		{ID: RuleForeign, Severity: diag.Warning, Unknown: true, Summary: "a JSON line before the line that tells the dialect is of no dialect: a line of a type evtool does not know, or a wrapper's log line; validate reports it (it is kept as an unknown event)"},
	}
}

// SchemaRule returns the rule id of a dialect's schema errors.
func SchemaRule(d dialect.Dialect) string { return d.Name() + "/schema" }

// DecodeRule returns the rule id of values a dialect's schema accepts and
// the producer's types do not (an integer written as 1.0, say).
func DecodeRule(d dialect.Dialect) string { return d.Name() + "/decode" }

// Options configure a Reader.
type Options struct {
	// Dialect is the stream's dialect; nil detects it from the first line
	// that is JSON.
	Dialect dialect.Dialect
	// Provenance makes every event carry its source line in Src.
	Provenance bool
	// MaxDepth bounds nesting in a line; 0 means ndjson.DefaultMaxDepth.
	MaxDepth int
	// MaxLineBytes refuses longer lines: each is reported (rule
	// json/line-length) and skipped without being held in memory, and the
	// reading goes on. 0 means DefaultMaxLineBytes; negative, no limit.
	MaxLineBytes int
	// Workers is how many goroutines check lines (their syntax and schema)
	// ahead of decoding, which stays in the caller's goroutine and in input
	// order. 0 or 1 reads everything in the caller's goroutine. Whatever the
	// number, every line gets the same verdict and the same events. With
	// workers, read to io.EOF or call Close.
	Workers int
	// Lookahead lets the decoder hold events back until a later line names
	// a fact they need (see dialect.DecodeOptions). NewReader sets it when
	// r is a regular file; a live pipe is read without it.
	Lookahead bool
	// KeepLines makes the workers' batches of lines new memory rather than
	// reused buffers, so that the Raw of a line read by them (Line.Kept)
	// stays valid after the next ReadLine: a caller that hands lines to
	// another goroutine need not copy each one.
	KeepLines bool
	// Summary says the caller sums the events up (tokens, costs, times,
	// models, tool calls by name, kind and status, as package stats does)
	// and reads none of their texts. An unknown event then keeps no copy
	// of its line, and a decoder that can (claude-transcript's) leaves out
	// of its events the text of messages, reasoning and prompts (but the
	// first prompt's, a session's title: stats.Run.Prompt), tool
	// inputs, outputs and titles, and the residues of its lines (what ext
	// holds of a line's envelope), rather than unescape and copy them.
	// Every line is checked and judged as without it (the same
	// diagnostics, the same verdict), and the events are the same in
	// number, type, order, time, ids, names, kinds, statuses, models and
	// usage, with the ext of a round's usage. Such events are for
	// counting, not for writing out.
	Summary bool
	// VerdictsOnly says the caller reads the lines' verdicts and
	// diagnostics and no event (as package validate does). It implies
	// Summary, and a decoder that can (claude's, codex's, muse's and
	// opencode's) also leaves out the residues of its lines: what a line
	// holds beyond its events, found by writing the events back and
	// comparing, a sixth to a third of those decoders' time. Every line
	// is checked and judged as without it; the events are not to be
	// read.
	VerdictsOnly bool
}

// DefaultMaxLineBytes is the longest line a Reader accepts by default.
const DefaultMaxLineBytes = 256 << 20

// Line is one non-blank line of the input and what the Reader made of it.
type Line struct {
	N   int    // 1-based physical line number
	Raw []byte // the line without its terminator; valid until the next ReadLine
	// JSON reports whether the line is one acceptable JSON value; if not,
	// Diags says why and nothing was decoded.
	JSON bool
	// Diags are the problems of the line itself, sorted by column.
	Diags []diag.Diagnostic
	// Kept reports that Raw stays valid after the next ReadLine, as it
	// does for a line the workers read with Options.KeepLines.
	Kept bool
	// Term is the terminator the line had in the input: ndjson.LF,
	// ndjson.CRLF, ndjson.CR, or "" for a last line that ends without
	// one. BOM is set on the first line when the input began with a UTF-8
	// byte order mark. Raw has neither; with them the line can be written
	// back byte for byte.
	Term string
	BOM  bool
	// Depth is how deep objects and arrays nest in a JSON line: a writer
	// that nests its values deeper than they came must stay under the
	// limit its reader holds to (ndjson.DefaultMaxDepth).
	Depth int
	// Foreign marks a JSON line read before the stream's dialect was told
	// that no dialect sniffs: a wrapper's log line before the producer's
	// first line. It is judged and decoded as a line of the stream's
	// dialect (its problems reported where it stands), but it is no part
	// of the producer's stream, so stream rules pass it over.
	Foreign bool
	// Events are what the line decodes to. A line with diagnostics may
	// still have events: whatever could be read of it, or, for an object
	// its decoder cannot read, an unknown event that keeps it whole.
	Events []*event.Event

	// own: Raw is a buffer of its own that nothing writes again (ownTaker).
	own bool
	// index is the line's structure as the syntax check found it, for
	// the schema check and a decoder that takes its members
	// (memberTaker); empty when none was kept.
	index ndjson.Index
}

// ownAfter is the length past which the simple path takes a line's
// buffer from the ndjson reader (the workers' path does past batchBytes).
const ownAfter = batchBytes

// OK reports whether the line has no diagnostics.
func (l *Line) OK() bool { return len(l.Diags) == 0 }

// LineError is a line with problems, as Next reports it. The stream goes
// on after it.
type LineError struct {
	Line  int
	Diags []diag.Diagnostic // at least one
	// Torn: the line is the last, without a newline, and not JSON: a
	// producer still writing it, or one that stopped mid-line.
	Torn bool
}

func (e *LineError) Error() string {
	msgs := make([]string, len(e.Diags))
	for i, d := range e.Diags {
		msgs[i] = d.String()
	}
	return strings.Join(msgs, "\n")
}

// StreamError is a problem that ends the reading of a stream: it cannot
// be read on, or it is not of a dialect evtool can name.
type StreamError struct {
	diag.Diagnostic
	// Usage is set when the fix is in the command line (name the dialect).
	Usage bool
	Err   error
}

func (e *StreamError) Error() string { return e.Diagnostic.String() }
func (e *StreamError) Unwrap() error { return e.Err }

// ErrUndetected means no dialect accepts the stream's first JSON line.
var ErrUndetected = errors.New("cannot tell the dialect from the first line; name it")

// ErrEmpty means a stream has no line to tell its dialect from, and none
// was named: a caller that sums streams up reports it rather than count
// an empty run.
var ErrEmpty = errors.New("the stream is empty and no --dialect was given")

// ErrMismatch means the first JSON line is of another dialect than the one named.
var ErrMismatch = errors.New("the stream is not of the named dialect")

// Reader reads one stream.
type Reader struct {
	file string
	opts Options
	src  io.Reader      // the input, until the first line is read
	nd   *ndjson.Reader // the lines: set once the input's first bytes were looked at
	unz  io.Closer      // the decompressor of a compressed input
	// maxLine is the line-length limit handed to nd; 0: none.
	maxLine int
	d       dialect.Dialect
	dec     dialect.Decoder
	sch     *lineSchema
	line    Line
	lines   int
	// sawJSON is set once a line was JSON: the first such line decides
	// whether a named dialect fits.
	sawJSON bool
	err     error // sticky: io.EOF, a read error or a StreamError

	// Lines read before the dialect could be told. A line of JSON that no
	// dialect sniffs (a wrapper's log line, say) may stand before a
	// stream's first line, as a banner that is not JSON does: it is held,
	// with every line after it, until a line tells the dialect, and then
	// each is judged as that dialect's line, in input order (queue). A
	// stream no line of which tells the dialect within the bound is
	// undetected at its first such line, as before.
	held      []heldLine
	heldBytes int
	queue     []heldLine

	// Next's state.
	pending []*event.Event
	next    int // the next of pending to return
	ended   bool

	dupOK func(string) bool // the dialect's known repeated keys
	// taker is the decoder when it takes a line's members, and idxBuf
	// the index of the simple path's line.
	taker memberTaker
	// ownTaker is the decoder when it reads a line of its own in place.
	ownTaker ownTaker
	idxBuf   ndjson.Index

	read int64     // input bytes read on the simple path
	par  *pipeline // the workers, once started
}

// heldLine is a line read before the dialect could be told, in memory of
// its own.
type heldLine struct {
	n     int
	raw   []byte
	json  bool
	diags []diag.Diagnostic
	term  string
	bom   bool
	depth int
}

// The bound on lines held before the dialect is told: enough for any
// banner or log a wrapper prints before a producer's first line, and
// little enough that an undetectable stream is refused soon.
const (
	maxHeldLines = 64
	maxHeldBytes = 4 << 20
)

// Whole is implemented by a reader of an input that is whole when it is
// read, as a regular file is, though it is no *os.File: a session a store
// reads from files or a database on disk. Whole reports whether it is.
type Whole interface {
	Whole() bool
}

// RegularFile reports whether r is a regular file, whole on disk rather
// than a live pipe, or a Whole reader that says it is whole: a Reader of
// one decodes with Lookahead. A caller that wraps a file in a reader of
// its own asks this of the file first.
func RegularFile(r io.Reader) bool {
	if w, ok := r.(Whole); ok && w.Whole() {
		return true
	}
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode().IsRegular()
}

// NewReader returns a Reader of r; file names it in diagnostics.
func NewReader(r io.Reader, file string, opts Options) *Reader {
	if !opts.Lookahead {
		opts.Lookahead = RegularFile(r)
	}
	// The input is not read here: its first bytes are looked at when its
	// first line is asked for (open).
	rd := &Reader{file: file, opts: opts, src: r}
	switch {
	case opts.MaxLineBytes == 0:
		rd.maxLine = DefaultMaxLineBytes
	case opts.MaxLineBytes > 0:
		rd.maxLine = opts.MaxLineBytes
	}
	if opts.Dialect != nil {
		if err := rd.setDialect(opts.Dialect); err != nil {
			rd.err = err
		}
	}
	return rd
}

// Dialect returns the stream's dialect, once it is named or detected.
func (r *Reader) Dialect() dialect.Dialect { return r.d }

// Lines returns the number of non-blank lines read so far.
func (r *Reader) Lines() int { return r.lines }

// Buffered reports how many input bytes are read but not yet returned, so
// that a writer can flush when a live producer has nothing more to say.
func (r *Reader) Buffered() int {
	if r.par != nil {
		return r.par.buffered()
	}
	if r.nd == nil {
		return 0
	}
	return r.nd.Buffered()
}

// Close stops the workers of a Reader that has them. A Reader read to the
// end, or to an error that ends the stream, has stopped them already.
func (r *Reader) Close() error {
	if r.par != nil {
		r.par.close()
	}
	if r.unz != nil && r.par == nil {
		// With workers, the reading goroutine may still be inside the
		// decompressor; the garbage collector has it then.
		r.unz.Close()
		r.unz = nil
	}
	return nil
}

// fail makes err the Reader's sticky error and stops its workers.
func (r *Reader) fail(err error) error {
	r.err = err
	r.Close()
	return err
}

func (r *Reader) setDialect(d dialect.Dialect) error {
	sch, err := compiled(d)
	if err != nil {
		return err
	}
	r.d, r.sch = d, sch
	r.dupOK = nil
	if dk, ok := d.(dialect.DuplicateKeyer); ok {
		allowed := map[string]bool{}
		for _, p := range dk.DuplicateKeys() {
			allowed[p] = true
		}
		r.dupOK = func(ptr string) bool { return allowed[ptr] }
	}
	r.dec = d.NewDecoder(dialect.DecodeOptions{Provenance: r.opts.Provenance, Lookahead: r.opts.Lookahead})
	if sm, ok := r.dec.(summarizer); ok && (r.opts.Summary || r.opts.VerdictsOnly) {
		sm.Summarize()
	}
	if vo, ok := r.dec.(verdictsOnly); ok && r.opts.VerdictsOnly {
		vo.VerdictsOnly()
	}
	r.taker, _ = r.dec.(memberTaker)
	r.ownTaker, _ = r.dec.(ownTaker)
	return nil
}

// ReadLine reads and judges the next non-blank line. At the end of the
// input it returns io.EOF; End then returns what the end implies. Any
// other error ends the stream: a read error, or a *StreamError when the
// dialect cannot be told or is not the one named.
func (r *Reader) ReadLine() (*Line, error) {
	for {
		if len(r.queue) > 0 {
			return r.unqueue(), nil
		}
		l, err := r.readLine()
		if err == io.EOF && len(r.held) > 0 {
			return nil, r.fail(r.undetected())
		}
		if l != nil || err != nil {
			return l, err
		}
		// The line was held: read on.
	}
}

// readLine reads and judges one line, or holds it (nil, nil) while the
// dialect cannot be told yet.
func (r *Reader) readLine() (*Line, error) {
	if r.err != nil {
		return nil, r.err
	}
	if r.nd == nil {
		if err := r.open(); err != nil {
			return nil, r.fail(err)
		}
	}
	if r.par == nil && r.opts.Workers > 1 && r.d != nil && len(r.queue) == 0 && r.read >= parallelThreshold {
		r.startPipeline()
	}
	var (
		raw  []byte
		n    int
		pl   *pline // the workers' verdict on the line, in parallel reading
		err  error
		term string
		bom  bool
	)
	own := false
	if r.par != nil {
		raw, pl, err = r.par.next()
		if err == nil {
			n, term = pl.n, pl.term
			own = r.par.cur.owned
		}
	} else {
		raw, n, err = r.nd.Next()
		r.read += int64(len(raw)) + 1
		term, bom = r.nd.Term(), r.nd.BOM()
		// A long line's buffer is taken from the reader, which makes a new
		// one for the next long line: the decoder need not copy it.
		own = err == nil && len(raw) > ownAfter && r.ownTaker != nil && r.nd.Take(raw)
	}
	var tl *ndjson.LineTooLongError
	if pl != nil && pl.tooLong != nil {
		tl = pl.tooLong
	} else if err != nil {
		tl = tooLong(err)
		if tl != nil {
			err = nil
		}
	}
	if err != nil {
		if err != io.EOF {
			err = r.readError(err)
		}
		return nil, r.fail(err)
	}
	r.lines++
	l := &r.line
	*l = Line{N: n, Raw: raw, Kept: pl != nil && r.opts.KeepLines || own, Term: term, BOM: bom, Diags: l.Diags[:0], Events: reuse(l.Events), own: own}
	if tl != nil {
		l.Diags = append(l.Diags, diag.Diagnostic{File: r.file, Line: n, Col: 1, Severity: diag.Error, Rule: RuleLineLength,
			Message: fmt.Sprintf("the line is %d bytes long, over the limit of %d (--max-line-bytes); skipped", tl.Bytes, tl.Max)})
		return r.holdIfHolding(l)
	}
	var se *ndjson.SyntaxError
	if pl != nil {
		se, l.Depth = pl.syn, pl.depth
		if pl.indexed {
			b := r.par.cur
			l.index = ndjson.Index{Containers: b.conts[pl.cFrom:pl.cTo:pl.cTo], Members: b.mems[pl.mFrom:pl.mTo:pl.mTo]}
		}
	} else {
		// The index serves the schema check, and a decoder that takes it.
		l.Depth, se = ndjson.CheckIndex(raw, ndjson.Options{MaxDepth: r.opts.MaxDepth, DuplicateOK: r.dupOK}, &r.idxBuf)
		l.index = r.idxBuf
	}
	if se != nil {
		l.Diags = append(l.Diags, r.syntaxDiag(n, se))
		return r.holdIfHolding(l)
	}
	l.JSON = true
	if r.d == nil {
		d, ok := dialect.Detect(raw)
		if !ok {
			r.hold(l)
			if len(r.held) > maxHeldLines || r.heldBytes > maxHeldBytes {
				return nil, r.fail(r.undetected())
			}
			return nil, nil
		}
		if err := r.setDialect(d); err != nil {
			return nil, r.fail(err)
		}
		if len(r.held) > 0 {
			// Judge the held lines, then this one, as lines of d.
			r.hold(l)
			r.queue, r.held = r.held, nil
			return nil, nil
		}
	}
	if pl != nil && pl.checkedS {
		r.judge(l, pl.schema)
	} else {
		r.judge(l, schemaDiags(r.sch, raw, &l.index))
	}
	return r.firstJSON(l)
}

// firstJSON checks, at the stream's first JSON line, that a named dialect
// fits it.
func (r *Reader) firstJSON(l *Line) (*Line, error) {
	if !r.sawJSON {
		r.sawJSON = true
		if err := r.checkFits(l); err != nil {
			return nil, r.fail(err)
		}
	}
	return l, nil
}

// holdIfHolding holds a line that is not JSON when lines are held already,
// so that every line keeps its place; else it returns the line.
func (r *Reader) holdIfHolding(l *Line) (*Line, error) {
	if len(r.held) == 0 {
		return l, nil
	}
	r.hold(l)
	return nil, nil
}

// hold keeps a copy of a line read before the dialect is told.
func (r *Reader) hold(l *Line) {
	r.held = append(r.held, heldLine{n: l.N, raw: slices.Clone(l.Raw), json: l.JSON, diags: slices.Clone(l.Diags), term: l.Term, bom: l.BOM, depth: l.Depth})
	r.heldBytes += len(l.Raw)
}

// unqueue returns the next held line, judged as a line of the stream's
// dialect.
func (r *Reader) unqueue() *Line {
	h := r.queue[0]
	r.queue[0] = heldLine{}
	r.queue = r.queue[1:]
	l := &r.line
	// Every held JSON line but the last, which told the dialect, is
	// foreign.
	foreign := h.json && len(r.queue) > 0
	*l = Line{N: h.n, Raw: h.raw, JSON: h.json, Kept: true, Foreign: foreign, Term: h.term, BOM: h.bom, Depth: h.depth,
		Diags: append(l.Diags[:0], h.diags...), Events: reuse(l.Events)}
	if h.json {
		r.judge(l, schemaDiags(r.sch, h.raw, nil))
		if !foreign {
			r.firstJSON(l)
		}
	}
	return l
}

// undetected is the error of a stream whose dialect no line told: it
// names the first JSON line, which no dialect sniffs.
func (r *Reader) undetected() error {
	n := 0
	for _, h := range r.held {
		if h.json {
			n = h.n
			break
		}
	}
	r.held, r.heldBytes = nil, 0
	return &StreamError{Usage: true, Err: ErrUndetected, Diagnostic: diag.Diagnostic{
		File: r.file, Line: n, Severity: diag.Error, Rule: RuleUndetected,
		Message: "cannot tell the dialect from this line; name it (evtool dialects lists them)"}}
}

// tooLong returns err as a *ndjson.LineTooLongError, or nil. A function of
// its own so that the target of errors.As, which escapes, is allocated only
// for a line that has an error, not for every line.
func tooLong(err error) *ndjson.LineTooLongError {
	var tl *ndjson.LineTooLongError
	if errors.As(err, &tl) {
		return tl
	}
	return nil
}

// checkFits refuses a named dialect that does not fit the first JSON
// line when another dialect reads it cleanly: converting such a stream
// would turn every line into an unknown event or an error, which is not
// success. A line the named dialect reads cleanly, or that no other
// dialect reads better, is judged as usual.
func (r *Reader) checkFits(l *Line) error {
	if r.d.Sniff(l.Raw) || (l.OK() && !onlyUnknown(l.Events)) {
		return nil
	}
	for _, other := range dialect.All() {
		if other == r.d || !other.Sniff(l.Raw) || !readsCleanly(other, l.Raw, l.N) {
			continue
		}
		return &StreamError{Err: ErrMismatch, Diagnostic: diag.Diagnostic{
			File: r.file, Line: l.N, Col: 1, Severity: diag.Error, Rule: RuleMismatch,
			Message: fmt.Sprintf("the stream was named %s, but this line is %s; name %s, or name none to detect it",
				r.d.Name(), other.Name(), other.Name())}}
	}
	return nil
}

// readsCleanly reports whether dialect d, which sniffs the line, reads
// it without a problem and without an unknown event. A line may decode to
// no event of its own, as opencode's step_start does (only synthesised
// ones): that is a clean reading too, and the named dialect's reading of
// such a line, all unknown, is the one that does not fit.
func readsCleanly(d dialect.Dialect, raw []byte, n int) bool {
	sch, err := compiled(d)
	if err != nil || len(sch.check(raw, nil)) > 0 {
		return false
	}
	// End flushes what a decoder holds back at the start of a stream.
	dec := d.NewDecoder(dialect.DecodeOptions{})
	evs, err := dec.Decode(nil, raw, n)
	evs = dec.End(evs)
	return err == nil && !hasUnknown(evs)
}

// hasUnknown reports whether a line gave an unknown event.
func hasUnknown(evs []*event.Event) bool {
	for _, ev := range evs {
		if ev.Type() == event.TypeUnknown {
			return true
		}
	}
	return false
}

// onlyUnknown reports whether the events a line gave are unknown ones
// (synthesised events aside).
func onlyUnknown(evs []*event.Event) bool {
	for _, ev := range evs {
		if !ev.Synthetic && ev.Type() != event.TypeUnknown {
			return false
		}
	}
	return true
}

func (r *Reader) syntaxDiag(n int, se *ndjson.SyntaxError) diag.Diagnostic {
	rule := RuleSyntax
	switch se.Kind {
	case ndjson.BadUTF8:
		rule = RuleUTF8
	case ndjson.DuplicateKey:
		rule = RuleDuplicateKey
	case ndjson.TooDeep:
		rule = RuleDepth
	}
	return diag.Diagnostic{File: r.file, Line: n, Col: se.Col, Severity: diag.Error, Rule: rule, Pointer: se.Pointer, Message: se.Msg}
}

// judge records the schema errors of a JSON line and decodes it.
func (r *Reader) judge(l *Line, schemaErrs []diag.Diagnostic) {
	for _, e := range schemaErrs {
		e.File, e.Line, e.Rule = r.file, l.N, SchemaRule(r.d)
		l.Diags = append(l.Diags, e)
	}
	if r.taker != nil {
		r.taker.UseMembers(l.index.Top(l.Raw))
	}
	if r.ownTaker != nil {
		r.ownTaker.UseOwn(l.own)
	}
	evs, err := r.dec.Decode(l.Events, l.Raw, l.N)
	l.Events = evs
	if err != nil && len(evs) == 0 && gjson.ParseBytes(l.Raw).IsObject() {
		// Keep what cannot be read as an unknown event: a writer of the
		// same dialect writes it back as it was, another counts it as lost.
		// Its type, where the line states one as most dialects do, is
		// what a reader of the unknown event asks first (source_type).
		u := &event.Unknown{Dialect: r.d.Name(), SourceType: gjson.GetBytes(l.Raw, "type").Str}
		if !r.opts.Summary && !r.opts.VerdictsOnly {
			u.Raw = slices.Clone(l.Raw)
		}
		ev := &event.Event{Body: u}
		if r.opts.Provenance {
			ev.Src = &event.Source{Dialect: r.d.Name(), Line: l.N, Type: u.SourceType}
		}
		l.Events = append(l.Events, ev)
	}
	if err != nil && len(l.Diags) == 0 {
		// The schema cannot say everything a producer's type does (the
		// literal form of an integer, say); the decoder can.
		d := diag.Diagnostic{File: r.file, Line: l.N, Severity: diag.Error, Rule: DecodeRule(r.d), Message: err.Error()}
		var pe interface{ Position() string }
		if errors.As(err, &pe) {
			d.Pointer = pe.Position()
			d.Message = strings.TrimPrefix(d.Message, d.Pointer+": ")
			d.Col = jsonptr.Column(l.Raw, d.Pointer)
		}
		l.Diags = append(l.Diags, d)
	}
	slices.SortStableFunc(l.Diags, diag.Compare)
	l.Diags = slices.CompactFunc(l.Diags, func(a, b diag.Diagnostic) bool { return diag.Compare(a, b) == 0 })
}

// End returns the events the end of the stream implies (for example a
// synthesised session_finished). Call it once, after ReadLine returned
// io.EOF.
func (r *Reader) End() []*event.Event {
	if r.ended {
		return nil
	}
	// Ended even with no decoder (no line told the dialect): Next stops
	// at the end of such a stream too.
	r.ended = true
	if r.dec == nil {
		return nil
	}
	return r.dec.End(nil)
}

// Next returns the next canonical event. A line with problems is reported
// as a *LineError, after which Next goes on with whatever could be read of
// it and the lines after; io.EOF ends the stream.
func (r *Reader) Next() (*event.Event, error) {
	for r.next == len(r.pending) {
		r.pending, r.next = reuse(r.pending), 0
		l, err := r.ReadLine()
		if err == io.EOF {
			if r.ended {
				return nil, io.EOF
			}
			r.pending = append(r.pending, r.End()...)
			continue
		}
		if err != nil {
			return nil, err
		}
		r.pending = append(r.pending, l.Events...)
		if !l.OK() {
			return nil, &LineError{Line: l.N, Diags: slices.Clone(l.Diags), Torn: !l.JSON && !strings.HasSuffix(l.Term, "\n")}
		}
	}
	ev := r.pending[r.next]
	r.next++
	return ev, nil
}

// reuse empties evs for the next line's events, dropping the events it
// held: an event the caller is done with must not keep its line's copy
// alive (a decoder's strings are cut from it) until a later line that
// happens to have as many events overwrites it.
func reuse(evs []*event.Event) []*event.Event {
	clear(evs[:cap(evs)])
	return evs[:0]
}
