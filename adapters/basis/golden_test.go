package basis_test

import (
	"testing"

	"github.com/evtool/evtool/adapters/basis"
	_ "github.com/evtool/evtool/adapters/canonical"
	"github.com/evtool/evtool/internal/golden"
)

// TestGolden compares the canonical reading of every bundled basis stream
// with a reviewed golden file in testdata/golden.
func TestGolden(t *testing.T) {
	golden.Canonical(t, basis.Dialect{}, streamFiles(t), "testdata/golden")
}
