// Package golden compares test output with reviewed golden files.
//
// Golden files are written only when the test binary runs with -update,
// and must be reviewed by hand before they are committed.
package golden

import (
	"bytes"

	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evtool/evtool/convert"
	"github.com/evtool/evtool/dialect"
)

var update = flag.Bool("update", false, "rewrite golden files from the current output (review them before committing)")

// Updating reports whether the test binary runs with -update, for golden
// files kept elsewhere (the expected output in a testscript archive).
func Updating() bool { return *update }

// Check compares got with the file at path, line by line.
func Check(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it, then review it)", err)
	}
	if bytes.Equal(got, want) {
		return
	}
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < len(g) && i < len(w); i++ {
		if g[i] != w[i] {
			t.Fatalf("line %d differs from %s:\n got %s\nwant %s", i+1, path, g[i], w[i])
		}
	}
	t.Fatalf("output has %d lines, %s has %d", len(g), path, len(w))
}

// Canonical converts each stream file of dialect from to canonical text and
// checks it against dir/NAME.canonical.jsonl.
func Canonical(t *testing.T, from dialect.Dialect, files []string, dir string) {
	t.Helper()
	to, err := dialect.Lookup("canonical")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".jsonl")
		t.Run(name, func(t *testing.T) {
			in, err := os.Open(f)
			if err != nil {
				t.Fatal(err)
			}
			defer in.Close()
			var out bytes.Buffer
			if _, err := convert.Run(in, &out, f, convert.Options{From: from, To: to}, func(le *convert.LineError) { t.Error(le) }); err != nil {
				t.Fatal(err)
			}
			Check(t, filepath.Join(dir, name+".canonical.jsonl"), out.Bytes())
		})
	}
}
