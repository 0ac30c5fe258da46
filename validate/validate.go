// Package validate checks streams against a dialect's published JSON Schema
// and its stream rules, or against a user's JSON Schema, and reports every
// problem with its position.
//
// It is a thin layer over package stream, which judges each line once
// (syntax, schema, decoding) for validate and convert alike; validate adds
// the dialect's stream rules on top, drops disabled rules, stops after a
// number of errors, and sorts the lines into valid and invalid ones.
package validate

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/evtool/evtool/diag"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/internal/handoff"
	"github.com/evtool/evtool/internal/jsonptr"
	"github.com/evtool/evtool/stream"
)

// Rule ids that belong to no dialect, kept for callers of earlier versions.
const (
	RuleSyntax = stream.RuleSyntax
	RuleUTF8   = stream.RuleUTF8
)

// RuleUserSchema is the rule of a line that fails the user's schema given
// with Options.Schema (`evtool validate --schema FILE`).
const RuleUserSchema = "json/schema"

// Options configure a validation.
type Options struct {
	// Dialect is the stream's dialect; nil detects it from the first line.
	Dialect dialect.Dialect
	// Strict makes findings about unknown types and fields errors.
	Strict bool
	// Schema, when set, checks every line against a user's JSON Schema
	// instead of a dialect's: no dialect is detected or named, and no
	// stream rule runs. Dialect must be nil.
	Schema *Schema
	// Disable lists rule ids whose findings are dropped (see
	// rules.CheckDisable for the ids a command line may name).
	Disable []string
	// MaxErrors stops the stream after that many errors; 0 reads it all.
	MaxErrors int
	// Valid and Invalid, when set, receive every line that passes or fails,
	// byte for byte as read: with its own terminator ("\n" or "\r\n"),
	// and the input's byte order mark on its first line; a last line that
	// ends without a newline gets one, so that the next input's lines do
	// not run into it. A line fails when an error
	// is reported about it: its own (syntax, schema, decoding) or a stream
	// rule's on reading it; what only the end of the stream tells (a
	// truncated stream) fails no line. Blank lines go to neither. They
	// cannot be combined with MaxErrors, which would leave lines unsorted.
	Valid, Invalid io.Writer
	// Workers and MaxLineBytes are stream.Options's: how many goroutines
	// check lines ahead of decoding, and the longest line read.
	Workers, MaxLineBytes int
}

// Diagnostic is one problem found in a stream.
type Diagnostic = diag.Diagnostic

// Summary counts what a validation found.
type Summary struct {
	Dialect  string // the stream's dialect; "" with a user's schema
	Schema   string // the user's schema, as named, with Options.Schema
	Lines    int
	Errors   int
	Warnings int
	// Stopped is set when the stream was not read to its end: MaxErrors
	// was reached, or it is not of the dialect named.
	Stopped bool
}

// ErrUndetected means the dialect could not be told from the first line.
var ErrUndetected = stream.ErrUndetected

var errEmpty = errors.New("the stream is empty and no --dialect was given")

// Stream validates one stream and calls report for every diagnostic, as
// it is found: line by line, then what the end of the stream tells (Run
// passes them on in the order of the report). The error is non-nil only
// when the stream could not be read on: a read or write error, or a
// *stream.StreamError when its dialect cannot be told or is not the one
// named (that error is not also reported).
func Stream(r io.Reader, file string, opts Options, report func(Diagnostic)) (Summary, error) {
	sum, _, err := check(r, file, opts, report, "", false)
	return sum, err
}

// check is Stream. For Run (inRun), it reports the diagnostics in the
// order of the report (diag.Compare, and the order they were found among
// equals), each as soon as no diagnostic found later can come before it:
// a line's once the lines after it are read, unless the stream rules may
// still report about it at the end of the stream (a call it opens is still
// open, say). What waits is held in bounded memory, spilled to dir ("":
// os.TempDir()) beyond a few megabytes. The diagnostic of a
// *stream.StreamError that is a finding (not a usage error) is reported
// in its place too; when the error is another, the diagnostics not
// reported yet are returned instead (rest), so that the report can say
// first that the input could not be checked.
func check(r io.Reader, file string, opts Options, report func(Diagnostic), dir string, inRun bool) (Summary, []Diagnostic, error) {
	if opts.MaxErrors > 0 && (opts.Valid != nil || opts.Invalid != nil) {
		return Summary{}, nil, errors.New("a stream stopped after MaxErrors errors cannot be sorted into valid and invalid lines")
	}
	if opts.Schema != nil && opts.Dialect != nil {
		return Summary{}, nil, errors.New("a stream is checked against a dialect or a user's schema, not both")
	}
	c := &checking{opts: opts, file: file, ord: newOrderer(report, dir, !inRun)}
	// Made once, not a closure per line: the rules' callback, and the
	// line check the pipe runs.
	c.findingFn = c.finding
	c.lineFn = c.line
	// The rules' goroutine keeps the lines it is handed: workers' lines
	// need no copy if the Reader does not reuse their buffers.
	sopts := stream.Options{Dialect: opts.Dialect, Workers: opts.Workers, MaxLineBytes: opts.MaxLineBytes, KeepLines: true, VerdictsOnly: true}
	if opts.Schema != nil {
		sopts.Dialect = anyJSON{}
		c.sum.Schema = opts.Schema.Name()
	}
	c.rd = stream.NewReader(r, file, sopts)
	defer c.rd.Close()
	err := c.run()
	c.stopPipe()
	var se *stream.StreamError
	if inRun && errors.As(err, &se) && !se.Usage {
		// Not of the dialect named, or not readable as a whole: a
		// finding, counted already, in its place among the others.
		c.ord.add(se.Diagnostic)
	} else if inRun && err != nil {
		return c.sum, c.ord.rest(), err
	}
	c.ord.close()
	return c.sum, nil, err
}

// checking is the state of one Stream: the reading, the dialect's
// checker, the diagnostics of the line in hand, and the pipe that runs
// the rules beside the reading once the input is large.
type checking struct {
	opts Options
	file string
	ord  *orderer // passes the diagnostics on in order
	sum  Summary
	rd   *stream.Reader
	chk  dialect.Checker
	// early is chk, when it tells below which line its findings are all
	// made (Earliest).
	early earliest
	// zipped is set for a compressed input, whose reading may fail part
	// way with a diagnostic on no line, which comes before all others:
	// its diagnostics are all held to the end.
	zipped, opened bool
	last           int // the last line's number
	// lineFailed is set when an error was reported about the line in
	// hand; found (reused from line to line) collects its diagnostics,
	// and cur is its text while the rules run.
	lineFailed bool
	found      []Diagnostic
	cur        []byte
	findingFn  func(dialect.Finding)
	lineFn     func(item) (bool, error)
	// pp, once the input is large enough, runs the rules beside the
	// reading; perr is why it stopped; read counts the input bytes,
	// roughly, until it starts.
	pp   *handoff.Queue[item]
	perr error
	read int
}

// run checks every line, then what the end of the stream tells.
func (c *checking) run() error {
	for {
		if c.pp != nil && c.pp.Stopped() {
			_, err := c.stopPipe()
			return err
		}
		l, err := c.rd.ReadLine()
		if err == io.EOF {
			return c.end()
		}
		if err != nil {
			return c.readFailed(err)
		}
		c.last = l.N
		it := item{n: l.N, lines: c.rd.Lines(), raw: l.Raw, json: l.JSON, foreign: l.Foreign, diags: l.Diags, term: l.Term, bom: l.BOM}
		if c.pp != nil {
			flush := c.rd.Buffered() == 0
			c.pp.Send(handed(it, l.Kept), len(l.Raw), flush)
			continue
		}
		c.sum.Lines = it.lines
		if !c.opened {
			c.opened, c.zipped = true, c.rd.Compressed()
		}
		if c.opts.Schema == nil && c.sum.Dialect == "" && c.rd.Dialect() != nil {
			c.sum.Dialect = c.rd.Dialect().Name()
			c.setChecker(c.rd.Dialect().NewChecker(dialect.CheckOptions{}))
		}
		if stop, err := c.line(it); stop {
			return err
		}
		c.read += len(l.Raw) + 1
		if c.opts.Workers > 1 && c.read >= handoff.Threshold && (c.chk != nil || c.opts.Schema != nil) {
			c.pp = startRules(c.lineFn, &c.sum, &c.perr)
		}
	}
}

// stopPipe waits for the pipe to check every line handed over and tells
// whether it stopped, and why.
func (c *checking) stopPipe() (stopped bool, err error) {
	if c.pp == nil {
		return false, nil
	}
	stopped = c.pp.Close()
	c.pp = nil
	return stopped, c.perr
}

// readFailed ends the check at an error of the reading; a stream the
// reading refuses (not a usage error) counts as an error.
func (c *checking) readFailed(err error) error {
	if stopped, werr := c.stopPipe(); stopped || werr != nil {
		return werr
	}
	c.sum.Lines = c.rd.Lines()
	var se *stream.StreamError
	if errors.As(err, &se) && !se.Usage {
		c.sum.Errors++
		c.sum.Stopped = true
	}
	return err
}

// earliest is implemented by a dialect's checker that can tell the
// lowest line any finding it reports from now on may name, apart from the
// lines it is yet to be given and the last line End is given (where a
// truncated stream is reported): the line that opened the oldest call
// still open, say, which End reports as never finished; math.MaxInt when
// there is none. Every diagnostic on a line before it (and before the
// line in hand) is then final, and passed on at once. Such a checker's
// End reports in the order of the report (diag.Compare). The diagnostics
// of a stream whose checker cannot tell wait for its end (in bounded
// memory).
type earliest interface {
	Earliest() int
}

func (c *checking) setChecker(chk dialect.Checker) {
	c.chk = chk
	c.early, _ = chk.(earliest)
}

// release passes on the diagnostics that nothing found after line n can
// come before.
func (c *checking) release(n int) {
	switch {
	case c.zipped:
	case c.opts.Schema != nil:
		c.ord.release(n)
	case c.early != nil:
		// Before the dialect is told (no checker), a stream may yet turn
		// out undetected: its diagnostics wait, so that a report can say
		// first that it was not checked.
		c.ord.release(min(n, c.early.Earliest()))
	}
}

// emit reports one diagnostic, unless its rule is disabled, and counts it.
func (c *checking) emit(d Diagnostic) {
	if slices.Contains(c.opts.Disable, d.Rule) {
		return
	}
	d.File = c.file
	if d.Unknown && c.opts.Strict {
		d.Severity = diag.Error
	}
	if d.Severity == diag.Error {
		c.sum.Errors++
		c.lineFailed = true
	} else {
		c.sum.Warnings++
	}
	c.ord.add(d)
}

// full reports whether MaxErrors is reached.
func (c *checking) full() bool { return c.opts.MaxErrors > 0 && c.sum.Errors >= c.opts.MaxErrors }

// finding collects what the rules find on the line in cur.
func (c *checking) finding(f dialect.Finding) {
	f.Col = jsonptr.Column(c.cur, f.Pointer)
	c.found = append(c.found, f)
}

// line runs the stream rules (or the user's schema) on one line and
// reports its problems; stop is set when MaxErrors is reached. It runs in
// Stream's goroutine, or, once the input is large, in the pipe's.
func (c *checking) line(it item) (stop bool, err error) {
	c.found = append(c.found[:0], it.diags...)
	if it.json && c.opts.Schema != nil {
		c.found = append(c.found, c.opts.Schema.check(it.raw, c.file, it.n)...)
	} else if it.json && !it.foreign {
		c.cur = it.raw
		c.chk.Line(it.raw, it.n, c.findingFn)
		c.cur = nil
	} else if it.json && len(it.diags) == 0 {
		// A foreign line may be no part of the producer's stream (a
		// wrapper's log line), so the rules pass it over; or it is the
		// producer's own line of a type no dialect knows yet (a new
		// metadata line at the head of a transcript). Either way it is
		// kept as an unknown event, which is not silence: a warning.
		c.found = append(c.found, diag.Diagnostic{File: c.file, Line: it.n, Col: 1, Severity: diag.Warning, Rule: stream.RuleForeign, Unknown: true,
			Message: "no dialect starts with this line, which comes before the line that told the stream's dialect: it is kept as an unknown event, which no stream rule checks"})
	}
	sortDiags(c.found)
	c.lineFailed = false
	for _, d := range c.found {
		c.emit(d)
		if c.full() {
			c.sum.Stopped = true
			return true, nil
		}
	}
	if err := triage(c.opts, it, c.lineFailed); err != nil {
		return true, fmt.Errorf("%s: line %d: %w", c.file, it.n, err)
	}
	c.release(it.n)
	return false, nil
}

// end checks what only the end of the stream can tell.
func (c *checking) end() error {
	if stopped, err := c.stopPipe(); stopped || err != nil {
		return err
	}
	c.sum.Lines = c.rd.Lines()
	if c.opts.Schema != nil {
		return nil
	}
	if c.chk == nil {
		if c.sum.Lines == 0 && c.opts.Dialect == nil {
			return fmt.Errorf("%s: %w", c.file, errEmpty)
		}
		if c.opts.Dialect == nil {
			return nil // nothing valid to detect from: the stream is all broken
		}
		c.sum.Dialect = c.opts.Dialect.Name()
		c.setChecker(c.opts.Dialect.NewChecker(dialect.CheckOptions{}))
	}
	if c.opts.MaxErrors == 0 && !c.ord.direct {
		if c.early == nil || c.zipped {
			// In any order: the orderer sorts them among the others, in
			// bounded memory however many calls were left open.
			c.chk.End(c.last, c.emit)
			return nil
		}
		// In order (earliest): whatever comes before a finding is final.
		c.chk.End(c.last, func(f dialect.Finding) {
			c.emit(f)
			c.ord.release(f.Line)
		})
		return nil
	}
	// Sorted among themselves; MaxErrors stops at an error in this order.
	var end []Diagnostic
	c.chk.End(c.last, func(f dialect.Finding) { end = append(end, f) })
	sortDiags(end)
	for _, d := range end {
		c.emit(d)
		if c.full() {
			c.sum.Stopped = true
			return nil
		}
	}
	return nil
}

// triage writes a line to the valid or the invalid lines, as it was
// read.
func triage(opts Options, it item, failed bool) error {
	w := opts.Valid
	if failed {
		w = opts.Invalid
	}
	if w == nil {
		return nil
	}
	if it.bom {
		if _, err := w.Write(utf8BOM); err != nil {
			return err
		}
	}
	if _, err := w.Write(it.raw); err != nil {
		return err
	}
	term := it.term
	if !strings.HasSuffix(term, "\n") {
		term += "\n" // the last line, whose next is another input's
	}
	_, err := io.WriteString(w, term)
	return err
}

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}
