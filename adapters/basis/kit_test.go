package basis_test

import (
	"fmt"
	"strings"
	"testing"

	_ "github.com/evtool/evtool/adapters" // judged among every registered dialect
	"github.com/evtool/evtool/adapters/basis"
	"github.com/evtool/evtool/dialecttest"
	"github.com/evtool/evtool/internal/testkit/seqfeed"
)

// corpus is basis's test corpus, found by convention, with what only
// basis knows.
func corpus() dialecttest.Corpus {
	c := dialecttest.Conventional(basis.Name)
	c.Lossy = missingRequired
	c.Memory = memory()
	return c
}

// TestDialect runs the conformance kit on basis.
func TestDialect(t *testing.T) { dialecttest.Run(t, basis.Dialect{}, corpus()) }

// FuzzRoundTrip: any line the decoder accepts survives basis → canonical
// text → basis as equal JSON, and none makes it panic.
func FuzzRoundTrip(f *testing.F) {
	f.Add(`{"seq":1,"type":"usage","input_tokens":1e3}`)
	f.Add(`{"seq":1,"type":"user_message","text":"a","text":"b"}`)
	dialecttest.Fuzz(f, basis.Dialect{}, corpus())
}

// memory is the checker memory case: 200,000 tool calls (and 50,000
// permission requests), each opened and closed, every line with a long
// summary, which a kept gjson string would pin; then the closed ids must
// still be known, with the line they were opened on.
func memory() *dialecttest.Memory {
	pad := strings.Repeat("x", 100)
	line := seqfeed.Line // basis's seq: 0 on the first line
	return &dialecttest.Memory{
		Items: 200_000,
		What:  "closed calls",
		Head: func(f *dialecttest.Feed) {
			line(f, `"type":"run_started","schema":2,"basis":"0.6.2","session_id":"s","workspace":"/w","model":"m","provider":"p"`)
		},
		Item: func(f *dialecttest.Feed, i int) {
			id, perm := fmt.Sprintf(`"call_%07d"`, i), fmt.Sprintf(`"perm_%07d"`, i)
			line(f, `"type":"tool_queued","tool_call_id":`, id, `,"tool_name":"read_file","summary":"`, pad, `","mutability":"read_only","input":{}`)
			if i%4 == 0 {
				line(f, `"type":"permission_requested","request_id":`, perm, `,"tool_call_id":`, id, `,"tool_name":"read_file","description":"`, pad, `"`)
				line(f, `"type":"permission_resolved","request_id":`, perm, `,"tool_call_id":`, id, `,"tool_name":"read_file","outcome":"allowed"`)
			}
			if i%2 == 0 { // a call may also complete without starting
				line(f, `"type":"tool_started","tool_call_id":`, id, `,"tool_name":"read_file"`)
			}
			line(f, `"type":"tool_completed","tool_call_id":`, id, `,"tool_name":"read_file","summary":"`, pad, `","is_error":false`)
		},
		Probe: func(f *dialecttest.Feed) {
			line(f, `"type":"tool_queued","tool_call_id":"call_0000000","tool_name":"read_file","summary":"","mutability":"read_only","input":{}`)
			line(f, `"type":"tool_started","tool_call_id":"call_0000004","tool_name":"read_file"`)
			line(f, `"type":"permission_requested","request_id":"perm_0000004","tool_call_id":"call_0000004","tool_name":"read_file","description":""`)
			line(f, `"type":"permission_resolved","request_id":"perm_0000008","tool_call_id":"call_0000008","tool_name":"read_file","outcome":"allowed"`)
		},
		Want: []string{
			`basis/tool-requeued: tool call "call_0000000" was already queued on line 2`,
			`basis/tool-closed: tool_started for tool call "call_0000004", which already completed`,
			`basis/permission-duplicate: permission request "perm_0000004" was already made on line 15`,
			`basis/tool-closed: permission_requested for tool call "call_0000004", which already completed`,
			`basis/permission-resolved-twice: permission request "perm_0000008" was already resolved`,
			`basis/tool-closed: permission_resolved for tool call "call_0000008", which already completed`,
		},
	}
}
