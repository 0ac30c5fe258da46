package gemini_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/evtool/evtool/adapters/gemini"
	"github.com/evtool/evtool/internal/testkit/ruletest"
)

const (
	ghead = `{"type":"init","timestamp":"2026-10-01T09:00:00.000Z","session_id":"s","model":"auto"}`
	guser = `{"type":"message","timestamp":"2026-10-01T09:00:00.001Z","role":"user","content":"go"}`
	gres  = `{"type":"result","timestamp":"2026-10-01T09:00:09.000Z","status":"success","stats":{"total_tokens":30,"input_tokens":20,"output_tokens":5,"cached":4,"input":16,"duration_ms":9000,"tool_calls":1,"models":{"a":{"total_tokens":30,"input_tokens":20,"output_tokens":5,"cached":4,"input":16}}}}`
)

func use(id string) string {
	return fmt.Sprintf(`{"type":"tool_use","timestamp":"2026-10-01T09:00:01.000Z","tool_name":"read_file","tool_id":%q,"parameters":{}}`, id)
}

func result(id string) string {
	return fmt.Sprintf(`{"type":"tool_result","timestamp":"2026-10-01T09:00:02.000Z","tool_id":%q,"status":"success","output":"ok"}`, id)
}

func stats(s string) string {
	return `{"type":"result","timestamp":"2026-10-01T09:00:09.000Z","status":"success","stats":` + s + `}`
}

func TestRules(t *testing.T) {
	ruletest.Run(t, gemini.Dialect{}, []ruletest.Case{
		{Name: "valid", Lines: []string{ghead, guser, use("a"), use("b"), result("a"), result("b"), gres}},
		{Name: "valid, old stats without models", Lines: []string{ghead, guser, stats(`{"total_tokens":3,"input_tokens":2,"output_tokens":1,"duration_ms":1,"tool_calls":0}`)}},
		{Name: "valid, fatal error with empty models", Lines: []string{ghead, guser,
			`{"type":"result","timestamp":"2026-10-01T09:00:01.000Z","status":"error","error":{"type":"TerminalQuotaError","message":"Quota exceeded"},"stats":{"total_tokens":0,"input_tokens":0,"output_tokens":0,"cached":0,"input":0,"duration_ms":0,"tool_calls":0,"models":{}}}`}},
		// The producer clamps input at 0, but cached tokens are part of
		// the prompt: more cached than input is reported, at each level.
		{Name: "cached above input", Lines: []string{ghead, stats(`{"total_tokens":9,"input_tokens":2,"output_tokens":1,"cached":5,"input":0,"duration_ms":1,"tool_calls":0,"models":{"a":{"total_tokens":9,"input_tokens":2,"output_tokens":1,"cached":5,"input":0}}}`)},
			Want: []ruletest.Want{{Line: 2, Rule: gemini.RuleStatsCached.ID}, {Line: 2, Rule: gemini.RuleStatsCached.ID}}},
		{Name: "cached equal to input", Lines: []string{ghead, stats(`{"total_tokens":9,"input_tokens":5,"output_tokens":1,"cached":5,"input":0,"duration_ms":1,"tool_calls":0}`)}},
		{Name: "known tool error types", Lines: []string{ghead, use("a"), use("b"), use("c"),
			`{"type":"tool_result","timestamp":"2026-10-01T09:00:02.000Z","tool_id":"a","status":"error","error":{"type":"stop_execution","message":"m"}}`,
			`{"type":"tool_result","timestamp":"2026-10-01T09:00:02.000Z","tool_id":"b","status":"error","error":{"type":"TOOL_EXECUTION_ERROR","message":"m"}}`,
			`{"type":"tool_result","timestamp":"2026-10-01T09:00:02.000Z","tool_id":"c","status":"error","error":{"type":"user_cancelled","message":"m"}}`,
			`{"type":"result","timestamp":"2026-10-01T09:00:09.000Z","status":"error","error":{"type":"SomeNewFatalError","message":"m"}}`}},
		{Name: "unknown tool error type", Lines: []string{ghead, use("a"),
			`{"type":"tool_result","timestamp":"2026-10-01T09:00:02.000Z","tool_id":"a","status":"error","error":{"type":"sandbox_denied","message":"m"}}`, gres},
			Want: []ruletest.Want{{Line: 3, Rule: gemini.RuleUnknownValue.ID}}},
		{Name: "first line", Lines: []string{guser, gres}, Want: []ruletest.Want{{Line: 1, Rule: gemini.RuleFirstLine.ID}}},
		{Name: "empty", Lines: nil, Want: []ruletest.Want{{Line: 0, Rule: gemini.RuleFirstLine.ID}}},
		{Name: "init repeated", Lines: []string{ghead, guser, ghead, gres}, Want: []ruletest.Want{{Line: 3, Rule: gemini.RuleInitRepeated.ID}}},
		{Name: "init names another session", Lines: []string{ghead, strings.Replace(ghead, `"session_id":"s"`, `"session_id":"t"`, 1), gres},
			Want: []ruletest.Want{{Line: 2, Rule: gemini.RuleInitRepeated.ID}, {Line: 2, Rule: gemini.RuleSessionIDChange.ID}}},
		{Name: "after result", Lines: []string{ghead, guser, gres, guser}, Want: []ruletest.Want{{Line: 4, Rule: gemini.RuleAfterResult.ID}}},
		{Name: "truncated (a killed process)", Lines: []string{ghead, guser, use("a")}, Want: []ruletest.Want{{Line: 3, Rule: gemini.RuleTruncated.ID}}},
		{Name: "tool id reused while open", Lines: []string{ghead, use("a"), use("a"), result("a"), gres}, Want: []ruletest.Want{{Line: 3, Rule: gemini.RuleToolIDReused.ID}}},
		{Name: "tool id reused after its result", Lines: []string{ghead, use("a"), result("a"), use("a"), result("a"), gres},
			Want: []ruletest.Want{{Line: 4, Rule: gemini.RuleToolIDReused.ID}, {Line: 5, Rule: gemini.RuleResultTwice.ID}}},
		{Name: "result for an unannounced call", Lines: []string{ghead, result("ghost"), gres}, Want: []ruletest.Want{{Line: 2, Rule: gemini.RuleResultUnknown.ID}}},
		{Name: "result twice", Lines: []string{ghead, use("a"), result("a"), result("a"), gres}, Want: []ruletest.Want{{Line: 4, Rule: gemini.RuleResultTwice.ID}}},
		{Name: "unfinished call", Lines: []string{ghead, use("a"), use("b"), gres},
			Want: []ruletest.Want{{Line: 2, Rule: gemini.RuleToolUnfinished.ID}, {Line: 3, Rule: gemini.RuleToolUnfinished.ID}}},
		{Name: "stats input", Lines: []string{ghead, stats(`{"total_tokens":30,"input_tokens":20,"output_tokens":5,"cached":4,"input":20,"duration_ms":1,"tool_calls":0,"models":{"a":{"total_tokens":30,"input_tokens":20,"output_tokens":5,"cached":4,"input":17}}}`)},
			Want: []ruletest.Want{{Line: 2, Rule: gemini.RuleStatsInput.ID}, {Line: 2, Rule: gemini.RuleStatsInput.ID}, {Line: 2, Rule: gemini.RuleStatsModels.ID}}},
		{Name: "stats total", Lines: []string{ghead, stats(`{"total_tokens":24,"input_tokens":20,"output_tokens":5,"duration_ms":1,"tool_calls":0}`)},
			Want: []ruletest.Want{{Line: 2, Rule: gemini.RuleStatsTotal.ID}}},
		{Name: "stats total beyond u64", Lines: []string{ghead, stats(`{"total_tokens":18446744073709551615,"input_tokens":18446744073709551615,"output_tokens":1,"duration_ms":1,"tool_calls":0}`)},
			Want: []ruletest.Want{{Line: 2, Rule: gemini.RuleStatsTotal.ID}}},
		{Name: "stats models", Lines: []string{ghead, stats(`{"total_tokens":30,"input_tokens":20,"output_tokens":5,"cached":4,"input":16,"duration_ms":1,"tool_calls":0,"models":{}}`)},
			Want: []ruletest.Want{{Line: 2, Rule: gemini.RuleStatsModels.ID}, {Line: 2, Rule: gemini.RuleStatsModels.ID}, {Line: 2, Rule: gemini.RuleStatsModels.ID}, {Line: 2, Rule: gemini.RuleStatsModels.ID}, {Line: 2, Rule: gemini.RuleStatsModels.ID}}},
		{Name: "timestamp", Lines: []string{ghead, strings.Replace(guser, "2026-10-01T09:00:00.001Z", "yesterday", 1), gres},
			Want: []ruletest.Want{{Line: 2, Rule: gemini.RuleTimestamp.ID}}},
		{Name: "unknown type", Lines: []string{ghead, `{"type":"thought","timestamp":"2026-10-01T09:00:00.002Z","subject":"s"}`, gres},
			Want: []ruletest.Want{{Line: 2, Rule: gemini.RuleUnknownType.ID}}},
		{Name: "unknown fields", Lines: []string{ghead,
			`{"type":"message","timestamp":"2026-10-01T09:00:00.001Z","role":"user","content":"go","images":[]}`,
			`{"type":"tool_result","timestamp":"2026-10-01T09:00:02.000Z","tool_id":"x","status":"error","error":{"type":"execution_failed","message":"m","code":7}}`,
			stats(`{"total_tokens":30,"input_tokens":20,"output_tokens":5,"duration_ms":1,"tool_calls":0,"api_requests":2,"models":{"a":{"total_tokens":30,"input_tokens":20,"output_tokens":5,"cached":0,"input":20,"thoughts":1}}}`)},
			Want: []ruletest.Want{{Line: 2, Rule: gemini.RuleUnknownField.ID}, {Line: 3, Rule: gemini.RuleUnknownField.ID}, {Line: 3, Rule: gemini.RuleResultUnknown.ID},
				{Line: 4, Rule: gemini.RuleUnknownField.ID}, {Line: 4, Rule: gemini.RuleUnknownField.ID}}},
	})
}
