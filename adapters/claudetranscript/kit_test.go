package claudetranscript_test

import (
	"fmt"
	"strings"
	"testing"

	_ "github.com/evtool/evtool/adapters" // judged among every registered dialect
	"github.com/evtool/evtool/adapters/claudetranscript"
	"github.com/evtool/evtool/dialecttest"
)

// corpus is the dialect's test corpus, found by convention (its streams
// in testdata/, the real transcripts in ../shared/ondisk/captures/
// claude-code/), with its own long stream for the memory check, which a
// read-only dialect needs. Its rule ids are documented in its own page;
// docs/rules.md lists them once it is regenerated.
func corpus() dialecttest.Corpus {
	c := dialecttest.Conventional(claudetranscript.Name)
	c.Memory = memory()
	return c
}

// TestDialect runs the conformance kit on claude-transcript.
func TestDialect(t *testing.T) { dialecttest.Run(t, claudetranscript.Dialect{}, corpus()) }

// FuzzRoundTrip: no line makes the reader panic (a read-only dialect is
// not written back).
func FuzzRoundTrip(f *testing.F) { dialecttest.Fuzz(f, claudetranscript.Dialect{}, corpus()) }

// memory is the checker's long stream: 200,000 tool calls, each an
// assistant line with its tool_use and a user line with its tool_result,
// chained by parentUuid; then a second result for the first call must
// still be found.
func memory() *dialecttest.Memory {
	pad := strings.Repeat("x", 100)
	env := func(uuid, parent string) string {
		return `"parentUuid":"` + parent + `","isSidechain":false,"userType":"external","cwd":"/w","sessionId":"s1","version":"2.1.0","gitBranch":"main","uuid":"` + uuid + `","timestamp":"2026-01-02T03:04:05.678Z"`
	}
	return &dialecttest.Memory{
		Items: 200_000,
		What:  "answered tool calls",
		Head: func(f *dialecttest.Feed) {
			f.Line(`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/w","sessionId":"s1","version":"2.1.0","gitBranch":"main","type":"user","message":{"role":"user","content":"go"},"uuid":"u-start","timestamp":"2026-01-02T03:04:05.678Z"}`)
		},
		Item: func(f *dialecttest.Feed, i int) {
			parent := "u-start"
			if i > 0 {
				parent = fmt.Sprintf("u%d", i-1)
			}
			id := fmt.Sprintf("toolu_%d", i)
			f.Line(`{`, env(fmt.Sprintf("a%d", i), parent), `,"type":"assistant","requestId":"req_`, id, `","message":{"id":"msg_`, id,
				`","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"`, id,
				`","name":"Read","input":{"file_path":"/w/`, pad, `"}}],"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":3,"output_tokens":40,"cache_read_input_tokens":1000,"cache_creation_input_tokens":10}}}`)
			f.Line(`{`, env(fmt.Sprintf("u%d", i), fmt.Sprintf("a%d", i)), `,"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"`, id,
				`","content":"`, pad, `"}]}}`)
		},
		Probe: func(f *dialecttest.Feed) {
			f.Line(`{`, env("u-again", "u199999"), `,"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_0","content":"again"}]}}`)
		},
		End:  true,
		Want: []string{"claude-transcript/tool-result-repeated: tool_result for toolu_0, which was answered on line 3"},
	}
}
