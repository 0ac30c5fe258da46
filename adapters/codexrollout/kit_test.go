package codexrollout_test

import (
	"fmt"
	"strings"
	"testing"

	_ "github.com/evtool/evtool/adapters" // judged among every registered dialect
	"github.com/evtool/evtool/adapters/codexrollout"
	"github.com/evtool/evtool/dialecttest"
)

// header is a rollout's first line, before a single line under test.
const header = `{"timestamp":"2026-01-01T00:00:00.000Z","type":"session_meta","payload":{"id":"019b0000-0000-7000-8000-000000000001","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w","originator":"codex_cli_rs","cli_version":"0.80.0","source":"cli","model_provider":"openai"}}`

// corpus is codex-rollout's test corpus, found by convention (its own
// streams, the real 0.39 capture in ../shared/ondisk/captures/codex, the
// invalid streams, goldens and contract), with what only it knows.
func corpus() dialecttest.Corpus {
	c := dialecttest.Conventional(codexrollout.Name)
	c.Header = header
	c.Memory = memory()
	return c
}

// TestDialect runs the conformance kit on codex-rollout. A read-only
// dialect skips the checks of writing (roundtrip, cross).
func TestDialect(t *testing.T) { dialecttest.Run(t, codexrollout.Dialect{}, corpus()) }

// FuzzRoundTrip: no line makes the reader panic, after the header.
func FuzzRoundTrip(f *testing.F) { dialecttest.Fuzz(f, codexrollout.Dialect{}, corpus()) }

// memory is the checker's memory case: 200,000 function calls, each
// announced and answered with a long output, in one turn; then the
// answered calls must still be known.
func memory() *dialecttest.Memory {
	pad := strings.Repeat("x", 100)
	ts := `{"timestamp":"2026-01-01T00:00:01.000Z","type":`
	return &dialecttest.Memory{
		Items: 200_000,
		What:  "answered calls",
		Head: func(f *dialecttest.Feed) {
			f.Line(header)
			f.Line(ts, `"event_msg","payload":{"type":"task_started","turn_id":"t1","model_context_window":272000}}`)
		},
		Item: func(f *dialecttest.Feed, i int) {
			id := fmt.Sprintf(`"call_%d"`, i)
			f.Line(ts, `"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"echo\",\"`, pad, `\"]}","call_id":`, id, `}}`)
			f.Line(ts, `"response_item","payload":{"type":"function_call_output","call_id":`, id, `,"output":"`, pad, `"}}`)
		},
		Probe: func(f *dialecttest.Feed) {
			f.Line(ts, `"response_item","payload":{"type":"function_call_output","call_id":"call_0","output":"again"}}`)
			f.Line(ts, `"response_item","payload":{"type":"function_call","name":"shell","arguments":"{}","call_id":"call_1"}}`)
		},
		End: true,
		Want: []string{
			`codex-rollout/output-repeated: function_call_output for call "call_0", whose output came on line 4`,
			`codex-rollout/call-repeated: call "call_1" was announced on line 5 already`,
			`codex-rollout/truncated: the stream ends inside the turn begun on line 2: the session is running, or its process died`,
		},
	}
}
