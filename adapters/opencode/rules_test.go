package opencode_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/evtool/evtool/adapters/opencode"
	"github.com/evtool/evtool/internal/testkit/ruletest"
)

const ses = "ses_r"

func line(typ, part string) string {
	return fmt.Sprintf(`{"type":%q,"timestamp":1790000000000,"sessionID":%q,"part":%s}`, typ, ses, part)
}

func stepStart(id string) string {
	return line("step_start", fmt.Sprintf(`{"id":%q,"sessionID":%q,"messageID":"msg_1","type":"step-start"}`, id, ses))
}

func stepFinish(id, reason string) string {
	return line("step_finish", fmt.Sprintf(`{"id":%q,"sessionID":%q,"messageID":"msg_1","type":"step-finish","reason":%q,"cost":0,"tokens":{"input":1,"output":2,"reasoning":0,"cache":{"read":0,"write":0}}}`, id, ses, reason))
}

func text(id string) string {
	return line("text", fmt.Sprintf(`{"id":%q,"sessionID":%q,"messageID":"msg_1","type":"text","text":"hi","time":{"start":1,"end":2}}`, id, ses))
}

func tool(id, status string) string {
	return line("tool_use", fmt.Sprintf(`{"id":%q,"sessionID":%q,"messageID":"msg_1","type":"tool","callID":"c","tool":"bash","state":{"status":%q,"input":{},"output":"","title":"","metadata":{},"time":{"start":1,"end":2}}}`, id, ses, status))
}

const errLine = `{"type":"error","timestamp":1790000000000,"sessionID":"ses_r","error":{"name":"UnknownError","data":{"message":"boom"}}}`
const doneLine = `{"type":"done","timestamp":1790000000000,"sessionID":"ses_r","reason":"idle","rejected":[]}`

func bus(typ, props string) string {
	return fmt.Sprintf(`{"id":"evt_1","type":%q,"properties":%s}`, typ, props)
}

func TestRules(t *testing.T) {
	busText := bus("message.part.updated", `{"sessionID":"ses_r","part":{"id":"p1","sessionID":"ses_r","messageID":"m","type":"text","text":"x","time":{"start":1,"end":2}},"time":2}`)
	busStep := bus("message.part.updated", `{"sessionID":"ses_r","part":{"id":"p0","sessionID":"ses_r","messageID":"m","type":"step-start"},"time":1}`)
	idle := bus("session.idle", `{"sessionID":"ses_r"}`)
	ruletest.Run(t, opencode.Dialect{}, []ruletest.Case{
		{Name: "valid run", Lines: []string{stepStart("s1"), tool("t1", "completed"), stepFinish("f1", "tool-calls"), stepStart("s2"), text("x1"), stepFinish("f2", "stop")}},
		{Name: "valid error end", Lines: []string{stepStart("s1"), errLine}},
		{Name: "valid done", Lines: []string{stepStart("s1"), stepFinish("f1", "tool-calls"), doneLine}},
		{Name: "valid bus", Lines: []string{bus("server.connected", `{}`), busStep, busText, idle}},
		{Name: "empty", Lines: nil, Want: []ruletest.Want{{Line: 0, Rule: opencode.RuleEmpty.ID}}},
		{Name: "first line", Lines: []string{text("x1"), stepFinish("f1", "stop")},
			Want: []ruletest.Want{{Line: 1, Rule: opencode.RuleFirstLine.ID}, {Line: 1, Rule: opencode.RuleOutsideStep.ID}, {Line: 2, Rule: opencode.RuleOutsideStep.ID}}},
		{Name: "truncated after tool-calls", Lines: []string{stepStart("s1"), stepFinish("f1", "tool-calls")}, Want: []ruletest.Want{{Line: 2, Rule: opencode.RuleTruncated.ID}}},
		{Name: "truncated inside a step", Lines: []string{stepStart("s1"), text("x1")}, Want: []ruletest.Want{{Line: 2, Rule: opencode.RuleTruncated.ID}}},
		{Name: "truncated bus", Lines: []string{bus("server.connected", `{}`), busStep, busText}, Want: []ruletest.Want{{Line: 3, Rule: opencode.RuleTruncated.ID}}},
		{Name: "after done", Lines: []string{stepStart("s1"), stepFinish("f1", "stop"), doneLine, stepStart("s2"), stepFinish("f2", "stop")},
			Want: []ruletest.Want{{Line: 4, Rule: opencode.RuleAfterDone.ID}, {Line: 5, Rule: opencode.RuleAfterDone.ID}}},
		{Name: "mixed shapes", Lines: []string{stepStart("s1"), idle, stepFinish("f1", "stop")}, Want: []ruletest.Want{{Line: 2, Rule: opencode.RuleShape.ID}}},
		{Name: "session id", Lines: []string{stepStart("s1"), strings.Replace(stepFinish("f1", "stop"), `"sessionID":"ses_r","part"`, `"sessionID":"ses_other","part"`, 1)},
			Want: []ruletest.Want{{Line: 2, Rule: opencode.RuleSessionID.ID}}},
		{Name: "part session", Lines: []string{stepStart("s1"), strings.Replace(stepFinish("f1", "stop"), `"id":"f1","sessionID":"ses_r"`, `"id":"f1","sessionID":"ses_child"`, 1)},
			Want: []ruletest.Want{{Line: 2, Rule: opencode.RuleSessionID.ID}}},
		{Name: "bus part session", Lines: []string{bus("server.connected", `{}`), busStep, strings.Replace(busText, `"id":"p1","sessionID":"ses_r"`, `"id":"p1","sessionID":"ses_child"`, 1), idle},
			Want: []ruletest.Want{{Line: 3, Rule: opencode.RulePartSession.ID}}},
		{Name: "session after a line that is not JSON", Lines: []string{"opencode: starting", stepStart("s1"), stepFinish("f1", "stop")}},
		{Name: "text not ended", Lines: []string{stepStart("s1"), strings.Replace(text("x1"), `"time":{"start":1,"end":2}`, `"time":{"start":1}`, 1), stepFinish("f1", "stop")},
			Want: []ruletest.Want{{Line: 2, Rule: opencode.RuleTextState.ID}}},
		{Name: "text without time", Lines: []string{stepStart("s1"), strings.Replace(text("x1"), `,"time":{"start":1,"end":2}`, ``, 1), stepFinish("f1", "stop")},
			Want: []ruletest.Want{{Line: 2, Rule: opencode.RuleTextState.ID}}},
		{Name: "reasoning not ended", Lines: []string{stepStart("s1"), line("reasoning", `{"id":"r1","sessionID":"ses_r","messageID":"msg_1","type":"reasoning","text":"hm","time":{"start":1}}`), stepFinish("f1", "stop")},
			Want: []ruletest.Want{{Line: 2, Rule: opencode.RuleTextState.ID}}},
		{Name: "unknown finish reason", Lines: []string{stepStart("s1"), stepFinish("f1", "paused")}, Want: []ruletest.Want{{Line: 2, Rule: opencode.RuleUnknownValue.ID}}},
		{Name: "documented finish reasons", Lines: []string{stepStart("s1"), stepFinish("f1", "length"), stepStart("s2"), stepFinish("f2", "unknown"), stepStart("s3"), stepFinish("f3", "error")}},
		{Name: "unknown error name", Lines: []string{stepStart("s1"), strings.Replace(errLine, "UnknownError", "QuotaError", 1)}, Want: []ruletest.Want{{Line: 2, Rule: opencode.RuleUnknownValue.ID}}},
		{Name: "unknown done reason", Lines: []string{stepStart("s1"), stepFinish("f1", "stop"), strings.Replace(doneLine, "idle", "aborted", 1)}, Want: []ruletest.Want{{Line: 3, Rule: opencode.RuleUnknownValue.ID}}},
		{Name: "unknown bus part type", Lines: []string{bus("server.connected", `{}`), bus("message.part.updated", `{"sessionID":"ses_r","part":{"id":"p9","sessionID":"ses_r","messageID":"m","type":"hologram"},"time":1}`)},
			Want: []ruletest.Want{{Line: 2, Rule: opencode.RuleUnknownValue.ID}}},
		{Name: "bus part types of SDK 1.19.3", Lines: []string{bus("server.connected", `{}`), bus("message.part.updated", `{"sessionID":"ses_r","part":{"id":"p9","sessionID":"ses_r","messageID":"m","type":"compaction","auto":true},"time":1}`), bus("session.next.step.started", `{"sessionID":"ses_r"}`)}},
		{Name: "part type", Lines: []string{stepStart("s1"), strings.Replace(text("x1"), `"type":"text","text"`, `"type":"file","text"`, 1), stepFinish("f1", "stop")},
			Want: []ruletest.Want{{Line: 2, Rule: opencode.RulePartType.ID}}},
		{Name: "part repeated", Lines: []string{stepStart("s1"), text("x1"), text("x1"), stepFinish("f1", "stop")}, Want: []ruletest.Want{{Line: 3, Rule: opencode.RulePartRepeated.ID}}},
		{Name: "step unfinished", Lines: []string{stepStart("s1"), stepStart("s2"), stepFinish("f1", "stop")}, Want: []ruletest.Want{{Line: 2, Rule: opencode.RuleStepOpen.ID}}},
		{Name: "tool not ended", Lines: []string{stepStart("s1"), tool("t1", "running"), stepFinish("f1", "stop")}, Want: []ruletest.Want{{Line: 2, Rule: opencode.RuleToolState.ID}}},
		{Name: "tool pending", Lines: []string{stepStart("s1"), line("tool_use", `{"id":"t1","sessionID":"ses_r","messageID":"msg_1","type":"tool","callID":"c","tool":"bash","state":{"status":"pending","input":{},"raw":""}}`), stepFinish("f1", "stop")},
			Want: []ruletest.Want{{Line: 2, Rule: opencode.RuleToolState.ID}}},
		{Name: "usage total", Lines: []string{stepStart("s1"), strings.Replace(stepFinish("f1", "stop"), `"tokens":{`, `"tokens":{"total":4,`, 1)}, Want: []ruletest.Want{{Line: 2, Rule: opencode.RuleUsageTotal.ID}}},
		{Name: "unknown type", Lines: []string{stepStart("s1"), `{"type":"compaction","timestamp":1,"sessionID":"ses_r"}`, stepFinish("f1", "stop")}, Want: []ruletest.Want{{Line: 2, Rule: opencode.RuleUnknownType.ID}}},
		{Name: "unknown bus type", Lines: []string{bus("server.connected", `{}`), bus("session.next.step", `{}`)}, Want: []ruletest.Want{{Line: 2, Rule: opencode.RuleUnknownType.ID}}},
		{Name: "unknown fields", Lines: []string{strings.Replace(stepStart("s1"), `"type":"step-start"`, `"type":"step-start","x":1`, 1), strings.Replace(stepFinish("f1", "stop"), `{"type":"step_finish",`, `{"type":"step_finish","modelID":"m",`, 1)},
			Want: []ruletest.Want{{Line: 1, Rule: opencode.RuleUnknownField.ID}, {Line: 2, Rule: opencode.RuleUnknownField.ID}}},
	})
}
