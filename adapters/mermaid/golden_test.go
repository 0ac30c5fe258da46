package mermaid_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evtool/evtool/adapters/canonical"
	"github.com/evtool/evtool/adapters/mermaid"
	"github.com/evtool/evtool/convert"
	"github.com/evtool/evtool/internal/golden"
)

// TestGolden compares the canonical reading of every bundled mermaid stream
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
			if _, err := convert.Run(in, &out, f, convert.Options{From: mermaid.Dialect{}, To: canonical.Dialect{}},
				func(le *convert.LineError) { t.Error(le) }); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", "golden", name+".canonical.jsonl"), out.Bytes())
		})
	}
}
