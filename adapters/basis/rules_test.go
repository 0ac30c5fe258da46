package basis_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/evtool/evtool/internal/testkit/ruletest"

	"github.com/evtool/evtool/adapters/basis"
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

func TestRules(t *testing.T) {
	ruletest.Run(t, basis.Dialect{}, []ruletest.Case{
		{Name: "valid stream", Lines: []string{head, `{"seq":1,"type":"user_message","text":"hi"}`, finish(2)}},
		{Name: "first line", Lines: []string{`{"seq":0,"type":"user_message","text":"hi"}`, finish(1)},
			Want: []ruletest.Want{{Line: 1, Rule: "basis/first-line"}}},
		{Name: "empty stream", Lines: nil, Want: []ruletest.Want{{Line: 0, Rule: "basis/first-line"}}},
		{Name: "run_started again", Lines: []string{head, strings.Replace(head, `"seq":0`, `"seq":1`, 1), finish(2)},
			Want: []ruletest.Want{{Line: 2, Rule: "basis/run-started-repeated"}}},
		{Name: "line after finish", Lines: []string{head, finish(1), `{"seq":2,"type":"assistant_delta","text":"late"}`},
			Want: []ruletest.Want{{Line: 3, Rule: "basis/after-finish"}}},
		{Name: "truncated", Lines: []string{head, `{"seq":1,"type":"assistant_delta","text":"cut"}`},
			Want: []ruletest.Want{{Line: 2, Rule: "basis/truncated"}}},
		{Name: "seq goes back", Lines: []string{head, `{"seq":1,"type":"assistant_delta","text":"a"}`, `{"seq":1,"type":"assistant_delta","text":"b"}`, finish(2)},
			Want: []ruletest.Want{{Line: 3, Rule: "basis/seq-increasing"}}},
		{Name: "seq gap", Lines: []string{head, `{"seq":3,"type":"assistant_delta","text":"a"}`, finish(4)},
			Want: []ruletest.Want{{Line: 2, Rule: "basis/seq-gap"}}},
		{Name: "seq start", Lines: []string{strings.Replace(head, `"seq":0`, `"seq":5`, 1), finish(6)},
			Want: []ruletest.Want{{Line: 1, Rule: "basis/seq-start"}}},
		{Name: "schema version", Lines: []string{strings.Replace(head, `"schema":2`, `"schema":3`, 1), finish(1)},
			Want: []ruletest.Want{{Line: 1, Rule: "basis/schema-version"}}},
		{Name: "type not in schema 1", Lines: []string{headV1,
			`{"seq":1,"type":"request_tool_results_elided","agent_id":"a","policy":{"kind":"keep_recent","configured_keep_recent_tool_results":1},"canonical_tool_result_content_bytes":1,"projected_tool_result_content_bytes":0,"results":[]}`,
			finish(2)},
			Want: []ruletest.Want{{Line: 2, Rule: "basis/type-version"}}},
		{Name: "error without message", Lines: []string{head, `{"seq":1,"type":"run_finished","status":"error"}`},
			Want: []ruletest.Want{{Line: 2, Rule: "basis/error-message"}}},
		{Name: "tool not queued", Lines: []string{head, `{"seq":1,"type":"tool_started","tool_call_id":"c1","tool_name":"shell"}`, finish(2)},
			Want: []ruletest.Want{{Line: 2, Rule: "basis/tool-not-queued"}}},
		{Name: "tool queued twice", Lines: []string{head, queued(1, "c1"), queued(2, "c1"), `{"seq":3,"type":"tool_completed","tool_call_id":"c1","tool_name":"shell","summary":"","is_error":false}`, finish(4)},
			Want: []ruletest.Want{{Line: 3, Rule: "basis/tool-requeued"}}},
		{Name: "tool started twice", Lines: []string{head, queued(1, "c1"),
			`{"seq":2,"type":"tool_started","tool_call_id":"c1","tool_name":"shell"}`,
			`{"seq":3,"type":"tool_started","tool_call_id":"c1","tool_name":"shell"}`,
			`{"seq":4,"type":"tool_completed","tool_call_id":"c1","tool_name":"shell","summary":"","is_error":false}`, finish(5)},
			Want: []ruletest.Want{{Line: 4, Rule: "basis/tool-restarted"}}},
		{Name: "tool completed twice", Lines: []string{head, queued(1, "c1"),
			`{"seq":2,"type":"tool_completed","tool_call_id":"c1","tool_name":"shell","summary":"","is_error":false}`,
			`{"seq":3,"type":"tool_completed","tool_call_id":"c1","tool_name":"shell","summary":"","is_error":false}`, finish(4)},
			Want: []ruletest.Want{{Line: 4, Rule: "basis/tool-closed"}}},
		{Name: "completed without start is fine", Lines: []string{head, queued(1, "c1"),
			`{"seq":2,"type":"tool_completed","tool_call_id":"c1","tool_name":"shell","summary":"denied","is_error":true}`, finish(3)}},
		{Name: "tool name changes", Lines: []string{head, queued(1, "c1"),
			`{"seq":2,"type":"tool_completed","tool_call_id":"c1","tool_name":"bash","summary":"","is_error":false}`, finish(3)},
			Want: []ruletest.Want{{Line: 3, Rule: "basis/tool-name"}}},
		{Name: "tool unfinished", Lines: []string{head, queued(1, "c1"), finish(2)},
			Want: []ruletest.Want{{Line: 2, Rule: "basis/tool-unfinished"}}},
		{Name: "permission not requested", Lines: []string{head, queued(1, "c1"),
			`{"seq":2,"type":"permission_resolved","request_id":"r1","tool_call_id":"c1","tool_name":"shell","outcome":"allowed"}`,
			`{"seq":3,"type":"tool_completed","tool_call_id":"c1","tool_name":"shell","summary":"","is_error":false}`, finish(4)},
			Want: []ruletest.Want{{Line: 3, Rule: "basis/permission-not-requested"}}},
		{Name: "permission requested twice", Lines: []string{head, queued(1, "c1"),
			`{"seq":2,"type":"permission_requested","request_id":"r1","tool_call_id":"c1","tool_name":"shell","description":"","preview":null}`,
			`{"seq":3,"type":"permission_requested","request_id":"r1","tool_call_id":"c1","tool_name":"shell","description":"","preview":null}`,
			`{"seq":4,"type":"permission_resolved","request_id":"r1","tool_call_id":"c1","tool_name":"shell","outcome":"denied"}`,
			`{"seq":5,"type":"tool_completed","tool_call_id":"c1","tool_name":"shell","summary":"","is_error":true}`, finish(6)},
			Want: []ruletest.Want{{Line: 4, Rule: "basis/permission-duplicate"}}},
		{Name: "permission resolved twice", Lines: []string{head, queued(1, "c1"),
			`{"seq":2,"type":"permission_requested","request_id":"r1","tool_call_id":"c1","tool_name":"shell","description":"","preview":null}`,
			`{"seq":3,"type":"permission_resolved","request_id":"r1","tool_call_id":"c1","tool_name":"shell","outcome":"denied"}`,
			`{"seq":4,"type":"permission_resolved","request_id":"r1","tool_call_id":"c1","tool_name":"shell","outcome":"allowed"}`,
			`{"seq":5,"type":"tool_completed","tool_call_id":"c1","tool_name":"shell","summary":"","is_error":true}`, finish(6)},
			Want: []ruletest.Want{{Line: 5, Rule: "basis/permission-resolved-twice"}}},
		{Name: "permission for an unqueued tool", Lines: []string{head,
			`{"seq":1,"type":"permission_requested","request_id":"r1","tool_call_id":"ghost","tool_name":"shell","description":"","preview":null}`,
			`{"seq":2,"type":"permission_resolved","request_id":"r1","tool_call_id":"ghost","tool_name":"shell","outcome":"denied"}`, finish(3)},
			Want: []ruletest.Want{{Line: 2, Rule: "basis/tool-not-queued"}, {Line: 3, Rule: "basis/tool-not-queued"}}},
		{Name: "permission after completion", Lines: []string{head, queued(1, "c1"),
			`{"seq":2,"type":"tool_completed","tool_call_id":"c1","tool_name":"shell","summary":"","is_error":false}`,
			`{"seq":3,"type":"permission_requested","request_id":"r1","tool_call_id":"c1","tool_name":"shell","description":"","preview":null}`,
			`{"seq":4,"type":"permission_resolved","request_id":"r1","tool_call_id":"c1","tool_name":"shell","outcome":"denied"}`, finish(5)},
			Want: []ruletest.Want{{Line: 4, Rule: "basis/tool-closed"}, {Line: 5, Rule: "basis/tool-closed"}}},
		{Name: "permission unresolved", Lines: []string{head, queued(1, "c1"),
			`{"seq":2,"type":"permission_requested","request_id":"r1","tool_call_id":"c1","tool_name":"shell","description":"","preview":null}`,
			`{"seq":3,"type":"tool_completed","tool_call_id":"c1","tool_name":"shell","summary":"","is_error":true}`, finish(4)},
			Want: []ruletest.Want{{Line: 3, Rule: "basis/permission-unresolved"}}},
		{Name: "unknown type", Lines: []string{head, `{"seq":1,"type":"hook_fired","hook":"x"}`, finish(2)},
			Want: []ruletest.Want{{Line: 2, Rule: "basis/unknown-type"}}},
		{Name: "unknown fields", Lines: []string{head, `{"seq":1,"type":"user_message","text":"x","locale":"fr"}`,
			`{"seq":2,"type":"run_finished","status":"ok","usage":{"input_tokens":1,"output_tokens":1,"cache_read_tokens":0,"cache_creation_tokens":0,"cost":3}}`},
			Want: []ruletest.Want{{Line: 2, Rule: "basis/unknown-field"}, {Line: 3, Rule: "basis/unknown-field"}}},
		// RequestToolResultElisionPolicy is non_exhaustive and tagged on
		// kind: a kind basis does not document is reported, not passed in
		// silence; the two it documents are not.
		{Name: "unknown policy kind", Lines: []string{head,
			`{"seq":1,"type":"request_tool_results_elided","agent_id":"a","policy":{"kind":"lru","configured_max_entries":8},"canonical_tool_result_content_bytes":10,"projected_tool_result_content_bytes":5,"results":[]}`,
			`{"seq":2,"type":"request_tool_results_elided","agent_id":"a","policy":{"kind":"keep_recent","configured_keep_recent_tool_results":3},"canonical_tool_result_content_bytes":10,"projected_tool_result_content_bytes":5,"results":[]}`,
			`{"seq":3,"type":"request_tool_results_elided","agent_id":"a","policy":{"kind":"byte_budget","configured_max_bytes":4096,"configured_prioritize_recent_results":2,"configured_max_preview_bytes":512},"canonical_tool_result_content_bytes":10,"projected_tool_result_content_bytes":5,"results":[]}`,
			finish(4)},
			Want: []ruletest.Want{{Line: 2, Rule: "basis/unknown-value"}}},
	})
}
