package codex_test

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/evtool/evtool/adapters" // judged among every registered dialect
	"github.com/evtool/evtool/adapters/codex"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/dialecttest"
)

// notByteExact lists the streams that hold lines with reordered keys,
// white space or escapes serde_json does not write: they come back as the
// same JSON in the producer's form. Every line of the others comes back
// byte for byte.
var notByteExact = map[string]bool{
	"sorted_keys_whitespace.jsonl":  true,
	"written_strings_unicode.jsonl": true,
}

// corpus is codex's test corpus, found by convention, with what only
// codex knows.
func corpus() dialecttest.Corpus {
	c := dialecttest.Conventional(codex.Name)
	c.Header = header
	c.Reordered = []int{10, 28} // accept lines whose keys are not in the producer's order
	for _, f := range c.Valid {
		if !notByteExact[filepath.Base(f)] {
			c.ByteExact = append(c.ByteExact, f)
		}
	}
	c.Memory = memory()
	return c
}

// TestDialect runs the conformance kit on codex.
func TestDialect(t *testing.T) { dialecttest.Run(t, codex.Dialect{}, corpus()) }

// FuzzRoundTrip: any line the decoder accepts after a header comes back
// through canonical text as the same JSON, and none makes it panic.
func FuzzRoundTrip(f *testing.F) { dialecttest.Fuzz(f, codex.Dialect{}, corpus()) }

// FuzzResidue: whatever line a turn holds, the derivation rebuilds it
// from canonical facts and a residue; it never has to keep the line whole.
func FuzzResidue(f *testing.F) {
	for _, file := range corpus().Valid {
		for _, l := range dialecttest.ReadLines(f, file) {
			f.Add(l)
		}
	}
	f.Fuzz(func(t *testing.T, line string) {
		in := []string{header, turn, line}
		dec := codex.Dialect{}.NewDecoder(dialect.DecodeOptions{})
		for i, l := range in {
			evs, err := dec.Decode(nil, []byte(l), i+1)
			if err != nil {
				return // not one JSON object codex reads
			}
			for _, ev := range evs {
				if bytes.Contains(ev.Ext.Get(codex.Name), []byte(`"@line"`)) {
					t.Fatalf("the derivation could not rebuild the line, which was kept whole:\n%s", line)
				}
			}
		}
	})
}

// memory is the checker memory case: 200,000 command items, each started
// and completed with a long output; then the completed items must still be
// known.
func memory() *dialecttest.Memory {
	pad := strings.Repeat("x", 100)
	return &dialecttest.Memory{
		Items: 200_000,
		What:  "completed items",
		Head:  func(f *dialecttest.Feed) { f.Line(head); f.Line(turn) },
		Item: func(f *dialecttest.Feed, i int) {
			id := fmt.Sprintf(`"item_%d"`, i)
			f.Line(`{"type":"item.started","item":{"id":`, id, `,"type":"command_execution","command":"`, pad, `","aggregated_output":"","exit_code":null,"status":"in_progress"}}`)
			f.Line(`{"type":"item.completed","item":{"id":`, id, `,"type":"command_execution","command":"`, pad, `","aggregated_output":"`, pad, `","exit_code":0,"status":"completed"}}`)
		},
		Probe: func(f *dialecttest.Feed) { f.Line(cmdStarted("item_0")); f.Line(done) },
		End:   true,
		Want:  []string{codex.RuleItemClosed.ID + `: item.started for item "item_0", which completed on line 4`},
	}
}
