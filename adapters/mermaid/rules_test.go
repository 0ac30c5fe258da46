package mermaid_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/evtool/evtool/internal/testkit/ruletest"

	"github.com/evtool/evtool/adapters/mermaid"
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
	ruletest.Run(t, mermaid.Dialect{}, []ruletest.Case{
		{Name: "valid, approval before start", Lines: []string{mhead, approval("a"), started("a"), finished("a"), mres}},
		{Name: "valid, approval after start", Lines: []string{mhead, started("a"), approval("a"), finished("a"), mres}},
		{Name: "first line", Lines: []string{`{"type":"text","delta":"x"}`, mres}, Want: []ruletest.Want{{Line: 1, Rule: "mermaid/first-line"}}},
		{Name: "empty", Lines: nil, Want: []ruletest.Want{{Line: 0, Rule: "mermaid/first-line"}}},
		{Name: "started again", Lines: []string{mhead, mhead, mres}, Want: []ruletest.Want{{Line: 2, Rule: "mermaid/session-started-repeated"}}},
		{Name: "after result", Lines: []string{mhead, mres, `{"type":"text","delta":"late"}`}, Want: []ruletest.Want{{Line: 3, Rule: "mermaid/after-result"}}},
		{Name: "truncated", Lines: []string{mhead, `{"type":"text","delta":"cut"}`}, Want: []ruletest.Want{{Line: 2, Rule: "mermaid/truncated"}}},
		{Name: "protocol version", Lines: []string{strings.Replace(mhead, `"protocol_version":1`, `"protocol_version":2`, 1), mres}, Want: []ruletest.Want{{Line: 1, Rule: "mermaid/protocol-version"}}},
		{Name: "finish without start", Lines: []string{mhead, finished("a"), mres}, Want: []ruletest.Want{{Line: 2, Rule: "mermaid/tool-not-started"}}},
		{Name: "started twice", Lines: []string{mhead, started("a"), started("a"), finished("a"), mres}, Want: []ruletest.Want{{Line: 3, Rule: "mermaid/tool-restarted"}}},
		{Name: "finished twice", Lines: []string{mhead, started("a"), finished("a"), finished("a"), mres}, Want: []ruletest.Want{{Line: 4, Rule: "mermaid/tool-finished-twice"}}},
		{Name: "unfinished", Lines: []string{mhead, started("a"), mres}, Want: []ruletest.Want{{Line: 2, Rule: "mermaid/tool-unfinished"}}},
		{Name: "approval for a call that never starts", Lines: []string{mhead, approval("ghost"), mres}, Want: []ruletest.Want{{Line: 2, Rule: "mermaid/approval-unknown-call"}}},
		{Name: "approval after finish", Lines: []string{mhead, started("a"), finished("a"), approval("a"), mres}, Want: []ruletest.Want{{Line: 4, Rule: "mermaid/approval-after-finish"}}},
		{Name: "task counts", Lines: []string{mhead,
			`{"type":"tasks_updated","tasks":[{"id":1,"subject":"s","status":"completed","active_form":"f","elapsed_secs":null,"tokens_spent":null,"origin":null}],"completed":0,"total":2}`, mres},
			Want: []ruletest.Want{{Line: 2, Rule: "mermaid/task-counts"}, {Line: 2, Rule: "mermaid/task-counts"}}},
		{Name: "session id differs", Lines: []string{mhead, strings.Replace(mres, `"session_id":"s"`, `"session_id":"other"`, 1)}, Want: []ruletest.Want{{Line: 2, Rule: "mermaid/session-id"}}},
		{Name: "unknown type", Lines: []string{mhead, `{"type":"compaction"}`, mres}, Want: []ruletest.Want{{Line: 2, Rule: "mermaid/unknown-type"}}},
		{Name: "unknown fields", Lines: []string{mhead, `{"type":"text","delta":"x","channel":"final"}`,
			`{"type":"tasks_updated","tasks":[{"id":1,"subject":"s","status":"pending","active_form":"f","elapsed_secs":null,"tokens_spent":null,"origin":null,"owner":"me"}],"completed":0,"total":1}`, mres},
			Want: []ruletest.Want{{Line: 2, Rule: "mermaid/unknown-field"}, {Line: 3, Rule: "mermaid/unknown-field"}}},
		// mermaid types these three as String and writes only its own
		// words (status_str, TaskStatus::as_str, TaskOrigin): another word
		// is reported, never silently read as one of them.
		{Name: "unknown values", Lines: []string{mhead, started("a"),
			`{"type":"tool_finished","call_id":"a","name":"read_file","status":"ok","summary":"read","error":null}`,
			`{"type":"tasks_updated","tasks":[{"id":1,"subject":"s","status":"blocked","active_form":"f","elapsed_secs":null,"tokens_spent":null,"origin":"agent"},{"id":2,"subject":"t","status":"completed","active_form":"g","elapsed_secs":1,"tokens_spent":2,"origin":"user"}],"completed":1,"total":2}`,
			mres},
			Want: []ruletest.Want{{Line: 3, Rule: "mermaid/unknown-value"}, {Line: 4, Rule: "mermaid/unknown-value"}, {Line: 4, Rule: "mermaid/unknown-value"}}},
		{Name: "known values, and null origin", Lines: []string{mhead, started("a"), started("b"), started("c"),
			`{"type":"tool_finished","call_id":"a","name":"x","status":"success","summary":"","error":null}`,
			`{"type":"tool_finished","call_id":"b","name":"x","status":"error","summary":"","error":"e"}`,
			`{"type":"tool_finished","call_id":"c","name":"x","status":"cancelled","summary":"","error":null}`,
			`{"type":"tasks_updated","tasks":[{"id":1,"subject":"s","status":"pending","active_form":"f","elapsed_secs":null,"tokens_spent":null,"origin":null},{"id":2,"subject":"t","status":"in_progress","active_form":"g","elapsed_secs":null,"tokens_spent":null,"origin":"model"}],"completed":0,"total":2}`,
			mres}},
	})
}
