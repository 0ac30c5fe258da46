package acp_test

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/evtool/evtool/adapters/acp"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/internal/ruletest"
)

// TestCheckerMemory feeds the checker a transcript of 120,000 tool calls
// (a quarter with an answered permission request), each announced and
// completed, and checks that what it keeps afterwards is a few bytes per
// completed call, not the ids or their lines: every line carries a long
// title, which a kept gjson string would pin. It then checks that the
// completed calls are still known.
func TestCheckerMemory(t *testing.T) {
	const calls = 120_000
	pad := strings.Repeat("x", 100)
	ch := acp.Dialect{}.NewChecker(dialect.CheckOptions{})
	var findings []dialect.Finding
	report := func(f dialect.Finding) { findings = append(findings, f) }
	n := 0
	var buf []byte
	feed := func(parts ...string) {
		buf = buf[:0]
		for _, p := range parts {
			buf = append(buf, p...)
		}
		n++
		ch.Line(buf, n, report)
	}
	update := func(parts ...string) {
		feed(append(append([]string{`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":`}, parts...), `}}`)...)
	}
	feed(`{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"s","prompt":[]}}`)

	before := ruletest.LiveHeap()
	for i := range calls {
		id := fmt.Sprintf(`"call_%07d"`, i)
		update(`{"sessionUpdate":"tool_call","toolCallId":`, id, `,"title":"`, pad, `","kind":"read","status":"pending"}`)
		if i%4 == 0 {
			rid := strconv.Itoa(i + 2)
			feed(`{"jsonrpc":"2.0","id":`, rid, `,"method":"session/request_permission","params":{"sessionId":"s","toolCall":{"toolCallId":`, id, `,"title":"`, pad, `"},"options":[]}}`)
			feed(`{"jsonrpc":"2.0","id":`, rid, `,"result":{"outcome":{"outcome":"selected","optionId":"allow-once"}}}`)
		}
		if i%4 == 1 {
			update(`{"sessionUpdate":"tool_call_update","toolCallId":`, id, `,"status":"in_progress"}`)
		}
		update(`{"sessionUpdate":"tool_call_update","toolCallId":`, id, `,"status":"completed","content":[{"type":"content","content":{"type":"text","text":"`, pad, `"}}]}`)
	}
	kept := ruletest.LiveHeap() - min(before, ruletest.LiveHeap())
	runtime.KeepAlive(ch)
	if len(findings) != 0 {
		t.Fatalf("a valid stream has findings, the first: %v", findings[0])
	}
	t.Logf("kept %.1f MiB for %d completed calls: %.0f bytes a call", float64(kept)/(1<<20), calls, float64(kept)/calls)
	if kept > 16<<20 {
		t.Errorf("the checker keeps %d bytes after %d completed calls, want < 16 MiB", kept, calls)
	}

	// Completed calls are still known; one opened again is open at the end.
	update(`{"sessionUpdate":"tool_call","toolCallId":"call_0000000","title":"t","status":"completed"}`)
	feed(`{"jsonrpc":"2.0","id":"p","method":"session/request_permission","params":{"sessionId":"s","toolCall":{"toolCallId":"call_0000001"},"options":[]}}`)
	feed(`{"jsonrpc":"2.0","id":"p","result":{"outcome":{"outcome":"cancelled"}}}`)
	update(`{"sessionUpdate":"tool_call_update","toolCallId":"call_0000002","status":"in_progress"}`)
	feed(`{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}`)
	ch.End(n, report)
	want := []string{
		acp.RuleToolCallTwice + `: a second tool_call for "call_0000000"`,
		acp.RuleTurnClosed + `: the turn ends with tool call "call_0000002" still in_progress`,
		acp.RuleToolCallOpen + `: tool call "call_0000002" is still in_progress at the end of the stream`,
	}
	if len(findings) != len(want) {
		t.Fatalf("got %d findings, want %d: %v", len(findings), len(want), findings)
	}
	for i, f := range findings {
		if s := f.Rule + ": " + f.Message; s != want[i] {
			t.Errorf("finding %d:\ngot  %s\nwant %s", i, s, want[i])
		}
	}
}
