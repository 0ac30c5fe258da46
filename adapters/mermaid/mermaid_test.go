package mermaid_test

import (
	"bytes"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/evtool/evtool/adapters/internal/adaptertest"
	"github.com/evtool/evtool/adapters/mermaid"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/dialecttest"
	"github.com/evtool/evtool/event"
	"github.com/tidwall/gjson"
)

const streams = "../../testdata/streams/mermaid"

// referenceLines returns the golden strings of the mermaid wire reference:
// the example lines and the whole lines quoted in its prose.
func referenceLines(t *testing.T) []string {
	return adaptertest.ReferenceLines(t, "../../../shared/dialects/mermaid.md", `{"type":`, 11, func(doc string) []string {
		var out []string
		for _, m := range regexp.MustCompile("`(\\{\"type\":[^`]*\\})`").FindAllStringSubmatch(doc, -1) {
			out = append(out, m[1])
		}
		return out
	})
}

func streamFiles(t *testing.T) []string {
	return adaptertest.Glob(t, filepath.Join(streams, "*.jsonl"), 1, "mermaid test streams")
}

// roundTrip decodes mermaid lines, writes canonical text, reads it back and
// encodes mermaid again: nothing may be lost but a header the lines lack.
func roundTrip(t *testing.T, lines []string) []string {
	t.Helper()
	_, back, losses := dialecttest.RoundTrip(t, mermaid.Dialect{}, lines...)
	for _, l := range losses.List() {
		if l.Verb != "synthesized" || !strings.Contains(l.Kind, "session_started") {
			t.Errorf("mermaid → canonical → mermaid lost something: %s", l)
		}
	}
	return back
}

func TestRoundTrip(t *testing.T) {
	// Each golden string alone (after a header, which every stream has).
	header := `{"type":"session_started","protocol_version":1,"cli_version":"9.9.9","model":"anthropic/claude-x","task_id":null,"session_id":"20260709_120000_000"}`
	adaptertest.SameBack(t, referenceLines(t), header, `"session_started"`, func(lines []string) []string { return roundTrip(t, lines) })
	// The streams: the kit's round trip, byte for byte (ByteExact).
}

func TestStreamsCoverEveryType(t *testing.T) {
	seen := map[string]bool{}
	adaptertest.EachLine(t, streamFiles(t), func(r gjson.Result) {
		seen[r.Get("type").Str] = true
		for _, k := range []string{"plan", "web", "fuzzy", "structured_output"} {
			if r.Get(k).Exists() {
				seen["extra:"+k] = true
			}
		}
	})
	for _, typ := range append(mermaid.Types(), "extra:plan", "extra:web", "extra:fuzzy", "extra:structured_output") {
		if !seen[typ] {
			t.Errorf("no test stream has %s", typ)
		}
	}
	if n := len(mermaid.Types()); n != 10 {
		t.Errorf("%d known types, want 10", n)
	}
}

func decode(t *testing.T, lines ...string) []*event.Event {
	t.Helper()
	return dialecttest.Decode(t, mermaid.Dialect{}, lines...)
}

// The decoder must not turn a null into a fact.
func TestNullsAreNotFacts(t *testing.T) {
	evs := decode(t,
		`{"type":"session_started","protocol_version":1,"cli_version":"9.9.9","model":"m","task_id":null,"session_id":""}`,
		`{"type":"tool_started","call_id":"a"}`,
		`{"type":"tool_finished","call_id":"a","name":"read_file","status":"success","summary":"ok","error":null}`,
		`{"type":"tasks_updated","tasks":[{"id":3,"subject":"s","status":"pending","active_form":"f","elapsed_secs":null,"tokens_spent":null,"origin":null}],"completed":0,"total":1}`,
		`{"type":"turn_done","total_tokens":null,"stop_reason":null}`,
		`{"type":"result","response":"","reasoning":null,"total_tokens":0,"errors":[],"session_id":""}`,
	)
	var types []event.Type
	for _, ev := range evs {
		types = append(types, ev.Type())
		line, _ := event.Append(nil, ev)
		if bytes.Contains(line, []byte("null")) {
			t.Errorf("a null became a canonical fact: %s", line)
		}
	}
	want := []event.Type{"session_started", "turn_started", "tool_call", "tool_started", "tool_finished", "plan_updated", "round_finished", "turn_finished", "session_finished"}
	if !reflect.DeepEqual(types, want) {
		t.Fatalf("types %v, want %v", types, want)
	}
	if !evs[1].Synthetic || !evs[2].Synthetic || evs[3].Synthetic {
		t.Error("turn_started and tool_call are synthetic, tool_started is not")
	}
	if p := evs[5].Body.(*event.PlanUpdated); p.Entries[0].ID != "3" || p.Entries[0].Origin != "" || p.Entries[0].ElapsedSecs != nil {
		t.Errorf("plan entry: %+v", p.Entries[0])
	}
	end := evs[8].Body.(*event.SessionFinished)
	if end.Reasoning != nil || end.Text == nil || *end.Text != "" || end.Errors == nil || len(*end.Errors) != 0 || *end.Usage.TotalTokens != 0 {
		t.Errorf("session_finished: %+v", end)
	}
}

// An approval before tool_started makes the call known, with its tool name,
// so every later event of the call follows a tool_call.
func TestApprovalFirst(t *testing.T) {
	evs := decode(t,
		`{"type":"session_started","protocol_version":1,"cli_version":"1","model":"m","task_id":null,"session_id":"s"}`,
		`{"type":"approval_required","call_id":"tool#4","tool":"execute_command","risk":"network","prompt":"Run curl?"}`,
		`{"type":"tool_started","call_id":"tool#4"}`,
	)
	if c, ok := evs[2].Body.(*event.ToolCall); !ok || c.Name != "execute_command" {
		t.Fatalf("want a tool_call for execute_command before the approval, got %+v", evs[2].Body)
	}
	if _, ok := evs[3].Body.(*event.PermissionRequested); !ok {
		t.Fatalf("want permission_requested, got %T", evs[3].Body)
	}
	if len(evs) != 5 {
		t.Fatalf("a second tool_call was synthesised: %d events", len(evs))
	}
}

func TestFailedRunStatus(t *testing.T) {
	evs := decode(t, dialecttest.ReadLines(t, filepath.Join(streams, "failed_run.jsonl"))...)
	end := evs[len(evs)-1].Body.(*event.SessionFinished)
	if end.Status != "error" || end.Message != "connection failed" {
		t.Errorf("a run with errors and no answer: status %q message %q", end.Status, end.Message)
	}
	evs = decode(t, dialecttest.ReadLines(t, filepath.Join(streams, "full_run.jsonl"))...)
	if end := evs[len(evs)-1].Body.(*event.SessionFinished); end.Status != "ok" {
		t.Errorf("a run with a recovered error and an answer is ok, got %q", end.Status)
	}
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct{ line, ptr string }{
		{`{"type":"text","delta":5}`, "/delta"},
		{`{"type":"turn_done","total_tokens":-3,"stop_reason":null}`, "/total_tokens"},
		{`{"type":"turn_done","total_tokens":1.5}`, "/total_tokens"},
		{`{"type":"tasks_updated","tasks":[{"id":"one","subject":"s","status":"pending","active_form":"f"}],"completed":0,"total":1}`, "/tasks/0/id"},
		{`{"type":"result","response":"x","total_tokens":1,"errors":[1]}`, "/errors/0"},
		{`{"delta":"no type"}`, "/type"},
		{`"just a string"`, ""},
	}
	for _, tt := range tests {
		_, err := mermaid.Dialect{}.NewDecoder(dialect.DecodeOptions{}).Decode(nil, []byte(tt.line), 1)
		fe, ok := err.(*mermaid.DecodeError)
		if !ok || fe.Pointer != tt.ptr {
			t.Errorf("%s: got %v, want an error at %q", tt.line, err, tt.ptr)
		}
	}
}
