// Package convert turns a stream of one dialect into a stream of another,
// through the canonical model, one line at a time and in constant memory.
package convert

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/jsonptr"
	"github.com/evtool/evtool/ndjson"
	"github.com/tidwall/gjson"
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
}

// Result says what a conversion did.
type Result struct {
	From   string // the source dialect
	Lines  int    // non-blank input lines
	Events int    // canonical events passed to the target
	Errors int    // input lines that could not be converted
	Losses *dialect.Losses
}

// LineError is an input line that could not be converted.
type LineError struct {
	File string
	Line int
	Col  int    // 0 when not known
	Ptr  string // JSON pointer of the offending value, if any
	Err  error
}

func (e *LineError) Error() string {
	pos := fmt.Sprintf("%s:%d", e.File, e.Line)
	if e.Col > 0 {
		pos += fmt.Sprintf(":%d", e.Col)
	}
	return pos + ": error: " + e.Err.Error()
}

func (e *LineError) Unwrap() error { return e.Err }

// ErrUndetected means the source dialect could not be told from the first line.
var ErrUndetected = errors.New("cannot tell the source dialect from the first line; name it with --from")

// Run converts r to w. Lines that cannot be converted are passed to report
// and skipped; the lines around them are still converted. Output is flushed
// whenever the input has nothing more buffered, so a live pipe sees every
// event as soon as its line arrives. The error is non-nil only for read or
// write failures and for an undetectable dialect.
func Run(r io.Reader, w io.Writer, file string, opts Options, report func(*LineError)) (Result, error) {
	res := Result{Losses: &dialect.Losses{}}
	rd := ndjson.NewReader(r)
	bw := bufio.NewWriterSize(w, 64<<10)
	enc := opts.To.NewEncoder(bw, dialect.EncodeOptions{Losses: res.Losses, Defaults: opts.Defaults, Params: opts.Params})
	var dec dialect.Decoder
	from := opts.From
	if from != nil {
		dec = from.NewDecoder(dialect.DecodeOptions{Provenance: opts.Provenance})
		res.From = from.Name()
	}
	var evs []*event.Event
	fail := func(le *LineError) {
		res.Errors++
		le.File = file
		report(le)
	}
	for {
		line, n, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			bw.Flush()
			return res, fmt.Errorf("%s: %w", file, err)
		}
		res.Lines++
		if !gjson.ValidBytes(line) || !utf8.Valid(line) {
			se := ndjson.Check(line)
			if se == nil { // gjson and encoding/json disagree; trust the stricter
				se = &ndjson.SyntaxError{Col: 1, Msg: "invalid JSON"}
			}
			fail(&LineError{Line: n, Col: se.Col, Err: se})
			continue
		}
		if dec == nil {
			var ok bool
			if from, ok = dialect.Detect(line); !ok {
				bw.Flush()
				return res, fmt.Errorf("%s:%d: %w", file, n, ErrUndetected)
			}
			dec = from.NewDecoder(dialect.DecodeOptions{Provenance: opts.Provenance})
			res.From = from.Name()
		}
		evs, err = dec.Decode(evs[:0], line, n)
		if err != nil {
			le := &LineError{Line: n, Err: err}
			var pe interface{ Position() string }
			if errors.As(err, &pe) {
				le.Ptr = pe.Position()
				le.Col = jsonptr.Column(line, le.Ptr)
			}
			fail(le)
		}
		if err := encode(enc, evs, &res); err != nil {
			return res, err
		}
		if rd.Buffered() == 0 {
			if err := bw.Flush(); err != nil {
				return res, err
			}
		}
	}
	if dec != nil {
		if err := encode(enc, dec.End(evs[:0]), &res); err != nil {
			return res, err
		}
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
