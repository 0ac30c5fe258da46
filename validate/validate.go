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

// Stream validates one stream and calls report for every diagnostic, in
// line order. The error is non-nil only when the stream could not be read
// on: a read or write error, or a *stream.StreamError when its dialect
// cannot be told or is not the one named (that error is not also
// reported).
func Stream(r io.Reader, file string, opts Options, report func(Diagnostic)) (Summary, error) {
	var sum Summary
	if opts.MaxErrors > 0 && (opts.Valid != nil || opts.Invalid != nil) {
		return sum, errors.New("a stream stopped after MaxErrors errors cannot be sorted into valid and invalid lines")
	}
	if opts.Schema != nil && opts.Dialect != nil {
		return sum, errors.New("a stream is checked against a dialect or a user's schema, not both")
	}
	lineFailed := false
	emit := func(d Diagnostic) {
		if slices.Contains(opts.Disable, d.Rule) {
			return
		}
		d.File = file
		if d.Unknown && opts.Strict {
			d.Severity = diag.Error
		}
		if d.Severity == diag.Error {
			sum.Errors++
			lineFailed = true
		} else {
			sum.Warnings++
		}
		report(d)
	}
	full := func() bool { return opts.MaxErrors > 0 && sum.Errors >= opts.MaxErrors }
	// The rules' goroutine keeps the lines it is handed: workers' lines
	// need no copy if the Reader does not reuse their buffers.
	sopts := stream.Options{Dialect: opts.Dialect, Workers: opts.Workers, MaxLineBytes: opts.MaxLineBytes, KeepLines: true}
	if opts.Schema != nil {
		sopts.Dialect = anyJSON{}
		sum.Schema = opts.Schema.Name()
	}
	rd := stream.NewReader(r, file, sopts)
	defer rd.Close()
	var chk dialect.Checker
	last := 0
	var found []Diagnostic // reused from line to line
	// finding collects what the rules find on the line in cur; made once,
	// not a closure per line.
	var cur []byte
	finding := func(f dialect.Finding) {
		f.Col = jsonptr.Column(cur, f.Pointer)
		found = append(found, f)
	}
	// line runs the stream rules (or the user's schema) on one line and
	// reports its problems; stop is set when MaxErrors is reached. It runs
	// in Stream's goroutine, or, once the input is large, in the pipe's.
	line := func(it item) (stop bool, err error) {
		found = append(found[:0], it.diags...)
		if it.json && opts.Schema != nil {
			found = append(found, opts.Schema.check(it.raw, file, it.n)...)
		} else if it.json && !it.foreign {
			// A foreign line is no part of the producer's stream: its
			// own problems are reported, and the rules pass it over.
			cur = it.raw
			chk.Line(it.raw, it.n, finding)
			cur = nil
		}
		sortDiags(found)
		lineFailed = false
		for _, d := range found {
			emit(d)
			if full() {
				sum.Stopped = true
				return true, nil
			}
		}
		if err := triage(opts, it, lineFailed); err != nil {
			return true, fmt.Errorf("%s: line %d: %w", file, it.n, err)
		}
		return false, nil
	}
	// pp, once the input is large enough, runs the rules beside the
	// reading; perr is why it stopped.
	var pp *handoff.Queue[item]
	var perr error
	read := 0 // input bytes read, roughly, until the pipe starts
	// stopPipe waits for the pipe to check every line handed over and
	// tells whether it stopped, and why.
	stopPipe := func() (stopped bool, err error) {
		if pp == nil {
			return false, nil
		}
		stopped = pp.Close()
		pp = nil
		return stopped, perr
	}
	defer stopPipe()
	for {
		if pp != nil && pp.Stopped() {
			_, err := stopPipe()
			return sum, err
		}
		l, err := rd.ReadLine()
		if err == io.EOF {
			break
		}
		if err != nil {
			if stopped, werr := stopPipe(); stopped || werr != nil {
				return sum, werr
			}
			sum.Lines = rd.Lines()
			var se *stream.StreamError
			if errors.As(err, &se) && !se.Usage {
				sum.Errors++
				sum.Stopped = true
			}
			return sum, err
		}
		last = l.N
		if pp != nil {
			flush := rd.Buffered() == 0
			pp.Send(handed(item{n: l.N, lines: rd.Lines(), raw: l.Raw, json: l.JSON, foreign: l.Foreign, diags: l.Diags, term: l.Term, bom: l.BOM}, l.Kept), len(l.Raw), flush)
			continue
		}
		sum.Lines = rd.Lines()
		if opts.Schema == nil && sum.Dialect == "" && rd.Dialect() != nil {
			sum.Dialect = rd.Dialect().Name()
			chk = rd.Dialect().NewChecker(dialect.CheckOptions{})
		}
		if stop, err := line(item{n: l.N, lines: sum.Lines, raw: l.Raw, json: l.JSON, foreign: l.Foreign, diags: l.Diags, term: l.Term, bom: l.BOM}); stop {
			return sum, err
		}
		read += len(l.Raw) + 1
		if opts.Workers > 1 && read >= handoff.Threshold && (chk != nil || opts.Schema != nil) {
			pp = startRules(line, &sum, &perr)
		}
	}
	if stopped, err := stopPipe(); stopped || err != nil {
		return sum, err
	}
	sum.Lines = rd.Lines()
	if opts.Schema != nil {
		return sum, nil
	}
	if chk == nil {
		if sum.Lines == 0 && opts.Dialect == nil {
			return sum, fmt.Errorf("%s: %w", file, errEmpty)
		}
		if opts.Dialect == nil {
			return sum, nil // nothing valid to detect from: the stream is all broken
		}
		sum.Dialect = opts.Dialect.Name()
		chk = opts.Dialect.NewChecker(dialect.CheckOptions{})
	}
	var end []Diagnostic
	chk.End(last, func(f dialect.Finding) { end = append(end, f) })
	sortDiags(end)
	for _, d := range end {
		emit(d)
		if full() {
			sum.Stopped = true
			return sum, nil
		}
	}
	return sum, nil
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
