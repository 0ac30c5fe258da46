package codex_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/evtool/evtool/adapters/codex"
	"github.com/evtool/evtool/convert"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/dialecttest"
	"github.com/evtool/evtool/internal/testkit/teststreams"
	"github.com/evtool/evtool/validate"
	"github.com/tidwall/gjson"
)

// fit encodes canonical lines (without seq: it is added) as codex, checks
// that evtool's validator accepts the output without errors, and returns
// the output and the loss lines.
func fit(t *testing.T, canon ...string) (out []string, losses map[string]int) {
	t.Helper()
	var in []string
	for i, l := range canon {
		in = append(in, `{"seq":`+strconv.Itoa(i)+`,`+strings.TrimPrefix(l, "{"))
	}
	from, _ := dialect.Lookup("canonical")
	f := filepath.Join(t.TempDir(), "in.jsonl")
	if err := os.WriteFile(f, []byte(strings.Join(in, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	buf, res := convertFile(t, f, from, codex.Dialect{}, nil, func(le *convert.LineError) { t.Errorf("input: %v", le) })
	losses = map[string]int{}
	for _, l := range res.Losses.List() {
		losses[l.ID] += l.Count
	}
	if !validates(t, "the codex output", buf, codex.Dialect{}) {
		t.Fatalf("output:\n%s", buf)
	}
	return dialecttest.Lines(string(buf)), losses
}

// convertFile converts the stream in file f from one dialect to another
// with cfg, as evtool convert does, and returns the output.
func convertFile(t *testing.T, f string, from, to dialect.Dialect, cfg dialect.Config, onError func(*convert.LineError)) ([]byte, convert.Result) {
	t.Helper()
	in, err := os.Open(f)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	var out bytes.Buffer
	res, err := convert.Run(in, &out, f, convert.Options{From: from, To: to, Config: cfg}, onError)
	if err != nil {
		t.Fatalf("%s: %v", f, err)
	}
	return out.Bytes(), res
}

// validates requires evtool's validator to find no error in a stream of
// d; what names the stream in the failure.
func validates(t *testing.T, what string, data []byte, d dialect.Dialect) bool {
	t.Helper()
	var diags []string
	sum, err := validate.Stream(bytes.NewReader(data), what, validate.Options{Dialect: d}, func(d validate.Diagnostic) {
		if d.Severity == dialect.Error {
			diags = append(diags, d.String())
		}
	})
	if err != nil || sum.Errors > 0 {
		t.Errorf("%s does not validate as %s (%v):\n%s", what, d.Name(), err, strings.Join(diags, "\n"))
		return false
	}
	return true
}

// checkLosses requires the counts of the given loss kinds.
func checkLosses(t *testing.T, got map[string]int, want map[string]int) {
	t.Helper()
	for id, n := range want {
		if got[id] != n {
			t.Errorf("loss %s counted %d times, want %d (all: %v)", id, got[id], n, got)
		}
	}
}

func checkLines(t *testing.T, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("output\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

const ss = `{"type":"session_started","schema":1,"source":{"dialect":"basis","version":2},"session_id":"s1"}`

// TestFitTurnAndItems writes another dialect's turn: streamed text joined,
// a command with its output chunks, a refused command, an MCP-like tool,
// usage summed from rounds into the cumulative total.
func TestFitTurnAndItems(t *testing.T) {
	out, losses := fit(t, ss,
		`{"type":"turn_started","turn_id":"t1","prompt":"go"}`,
		`{"type":"message_delta","turn_id":"t1","text":"Let me "}`,
		`{"type":"message_delta","turn_id":"t1","text":"look."}`,
		`{"type":"tool_call","call_id":"c1","name":"bash","kind":"execute","input":{"command":"ls"}}`,
		`{"type":"tool_started","call_id":"c1"}`,
		`{"type":"tool_output","call_id":"c1","chunk":"a\n"}`,
		`{"type":"tool_output","call_id":"c1","chunk":"b\n"}`,
		`{"type":"tool_finished","call_id":"c1","status":"success","exit_code":0}`,
		`{"type":"tool_call","call_id":"c2","name":"bash","kind":"execute","input":{"command":"rm -rf /"}}`,
		`{"type":"tool_finished","call_id":"c2","status":"rejected"}`,
		`{"type":"tool_call","call_id":"item_2","name":"read_file","kind":"read","input":{"path":"a.txt"}}`,
		`{"type":"tool_started","call_id":"item_2"}`,
		`{"type":"tool_finished","call_id":"item_2","status":"cancelled","output":"partial"}`,
		`{"type":"usage","input_tokens":100,"output_tokens":10,"cache_read_tokens":50,"reasoning_tokens":4}`,
		`{"type":"usage","input_tokens":20,"output_tokens":5,"thoughts_tokens":3}`,
		`{"type":"message","text":"Done."}`,
		`{"type":"turn_finished","turn_id":"t1","status":"ok"}`,
		`{"type":"session_finished","status":"ok"}`,
	)
	checkLines(t, out, []string{
		`{"type":"thread.started","thread_id":"s1"}`,
		`{"type":"turn.started"}`,
		`{"type":"item.completed","item":{"id":"item_0","type":"agent_message","text":"Let me look."}}`,
		`{"type":"item.started","item":{"id":"c1","type":"command_execution","command":"ls","aggregated_output":"","exit_code":null,"status":"in_progress"}}`,
		`{"type":"item.completed","item":{"id":"c1","type":"command_execution","command":"ls","aggregated_output":"a\nb\n","exit_code":0,"status":"completed"}}`,
		`{"type":"item.completed","item":{"id":"c2","type":"command_execution","command":"rm -rf /","aggregated_output":"","exit_code":null,"status":"declined"}}`,
		`{"type":"item.started","item":{"id":"item_2","type":"mcp_tool_call","server":"","tool":"read_file","arguments":{"path":"a.txt"},"result":null,"error":null,"status":"in_progress"}}`,
		`{"type":"item.completed","item":{"id":"item_2","type":"mcp_tool_call","server":"","tool":"read_file","arguments":{"path":"a.txt"},"result":{"content":[{"type":"text","text":"partial"}],"structured_content":null},"error":null,"status":"failed"}}`,
		`{"type":"item.completed","item":{"id":"item_3","type":"agent_message","text":"Done."}}`,
		`{"type":"turn.completed","usage":{"input_tokens":170,"cached_input_tokens":50,"output_tokens":18,"reasoning_output_tokens":7}}`,
	})
	checkLosses(t, losses, map[string]int{
		"codex/message-delta": 2, "codex/output-chunk": 2, "codex/tool-status": 1, "codex/usage": 2, "codex/turn-prompt": 1,
	})
}

// TestFitCumulativeUsage: Codex's usage is the thread's running total, so
// the second turn writes the sum of both turns. Each turn is the output of
// its own process (codex exec, then codex exec resume), with its own
// thread.started of the same thread.
func TestFitCumulativeUsage(t *testing.T) {
	out, _ := fit(t, ss,
		`{"type":"turn_started","turn_id":"t1"}`,
		`{"type":"turn_finished","turn_id":"t1","status":"ok","usage":{"input_tokens":10,"output_tokens":2,"cache_read_tokens":5,"cache_creation_tokens":1}}`,
		`{"type":"turn_started","turn_id":"t2"}`,
		`{"type":"turn_finished","turn_id":"t2","status":"ok","usage":{"input_tokens":20,"output_tokens":3,"cache_read_tokens":7,"cache_creation_tokens":0}}`,
		`{"type":"session_finished","status":"ok"}`,
	)
	checkLines(t, out, []string{
		`{"type":"thread.started","thread_id":"s1"}`,
		`{"type":"turn.started"}`,
		`{"type":"turn.completed","usage":{"input_tokens":16,"cached_input_tokens":5,"cache_write_input_tokens":1,"output_tokens":2}}`,
		`{"type":"thread.started","thread_id":"s1"}`,
		`{"type":"turn.started"}`,
		`{"type":"turn.completed","usage":{"input_tokens":43,"cached_input_tokens":12,"cache_write_input_tokens":1,"output_tokens":5}}`,
	})
}

// TestFitTurnsAreProcesses: a conversation of several turns is written as
// Codex saves one: one process per turn, each with thread.started and its
// items numbered from item_0 again.
func TestFitTurnsAreProcesses(t *testing.T) {
	out, losses := fit(t, ss,
		`{"type":"turn_started","turn_id":"t1"}`,
		`{"type":"message","text":"one"}`,
		`{"type":"turn_finished","turn_id":"t1","status":"ok"}`,
		`{"type":"turn_started","turn_id":"t2"}`,
		`{"type":"reasoning","text":"hm"}`,
		`{"type":"message","text":"two"}`,
		`{"type":"turn_finished","turn_id":"t2","status":"ok"}`,
		`{"type":"session_finished","status":"ok","text":"two"}`,
	)
	checkLines(t, out, []string{
		`{"type":"thread.started","thread_id":"s1"}`,
		`{"type":"turn.started"}`,
		`{"type":"item.completed","item":{"id":"item_0","type":"agent_message","text":"one"}}`,
		`{"type":"turn.completed","usage":{"input_tokens":0,"cached_input_tokens":0,"output_tokens":0}}`,
		`{"type":"thread.started","thread_id":"s1"}`,
		`{"type":"turn.started"}`,
		`{"type":"item.completed","item":{"id":"item_0","type":"reasoning","text":"hm"}}`,
		`{"type":"item.completed","item":{"id":"item_1","type":"agent_message","text":"two"}}`,
		`{"type":"turn.completed","usage":{"input_tokens":0,"cached_input_tokens":0,"output_tokens":0}}`,
	})
	checkLosses(t, losses, map[string]int{"codex/zero-usage": 2})
}

// TestFitDisjointUsage: canonical counts are disjoint (Gemini's prompt of
// 20525 tokens, 7559 of them from the cache, is input 12966 + cache_read
// 7559); Codex's are nested, so input_tokens counts the cached ones too.
func TestFitDisjointUsage(t *testing.T) {
	out, _ := fit(t, ss,
		`{"type":"turn_started","turn_id":"t1"}`,
		`{"type":"turn_finished","turn_id":"t1","status":"ok","usage":{"input_tokens":12966,"output_tokens":410,"cache_read_tokens":7559,"thoughts_tokens":120}}`,
		`{"type":"session_finished","status":"ok"}`,
	)
	checkLines(t, out[2:], []string{
		`{"type":"turn.completed","usage":{"input_tokens":20525,"cached_input_tokens":7559,"output_tokens":530,"reasoning_output_tokens":120}}`,
	})
}

// TestFitFailureText: a failed turn says why, as Codex does: the turn's
// own reason, else its last error line's message, else the run's message
// or errors that follow the turn's end (Gemini writes its API error only
// on the run's end); the run's errors no error event said become error
// lines before the turn's end.
func TestFitFailureText(t *testing.T) {
	const gone = "[API Error: Requested entity was not found.]"
	out, losses := fit(t, ss,
		`{"type":"turn_started","turn_id":"t1"}`,
		`{"type":"turn_finished","turn_id":"t1","status":"error"}`,
		`{"type":"session_finished","status":"error","message":"`+gone+`"}`,
	)
	checkLines(t, out[2:], []string{`{"type":"turn.failed","error":{"message":"` + gone + `"}}`})
	checkLosses(t, losses, map[string]int{"codex/synthesized-error-line": 0})

	out, _ = fit(t, ss,
		`{"type":"turn_started","turn_id":"t1"}`,
		`{"type":"error","message":"stream disconnected"}`,
		`{"type":"turn_finished","turn_id":"t1","status":"error"}`,
		`{"type":"session_finished","status":"error"}`,
	)
	checkLines(t, out[2:], []string{`{"type":"error","message":"stream disconnected"}`, `{"type":"turn.failed","error":{"message":"stream disconnected"}}`})

	out, losses = fit(t, ss,
		`{"type":"turn_started","turn_id":"t1"}`,
		`{"type":"turn_finished","turn_id":"t1","status":"error"}`,
		`{"type":"session_finished","status":"error","errors":["`+gone+`"]}`,
	)
	checkLines(t, out[2:], []string{`{"type":"error","message":"` + gone + `"}`, `{"type":"turn.failed","error":{"message":"` + gone + `"}}`})
	checkLosses(t, losses, map[string]int{"codex/synthesized-error-line": 1})

	out, _ = fit(t, ss,
		`{"type":"turn_started","turn_id":"t1"}`,
		`{"type":"turn_finished","turn_id":"t1","status":"error"}`,
		`{"type":"turn_started","turn_id":"t2"}`,
		`{"type":"turn_finished","turn_id":"t2","status":"error","reason":"boom"}`,
	)
	checkLines(t, out, []string{
		`{"type":"thread.started","thread_id":"s1"}`,
		`{"type":"turn.started"}`,
		`{"type":"turn.failed","error":{"message":"turn failed"}}`,
		`{"type":"thread.started","thread_id":"s1"}`,
		`{"type":"turn.started"}`,
		`{"type":"turn.failed","error":{"message":"boom"}}`,
	})
}

// TestFitSynthesis: a run without turns gets one; a turn left open, with a
// call and a to-do list open, is closed at the run's end; a cancelled run
// is a failed turn; nothing follows the end.
func TestFitSynthesis(t *testing.T) {
	out, losses := fit(t,
		`{"type":"notice","severity":"info","message":"hello"}`,
		`{"type":"plan_updated","entries":[{"content":"a","status":"in_progress"}]}`,
		`{"type":"tool_call","call_id":"k","name":"grep","kind":"search","title":"grep foo"}`,
		`{"type":"tool_started","call_id":"k"}`,
		`{"type":"session_finished","status":"cancelled","usage":{"input_tokens":3,"output_tokens":1}}`,
		`{"type":"message","text":"late"}`,
	)
	checkLines(t, out, []string{
		`{"type":"thread.started","thread_id":""}`,
		`{"type":"turn.started"}`,
		`{"type":"item.completed","item":{"id":"item_0","type":"error","message":"hello"}}`,
		`{"type":"item.started","item":{"id":"item_1","type":"todo_list","items":[{"text":"a","completed":false}]}}`,
		`{"type":"item.started","item":{"id":"k","type":"mcp_tool_call","server":"","tool":"grep","arguments":null,"result":null,"error":null,"status":"in_progress"}}`,
		`{"type":"item.completed","item":{"id":"k","type":"mcp_tool_call","server":"","tool":"grep","arguments":null,"result":null,"error":{"message":"the turn ended before the call finished"},"status":"failed"}}`,
		`{"type":"item.completed","item":{"id":"item_1","type":"todo_list","items":[{"text":"a","completed":false}]}}`,
		`{"type":"turn.failed","error":{"message":"turn cancelled"}}`,
	})
	checkLosses(t, losses, map[string]int{
		"codex/synthesized-thread-started-defaults": 1, "codex/synthesized-turn-started": 1, "codex/synthesized-call-completion": 1,
		"codex/synthesized-todo-completion": 1, "codex/synthesized-run-turn-end": 1, "codex/synthesized-turn-end": 0,
		"codex/turn-status": 1, "codex/notice-severity": 1, "codex/plan-status": 1, "codex/after-run-finished": 1,
		"codex/mcp-title": 1, "codex/failed-turn-usage": 1,
	})
}

// TestFitEveryDialect converts every test stream of every other dialect to
// codex: the output validates without errors (the cross tests of
// cmd/evtool check this too, with the loss goldens).
func TestFitEveryDialect(t *testing.T) {
	for _, d := range dialect.All() {
		if d.Name() == codex.Name {
			continue
		}
		for _, f := range teststreams.Valid(d.Name()) {
			out, _ := convertFile(t, f, d, codex.Dialect{}, nil, func(*convert.LineError) {})
			validates(t, f+" → codex", out, codex.Dialect{})
		}
	}
}

// TestLineFallback: a line kept whole in ext.codex["@line"] (the decoder's
// safety net) is written as it is.
func TestLineFallback(t *testing.T) {
	canon := []string{
		`{"seq":0,"type":"session_started","schema":1,"source":{"dialect":"codex"},"session_id":"t"}`,
		`{"seq":1,"type":"message","text":"x","message_id":"item_0","ext":{"codex":{"@line":{"type":"item.completed","item":{"id":"item_0","type":"agent_message","text":"y","odd":[1]}}}}}`,
	}
	back, losses := fromCanonical(t, canon)
	want := []string{`{"type":"thread.started","thread_id":"t"}`, `{"type":"item.completed","item":{"id":"item_0","type":"agent_message","text":"y","odd":[1]}}`}
	checkLines(t, back, want)
	if !losses.Empty() {
		t.Errorf("losses %v", losses.List())
	}
}

// TestLossCatalogue checks the encoder's loss catalogue: ids unique and
// under codex/, every kind worded for one and for many.
func TestLossCatalogue(t *testing.T) {
	if err := dialect.CheckLossKinds("codex/", codex.Dialect{}.LossKinds()); err != nil {
		t.Error(err)
	}
}

// TestUnknownBeforeHeader: another dialect's unknown event before the
// session start (a line its reader could not place) writes nothing and
// neither synthesises a header nor hides the real one.
func TestUnknownBeforeHeader(t *testing.T) {
	for _, src := range []string{"codex", "basis"} {
		out, losses := fromCanonical(t, []string{
			`{"seq":0,"type":"unknown","dialect":"gemini","source_type":"noise","raw":{"x":1}}`,
			`{"seq":1,"type":"session_started","schema":1,"source":{"dialect":"` + src + `"},"session_id":"th"}`,
			`{"seq":2,"type":"turn_started","turn_id":"turn-1"}`,
			`{"seq":3,"type":"turn_finished","turn_id":"turn-1","status":"error","reason":"x"}`,
		})
		checkLines(t, out, []string{`{"type":"thread.started","thread_id":"th"}`, `{"type":"turn.started"}`, `{"type":"turn.failed","error":{"message":"x"}}`})
		if l := losses.List(); len(l) != 1 || l[0].ID != "codex/unknown-event" {
			t.Errorf("%s: losses %v, want one unknown event", src, l)
		}
	}
}

// TestFitCallIDTaken: a source call id that an item generated earlier in
// the process already took (item_0, from a stream that was codex's once
// and went through ACP) is written under the next free item id, and so are
// the call's later events: no item id is used twice in a process.
func TestFitCallIDTaken(t *testing.T) {
	out, _ := fit(t, ss,
		`{"type":"turn_started","turn_id":"t1"}`,
		`{"type":"reasoning","turn_id":"t1","text":"thinking"}`,
		`{"type":"tool_call","turn_id":"t1","call_id":"item_0","name":"wait","input":{}}`,
		`{"type":"tool_started","turn_id":"t1","call_id":"item_0"}`,
		`{"type":"tool_finished","turn_id":"t1","call_id":"item_0","status":"success"}`,
		`{"type":"turn_finished","turn_id":"t1","status":"ok"}`,
		`{"type":"session_finished","status":"ok"}`,
	)
	var ids []string
	for _, l := range out {
		if id := gjson.Get(l, "item.id"); id.Exists() {
			ids = append(ids, gjson.Get(l, "type").Str+" "+id.Str)
		}
	}
	want := "item.completed item_0,item.started item_1,item.completed item_1"
	if got := strings.Join(ids, ","); got != want {
		t.Errorf("item ids %s, want %s\n%s", got, want, strings.Join(out, "\n"))
	}
}

// TestFitOpenCallsAllClosed: every call left open when the run ends gets
// its item.completed, however many there are and whichever finished in
// between. The encoder once closed every other one (it cut each closed
// call out of the list it was walking), and took n² steps for n calls.
func TestFitOpenCallsAllClosed(t *testing.T) {
	const n = 300
	var canon []string
	open := 0
	for i := range n {
		id := "k" + strconv.Itoa(i)
		canon = append(canon,
			`{"type":"tool_call","call_id":"`+id+`","name":"grep","kind":"search"}`,
			`{"type":"tool_started","call_id":"`+id+`"}`)
		if i%3 == 0 {
			canon = append(canon, `{"type":"tool_finished","call_id":"`+id+`","status":"success"}`)
		} else {
			open++
		}
	}
	canon = append(canon, `{"type":"session_finished","status":"ok"}`)
	out, losses := fit(t, canon...)
	completed := map[string]int{}
	for _, l := range out {
		if r := gjson.Parse(l); r.Get("type").Str == "item.completed" {
			completed[r.Get("item.id").Str]++
		}
	}
	for i := range n {
		if id := "k" + strconv.Itoa(i); completed[id] != 1 {
			t.Errorf("call %s: %d item.completed lines, want 1", id, completed[id])
		}
	}
	if got := losses["codex/synthesized-call-completion"]; got != open {
		t.Errorf("synthesized-call-completion: %d, want %d", got, open)
	}
}
