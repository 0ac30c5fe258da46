package basis_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evtool/evtool/adapters/basis"
	"github.com/evtool/evtool/adapters/canonical"
	"github.com/evtool/evtool/convert"
)

var update = flag.Bool("update", false, "rewrite golden files from the current output (review them before committing)")

// TestGolden compares the canonical reading of every bundled basis stream
// with a reviewed golden file in testdata/golden.
func TestGolden(t *testing.T) {
	for _, f := range streamFiles(t) {
		name := strings.TrimSuffix(filepath.Base(f), ".jsonl")
		t.Run(name, func(t *testing.T) {
			in, err := os.Open(f)
			if err != nil {
				t.Fatal(err)
			}
			defer in.Close()
			var out bytes.Buffer
			_, err = convert.Run(in, &out, f, convert.Options{From: basis.Dialect{}, To: canonical.Dialect{}},
				func(le *convert.LineError) { t.Error(le) })
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "golden", name+".canonical.jsonl")
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it, then review it)", err)
			}
			if !bytes.Equal(out.Bytes(), want) {
				got, exp := strings.Split(out.String(), "\n"), strings.Split(string(want), "\n")
				for i := 0; i < len(got) && i < len(exp); i++ {
					if got[i] != exp[i] {
						t.Fatalf("line %d differs from %s:\n got %s\nwant %s", i+1, golden, got[i], exp[i])
					}
				}
				t.Fatalf("output has %d lines, %s has %d", len(got), golden, len(exp))
			}
		})
	}
}
