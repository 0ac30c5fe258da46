// Package convert turns a stream of one dialect into a stream of another,
// through the canonical model, one line at a time and in constant memory.
//
// It is a thin layer over package stream, which judges each line once for
// convert and validate alike: a line validate accepts converts without a
// diagnostic, and a line with problems is reported with the same
// diagnostic validate gives it.
package convert

import (
	"bufio"
	"errors"
	"io"

	"github.com/evtool/evtool/diag"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/stream"
)

// Options configure a conversion.
type Options struct {
	// From is the source dialect; nil detects it from the first line.
	From dialect.Dialect
	// To is the target dialect.
	To dialect.Dialect
	// Provenance makes canonical events carry their source line.
	Provenance bool
	// Defaults supply facts the target needs and the source may lack.
	Defaults map[string]string
	// Params are options of the target dialect.
	Params map[string]string
	// Workers and MaxLineBytes are stream.Options's: how many goroutines
	// check lines ahead of decoding, and the longest line read.
	Workers, MaxLineBytes int
}

// Result says what a conversion did.
type Result struct {
	From   string // the source dialect
	Lines  int    // non-blank input lines
	Events int    // canonical events passed to the target
	Errors int    // input lines with problems
	Losses *dialect.Losses
}

// LineError is a problem of one input line. Whatever could be read of the
// line is still converted.
type LineError = diag.Diagnostic

// ErrUndetected means the source dialect could not be told from the first line.
var ErrUndetected = stream.ErrUndetected

// Run converts r to w. Every problem of a line is passed to report, and
// whatever could be read of the line is converted; the lines around it
// are converted too. Output is flushed whenever the input has nothing
// more buffered, so a live pipe sees every event as soon as its line
// arrives. The error is non-nil only for read or write failures, and for
// a stream whose dialect cannot be told or is not the one named (a
// *stream.StreamError).
func Run(r io.Reader, w io.Writer, file string, opts Options, report func(*LineError)) (Result, error) {
	res := Result{Losses: &dialect.Losses{}}
	rd := stream.NewReader(r, file, stream.Options{Dialect: opts.From, Provenance: opts.Provenance, Workers: opts.Workers, MaxLineBytes: opts.MaxLineBytes})
	defer rd.Close()
	bw := bufio.NewWriterSize(w, 64<<10)
	enc := opts.To.NewEncoder(bw, dialect.EncodeOptions{Losses: res.Losses, Defaults: opts.Defaults, Params: opts.Params})
	if opts.From != nil {
		res.From = opts.From.Name()
	}
	for {
		l, err := rd.ReadLine()
		if err == io.EOF {
			break
		}
		if err != nil {
			bw.Flush()
			var se *stream.StreamError
			if errors.As(err, &se) && !se.Usage {
				res.Errors++
			}
			return res, err
		}
		res.Lines = rd.Lines()
		if rd.Dialect() != nil {
			res.From = rd.Dialect().Name()
		}
		if !l.OK() {
			res.Errors++
			for _, d := range l.Diags {
				report(&d)
			}
		}
		if err := encode(enc, l.Events, &res); err != nil {
			return res, err
		}
		if rd.Buffered() == 0 {
			if err := bw.Flush(); err != nil {
				return res, err
			}
		}
	}
	if err := encode(enc, rd.End(), &res); err != nil {
		return res, err
	}
	if err := enc.Close(); err != nil {
		return res, err
	}
	return res, bw.Flush()
}

func encode(enc dialect.Encoder, evs []*event.Event, res *Result) error {
	for _, ev := range evs {
		res.Events++
		if err := enc.Encode(ev); err != nil {
			return err
		}
	}
	return nil
}
