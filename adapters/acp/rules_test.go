package acp_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/evtool/evtool/internal/testkit/ruletest"

	"github.com/evtool/evtool/adapters/acp"
	"github.com/evtool/evtool/adapters/canonical"
	"github.com/evtool/evtool/convert"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
)

func upd(u string) string {
	return `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":` + u + `}}`
}

const (
	call   = `{"sessionUpdate":"tool_call","toolCallId":"c1","title":"t","status":"pending"}`
	finish = `{"sessionUpdate":"tool_call_update","toolCallId":"c1","status":"completed"}`
)

func TestRules(t *testing.T) {
	ruletest.Run(t, acp.Dialect{}, []ruletest.Case{
		{Name: "valid", Lines: []string{upd(call), upd(finish)}},
		{Name: "not json-rpc 2.0", Lines: []string{`{"jsonrpc":"1.0","method":"session/update","params":{"sessionId":"s","update":` + call + `}}`, upd(finish)}, Want: []ruletest.Want{{Line: 1, Rule: "acp/jsonrpc"}}},
		{Name: "response with both", Lines: []string{`{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"s","prompt":[]}}`, `{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"x"}}`}, Want: []ruletest.Want{{Line: 2, Rule: "acp/jsonrpc"}}},
		{Name: "unknown method", Lines: []string{`{"jsonrpc":"2.0","method":"session/teleport","params":{}}`}, Want: []ruletest.Want{{Line: 1, Rule: "acp/method"}}},
		{Name: "session id changes", Lines: []string{upd(call), strings.Replace(upd(finish), `"sessionId":"s"`, `"sessionId":"t"`, 1)}, Want: []ruletest.Want{{Line: 2, Rule: "acp/session-id"}}},
		{Name: "update before tool_call", Lines: []string{upd(finish)}, Want: []ruletest.Want{{Line: 1, Rule: "acp/tool-call-first"}}},
		{Name: "permission before tool_call", Lines: []string{`{"jsonrpc":"2.0","id":1,"method":"session/request_permission","params":{"sessionId":"s","toolCall":{"toolCallId":"c9"},"options":[]}}`}, Want: []ruletest.Want{{Line: 1, Rule: "acp/tool-call-first"}}},
		{Name: "second tool_call", Lines: []string{upd(call), upd(call), upd(finish)}, Want: []ruletest.Want{{Line: 2, Rule: "acp/tool-call-duplicate"}}},
		{Name: "left open", Lines: []string{upd(call)}, Want: []ruletest.Want{{Line: 1, Rule: "acp/tool-call-open"}}},
		{Name: "custom field at the root", Lines: []string{upd(`{"sessionUpdate":"tool_call","toolCallId":"c1","title":"t","status":"completed","evtool":1}`)}, Want: []ruletest.Want{{Line: 1, Rule: "acp/custom-field"}}},
		{Name: "relative path", Lines: []string{upd(`{"sessionUpdate":"tool_call","toolCallId":"c1","title":"t","status":"completed","locations":[{"path":"src/a.go"}]}`)}, Want: []ruletest.Want{{Line: 1, Rule: "acp/absolute-path"}}},
		{Name: "update after the prompt's response", Lines: []string{`{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"s","prompt":[]}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}`, upd(`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"late"}}`)}, Want: []ruletest.Want{{Line: 3, Rule: "acp/update-after-response"}}},
		{Name: "response to nothing", Lines: []string{`{"jsonrpc":"2.0","id":7,"result":{"stopReason":"end_turn"}}`}, Want: []ruletest.Want{{Line: 1, Rule: "acp/response-unknown-id"}}},
		{Name: "unanswered request", Lines: []string{`{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"s","prompt":[]}}`}, Want: []ruletest.Want{{Line: 1, Rule: "acp/request-unanswered"}}},
		{Name: "call left open by its turn", Lines: []string{`{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"s","prompt":[]}}`, upd(call),
			`{"jsonrpc":"2.0","id":2,"method":"session/request_permission","params":{"sessionId":"s","toolCall":{"toolCallId":"c1"},"options":[]}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}`, `{"jsonrpc":"2.0","id":2,"result":{"outcome":{"outcome":"cancelled"}}}`, upd(finish)},
			Want: []ruletest.Want{{Line: 4, Rule: "acp/turn-closed"}, {Line: 4, Rule: "acp/turn-closed"}, {Line: 6, Rule: "acp/update-after-response"}}},
		{Name: "unstable variant", Lines: []string{upd(`{"sessionUpdate":"notice","severity":"info","title":"hi"}`)}, Want: []ruletest.Want{{Line: 1, Rule: "acp/unstable-variant"}}},
	})
}

// Reading ACP back: a transcript becomes turns, tool lifecycles and
// permission round trips again.
func TestReadTranscript(t *testing.T) {
	var tr bytes.Buffer
	if _, err := convert.Run(strings.NewReader(readFile(t, "../../testdata/acp/basis_denied.jsonl")), &tr, "in",
		convert.Options{To: acp.Dialect{}, Config: &acp.Config{Profile: acp.Stable, Transcript: true}}, func(le *convert.LineError) { t.Fatal(le) }); err != nil {
		t.Fatal(err)
	}
	var canon bytes.Buffer
	if _, err := convert.Run(&tr, &canon, "tr", convert.Options{From: acp.Dialect{}, To: canonical.Dialect{}}, func(le *convert.LineError) { t.Fatal(le) }); err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, l := range strings.Split(strings.TrimSpace(canon.String()), "\n") {
		ev, err := event.Parse([]byte(l))
		if err != nil {
			t.Fatal(err)
		}
		types = append(types, string(ev.Type()))
		if r, ok := ev.Body.(*event.PermissionResolved); ok && r.Outcome != "denied" {
			t.Errorf("the recorded denial came back as %q", r.Outcome)
		}
		if f, ok := ev.Body.(*event.ToolFinished); ok && (f.Status != "error" || f.Output == nil || *f.Output != "denied by the user") {
			t.Errorf("tool_finished: %+v", f)
		}
	}
	want := "session_started turn_started user_message tool_call permission_requested permission_resolved tool_finished reasoning_delta reasoning_delta message_delta turn_finished session_finished"
	if got := strings.Join(types, " "); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	// and it is a valid canonical stream.
	var v bytes.Buffer
	if _, err := convert.Run(strings.NewReader(canon.String()), &v, "c", convert.Options{From: canonical.Dialect{}, To: canonical.Dialect{}}, func(le *convert.LineError) { t.Fatal(le) }); err != nil {
		t.Fatal(err)
	}
}

// A result for a call the source never announced becomes one tool_call
// that already carries its final status; progress for an unknown call is
// announced first; and content is always the full collection.
func TestInvariantsByConstruction(t *testing.T) {
	in := strings.Join([]string{
		`{"seq":0,"type":"session_started","schema":1,"source":{"dialect":"canonical"},"session_id":"s"}`,
		`{"seq":1,"type":"tool_finished","call_id":"ghost","name":"read_file","status":"success","kind":"read","output":"42 lines"}`,
		`{"seq":2,"type":"tool_output","call_id":"late","chunk":"a"}`,
		`{"seq":3,"type":"tool_output","call_id":"late","chunk":"b"}`,
		`{"seq":4,"type":"session_finished","status":"ok"}`,
	}, "\n")
	var out bytes.Buffer
	res, err := convert.Run(strings.NewReader(in), &out, "c", convert.Options{To: acp.Dialect{}}, func(le *convert.LineError) { t.Fatal(le) })
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	want := []string{
		`{"sessionUpdate":"tool_call","toolCallId":"ghost","title":"read_file","kind":"read","status":"completed","content":[{"type":"content","content":{"type":"text","text":"42 lines"}}]}`,
		`{"sessionUpdate":"tool_call","toolCallId":"late","title":"Tool call","kind":"other","status":"in_progress"}`,
		`{"sessionUpdate":"tool_call_update","toolCallId":"late","content":[{"type":"content","content":{"type":"text","text":"a"}}]}`,
		`{"sessionUpdate":"tool_call_update","toolCallId":"late","content":[{"type":"content","content":{"type":"text","text":"ab"}}]}`,
		`{"sessionUpdate":"tool_call_update","toolCallId":"late","status":"failed","content":[{"type":"content","content":{"type":"text","text":"ab"}},{"type":"content","content":{"type":"text","text":"outcome unknown: the recording ended before this tool call finished"}}]}`,
	}
	if len(lines) != len(want) {
		t.Fatalf("got %d messages:\n%s", len(lines), out.String())
	}
	for i, w := range want {
		if !strings.Contains(lines[i], `"update":`+w+`}}`) {
			t.Errorf("message %d:\n got %s\nwant update %s", i, lines[i], w)
		}
	}
	if res.Losses.Empty() {
		t.Error("the synthesised announcements must be counted")
	}
}

// In a transcript, an update of no turn that the source writes after a
// turn ended (Claude Code's prompt_suggestion after its result) stays in
// that turn, before its response, rather than breaking
// acp/update-after-response or opening a turn with a prompt nobody sent.
func TestTranscriptNeverUpdatesOutsideATurn(t *testing.T) {
	in := strings.Join([]string{
		`{"seq":0,"type":"session_started","schema":1,"source":{"dialect":"canonical"}}`,
		`{"seq":1,"type":"turn_started","turn_id":"t1","prompt":"hi"}`,
		`{"seq":2,"type":"turn_finished","turn_id":"t1","status":"ok"}`,
		`{"seq":3,"type":"message_delta","text":"late"}`,
		`{"seq":4,"type":"session_finished","status":"ok"}`,
	}, "\n")
	var out bytes.Buffer
	if _, err := convert.Run(strings.NewReader(in), &out, "c", convert.Options{To: acp.Dialect{}, Config: &acp.Config{Profile: acp.Stable, Transcript: true}},
		func(le *convert.LineError) { t.Fatal(le) }); err != nil {
		t.Fatal(err)
	}
	c := acp.Dialect{}.NewChecker(dialect.CheckOptions{})
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	for i, l := range lines {
		c.Line([]byte(l), i+1, func(f dialect.Finding) { t.Errorf("%s: %s", f.Rule, f.Message) })
	}
	c.End(len(lines), func(f dialect.Finding) { t.Errorf("%s: %s", f.Rule, f.Message) })
	if n := strings.Count(out.String(), `"method":"session/prompt"`); n != 1 {
		t.Errorf("%d prompts, want 1:\n%s", n, out.String())
	}
	if !strings.Contains(lines[len(lines)-2], `"late"`) || !strings.Contains(lines[len(lines)-1], `"stopReason":"end_turn"`) {
		t.Errorf("the late update is not the turn's last before its response:\n%s", out.String())
	}
	// An event of another turn, or a user's message, still ends the turn
	// first.
	in = strings.Join([]string{
		`{"seq":0,"type":"session_started","schema":1,"source":{"dialect":"canonical"}}`,
		`{"seq":1,"type":"turn_started","turn_id":"t1","prompt":"hi"}`,
		`{"seq":2,"type":"turn_finished","turn_id":"t1","status":"ok"}`,
		`{"seq":3,"type":"user_message","text":"again"}`,
		`{"seq":4,"type":"message","turn_id":"t2","text":"yes"}`,
	}, "\n")
	out.Reset()
	if _, err := convert.Run(strings.NewReader(in), &out, "c", convert.Options{To: acp.Dialect{}, Config: &acp.Config{Profile: acp.Stable, Transcript: true}},
		func(le *convert.LineError) { t.Fatal(le) }); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out.String(), `"method":"session/prompt"`); n != 2 || !strings.Contains(out.String(), `"text":"again"}]`) {
		t.Errorf("%d prompts, want 2, the second one \"again\":\n%s", n, out.String())
	}
}
