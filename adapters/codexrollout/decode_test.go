package codexrollout_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evtool/evtool/adapters/codexrollout"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/dialecttest"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/validate"
)

func TestSniff(t *testing.T) {
	d := codexrollout.Dialect{}
	yes := []string{
		header,
		`{"timestamp":"2026-01-01T00:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[]}}`, // a stream cut at its head
		`{"id":"3f2b6c1e-8d4a-4b7e-9c2d-1a5e6f7b8c9d","timestamp":"2025-07-21T09:14:05.512Z","instructions":null,"git":{"branch":"main"}}`,
		`{"id":"0199441a","timestamp":"2025-09-13T01:00:00.000Z","cwd":"/srv","originator":"codex_cli_rs","cli_version":"0.34.0"}`,
	}
	no := []string{
		`{"type":"thread.started","thread_id":"0199a213-81c0-7800-8aa1-bbab2a035a53"}`, // codex exec
		`{"record_type":"state"}`, // not a first line
		`{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}`,              // a bare item
		`{"id":"x","timestamp":"2025-07-21T09:14:05.512Z"}`,                                           // nothing only a rollout header has
		`{"timestamp":"2026-01-01T00:00:00.000Z","type":"future_record","payload":{}}`,                // no rollout type
		`{"timestamp":"2026-01-01T00:00:00.000Z","type":"session_meta","payload":"x"}`,                // no payload object
		`{"seq":0,"type":"session_started","schema":1,"source":{"dialect":"canonical"}}`,              // canonical
		`{"type":"user","uuid":"u1","sessionId":"s","timestamp":"2026-01-01T00:00:00Z","message":{}}`, // a Claude Code transcript
		`{"sessionId":"s","projectHash":"h","startTime":"2026-01-01T00:00:00Z","kind":"main"}`,        // a Gemini CLI chat
		`{"type":"session_meta","payload":{"id":"x"}}`,                                                // no timestamp
		`[1,2]`,
	}
	for _, l := range yes {
		if !d.Sniff([]byte(l)) {
			t.Errorf("refuses %s", l)
		}
	}
	for _, l := range no {
		if d.Sniff([]byte(l)) {
			t.Errorf("takes %s", l)
		}
	}
}

func TestReadOnly(t *testing.T) {
	d := codexrollout.Dialect{}
	if dialect.Writable(d) {
		t.Fatal("codex-rollout is writable")
	}
	var buf bytes.Buffer
	enc := d.NewEncoder(bufio.NewWriter(&buf), dialect.EncodeOptions{Losses: &dialect.Losses{}})
	err := enc.Encode(&event.Event{Body: &event.SessionStarted{Schema: 1, Source: event.SourceInfo{Dialect: "canonical"}}})
	if !errors.Is(err, dialect.ErrReadOnly) || buf.Len() != 0 {
		t.Errorf("Encode: %v, wrote %q", err, buf.String())
	}
}

// lines builds a stream after the header, each line an event_msg payload
// or a whole line.
func stream(lines ...string) []string {
	out := []string{header}
	for _, l := range lines {
		if strings.HasPrefix(l, `{"timestamp"`) || strings.HasPrefix(l, `{"record_type"`) {
			out = append(out, l)
		} else {
			out = append(out, `{"timestamp":"2026-01-01T00:00:01.000Z","type":"event_msg","payload":`+l+`}`)
		}
	}
	return out
}

func TestTurnCompleteWithError(t *testing.T) {
	evs := dialecttest.DecodeStream(t, codexrollout.Dialect{}, stream(
		`{"type":"task_started","turn_id":"t1"}`,
		`{"type":"task_complete","turn_id":"t1","last_agent_message":null,"error":{"message":"stream disconnected","codex_error_info":"other"}}`,
	)...)
	f, ok := evs[2].Body.(*event.TurnFinished)
	if !ok || f.Status != event.StatusError || f.Reason != "stream disconnected" || evs[2].TurnID != "t1" {
		t.Fatalf("got %T %+v", evs[2].Body, evs[2].Body)
	}
}

// TestTurnEndedByNextStart: a turn task_started opened and nothing ended
// (the process died) ends at the next task_started.
func TestTurnEndedByNextStart(t *testing.T) {
	evs := dialecttest.DecodeStream(t, codexrollout.Dialect{}, stream(
		`{"type":"task_started","turn_id":"t1"}`,
		`{"type":"task_started","turn_id":"t2"}`,
	)...)
	var types []string
	for _, ev := range evs {
		types = append(types, string(ev.Type())+"/"+ev.TurnID)
	}
	want := "session_started/ turn_started/t1 turn_finished/t1 turn_started/t2"
	if got := strings.Join(types, " "); got != want {
		t.Errorf("got  %s\nwant %s (and no session_finished: the stream ends inside t2)", got, want)
	}
}

func TestProvenance(t *testing.T) {
	dec := codexrollout.Dialect{}.NewDecoder(dialect.DecodeOptions{Provenance: true})
	var evs []*event.Event
	for i, l := range stream(`{"type":"user_message","message":"hi"}`) {
		var err error
		if evs, err = dec.Decode(evs, []byte(l), i+1); err != nil {
			t.Fatal(err)
		}
	}
	evs = dec.End(evs)
	if evs[0].Src == nil || evs[0].Src.Line != 1 || evs[0].Src.Type != "session_meta" {
		t.Errorf("session_started src %+v", evs[0].Src)
	}
	if evs[1].Src != nil || !evs[1].Synthetic {
		t.Errorf("the synthetic turn_started has src %+v", evs[1].Src)
	}
	if evs[2].Src == nil || evs[2].Src.Line != 2 || evs[2].Src.Type != "event_msg/user_message" {
		t.Errorf("user_message src %+v", evs[2].Src)
	}
}

// TestDecodeErrors: a line with a known field the producer's types refuse
// is kept whole, marked, and its error points at the field.
func TestDecodeErrors(t *testing.T) {
	dec := codexrollout.Dialect{}.NewDecoder(dialect.DecodeOptions{})
	if _, err := dec.Decode(nil, []byte(header), 1); err != nil {
		t.Fatal(err)
	}
	evs, err := dec.Decode(nil, []byte(`{"timestamp":"2026-01-01T00:00:01.000Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":1.0,"cached_input_tokens":0,"output_tokens":1,"reasoning_output_tokens":0,"total_tokens":2},"last_token_usage":{"input_tokens":1,"cached_input_tokens":0,"output_tokens":1,"reasoning_output_tokens":0,"total_tokens":2}}}}`), 2)
	var fe *codexrollout.FieldError
	if !errors.As(err, &fe) || fe.Pointer != "/payload/info/total_token_usage/input_tokens" || !strings.HasPrefix(fe.Msg, "got 1.0, want") {
		t.Fatalf("error %v", err)
	}
	u, ok := evs[0].Body.(*event.Unknown)
	if len(evs) != 1 || !ok || string(evs[0].Ext.Get(codexrollout.Name)) != `{"@kept":"unreadable"}` || u.SourceType != "event_msg/token_count" {
		t.Fatalf("events %v", evs)
	}
	if _, err := dec.Decode(nil, []byte(`[1]`), 3); err == nil {
		t.Error("an array line is read")
	}
	// The first line unreadable: the stream still begins.
	dec = codexrollout.Dialect{}.NewDecoder(dialect.DecodeOptions{})
	evs, err = dec.Decode(nil, []byte(`{"timestamp":"2026-01-01T00:00:00.000Z","type":"session_meta","payload":{"id":7}}`), 1)
	if err == nil || len(evs) != 2 || !evs[0].Synthetic || evs[0].Type() != event.TypeSessionStarted || evs[1].Type() != event.TypeUnknown {
		t.Fatalf("%v %v", evs, err)
	}
}

// TestTimeKept: a timestamp finer than the canonical microsecond stays in
// the residue.
func TestTimeKept(t *testing.T) {
	evs := dialecttest.DecodeStream(t, codexrollout.Dialect{}, stream(
		`{"timestamp":"2026-01-01T00:00:01.123456789Z","type":"event_msg","payload":{"type":"agent_message","message":"hi"}}`,
	)...)
	if evs[1].Time != "2026-01-01T00:00:01.123456Z" || string(evs[1].Ext.Get(codexrollout.Name)) != `{"timestamp":"2026-01-01T00:00:01.123456789Z"}` {
		t.Errorf("time %q ext %s", evs[1].Time, evs[1].Ext.Get(codexrollout.Name))
	}
}

// TestHeldTurnContextAtEnd: a copied turn_context held back at the end of
// the stream is kept as copied.
func TestHeldTurnContextAtEnd(t *testing.T) {
	fork := `{"timestamp":"2026-05-10T10:00:00.010Z","type":"session_meta","payload":{"id":"child","forked_from_id":"parent","timestamp":"2026-05-10T10:00:00.000Z","cwd":"/w","originator":"codex_cli_rs","cli_version":"0.140.0"}}`
	parent := `{"timestamp":"2026-05-10T10:00:00.011Z","type":"session_meta","payload":{"id":"parent","timestamp":"2026-05-09T08:00:00.000Z","cwd":"/w","originator":"codex_cli_rs","cli_version":"0.139.0"}}`
	tc := `{"timestamp":"2026-05-10T10:00:00.012Z","type":"turn_context","payload":{"cwd":"/w","approval_policy":"never","sandbox_policy":{"type":"read-only"},"model":"gpt-5.3","summary":"auto"}}`
	evs := dialecttest.DecodeStream(t, codexrollout.Dialect{}, fork, parent, tc)
	if len(evs) != 5 || evs[2].Type() != event.TypeUnknown || string(evs[2].Ext.Get(codexrollout.Name)) != `{"@kept":"replayed"}` {
		t.Fatalf("%d events, the third %s", len(evs), dialecttest.Canonical(t, evs))
	}
}

// TestCanonicalOutput: every golden is a canonical stream canonical's own
// rules accept: each call announced before it ends and ended once, turns
// ended once, session_finished last.
func TestCanonicalOutput(t *testing.T) {
	c, err := dialect.Lookup("canonical")
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "golden", "*.canonical.jsonl"))
	if len(files) == 0 {
		t.Fatal("no goldens")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := validate.Stream(bytes.NewReader(data), f, validate.Options{Dialect: c}, func(d validate.Diagnostic) {
			t.Errorf("%s line %d: %s %s: %s", filepath.Base(f), d.Line, d.Rule, d.Pointer, d.Message)
		}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestWebSearchWithoutID: builds whose web_search_call item has no id
// (serde skips it) write the search's call_id only on its web_search_end;
// the item and the end event are one search, paired in their order,
// whichever comes first, and several searches pair one to one.
func TestWebSearchWithoutID(t *testing.T) {
	item := `{"timestamp":"2026-05-01T08:00:03.000Z","type":"response_item","payload":{"type":"web_search_call","status":"completed","action":{"type":"search","query":"q"}}}`
	end := func(id string) string {
		return `{"timestamp":"2026-05-01T08:00:03.001Z","type":"event_msg","payload":{"type":"web_search_end","call_id":"` + id + `","query":"q","action":{"type":"search","query":"q"}}}`
	}
	start := `{"timestamp":"2026-05-01T08:00:01.000Z","type":"event_msg","payload":{"type":"task_started","turn_id":"w1"}}`
	stop := `{"timestamp":"2026-05-01T08:00:04.000Z","type":"event_msg","payload":{"type":"task_complete","turn_id":"w1"}}`
	for _, c := range []struct {
		name  string
		lines []string
		calls int
	}{
		{"item, then end", []string{start, item, end("ws_1"), stop}, 1},
		{"end, then item", []string{start, end("ws_1"), item, stop}, 1},
		{"two searches", []string{start, item, item, end("ws_1"), end("ws_2"), stop}, 2},
		{"an end of a search with an id", []string{start, strings.Replace(item, `"status"`, `"id":"ws_1","status"`, 1), end("ws_1"), stop}, 1},
		// The end event first (the extended persistence writes end
		// events before the items), then its item with its id, then a
		// search whose item has none.
		{"end, then item with id, then item", []string{start, end("ws_1"), strings.Replace(item, `"status"`, `"id":"ws_1","status"`, 1), item, stop}, 2},
		// Unpaired across turns: each turn's search is its own.
		{"two turns", []string{start, item, stop, start, end("ws_2"), stop}, 2},
	} {
		evs := dialecttest.DecodeStream(t, codexrollout.Dialect{}, stream(c.lines...)...)
		calls, finished := 0, 0
		for _, e := range evs {
			switch e.Body.(type) {
			case *event.ToolCall:
				calls++
			case *event.ToolFinished:
				finished++
			}
		}
		if calls != c.calls || finished != c.calls {
			t.Errorf("%s: %d calls, %d finished, want %d:\n%s", c.name, calls, finished, c.calls, dialecttest.Canonical(t, evs))
		}
	}
}

// TestLegacyHeaderWorkspace: a mid-2025 rollout's header names no working
// directory; the <environment_context> message a few lines later does.
// Read from a file (Lookahead), session_started waits for it; it waits no
// longer than the first event of the conversation, or 16 lines, or the
// end; read from a pipe, it is not held.
func TestLegacyHeaderWorkspace(t *testing.T) {
	head := `{"id":"3f2b6c1e-8d4a-4b7e-9c2d-1a5e6f7b8c9d","timestamp":"2025-07-21T09:14:05.512Z","instructions":null}`
	state := `{"record_type":"state"}`
	ctx := `{"type":"message","id":null,"role":"user","content":[{"type":"input_text","text":"<environment_context>\n  <cwd>/home/dev/web app</cwd>\n  <approval_policy>on-request</approval_policy>\n</environment_context>"}]}`
	prompt := `{"type":"message","id":null,"role":"user","content":[{"type":"input_text","text":"fix the login"}]}`
	many := []string{head}
	for range 20 {
		many = append(many, state)
	}
	cases := []struct {
		name      string
		lines     []string
		lookahead bool
		want      string
	}{
		{"context after state lines", []string{head, state, ctx, prompt}, true, "/home/dev/web app"},
		{"context last", []string{head, state, ctx}, true, "/home/dev/web app"},
		{"prompt first", []string{head, prompt, ctx}, true, ""},
		{"stream ends before any", []string{head, state}, true, ""},
		{"over 16 lines", append(many, ctx), true, ""},
		{"a pipe", []string{head, state, ctx, prompt}, false, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dec := codexrollout.Dialect{}.NewDecoder(dialect.DecodeOptions{Lookahead: c.lookahead})
			var evs []*event.Event
			for i, l := range c.lines {
				var err error
				if evs, err = dec.Decode(evs, []byte(l), i+1); err != nil {
					t.Fatal(err)
				}
			}
			evs = dec.End(evs)
			ss, ok := evs[0].Body.(*event.SessionStarted)
			if !ok || ss.Workspace != c.want {
				t.Fatalf("first event %T %+v, want session_started with workspace %q", evs[0].Body, evs[0].Body, c.want)
			}
			// Holding the header back changes no event's order or count.
			n := 1 // session_started
			for _, l := range c.lines[1:] {
				if l == prompt {
					n += 2 // turn_started, user_message
				} else {
					n++
				}
			}
			n++ // session_finished
			if len(evs) != n {
				t.Errorf("%d events, want %d:\n%s", len(evs), n, dialecttest.Canonical(t, evs))
			}
		})
	}
}

// FuzzLegacyHead: after a mid-2025 header, whatever lines come, reading
// from a file (Lookahead, which holds session_started back for the
// <environment_context>) gives the events a pipe gives, in the same order
// and number, but for the workspace; it never panics.
func FuzzLegacyHead(f *testing.F) {
	head := `{"id":"3f2b6c1e-8d4a-4b7e-9c2d-1a5e6f7b8c9d","timestamp":"2025-07-21T09:14:05.512Z","instructions":null}`
	ctx := `{"type":"message","id":null,"role":"user","content":[{"type":"input_text","text":"<environment_context>\n  <cwd>/w</cwd>\n</environment_context>"}]}`
	f.Add(`{"record_type":"state"}`, ctx, `{"type":"message","id":null,"role":"user","content":[{"type":"input_text","text":"hi"}]}`)
	f.Add(ctx, `{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"t"}]}`, `{"type":"function_call","id":"fc","name":"shell","arguments":"{}","call_id":"c1"}`)
	f.Add(`{"timestamp":"2025-07-21T09:14:06.000Z","type":"event_msg","payload":{"type":"task_started","turn_id":"t1"}}`, ctx, `not json`)
	f.Fuzz(func(t *testing.T, a, b, c string) {
		lines := []string{head, a, b, c}
		read := func(lookahead bool) []*event.Event {
			dec := codexrollout.Dialect{}.NewDecoder(dialect.DecodeOptions{Lookahead: lookahead})
			var evs []*event.Event
			for i, l := range lines {
				if !json.Valid([]byte(l)) {
					continue // the reader's to refuse, before a decoder sees it
				}
				evs, _ = dec.Decode(evs, []byte(l), i+1)
			}
			return dec.End(evs)
		}
		pipe, file := read(false), read(true)
		if len(pipe) != len(file) {
			t.Fatalf("%d events from a file, %d from a pipe:\n%s\n%s", len(file), len(pipe), dialecttest.Canonical(t, file), dialecttest.Canonical(t, pipe))
		}
		for i := range pipe {
			if pipe[i].Type() != file[i].Type() {
				t.Fatalf("event %d: %s from a file, %s from a pipe", i, file[i].Type(), pipe[i].Type())
			}
		}
	})
}
