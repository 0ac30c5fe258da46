package geminichat_test

import (
	"strings"
	"testing"

	"github.com/evtool/evtool/adapters/geminichat"
	"github.com/evtool/evtool/internal/testkit/ruletest"
)

// Lines of a small chat, for the rule cases.
const (
	rUser   = `{"id":"u1","timestamp":"2026-05-06T12:00:01.000Z","type":"user","content":[{"text":"Fix the build"}]}`
	rGem    = `{"id":"g1","timestamp":"2026-05-06T12:00:02.000Z","type":"gemini","content":"","thoughts":[],"tokens":{"input":100,"output":5,"cached":40,"thoughts":2,"tool":3,"total":110},"model":"gemini-2.5-pro"}`
	rGemTC  = `{"id":"g1","timestamp":"2026-05-06T12:00:02.000Z","type":"gemini","content":"","thoughts":[],"tokens":{"input":100,"output":5,"cached":40,"thoughts":2,"tool":3,"total":110},"model":"gemini-2.5-pro","toolCalls":[{"id":"c1","name":"glob","args":{},"result":null,"status":"success","timestamp":"2026-05-06T12:00:02.100Z"}]}`
	rSet    = `{"$set":{"lastUpdated":"2026-05-06T12:00:02.000Z"}}`
	rUser2  = `{"id":"u2","timestamp":"2026-05-06T12:00:03.000Z","type":"user","content":"and the tests"}`
	rSubHd  = `{"sessionId":"a1","projectHash":"h","startTime":"2026-05-06T12:00:02.050Z","lastUpdated":"2026-05-06T12:00:02.050Z","kind":"subagent","directories":["/w"]}`
	rCalled = `{"id":"g2","timestamp":"2026-05-06T12:00:04.000Z","type":"gemini","content":"","model":"m","tokens":null,"toolCalls":[{"id":"c2","name":"run_shell_command","args":{"command":"make"},"result":null,"status":"%s","timestamp":"2026-05-06T12:00:04.100Z"}]}`
)

func called(status string) string { return strings.Replace(rCalled, "%s", status, 1) }

func TestRules(t *testing.T) {
	w := func(line int, r string) ruletest.Want { return ruletest.Want{Line: line, Rule: r} }
	ruletest.Run(t, geminichat.Dialect{}, []ruletest.Case{
		{Name: "valid: a record written twice, with a $set between", Lines: []string{head, rUser, rSet, rGem, rSet, rGemTC, rSet, rUser2}},
		{Name: "valid: rewind to an earlier record, then to the last", Lines: []string{head, rUser, rGem, rUser2, `{"$rewindTo":"u2"}`, rUser2, `{"$rewindTo":"u1"}`}},
		{Name: "valid: a subagent's chat after its parent's", Lines: []string{head, rUser, rGemTC, rSubHd, rUser, rGem}},
		{Name: "valid: a history rewrite keeps its records on the path", Lines: []string{head, rUser, rGem,
			`{"$set":{"messages":[{"id":"s1","timestamp":"2026-05-06T12:00:05.000Z","type":"user","content":"summary"}]}}`, `{"$rewindTo":"s1"}`}},
		{Name: "valid: a legacy chat on one line", Lines: []string{`{"sessionId":"s","projectHash":"h","startTime":"2025-11-20T10:00:00.000Z","messages":[` + rUser + `]}`, `{"$rewindTo":"u1"}`}},
		{Name: "valid: every terminal status", Lines: []string{head, called("success"), strings.Replace(called("error"), `"g2"`, `"g3"`, 1), strings.Replace(called("cancelled"), `"g2"`, `"g4"`, 1)}},
		{Name: "empty", Want: []ruletest.Want{w(0, geminichat.RuleFirstLine.ID)}},
		{Name: "first line is a record", Lines: []string{rUser, rGem}, Want: []ruletest.Want{w(1, geminichat.RuleFirstLine.ID)}},
		{Name: "a second main chat", Lines: []string{head, rUser, head}, Want: []ruletest.Want{w(3, geminichat.RuleMetaRepeated.ID)}},
		{Name: "rewind to nowhere", Lines: []string{head, rUser, `{"$rewindTo":"u9"}`}, Want: []ruletest.Want{w(3, geminichat.RuleRewindUnknown.ID)}},
		{Name: "rewind to a record a rewind abandoned", Lines: []string{head, rUser, rGem, `{"$rewindTo":"u1"}`, `{"$rewindTo":"g1"}`},
			Want: []ruletest.Want{w(5, geminichat.RuleRewindUnknown.ID)}},
		{Name: "rewind to a record a history rewrite dropped", Lines: []string{head, rUser, rGem, `{"$set":{"messages":[]}}`, `{"$rewindTo":"u1"}`},
			Want: []ruletest.Want{w(5, geminichat.RuleRewindUnknown.ID)}},
		{Name: "a record written again after others", Lines: []string{head, rUser, rGem, rUser}, Want: []ruletest.Want{w(4, geminichat.RuleReappended.ID)}},
		{Name: "a record written again after a rewind dropped it is new", Lines: []string{head, rUser, rGem, `{"$rewindTo":"u1"}`, rUser}},
		{Name: "a call that never ended", Lines: []string{head, called("executing"), rUser2}, Want: []ruletest.Want{w(2, geminichat.RuleToolUnfinished.ID)}},
		{Name: "a call that never ended, at the end", Lines: []string{head, called("scheduled")}, Want: []ruletest.Want{w(2, geminichat.RuleToolUnfinished.ID)}},
		{Name: "a call that ended in a later form of its record", Lines: []string{head, called("executing"), called("success")}},
		{Name: "tokens", Lines: []string{head, strings.Replace(rGem, `"total":110`, `"total":107`, 1),
			strings.Replace(rGem, `"cached":40`, `"cached":400`, 1)},
			Want: []ruletest.Want{w(2, geminichat.RuleTokensTotal.ID), w(3, geminichat.RuleTokensCached.ID)}},
		{Name: "timestamps", Lines: []string{strings.Replace(head, `"startTime":"2026-04-23T12:52:52.759Z"`, `"startTime":"now"`, 1),
			strings.Replace(rGemTC, `"2026-05-06T12:00:02.100Z"`, `"later"`, 1), `{"$set":{"lastUpdated":"5 past"}}`},
			Want: []ruletest.Want{w(1, geminichat.RuleTimestamp.ID), w(2, geminichat.RuleTimestamp.ID), w(3, geminichat.RuleTimestamp.ID)}},
		{Name: "unknown line", Lines: []string{head, `{"checkpoint":"x"}`}, Want: []ruletest.Want{w(2, geminichat.RuleUnknownLine.ID)}},
		{Name: "unknown type", Lines: []string{head, `{"id":"x1","timestamp":"2026-05-06T12:00:01.000Z","type":"compression","content":"c","extra":1}`},
			Want: []ruletest.Want{w(2, geminichat.RuleUnknownType.ID)}},
		{Name: "unknown fields", Lines: []string{strings.Replace(head, `"kind":"main"`, `"kind":"main","theme":"dark"`, 1),
			strings.Replace(rUser, `"type":"user"`, `"type":"user","model":"m"`, 1),
			strings.Replace(rGemTC, `"status":"success"`, `"status":"success","durationMs":5`, 1),
			`{"$set":{"title":"t"},"v":2}`, `{"$rewindTo":"u1","by":"me"}`},
			Want: []ruletest.Want{w(1, geminichat.RuleUnknownField.ID), w(2, geminichat.RuleUnknownField.ID), w(3, geminichat.RuleUnknownField.ID),
				w(4, geminichat.RuleUnknownField.ID), w(4, geminichat.RuleUnknownField.ID), w(5, geminichat.RuleUnknownField.ID)}},
		{Name: "unknown values", Lines: []string{strings.Replace(head, `"kind":"main"`, `"kind":"worker"`, 1), called("queued")},
			Want: []ruletest.Want{w(1, geminichat.RuleUnknownValue.ID), w(2, geminichat.RuleUnknownValue.ID), w(2, geminichat.RuleToolUnfinished.ID)}},
	})
}
