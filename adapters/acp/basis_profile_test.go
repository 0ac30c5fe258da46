package acp_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/evtool/evtool/adapters/acp"
	"github.com/evtool/evtool/adapters/basis"
	"github.com/evtool/evtool/convert"
)

const bhead = `{"seq":0,"type":"run_started","schema":2,"basis":"0.6.2","session_id":"s1","workspace":"/repo","model":"m","provider":"p","context_files":[]}`

// updates projects basis lines (after a header) in the basis profile and
// returns the session updates written, as JSON values.
func updates(t *testing.T, lines ...string) []map[string]any {
	t.Helper()
	in := bhead + "\n" + strings.Join(lines, "\n") + "\n"
	var out bytes.Buffer
	if _, err := convert.Run(strings.NewReader(in), &out, "t", convert.Options{From: basis.Dialect{}, To: acp.Dialect{},
		Config: &acp.Config{Profile: acp.Basis}}, func(le *convert.LineError) { t.Fatal(le) }); err != nil {
		t.Fatal(err)
	}
	var got []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if l == "" {
			continue
		}
		var m struct {
			Method string `json:"method"`
			Params struct {
				Update map[string]any `json:"update"`
			} `json:"params"`
		}
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatal(err)
		}
		if m.Method == "session/update" {
			got = append(got, m.Params.Update)
		}
	}
	return got
}

func js(s string) map[string]any {
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		panic(err)
	}
	return m
}

// The expectations of basis's own ACP mapping tests (basis-acp update.rs)
// and of its mapping table, each reproduced exactly.
func TestBasisProfile(t *testing.T) {
	queued := func(id, name, summary, mut, input string) string {
		return `{"seq":1,"type":"tool_queued","tool_call_id":"` + id + `","tool_name":"` + name + `","summary":"` + summary + `","mutability":"` + mut + `","input":` + input + `}`
	}
	tests := []struct {
		name  string
		lines []string
		want  []string // the updates, in order
	}{
		{"assistant deltas become message chunks", []string{`{"seq":1,"type":"assistant_delta","text":"hello"}`},
			[]string{`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hello"}}`}},
		{"reasoning is a thought, not a message", []string{`{"seq":1,"type":"assistant_reasoning_delta","text":"considering"}`},
			[]string{`{"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"considering"}}`}},
		{"the assembled message is not sent after its own deltas", []string{`{"seq":1,"type":"assistant_delta","text":"hello"}`, `{"seq":2,"type":"assistant_message","text":"hello"}`},
			[]string{`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hello"}}`}},
		{"run bookends and user messages are not updates", []string{`{"seq":1,"type":"user_message","text":"hi"}`, `{"seq":2,"type":"run_finished","status":"ok"}`}, nil},
		{"a queued tool call carries its title, kind and input", []string{queued("c1", "shell", "Run 'cargo test'", "mutating", `{"command":"cargo test"}`)},
			[]string{`{"sessionUpdate":"tool_call","toolCallId":"c1","title":"Run 'cargo test'","kind":"execute","status":"pending","rawInput":{"command":"cargo test"}}`}},
		{"a call with no summary falls back to its name", []string{queued("c1", "files", "   ", "read_only", `{}`)},
			[]string{`{"sessionUpdate":"tool_call","toolCallId":"c1","title":"files","kind":"read","status":"pending","rawInput":{}}`}},
		{"a completed call reports success", []string{queued("c1", "shell", "s", "mutating", `{}`), `{"seq":2,"type":"tool_completed","tool_call_id":"c1","tool_name":"shell","summary":"output","is_error":false}`},
			[]string{`{"sessionUpdate":"tool_call","toolCallId":"c1","title":"s","kind":"execute","status":"pending","rawInput":{}}`,
				`{"sessionUpdate":"tool_call_update","toolCallId":"c1","status":"completed","content":[{"type":"content","content":{"type":"text","text":"output"}}]}`}},
		{"a completed call reports failure", []string{queued("c1", "shell", "s", "mutating", `{}`), `{"seq":2,"type":"tool_completed","tool_call_id":"c1","tool_name":"shell","summary":"output","is_error":true}`},
			[]string{`{"sessionUpdate":"tool_call","toolCallId":"c1","title":"s","kind":"execute","status":"pending","rawInput":{}}`,
				`{"sessionUpdate":"tool_call_update","toolCallId":"c1","status":"failed","content":[{"type":"content","content":{"type":"text","text":"output"}}]}`}},
		{"a started call goes in progress; progress becomes the title", []string{queued("c1", "shell", "s", "mutating", `{}`),
			`{"seq":2,"type":"tool_started","tool_call_id":"c1","tool_name":"shell"}`, `{"seq":3,"type":"tool_progress","tool_call_id":"c1","tool_name":"shell","progress":"50%"}`,
			`{"seq":4,"type":"tool_completed","tool_call_id":"c1","tool_name":"shell","summary":"ok","is_error":false}`},
			[]string{`{"sessionUpdate":"tool_call","toolCallId":"c1","title":"s","kind":"execute","status":"pending","rawInput":{}}`,
				`{"sessionUpdate":"tool_call_update","toolCallId":"c1","status":"in_progress"}`,
				`{"sessionUpdate":"tool_call_update","toolCallId":"c1","title":"50%"}`,
				`{"sessionUpdate":"tool_call_update","toolCallId":"c1","status":"completed","content":[{"type":"content","content":{"type":"text","text":"ok"}}]}`}},
		{"permission events are a round trip, not an update", []string{queued("c1", "shell", "s", "mutating", `{}`),
			`{"seq":2,"type":"permission_requested","request_id":"r1","tool_call_id":"c1","tool_name":"shell","description":"wants to run","preview":{}}`,
			`{"seq":3,"type":"permission_resolved","request_id":"r1","tool_call_id":"c1","tool_name":"shell","outcome":"allowed"}`,
			`{"seq":4,"type":"tool_completed","tool_call_id":"c1","tool_name":"shell","summary":"ok","is_error":false}`},
			[]string{`{"sessionUpdate":"tool_call","toolCallId":"c1","title":"s","kind":"execute","status":"pending","rawInput":{}}`,
				`{"sessionUpdate":"tool_call_update","toolCallId":"c1","status":"completed","content":[{"type":"content","content":{"type":"text","text":"ok"}}]}`}},
		{"an operator-facing notice reaches the client", []string{`{"seq":1,"type":"notice","severity":"warning","message":"context is nearly full"}`},
			[]string{`{"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"context is nearly full"}}`}},
		{"task updates are thoughts with the status in Debug form", []string{`{"seq":1,"type":"task_updated","task_id":"t1","kind":"subagent","status":"running","title":"work"}`},
			[]string{`{"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"[Running] work"}}`}},
		{"retries and errors are thoughts", []string{`{"seq":1,"type":"retry","agent_id":"a","error":"rate limited","attempt":2,"max_attempts":5,"next_delay_ms":100}`, `{"seq":2,"type":"error","message":"boom","recoverable":true}`},
			[]string{`{"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"retrying after rate limited (attempt 2/5)"}}`,
				`{"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"error: boom"}}`}},
		{"housekeeping is not an update", []string{`{"seq":1,"type":"compaction_started","agent_id":"a"}`,
			`{"seq":2,"type":"compaction_completed","agent_id":"a","replaced_items":1,"preserved_items":1,"transcript_len":2,"extracted_facts":0,"summary_preview":""}`,
			`{"seq":3,"type":"memory_updated","agent_id":"a","stored_records":1}`,
			`{"seq":4,"type":"usage","agent_id":"a","input_tokens":1,"output_tokens":1,"cache_read_tokens":0,"cache_creation_tokens":0}`,
			`{"seq":5,"type":"branched","entry_id":"e","abandoned_entries":1}`}, nil},
		{"a queued spawn command reaches the client as an execution", []string{queued("c1", "spawn", "Run 'cargo test'", "unknown", `{"input":"!cargo test"}`)},
			[]string{`{"sessionUpdate":"tool_call","toolCallId":"c1","title":"Run 'cargo test'","kind":"execute","status":"pending","rawInput":{"input":"!cargo test"}}`}},
		{"spawn is classified by its mode", []string{queued("c1", "spawn", "s", "unknown", `{"input":"find every TODO under src/"}`),
			queued("c2", "spawn", "s", "unknown", `{"input":"  !!urgent: rewrite the README"}`), queued("c3", "spawn", "s", "unknown", `{"input":"!@mac xcodebuild -list"}`),
			queued("c4", "spawn", "s", "unknown", `{"input":7}`), queued("c5", "spawn", "s", "unknown", `"!cargo test"`)},
			[]string{
				`{"sessionUpdate":"tool_call","toolCallId":"c1","title":"s","kind":"other","status":"pending","rawInput":{"input":"find every TODO under src/"}}`,
				`{"sessionUpdate":"tool_call","toolCallId":"c2","title":"s","kind":"other","status":"pending","rawInput":{"input":"  !!urgent: rewrite the README"}}`,
				`{"sessionUpdate":"tool_call","toolCallId":"c3","title":"s","kind":"execute","status":"pending","rawInput":{"input":"!@mac xcodebuild -list"}}`,
				`{"sessionUpdate":"tool_call","toolCallId":"c4","title":"s","kind":"execute","status":"pending","rawInput":{"input":7}}`,
				`{"sessionUpdate":"tool_call","toolCallId":"c5","title":"s","kind":"execute","status":"pending","rawInput":"!cargo test"}`,
			}},
		{"unknown tools fall back to mutability", []string{queued("c1", "something_new", "s", "read_only", `{}`), queued("c2", "something_new", "s", "unknown", `{}`), queued("c3", "grep", "s", "read_only", `{}`), queued("c4", "files", "s", "mutating", `{}`)},
			[]string{
				`{"sessionUpdate":"tool_call","toolCallId":"c1","title":"s","kind":"read","status":"pending","rawInput":{}}`,
				`{"sessionUpdate":"tool_call","toolCallId":"c2","title":"s","kind":"other","status":"pending","rawInput":{}}`,
				`{"sessionUpdate":"tool_call","toolCallId":"c3","title":"s","kind":"search","status":"pending","rawInput":{}}`,
				`{"sessionUpdate":"tool_call","toolCallId":"c4","title":"s","kind":"edit","status":"pending","rawInput":{}}`,
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := updates(t, tt.lines...)
			// Calls the lines leave open are closed at the end; those updates
			// are evtool's invariant, not basis's mapping.
			var mapped []map[string]any
			for _, u := range got {
				if c, ok := u["content"].([]any); ok && len(c) == 1 && strings.Contains(mustJSON(c), "outcome unknown") {
					continue
				}
				mapped = append(mapped, u)
			}
			if len(mapped) != len(tt.want) {
				t.Fatalf("got %d updates, want %d:\n%s", len(mapped), len(tt.want), mustJSON(mapped))
			}
			for i, w := range tt.want {
				if !reflect.DeepEqual(mapped[i], js(w)) {
					t.Errorf("update %d:\n got %s\nwant %s", i, mustJSON(mapped[i]), w)
				}
			}
		})
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
