package mermaid_test

import (
	"testing"

	_ "github.com/evtool/evtool/adapters/canonical"
	"github.com/evtool/evtool/adapters/mermaid"
	"github.com/evtool/evtool/internal/golden"
)

// TestGolden compares the canonical reading of every bundled mermaid stream
// with a reviewed golden file in testdata/golden.
func TestGolden(t *testing.T) {
	golden.Canonical(t, mermaid.Dialect{}, streamFiles(t), "testdata/golden")
}
