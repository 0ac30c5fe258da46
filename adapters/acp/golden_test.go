package acp_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/evtool/evtool/adapters"
	"github.com/evtool/evtool/adapters/acp"
	"github.com/evtool/evtool/convert"
	"github.com/evtool/evtool/internal/testkit/golden"
)

// TestGolden projects each input in testdata/acp (and the muse capture
// named in testdata/acp/README.md) and compares with the reviewed
// expectation beside it: NAME.acp.jsonl (stable), NAME.transcript.jsonl.
func TestGolden(t *testing.T) {
	inputs, _ := filepath.Glob("../../testdata/acp/*.jsonl")
	var srcs []string
	for _, in := range inputs {
		if !strings.Contains(filepath.Base(in), ".") || strings.Count(filepath.Base(in), ".") == 1 {
			srcs = append(srcs, in)
		}
	}
	srcs = append(srcs, "../../../shared/corpus/muse/meta_tool_use.jsonl")
	for _, in := range srcs {
		base := strings.TrimSuffix(filepath.Base(in), ".jsonl")
		if strings.Contains(in, "corpus") {
			base = "muse_" + base
		}
		for _, mode := range []string{"acp", "transcript"} {
			t.Run(base+"."+mode, func(t *testing.T) {
				f, err := os.Open(in)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				var out bytes.Buffer
				cfg := &acp.Config{Profile: acp.Stable, Transcript: mode == "transcript"}
				if _, err := convert.Run(f, &out, in, convert.Options{To: acp.Dialect{}, Config: cfg}, func(le *convert.LineError) { t.Error(le) }); err != nil {
					t.Fatal(err)
				}
				golden.Check(t, filepath.Join("../../testdata/acp", base+"."+mode+".jsonl"), out.Bytes())
			})
		}
	}
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
