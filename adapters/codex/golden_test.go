package codex_test

import (
	"path/filepath"
	"testing"

	"github.com/evtool/evtool/adapters/codex"
	"github.com/evtool/evtool/internal/golden"
)

// TestGolden compares the canonical reading of the shared captures and of
// the streams written from the reference with reviewed golden files in
// testdata/golden.
func TestGolden(t *testing.T) {
	written, _ := filepath.Glob("testdata/*.jsonl")
	golden.Canonical(t, codex.Dialect{}, append(captures(t), written...), "testdata/golden")
}
