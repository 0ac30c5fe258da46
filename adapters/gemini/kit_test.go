package gemini_test

import (
	"path/filepath"
	"testing"

	_ "github.com/evtool/evtool/adapters" // judged among every registered dialect
	"github.com/evtool/evtool/adapters/gemini"
	"github.com/evtool/evtool/dialecttest"
	"github.com/evtool/evtool/internal/testkit/teststreams"
)

// corpus is gemini's test corpus, found by convention, with what only
// gemini knows: its written streams are in the producer's form, and a
// line the schema refuses but the reader keeps is written back as it was.
func corpus() dialecttest.Corpus {
	c := dialecttest.Conventional(gemini.Name)
	c.Header = header
	c.KeepsRefused = true
	c.ByteExact, _ = filepath.Glob(filepath.Join(teststreams.Root(), "adapters", gemini.Name, "testdata", "*.jsonl"))
	return c
}

// TestDialect runs the conformance kit on gemini.
func TestDialect(t *testing.T) { dialecttest.Run(t, gemini.Dialect{}, corpus()) }

// FuzzRoundTrip: any line the decoder accepts after an init comes back
// through canonical text as equal JSON, the init byte for byte, and none
// makes it panic.
func FuzzRoundTrip(f *testing.F) { dialecttest.Fuzz(f, gemini.Dialect{}, corpus()) }
