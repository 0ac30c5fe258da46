package basis_test

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/evtool/evtool/adapters/basis"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/internal/ruletest"
)

// TestCheckerMemory feeds the checker 200,000 tool calls (and 50,000
// permission requests), each opened and closed, and checks that what it
// keeps afterwards is a few bytes per closed id, not the ids or their lines:
// every line carries a long summary, which a kept gjson string would pin.
// It then checks that the closed ids are still known.
func TestCheckerMemory(t *testing.T) {
	const calls = 200_000
	pad := strings.Repeat("x", 100)
	ch := basis.Dialect{}.NewChecker(dialect.CheckOptions{})
	var findings []dialect.Finding
	report := func(f dialect.Finding) { findings = append(findings, f) }
	n := 0
	var buf []byte
	feed := func(parts ...string) {
		buf = strconv.AppendInt(append(buf[:0], `{"seq":`...), int64(n), 10)
		buf = append(buf, ',')
		for _, p := range parts {
			buf = append(buf, p...)
		}
		buf = append(buf, '}')
		n++
		ch.Line(buf, n, report)
	}
	feed(`"type":"run_started","schema":2,"basis":"0.6.2","session_id":"s","workspace":"/w","model":"m","provider":"p"`)

	before := ruletest.LiveHeap()
	for i := range calls {
		id, perm := fmt.Sprintf(`"call_%07d"`, i), fmt.Sprintf(`"perm_%07d"`, i)
		feed(`"type":"tool_queued","tool_call_id":`, id, `,"tool_name":"read_file","summary":"`, pad, `","mutability":"read_only","input":{}`)
		if i%4 == 0 {
			feed(`"type":"permission_requested","request_id":`, perm, `,"tool_call_id":`, id, `,"tool_name":"read_file","description":"`, pad, `"`)
			feed(`"type":"permission_resolved","request_id":`, perm, `,"tool_call_id":`, id, `,"tool_name":"read_file","outcome":"allowed"`)
		}
		if i%2 == 0 { // a call may also complete without starting
			feed(`"type":"tool_started","tool_call_id":`, id, `,"tool_name":"read_file"`)
		}
		feed(`"type":"tool_completed","tool_call_id":`, id, `,"tool_name":"read_file","summary":"`, pad, `","is_error":false`)
	}
	kept := ruletest.LiveHeap() - min(before, ruletest.LiveHeap())
	runtime.KeepAlive(ch)
	if len(findings) != 0 {
		t.Fatalf("a valid stream has findings, the first: %v", findings[0])
	}
	t.Logf("kept %.1f MiB for %d closed calls: %.0f bytes a call", float64(kept)/(1<<20), calls, float64(kept)/calls)
	if kept > 16<<20 {
		t.Errorf("the checker keeps %d bytes after %d closed calls, want < 16 MiB", kept, calls)
	}

	// Closed ids are still remembered, with the line they were opened on.
	feed(`"type":"tool_queued","tool_call_id":"call_0000000","tool_name":"read_file","summary":"","mutability":"read_only","input":{}`)
	feed(`"type":"tool_started","tool_call_id":"call_0000004","tool_name":"read_file"`)
	feed(`"type":"permission_requested","request_id":"perm_0000004","tool_call_id":"call_0000004","tool_name":"read_file","description":""`)
	feed(`"type":"permission_resolved","request_id":"perm_0000008","tool_call_id":"call_0000008","tool_name":"read_file","outcome":"allowed"`)
	want := []string{
		basis.RuleToolRequeued + `: tool call "call_0000000" was already queued on line 2`,
		basis.RuleToolClosed + `: tool_started for tool call "call_0000004", which already completed`,
		basis.RulePermDuplicate + `: permission request "perm_0000004" was already made on line 15`,
		basis.RuleToolClosed + `: permission_requested for tool call "call_0000004", which already completed`,
		basis.RulePermResolvedTwice + `: permission request "perm_0000008" was already resolved`,
		basis.RuleToolClosed + `: permission_resolved for tool call "call_0000008", which already completed`,
	}
	ruletest.CheckFindings(t, findings, want)
}
