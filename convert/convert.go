// Package convert turns a stream of one dialect into a stream of another,
// through the canonical model, one line at a time and in constant memory.
//
// It is a thin layer over package stream, which judges each line once for
// convert and validate alike: a line validate accepts converts without a
// diagnostic, and a line with problems is reported with the same
// diagnostic validate gives it. What convert adds is what to do with such
// a line (Options.OnError), the torn last line of a producer that stopped
// mid-line, the input with nothing to convert, and the loss accounting of
// the target's encoder.
package convert

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/evtool/evtool/diag"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/handoff"
	"github.com/evtool/evtool/stream"
)

// OnError says what becomes of an input line with problems.
type OnError int

// What becomes of a line with problems. Each such line is reported and
// counted whatever the choice.
const (
	// Keep passes on whatever could be read of the line: its events, or
	// an unknown event that keeps it whole (a JSON object the decoder
	// cannot read), or, for a line that is not JSON at all, an unknown
	// event of dialect UnreadableDialect that holds its text. Targets that
	// cannot carry an unknown event count it as a loss.
	Keep OnError = iota
	// Skip passes on nothing of the line.
	Skip
	// Fail stops the conversion at the line (Run returns *FailError).
	Fail
)

// OnErrors maps the --on-error words to their values.
var OnErrors = map[string]OnError{"keep": Keep, "skip": Skip, "fail": Fail}

// UnreadableDialect is the dialect of the unknown event that keeps a line
// that is not JSON; no adapter is named so, so every target but canonical
// counts it as an unknown event it cannot carry.
const UnreadableDialect = "evtool"

// UnreadableType is the source_type of such an event.
const UnreadableType = "unreadable-line"

// Options configure a conversion.
type Options struct {
	// From is the source dialect; nil detects it from the first line.
	From dialect.Dialect
	// To is the target dialect.
	To dialect.Dialect
	// Provenance makes canonical events carry their source line.
	Provenance bool
	// Defaults supply facts the target needs and the source may lack.
	Defaults dialect.Defaults
	// Config is the target's own settings (dialect.Configurable), nil for
	// its defaults; Run rejects settings of another type or that do not
	// validate.
	Config dialect.Config
	// OnError says what becomes of a line with problems (default Keep).
	OnError OnError
	// Progress, when set, is called for each line, once it is read and
	// before its output is flushed, with the number of
	// input lines and bytes read so far.
	Progress func(lines int, bytes int64)
	// Workers and MaxLineBytes are stream.Options's: how many goroutines
	// check lines ahead of decoding, and the longest line read.
	Workers, MaxLineBytes int
	// OutputName names the output in the output check's diagnostics
	// ("<stdout>" when empty).
	OutputName string
}

// Result says what a conversion did.
type Result struct {
	From   string // the source dialect
	Lines  int    // non-blank input lines
	Bytes  int64  // input bytes read
	Events int    // canonical events passed to the target
	// Errors counts the input lines with problems, the torn last line
	// aside; BadLines lists their numbers.
	Errors   int
	BadLines []int
	// Kept and Skipped count the lines with problems that went on (as far
	// as they could be read) and that were left out.
	Kept, Skipped int
	// Torn is the number of the last line when it is torn: it has no
	// newline at its end and is not JSON, as a producer that stopped
	// mid-line leaves it. It is reported as a warning, not counted in
	// Errors; 0 when the last line is whole.
	Torn   int
	Losses *dialect.Losses
	// Unfinished reports that the events end inside a session (no
	// session_finished after the last session_started), as a source cut
	// short leaves them: the output is cut short too, and the target's
	// validator says so. Never for an OpenEnded target.
	Unfinished bool
	// OutputErrors counts the errors the target's own validator finds in
	// the output, which is checked as it is written where the source can
	// carry residue for the target (see residueFor); OutputDiags are the
	// first MaxOutputDiags of them.
	OutputErrors int
	OutputDiags  []diag.Diagnostic
	open         bool // a session_started not yet finished
}

// count counts an event passed to the target.
func (res *Result) count(ev *event.Event) {
	res.Events++
	switch ev.Body.(type) {
	case *event.SessionStarted:
		res.open = true
	case *event.SessionFinished:
		res.open = false
	}
}

// LineError is a problem of one input line. Whatever could be read of the
// line is still converted.
type LineError = diag.Diagnostic

// ErrUndetected means the source dialect could not be told from the first line.
var ErrUndetected = stream.ErrUndetected

// ErrEmpty means the input has no line to convert: it is empty, holds
// only blank lines, or none of its lines is JSON. Nothing was written.
var ErrEmpty = errors.New("nothing to convert")

// EmptyError is an input with no line to convert. It wraps ErrEmpty.
type EmptyError struct {
	File  string
	Bytes int64 // 0 for an empty input, else it held only blank lines
	// NotJSON is the number of its lines, none of which is JSON (a page
	// of HTML, a log): each was reported, and nothing was converted.
	NotJSON int
}

func (e *EmptyError) Error() string {
	switch {
	case e.NotJSON == 1:
		return e.File + ": nothing to convert: its only line is not JSON"
	case e.NotJSON > 1:
		return fmt.Sprintf("%s: nothing to convert: none of its %d lines is JSON", e.File, e.NotJSON)
	case e.Bytes == 0:
		return e.File + ": nothing to convert: the input is empty"
	}
	return fmt.Sprintf("%s: nothing to convert: the input holds only blank lines (%d bytes)", e.File, e.Bytes)
}

func (e *EmptyError) Unwrap() error { return ErrEmpty }

// UTF16Error is an input that looks like UTF-16, which evtool does not
// read: every line of it would be reported as broken. The reading
// (package stream) tells it, for every command; Run gives it this type
// of its own, as before.
type UTF16Error struct {
	File     string
	Why      string // "a UTF-16LE byte order mark", …
	Encoding string // "UTF-16" or "UTF-32" ("" is UTF-16)
}

func (e *UTF16Error) Error() string {
	return e.File + ": " + stream.NotUTF8(e.Encoding, e.Why)
}

// FailError is the line at which --on-error fail stopped the conversion.
type FailError struct {
	File string
	Line int
}

func (e *FailError) Error() string {
	return fmt.Sprintf("%s:%d: stopped at the first line with problems (--on-error fail)", e.File, e.Line)
}

// Run converts r to w. Every problem of a line is passed to report, and
// what becomes of the line is opts.OnError's choice; the lines around it
// are converted too. Output is flushed whenever the input has nothing
// more buffered, so a live pipe sees every event as soon as its line
// arrives. The error is non-nil for read or write failures, for a stream
// whose dialect cannot be told or is not the one named (a
// *stream.StreamError), for an input with nothing to convert
// (*EmptyError: nothing is written), for UTF-16 input (*UTF16Error), for
// binary or damaged compressed input (a *stream.StreamError of rule
// stream/input; gzip and zstd input is read as what it holds), and for a
// line that stops the conversion under Fail (*FailError).
//
// An input none of whose lines is JSON is nothing converted either: the
// lines before the first JSON line are held back (a few, as a banner
// is), so that such an input writes nothing; it is an *EmptyError.
func Run(r io.Reader, w io.Writer, file string, opts Options, report func(*LineError)) (Result, error) {
	if ro, ok := opts.To.(dialect.ReadOnly); ok {
		return Result{Losses: &dialect.Losses{}}, fmt.Errorf("convert: %s: %w (%s)", opts.To.Name(), dialect.ErrReadOnly, ro.ReadOnly())
	}
	if err := dialect.CheckConfig(opts.To, opts.Config); err != nil {
		return Result{Losses: &dialect.Losses{}}, fmt.Errorf("convert: %w", err)
	}
	c := &conversion{opts: opts, file: file, report: report, res: Result{Losses: &dialect.Losses{}}, in: &tracker{r: r}}
	// in hides the file from the Reader: ask of r whether it may look ahead.
	c.rd = stream.NewReader(c.in, file, stream.Options{Dialect: opts.From, Provenance: opts.Provenance, Workers: opts.Workers, MaxLineBytes: opts.MaxLineBytes,
		Lookahead: stream.RegularFile(r)})
	defer c.rd.Close()
	c.out = &tee{w: w}
	c.bw = bufio.NewWriterSize(c.out, 64<<10)
	if opts.From != nil {
		c.res.From = opts.From.Name()
	}
	defer c.stopPipe()
	err := c.run()
	if c.out.oc != nil {
		c.out.oc.wait()
	}
	return c.res, err
}

// conversion is the state of one Run: the reading, the target's encoder
// (made at the first JSON line), the lines held until then, and the pipe
// that encodes beside the reading once the input is large enough.
type conversion struct {
	opts   Options
	file   string
	report func(*LineError)
	res    Result
	in     *tracker
	rd     *stream.Reader
	out    *tee
	bw     *bufio.Writer
	enc    dialect.Encoder
	// held are the events of the lines before the first JSON line, and
	// heldBytes their size, until a JSON line comes or there are too many.
	held      []heldLine
	heldBytes int
	sawJSON   bool
	// pp, once the input is large enough, encodes beside the reading;
	// perr is its first error.
	pp   *handoff.Queue[batch]
	perr error
	// deep: a line nested near the limit was read. A decoder may hold a
	// line's events and give them with a later line's or at the end (the
	// start of a Claude stream waits for its session), so from then on
	// every line's events are guarded (cutDeep), not only that line's.
	deep bool
}

// run reads and converts every line, then the end of the stream.
func (c *conversion) run() error {
	for {
		if c.pp != nil && c.pp.Stopped() {
			return c.stopPipe()
		}
		l, err := c.rd.ReadLine()
		c.res.Bytes = c.in.bytes()
		if err == io.EOF {
			return c.finish()
		}
		if err != nil {
			return c.readFailed(err)
		}
		if err := c.line(l); err != nil {
			return err
		}
	}
}

// stopPipe waits for the pipe to encode what it was sent, and returns its
// first error.
func (c *conversion) stopPipe() error {
	if c.pp == nil {
		return nil
	}
	c.pp.Close()
	c.pp = nil
	return c.perr
}

// readFailed ends the conversion at an error of the reading: what was
// converted is written, and a stream the reading refuses (not a usage
// error) counts as a line with problems.
func (c *conversion) readFailed(err error) error {
	var ie *stream.InputError
	if errors.As(err, &ie) && ie.Kind == stream.UTF16 {
		err = &UTF16Error{File: c.file, Why: ie.Why, Encoding: ie.Encoding}
	}
	if werr := c.stopPipe(); werr != nil {
		return werr
	}
	c.bw.Flush()
	var se *stream.StreamError
	if errors.As(err, &se) && !se.Usage {
		c.res.Errors++
	}
	return err
}

// line converts one line.
func (c *conversion) line(l *stream.Line) error {
	res := &c.res
	res.Lines = c.rd.Lines()
	if d := c.rd.Dialect(); d != nil {
		res.From = d.Name()
	}
	if c.pp == nil {
		res.Losses.SetLine(l.N)
	}
	evs := l.Events
	if !l.OK() {
		var err error
		if evs, err = c.badLine(l, evs); err != nil {
			return err
		}
	}
	c.deep = c.deep || l.Depth > flatAt
	if c.deep {
		cutDeep(evs, res.Losses)
	}
	// Progress counts the line read before its output is flushed: whoever
	// sees the output of a line (and then interrupts) is told it was read.
	if c.opts.Progress != nil {
		c.opts.Progress(res.Lines, c.in.bytes())
	}
	if !c.holdBack(l, evs) {
		if err := c.ensureEncoder(l.N); err != nil {
			return err
		}
		if err := c.emit(l, evs); err != nil {
			return err
		}
	}
	return nil
}

// badLine reports a line with problems, as validate does, and returns
// what of it goes on under opts.OnError.
func (c *conversion) badLine(l *stream.Line, evs []*event.Event) ([]*event.Event, error) {
	res := &c.res
	// A line without a newline is the last.
	torn := !l.JSON && !strings.HasSuffix(l.Term, "\n")
	// The line's own verdict, as validate gives it; that it is a torn last
	// line (a producer that stopped mid-line) is said once in the summary
	// and does not fail the conversion.
	for _, d := range l.Diags {
		c.report(&d)
	}
	if torn {
		res.Torn = l.N
	} else {
		res.Errors++
		res.BadLines = append(res.BadLines, l.N)
	}
	switch c.opts.OnError {
	case Fail:
		if werr := c.stopPipe(); werr != nil {
			return nil, werr
		}
		c.bw.Flush()
		return nil, &FailError{File: c.file, Line: l.N}
	case Skip:
		res.Skipped++
		return nil, nil
	}
	res.Kept++
	if !l.JSON || len(evs) == 0 && !isObject(l.Raw) {
		// A line that is not JSON, or JSON that is no object (a number,
		// a string, an array where an object belongs), which no decoder
		// reads as an event, goes on as its text: kept means kept.
		evs = append(evs[:0:0], unreadable(l, c.rd.Dialect(), c.opts.Provenance))
	}
	return evs, nil
}

// holdBack holds the events of a line that is not JSON before the first
// JSON line, within the bound, and reports whether it did.
func (c *conversion) holdBack(l *stream.Line, evs []*event.Event) bool {
	if c.sawJSON {
		return false
	}
	c.sawJSON = l.JSON
	if c.sawJSON || c.enc != nil || len(c.held) >= maxHeldLines || c.heldBytes >= maxHeldBytes {
		return false
	}
	// The events of a line that is not JSON are new memory (unreadable's),
	// its list is the Reader's.
	c.held = append(c.held, heldLine{n: l.N, evs: slices.Clone(evs)})
	c.heldBytes += len(l.Raw)
	return true
}

// ensureEncoder makes the target's encoder at the first JSON line (or
// once too many lines that are not JSON wait), so that an input with
// nothing to convert writes nothing at all, and passes it what was held.
func (c *conversion) ensureEncoder(n int) error {
	if c.enc != nil {
		return nil
	}
	// A kept line must not become the target's header, nor cut a streamed
	// message in two: KeepInPlace holds it back.
	if from := c.rd.Dialect(); residueFor(from, c.opts.To) {
		name := c.opts.OutputName
		if name == "" {
			name = "<stdout>"
		}
		c.out.oc = startOutCheck(c.opts.To, name, &c.res)
	}
	c.enc = dialect.KeepInPlace(c.opts.To.NewEncoder(c.bw, dialect.EncodeOptions{Losses: c.res.Losses, Defaults: c.opts.Defaults, Config: c.opts.Config}))
	for _, h := range c.held {
		c.res.Losses.SetLine(h.n)
		if err := encode(c.enc, h.evs, &c.res); err != nil {
			return err
		}
	}
	c.held = nil
	c.res.Losses.SetLine(n)
	return nil
}

// emit encodes a line's events, here or in the pipe, and flushes when the
// input has nothing more buffered, so that a live pipe sees every event
// as soon as its line arrives.
func (c *conversion) emit(l *stream.Line, evs []*event.Event) error {
	if c.pp != nil {
		// The line's buffer is the Reader's again at the next line: the
		// events are the pipe's, their list is copied.
		flush := c.rd.Buffered() == 0
		c.pp.Send(batch{line: l.N, evs: slices.Clone(evs), flush: flush}, len(l.Raw), flush)
		return nil
	}
	if err := encode(c.enc, evs, &c.res); err != nil {
		return err
	}
	if c.rd.Buffered() == 0 {
		if err := c.bw.Flush(); err != nil {
			return err
		}
	}
	if c.opts.Workers > 1 && c.in.bytes() >= handoff.Threshold {
		c.pp = startEncoder(c.enc, c.bw, &c.res, &c.perr)
	}
	return nil
}

// finish encodes what the end of the stream implies and closes the
// target's stream.
func (c *conversion) finish() error {
	if err := c.stopPipe(); err != nil {
		return err
	}
	if c.enc == nil || !c.sawJSON {
		// Nothing converted: an -o target is left as it was. Only an input
		// of more lines that are not JSON than are held back has written
		// something (their unknown events) on the way.
		return &EmptyError{File: c.file, Bytes: c.in.bytes(), NotJSON: c.res.Lines}
	}
	end := c.rd.End()
	if c.deep {
		cutDeep(end, c.res.Losses)
	}
	if err := encode(c.enc, end, &c.res); err != nil {
		return err
	}
	if err := c.enc.Close(); err != nil {
		return err
	}
	_, open := c.opts.To.(dialect.OpenEnded)
	c.res.Unfinished = c.res.open && !open
	return c.bw.Flush()
}

// unreadable is the unknown event that keeps a line that is not JSON: its
// text (invalid UTF-8 written as U+FFFD) under raw.text.
func unreadable(l *stream.Line, d dialect.Dialect, provenance bool) *event.Event {
	text, _ := json.Marshal(strings.ToValidUTF8(string(l.Raw), "\uFFFD"))
	raw := slices.Concat([]byte(`{"text":`), text, []byte("}"))
	ev := &event.Event{Body: &event.Unknown{Dialect: UnreadableDialect, SourceType: UnreadableType, Raw: raw}}
	if provenance && d != nil {
		ev.Src = &event.Source{Dialect: d.Name(), Line: l.N}
	}
	return ev
}

// isObject reports whether a JSON line is an object.
func isObject(raw []byte) bool {
	b := bytes.TrimLeft(raw, " \t\r\n")
	return len(b) > 0 && b[0] == '{'
}

func encode(enc dialect.Encoder, evs []*event.Event, res *Result) error {
	for _, ev := range evs {
		res.count(ev)
		if err := enc.Encode(ev); err != nil {
			return err
		}
	}
	return nil
}

// heldLine is what became of a line read before the first JSON line.
type heldLine struct {
	n   int
	evs []*event.Event
}

// The bound on lines held back before the first JSON line: a banner or a
// wrapper's log fits, and an input of many lines none of which is JSON
// does not wait in memory.
const (
	maxHeldLines = 64
	maxHeldBytes = 4 << 20
)

// tracker counts the input's bytes (as read: a compressed input's
// compressed bytes). With workers, the Reader reads it from a goroutine
// of its own.
type tracker struct {
	r io.Reader
	n atomic.Int64
}

func (t *tracker) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	t.n.Add(int64(n))
	return n, err
}

// bytes returns the number of bytes read so far.
func (t *tracker) bytes() int64 { return t.n.Load() }

// Underlying returns the reader t counts the bytes of: the Reader
// measures a long line of a regular file before it reads it once (stream's
// fileOf).
func (t *tracker) Underlying() io.Reader { return t.r }
