package opencodestorage_test

import (
	"fmt"
	"strings"
	"testing"

	_ "github.com/evtool/evtool/adapters" // judged among every registered dialect
	"github.com/evtool/evtool/adapters/opencodestorage"
	"github.com/evtool/evtool/dialecttest"
)

// header is the session line single lines under test follow.
const header = `{"type":"session","id":"ses_kit","data":{"id":"ses_kit","directory":"/w","title":"kit","version":"1.2.6","time_created":1767000000000,"time_updated":1767000000000}}`

// corpus is the dialect's test corpus, found by convention, with what
// only it knows.
func corpus() dialecttest.Corpus {
	c := dialecttest.Conventional(opencodestorage.Name)
	c.Header = header
	c.Memory = memory()
	return c
}

// TestDialect runs the conformance kit on opencode-storage (read-only:
// the kit skips the checks of writing).
func TestDialect(t *testing.T) { dialecttest.Run(t, opencodestorage.Dialect{}, corpus()) }

// FuzzRoundTrip: no line makes the reader panic.
func FuzzRoundTrip(f *testing.F) { dialecttest.Fuzz(f, opencodestorage.Dialect{}, corpus()) }

// memory is the checker memory case: 100,000 assistant messages, each
// with a completed tool part, a step-finish and a long output; then a
// repeated message id must still be found, and a part of an earlier
// message after the last.
func memory() *dialecttest.Memory {
	pad := strings.Repeat("x", 100)
	return &dialecttest.Memory{
		Items: 100_000,
		What:  "messages",
		Head:  func(f *dialecttest.Feed) { f.Line(header) },
		Item: func(f *dialecttest.Feed, i int) {
			mid := fmt.Sprintf(`"msg_%07d"`, i)
			f.Line(`{"type":"message","id":`, mid, `,"sessionID":"ses_kit","data":{"role":"assistant","time":{"created":`, fmt.Sprint(1767000000000+i), `,"completed":`, fmt.Sprint(1767000000000+i), `},"modelID":"m","providerID":"p","cost":0,"tokens":{"input":1,"output":2,"reasoning":0,"cache":{"read":0,"write":0}},"finish":"stop"}}`)
			f.Line(`{"type":"part","id":"prt_`, fmt.Sprintf("%07d", i), `a","messageID":`, mid, `,"sessionID":"ses_kit","data":{"type":"tool","callID":"c","tool":"bash","state":{"status":"completed","input":{"command":"`, pad, `"},"output":"`, pad, `","title":"t","metadata":{},"time":{"start":1,"end":2}}}}`)
			f.Line(`{"type":"part","id":"prt_`, fmt.Sprintf("%07d", i), `b","messageID":`, mid, `,"sessionID":"ses_kit","data":{"type":"step-finish","reason":"stop","cost":0,"tokens":{"input":1,"output":2,"reasoning":0,"cache":{"read":0,"write":0}}}}`)
		},
		Probe: func(f *dialecttest.Feed) {
			f.Line(`{"type":"message","id":"msg_0000000","sessionID":"ses_kit","data":{"role":"user","time":{"created":1767000100000}}}`)
			f.Line(`{"type":"part","id":"prt_x","messageID":"msg_0099999","sessionID":"ses_kit","data":{"type":"text","text":"late"}}`)
			f.Line(`{"type":"message","id":"msg_x","sessionID":"ses_kit","data":{"role":"assistant","time":{"created":1767000100001,"completed":1767000100002},"modelID":"m","providerID":"p","cost":0,"tokens":{"input":1,"output":2,"reasoning":0,"cache":{"read":0,"write":0}},"finish":"stop"}}`)
		},
		End: true,
		Want: []string{
			`opencode-storage/id-repeated: message "msg_0000000" was on line 2 already`,
			`opencode-storage/part-message: part "prt_x" of message "msg_0099999" follows message "msg_0000000"`,
		},
	}
}
