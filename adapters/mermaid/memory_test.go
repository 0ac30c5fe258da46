package mermaid_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/evtool/evtool/adapters/mermaid"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/internal/ruletest"
)

// TestCheckerMemory feeds the checker 200,000 tool calls, each started and
// finished (a quarter with an approval), and checks that what it keeps
// afterwards is a few bytes per finished call, not the ids or their lines:
// every line carries a long summary or prompt, which a kept gjson string
// would pin. It then checks that the finished calls are still known.
func TestCheckerMemory(t *testing.T) {
	const calls = 200_000
	pad := strings.Repeat("x", 100)
	ch := mermaid.Dialect{}.NewChecker(dialect.CheckOptions{})
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
	feed(mhead)

	before := ruletest.LiveHeap()
	for i := range calls {
		id := fmt.Sprintf(`"call_%07d"`, i)
		if i%8 == 0 { // approved before it starts
			feed(`{"type":"approval_required","call_id":`, id, `,"tool":"x","risk":"network","prompt":"`, pad, `"}`)
		}
		feed(`{"type":"tool_started","call_id":`, id, `}`)
		if i%8 == 4 {
			feed(`{"type":"approval_required","call_id":`, id, `,"tool":"x","risk":"network","prompt":"`, pad, `"}`)
		}
		feed(`{"type":"tool_finished","call_id":`, id, `,"name":"x","status":"success","summary":"`, pad, `","error":null}`)
	}
	kept := ruletest.LiveHeap() - min(before, ruletest.LiveHeap())
	runtime.KeepAlive(ch)
	if len(findings) != 0 {
		t.Fatalf("a valid stream has findings, the first: %v", findings[0])
	}
	t.Logf("kept %.1f MiB for %d finished calls: %.0f bytes a call", float64(kept)/(1<<20), calls, float64(kept)/calls)
	if kept > 16<<20 {
		t.Errorf("the checker keeps %d bytes after %d finished calls, want < 16 MiB", kept, calls)
	}

	// Finished calls are still known, with their lines.
	feed(started("call_0000000"))
	feed(finished("call_0000001"))
	feed(approval("call_0000002"))
	feed(mres)
	ch.End(n, report)
	want := []string{
		mermaid.RuleToolRestarted + `: call "call_0000000" was already started on line 3`,
		mermaid.RuleToolFinished + `: call "call_0000001" already finished on line 6`,
		mermaid.RuleApprovalFinished + `: approval_required for call "call_0000002", which already finished on line 8`,
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
