package canonical_test

import (
	"fmt"
	"strings"
	"testing"

	_ "github.com/evtool/evtool/adapters" // judged among every registered dialect
	"github.com/evtool/evtool/adapters/canonical"
	"github.com/evtool/evtool/dialecttest"
	"github.com/evtool/evtool/internal/testkit/seqfeed"
	"github.com/tidwall/gjson"
)

// corpus is canonical's corpus: it has no streams of its own, so the kit
// reads every other dialect's streams written as canonical.
func corpus() dialecttest.Corpus {
	c := dialecttest.Conventional("canonical")
	c.Memory = memory()
	// The writer numbers seq from 0: only a line numbered 0 comes back
	// as it was.
	c.Lossy = func(line string) bool { return gjson.Get(line, "seq").Raw != "0" }
	return c
}

// TestDialect runs the conformance kit on evtool's own model.
func TestDialect(t *testing.T) { dialecttest.Run(t, canonical.Dialect{}, corpus()) }

// FuzzRoundTrip: any canonical line the decoder accepts comes back as the
// same JSON, and none makes it panic.
func FuzzRoundTrip(f *testing.F) { dialecttest.Fuzz(f, canonical.Dialect{}, corpus()) }

// memory is the checker memory case: 200,000 tool calls (a quarter with a
// permission request, and a turn per hundred calls), each opened and
// closed, every line with a long text, which a kept gjson string would
// pin; then the closed ids must still be known.
func memory() *dialecttest.Memory {
	pad := strings.Repeat("x", 100)
	line := seqfeed.Line
	return &dialecttest.Memory{
		Items: 200_000,
		What:  "closed calls",
		Head: func(f *dialecttest.Feed) {
			line(f, `"type":"session_started","schema":1,"source":{"dialect":"basis"}`)
		},
		Item: func(f *dialecttest.Feed, i int) {
			id, req, turn := fmt.Sprintf(`"c%07d"`, i), fmt.Sprintf(`"r%07d"`, i), fmt.Sprintf(`"t%05d"`, i/100)
			if i%100 == 0 {
				line(f, `"type":"turn_started","turn_id":`, turn, `,"prompt":"`, pad, `"`)
			}
			line(f, `"type":"tool_call","call_id":`, id, `,"name":"read_file","title":"`, pad, `"`)
			if i%4 == 0 {
				line(f, `"type":"permission_requested","request_id":`, req, `,"call_id":`, id, `,"description":"`, pad, `"`)
				line(f, `"type":"permission_resolved","request_id":`, req, `,"call_id":`, id, `,"outcome":"allowed"`)
			}
			line(f, `"type":"tool_started","call_id":`, id)
			line(f, `"type":"tool_finished","call_id":`, id, `,"status":"success","summary":"`, pad, `"`)
			if i%100 == 99 {
				line(f, `"type":"turn_finished","turn_id":`, turn, `,"status":"ok","text":"`, pad, `"`)
			}
		},
		Probe: func(f *dialecttest.Feed) {
			line(f, `"type":"tool_call","call_id":"c0000000","name":"x"`)
			line(f, `"type":"tool_output","call_id":"c0000001","chunk":"late"`)
			line(f, `"type":"turn_finished","turn_id":"t00000","status":"ok"`)
			line(f, `"type":"permission_resolved","request_id":"r0000004","outcome":"allowed"`)
		},
		Want: []string{
			`canonical/tool-called-twice: a second tool_call for "c0000000"`,
			`canonical/tool-closed: tool_output for "c0000001" after its tool_finished`,
			`canonical/turn-closed: turn "t00000" finished twice`,
			`canonical/permission-resolved-twice: permission request "r0000004" resolved twice`,
		},
	}
}
