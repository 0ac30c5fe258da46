package dialecttest

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/evtool/evtool/stream"
)

// pinPad is the white space the pinning check puts into each line, and
// pinLines how many such lines the heap may hold once a stream is read: the
// reader's buffer and its last line's events, not a line for every id or
// name the decoder keeps.
const (
	pinPad   = 128 << 10
	pinLines = 6
)

// pinning: each stream of the dialect, every line made pinPad bytes longer
// by white space after its first brace (the same JSON value, the same
// events), is read to its end by a Reader, for writing out and for
// counting (Options.Summary), and with the reader still open the heap may
// hold at most pinLines such lines. A string a decoder keeps from a line
// (an open call's id, a model, a session id) must be a copy of its own:
// cut from the line's copy, it keeps the whole copy alive.
func (k *kit) pinning(t *testing.T) {
	for _, f := range k.streams {
		padded := Padded(k.read(t, f), pinPad)
		for _, summary := range []bool{false, true} {
			opts := stream.Options{Dialect: k.d, Summary: summary}
			// Read once as it is first: what is made once a process (the
			// dialect's schema, compiled) or once a stream's shape is met
			// is no line.
			readAll(t, stream.NewReader(bytes.NewReader(k.read(t, f)), base(f), opts)).Close()
			before := settledHeap()
			rd := readAll(t, stream.NewReader(bytes.NewReader(padded), base(f), opts))
			if after := settledHeap(); after > before+pinLines*pinPad {
				held := after - before
				t.Errorf("%s (summary %v): read to its end, the heap holds %d KiB, %.1f lines of %d KiB", base(f), summary, held>>10, float64(held)/pinPad, pinPad>>10)
			}
			_ = rd.Close()
		}
	}
}

// readAll reads rd to its end and returns it.
func readAll(t *testing.T, rd *stream.Reader) *stream.Reader {
	t.Helper()
	for {
		_, err := rd.Next()
		if err == io.EOF {
			return rd
		}
		var le *stream.LineError
		if err != nil && !errors.As(err, &le) {
			t.Fatal(err)
		}
	}
}

// settledHeap is the live heap once what the pools keep is let go: two
// collections empty a sync.Pool (the first moves its items aside).
func settledHeap() uint64 {
	runtime.GC()
	return liveHeap()
}

// Padded returns the lines of data with n bytes of white space after the
// first brace of each line that is an object: the same JSON values, the
// same events, in lines n bytes longer. A reader that keeps a slice of a
// line it read keeps those bytes alive too, which a heap measure sees;
// the pinning check reads every stream so, and a package that keeps what
// it reads (a report) can hold itself to the same.
func Padded(data []byte, n int) []byte {
	ws := strings.Repeat(" ", n)
	var b bytes.Buffer
	for _, l := range lines(data) {
		if i := strings.IndexByte(l, '{'); i >= 0 && strings.TrimSpace(l[:i]) == "" {
			l = l[:i+1] + ws + l[i+1:]
		}
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.Bytes()
}
