package canonical_test

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/evtool/evtool/adapters/canonical"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/internal/ruletest"
)

// TestCheckerMemory feeds the checker 200,000 tool calls (a quarter with a
// permission request, and a turn per hundred calls), each opened and
// closed, and checks that what it keeps afterwards is a few bytes per
// closed id, not the ids or their lines: every line carries a long text,
// which a kept gjson string would pin. It then checks that the closed ids
// are still known.
func TestCheckerMemory(t *testing.T) {
	const calls = 200_000
	pad := strings.Repeat("x", 100)
	ch := canonical.Dialect{}.NewChecker(dialect.CheckOptions{})
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
	feed(`"type":"session_started","schema":1,"source":{"dialect":"basis"}`)

	before := ruletest.LiveHeap()
	for i := range calls {
		id, req, turn := fmt.Sprintf(`"c%07d"`, i), fmt.Sprintf(`"r%07d"`, i), fmt.Sprintf(`"t%05d"`, i/100)
		if i%100 == 0 {
			feed(`"type":"turn_started","turn_id":`, turn, `,"prompt":"`, pad, `"`)
		}
		feed(`"type":"tool_call","call_id":`, id, `,"name":"read_file","title":"`, pad, `"`)
		if i%4 == 0 {
			feed(`"type":"permission_requested","request_id":`, req, `,"call_id":`, id, `,"description":"`, pad, `"`)
			feed(`"type":"permission_resolved","request_id":`, req, `,"call_id":`, id, `,"outcome":"allowed"`)
		}
		feed(`"type":"tool_started","call_id":`, id)
		feed(`"type":"tool_finished","call_id":`, id, `,"status":"success","summary":"`, pad, `"`)
		if i%100 == 99 {
			feed(`"type":"turn_finished","turn_id":`, turn, `,"status":"ok","text":"`, pad, `"`)
		}
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

	// Closed ids are still known.
	feed(`"type":"tool_call","call_id":"c0000000","name":"x"`)
	feed(`"type":"tool_output","call_id":"c0000001","chunk":"late"`)
	feed(`"type":"turn_finished","turn_id":"t00000","status":"ok"`)
	feed(`"type":"permission_resolved","request_id":"r0000004","outcome":"allowed"`)
	want := []string{
		canonical.RuleToolCalledTwice + `: a second tool_call for "c0000000"`,
		canonical.RuleToolClosed + `: tool_output for "c0000001" after its tool_finished`,
		canonical.RuleTurnClosed + `: turn "t00000" finished twice`,
		canonical.RulePermClosed + `: permission request "r0000004" resolved twice`,
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
