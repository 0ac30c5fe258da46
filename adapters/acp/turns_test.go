package acp_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/evtool/evtool/adapters/acp"
	"github.com/evtool/evtool/convert"
	"github.com/evtool/evtool/dialect"
	"github.com/tidwall/gjson"
)

// project converts canonical lines to ACP with the given settings and
// checks the output with the ACP checker.
func project(t *testing.T, cfg *acp.Config, lines ...string) []string {
	t.Helper()
	var out bytes.Buffer
	if _, err := convert.Run(strings.NewReader(strings.Join(lines, "\n")+"\n"), &out, "c",
		convert.Options{To: acp.Dialect{}, Config: cfg}, func(le *convert.LineError) { t.Fatal(le) }); err != nil {
		t.Fatal(err)
	}
	msgs := strings.Split(strings.TrimSpace(out.String()), "\n")
	c := acp.Dialect{}.NewChecker(dialect.CheckOptions{})
	report := func(f dialect.Finding) {
		if f.Severity == dialect.Error {
			t.Errorf("line %d: %s: %s", f.Line, f.Rule, f.Message)
		}
	}
	for i, m := range msgs {
		if len(m) > acp.MaxMessage {
			t.Errorf("message %d has %d bytes", i+1, len(m))
		}
		c.Line([]byte(m), i+1, report)
	}
	c.End(len(msgs), report)
	return msgs
}

var transcript = &acp.Config{Profile: acp.Stable, Transcript: true}

// kinds lists each message as its method or sessionUpdate, "response" or
// "answer:<outcome>".
func kinds(msgs []string) string {
	var out []string
	for _, m := range msgs {
		r := gjson.Parse(m)
		switch {
		case r.Get("params.update.sessionUpdate").Exists():
			s := r.Get("params.update.sessionUpdate").Str
			if st := r.Get("params.update.status"); st.Exists() {
				s += ":" + st.Str
			}
			out = append(out, s)
		case r.Get("method").Exists():
			out = append(out, r.Get("method").Str)
		case r.Get("result.stopReason").Exists():
			out = append(out, "response:"+r.Get("result.stopReason").Str)
		case r.Get("result.outcome").Exists():
			out = append(out, "answer:"+r.Get("result.outcome.outcome").Str)
		}
	}
	return strings.Join(out, " ")
}

const head = `{"seq":0,"type":"session_started","schema":1,"source":{"dialect":"canonical"},"session_id":"s","workspace":"/repo"}`

func TestTurnsFromTheSource(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lines []string
		want  string // what a transcript sends
		log   string // what a log sends, where the case looks
	}{{
		name: "rounds stay inside their turn",
		lines: numbered(head,
			`"type":"turn_started","turn_id":"t1","synthetic":true`,
			`"type":"tool_call","turn_id":"t1","call_id":"a","name":"read_file","kind":"read"`,
			`"type":"tool_finished","turn_id":"t1","call_id":"a","status":"success","summary":"ok"`,
			`"type":"round_finished","turn_id":"t1","stop_reason":"tool_use","usage":{"total_tokens":5}`,
			`"type":"message_delta","turn_id":"t1","text":"answer"`,
			`"type":"round_finished","turn_id":"t1","stop_reason":"end_turn","usage":{"total_tokens":7}`,
			`"type":"turn_finished","turn_id":"t1","synthetic":true,"status":"ok"`,
			`"type":"session_finished","status":"ok"`,
		),
		want: "session/prompt tool_call:pending tool_call_update:completed agent_message_chunk response:end_turn",
	}, {
		name: "each turn is closed in itself",
		lines: numbered(head,
			`"type":"turn_started","turn_id":"t1","prompt":"one"`,
			`"type":"user_message","turn_id":"t1","text":"one"`,
			`"type":"tool_call","turn_id":"t1","call_id":"a","name":"bash","kind":"execute"`,
			`"type":"permission_requested","turn_id":"t1","call_id":"a","request_id":"r1","description":"run it?"`,
			`"type":"turn_finished","turn_id":"t1","status":"ok"`,
			`"type":"turn_started","turn_id":"t2","prompt":"two"`,
			`"type":"user_message","turn_id":"t2","text":"two"`,
			`"type":"tool_finished","turn_id":"t2","call_id":"a","status":"success"`,
			`"type":"message_delta","turn_id":"t2","text":"done"`,
			`"type":"session_finished","status":"ok"`,
		),
		want: "session/prompt tool_call:pending session/request_permission answer:cancelled tool_call_update:failed response:end_turn " +
			"session/prompt agent_message_chunk response:end_turn",
	}, {
		name: "a log echoes the prompt, as history; a transcript does not",
		lines: numbered(head,
			`"type":"turn_started","turn_id":"t1","prompt":"one"`,
			`"type":"user_message","turn_id":"t1","text":"one"`,
			`"type":"user_message","turn_id":"t1","text":"and more"`,
			`"type":"session_finished","status":"ok"`,
		),
		want: "session/prompt user_message_chunk response:end_turn",
		log:  "user_message_chunk user_message_chunk",
	}, {
		// A notice of no turn before the first (a hook line before Claude
		// Code's init) is an update before any prompt: the prompt then
		// carries the turn's text and the user's message is not echoed.
		name: "a notice before the first turn comes before its prompt",
		lines: numbered(head,
			`"type":"notice","message":"starting"`,
			`"type":"turn_started","turn_id":"t1","prompt":"one"`,
			`"type":"user_message","turn_id":"t1","text":"one"`,
			`"type":"turn_finished","turn_id":"t1","status":"cancelled"`,
		),
		want: "agent_thought_chunk session/prompt response:cancelled",
	}, {
		name: "what else comes before the first turn belongs to it",
		lines: numbered(head,
			`"type":"message","text":"starting"`,
			`"type":"turn_started","turn_id":"t1","prompt":"one"`,
			`"type":"turn_finished","turn_id":"t1","status":"ok"`,
		),
		want: "session/prompt agent_message_chunk response:end_turn",
	}, {
		// A subagent's prompt (Claude Code's user line with
		// parent_tool_use_id) is shown in the call that runs it, not as
		// the user's words, and is never the turn's prompt.
		name: "a subagent's prompt is nested under its call",
		lines: numbered(head,
			`"type":"turn_started","turn_id":"t1","prompt":"count files"`,
			`"type":"user_message","turn_id":"t1","text":"count files"`,
			`"type":"tool_call","turn_id":"t1","call_id":"toolu_P","name":"Agent","kind":"think"`,
			`"type":"user_message","turn_id":"t1","agent_id":"toolu_P","text":"Count the .rs files"`,
			`"type":"user_message","turn_id":"t1","agent_id":"toolu_Q","text":"an unknown subagent"`,
			`"type":"tool_finished","turn_id":"t1","call_id":"toolu_P","status":"success","output":"21"`,
			`"type":"turn_finished","turn_id":"t1","status":"ok"`,
		),
		want: "session/prompt tool_call:pending tool_call_update agent_thought_chunk tool_call_update:completed response:end_turn",
	}, {
		name: "a turn without updates still has its prompt",
		lines: numbered(head,
			`"type":"turn_started","turn_id":"t1","prompt":"one"`,
			`"type":"turn_finished","turn_id":"t1","status":"ok"`,
			`"type":"session_finished","status":"ok"`,
		),
		want: "session/prompt response:end_turn",
	}, {
		name: "a failed run shows its error",
		lines: numbered(head,
			`"type":"turn_started","turn_id":"t1"`,
			`"type":"turn_finished","turn_id":"t1","status":"error","reason":"the provider went away"`,
		),
		want: "session/prompt agent_message_chunk response:end_turn",
	}, {
		name: "commands before any turn",
		lines: numbered(`{"seq":0,"type":"session_started","schema":1,"source":{"dialect":"canonical"},"session_id":"s","commands":[{"name":"/review","description":"Review","hint":"<what>"}]}`,
			`"type":"turn_started","turn_id":"t1","prompt":"one"`,
			`"type":"session_finished","status":"ok"`,
		),
		want: "available_commands_update session/prompt response:end_turn",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			if got := kinds(project(t, transcript, tc.lines...)); got != tc.want {
				t.Errorf("transcript: got  %s\nwant %s", got, tc.want)
			}
			if tc.log == "" {
				return
			}
			if got := kinds(project(t, nil, tc.lines...)); got != tc.log {
				t.Errorf("log: got  %s\nwant %s", got, tc.log)
			}
		})
	}
}

// numbered returns a canonical stream: its first line, then each event,
// written as its fields without seq, numbered from 1.
func numbered(first string, events ...string) []string {
	lines := []string{first}
	for i, e := range events {
		lines = append(lines, fmt.Sprintf(`{"seq":%d,%s}`, i+1, e))
	}
	return lines
}

func TestWhatAnEditorShows(t *testing.T) {
	msgs := project(t, &acp.Config{Profile: acp.Unstable, Transcript: true}, head,
		`{"seq":1,"type":"turn_started","turn_id":"t1","prompt":"fix"}`,
		`{"seq":2,"type":"tool_call","call_id":"e1","name":"edit_file","title":"Edit a.go","kind":"edit","input":{"path":"a.go","old_string":"x := 1\n","new_string":"x := 2\n"}}`,
		`{"seq":3,"type":"tool_progress","call_id":"e1","message":"writing"}`,
		`{"seq":4,"type":"permission_requested","call_id":"e1","description":"Edit a.go?"}`,
		`{"seq":5,"type":"permission_resolved","call_id":"e1","outcome":"allowed"}`,
		`{"seq":6,"type":"tool_finished","call_id":"e1","status":"success","summary":"edited"}`,
		`{"seq":7,"type":"tool_call","call_id":"p1","name":"apply_patch","kind":"edit","input":{"patch":"--- a/b.go\n+++ b/b.go\n@@ -3,2 +3,2 @@\n ctx\n-old\n+new\n"}}`,
		`{"seq":8,"type":"tool_output","call_id":"p1","chunk":"fail: \"quoted\"\n"}`,
		`{"seq":9,"type":"tool_finished","call_id":"p1","status":"error","error":"fail: \"quoted\""}`,
		`{"seq":10,"type":"turn_finished","turn_id":"t1","status":"ok","usage":{"input_tokens":9,"output_tokens":3}}`)
	var titles []string
	for _, m := range msgs {
		r := gjson.Parse(m)
		u := r.Get("params.update")
		if u.Get("toolCallId").Str == "e1" && u.Get("title").Exists() {
			titles = append(titles, u.Get("title").Str)
		}
		if tc := r.Get("params.toolCall"); tc.Exists() {
			if tc.Get("title").Str != "Edit a.go" || !strings.Contains(tc.Get("content").Raw, "Edit a.go?") {
				t.Errorf("permission request: %s", tc.Raw)
			}
		}
		if u.Get("sessionUpdate").Str == "tool_call" && u.Get("toolCallId").Str == "e1" {
			want := `[{"type":"diff","path":"/repo/a.go","oldText":"x := 1\n","newText":"x := 2\n"}]`
			if u.Get("content").Raw != want || u.Get("locations").Raw != `[{"path":"/repo/a.go"}]` {
				t.Errorf("edit call: %s", u.Raw)
			}
		}
		if u.Get("sessionUpdate").Str == "tool_call" && u.Get("toolCallId").Str == "p1" {
			want := `[{"type":"diff","path":"/repo/b.go","oldText":"ctx\nold\n","newText":"ctx\nnew\n"}]`
			if u.Get("content").Raw != want || u.Get("locations").Raw != `[{"path":"/repo/b.go","line":3}]` {
				t.Errorf("patch call: %s", u.Raw)
			}
		}
		if u.Get("toolCallId").Str == "e1" && u.Get("sessionUpdate").Str == "tool_call_update" && !u.Get("status").Exists() {
			if !strings.Contains(u.Get("content").Raw, `"writing"`) || u.Get("title").Exists() {
				t.Errorf("progress: %s", u.Raw)
			}
		}
		if u.Get("toolCallId").Str == "p1" && u.Get("status").Str == "failed" {
			if n := strings.Count(u.Get("content").Raw, "fail: \\\"quoted\\\""); n != 1 {
				t.Errorf("the error is shown %d times: %s", n, u.Get("content").Raw)
			}
		}
		if r.Get("result.stopReason").Exists() && r.Get("result.usage").Raw != `{"totalTokens":12,"inputTokens":9,"outputTokens":3}` {
			t.Errorf("usage: %s", r.Get("result").Raw)
		}
	}
	if len(titles) != 1 || titles[0] != "Edit a.go" {
		t.Errorf("titles of the call: %q", titles)
	}
}

// No message exceeds the limit, however long an output or a message is:
// long output is capped with a visible note, and sent as it doubles.
func TestLongTexts(t *testing.T) {
	chunk := strings.Repeat("0123456789abcdef", 4096) // 64 KiB
	lines := []string{head, `{"seq":1,"type":"tool_call","call_id":"a","name":"bash"}`}
	for i := range 200 { // 12.5 MiB of output
		b, _ := json.Marshal(map[string]any{"seq": 2 + i, "type": "tool_output", "call_id": "a", "chunk": chunk})
		lines = append(lines, string(b))
	}
	big, _ := json.Marshal(map[string]any{"seq": 300, "type": "message_delta", "text": strings.Repeat("é\x01", 3<<20)})
	lines = append(lines, `{"seq":299,"type":"tool_finished","call_id":"a","status":"success"}`, string(big), `{"seq":301,"type":"session_finished","status":"ok"}`)
	msgs := project(t, transcript, lines...)
	updates, chunks := 0, 0
	var last string
	for _, m := range msgs {
		u := gjson.Get(m, "params.update")
		if u.Get("toolCallId").Str == "a" {
			updates++
			last = u.Get("content.0.content.text").Str
		}
		if u.Get("sessionUpdate").Str == "agent_message_chunk" {
			chunks++
			if u.Get("messageId").Str != "msg-1" {
				t.Errorf("chunk of another message: %s", u.Get("messageId").Str)
			}
		}
	}
	if updates > 12 {
		t.Errorf("%d updates for one call", updates)
	}
	if !strings.HasSuffix(last, "[… output truncated by evtool: showing the first 1048576 of 13107200 bytes]") {
		t.Errorf("no truncation note: …%s", last[max(0, len(last)-120):])
	}
	if chunks < 9 {
		t.Errorf("a 9 MiB message in %d chunks", chunks)
	}
}

func TestFiniteNumbers(t *testing.T) {
	for in, want := range map[string]string{
		`{"a":1e400,"b":"1e400","c":[-2E+999,0.5,9007199254740993],"d":1e-400}`: `{"a":"1e400","b":"1e400","c":["-2E+999",0.5,9007199254740993],"d":1e-400}`,
		`{"s":"x\"1e999","n":12}`: `{"s":"x\"1e999","n":12}`,
	} {
		msgs := project(t, nil, head, `{"seq":1,"type":"tool_call","call_id":"a","name":"x","input":`+in+`}`)
		if got := gjson.Get(msgs[0], "params.update.rawInput").Raw; got != want {
			t.Errorf("got  %s\nwant %s", got, want)
		}
	}
}

// ACP's Usage needs total, input and output tokens: a turn whose source
// states only a total has no usage rather than invented zeros. Without a
// stated total, totalTokens is the sum of every count stated ("sum of all
// token types", ACP's schema), cache reads and writes included: Claude's
// are apart from its input.
func TestUsageOnlyWhatIsStated(t *testing.T) {
	for usage, want := range map[string]string{
		`{"total_tokens":12}`: ``,
		`{"input_tokens":9,"output_tokens":3,"total_tokens":20,"cache_read_tokens":4}`:                             `{"totalTokens":20,"inputTokens":9,"outputTokens":3,"cachedReadTokens":4}`,
		`{"input_tokens":9,"output_tokens":3,"cache_read_tokens":4,"cache_creation_tokens":5,"thoughts_tokens":2}`: `{"totalTokens":23,"inputTokens":9,"outputTokens":3,"thoughtTokens":2,"cachedReadTokens":4,"cachedWriteTokens":5}`,
		`{"input_tokens":18446744073709551615,"output_tokens":3}`:                                                  `{"totalTokens":18446744073709551615,"inputTokens":18446744073709551615,"outputTokens":3}`,
	} {
		msgs := project(t, &acp.Config{Profile: acp.Unstable, Transcript: true}, head,
			`{"seq":1,"type":"turn_started","turn_id":"t1"}`,
			`{"seq":2,"type":"turn_finished","turn_id":"t1","status":"ok","usage":`+usage+`}`)
		if got := gjson.Get(msgs[len(msgs)-1], "result.usage").Raw; got != want {
			t.Errorf("%s: usage %s, want %s", usage, got, want)
		}
	}
}

// TestMoreEditShapes: a whole file written (Write, write_file), a list of
// edits of one file (MultiEdit) and a map from path to change (Codex's
// patch_apply_end changes) show as diffs too. They showed as a bare
// "Success" line (hunt-acp2 #1).
func TestMoreEditShapes(t *testing.T) {
	msgs := project(t, transcript, head,
		`{"seq":1,"type":"turn_started","turn_id":"t1","prompt":"fix"}`,
		`{"seq":2,"type":"tool_call","call_id":"w1","name":"Write","kind":"edit","input":{"file_path":"/repo/new.txt","content":"hello\n"}}`,
		`{"seq":3,"type":"tool_finished","call_id":"w1","status":"success"}`,
		`{"seq":4,"type":"tool_call","call_id":"m1","name":"MultiEdit","kind":"edit","input":{"file_path":"/repo/a.txt","edits":[{"old_string":"x = 1","new_string":"x = 2"},{"old_string":"y = 1","new_string":"y = 3"}]}}`,
		`{"seq":5,"type":"tool_finished","call_id":"m1","status":"success"}`,
		`{"seq":6,"type":"tool_call","call_id":"p1","name":"apply_patch","kind":"edit","input":{}}`,
		`{"seq":7,"type":"tool_finished","call_id":"p1","status":"success","edit":{"/repo/app.ts":{"type":"update","unified_diff":"@@ -3 +3 @@\n-const port = 80;\n+const port = 8080;\n"},"/repo/b.ts":{"type":"add","content":"b\n"},"/repo/c.ts":{"type":"delete"}}}`,
		`{"seq":8,"type":"turn_finished","turn_id":"t1","status":"ok"}`)
	want := map[string]string{
		"w1": `[{"type":"diff","path":"/repo/new.txt","oldText":null,"newText":"hello\n"}]`,
		"m1": `[{"type":"diff","path":"/repo/a.txt","oldText":"x = 1","newText":"x = 2"},{"type":"diff","path":"/repo/a.txt","oldText":"y = 1","newText":"y = 3"}]`,
		"p1": `[{"type":"diff","path":"/repo/app.ts","oldText":"const port = 80;\n","newText":"const port = 8080;\n"},{"type":"diff","path":"/repo/b.ts","oldText":null,"newText":"b\n"}]`,
	}
	got := map[string]string{}
	for _, m := range msgs {
		u := gjson.Get(m, "params.update")
		if c := u.Get("content"); strings.Contains(c.Raw, `"type":"diff"`) {
			got[u.Get("toolCallId").Str] = c.Raw
		}
	}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("%s: diff content %s, want %s", id, got[id], w)
		}
	}
}

// TestFailedBeforeTheFirstTurn: a run that failed before its first turn (a
// key refused) is one turn that says why; it was written as nothing at
// all, exit 0 (hunt-acp2 #5).
func TestFailedBeforeTheFirstTurn(t *testing.T) {
	msgs := project(t, transcript, head,
		`{"seq":1,"type":"session_finished","status":"error","message":"provider: 401 Unauthorized: invalid API key"}`)
	if got := kinds(msgs); got != "session/prompt agent_message_chunk response:end_turn" {
		t.Errorf("messages: %s\n%s", got, strings.Join(msgs, "\n"))
	}
	if !strings.Contains(msgs[1], `"The recorded run failed: provider: 401 Unauthorized: invalid API key"`) {
		t.Errorf("no failure shown: %s", msgs[1])
	}
}
