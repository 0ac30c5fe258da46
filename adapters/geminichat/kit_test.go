package geminichat_test

import (
	"fmt"
	"strings"
	"testing"

	_ "github.com/evtool/evtool/adapters" // judged among every registered dialect
	"github.com/evtool/evtool/adapters/geminichat"
	"github.com/evtool/evtool/dialecttest"
)

// head is the metadata line single lines under test stand after.
const head = `{"sessionId":"5c1f0a7e-0000-4000-8000-000000000001","projectHash":"9da8b3dfb8655182ac1f0e66601c367e34f8d18447a29759eeba4d7e45dc60ea","startTime":"2026-04-23T12:52:52.759Z","lastUpdated":"2026-04-23T12:52:52.759Z","kind":"main"}`

// corpus is gemini-chat's test corpus, found by convention (its streams,
// invalid streams, goldens and contract cases here, and the real chat in
// ../shared/ondisk/captures/gemini-cli), with what only gemini-chat knows.
func corpus() dialecttest.Corpus {
	c := dialecttest.Conventional(geminichat.Name)
	c.Header = head
	c.Memory = memory()
	return c
}

// TestDialect runs the conformance kit on gemini-chat. It is read-only:
// the kit reads it and skips the checks of writing.
func TestDialect(t *testing.T) { dialecttest.Run(t, geminichat.Dialect{}, corpus()) }

// FuzzRoundTrip: no line, after the metadata, makes the decoder or the
// checker panic.
func FuzzRoundTrip(f *testing.F) { dialecttest.Fuzz(f, geminichat.Dialect{}, corpus()) }

// memory is the checker's memory case: 150,000 model responses, each
// written twice (Gemini CLI re-appends a record as it learns its tool
// calls) with a $set between, every line with a long text; then the
// records must still be known: a record written again after others is
// found, and so is a rewind to a record that never was.
func memory() *dialecttest.Memory {
	pad := strings.Repeat("x", 100)
	rec := func(i int, calls bool) []string {
		parts := []string{`{"id":"r`, fmt.Sprintf("%07d", i), `","timestamp":"2026-04-23T12:53:11.257Z","type":"gemini","content":"`, pad,
			`","thoughts":[],"tokens":{"input":10,"output":2,"cached":4,"thoughts":3,"tool":0,"total":15},"model":"gemini-3-flash-preview"`}
		if calls {
			parts = append(parts, `,"toolCalls":[{"id":"c`, fmt.Sprintf("%07d", i), `","name":"read_file","args":{"file_path":"`, pad,
				`"},"result":[{"functionResponse":{"id":"c`, fmt.Sprintf("%07d", i), `","name":"read_file","response":{"output":"`, pad,
				`"}}}],"status":"success","timestamp":"2026-04-23T12:53:11.357Z"}]`)
		}
		return append(parts, `}`)
	}
	return &dialecttest.Memory{
		Items: 150_000,
		What:  "records written twice",
		Head:  func(f *dialecttest.Feed) { f.Line(head) },
		Item: func(f *dialecttest.Feed, i int) {
			f.Line(rec(i, false)...)
			f.Line(`{"$set":{"lastUpdated":"2026-04-23T12:53:11.257Z"}}`)
			f.Line(rec(i, true)...)
		},
		Probe: func(f *dialecttest.Feed) {
			f.Line(rec(1, true)...)
			f.Line(`{"$rewindTo":"never"}`)
		},
		End: true,
		Want: []string{
			geminichat.RuleReappended.ID + `: record "r0000001" is written again after other records (it is emitted again, with what it adds)`,
			geminichat.RuleRewindUnknown.ID + `: $rewindTo names "never", which is no record on the conversation's path`,
		},
	}
}
