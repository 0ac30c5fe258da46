package mermaid_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/evtool/evtool/adapters" // judged among every registered dialect
	"github.com/evtool/evtool/adapters/mermaid"
	"github.com/evtool/evtool/dialecttest"
	"github.com/evtool/evtool/internal/testkit/teststreams"
	"github.com/tidwall/gjson"
)

// corpus is mermaid's test corpus, found by convention, with what only
// mermaid knows.
func corpus() dialecttest.Corpus {
	c := dialecttest.Conventional(mermaid.Name)
	c.Header = header
	c.ByteExact, _ = filepath.Glob(filepath.Join(teststreams.Root(), "testdata", "streams", mermaid.Name, "*.jsonl"))
	c.Lossy = missingRequired
	c.Memory = memory()
	return c
}

// TestDialect runs the conformance kit on mermaid.
func TestDialect(t *testing.T) { dialecttest.Run(t, mermaid.Dialect{}, corpus()) }

// FuzzRoundTrip: any line the decoder accepts after a header comes back
// through canonical text as equal JSON, and none makes it panic.
func FuzzRoundTrip(f *testing.F) { dialecttest.Fuzz(f, mermaid.Dialect{}, corpus()) }

// missingRequired reports whether a known-type line lacks a field mermaid
// always writes: the encoder writes it back, so the line gains a key.
func missingRequired(line string) bool {
	r := gjson.Parse(line)
	req := map[string][]string{
		"text": {"delta"}, "reasoning": {"delta"}, "tool_started": {"call_id"},
		"tool_finished":     {"call_id", "name", "status", "summary"},
		"approval_required": {"call_id", "tool", "risk", "prompt"},
		"tasks_updated":     {"tasks", "completed", "total"},
		"error":             {"message"},
		"result":            {"response", "total_tokens", "errors"},
	}
	for _, k := range req[r.Get("type").Str] {
		if !r.Get(gjson.Escape(k)).Exists() {
			return true
		}
	}
	return false
}

// memory is the checker memory case: 200,000 tool calls, each started and
// finished (a quarter with an approval), every line with a long summary
// or prompt, which a kept gjson string would pin; then the finished calls
// must still be known, with their lines.
func memory() *dialecttest.Memory {
	pad := strings.Repeat("x", 100)
	return &dialecttest.Memory{
		Items: 200_000,
		What:  "finished calls",
		Head:  func(f *dialecttest.Feed) { f.Line(mhead) },
		Item: func(f *dialecttest.Feed, i int) {
			id := fmt.Sprintf(`"call_%07d"`, i)
			if i%8 == 0 { // approved before it starts
				f.Line(`{"type":"approval_required","call_id":`, id, `,"tool":"x","risk":"network","prompt":"`, pad, `"}`)
			}
			f.Line(`{"type":"tool_started","call_id":`, id, `}`)
			if i%8 == 4 {
				f.Line(`{"type":"approval_required","call_id":`, id, `,"tool":"x","risk":"network","prompt":"`, pad, `"}`)
			}
			f.Line(`{"type":"tool_finished","call_id":`, id, `,"name":"x","status":"success","summary":"`, pad, `","error":null}`)
		},
		Probe: func(f *dialecttest.Feed) {
			f.Line(started("call_0000000"))
			f.Line(finished("call_0000001"))
			f.Line(approval("call_0000002"))
			f.Line(mres)
		},
		End: true,
		Want: []string{
			`mermaid/tool-restarted: call "call_0000000" was already started on line 3`,
			`mermaid/tool-finished-twice: call "call_0000001" already finished on line 6`,
			`mermaid/approval-after-finish: approval_required for call "call_0000002", which already finished on line 8`,
		},
	}
}
