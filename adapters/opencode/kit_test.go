package opencode_test

import (
	"testing"

	_ "github.com/evtool/evtool/adapters" // judged among every registered dialect
	"github.com/evtool/evtool/adapters/opencode"
	"github.com/evtool/evtool/dialecttest"
)

// TestDialect runs the conformance kit on opencode, with its corpus found by
// convention.
func TestDialect(t *testing.T) {
	dialecttest.Run(t, opencode.Dialect{}, corpus())
}

// FuzzRoundTrip: any line the decoder accepts comes back through canonical
// text as the same JSON, and none makes it panic.
func FuzzRoundTrip(f *testing.F) { dialecttest.Fuzz(f, opencode.Dialect{}, corpus()) }

// corpus is opencode's test corpus: its residue keeps, for a line whose
// keys are reordered, the values it otherwise derives.
func corpus() dialecttest.Corpus {
	c := dialecttest.Conventional(opencode.Name)
	c.LayoutInResidue = true
	return c
}
