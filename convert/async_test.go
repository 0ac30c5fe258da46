package convert_test

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/evtool/evtool/convert"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/internal/testkit/streamgen"
)

// largeInput is a generated basis stream of about 3 MiB, past the point
// where the encoder gets a goroutine of its own, with broken lines in it.
func largeInput(t *testing.T) []byte {
	t.Helper()
	in, err := streamgen.Bytes("basis", streamgen.Options{Seed: 7, Bytes: 3 << 20})
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSuffix(in, []byte("\n")), []byte("\n"))
	for _, i := range []int{len(lines) / 3, len(lines) / 2, len(lines) - 2} {
		lines[i] = append([]byte(`{"seq":`), lines[i]...) // not JSON
	}
	return append(bytes.Join(lines, []byte("\n")), '\n')
}

type run struct {
	out  string
	res  convert.Result
	errs []string
	err  error
}

func convertWith(in []byte, to dialect.Dialect, workers int, onError convert.OnError) run {
	var out bytes.Buffer
	var r run
	r.res, r.err = convert.Run(bytes.NewReader(in), &out, "in.jsonl", convert.Options{To: to, Workers: workers, OnError: onError},
		func(le *convert.LineError) { r.errs = append(r.errs, le.Error()) })
	r.out = out.String()
	return r
}

// TestPipeWritesTheSameBytes converts a large input to every writable
// target with one worker (everything in order in one goroutine) and with
// two (workers, and the encoder in a goroutine of its own): the output, the
// problems reported and the counts must be the same.
func TestPipeWritesTheSameBytes(t *testing.T) {
	in := largeInput(t)
	for _, d := range dialect.Targets() {
		t.Run(d.Name(), func(t *testing.T) {
			one, two := convertWith(in, d, 1, convert.Keep), convertWith(in, d, 2, convert.Keep)
			if one.err != nil || two.err != nil {
				t.Fatalf("errors: %v, %v", one.err, two.err)
			}
			if one.out != two.out {
				t.Fatalf("-j 2 wrote %d bytes, -j 1 %d; they differ", len(two.out), len(one.out))
			}
			if strings.Join(one.errs, "\n") != strings.Join(two.errs, "\n") || len(one.errs) != 3 {
				t.Fatalf("problems differ or are not the 3 broken lines:\n%v\n%v", one.errs, two.errs)
			}
			if losses(one.res) != losses(two.res) ||
				one.res.Events != two.res.Events || one.res.Lines != two.res.Lines || one.res.Errors != two.res.Errors {
				t.Fatalf("results differ:\n%+v\n%+v", one.res, two.res)
			}
		})
	}
}

// TestPipeStopsAtTheFirstBadLine: --on-error fail writes everything before
// the line and nothing after, with or without the pipe.
func TestPipeStopsAtTheFirstBadLine(t *testing.T) {
	in := largeInput(t)
	to, _ := dialect.Lookup("canonical")
	one, two := convertWith(in, to, 1, convert.Fail), convertWith(in, to, 2, convert.Fail)
	var f1, f2 *convert.FailError
	if !errors.As(one.err, &f1) || !errors.As(two.err, &f2) || f1.Line != f2.Line {
		t.Fatalf("errors %v, %v", one.err, two.err)
	}
	if one.out != two.out || one.out == "" {
		t.Fatalf("outputs before the bad line differ (%d and %d bytes)", len(one.out), len(two.out))
	}
}

// failingWriter fails every write after the first n bytes.
type failingWriter struct{ n int }

var errDiskFull = errors.New("disk full")

func (w *failingWriter) Write(p []byte) (int, error) {
	if w.n < len(p) {
		return 0, errDiskFull
	}
	w.n -= len(p)
	return len(p), nil
}

// TestPipeReportsAWriteError: a write that fails while the encoder runs
// in its own goroutine ends the conversion with that error.
func TestPipeReportsAWriteError(t *testing.T) {
	in := largeInput(t)
	to, _ := dialect.Lookup("canonical")
	for _, n := range []int{0, 1 << 20, 2 << 20} {
		_, err := convert.Run(bytes.NewReader(in), &failingWriter{n: n}, "in.jsonl", convert.Options{To: to, Workers: 2}, func(*convert.LineError) {})
		if !errors.Is(err, errDiskFull) {
			t.Errorf("after %d bytes: got %v, want the write error", n, err)
		}
	}
}

// losses lists a result's losses, with their counts and first lines.
func losses(r convert.Result) string {
	var b strings.Builder
	for _, l := range r.Losses.List() {
		fmt.Fprintf(&b, "%+v\n", *l)
	}
	return b.String()
}
