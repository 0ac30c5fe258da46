package codex_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/evtool/evtool/adapters/codex"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/internal/ruletest"
)

// TestCheckerMemory feeds the checker 200,000 command items, each started
// and completed with a long output, and checks that what it keeps
// afterwards is a few bytes per completed item, not the ids or the lines.
// It then checks that the completed items are still known.
func TestCheckerMemory(t *testing.T) {
	const items = 200_000
	pad := strings.Repeat("x", 100)
	ch := codex.Dialect{}.NewChecker(dialect.CheckOptions{})
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
	feed(head)
	feed(turn)
	before := ruletest.LiveHeap()
	for i := range items {
		id := fmt.Sprintf(`"item_%d"`, i)
		feed(`{"type":"item.started","item":{"id":`, id, `,"type":"command_execution","command":"`, pad, `","aggregated_output":"","exit_code":null,"status":"in_progress"}}`)
		feed(`{"type":"item.completed","item":{"id":`, id, `,"type":"command_execution","command":"`, pad, `","aggregated_output":"`, pad, `","exit_code":0,"status":"completed"}}`)
	}
	kept := ruletest.LiveHeap() - min(before, ruletest.LiveHeap())
	runtime.KeepAlive(ch)
	if len(findings) != 0 {
		t.Fatalf("a valid stream has findings, the first: %v", findings[0])
	}
	t.Logf("kept %.1f MiB for %d completed items: %.0f bytes an item", float64(kept)/(1<<20), items, float64(kept)/items)
	if kept > 16<<20 {
		t.Errorf("the checker keeps %d bytes after %d completed items, want < 16 MiB", kept, items)
	}
	feed(cmdStarted("item_0"))
	feed(done)
	ch.End(n, report)
	ruletest.CheckFindings(t, findings, []string{
		codex.RuleItemClosed + `: item.started for item "item_0", which completed on line 4`,
	})
}
