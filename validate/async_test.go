package validate_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/internal/testkit/streamgen"
	"github.com/evtool/evtool/validate"
)

// largeStream is a generated basis stream of about 3 MiB, past the point
// where the stream rules get a goroutine of their own, with problems of
// every sort spread through it: a line that is not JSON, a schema error,
// stream-rule errors and an unknown field.
func largeStream(t *testing.T) []byte {
	t.Helper()
	in, err := streamgen.Bytes("basis", streamgen.Options{Seed: 3, Bytes: 3 << 20})
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSuffix(in, []byte("\n")), []byte("\n"))
	n := len(lines)
	lines[n/4] = append([]byte(`{"seq":`), lines[n/4]...)                                   // not JSON
	lines[n/3] = bytes.Replace(lines[n/3], []byte(`"seq":`), []byte(`"seq":"x","was":`), 1) // schema
	lines[n/2] = bytes.Clone(lines[n/2-1])                                                  // a repeated line: rule errors
	lines[2*n/3] = bytes.Replace(lines[2*n/3], []byte(`{`), []byte(`{"zz_new":1,`), 1)      // unknown field
	lines[n-3] = []byte(`{"seq":999999999,"type":"tool_started","tool_call_id":"nobody"}`)  // never queued
	return append(bytes.Join(lines, []byte("\n")), '\n')
}

type vrun struct {
	report         string
	sum            validate.Summary
	valid, invalid string
	err            error
}

func validateWith(in []byte, workers int, opts validate.Options) vrun {
	var r vrun
	var rep strings.Builder
	var valid, invalid bytes.Buffer
	opts.Workers = workers
	if opts.MaxErrors == 0 {
		opts.Valid, opts.Invalid = &valid, &invalid
	}
	r.sum, r.err = validate.Stream(bytes.NewReader(in), "in.jsonl", opts, func(d validate.Diagnostic) {
		rep.WriteString(d.String() + "\n")
	})
	r.report, r.valid, r.invalid = rep.String(), valid.String(), invalid.String()
	return r
}

// TestPipeReportsTheSame validates a large stream with one worker
// (everything in one goroutine) and with two (workers, and the stream
// rules in a goroutine of their own): the same report, summary and sorted
// lines, also when MaxErrors stops the reading part way.
func TestPipeReportsTheSame(t *testing.T) {
	in := largeStream(t)
	basis, _ := dialect.Lookup("basis")
	for _, opts := range []validate.Options{{Dialect: basis}, {}, {Dialect: basis, Strict: true}, {Dialect: basis, MaxErrors: 3}} {
		one, two := validateWith(in, 1, opts), validateWith(in, 2, opts)
		if one.err != nil || two.err != nil {
			t.Fatalf("%+v: errors %v, %v", opts, one.err, two.err)
		}
		if one.report != two.report || one.sum != two.sum || one.valid != two.valid || one.invalid != two.invalid {
			t.Fatalf("%+v: -j 2 differs from -j 1:\n%s%+v\n--\n%s%+v", opts, two.report, two.sum, one.report, one.sum)
		}
		if one.sum.Errors < 3 || one.sum.Warnings < 1 {
			t.Fatalf("%+v: the planted problems were not all found: %+v\n%s", opts, one.sum, one.report)
		}
	}
}

type failWriter struct{ n int }

var errFull = errors.New("disk full")

func (w *failWriter) Write(p []byte) (int, error) {
	if w.n < len(p) {
		return 0, errFull
	}
	w.n -= len(p)
	return len(p), nil
}

// TestPipeReportsAWriteError: a write of the sorted lines that fails in
// the rules' goroutine ends the validation with that error.
func TestPipeReportsAWriteError(t *testing.T) {
	in := largeStream(t)
	basis, _ := dialect.Lookup("basis")
	_, err := validate.Stream(bytes.NewReader(in), "in.jsonl", validate.Options{Dialect: basis, Workers: 2, Valid: &failWriter{n: 2 << 20}}, func(validate.Diagnostic) {})
	if !errors.Is(err, errFull) {
		t.Fatalf("got %v, want the write error", err)
	}
}
