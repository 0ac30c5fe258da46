package codex_test

import (
	"fmt"
	"testing"

	"github.com/evtool/evtool/adapters/codex"
	"github.com/evtool/evtool/internal/testkit/ruletest"
)

const (
	head     = `{"type":"thread.started","thread_id":"t"}`
	turn     = `{"type":"turn.started"}`
	done     = `{"type":"turn.completed","usage":{"input_tokens":10,"cached_input_tokens":4,"output_tokens":2}}`
	failed   = `{"type":"turn.failed","error":{"message":"boom"}}`
	messages = `{"type":"item.completed","item":{"id":"item_9","type":"agent_message","text":"hi"}}`
)

func cmdStarted(id string) string {
	return fmt.Sprintf(`{"type":"item.started","item":{"id":%q,"type":"command_execution","command":"ls","aggregated_output":"","exit_code":null,"status":"in_progress"}}`, id)
}

func cmdDone(id, status string) string {
	return fmt.Sprintf(`{"type":"item.completed","item":{"id":%q,"type":"command_execution","command":"ls","aggregated_output":"","exit_code":0,"status":%q}}`, id, status)
}

func usage(in, cached, out int) string {
	return fmt.Sprintf(`{"type":"turn.completed","usage":{"input_tokens":%d,"cached_input_tokens":%d,"output_tokens":%d}}`, in, cached, out)
}

func TestRules(t *testing.T) {
	w := func(line int, rule string) ruletest.Want { return ruletest.Want{Line: line, Rule: rule} }
	ruletest.Run(t, codex.Dialect{}, []ruletest.Case{
		{Name: "valid", Lines: []string{head, turn, cmdStarted("a"), cmdDone("a", "completed"), messages, done}},
		{Name: "valid failed turn", Lines: []string{head, turn, `{"type":"error","message":"limit"}`, failed}},
		{Name: "valid completed-only items", Lines: []string{head, turn, cmdDone("a", "failed"), messages, done}},
		// A thread of several turns is the output of one process per turn
		// (codex exec, then codex exec resume), one after the other: each
		// writes thread.started and numbers its items from item_0.
		{Name: "valid two processes of one thread", Lines: []string{head, turn, cmdDone("item_0", "completed"), usage(10, 4, 2),
			head, turn, cmdDone("item_0", "completed"), usage(30, 8, 5)}},
		{Name: "two turns in one process", Lines: []string{head, turn, usage(10, 4, 2), turn, usage(30, 8, 5)},
			Want: []ruletest.Want{w(4, codex.RuleOneTurn.ID)}},
		{Name: "another thread", Lines: []string{head, turn, done, `{"type":"thread.started","thread_id":"u"}`, turn, done},
			Want: []ruletest.Want{w(4, codex.RuleThreadChanged.ID)}},
		{Name: "process interrupted inside its turn", Lines: []string{head, turn, cmdStarted("item_0"), head, turn, done},
			Want: []ruletest.Want{w(4, codex.RuleTruncated.ID), w(3, codex.RuleItemUnfinished.ID)}},
		{Name: "process without a turn", Lines: []string{head, `{"type":"error","message":"fatal"}`, head, turn, done},
			Want: []ruletest.Want{w(3, codex.RuleTruncated.ID)}},
		{Name: "last process without a turn", Lines: []string{head, turn, done, head}, Want: []ruletest.Want{w(4, codex.RuleTruncated.ID)}},
		{Name: "usage decreasing across processes", Lines: []string{head, turn, usage(30, 8, 5), head, turn, usage(10, 8, 6)},
			Want: []ruletest.Want{w(6, codex.RuleUsageDecreasing.ID)}},
		{Name: "empty", Want: []ruletest.Want{w(0, codex.RuleFirstLine.ID)}},
		{Name: "first line", Lines: []string{turn, done}, Want: []ruletest.Want{w(1, codex.RuleFirstLine.ID)}},
		{Name: "turn started twice", Lines: []string{head, turn, turn, done}, Want: []ruletest.Want{w(3, codex.RuleTurnStarted.ID)}},
		{Name: "turn not started", Lines: []string{head, done}, Want: []ruletest.Want{w(2, codex.RuleTurnNotStarted.ID)}},
		{Name: "interrupted inside a turn", Lines: []string{head, turn, cmdStarted("a")}, Want: []ruletest.Want{w(3, codex.RuleTruncated.ID)}},
		{Name: "fatal error before a turn ends", Lines: []string{head, `{"type":"error","message":"fatal"}`}, Want: []ruletest.Want{w(2, codex.RuleTruncated.ID)}},
		{Name: "item outside a turn", Lines: []string{head, messages, turn, done}, Want: []ruletest.Want{w(2, codex.RuleOutsideTurn.ID)}},
		{Name: "item started twice", Lines: []string{head, turn, cmdStarted("a"), cmdStarted("a"), cmdDone("a", "completed"), done},
			Want: []ruletest.Want{w(4, codex.RuleItemStarted.ID)}},
		{Name: "item completed twice", Lines: []string{head, turn, cmdDone("a", "completed"), cmdDone("a", "completed"), done},
			Want: []ruletest.Want{w(4, codex.RuleItemClosed.ID)}},
		{Name: "item type changed", Lines: []string{head, turn, cmdStarted("a"),
			`{"type":"item.completed","item":{"id":"a","type":"mcp_tool_call","server":"s","tool":"t","status":"completed"}}`, done},
			Want: []ruletest.Want{w(4, codex.RuleItemType.ID)}},
		{Name: "item unfinished", Lines: []string{head, turn, cmdStarted("a"), done}, Want: []ruletest.Want{w(3, codex.RuleItemUnfinished.ID)}},
		{Name: "item status", Lines: []string{head, turn,
			`{"type":"item.started","item":{"id":"a","type":"command_execution","command":"ls","aggregated_output":"","exit_code":null,"status":"completed"}}`,
			cmdDone("a", "in_progress"), done},
			Want: []ruletest.Want{w(3, codex.RuleItemStatus.ID), w(4, codex.RuleItemStatus.ID)}},
		{Name: "usage nested", Lines: []string{head, turn, usage(10, 11, 2)}, Want: []ruletest.Want{w(3, codex.RuleUsageNested.ID)}},
		{Name: "usage reasoning beyond output", Lines: []string{head, turn,
			`{"type":"turn.completed","usage":{"input_tokens":10,"cached_input_tokens":0,"output_tokens":2,"reasoning_output_tokens":3}}`},
			Want: []ruletest.Want{w(3, codex.RuleUsageNested.ID)}},
		{Name: "unknown type", Lines: []string{head, turn, `{"type":"turn.plan.updated"}`, done}, Want: []ruletest.Want{w(3, codex.RuleUnknownType.ID)}},
		{Name: "unknown item type", Lines: []string{head, turn, `{"type":"item.completed","item":{"id":"x","type":"image_view","path":"a.png"}}`, done},
			Want: []ruletest.Want{w(3, codex.RuleUnknownItemType.ID)}},
		{Name: "unknown fields", Lines: []string{head + "", turn,
			`{"type":"item.completed","item":{"id":"item_9","type":"agent_message","text":"hi","phase":"final"},"seq":3}`,
			`{"type":"item.completed","item":{"id":"c","type":"file_change","changes":[{"path":"a","kind":"add","move_path":null}],"status":"completed"}}`,
			`{"type":"turn.completed","usage":{"input_tokens":10,"cached_input_tokens":4,"output_tokens":2,"total_tokens":12}}`},
			Want: []ruletest.Want{w(3, codex.RuleUnknownField.ID), w(3, codex.RuleUnknownField.ID), w(4, codex.RuleUnknownField.ID), w(5, codex.RuleUnknownField.ID)}},
		{Name: "web search results", Lines: []string{head, turn,
			`{"type":"item.completed","item":{"id":"item_0","type":"web_search","id":"ws_1","query":"q","action":{"type":"search","query":"q"},"results":[{"title":"T","url":"https://example.com"}]}}`, done}},
		{Name: "unknown values", Lines: []string{head, turn,
			cmdDone("a", "timed_out"),
			`{"type":"item.completed","item":{"id":"b","type":"file_change","changes":[{"path":"a","kind":"add"},{"path":"b","kind":"rename"}],"status":"declined"}}`,
			`{"type":"item.completed","item":{"id":"c","type":"mcp_tool_call","server":"s","tool":"t","status":"Completed"}}`,
			`{"type":"item.completed","item":{"id":"d","type":"collab_tool_call","tool":"fork_agent","sender_thread_id":"s","receiver_thread_ids":["r"],"prompt":null,"agents_states":{"r":{"status":"sleeping","message":null}},"status":"completed"}}`,
			`{"type":"item.completed","item":{"id":"e","type":"web_search","query":"q","action":{"type":"scroll"}}}`,
			done},
			Want: []ruletest.Want{w(3, codex.RuleUnknownValue.ID), w(4, codex.RuleUnknownValue.ID), w(4, codex.RuleUnknownValue.ID), w(5, codex.RuleUnknownValue.ID),
				w(6, codex.RuleUnknownValue.ID), w(6, codex.RuleUnknownValue.ID), w(7, codex.RuleUnknownValue.ID)}},
	})
}
