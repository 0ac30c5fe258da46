package claude_test

import (
	"testing"

	_ "github.com/evtool/evtool/adapters" // judged among every registered dialect
	"github.com/evtool/evtool/adapters/claude"
	"github.com/evtool/evtool/dialecttest"
)

// TestDialect runs the conformance kit on claude, with its corpus found by
// convention.
func TestDialect(t *testing.T) {
	dialecttest.Run(t, claude.Dialect{}, corpus())
}

// FuzzRoundTrip: any line the decoder accepts comes back through canonical
// text as the same JSON, and none makes it panic.
func FuzzRoundTrip(f *testing.F) { dialecttest.Fuzz(f, claude.Dialect{}, corpus()) }

func corpus() dialecttest.Corpus { return dialecttest.Conventional(claude.Name) }
