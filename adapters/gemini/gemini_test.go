package gemini_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/evtool/evtool/adapters/gemini"
	"github.com/evtool/evtool/adapters/internal/adaptertest"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/dialecttest"
	"github.com/evtool/evtool/event"
	"github.com/tidwall/gjson"
)

// header is an init line for tests of single lines.
const header = `{"type":"init","timestamp":"2026-10-01T09:00:00.000Z","session_id":"s","model":"gemini-3.5-flash"}`

// referenceLines returns the example lines of the Gemini wire reference
// (constructed from the types there, like ours).
func referenceLines(t *testing.T) []string {
	return adaptertest.ReferenceLines(t, "../../../shared/dialects-next/gemini.md", `{"type":`, 9, nil)
}

// streamFiles returns the written test streams of this folder.
func streamFiles(t *testing.T) []string {
	return adaptertest.Glob(t, "testdata/*.jsonl", 10, "gemini test streams")
}

func decode(t *testing.T, lines ...string) []*event.Event {
	t.Helper()
	return dialecttest.DecodeStream(t, gemini.Dialect{}, lines...)
}

// roundTrip decodes gemini lines, writes canonical text, reads it back and
// encodes gemini again; nothing may be lost on the way.
func roundTrip(t *testing.T, lines []string) []string {
	t.Helper()
	_, back, losses := dialecttest.RoundTrip(t, gemini.Dialect{}, lines...)
	for _, l := range losses.List() {
		t.Errorf("gemini → canonical → gemini lost something: %s", l)
	}
	return back
}

// TestRoundTrip: every example line of the reference (and, in the kit,
// every written stream) comes back byte for byte (they are compact and in the
// producer's key order).
func TestRoundTrip(t *testing.T) {
	adaptertest.SameBack(t, referenceLines(t), header, `"type":"init"`, func(lines []string) []string { return roundTrip(t, lines) })
	// The written streams: the kit's round trip, byte for byte (ByteExact).
}

// TestStreamsCoverEveryTypeAndField: the written streams hold every type,
// every field of every type (optional ones included), every enum value,
// and the shapes of the older versions.
func TestStreamsCoverEveryTypeAndField(t *testing.T) {
	seen := map[string]bool{}
	adaptertest.EachLine(t, streamFiles(t), func(r gjson.Result) {
		typ := r.Get("type").Str
		r.ForEach(func(k, v gjson.Result) bool {
			seen[typ+"."+k.Str] = true
			if v.Type == gjson.String && (k.Str == "role" || k.Str == "status" || k.Str == "severity") {
				seen[typ+"."+k.Str+"="+v.Str] = true
			}
			return true
		})
		if s := r.Get("stats"); s.Exists() {
			s.ForEach(func(k, _ gjson.Result) bool { seen["stats."+k.Str] = true; return true })
			switch {
			case !s.Get("cached").Exists():
				seen["stats shape 0.11"] = true
			case !s.Get("models").Exists():
				seen["stats shape 0.22"] = true
			case s.Get("models.@this").IsObject() && len(s.Get("models").Map()) > 1:
				seen["stats with several models"] = true
			case len(s.Get("models").Map()) == 0:
				seen["stats with no model"] = true
			}
		}
		if r.Get("delta").Exists() {
			seen["message.delta="+r.Get("delta").Raw] = true
		}
	})
	want := []string{"stats shape 0.11", "stats shape 0.22", "stats with several models", "stats with no model",
		"message.delta=true", "message.delta=false", "message.role=user", "message.role=assistant",
		"tool_result.status=success", "tool_result.status=error", "error.severity=warning", "error.severity=error",
		"result.status=success", "result.status=error", "thought.type"}
	for _, typ := range gemini.Types() {
		want = append(want, typ+".type")
		for _, k := range gemini.Fields(typ) {
			want = append(want, typ+"."+k)
		}
	}
	for _, k := range []string{"total_tokens", "input_tokens", "output_tokens", "cached", "input", "duration_ms", "tool_calls", "models"} {
		want = append(want, "stats."+k)
	}
	for _, w := range want {
		if !seen[w] {
			t.Errorf("no written stream has %s", w)
		}
	}
}

// TestTurnsAndRounds reads the shell tool stream: one turn, begun by the
// user's message and ended by result; a round that ends to call a tool and
// the last one; each run of deltas assembled into a message next to it.
func TestTurnsAndRounds(t *testing.T) {
	evs := decode(t, dialecttest.ReadLines(t, "testdata/written_shell_tool.jsonl")...)
	var got []string
	for _, ev := range evs {
		s := string(ev.Type())
		if ev.Synthetic {
			s += "*"
		}
		if r, ok := ev.Body.(*event.RoundFinished); ok {
			s += ":" + string(r.StopReason)
		}
		got = append(got, s)
		if ev.Type() != event.TypeSessionStarted && ev.Type() != event.TypeSessionFinished && ev.TurnID != "turn-1" {
			t.Errorf("%s has turn %q, want turn-1", ev.Type(), ev.TurnID)
		}
		if ev.Time == "" {
			t.Errorf("%s has no time", ev.Type())
		}
	}
	want := []string{"session_started", "turn_started*", "user_message", "message_delta", "message*", "tool_call", "tool_started*",
		"round_finished*:tool_use", "tool_finished", "message_delta", "message_delta", "message*", "round_finished*:end_turn",
		"turn_finished", "session_finished"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("events\n got %v\nwant %v", got, want)
	}
	if p := evs[1].Body.(*event.TurnStarted).Prompt; p == nil || *p != "List the files in this directory" {
		t.Errorf("turn prompt %v", p)
	}
	if m := evs[11].Body.(*event.Message); m.Text != "There are two entries: `README.md` and `src/`." {
		t.Errorf("assembled message %q", m.Text)
	}
	if c := evs[5].Body.(*event.ToolCall); c.Kind != event.KindExecute || string(c.Input) != `{"command":"ls","description":"List files in the current directory"}` {
		t.Errorf("tool call %+v", c)
	}
	end := evs[14].Body.(*event.SessionFinished)
	if end.Text == nil || *end.Text != "There are two entries: `README.md` and `src/`." {
		t.Errorf("the final answer is the text after the last tool result, got %v", end.Text)
	}
	if evs[0].Time != "2026-10-01T09:10:00.000000Z" {
		t.Errorf("time %q", evs[0].Time)
	}
}

// TestUsageMapping: stats covers the whole process; canonical counts are
// disjoint, so input_tokens − cached goes to input_tokens and cached to
// cache_read_tokens; input is derived and not kept; duration_ms,
// tool_calls and models stay in the residue.
func TestUsageMapping(t *testing.T) {
	evs := decode(t, dialecttest.ReadLines(t, "testdata/written_plain_answer.jsonl")...)
	end := evs[len(evs)-1]
	u := end.Body.(*event.SessionFinished).Usage
	// stats: input_tokens 9690 (790 + 8900), cached 4096, so 9690 − 4096.
	if u == nil || *u.InputTokens != 5594 || *u.CacheReadTokens != 4096 || *u.OutputTokens != 66 || *u.TotalTokens != 9932 ||
		u.ReasoningTokens != nil || u.ThoughtsTokens != nil || u.CacheCreationTokens != nil || u.CostUSD != "" {
		t.Fatalf("usage %+v", u)
	}
	tf := evs[len(evs)-2].Body.(*event.TurnFinished)
	if tf.Usage == nil || *tf.Usage.TotalTokens != 9932 || *tf.Usage.InputTokens != 5594 || tf.Status != event.StatusOK || tf.StopReason != event.StopEndTurn {
		t.Errorf("turn_finished %+v", tf)
	}
	res := gjson.ParseBytes(end.Ext.Get("gemini"))
	if res.Get("stats.input").Exists() || res.Get("stats.input_tokens").Exists() || res.Get("stats.duration_ms").Raw != "2484" || res.Get("stats.tool_calls").Raw != "0" ||
		res.Get(`stats.models.gemini-3\.5-flash.cached`).Raw != "4096" {
		t.Errorf("residue %s", res.Raw)
	}
	for _, ev := range evs {
		if ev.Type() == event.TypeUsage {
			t.Error("a run total is no round's usage event")
		}
	}
	// An input that is not input_tokens − cached is kept as written.
	evs = decode(t, header, `{"type":"result","timestamp":"2026-10-01T09:00:01.000Z","status":"success","stats":{"total_tokens":10,"input_tokens":8,"output_tokens":2,"cached":3,"input":7,"duration_ms":1,"tool_calls":0}}`)
	if got := gjson.GetBytes(evs[len(evs)-1].Ext.Get("gemini"), "stats.input").Raw; got != "7" {
		t.Errorf("an inconsistent input is kept: %q", got)
	}
}

// TestOutcomes: how each result ends the turn and the run.
func TestOutcomes(t *testing.T) {
	tests := []struct {
		file    string
		status  event.Status
		stop    event.StopReason
		message string
	}{
		{"written_plain_answer.jsonl", event.StatusOK, event.StopEndTurn, ""},
		{"written_quota_error.jsonl", event.StatusError, "", "Quota exceeded for quota metric 'Gemini 3.5 Pro Requests' and limit 'requests per day'"},
		{"written_invalid_model_stream.jsonl", event.StatusError, "", ""},
		{"written_cancelled.jsonl", event.StatusCancelled, event.StopCancelled, "Operation cancelled."},
		{"written_turn_limit.jsonl", event.StatusError, event.StopMaxTurnRequests, "Reached max session turns for this session. Increase the number of turns by specifying maxSessionTurns in settings.json."},
	}
	for _, tt := range tests {
		evs := decode(t, dialecttest.ReadLines(t, "testdata/"+tt.file)...)
		end := evs[len(evs)-1].Body.(*event.SessionFinished)
		turn := evs[len(evs)-2].Body.(*event.TurnFinished)
		if end.Status != tt.status || end.Message != tt.message || turn.Status != tt.status || turn.StopReason != tt.stop {
			t.Errorf("%s: session %q %q, turn %q %q", tt.file, end.Status, end.Message, turn.Status, turn.StopReason)
		}
	}
}

// TestErrorLinesAndToolResults: error lines are non-fatal notices or
// errors; tool results keep output and error apart, and the error's type
// rides in the residue.
func TestErrorLinesAndToolResults(t *testing.T) {
	evs := decode(t, dialecttest.ReadLines(t, "testdata/written_tool_errors.jsonl")...)
	var finished []*event.ToolFinished
	var notices []*event.Notice
	for _, ev := range evs {
		switch b := ev.Body.(type) {
		case *event.ToolFinished:
			finished = append(finished, b)
			if b.CallID == "read_file__4a5b6c7d" && gjson.GetBytes(ev.Ext.Get("gemini"), "error.type").Str != "file_not_found" {
				t.Errorf("the error type is not kept: %s", ev.Ext.Get("gemini"))
			}
		case *event.Notice:
			notices = append(notices, b)
		}
	}
	if len(finished) != 5 {
		t.Fatalf("%d tool_finished", len(finished))
	}
	if f := finished[0]; f.Status != event.ToolError || f.Error != "File not found: /work/notes.txt" || f.Output != nil {
		t.Errorf("not found: %+v", f)
	}
	if f := finished[1]; f.Status != event.ToolSuccess || f.Output != nil || f.Error != "" {
		t.Errorf("edit without a string display: %+v", f)
	}
	if f := finished[2]; f.Status != event.ToolError || f.Output == nil || *f.Output != "FAIL: TestParse (0.00s)\nexit status 2" || f.Error != "Command exited with code 2" {
		t.Errorf("shell error with output: %+v", f)
	}
	if len(notices) != 1 || notices[0].Severity != event.SeverityWarning || notices[0].Message != "Loop detected, stopping execution" {
		t.Errorf("notices %+v", notices)
	}
	evs = decode(t, dialecttest.ReadLines(t, "testdata/written_invalid_model_stream.jsonl")...)
	n := 0
	for _, ev := range evs {
		if e, ok := ev.Body.(*event.Error); ok {
			n++
			if e.Recoverable != nil {
				t.Error("an error line's recoverability is not stated")
			}
		}
	}
	if n != 1 {
		t.Errorf("%d error events, want 1", n)
	}
}

// TestToolKinds: the built-in tools of 0.61 get their ACP kinds.
func TestToolKinds(t *testing.T) {
	want := map[string]event.ToolKind{
		"run_shell_command": event.KindExecute, "read_file": event.KindRead, "read_many_files": event.KindRead,
		"list_directory": event.KindRead, "write_file": event.KindEdit, "replace": event.KindEdit,
		"glob": event.KindSearch, "grep_search": event.KindSearch, "google_web_search": event.KindSearch,
		"web_fetch": event.KindFetch, "write_todos": event.KindThink, "tracker_create_task": event.KindThink,
		"enter_plan_mode": event.KindSwitchMode, "exit_plan_mode": event.KindSwitchMode,
		"ask_user": event.KindOther, "invoke_agent": event.KindOther, "activate_skill": event.KindOther,
		"update_topic": event.KindOther, "github__create_release": event.KindOther,
	}
	for name, kind := range want {
		l := `{"type":"tool_use","timestamp":"2026-10-01T09:00:01.000Z","tool_name":"` + name + `","tool_id":"x","parameters":{}}`
		evs := decode(t, header, l)
		for _, ev := range evs {
			if c, ok := ev.Body.(*event.ToolCall); ok && c.Kind != kind {
				t.Errorf("%s: kind %q, want %q", name, c.Kind, kind)
			}
		}
	}
}

// TestUnknownsAreKept: unknown types become unknown events with the whole
// line; unknown fields ride in ext.gemini.
func TestUnknownsAreKept(t *testing.T) {
	lines := dialecttest.ReadLines(t, "testdata/written_unknown_types_and_fields.jsonl")
	evs := decode(t, lines...)
	var unknown []*event.Unknown
	for _, ev := range evs {
		if u, ok := ev.Body.(*event.Unknown); ok {
			unknown = append(unknown, u)
		}
		if s, ok := ev.Body.(*event.SessionStarted); ok && gjson.GetBytes(ev.Ext.Get("gemini"), "approval_mode").Str != "yolo" {
			t.Errorf("unknown init field lost: %+v %s", s, ev.Ext.Get("gemini"))
		}
	}
	if len(unknown) != 2 || unknown[0].SourceType != "thought" || string(unknown[0].Raw) != lines[2] || unknown[1].SourceType != "checkpoint" {
		t.Fatalf("unknown events %+v", unknown)
	}
}

// TestTimestamps: the producer's millisecond times become canonical
// microsecond times; a timestamp in another form is kept as written.
func TestTimestamps(t *testing.T) {
	evs := decode(t, dialecttest.ReadLines(t, "testdata/written_strings_and_numbers.jsonl")...)
	for _, ev := range evs {
		switch b := ev.Body.(type) {
		case *event.UserMessage:
			if ev.Time != "2026-10-08T22:00:00.000000Z" || gjson.GetBytes(ev.Ext.Get("gemini"), "timestamp").Str != "2026-10-08T22:00:00Z" {
				t.Errorf("user message time %q ext %s", ev.Time, ev.Ext.Get("gemini"))
			}
		case *event.Notice:
			if ev.Time != "2026-10-08T22:00:01.021000Z" || b.Severity != event.SeverityWarning {
				t.Errorf("notice time %q", ev.Time)
			}
		}
	}
}

// TestDecodeErrors: a known field whose value the types do not allow is
// refused at its pointer, with nothing emitted.
func TestDecodeErrors(t *testing.T) {
	tests := []struct{ line, ptr string }{
		{`{"type":"message","timestamp":"2026-10-01T09:00:01.000Z","role":"system","content":"x"}`, "/role"},
		{`{"type":"message","timestamp":"2026-10-01T09:00:01.000Z","role":"assistant","content":5,"delta":true}`, "/content"},
		{`{"type":"message","timestamp":"2026-10-01T09:00:01.000Z","role":"assistant","content":"x","delta":"yes"}`, "/delta"},
		{`{"type":"tool_use","timestamp":"2026-10-01T09:00:01.000Z","tool_name":"x","tool_id":"y","parameters":[1]}`, "/parameters"},
		{`{"type":"tool_result","timestamp":"2026-10-01T09:00:01.000Z","tool_id":"y","status":"error","error":"boom"}`, "/error"},
		{`{"type":"tool_result","timestamp":"2026-10-01T09:00:01.000Z","tool_id":"y","status":"error","error":{"type":1,"message":"m"}}`, "/error/type"},
		{`{"type":"result","timestamp":"2026-10-01T09:00:01.000Z","status":"success","stats":{"total_tokens":1.0}}`, "/stats/total_tokens"},
		{`{"type":"result","timestamp":"2026-10-01T09:00:01.000Z","status":"success","stats":{"tool_calls":-1}}`, "/stats/tool_calls"},
		{`{"type":"result","timestamp":"2026-10-01T09:00:01.000Z","status":"success","stats":{"models":{"m/x":{"cached":1e3}}}}`, "/stats/models/m~1x/cached"},
		{`{"type":"result","timestamp":"2026-10-01T09:00:01.000Z","status":"success","stats":{"input":18446744073709551616}}`, "/stats/input"},
		{`{"type":"init","timestamp":5,"session_id":"s","model":"m"}`, "/timestamp"},
		{`{"timestamp":"2026-10-01T09:00:01.000Z"}`, "/type"},
		{`["not an object"]`, ""},
	}
	for _, tt := range tests {
		dec := gemini.Dialect{}.NewDecoder(dialect.DecodeOptions{})
		if _, err := dec.Decode(nil, []byte(header), 1); err != nil {
			t.Fatal(err)
		}
		evs, err := dec.Decode(nil, []byte(tt.line), 2)
		fe, ok := err.(*gemini.DecodeError)
		if !ok || fe.Pointer != tt.ptr {
			t.Errorf("%s: got %v, want an error at %q", tt.line, err, tt.ptr)
		}
		if len(evs) != 0 {
			t.Errorf("%s: a refused line emitted %d events", tt.line, len(evs))
		}
	}
}

// TestProvenance: events from a line name it; synthesised ones do not.
func TestProvenance(t *testing.T) {
	dec := gemini.Dialect{}.NewDecoder(dialect.DecodeOptions{Provenance: true})
	var evs []*event.Event
	for i, l := range dialecttest.ReadLines(t, "testdata/written_shell_tool.jsonl") {
		var err error
		if evs, err = dec.Decode(evs, []byte(l), i+1); err != nil {
			t.Fatal(err)
		}
	}
	for _, ev := range evs {
		if ev.Synthetic != (ev.Src == nil) {
			t.Errorf("%s synthetic %v src %+v", ev.Type(), ev.Synthetic, ev.Src)
		}
	}
	if evs[len(evs)-1].Src.Line != 8 || evs[len(evs)-1].Src.Type != "result" {
		t.Errorf("src %+v", evs[len(evs)-1].Src)
	}
}

// TestDescription names the producer, the command and the versions.
func TestDescription(t *testing.T) {
	d := gemini.Dialect{}.Description()
	for _, w := range []string{"Gemini CLI", "--output-format stream-json", "0.61", "no real capture"} {
		if !strings.Contains(d, w) {
			t.Errorf("description %q lacks %q", d, w)
		}
	}
}
