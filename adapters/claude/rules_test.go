package claude_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/evtool/evtool/adapters/claude"
	"github.com/evtool/evtool/internal/testkit/ruletest"
)

const (
	rinit = `{"type":"system","subtype":"init","cwd":"/w","session_id":"s","tools":[],"mcp_servers":[],"model":"m","permissionMode":"default","apiKeySource":"none","uuid":"u0"}`
	rres  = `{"type":"result","subtype":"success","is_error":false,"duration_ms":1,"duration_api_ms":1,"num_turns":1,"result":"ok","stop_reason":"end_turn","session_id":"s","total_cost_usd":0.5,"usage":{"input_tokens":10,"output_tokens":10},"modelUsage":{"m":{"inputTokens":10,"outputTokens":10,"cacheReadInputTokens":0,"cacheCreationInputTokens":0,"costUSD":0.5}},"permission_denials":[],"uuid":"u9"}`
)

func use(msg, id string, input int) string {
	return fmt.Sprintf(`{"type":"assistant","message":{"model":"m","id":%q,"type":"message","role":"assistant","content":[{"type":"tool_use","id":%q,"name":"Bash","input":{}}],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":%d,"output_tokens":1}},"parent_tool_use_id":null,"session_id":"s","uuid":"u"}`, msg, id, input)
}

func answer(id string) string {
	return fmt.Sprintf(`{"type":"user","message":{"role":"user","content":[{"tool_use_id":%q,"type":"tool_result","content":"ok"}]},"parent_tool_use_id":null,"session_id":"s","uuid":"u"}`, id)
}

const text = `{"type":"assistant","message":{"model":"m","id":"msg_t","type":"message","role":"assistant","content":[{"type":"text","text":"hi"}],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}},"parent_tool_use_id":null,"session_id":"s","uuid":"u"}`

func TestRules(t *testing.T) {
	ruletest.Run(t, claude.Dialect{}, []ruletest.Case{
		{Name: "valid", Lines: []string{rinit, use("m1", "a", 4), use("m1", "b", 4), answer("a"), answer("b"), text, rres}},
		{Name: "hooks before init", Lines: []string{`{"type":"system","subtype":"hook_started","hook_id":"h","hook_name":"n","hook_event":"e","uuid":"u","session_id":"s"}`, rinit, text, rres}},
		{Name: "init not first", Lines: []string{text, rinit, rres}, Want: []ruletest.Want{{Line: 1, Rule: "claude/init-first"}}},
		{Name: "no result", Lines: []string{rinit, text}, Want: []ruletest.Want{{Line: 2, Rule: "claude/truncated"}}},
		{Name: "empty", Lines: nil, Want: []ruletest.Want{{Line: 0, Rule: "claude/truncated"}}},
		{Name: "a turn after the last result", Lines: []string{rinit, text, rres, `{"type":"system","subtype":"session_state_changed","state":"idle","uuid":"u","session_id":"s"}`, text},
			Want: []ruletest.Want{{Line: 5, Rule: "claude/truncated"}}},
		{Name: "tool_use repeated", Lines: []string{rinit, use("m1", "a", 1), use("m2", "a", 1), answer("a"), rres}, Want: []ruletest.Want{{Line: 3, Rule: "claude/tool-use-repeated"}}},
		{Name: "result for no call", Lines: []string{rinit, answer("ghost"), rres}, Want: []ruletest.Want{{Line: 2, Rule: "claude/tool-result-unknown"}}},
		{Name: "result twice", Lines: []string{rinit, use("m1", "a", 1), answer("a"), answer("a"), rres}, Want: []ruletest.Want{{Line: 4, Rule: "claude/tool-result-repeated"}}},
		{Name: "unanswered", Lines: []string{rinit, use("m1", "a", 1), rres}, Want: []ruletest.Want{{Line: 2, Rule: "claude/tool-unanswered"}}},
		{Name: "deferred tool use is not unanswered", Lines: []string{rinit, use("m1", "a", 1), strings.Replace(rres, `"uuid":"u9"`, `"deferred_tool_use":{"id":"a","name":"Bash","input":{}},"uuid":"u9"`, 1)}},
		{Name: "subagent of no call", Lines: []string{rinit, strings.Replace(text, `"parent_tool_use_id":null`, `"parent_tool_use_id":"toolu_x"`, 1), rres},
			Want: []ruletest.Want{{Line: 2, Rule: "claude/subagent-unknown"}}},
		{Name: "session id", Lines: []string{rinit, strings.Replace(text, `"session_id":"s"`, `"session_id":"other"`, 1), rres}, Want: []ruletest.Want{{Line: 2, Rule: "claude/session-id"}}},
		{Name: "session id after a reset", Lines: []string{rinit, `{"type":"conversation_reset","new_conversation_id":"n","uuid":"u","session_id":"s"}`, strings.Replace(text, `"session_id":"s"`, `"session_id":"n"`, 1), rres}},
		{Name: "usage counted once per message", Lines: []string{rinit, use("m1", "a", 6), use("m1", "b", 6), answer("a"), answer("b"), rres}},
		{Name: "usage total below the messages", Lines: []string{rinit, use("m1", "a", 6), answer("a"), use("m2", "b", 6), answer("b"), rres},
			Want: []ruletest.Want{{Line: 6, Rule: "claude/usage-total"}}},
		{Name: "cost", Lines: []string{rinit, text, strings.Replace(rres, `"total_cost_usd":0.5`, `"total_cost_usd":0.7`, 1)}, Want: []ruletest.Want{{Line: 3, Rule: "claude/cost-total"}}},
		{Name: "cost as a double sums it", Lines: []string{rinit, text, strings.Replace(strings.Replace(rres, `"total_cost_usd":0.5`, `"total_cost_usd":0.0763163`, 1),
			`"m":{"inputTokens":10,"outputTokens":10,"cacheReadInputTokens":0,"cacheCreationInputTokens":0,"costUSD":0.5}`,
			`"h":{"inputTokens":1,"outputTokens":1,"cacheReadInputTokens":0,"cacheCreationInputTokens":0,"costUSD":0.011792900000000002},"m":{"inputTokens":10,"outputTokens":10,"cacheReadInputTokens":0,"cacheCreationInputTokens":0,"costUSD":0.06452340000000001}`, 1)}},
		{Name: "unknown type and subtype", Lines: []string{rinit, `{"type":"brand_new","uuid":"u","session_id":"s"}`, `{"type":"system","subtype":"brand_new","uuid":"u","session_id":"s"}`, text, rres},
			Want: []ruletest.Want{{Line: 2, Rule: "claude/unknown-type"}, {Line: 3, Rule: "claude/unknown-type"}}},
		{Name: "unknown result subtype", Lines: []string{rinit, text, strings.Replace(rres, `"subtype":"success"`, `"subtype":"error_brand_new"`, 1)},
			Want: []ruletest.Want{{Line: 3, Rule: "claude/unknown-value"}}},
		// result.stop_reason is string|null in the SDK: a newer API's word is
		// kept and reported, never an error of the schema.
		{Name: "unknown result stop_reason", Lines: []string{rinit, text, strings.Replace(rres, `"stop_reason":"end_turn"`, `"stop_reason":"brand_new_reason"`, 1)},
			Want: []ruletest.Want{{Line: 3, Rule: "claude/unknown-value"}}},
		{Name: "unknown field", Lines: []string{rinit, strings.Replace(text, `"uuid":"u"`, `"uuid":"u","mood":"sunny"`, 1), rres}, Want: []ruletest.Want{{Line: 2, Rule: "claude/unknown-field"}}},
		{Name: "permission answered twice", Lines: []string{rinit, use("m1", "a", 1),
			`{"type":"control_request","request_id":"r1","request":{"subtype":"can_use_tool","tool_name":"Bash","input":{},"tool_use_id":"a"}}`,
			`{"type":"control_response","response":{"subtype":"success","request_id":"r1","response":{"behavior":"allow"}}}`,
			`{"type":"control_response","response":{"subtype":"success","request_id":"r1","response":{"behavior":"deny"}}}`, answer("a"), rres},
			Want: []ruletest.Want{{Line: 5, Rule: "claude/permission-answered-twice"}}},
	})
}
