package codexrollout_test

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/evtool/evtool/adapters/codexrollout"
	"github.com/evtool/evtool/adapters/internal/adaptertest"
	"github.com/evtool/evtool/convert"
	"github.com/evtool/evtool/dialect"
	"github.com/tidwall/gjson"
)

// maxHeap bounds the live heap while a large rollout is read into
// canonical text: the reading keeps a few lines in flight and the decoder
// only what is open, whatever the rollout's length.
const maxHeap = 64 << 20

// rolloutGen writes a rollout of about size bytes, turn after turn, each
// with a tool output of 100 KB, measuring the live heap every few
// megabytes as it is read.
type rolloutGen struct {
	size, made int
	turn       int
	buf        bytes.Buffer
	nextProbe  int
	maxLive    uint64
	pad        string
}

func (g *rolloutGen) Read(p []byte) (int, error) {
	if g.buf.Len() == 0 {
		if g.made >= g.size {
			return 0, io.EOF
		}
		g.next()
	}
	n, _ := g.buf.Read(p)
	g.made += n
	if g.made >= g.nextProbe {
		g.nextProbe += 8 << 20
		g.maxLive = max(g.maxLive, adaptertest.LiveHeap())
	}
	return n, nil
}

// next writes the lines of one turn (the header first).
func (g *rolloutGen) next() {
	ts := func(s int) string { return fmt.Sprintf("2026-03-01T%02d:%02d:%02d.000Z", s/3600%24, s/60%60, s%60) }
	line := func(s int, typ, payload string) {
		fmt.Fprintf(&g.buf, `{"timestamp":%q,"type":%q,"payload":%s}`+"\n", ts(s), typ, payload)
	}
	if g.turn == 0 {
		line(0, "session_meta", `{"id":"019c0000-0000-7000-8000-00000000beef","timestamp":"2026-03-01T00:00:00.000Z","cwd":"/w","originator":"codex_cli_rs","cli_version":"0.150.0","source":"cli","model_provider":"openai"}`)
	}
	g.turn++
	k, s := g.turn, g.turn*10
	id := fmt.Sprintf("t%d", k)
	line(s, "turn_context", `{"turn_id":"`+id+`","cwd":"/w","approval_policy":"never","sandbox_policy":{"type":"read-only"},"model":"gpt-5.5","summary":"auto"}`)
	line(s, "event_msg", `{"type":"task_started","turn_id":"`+id+`","model_context_window":400000}`)
	line(s, "event_msg", `{"type":"user_message","message":"step `+id+`","images":[],"local_images":[],"text_elements":[]}`)
	line(s+1, "response_item", `{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"cat log\"}","call_id":"call_`+id+`"}`)
	line(s+2, "response_item", `{"type":"function_call_output","call_id":"call_`+id+`","output":"`+g.pad+`"}`)
	// Each turn adds 1000 input (600 cached), 50 output (20 reasoning).
	total := fmt.Sprintf(`{"input_tokens":%d,"cached_input_tokens":%d,"output_tokens":%d,"reasoning_output_tokens":%d,"total_tokens":%d}`, 1000*k, 600*k, 50*k, 20*k, 1050*k)
	line(s+3, "event_msg", `{"type":"token_count","info":{"total_token_usage":`+total+`,"last_token_usage":{"input_tokens":1000,"cached_input_tokens":600,"output_tokens":50,"reasoning_output_tokens":20,"total_tokens":1050},"model_context_window":400000},"rate_limits":null}`)
	line(s+3, "event_msg", `{"type":"token_count","info":{"total_token_usage":`+total+`,"last_token_usage":{"input_tokens":1000,"cached_input_tokens":600,"output_tokens":50,"reasoning_output_tokens":20,"total_tokens":1050},"model_context_window":400000},"rate_limits":{"primary":null}}`)
	line(s+4, "event_msg", `{"type":"agent_message","message":"done `+id+`"}`)
	line(s+4, "event_msg", `{"type":"task_complete","turn_id":"`+id+`","last_agent_message":"done `+id+`"}`)
}

// tail keeps the last line written to it.
type tail struct{ last, cur []byte }

func (w *tail) Write(p []byte) (int, error) {
	for _, c := range p {
		if c == '\n' {
			w.last, w.cur = append(w.last[:0], w.cur...), w.cur[:0]
			continue
		}
		w.cur = append(w.cur, c)
	}
	return len(p), nil
}

// TestLargeRolloutMemory reads a generated rollout of 100 MB (8 MB with
// -short) into canonical text, as evtool convert does, holding the live
// heap under maxHeap, and checks the usage it counts: the re-emitted totals
// once.
func TestLargeRolloutMemory(t *testing.T) {
	size := 100 << 20
	if testing.Short() {
		size = 8 << 20
	}
	g := &rolloutGen{size: size, pad: strings.Repeat("0123456789abcdef ", 6000)} // 102 KB
	to, err := dialect.Lookup("canonical")
	if err != nil {
		t.Fatal(err)
	}
	var out tail
	if _, err := convert.Run(g, &out, "generated.jsonl", convert.Options{From: codexrollout.Dialect{}, To: to}, func(le *convert.LineError) {
		t.Errorf("line %v", le)
	}); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d MB, %d turns: the live heap peaked at %.1f MiB", g.made>>20, g.turn, float64(g.maxLive)/(1<<20))
	if g.maxLive > maxHeap {
		t.Errorf("the live heap reached %d bytes, want < %d", g.maxLive, maxHeap)
	}
	last := gjson.ParseBytes(out.last)
	k := uint64(g.turn)
	if last.Get("type").Str != "session_finished" ||
		last.Get("usage.input_tokens").Uint() != 400*k || last.Get("usage.cache_read_tokens").Uint() != 600*k ||
		last.Get("usage.output_tokens").Uint() != 50*k || last.Get("usage.total_tokens").Uint() != 1050*k {
		t.Errorf("last line %s, want the usage of %d turns", out.last, k)
	}
}
