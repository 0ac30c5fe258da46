// Package validate checks streams against a dialect's published JSON Schema
// and its stream rules, and reports every problem with its position.
//
// It is a thin layer over package stream, which judges each line once
// (syntax, schema, decoding) for validate and convert alike; validate adds
// the dialect's stream rules on top.
package validate

import (
	"errors"
	"fmt"
	"io"

	"github.com/evtool/evtool/diag"
	"github.com/evtool/evtool/dialect"
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
	// Workers and MaxLineBytes are stream.Options's: how many goroutines
	// check lines ahead of decoding, and the longest line read.
	Workers, MaxLineBytes int
}

// Diagnostic is one problem found in a stream.
type Diagnostic = diag.Diagnostic

// Summary counts what a validation found.
type Summary struct {
	Dialect  string
	Lines    int
	Errors   int
	Warnings int
}

// ErrUndetected means the dialect could not be told from the first line.
var ErrUndetected = stream.ErrUndetected

var errEmpty = errors.New("the stream is empty and no --dialect was given")

// Stream validates one stream and calls report for every diagnostic, in
// line order. The error is non-nil only when the stream could not be read
// on: a read error, or a *stream.StreamError when its dialect cannot be
// told or is not the one named (that error is not also reported).
func Stream(r io.Reader, file string, opts Options, report func(Diagnostic)) (Summary, error) {
	var sum Summary
	emit := func(d Diagnostic) {
		d.File = file
		if d.Unknown && opts.Strict {
			d.Severity = diag.Error
		}
		if d.Severity == diag.Error {
			sum.Errors++
		} else {
			sum.Warnings++
		}
		report(d)
	}
	rd := stream.NewReader(r, file, stream.Options{Dialect: opts.Dialect, Workers: opts.Workers, MaxLineBytes: opts.MaxLineBytes})
	defer rd.Close()
	var chk dialect.Checker
	last := 0
	for {
		l, err := rd.ReadLine()
		if err == io.EOF {
			break
		}
		if err != nil {
			var se *stream.StreamError
			if errors.As(err, &se) && !se.Usage {
				sum.Errors++
			}
			return sum, err
		}
		sum.Lines, last = rd.Lines(), l.N
		if sum.Dialect == "" && rd.Dialect() != nil {
			sum.Dialect = rd.Dialect().Name()
			chk = rd.Dialect().NewChecker(dialect.CheckOptions{})
		}
		var found []Diagnostic
		found = append(found, l.Diags...)
		if l.JSON {
			chk.Line(l.Raw, l.N, func(f dialect.Finding) {
				f.Col = jsonptr.Column(l.Raw, f.Pointer)
				found = append(found, f)
			})
		}
		sortDiags(found)
		for _, d := range found {
			emit(d)
		}
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
	}
	return sum, nil
}
