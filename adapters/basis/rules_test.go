package basis_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/evtool/evtool/adapters/basis"
	"github.com/evtool/evtool/dialect"
)

const (
	head   = `{"seq":0,"type":"run_started","schema":2,"basis":"0.6.2","session_id":"s","workspace":"/r","model":"m","provider":"p","context_files":[]}`
	headV1 = `{"seq":0,"type":"run_started","schema":1,"basis":"0.4.0","session_id":"s","workspace":"/r","model":"m","provider":"p","context_files":[]}`
)

func queued(seq int, id string) string {
	return fmt.Sprintf(`{"seq":%d,"type":"tool_queued","tool_call_id":%q,"tool_name":"shell","summary":"","mutability":"unknown","input":{}}`, seq, id)
}

func finish(seq int) string {
	return fmt.Sprintf(`{"seq":%d,"type":"run_finished","status":"ok"}`, seq)
}

type want struct {
	line int
	rule string
	sev  dialect.Severity
}

func check(lines []string) []dialect.Finding {
	c := basis.Dialect{}.NewChecker(dialect.CheckOptions{})
	var out []dialect.Finding
	for i, l := range lines {
		c.Line([]byte(l), i+1, func(f dialect.Finding) { out = append(out, f) })
	}
	c.End(len(lines), func(f dialect.Finding) { out = append(out, f) })
	return out
}

func TestRules(t *testing.T) {
	tests := []struct {
		name  string
		lines []string
		want  []want
	}{
		{"valid stream", []string{head, `{"seq":1,"type":"user_message","text":"hi"}`, finish(2)}, nil},
		{"first line", []string{`{"seq":0,"type":"user_message","text":"hi"}`, finish(1)},
			[]want{{1, basis.RuleFirstLine, dialect.Error}}},
		{"empty stream", nil, []want{{0, basis.RuleFirstLine, dialect.Error}}},
		{"run_started again", []string{head, strings.Replace(head, `"seq":0`, `"seq":1`, 1), finish(2)},
			[]want{{2, basis.RuleRunStartedAgain, dialect.Error}}},
		{"line after finish", []string{head, finish(1), `{"seq":2,"type":"assistant_delta","text":"late"}`},
			[]want{{3, basis.RuleAfterFinish, dialect.Error}}},
		{"truncated", []string{head, `{"seq":1,"type":"assistant_delta","text":"cut"}`},
			[]want{{2, basis.RuleTruncated, dialect.Error}}},
		{"seq goes back", []string{head, `{"seq":1,"type":"assistant_delta","text":"a"}`, `{"seq":1,"type":"assistant_delta","text":"b"}`, finish(2)},
			[]want{{3, basis.RuleSeqIncreasing, dialect.Error}}},
		{"seq gap", []string{head, `{"seq":3,"type":"assistant_delta","text":"a"}`, finish(4)},
			[]want{{2, basis.RuleSeqGap, dialect.Warning}}},
		{"seq start", []string{strings.Replace(head, `"seq":0`, `"seq":5`, 1), finish(6)},
			[]want{{1, basis.RuleSeqStart, dialect.Warning}}},
		{"schema version", []string{strings.Replace(head, `"schema":2`, `"schema":3`, 1), finish(1)},
			[]want{{1, basis.RuleSchemaVersion, dialect.Error}}},
		{"type not in schema 1", []string{headV1,
			`{"seq":1,"type":"request_tool_results_elided","agent_id":"a","policy":{"kind":"keep_recent","configured_keep_recent_tool_results":1},"canonical_tool_result_content_bytes":1,"projected_tool_result_content_bytes":0,"results":[]}`,
			finish(2)},
			[]want{{2, basis.RuleTypeVersion, dialect.Error}}},
		{"error without message", []string{head, `{"seq":1,"type":"run_finished","status":"error"}`},
			[]want{{2, basis.RuleErrorMessage, dialect.Error}}},
		{"tool not queued", []string{head, `{"seq":1,"type":"tool_started","tool_call_id":"c1","tool_name":"shell"}`, finish(2)},
			[]want{{2, basis.RuleToolNotQueued, dialect.Error}}},
		{"tool queued twice", []string{head, queued(1, "c1"), queued(2, "c1"), `{"seq":3,"type":"tool_completed","tool_call_id":"c1","tool_name":"shell","summary":"","is_error":false}`, finish(4)},
			[]want{{3, basis.RuleToolRequeued, dialect.Error}}},
		{"tool started twice", []string{head, queued(1, "c1"),
			`{"seq":2,"type":"tool_started","tool_call_id":"c1","tool_name":"shell"}`,
			`{"seq":3,"type":"tool_started","tool_call_id":"c1","tool_name":"shell"}`,
			`{"seq":4,"type":"tool_completed","tool_call_id":"c1","tool_name":"shell","summary":"","is_error":false}`, finish(5)},
			[]want{{4, basis.RuleToolRestarted, dialect.Error}}},
		{"tool completed twice", []string{head, queued(1, "c1"),
			`{"seq":2,"type":"tool_completed","tool_call_id":"c1","tool_name":"shell","summary":"","is_error":false}`,
			`{"seq":3,"type":"tool_completed","tool_call_id":"c1","tool_name":"shell","summary":"","is_error":false}`, finish(4)},
			[]want{{4, basis.RuleToolClosed, dialect.Error}}},
		{"completed without start is fine", []string{head, queued(1, "c1"),
			`{"seq":2,"type":"tool_completed","tool_call_id":"c1","tool_name":"shell","summary":"denied","is_error":true}`, finish(3)}, nil},
		{"tool name changes", []string{head, queued(1, "c1"),
			`{"seq":2,"type":"tool_completed","tool_call_id":"c1","tool_name":"bash","summary":"","is_error":false}`, finish(3)},
			[]want{{3, basis.RuleToolName, dialect.Warning}}},
		{"tool unfinished", []string{head, queued(1, "c1"), finish(2)},
			[]want{{2, basis.RuleToolUnfinished, dialect.Warning}}},
		{"permission not requested", []string{head, queued(1, "c1"),
			`{"seq":2,"type":"permission_resolved","request_id":"r1","tool_call_id":"c1","tool_name":"shell","outcome":"allowed"}`,
			`{"seq":3,"type":"tool_completed","tool_call_id":"c1","tool_name":"shell","summary":"","is_error":false}`, finish(4)},
			[]want{{3, basis.RulePermNotRequested, dialect.Error}}},
		{"permission requested twice", []string{head, queued(1, "c1"),
			`{"seq":2,"type":"permission_requested","request_id":"r1","tool_call_id":"c1","tool_name":"shell","description":"","preview":null}`,
			`{"seq":3,"type":"permission_requested","request_id":"r1","tool_call_id":"c1","tool_name":"shell","description":"","preview":null}`,
			`{"seq":4,"type":"permission_resolved","request_id":"r1","tool_call_id":"c1","tool_name":"shell","outcome":"denied"}`,
			`{"seq":5,"type":"tool_completed","tool_call_id":"c1","tool_name":"shell","summary":"","is_error":true}`, finish(6)},
			[]want{{4, basis.RulePermDuplicate, dialect.Error}}},
		{"permission resolved twice", []string{head, queued(1, "c1"),
			`{"seq":2,"type":"permission_requested","request_id":"r1","tool_call_id":"c1","tool_name":"shell","description":"","preview":null}`,
			`{"seq":3,"type":"permission_resolved","request_id":"r1","tool_call_id":"c1","tool_name":"shell","outcome":"denied"}`,
			`{"seq":4,"type":"permission_resolved","request_id":"r1","tool_call_id":"c1","tool_name":"shell","outcome":"allowed"}`,
			`{"seq":5,"type":"tool_completed","tool_call_id":"c1","tool_name":"shell","summary":"","is_error":true}`, finish(6)},
			[]want{{5, basis.RulePermResolvedTwice, dialect.Error}}},
		{"permission for an unqueued tool", []string{head,
			`{"seq":1,"type":"permission_requested","request_id":"r1","tool_call_id":"ghost","tool_name":"shell","description":"","preview":null}`,
			`{"seq":2,"type":"permission_resolved","request_id":"r1","tool_call_id":"ghost","tool_name":"shell","outcome":"denied"}`, finish(3)},
			[]want{{2, basis.RuleToolNotQueued, dialect.Error}, {3, basis.RuleToolNotQueued, dialect.Error}}},
		{"permission after completion", []string{head, queued(1, "c1"),
			`{"seq":2,"type":"tool_completed","tool_call_id":"c1","tool_name":"shell","summary":"","is_error":false}`,
			`{"seq":3,"type":"permission_requested","request_id":"r1","tool_call_id":"c1","tool_name":"shell","description":"","preview":null}`,
			`{"seq":4,"type":"permission_resolved","request_id":"r1","tool_call_id":"c1","tool_name":"shell","outcome":"denied"}`, finish(5)},
			[]want{{4, basis.RuleToolClosed, dialect.Error}, {5, basis.RuleToolClosed, dialect.Error}}},
		{"permission unresolved", []string{head, queued(1, "c1"),
			`{"seq":2,"type":"permission_requested","request_id":"r1","tool_call_id":"c1","tool_name":"shell","description":"","preview":null}`,
			`{"seq":3,"type":"tool_completed","tool_call_id":"c1","tool_name":"shell","summary":"","is_error":true}`, finish(4)},
			[]want{{3, basis.RulePermUnresolved, dialect.Warning}}},
		{"unknown type", []string{head, `{"seq":1,"type":"hook_fired","hook":"x"}`, finish(2)},
			[]want{{2, basis.RuleUnknownType, dialect.Warning}}},
		{"unknown fields", []string{head, `{"seq":1,"type":"user_message","text":"x","locale":"fr"}`,
			`{"seq":2,"type":"run_finished","status":"ok","usage":{"input_tokens":1,"output_tokens":1,"cache_read_tokens":0,"cache_creation_tokens":0,"cost":3}}`},
			[]want{{2, basis.RuleUnknownField, dialect.Warning}, {3, basis.RuleUnknownField, dialect.Warning}}},
	}
	covered := map[string]bool{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := check(tt.lines)
			if len(got) != len(tt.want) {
				t.Fatalf("got %d findings, want %d:\n%s", len(got), len(tt.want), dump(got))
			}
			for i, w := range tt.want {
				g := got[i]
				if g.Line != w.line || g.Rule != w.rule || g.Severity != w.sev {
					t.Errorf("finding %d: got line %d %s %s (%s), want line %d %s %s", i, g.Line, g.Severity, g.Rule, g.Message, w.line, w.sev, w.rule)
				}
				if g.Message == "" {
					t.Errorf("finding %d has no message", i)
				}
				covered[w.rule] = true
			}
		})
	}
	for _, r := range (basis.Dialect{}).Rules() {
		if !covered[r.ID] {
			t.Errorf("rule %s has no test with a stream that breaks it", r.ID)
		}
	}
}

func dump(fs []dialect.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "  line %d %s %s %s: %s\n", f.Line, f.Severity, f.Rule, f.Pointer, f.Message)
	}
	return b.String()
}
