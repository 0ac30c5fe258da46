package codex_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/evtool/evtool/adapters/canonical"
	"github.com/evtool/evtool/adapters/codex"
	"github.com/evtool/evtool/adapters/internal/adaptertest"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/dialecttest"
	"github.com/evtool/evtool/internal/testkit/teststreams"
	"github.com/evtool/evtool/validate"
	"github.com/tidwall/gjson"
)

// streams returns every valid codex test stream: the shared captures, the
// streams written from the reference (testdata) and the valid probes.
func streams(t *testing.T) []string {
	return adaptertest.AtLeast(t, teststreams.Valid(codex.Name), 10, "codex test streams")
}

// captures returns the shared real captures, which are needed beside the
// repository.
func captures(t *testing.T) []string {
	return adaptertest.Glob(t, "../../../shared/dialects-next/captures/codex/*.jsonl", 3, "shared codex captures")
}

// fromCanonical parses canonical text and encodes codex lines.
func fromCanonical(t *testing.T, canon []string) ([]string, *dialect.Losses) {
	t.Helper()
	out, losses := dialecttest.Encode(t, codex.Dialect{}, dialect.EncodeOptions{}, canon...)
	return dialecttest.Lines(out), losses
}

// The round trip of every stream is the kit's (corpus, notByteExact).

// TestCapturesHaveNoResidue checks that the real captures need no residue
// at all: every fact of theirs has a canonical place.
func TestCapturesHaveNoResidue(t *testing.T) {
	for _, f := range captures(t) {
		for i, l := range dialecttest.Canonical(t, decode(t, dialecttest.ReadLines(t, f)...)) {
			if gjson.Get(l, "ext").Exists() {
				t.Errorf("%s: canonical line %d has residue: %s", filepath.Base(f), i+1, l)
			}
		}
	}
}

// TestStreamsCoverEveryType checks that the test streams hold every event
// type, item type, status and optional field of the reference, so that the
// round trip and the cross conversions exercise them.
func TestStreamsCoverEveryType(t *testing.T) {
	seen := map[string]bool{}
	mark := func(k string) { seen[k] = true }
	for _, f := range streams(t) {
		for i, l := range dialecttest.ReadLines(t, f) {
			r := gjson.Parse(l)
			typ := r.Get("type").Str
			mark("type:" + typ)
			if typ == "thread.started" && i > 0 {
				mark("thread.started:resumed") // a later process of the thread
			}
			for _, k := range []string{"timestamp", "usage.reasoning_output_tokens", "usage.cache_write_input_tokens"} {
				if r.Get(k).Exists() {
					mark(typ + ":" + k)
				}
			}
			it := r.Get("item")
			if !it.Exists() {
				if typ == "request_user_input" {
					q := r.Get("questions.0")
					for _, k := range []string{"isOther", "isSecret", "options"} {
						if q.Get(k).Exists() {
							mark("question:" + k)
						}
					}
				}
				continue
			}
			itype := it.Get("type").Str
			mark(typ + ":" + itype)
			if s := it.Get("status"); s.Exists() {
				mark(itype + ".status:" + s.Str)
			}
			for _, k := range []string{"exit_code", "arguments", "result", "error", "action", "prompt", "result.structured_content", "result._meta", "changes.0.diff", "results"} {
				if v := it.Get(k); v.Exists() {
					mark(itype + ":" + k + ":" + v.Type.String())
				}
			}
			it.Get("agents_states").ForEach(func(_, s gjson.Result) bool {
				mark("agent:" + s.Get("status").Str)
				return true
			})
			it.Get("changes").ForEach(func(_, c gjson.Result) bool {
				mark("change:" + c.Get("kind").Str)
				return true
			})
			it.Get("action").ForEach(func(k, v gjson.Result) bool {
				if k.Str == "type" {
					mark("action:" + v.Str)
				}
				return true
			})
		}
	}
	want := []string{
		"thread.started:timestamp", "turn.completed:usage.reasoning_output_tokens", "turn.completed:usage.cache_write_input_tokens",
		"type:item.plan.delta", "type:request_user_input", "type:error", "type:turn.failed",
		"question:isOther", "question:isSecret", "question:options",
		"command_execution.status:in_progress", "command_execution.status:completed", "command_execution.status:failed", "command_execution.status:declined",
		"file_change.status:in_progress", "file_change.status:completed", "file_change.status:failed",
		"mcp_tool_call.status:in_progress", "mcp_tool_call.status:completed", "mcp_tool_call.status:failed",
		"collab_tool_call.status:in_progress", "collab_tool_call.status:completed",
		"command_execution:exit_code:Null", "command_execution:exit_code:Number",
		"mcp_tool_call:arguments:JSON", "mcp_tool_call:arguments:Null", "mcp_tool_call:result:JSON", "mcp_tool_call:result:Null",
		"mcp_tool_call:error:JSON", "mcp_tool_call:error:Null", "mcp_tool_call:result.structured_content:JSON", "mcp_tool_call:result._meta:JSON",
		"file_change:changes.0.diff:String", "collab_tool_call:prompt:String", "collab_tool_call:prompt:Null",
		"agent:pending_init", "agent:running", "agent:completed", "agent:shutdown",
		"change:add", "change:delete", "change:update",
		"item.updated:todo_list", "item.updated:file_change", "item.completed:todo_list",
		"web_search:results:JSON", "thread.started:resumed",
	}
	for _, it := range codex.ItemTypes() {
		want = append(want, "item.completed:"+it)
	}
	for _, typ := range codex.Types() {
		want = append(want, "type:"+typ)
	}
	slices.Sort(want)
	for _, w := range slices.Compact(want) {
		if !seen[w] {
			t.Errorf("no test stream has %s", w)
		}
	}
}

// TestProcesses reads threads of several processes (codex exec, then codex
// exec resume: each writes thread.started and one turn) and the streams
// around that shape: one canonical session with one turn per process and
// call ids unique in it, and every line back byte for byte. The model
// shape needs no residue.
func TestProcesses(t *testing.T) {
	const (
		h    = `{"type":"thread.started","thread_id":"t"}`
		ts   = `{"type":"turn.started"}`
		cmd  = `{"type":"item.completed","item":{"id":"item_0","type":"command_execution","command":"ls","aggregated_output":"","exit_code":0,"status":"completed"}}`
		open = `{"type":"item.started","item":{"id":"item_0","type":"command_execution","command":"ls","aggregated_output":"","exit_code":null,"status":"in_progress"}}`
		warn = `{"type":"item.completed","item":{"id":"item_0","type":"error","message":"deprecated flag"}}`
		msg  = `{"type":"item.completed","item":{"id":"item_1","type":"agent_message","text":"ok"}}`
		tc   = `{"type":"turn.completed","usage":{"input_tokens":10,"cached_input_tokens":4,"output_tokens":2}}`
		tc2  = `{"type":"turn.completed","usage":{"input_tokens":30,"cached_input_tokens":8,"output_tokens":5}}`
	)
	for _, c := range []struct {
		name     string
		lines    []string
		residue  bool
		canonErr bool // the canonical stream is not complete
	}{
		{"two processes", []string{h, ts, cmd, msg, tc, h, ts, cmd, msg, tc2}, false, false},
		{"a config warning before the resumed turn", []string{h, ts, cmd, tc, h, warn, ts, cmd, tc2}, false, false},
		{"two turns in one process", []string{h, ts, cmd, tc, ts, `{"type":"item.completed","item":{"id":"item_1","type":"command_execution","command":"ls","aggregated_output":"","exit_code":0,"status":"completed"}}`, tc2}, true, false},
		{"resumed after an interrupted turn", []string{h, ts, open, h, ts, cmd, tc}, true, false},
		{"resumed with a timestamp", []string{h, ts, tc, `{"type":"thread.started","thread_id":"t","timestamp":"2026-10-01T09:00:00Z"}`, ts, tc2}, true, false},
		{"another thread", []string{h, ts, tc, `{"type":"thread.started","thread_id":"u"}`, ts, tc2}, true, false},
		{"a process with nothing but its thread.started", []string{h, ts, tc, h, h, ts, tc2}, true, false},
		{"ends with a thread.started", []string{h, ts, tc, h}, false, true},
		{"headless, then a thread.started", []string{ts, tc, h, ts, tc2}, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			canon, back, losses := dialecttest.RoundTrip(t, codex.Dialect{}, c.lines...)
			sessions, residue := 0, false
			for _, l := range canon {
				if gjson.Get(l, "type").Str == "session_started" {
					sessions++
				}
				residue = residue || gjson.Get(l, "ext").Exists()
			}
			if sessions != 1 {
				t.Errorf("%d session_started, want 1:\n%s", sessions, strings.Join(canon, "\n"))
			}
			if residue != c.residue {
				t.Errorf("residue %v, want %v:\n%s", residue, c.residue, strings.Join(canon, "\n"))
			}
			var diags []string
			sum, err := validate.Stream(strings.NewReader(strings.Join(canon, "\n")+"\n"), "canon", validate.Options{Dialect: canonical.Dialect{}},
				func(d validate.Diagnostic) { diags = append(diags, d.String()) })
			if err != nil || (sum.Errors > 0) != c.canonErr {
				t.Errorf("canonical reading: %d errors, want errors %v (%v):\n%s\n%s", sum.Errors, c.canonErr, err, strings.Join(diags, "\n"), strings.Join(canon, "\n"))
			}
			if !losses.Empty() {
				t.Errorf("losses %v", losses.List())
			}
			if strings.Join(back, "\n") != strings.Join(c.lines, "\n") {
				t.Errorf("written back\n%s\nwant\n%s\ncanonical:\n%s", strings.Join(back, "\n"), strings.Join(c.lines, "\n"), strings.Join(canon, "\n"))
			}
		})
	}
}
