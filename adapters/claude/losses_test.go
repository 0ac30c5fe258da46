package claude_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/evtool/evtool/adapters/claude"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/dialecttest"
	"github.com/tidwall/gjson"
)

// The catalogue, and that every kind the encoder counts is in it: the
// kit's losses and cross checks.

// TestLossCounts writes small runs from another dialect and checks what is
// counted, and what must not be. On every run, the uuids counted as
// synthesized are the lines written with one.
func TestLossCounts(t *testing.T) {
	const head = `{"seq":0,"type":"session_started","schema":1,"source":{"dialect":"basis"},"session_id":"s1","model":"m1","workspace":"/w"}`
	for _, c := range []struct {
		name  string
		lines []string
		want  map[string]int // id → count; 0 means not counted
	}{
		{"the session failed after an ok result", []string{
			`{"seq":1,"type":"user_message","turn_id":"t1","text":"go"}`,
			`{"seq":2,"type":"message","turn_id":"t1","text":"done"}`,
			`{"seq":3,"type":"turn_finished","turn_id":"t1","status":"ok"}`,
			`{"seq":4,"type":"session_finished","status":"error","message":"connection lost"}`,
		}, map[string]int{"claude/run-outcome": 1, "claude/synthesized-result": 0}},
		{"the session ended as its last result", []string{
			`{"seq":1,"type":"user_message","turn_id":"t1","text":"go"}`,
			`{"seq":2,"type":"turn_finished","turn_id":"t1","status":"error","reason":"boom"}`,
			`{"seq":3,"type":"session_finished","status":"error","errors":["boom"]}`,
		}, map[string]int{"claude/run-outcome": 0, "claude/synthesized-result": 0}},
		{"the session ended without a result", []string{
			`{"seq":1,"type":"user_message","turn_id":"t1","text":"go"}`,
			`{"seq":2,"type":"session_finished","status":"ok","structured_output":{"a":1}}`,
		}, map[string]int{"claude/synthesized-result": 1, "claude/structured-output": 1, "claude/run-outcome": 0}},
		{"a turn start and a prompt nobody echoes", []string{
			`{"seq":1,"type":"turn_started","turn_id":"t1","prompt":"go"}`,
			`{"seq":2,"type":"turn_finished","turn_id":"t1","status":"ok"}`,
		}, map[string]int{"claude/turn-started": 1, "claude/turn-prompt": 1}},
		{"control messages have no uuid; their times are dropped", []string{
			`{"seq":1,"type":"tool_call","turn_id":"t1","call_id":"c1","name":"Bash","input":{"command":"ls"}}`,
			`{"seq":2,"type":"permission_requested","turn_id":"t1","request_id":"r1","call_id":"c1","tool":"Bash","time":"2026-01-01T00:00:00Z"}`,
			`{"seq":3,"type":"permission_resolved","turn_id":"t1","request_id":"r1","call_id":"c1","outcome":"approved","time":"2026-01-01T00:00:01Z"}`,
			`{"seq":4,"type":"tool_finished","turn_id":"t1","call_id":"c1","status":"success","output":"a"}`,
			`{"seq":5,"type":"turn_finished","turn_id":"t1","status":"ok"}`,
		}, map[string]int{"claude/event-time": 2, "claude/permission-request-id": 0}},
		{"thinking assembled from deltas has an empty signature too", []string{
			`{"seq":1,"type":"reasoning_delta","turn_id":"t1","text":"hm"}`,
			`{"seq":2,"type":"reasoning_delta","turn_id":"t1","text":"m"}`,
			`{"seq":3,"type":"turn_finished","turn_id":"t1","status":"ok"}`,
		}, map[string]int{"claude/reasoning-delta": 2, "claude/reasoning-signature": 1}},
		{"a progress message is dropped, an empty one is not", []string{
			`{"seq":1,"type":"tool_call","turn_id":"t1","call_id":"c1","name":"Bash","input":{}}`,
			`{"seq":2,"type":"tool_progress","turn_id":"t1","call_id":"c1","message":"50%"}`,
			`{"seq":3,"type":"tool_progress","turn_id":"t1","call_id":"c1","message":""}`,
			`{"seq":4,"type":"tool_finished","turn_id":"t1","call_id":"c1","status":"success","output":"a"}`,
			`{"seq":5,"type":"turn_finished","turn_id":"t1","status":"ok"}`,
		}, map[string]int{"claude/tool-progress-message": 1}},
		{"an error becomes text", []string{
			`{"seq":1,"type":"error","turn_id":"t1","message":"rate_limit"}`,
			`{"seq":2,"type":"turn_finished","turn_id":"t1","status":"error"}`,
		}, map[string]int{"claude/error-as-text": 1, "claude/error-recoverable": 0}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, losses := dialecttest.Encode(t, claude.Dialect{}, dialect.EncodeOptions{}, append([]string{head}, c.lines...)...)
			assertAccepted(t, out)
			got := checkCounts(t, losses, c.want)
			withUUID := 0
			for _, l := range dialecttest.Lines(out) {
				if gjson.Get(l, "uuid").Exists() {
					withUUID++
				}
			}
			if got["claude/uuid"] != withUUID {
				t.Errorf("%d uuids counted, %d lines have one:\n%s", got["claude/uuid"], withUUID, out)
			}
		})
	}
}

// TestDefaults: the keys DefaultKeys names fill system/init when the
// source lacks them, and only then.
func TestDefaults(t *testing.T) {
	keys := claude.Dialect{}.DefaultKeys()
	if !slices.Equal(keys, []dialect.DefaultKey{dialect.DefaultModel, dialect.DefaultSessionID, dialect.DefaultWorkspace}) {
		t.Fatalf("DefaultKeys %v", keys)
	}
	defaults := dialect.Defaults{Model: "dm", SessionID: "ds", Workspace: "/dw"}
	end := `{"seq":1,"type":"session_finished","status":"ok"}`
	for _, c := range []struct {
		head            string
		model, sid, cwd string
	}{
		{`{"seq":0,"type":"session_started","schema":1,"source":{"dialect":"basis"}}`, "dm", "ds", "/dw"},
		{`{"seq":0,"type":"session_started","schema":1,"source":{"dialect":"basis"},"session_id":"s1","model":"m1","workspace":"/w"}`, "m1", "s1", "/w"},
	} {
		out, _ := dialecttest.Encode(t, claude.Dialect{}, dialect.EncodeOptions{Defaults: defaults}, c.head, end)
		init := strings.SplitN(out, "\n", 2)[0]
		if m, s, w := gjson.Get(init, "model").Str, gjson.Get(init, "session_id").Str, gjson.Get(init, "cwd").Str; m != c.model || s != c.sid || w != c.cwd {
			t.Errorf("init has model %q session_id %q cwd %q, want %q %q %q:\n%s", m, s, w, c.model, c.sid, c.cwd, init)
		}
	}
}
