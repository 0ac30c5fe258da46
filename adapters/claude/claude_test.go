package claude_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/evtool/evtool/adapters/acp"
	_ "github.com/evtool/evtool/adapters/canonical"
	"github.com/evtool/evtool/adapters/claude"
	"github.com/evtool/evtool/adapters/internal/adaptertest"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/dialecttest"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/jsonkeys"
	"github.com/evtool/evtool/internal/testkit/jsoneq"
	"github.com/evtool/evtool/internal/testkit/teststreams"
	"github.com/evtool/evtool/stream"
	"github.com/tidwall/gjson"
)

const capture = "../../../shared/dialects-next/captures/claude/meawoppl_explore_count_files.jsonl"

func streams(t *testing.T) []string {
	return adaptertest.AtLeast(t, teststreams.Valid(claude.Name), 6, "claude test streams")
}

// TestRoundTrip runs every Claude Code test stream (the shared capture and
// the written ones) through canonical text and back: the same bytes, and
// nothing counted as lost.
func TestRoundTrip(t *testing.T) {
	for _, f := range streams(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			_, back, losses := dialecttest.RoundTrip(t, claude.Dialect{}, dialecttest.Lines(string(data))...)
			// Lines come back byte for byte; a line with white space between
			// its tokens comes back compact, as the same JSON value. Every
			// line written ends with a newline, the last one too: so must
			// the stream's.
			in, out := strings.Split(string(data), "\n"), append(back, "")
			if len(in) != len(out) {
				t.Fatalf("%d lines came back for %d", len(out), len(in))
			}
			for i := range in {
				if in[i] != out[i] && (!jsoneq.Equal(in[i], out[i]) || compactLine(in[i]) == in[i]) {
					t.Errorf("line %d differs:\n in: %s\nout: %s", i+1, in[i], out[i])
				}
			}
			if !losses.Empty() {
				t.Errorf("claude → canonical → claude counted losses: %v", losses.List())
			}
		})
	}
}

// TestKeyOrder reads every stream with the keys of every object sorted
// and reversed: the same canonical events (residue aside), and each line
// back as the same JSON value.
func TestKeyOrder(t *testing.T) {
	for _, f := range streams(t) {
		lines := dialecttest.ReadLines(t, f)
		want := sortedKeys(dialecttest.Canonical(t, withoutExt(dialecttest.DecodeStream(t, claude.Dialect{}, lines...))))
		for _, o := range []jsonkeys.Order{jsonkeys.Sorted, jsonkeys.Reversed} {
			var re []string
			for _, l := range lines {
				re = append(re, string(jsonkeys.Reorder([]byte(l), o)))
			}
			_, out, _ := dialecttest.RoundTrip(t, claude.Dialect{}, re...)
			// Tool inputs are kept as the source wrote them: equal up to key order.
			got := sortedKeys(dialecttest.Canonical(t, withoutExt(dialecttest.DecodeStream(t, claude.Dialect{}, re...))))
			if !slices.Equal(got, want) {
				t.Errorf("%s: the canonical events depend on key order", filepath.Base(f))
			}
			if len(out) != len(re) {
				t.Fatalf("%s: %d lines back for %d", filepath.Base(f), len(out), len(re))
			}
			for i := range re {
				if out[i] != re[i] {
					t.Errorf("%s line %d not byte-identical with its keys reordered:\n in: %s\nout: %s", filepath.Base(f), i+1, re[i], out[i])
				}
			}
		}
	}
}

func sortedKeys(ls []string) []string {
	for i, l := range ls {
		ls[i] = string(jsonkeys.Reorder([]byte(l), jsonkeys.Sorted))
	}
	return ls
}

func withoutExt(evs []*event.Event) []*event.Event {
	for _, ev := range evs {
		ev.Ext = nil
	}
	return evs
}

// TestCapture holds the reading of the real 2.1.178 capture to what the
// reference says of it.
func TestCapture(t *testing.T) {
	evs := dialecttest.DecodeStream(t, claude.Dialect{}, dialecttest.ReadLines(t, capture)...)
	count := map[event.Type]int{}
	for _, ev := range evs {
		count[ev.Type()]++
	}
	for typ, n := range map[event.Type]int{
		event.TypeSessionStarted: 1, event.TypeTurnStarted: 1, event.TypeTurnFinished: 1, event.TypeSessionFinished: 1,
		event.TypeRoundFinished: 3, event.TypeToolCall: 2, event.TypeToolStarted: 2, event.TypeToolFinished: 2,
		event.TypeReasoning: 1, event.TypeMessage: 2, event.TypeTaskUpdated: 4, event.TypeUserMessage: 1, event.TypeNotice: 10,
		event.TypeUnknown: 0,
	} {
		if count[typ] != n {
			t.Errorf("%d %s events, want %d", count[typ], typ, n)
		}
	}
	s := evs[0].Body.(*event.SessionStarted)
	if s.SessionID != "4e3453f9-129a-4da9-bc25-a287453d58d9" || s.Model != "claude-sonnet-4-6" || s.Workspace != "/tmp" ||
		s.Agent.Name != "claude-code" || s.Agent.Version != "2.1.178" || s.Source.Dialect != "claude" {
		t.Errorf("session_started: %+v %+v", s, s.Agent)
	}
	var rounds []*event.RoundFinished
	var agents []string
	for _, ev := range evs {
		switch b := ev.Body.(type) {
		case *event.RoundFinished:
			rounds = append(rounds, b)
			agents = append(agents, ev.AgentID)
		case *event.TurnFinished:
			u := b.Usage
			// result.usage (4/576/40618/7281) is Sonnet's, the main
			// thread's; the turn's tokens are every model's, as its cost
			// is: modelUsage adds Haiku's 573/134/7699/7824.
			if b.Status != event.StatusOK || b.StopReason != event.StopEndTurn || *u.InputTokens != 4+573 || *u.OutputTokens != 576+134 ||
				*u.CacheReadTokens != 40618+7699 || *u.CacheCreationTokens != 7281+7824 || u.CostUSD != "0.0763163" {
				t.Errorf("turn_finished: %+v usage %+v", b, u)
			}
		case *event.ToolCall:
			if want := map[string]event.ToolKind{"Agent": event.KindThink, "Bash": event.KindExecute}[b.Name]; b.Kind != want {
				t.Errorf("%s has kind %q, want %q", b.Name, b.Kind, want)
			}
		case *event.UserMessage, *event.ToolFinished:
			if _, ok := b.(*event.UserMessage); ok && ev.AgentID != "toolu_01RmLUJdhjTMn56TnF9cMamW" {
				t.Errorf("the subagent's prompt has agent_id %q", ev.AgentID)
			}
		}
	}
	// The main message msg_01QoWn… spans three lines, each repeating its
	// usage snapshot: one round, counted once.
	if len(rounds) == 3 {
		if u := rounds[1].Usage; *u.InputTokens != 3 || *u.CacheReadTokens != 16945 || *u.CacheCreationTokens != 6728 || *u.OutputTokens != 7 || rounds[1].StopReason != event.StopToolUse {
			t.Errorf("main round: %+v %+v", rounds[1], u)
		}
		if !slices.Equal(agents, []string{"toolu_01RmLUJdhjTMn56TnF9cMamW", "", ""}) {
			t.Errorf("round agents %q", agents)
		}
	}
	last := evs[len(evs)-1].Body.(*event.SessionFinished)
	if last.Status != event.StatusOK || *last.Text != "There are **21** `.rs` files in `/home/meawoppl/repos/rust-code-agent-sdks/claude-codes/src`." {
		t.Errorf("session_finished: %+v", last)
	}
}

// TestStreamsCoverEveryKind checks that the test streams hold every kind
// of line the reference lists, and unknown ones.
func TestStreamsCoverEveryKind(t *testing.T) {
	seen := map[string]bool{}
	adaptertest.EachLine(t, streams(t), func(r gjson.Result) {
		k := r.Get("type").Str
		if k == "system" {
			k += "/" + r.Get("subtype").Str
		}
		seen[k] = true
		for _, b := range r.Get("message.content").Array() {
			seen["block:"+b.Get("type").Str] = true
		}
		if k == "stream_event" {
			seen["event:"+r.Get("event.type").Str+r.Get("event.delta.type").Str] = true
		}
	})
	want := claude.Kinds()
	want = append(want, "system/future_subtype_from_2027", "future_message_type", "block:text", "block:thinking",
		"block:redacted_thinking", "block:tool_use", "block:tool_result", "block:image", "event:content_block_deltatext_delta",
		"event:content_block_deltathinking_delta", "event:message_start", "event:message_stop")
	for _, k := range want {
		if !seen[k] {
			t.Errorf("no test stream has %s", k)
		}
	}
	if n := len(claude.Kinds()); n != 47 {
		t.Errorf("%d known kinds, want 47 (SDK 0.3.333: 40 SDKMessage members, the user replay among them, and 5 StdoutMessage-only kinds; "+
			"autocompact_state, system/post_turn_summary and system/task_summary of the 2.1.28x wire)", n)
	}
}

// TestUnknownPassesThrough reads a line of an unknown type and one of an
// unknown system subtype between known lines: each is an unknown event
// with the whole line, and the stream goes on.
func TestUnknownPassesThrough(t *testing.T) {
	lines := []string{
		`{"type":"system","subtype":"init","cwd":"/w","session_id":"s","tools":[],"mcp_servers":[],"model":"m","permissionMode":"default","apiKeySource":"none","uuid":"u0"}`,
		`{"type":"brand_new","x":{"y":[1,2.50]},"uuid":"u1","session_id":"s"}`,
		`{"type":"system","subtype":"brand_new_too","uuid":"u2","session_id":"s"}`,
		`{"type":"assistant","message":{"model":"m","id":"msg_1","type":"message","role":"assistant","content":[{"type":"text","text":"hi"}],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}},"parent_tool_use_id":null,"session_id":"s","uuid":"u3"}`,
	}
	evs := dialecttest.DecodeStream(t, claude.Dialect{}, lines...)
	var unknown []*event.Unknown
	for _, ev := range evs {
		if u, ok := ev.Body.(*event.Unknown); ok {
			unknown = append(unknown, u)
		}
	}
	if len(unknown) != 2 || unknown[0].SourceType != "brand_new" || unknown[1].SourceType != "system/brand_new_too" ||
		string(unknown[0].Raw) != lines[1] || string(unknown[1].Raw) != lines[2] {
		t.Fatalf("unknown events: %+v", unknown)
	}
	if evs[len(evs)-2].Type() != event.TypeMessage {
		t.Errorf("the stream did not go on after the unknown lines")
	}
}

// TestDecodeErrors reads values canonical cannot hold: an error at the
// value, saying what it got and wants.
func TestDecodeErrors(t *testing.T) {
	for _, tt := range []struct{ line, ptr string }{
		{`{"type":"assistant","message":{"id":"m","usage":{"input_tokens":1.0,"output_tokens":1}},"parent_tool_use_id":null}`, "/message/usage/input_tokens"},
		{`{"type":"assistant","message":{"id":"m","usage":{"input_tokens":1,"output_tokens":1e3}},"parent_tool_use_id":null}`, "/message/usage/output_tokens"},
		{`{"type":"result","subtype":"success","usage":{"input_tokens":18446744073709551616,"output_tokens":0}}`, "/usage/input_tokens"},
		{`{"type":"result","subtype":"success","usage":{"cache_read_input_tokens":-1}}`, "/usage/cache_read_input_tokens"},
		{`{"type":"result","subtype":"success","total_cost_usd":-0.5,"usage":{}}`, "/total_cost_usd"},
		{`{"type":7}`, "/type"},
		{`{"subtype":"init"}`, "/type"},
		{`{"type":"system","subtype":null}`, "/subtype"},
		{`[1,2]`, ""},
	} {
		_, err := claude.Dialect{}.NewDecoder(dialect.DecodeOptions{}).Decode(nil, []byte(tt.line), 1)
		var fe *claude.DecodeError
		if !errors.As(err, &fe) || fe.Pointer != tt.ptr || fe.Msg == "" {
			t.Errorf("%s: got %v, want an error at %q", tt.line, err, tt.ptr)
		}
	}
	// A count at the largest u64 is read exactly.
	evs := dialecttest.DecodeStream(t, claude.Dialect{}, `{"type":"result","subtype":"success","is_error":false,"result":"","usage":{"input_tokens":18446744073709551615,"output_tokens":9007199254740993},"total_cost_usd":0,"session_id":"s","uuid":"u"}`)
	for _, ev := range evs {
		if b, ok := ev.Body.(*event.TurnFinished); ok {
			if *b.Usage.InputTokens != 18446744073709551615 || *b.Usage.OutputTokens != 9007199254740993 {
				t.Errorf("counts changed: %d %d", *b.Usage.InputTokens, *b.Usage.OutputTokens)
			}
		}
	}
}

// TestNonJSONLines feeds a stream with a banner and a glued line (stderr
// merged into stdout) through the one reading of package stream: each bad
// line is a syntax diagnostic, and the stream goes on to its result.
func TestNonJSONLines(t *testing.T) {
	lines := dialecttest.ReadLines(t, capture)
	in := strings.Join(slices.Concat(lines[:3], []string{"Warning: claude is not on PATH", `ERR {"type":"keep_alive"}`}, lines[3:]), "\n") + "\n"
	rd := stream.NewReader(strings.NewReader(in), "x", stream.Options{})
	var bad []int
	var last *event.Event
	for {
		ev, err := rd.Next()
		if err == io.EOF {
			break
		}
		var le *stream.LineError
		if errors.As(err, &le) {
			bad = append(bad, le.Line)
			if le.Diags[0].Rule != stream.RuleSyntax {
				t.Errorf("line %d: %s", le.Line, le.Diags[0].Rule)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		last = ev
	}
	if !slices.Equal(bad, []int{4, 5}) {
		t.Errorf("bad lines %v, want [4 5]", bad)
	}
	if last == nil || last.Type() != event.TypeSessionFinished {
		t.Errorf("the stream did not reach its end: %v", last)
	}
}

// TestHooksBeforeInit holds the lines before system/init back so that
// session_started comes first with init's facts, and writes them back in
// their place.
func TestHooksBeforeInit(t *testing.T) {
	lines := dialecttest.ReadLines(t, "testdata/written_all_types.jsonl")
	evs := dialecttest.DecodeStream(t, claude.Dialect{}, lines...)
	s, ok := evs[0].Body.(*event.SessionStarted)
	if !ok || evs[0].Synthetic || s.Model != "claude-opus-4-7" || s.Workspace != "/home/dev/proj" || len(s.MCPServers) != 2 {
		t.Fatalf("first event: %+v", evs[0])
	}
	if n, ok := evs[1].Body.(*event.Notice); !ok || !strings.Contains(n.Message, "SessionStart") {
		t.Errorf("second event: %+v", evs[1].Body)
	}
	// No init at all: a session_started is synthesised once a turn begins.
	evs = dialecttest.DecodeStream(t, claude.Dialect{}, lines[5:9]...)
	if !evs[0].Synthetic || evs[0].Body.(*event.SessionStarted).SessionID != "7c1e9a52-3b4d-4f6e-8a9b-0c1d2e3f4a5b" {
		t.Errorf("no synthesised session_started: %+v", evs[0])
	}
}

// TestTruncated reads a run killed in its turn: no session_finished.
func TestTruncated(t *testing.T) {
	lines := dialecttest.ReadLines(t, capture)
	evs := dialecttest.DecodeStream(t, claude.Dialect{}, lines[:len(lines)-1]...)
	for _, ev := range evs {
		if ev.Type() == event.TypeSessionFinished || ev.Type() == event.TypeTurnFinished {
			t.Errorf("a killed run has %s", ev.Type())
		}
	}
}

// TestTurnsAndRounds reads the two-turn streaming-input stream: one turn
// per result, each with its prompt, and a round per API message.
func TestTurnsAndRounds(t *testing.T) {
	evs := dialecttest.DecodeStream(t, claude.Dialect{}, dialecttest.ReadLines(t, "testdata/written_streaming_two_turns.jsonl")...)
	var prompts []string
	var ends []*event.TurnFinished
	rounds := 0
	for _, ev := range evs {
		switch b := ev.Body.(type) {
		case *event.TurnStarted:
			prompts = append(prompts, *b.Prompt)
		case *event.TurnFinished:
			ends = append(ends, b)
		case *event.RoundFinished:
			rounds++
		}
	}
	if !slices.Equal(prompts, []string{"What is in README.md?", "Now run the tests."}) {
		t.Errorf("prompts %q", prompts)
	}
	if len(ends) != 2 || ends[0].Status != event.StatusOK || ends[1].Status != event.StatusError ||
		ends[1].StopReason != event.StopMaxTurnRequests || ends[1].Reason != "Reached maximum number of turns (2)" {
		t.Errorf("turn ends: %+v", ends)
	}
	if rounds != 4 {
		t.Errorf("%d rounds, want 4", rounds)
	}
	// The session's usage is the last result's modelUsage, a running
	// total for the process over every model: opus 11/40/2020/30 (turn 1)
	// + sonnet 13/70/6100/80 (turn 2), and total_cost_usd 0.004.
	last := evs[len(evs)-1].Body.(*event.SessionFinished)
	if last.Status != event.StatusError || last.Usage == nil {
		t.Fatalf("session_finished of two turns: %+v", last)
	}
	if u := last.Usage; *u.InputTokens != 11+13 || *u.OutputTokens != 40+70 || *u.CacheReadTokens != 2020+6100 ||
		*u.CacheCreationTokens != 30+80 || u.CostUSD != "0.004" {
		t.Errorf("session usage %d/%d/%d/%d %s, want 24/110/8120/110 0.004", *u.InputTokens, *u.OutputTokens, *u.CacheReadTokens, *u.CacheCreationTokens, u.CostUSD)
	}
	// An interrupted turn is cancelled.
	evs = dialecttest.DecodeStream(t, claude.Dialect{}, dialecttest.ReadLines(t, "testdata/written_interrupted_old_fields.jsonl")...)
	for _, ev := range evs {
		if b, ok := ev.Body.(*event.TurnFinished); ok && (b.Status != event.StatusCancelled || b.StopReason != event.StopCancelled) {
			t.Errorf("aborted_tools: %+v", b)
		}
	}
}

// TestLaterInit reads a second system/init (streaming input may start a
// turn with one) as the model the session now uses, and a run that ends
// at start-up (init and an error result, no turn line) as one failed turn.
func TestLaterInit(t *testing.T) {
	init2 := strings.Replace(rinit, `"model":"m"`, `"model":"m2"`, 1)
	text2 := strings.Replace(text, `"model":"m"`, `"model":"m2"`, 1)
	lines := []string{rinit, text, rres, init2, text2, rres}
	evs := dialecttest.DecodeStream(t, claude.Dialect{}, lines...)
	var models []string
	for _, ev := range evs {
		if b, ok := ev.Body.(*event.ModelConfigured); ok {
			models = append(models, b.Model)
		}
	}
	if !slices.Equal(models, []string{"m2"}) {
		t.Errorf("model_configured %q", models)
	}
	back, _ := dialecttest.Encode(t, claude.Dialect{}, dialect.EncodeOptions{}, dialecttest.Canonical(t, evs)...)
	if back != strings.Join(lines, "\n")+"\n" {
		t.Errorf("not written back:\n%s", back)
	}
	failed := `{"type":"result","subtype":"error_during_execution","is_error":true,"duration_ms":0,"duration_api_ms":0,"num_turns":0,"stop_reason":null,"session_id":"s","total_cost_usd":0,"usage":{"input_tokens":0,"output_tokens":0},"permission_denials":[],"errors":["config file invalid"],"startup_failure_reason":"config_file_invalid","uuid":"u1"}`
	evs = dialecttest.DecodeStream(t, claude.Dialect{}, rinit, failed)
	var types []event.Type
	for _, ev := range evs {
		types = append(types, ev.Type())
	}
	if !slices.Equal(types, []event.Type{"session_started", "turn_started", "turn_finished", "session_finished"}) {
		t.Fatalf("types %v", types)
	}
	if f := evs[3].Body.(*event.SessionFinished); f.Status != event.StatusError || f.Message != "config file invalid" || len(*f.Errors) != 1 {
		t.Errorf("session_finished %+v", f)
	}
	back, _ = dialecttest.Encode(t, claude.Dialect{}, dialect.EncodeOptions{}, dialecttest.Canonical(t, evs)...)
	assertAccepted(t, back)
}

// TestPartialMessages reads --include-partial-messages lines: text and
// thinking deltas become deltas; the other stream events ride along.
func TestPartialMessages(t *testing.T) {
	evs := dialecttest.DecodeStream(t, claude.Dialect{}, dialecttest.ReadLines(t, "testdata/written_all_types.jsonl")...)
	var text strings.Builder
	rides := 0
	for _, ev := range evs {
		if b, ok := ev.Body.(*event.MessageDelta); ok {
			text.WriteString(b.Text)
			if b.MessageID != "msg_01A" {
				t.Errorf("delta of message %q", b.MessageID)
			}
		}
		rides += len(gjson.GetBytes(ev.Ext.Get("claude"), "before").Array())
	}
	if text.String() != "I'll plan first." {
		t.Errorf("deltas %q", text.String())
	}
	if rides != 14 {
		t.Errorf("%d lines ride along, want 14", rides)
	}
}

// TestWriterOutputIsValid writes the hand-made canonical streams (shared
// with basis) as Claude Code: schema, decoder and stream rules accept the
// output, and the losses are counted.
func TestWriterOutputIsValid(t *testing.T) {
	files, _ := filepath.Glob("../basis/testdata/canonical/*.jsonl")
	if len(files) < 8 {
		t.Fatalf("only %d canonical test streams", len(files))
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			out, losses := dialecttest.Encode(t, claude.Dialect{}, dialect.EncodeOptions{}, dialecttest.ReadLines(t, f)...)
			assertAccepted(t, out)
			if losses.Empty() {
				t.Error("nothing counted")
			}
		})
	}
}

// assertAccepted requires Claude Code output to pass dialecttest.Accepted
// (schema, decoder, stream rules) and the reading of evtool validate,
// whose rules Accepted does not apply (duplicate keys, depth, line
// length).
func assertAccepted(t *testing.T, out string) {
	t.Helper()
	dialecttest.Accepted(t, claude.Dialect{}, out)
	rd := stream.NewReader(strings.NewReader(out), "out", stream.Options{Dialect: claude.Dialect{}})
	for {
		l, err := rd.ReadLine()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, dg := range l.Diags {
			t.Errorf("line %d: %s\n%s", l.N, dg.String(), l.Raw)
		}
	}
}

// checkCounts requires each loss kind of want to be counted as often as it
// says (0: not at all), and returns the counts of every kind by id.
func checkCounts(t *testing.T, losses *dialect.Losses, want map[string]int) map[string]int {
	t.Helper()
	text := ""
	counts := map[string]int{}
	for _, l := range losses.List() {
		text += l.String() + " [" + l.ID + "]\n"
		counts[l.ID] += l.Count
	}
	for id, n := range want {
		if counts[id] != n {
			t.Errorf("%s counted %d times, want %d:\n%s", id, counts[id], n, text)
		}
	}
	return counts
}

// TestWriterShapes writes a small run from canonical events and checks the
// Claude Code lines: init first, one assistant line per block with one
// message id, the tool result, and the turn's result with its usage.
func TestWriterShapes(t *testing.T) {
	out, losses := dialecttest.Encode(t, claude.Dialect{}, dialect.EncodeOptions{},
		`{"seq":0,"type":"session_started","schema":1,"source":{"dialect":"basis"},"session_id":"s1","model":"m1","workspace":"/w"}`,
		`{"seq":1,"type":"turn_started","turn_id":"t1","prompt":"go"}`,
		`{"seq":2,"type":"user_message","turn_id":"t1","text":"go"}`,
		`{"seq":3,"type":"message_delta","turn_id":"t1","text":"Let me "}`,
		`{"seq":4,"type":"message_delta","turn_id":"t1","text":"look."}`,
		`{"seq":5,"type":"tool_call","turn_id":"t1","call_id":"c1","name":"shell","input":"ls"}`,
		`{"seq":6,"type":"tool_started","turn_id":"t1","call_id":"c1"}`,
		`{"seq":7,"type":"tool_finished","turn_id":"t1","call_id":"c1","status":"error","output":"no such file","exit_code":2}`,
		`{"seq":8,"type":"usage","turn_id":"t1","input_tokens":5,"output_tokens":7}`,
		`{"seq":9,"type":"turn_finished","turn_id":"t1","status":"ok","stop_reason":"end_turn","text":"done"}`,
		`{"seq":10,"type":"session_finished","status":"ok"}`,
	)
	lines := dialecttest.Lines(out)
	kinds := []string{}
	for _, l := range lines {
		r := gjson.Parse(l)
		kinds = append(kinds, r.Get("type").Str+"/"+r.Get("subtype").Str)
	}
	if want := []string{"system/init", "user/", "assistant/", "assistant/", "user/", "result/success"}; !slices.Equal(kinds, want) {
		t.Fatalf("lines %v, want %v\n%s", kinds, want, out)
	}
	if a, b := gjson.Get(lines[2], "message.id").Str, gjson.Get(lines[3], "message.id").Str; a == "" || a != b {
		t.Errorf("one API message has ids %q and %q", a, b)
	}
	for _, c := range []struct {
		line       int
		path, want string
	}{
		{0, "session_id", "s1"}, {0, "cwd", "/w"}, {0, "model", "m1"},
		{2, "message.content.0.text", "Let me look."}, {3, "message.content.0.input", `{"input":"ls"}`},
		{4, "message.content.0.is_error", "true"}, {4, "message.content.0.content", "no such file"},
		{5, "result", "done"}, {5, "usage.input_tokens", "5"}, {5, "usage.output_tokens", "7"}, {5, "session_id", "s1"},
	} {
		v := gjson.Get(lines[c.line], c.path)
		got := v.String()
		if v.IsObject() {
			got = v.Raw
		}
		if got != c.want {
			t.Errorf("line %d %s = %q, want %q", c.line+1, c.path, got, c.want)
		}
	}
	assertAccepted(t, out)
	checkCounts(t, losses, map[string]int{"claude/tool-input-not-object": 1, "claude/tool-result-details": 1, "claude/turn-usage": 1,
		"claude/usage-event": 1, "claude/uuid": 6, "claude/turn-started": 1, "claude/turn-prompt": 0})
}

// TestACPKinds projects the capture onto ACP: each tool call carries the
// kind of its Claude Code tool, and the turn's usage reaches the prompt
// response (unstable profile), counted once.
func TestACPKinds(t *testing.T) {
	out := toACP(t, capture, &acp.Config{Profile: acp.Unstable, Transcript: true})
	kinds := map[string]string{}
	var usage gjson.Result
	for _, l := range dialecttest.Lines(out) {
		r := gjson.Parse(l)
		if r.Get("params.update.sessionUpdate").Str == "tool_call" {
			kinds[r.Get("params.update.toolCallId").Str] = r.Get("params.update.kind").Str
		}
		if u := r.Get("result.usage"); u.Exists() {
			usage = u
		}
	}
	if kinds["toolu_01RmLUJdhjTMn56TnF9cMamW"] != "think" || kinds["toolu_01JuvmJubaYKvhVscQTbaJV6"] != "execute" {
		t.Errorf("ACP kinds %v", kinds)
	}
	// The turn's usage over every model (the Haiku subagent's too).
	if usage.Get("inputTokens").Int() != 577 || usage.Get("outputTokens").Int() != 710 || usage.Get("cachedReadTokens").Int() != 48317 {
		t.Errorf("ACP usage %s", usage.Raw)
	}
}

// compactLine drops the white space between a line's tokens.
func compactLine(l string) string {
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(l)); err != nil {
		return l
	}
	return b.String()
}
