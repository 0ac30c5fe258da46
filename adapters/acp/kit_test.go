package acp_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	_ "github.com/evtool/evtool/adapters" // judged among every registered dialect
	"github.com/evtool/evtool/adapters/acp"
	"github.com/evtool/evtool/dialecttest"
)

// corpus is acp's corpus: it has no streams of its own, so the kit reads
// every other dialect's streams projected onto ACP (stable profile). The
// other profiles and modes are this package's own tests.
func corpus() dialecttest.Corpus {
	c := dialecttest.Conventional(acp.Name)
	c.Memory = memory()
	// A projection: a line read back is not promised to be written as it
	// was (the writer closes what the stream leaves open, numbers its own
	// message ids); the fuzzer proves only that no line makes it panic.
	c.Lossy = func(string) bool { return true }
	return c
}

// TestDialect runs the conformance kit on the ACP projection.
func TestDialect(t *testing.T) { dialecttest.Run(t, acp.Dialect{}, corpus()) }

// FuzzRoundTrip: no ACP line makes the reader or the writer panic.
func FuzzRoundTrip(f *testing.F) { dialecttest.Fuzz(f, acp.Dialect{}, corpus()) }

// memory is the checker memory case: a transcript of 120,000 tool calls
// (a quarter with an answered permission request), each announced and
// completed, every line with a long title, which a kept gjson string would
// pin; then the completed calls must still be known, and one opened again
// is open at the end.
func memory() *dialecttest.Memory {
	pad := strings.Repeat("x", 100)
	update := func(f *dialecttest.Feed, parts ...string) {
		f.Line(append(append([]string{`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":`}, parts...), `}}`)...)
	}
	return &dialecttest.Memory{
		Items: 120_000,
		What:  "completed calls",
		Head: func(f *dialecttest.Feed) {
			f.Line(`{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"s","prompt":[]}}`)
		},
		Item: func(f *dialecttest.Feed, i int) {
			id := fmt.Sprintf(`"call_%07d"`, i)
			update(f, `{"sessionUpdate":"tool_call","toolCallId":`, id, `,"title":"`, pad, `","kind":"read","status":"pending"}`)
			if i%4 == 0 {
				rid := strconv.Itoa(i + 2)
				f.Line(`{"jsonrpc":"2.0","id":`, rid, `,"method":"session/request_permission","params":{"sessionId":"s","toolCall":{"toolCallId":`, id, `,"title":"`, pad, `"},"options":[]}}`)
				f.Line(`{"jsonrpc":"2.0","id":`, rid, `,"result":{"outcome":{"outcome":"selected","optionId":"allow-once"}}}`)
			}
			if i%4 == 1 {
				update(f, `{"sessionUpdate":"tool_call_update","toolCallId":`, id, `,"status":"in_progress"}`)
			}
			update(f, `{"sessionUpdate":"tool_call_update","toolCallId":`, id, `,"status":"completed","content":[{"type":"content","content":{"type":"text","text":"`, pad, `"}}]}`)
		},
		Probe: func(f *dialecttest.Feed) {
			update(f, `{"sessionUpdate":"tool_call","toolCallId":"call_0000000","title":"t","status":"completed"}`)
			f.Line(`{"jsonrpc":"2.0","id":"p","method":"session/request_permission","params":{"sessionId":"s","toolCall":{"toolCallId":"call_0000001"},"options":[]}}`)
			f.Line(`{"jsonrpc":"2.0","id":"p","result":{"outcome":{"outcome":"cancelled"}}}`)
			update(f, `{"sessionUpdate":"tool_call_update","toolCallId":"call_0000002","status":"in_progress"}`)
			f.Line(`{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}`)
		},
		End: true,
		Want: []string{
			`acp/tool-call-duplicate: a second tool_call for "call_0000000"`,
			`acp/turn-closed: the turn ends with tool call "call_0000002" still in_progress`,
			`acp/tool-call-open: tool call "call_0000002" is still in_progress at the end of the stream`,
		},
	}
}
