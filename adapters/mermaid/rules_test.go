package mermaid_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/evtool/evtool/adapters/mermaid"
	"github.com/evtool/evtool/dialect"
)

const (
	mhead = `{"type":"session_started","protocol_version":1,"cli_version":"9.9.9","model":"m","task_id":null,"session_id":"s"}`
	mres  = `{"type":"result","response":"","reasoning":null,"total_tokens":0,"errors":[],"session_id":"s"}`
)

func started(id string) string { return fmt.Sprintf(`{"type":"tool_started","call_id":%q}`, id) }
func finished(id string) string {
	return fmt.Sprintf(`{"type":"tool_finished","call_id":%q,"name":"x","status":"success","summary":"","error":null}`, id)
}
func approval(id string) string {
	return fmt.Sprintf(`{"type":"approval_required","call_id":%q,"tool":"x","risk":"network","prompt":"?"}`, id)
}

func TestRules(t *testing.T) {
	type want struct {
		line int
		rule string
		sev  dialect.Severity
	}
	E, W := dialect.Error, dialect.Warning
	tests := []struct {
		name  string
		lines []string
		want  []want
	}{
		{"valid, approval before start", []string{mhead, approval("a"), started("a"), finished("a"), mres}, nil},
		{"valid, approval after start", []string{mhead, started("a"), approval("a"), finished("a"), mres}, nil},
		{"first line", []string{`{"type":"text","delta":"x"}`, mres}, []want{{1, mermaid.RuleFirstLine, E}}},
		{"empty", nil, []want{{0, mermaid.RuleFirstLine, E}}},
		{"started again", []string{mhead, mhead, mres}, []want{{2, mermaid.RuleStartedAgain, E}}},
		{"after result", []string{mhead, mres, `{"type":"text","delta":"late"}`}, []want{{3, mermaid.RuleAfterResult, E}}},
		{"truncated", []string{mhead, `{"type":"text","delta":"cut"}`}, []want{{2, mermaid.RuleTruncated, E}}},
		{"protocol version", []string{strings.Replace(mhead, `"protocol_version":1`, `"protocol_version":2`, 1), mres}, []want{{1, mermaid.RuleProtocolVersion, E}}},
		{"finish without start", []string{mhead, finished("a"), mres}, []want{{2, mermaid.RuleToolNotStarted, E}}},
		{"started twice", []string{mhead, started("a"), started("a"), finished("a"), mres}, []want{{3, mermaid.RuleToolRestarted, E}}},
		{"finished twice", []string{mhead, started("a"), finished("a"), finished("a"), mres}, []want{{4, mermaid.RuleToolFinished, E}}},
		{"unfinished", []string{mhead, started("a"), mres}, []want{{2, mermaid.RuleToolUnfinished, W}}},
		{"approval for a call that never starts", []string{mhead, approval("ghost"), mres}, []want{{2, mermaid.RuleApprovalUnknown, E}}},
		{"approval after finish", []string{mhead, started("a"), finished("a"), approval("a"), mres}, []want{{4, mermaid.RuleApprovalFinished, E}}},
		{"task counts", []string{mhead,
			`{"type":"tasks_updated","tasks":[{"id":1,"subject":"s","status":"completed","active_form":"f","elapsed_secs":null,"tokens_spent":null,"origin":null}],"completed":0,"total":2}`, mres},
			[]want{{2, mermaid.RuleTaskCounts, W}, {2, mermaid.RuleTaskCounts, W}}},
		{"session id differs", []string{mhead, strings.Replace(mres, `"session_id":"s"`, `"session_id":"other"`, 1)}, []want{{2, mermaid.RuleSessionID, W}}},
		{"unknown type", []string{mhead, `{"type":"compaction"}`, mres}, []want{{2, mermaid.RuleUnknownType, W}}},
		{"unknown fields", []string{mhead, `{"type":"text","delta":"x","channel":"final"}`,
			`{"type":"tasks_updated","tasks":[{"id":1,"subject":"s","status":"pending","active_form":"f","elapsed_secs":null,"tokens_spent":null,"origin":null,"owner":"me"}],"completed":0,"total":1}`, mres},
			[]want{{2, mermaid.RuleUnknownField, W}, {3, mermaid.RuleUnknownField, W}}},
	}
	covered := map[string]bool{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := mermaid.Dialect{}.NewChecker(dialect.CheckOptions{})
			var got []dialect.Finding
			for i, l := range tt.lines {
				c.Line([]byte(l), i+1, func(f dialect.Finding) { got = append(got, f) })
			}
			c.End(len(tt.lines), func(f dialect.Finding) { got = append(got, f) })
			if len(got) != len(tt.want) {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
			for i, w := range tt.want {
				if got[i].Line != w.line || got[i].Rule != w.rule || got[i].Severity != w.sev {
					t.Errorf("got line %d %s %s, want line %d %s %s", got[i].Line, got[i].Severity, got[i].Rule, w.line, w.sev, w.rule)
				}
				covered[w.rule] = true
			}
		})
	}
	for _, r := range (mermaid.Dialect{}).Rules() {
		if !covered[r.ID] {
			t.Errorf("rule %s has no breaking test", r.ID)
		}
	}
}
