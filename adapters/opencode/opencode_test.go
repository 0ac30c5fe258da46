package opencode_test

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/evtool/evtool/adapters/opencode"
	"github.com/evtool/evtool/convert"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/testkit/jsoneq"
	"github.com/evtool/evtool/internal/testkit/teststreams"
	"github.com/evtool/evtool/validate"
	"github.com/tidwall/gjson"
)

// conv converts data between two dialects and returns the output and the
// losses.
func conv(t *testing.T, data []byte, from, to string) (string, *dialect.Losses) {
	t.Helper()
	f, _ := dialect.Lookup(from)
	d, _ := dialect.Lookup(to)
	var out bytes.Buffer
	res, err := convert.Run(bytes.NewReader(data), &out, "test", convert.Options{From: f, To: d}, func(le *convert.LineError) { t.Errorf("%v", le) })
	if err != nil {
		t.Fatal(err)
	}
	return out.String(), res.Losses
}

// events decodes a stream into canonical events.
func events(t *testing.T, data []byte) []*event.Event {
	t.Helper()
	out, _ := conv(t, data, opencode.Name, "canonical")
	var evs []*event.Event
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		ev, err := event.Parse([]byte(l))
		if err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		evs = append(evs, ev)
	}
	return evs
}

func check(t *testing.T, data string) validate.Summary {
	t.Helper()
	sum, err := validate.Stream(strings.NewReader(data), "test", validate.Options{Dialect: opencode.Dialect{}}, func(d validate.Diagnostic) {
		t.Logf("%s", d.String())
	})
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

// TestRoundTrip runs every opencode test stream through canonical text
// and back: a compact run json stream comes back byte for byte, the
// re-spaced bus capture and CRLF lines as the same JSON values.
func TestRoundTrip(t *testing.T) {
	files := teststreams.Valid(opencode.Name)
	if len(files) < 8 {
		t.Fatalf("only %d streams", len(files))
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			canon, l1 := conv(t, data, opencode.Name, "canonical")
			back, l2 := conv(t, []byte(canon), "canonical", opencode.Name)
			if !l1.Empty() || !l2.Empty() {
				t.Errorf("losses: %v %v", l1.List(), l2.List())
			}
			if back == string(data) {
				return
			}
			in, out := strings.Split(string(data), "\n"), strings.Split(back, "\n")
			if len(in) != len(out) {
				t.Fatalf("%d lines came back for %d", len(out), len(in))
			}
			compact := !bytes.Contains(data, []byte(`", "`)) && !bytes.Contains(data, []byte("\r\n"))
			for i := range in {
				if in[i] == "" && out[i] == "" {
					continue
				}
				// Compact lines come back byte for byte, whatever order
				// their keys are in (opencode 1.15 and later order a
				// part's keys their own way); the re-spaced bus capture
				// and CRLF lines as the same JSON values.
				if compact && in[i] != out[i] {
					t.Errorf("line %d not byte-identical:\n got %s\nwant %s", i+1, out[i], in[i])
				} else if !jsoneq.Equal(strings.TrimSuffix(in[i], "\r"), out[i]) {
					t.Errorf("line %d not the same JSON:\n got %s\nwant %s", i+1, out[i], in[i])
				}
			}
		})
	}
}

// TestCaptureFigures checks the reading of the real run json capture
// against its lines, by hand: two steps, one bash call, usage summed.
func TestCaptureFigures(t *testing.T) {
	data, err := os.ReadFile("../../../shared/dialects-next/captures/opencode/takopi_run_json_success.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	evs := events(t, data)
	var types []string
	for _, ev := range evs {
		types = append(types, string(ev.Type()))
	}
	want := "session_started turn_started tool_call tool_started tool_finished round_finished message round_finished turn_finished session_finished"
	if got := strings.Join(types, " "); got != want {
		t.Fatalf("events:\n got %s\nwant %s", got, want)
	}
	call := evs[2].Body.(*event.ToolCall)
	if call.Name != "bash" || call.Kind != event.KindExecute || call.Title != "Print hello to stdout" || evs[2].Time != "2025-12-29T19:21:01.123000Z" {
		t.Errorf("tool_call %+v at %s", call, evs[2].Time)
	}
	fin := evs[4].Body.(*event.ToolFinished)
	if fin.Status != event.ToolSuccess || *fin.Output != "hello\n" || fin.ExitCode == nil || *fin.ExitCode != 0 {
		t.Errorf("tool_finished %+v", fin)
	}
	r1, r2 := evs[5].Body.(*event.RoundFinished), evs[7].Body.(*event.RoundFinished)
	if r1.StopReason != event.StopToolUse || r2.StopReason != event.StopEndTurn || *r1.Usage.InputTokens != 21772 || r2.Usage.CostUSD != "0.001" {
		t.Errorf("rounds %+v %+v", r1, r2)
	}
	tf := evs[8].Body.(*event.TurnFinished)
	u := tf.Usage
	if tf.Status != event.StatusOK || tf.StopReason != event.StopEndTurn || !evs[8].Synthetic ||
		*u.InputTokens != 22443 || *u.OutputTokens != 118 || *u.CacheReadTokens != 21415 || *u.CacheCreationTokens != 0 || u.CostUSD != "0.001" || u.TotalTokens != nil {
		t.Errorf("turn_finished %+v usage %+v", tf, u)
	}
	if evs[0].Body.(*event.SessionStarted).SessionID != "ses_494719016ffe85dkDMj0FPRbHK" {
		t.Error("session id")
	}
}

// TestBusCapture checks the reading of the server bus capture: the prompt,
// the streamed and assembled reasoning and text, one round, and the turn
// ended by session.idle.
func TestBusCapture(t *testing.T) {
	data, err := os.ReadFile("../../../shared/dialects-next/captures/opencode/meawoppl_server_event_stream.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	evs := events(t, data)
	count := map[event.Type]int{}
	for _, ev := range evs {
		count[ev.Type()]++
	}
	if count[event.TypeUserMessage] != 1 || count[event.TypeReasoningDelta] != 12 || count[event.TypeReasoning] != 1 ||
		count[event.TypeMessageDelta] != 1 || count[event.TypeMessage] != 1 || count[event.TypeRoundFinished] != 1 ||
		count[event.TypeTurnFinished] != 1 || count[event.TypeSessionFinished] != 1 || count[event.TypeUnknown] != 0 {
		t.Errorf("counts %v", count)
	}
	last := evs[len(evs)-1]
	if !strings.Contains(string(last.Ext.Get(opencode.Name)), "session.diff") {
		t.Error("the lines after session.idle do not ride on session_finished")
	}
	for _, ev := range evs {
		if tf, ok := ev.Body.(*event.TurnFinished); ok {
			if ev.Synthetic || tf.Usage == nil || *tf.Usage.TotalTokens != 8755 || *tf.Usage.ReasoningTokens != 36 {
				t.Errorf("turn_finished %+v", tf)
			}
		}
	}
}

func TestEnds(t *testing.T) {
	read := func(name string) []*event.Event {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return events(t, data)
	}
	// A run that fails in its first step: the error line ends it.
	evs := read("written_api_error.jsonl")
	sf := evs[len(evs)-1].Body.(*event.SessionFinished)
	tf := evs[len(evs)-2].Body.(*event.TurnFinished)
	if sf.Status != event.StatusError || sf.Message != "Overloaded" || tf.Status != event.StatusError || tf.Reason != "Overloaded" {
		t.Errorf("error end: %+v %+v", tf, sf)
	}
	// done is a source line: turn_finished is not synthetic.
	evs = read("written_done_rejected.jsonl")
	if ev := evs[len(evs)-2]; ev.Type() != event.TypeTurnFinished || ev.Synthetic || !strings.Contains(string(ev.Ext.Get(opencode.Name)), `"rejected":["webfetch"]`) {
		t.Errorf("done: %+v", ev)
	}
	// A stream cut after a step that stopped to call tools is truncated:
	// no session_finished, a warning notice.
	cut := `{"type":"step_start","timestamp":1,"sessionID":"s","part":{"id":"p1","sessionID":"s","messageID":"m","type":"step-start"}}
{"type":"step_finish","timestamp":2,"sessionID":"s","part":{"id":"p2","sessionID":"s","messageID":"m","type":"step-finish","reason":"tool-calls","cost":0,"tokens":{"input":1,"output":1,"reasoning":0,"cache":{"read":0,"write":0}}}}
{"type":"step_start","timestamp":3,"sessionID":"s","part":{"id":"p3","sessionID":"s","messageID":"m2","type":"step-start"}}
`
	evs = events(t, []byte(cut))
	last := evs[len(evs)-1]
	if n, ok := last.Body.(*event.Notice); !ok || n.Severity != event.SeverityWarning || !strings.Contains(string(last.Ext.Get(opencode.Name)), `"p3"`) {
		t.Errorf("truncated stream ends with %+v", last)
	}
	for _, ev := range evs {
		if ev.Type() == event.TypeSessionFinished || ev.Type() == event.TypeTurnFinished {
			t.Errorf("a truncated stream has %s", ev.Type())
		}
	}
	if sum := check(t, cut); sum.Errors != 1 {
		t.Errorf("truncated: %d errors, want 1 (opencode/truncated)", sum.Errors)
	}
	back, _ := conv(t, []byte(cut), opencode.Name, opencode.Name)
	if back != cut {
		t.Errorf("truncated stream back:\n%s", back)
	}
}

// TestRepublishedPart: opencode writes a part again when it is updated
// after it ended; the first reading stands and the line rides along.
func TestRepublishedPart(t *testing.T) {
	s := `{"type":"step_start","timestamp":1,"sessionID":"s","part":{"id":"p1","sessionID":"s","messageID":"m","type":"step-start"}}
{"type":"text","timestamp":2,"sessionID":"s","part":{"id":"p2","sessionID":"s","messageID":"m","type":"text","text":"a","time":{"start":1,"end":2}}}
{"type":"text","timestamp":3,"sessionID":"s","part":{"id":"p2","sessionID":"s","messageID":"m","type":"text","text":"ab","time":{"start":1,"end":3}}}
{"type":"step_finish","timestamp":4,"sessionID":"s","part":{"id":"p3","sessionID":"s","messageID":"m","type":"step-finish","reason":"stop","cost":0,"tokens":{"input":1,"output":1,"reasoning":0,"cache":{"read":0,"write":0}}}}
`
	n := 0
	for _, ev := range events(t, []byte(s)) {
		if ev.Type() == event.TypeMessage {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d messages, want 1", n)
	}
	if back, _ := conv(t, []byte(s), opencode.Name, opencode.Name); back != s {
		t.Errorf("back:\n%s", back)
	}
}

// TestForeign writes opencode from a canonical stream of another
// producer: steps are synthesised, deltas joined, and every fact opencode
// cannot carry is counted.
func TestForeign(t *testing.T) {
	canon := `{"seq":0,"type":"session_started","schema":1,"source":{"dialect":"basis"},"session_id":"s1","model":"m"}
{"seq":1,"type":"turn_started","turn_id":"t1","prompt":"go"}
{"seq":2,"type":"message_delta","turn_id":"t1","text":"he"}
{"seq":3,"type":"message_delta","turn_id":"t1","text":"llo"}
{"seq":4,"type":"tool_call","turn_id":"t1","call_id":"c1","name":"bash","input":{"z":1,"a":2}}
{"seq":5,"type":"tool_finished","turn_id":"t1","call_id":"c1","status":"cancelled","exit_code":130}
{"seq":6,"type":"usage","turn_id":"t1","input_tokens":10,"output_tokens":5}
{"seq":7,"type":"turn_finished","turn_id":"t1","status":"error","reason":"stopped","usage":{"input_tokens":10,"output_tokens":5}}
{"seq":8,"type":"session_finished","status":"error","message":"stopped"}
`
	out, losses := conv(t, []byte(canon), "canonical", opencode.Name)
	if sum := check(t, out); sum.Errors != 0 || sum.Warnings != 0 {
		t.Fatalf("output does not validate:\n%s", out)
	}
	for _, want := range []string{`"type":"text"`, `"text":"hello"`, `"input":{"a":2,"z":1}`, `"status":"error","input"`, `"error":"cancelled"`, `"metadata":{"exit":130}`,
		`"tokens":{"input":10,"output":5,"reasoning":0`, `{"type":"error"`, `"message":"stopped"`} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %s:\n%s", want, out)
		}
	}
	// Every loss, by its catalogue id, worded for its count.
	var got []string
	for _, l := range losses.List() {
		got = append(got, l.ID+": "+l.Verb+" "+strconv.Itoa(l.Count)+" "+l.Kind)
	}
	want := []string{
		"opencode/line-timestamp: approximated 5 line timestamps",
		"opencode/message-deltas: approximated 1 message streamed in deltas",
		`opencode/tool-status: approximated 1 tool status "cancelled"`,
		"opencode/unstated-count: approximated 1 unstated cache read token count",
		"opencode/unstated-count: approximated 1 unstated cache write token count",
		"opencode/unstated-count: approximated 1 unstated reasoning token count",
		"opencode/unstated-cost: approximated 1 unstated step cost",
		"opencode/session-model: dropped 1 session's model and provider",
		"opencode/turn-prompt: dropped 1 turn prompt",
		"opencode/synthesized-error: synthesized 1 error line",
		"opencode/synthesized-step-finish: synthesized 1 step_finish line",
		"opencode/synthesized-step-start: synthesized 1 step_start line",
	}
	if !slices.Equal(got, want) {
		t.Errorf("losses:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestReferenceExamples validates the run json lines quoted in the wire
// reference as a stream: they are the capture's, a complete run.
func TestReferenceExamples(t *testing.T) {
	data := teststreams.Reference(t, "../../../shared/dialects-next/opencode.md")
	run, busLines := teststreams.ExampleLines(data, `{"type":`), teststreams.ExampleLines(data, `{"id": "evt_`)
	if len(run) != 5 || len(busLines) != 3 {
		t.Fatalf("found %d run and %d bus example lines", len(run), len(busLines))
	}
	// They leave out the capture's second step_start: two lines are
	// outside a step (warnings), and the run is complete.
	if sum := check(t, strings.Join(run, "\n")+"\n"); sum.Errors != 0 || sum.Warnings != 2 {
		t.Errorf("run examples: %+v", sum)
	}
	// The bus examples are three lines of a longer stream: a delta, then
	// the idle that ends its turn.
	if sum := check(t, strings.Join(busLines, "\n")+"\n"); sum.Errors != 0 {
		t.Errorf("bus examples: %+v", sum)
	}
}

// TestSessionIDDefault: a source without a session id takes the one
// --session-id (--default session_id=…) gives, on every line and part,
// and session_id is the one default opencode names.
func TestSessionIDDefault(t *testing.T) {
	if keys := (opencode.Dialect{}).DefaultKeys(); !slices.Equal(keys, []dialect.DefaultKey{dialect.DefaultSessionID}) {
		t.Errorf("DefaultKeys %v", keys)
	}
	canon := `{"seq":0,"type":"session_started","schema":1,"source":{"dialect":"basis"}}
{"seq":1,"type":"message","text":"hi"}
{"seq":2,"type":"session_finished","status":"ok"}
`
	var out bytes.Buffer
	_, err := convert.Run(strings.NewReader(canon), &out, "test", convert.Options{From: canonicalDialect(t), To: opencode.Dialect{},
		Defaults: dialect.Defaults{SessionID: "ses_given"}}, func(le *convert.LineError) { t.Errorf("%v", le) })
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines:\n%s", len(lines), out.String())
	}
	for _, l := range lines {
		if s, p := gjson.Get(l, "sessionID").Str, gjson.Get(l, "part.sessionID").Str; s != "ses_given" || p != "ses_given" {
			t.Errorf("sessionID %q, part.sessionID %q: %s", s, p, l)
		}
	}
	if sum := check(t, out.String()); sum.Errors != 0 || sum.Warnings != 0 {
		t.Errorf("output does not validate: %+v", sum)
	}
}

func canonicalDialect(t *testing.T) dialect.Dialect {
	t.Helper()
	d, err := dialect.Lookup("canonical")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestToolNotEnded: a tool_use line whose call has not ended (pending or
// running, which run never writes) is read as the call's start, with no
// outcome invented for it, and comes back as it was.
func TestToolNotEnded(t *testing.T) {
	data := `{"type":"step_start","timestamp":1790000000000,"sessionID":"ses_r","part":{"id":"prt_1","sessionID":"ses_r","messageID":"msg_1","type":"step-start"}}
{"type":"tool_use","timestamp":1790000000100,"sessionID":"ses_r","part":{"id":"prt_2","sessionID":"ses_r","messageID":"msg_1","type":"tool","callID":"call_1","tool":"bash","state":{"status":"running","input":{"command":"sleep 9"},"title":"sleep","metadata":{},"time":{"start":1790000000050}}}}
{"type":"tool_use","timestamp":1790000000200,"sessionID":"ses_r","part":{"id":"prt_3","sessionID":"ses_r","messageID":"msg_1","type":"tool","callID":"call_2","tool":"read","state":{"status":"pending","input":{},"raw":"{\"filePath\":"}}}
{"type":"step_finish","timestamp":1790000000300,"sessionID":"ses_r","part":{"id":"prt_4","sessionID":"ses_r","messageID":"msg_1","type":"step-finish","reason":"stop","cost":0,"tokens":{"input":1,"output":2,"reasoning":0,"cache":{"read":0,"write":0}}}}
`
	var types []string
	for _, ev := range events(t, []byte(data)) {
		types = append(types, string(ev.Type()))
		if _, ok := ev.Body.(*event.ToolFinished); ok {
			t.Errorf("a call that has not ended was given an outcome: %+v", ev.Body)
		}
	}
	want := "session_started turn_started tool_call tool_started tool_call tool_started round_finished turn_finished session_finished"
	if got := strings.Join(types, " "); got != want {
		t.Errorf("events:\n got %s\nwant %s", got, want)
	}
	canon, _ := conv(t, []byte(data), opencode.Name, "canonical")
	back, l := conv(t, []byte(canon), "canonical", opencode.Name)
	if back != data || !l.Empty() {
		t.Errorf("round trip (losses %v):\n got %s\nwant %s", l.List(), back, data)
	}
}

// TestTurnUsageOnSteps: a source that states usage per turn (Gemini's
// per-process stats, Claude's turn cost) has it carried into the turn's
// last step_finish, so that the steps sum to the turn's total; a cost the
// source does not state is written as 0 (opencode's word for unpriced)
// and counted, and a count the total states is not called unstated.
func TestTurnUsageOnSteps(t *testing.T) {
	canon := `{"seq":0,"type":"session_started","schema":1,"source":{"dialect":"gemini"},"session_id":"ses_g"}
{"seq":1,"type":"turn_started","time":"2026-10-01T09:10:00.000000Z","turn_id":"turn-1"}
{"seq":2,"type":"message","time":"2026-10-01T09:10:01.000000Z","turn_id":"turn-1","text":"I'll list them."}
{"seq":3,"type":"round_finished","time":"2026-10-01T09:10:02.000000Z","turn_id":"turn-1","stop_reason":"tool_use"}
{"seq":4,"type":"message","time":"2026-10-01T09:10:03.000000Z","turn_id":"turn-1","text":"Two."}
{"seq":5,"type":"round_finished","time":"2026-10-01T09:10:04.000000Z","turn_id":"turn-1","stop_reason":"end_turn"}
{"seq":6,"type":"turn_finished","time":"2026-10-01T09:10:04.000000Z","turn_id":"turn-1","status":"ok","usage":{"input_tokens":6531,"output_tokens":74,"cache_read_tokens":16384}}
{"seq":7,"type":"turn_started","time":"2026-10-01T09:11:00.000000Z","turn_id":"turn-2"}
{"seq":8,"type":"message","time":"2026-10-01T09:11:01.000000Z","turn_id":"turn-2","text":"a"}
{"seq":9,"type":"round_finished","time":"2026-10-01T09:11:02.000000Z","turn_id":"turn-2","stop_reason":"tool_use","usage":{"input_tokens":10,"output_tokens":1,"reasoning_tokens":0,"cache_read_tokens":2000,"cache_creation_tokens":100}}
{"seq":10,"type":"message","time":"2026-10-01T09:11:03.000000Z","turn_id":"turn-2","text":"b"}
{"seq":11,"type":"round_finished","time":"2026-10-01T09:11:04.000000Z","turn_id":"turn-2","stop_reason":"end_turn","usage":{"input_tokens":4,"output_tokens":9,"reasoning_tokens":0,"cache_read_tokens":2100,"cache_creation_tokens":300}}
{"seq":12,"type":"turn_finished","time":"2026-10-01T09:11:04.000000Z","turn_id":"turn-2","status":"ok","usage":{"input_tokens":14,"output_tokens":10,"cache_read_tokens":4100,"cache_creation_tokens":400,"cost_usd":0.1000000000000000055511151231257827}}
{"seq":13,"type":"session_finished","time":"2026-10-01T09:11:04.000000Z","status":"ok"}
`
	out, losses := conv(t, []byte(canon), "canonical", opencode.Name)
	var steps []string
	for _, l := range strings.Split(out, "\n") {
		if p := gjson.Get(l, "part"); gjson.Get(l, "type").Str == "step_finish" {
			steps = append(steps, p.Get("cost").Raw+" "+p.Get("tokens").Raw)
		}
	}
	want := []string{
		`0 {"input":0,"output":0,"reasoning":0,"cache":{"read":0,"write":0}}`,
		`0 {"input":6531,"output":74,"reasoning":0,"cache":{"read":16384,"write":0}}`,
		`0 {"input":10,"output":1,"reasoning":0,"cache":{"read":2000,"write":100}}`,
		`0.1000000000000000055511151231257827 {"input":4,"output":9,"reasoning":0,"cache":{"read":2100,"write":300}}`,
	}
	if !slices.Equal(steps, want) {
		t.Errorf("step_finish cost and tokens:\n got %q\nwant %q", steps, want)
	}
	var list []string
	for _, l := range losses.List() {
		if id := l.LossKind().ID; strings.Contains(id, "usage") || strings.Contains(id, "unstated") {
			list = append(list, l.String())
		}
	}
	wantLoss := []string{
		"approximated 2 turn usage totals (opencode states usage per step; the turn's total is written on its last step)",
		"approximated 2 unstated cache write token counts (opencode states every count of a step; written as 0)",
		"approximated 2 unstated reasoning token counts (opencode states every count of a step; written as 0)",
		"approximated 2 unstated step costs (opencode states a cost for every step; written as 0)",
	}
	slices.Sort(list)
	if !slices.Equal(list, wantLoss) {
		t.Errorf("losses:\n got %q\nwant %q", list, wantLoss)
	}
}
