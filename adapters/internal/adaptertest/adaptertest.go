// Package adaptertest holds what the tests of several adapters share: the
// finding of their corpus (test streams, captures and a wire reference's
// example lines, each of which a test needs at least some of: a test over
// a corpus that is not there proves nothing), the reading of its lines,
// the round trip of single lines, and the live heap of the memory tests.
package adaptertest

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/evtool/evtool/dialecttest"
	"github.com/evtool/evtool/internal/testkit/teststreams"
	"github.com/tidwall/gjson"
)

// AtLeast returns files, and fails the test when it holds fewer than n.
func AtLeast(t testing.TB, files []string, n int, what string) []string {
	t.Helper()
	if len(files) < n {
		t.Fatalf("found only %d %s, want %d or more", len(files), what, n)
	}
	return files
}

// Glob returns the files that match pattern, at least n of them.
func Glob(t testing.TB, pattern string, n int, what string) []string {
	t.Helper()
	files, err := filepath.Glob(pattern)
	if err != nil {
		t.Fatal(err)
	}
	return AtLeast(t, files, n, what)
}

// ReferenceLines returns the example lines of a wire reference that begin
// with prefix, at least n of them (see teststreams.ExampleLines), and more
// lines found by more, if any.
func ReferenceLines(t testing.TB, path, prefix string, n int, more func(doc string) []string) []string {
	t.Helper()
	doc := teststreams.Reference(t, path)
	out := teststreams.ExampleLines(doc, prefix)
	if more != nil {
		out = append(out, more(doc)...)
	}
	return AtLeast(t, out, n, "example lines in "+path)
}

// ReadFile returns a file's bytes.
func ReadFile(t testing.TB, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// LiveHeap returns the bytes the heap holds after a collection: what a
// reader keeps, for the tests that hold it to a bound.
func LiveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// EachLine calls f with every line of the files, parsed.
func EachLine(t testing.TB, files []string, f func(r gjson.Result)) {
	t.Helper()
	for _, file := range files {
		for _, l := range dialecttest.ReadLines(t, file) {
			f(gjson.Parse(l))
		}
	}
}

// SameBack requires each line to come back byte for byte from roundTrip,
// read after header unless the line holds start (it is a header itself).
func SameBack(t testing.TB, lines []string, header, start string, roundTrip func([]string) []string) {
	t.Helper()
	for _, l := range lines {
		in := []string{header, l}
		if strings.Contains(l, start) {
			in = []string{l}
		}
		back := roundTrip(in)
		if got := back[len(back)-1]; got != l {
			t.Errorf("line not byte-identical:\n in: %s\nout: %s", l, got)
		}
	}
}
