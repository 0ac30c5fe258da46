package gemini_test

import (
	"testing"

	"github.com/evtool/evtool/adapters/gemini"
	"github.com/evtool/evtool/internal/golden"
)

// TestGolden compares the canonical reading of every written gemini stream
// with a reviewed golden file in testdata/golden.
func TestGolden(t *testing.T) {
	golden.Canonical(t, gemini.Dialect{}, streamFiles(t), "testdata/golden")
}
