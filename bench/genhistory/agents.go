package main

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"time"
)

// The other agents of a mixed history: Codex rollouts and Gemini CLI
// chats, modelled on internal/testkit/ccusagediff's generator (which
// ccusage and evtool are compared on) and on the notes and captures in
// ../shared/ondisk/, with bulk where the real files have it: tool output
// in Codex's function_call_output, answers in Gemini's records.

// codexModels and geminiModels each have a price in ccusage's table and
// in evtool's.
var (
	codexModels  = []string{"gpt-5", "gpt-5-codex", "gpt-5.1-codex"}
	geminiModels = []string{"gemini-2.5-pro", "gemini-2.5-flash"}
)

// sizes splits total bytes among files by log-normal weights: many small
// sessions, a few large ones.
func (g *gen) sizes(files int, total int64) []int64 {
	w := make([]float64, files)
	sum := 0.0
	for i := range w {
		w[i] = math.Exp(g.r.NormFloat64() * 0.9)
		sum += w[i]
	}
	out := make([]int64, files)
	for i := range out {
		out[i] = max(int64(float64(total)*w[i]/sum), 2048)
	}
	return out
}

// create opens a file to write, making its folder.
func create(path string) (*writer, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	return &writer{f: f, w: bufio.NewWriterSize(f, 1<<20)}, nil
}

// close ends a file and returns what writing it came to.
func (w *writer) close() (int64, int, error) {
	if err := w.w.Flush(); w.err == nil {
		w.err = err
	}
	if err := w.f.Close(); w.err == nil {
		w.err = err
	}
	return w.n, w.longest, w.err
}

// codexHistory writes files Codex rollouts of total bytes in all under
// out/.codex/sessions/YYYY/MM/DD/.
func (g *gen) codexHistory(out string, files int, total int64) (int64, int, error) {
	var written int64
	longest := 0
	for i, target := range g.sizes(files, total) {
		n, long, err := g.rollout(out, i, target)
		if err != nil {
			return written, longest, err
		}
		written += n
		longest = max(longest, long)
	}
	return written, longest, nil
}

// rollout writes one rollout of about target bytes: session_meta, then
// turns of a turn_context (the only place the model is named), the
// prompt as event_msg and response_item, tool calls with their outputs,
// a cumulative token_count after each response (re-emitted unchanged now
// and then, as Codex does), and the answer.
func (g *gen) rollout(out string, i int, target int64) (int64, int, error) {
	t := g.start.AddDate(0, 0, g.r.IntN(g.days)).Add(time.Duration(g.r.IntN(24*60)) * time.Minute)
	id := g.uuid()
	path := filepath.Join(out, ".codex", "sessions", t.Format("2006/01/02"), "rollout-"+t.Format("2006-01-02T15-04-05")+"-"+id+".jsonl")
	w, err := create(path)
	if err != nil {
		return 0, 0, err
	}
	var b []byte
	head := func(typ string) {
		b = append(b[:0], `{"timestamp":"`...)
		b = append(b, t.Format("2006-01-02T15:04:05.000Z")...)
		b = append(b, `","type":"`...)
		b = append(b, typ...)
		b = append(b, `","payload":`...)
		t = t.Add(time.Duration(200+g.r.IntN(3000)) * time.Millisecond)
	}
	cwd := fmt.Sprintf("/home/dev/src/codex-%d", i%5)
	head("session_meta")
	b = fmt.Appendf(b, `{"id":"%s","timestamp":"%s","cwd":"%s","originator":"codex_cli_rs","cli_version":"0.46.0","instructions":null,"source":"cli","model_provider":"openai"}}`,
		id, t.Format("2006-01-02T15:04:05.000Z"), cwd)
	w.line(b)
	model := codexModels[g.r.IntN(len(codexModels))]
	var tot [5]uint64 // input, cached, output, reasoning, total
	usage := func(b []byte, u [5]uint64) []byte {
		return fmt.Appendf(b, `{"input_tokens":%d,"cached_input_tokens":%d,"output_tokens":%d,"reasoning_output_tokens":%d,"total_tokens":%d}`, u[0], u[1], u[2], u[3], u[4])
	}
	for w.n < target && w.err == nil {
		head("turn_context")
		b = fmt.Appendf(b, `{"cwd":"%s","approval_policy":"on-request","sandbox_policy":{"mode":"workspace-write"},"model":"%s","effort":"medium","summary":"auto"}}`, cwd, model)
		w.line(b)
		prompt := g.text(nil, 40+g.r.IntN(400))
		head("event_msg")
		b = append(b, `{"type":"user_message","message":"`...)
		b = append(b, prompt...)
		b = append(b, `","images":[]}}`...)
		w.line(b)
		head("response_item")
		b = append(b, `{"type":"message","role":"user","content":[{"type":"input_text","text":"`...)
		b = append(b, prompt...)
		b = append(b, `"}]}}`...)
		w.line(b)
		for call := range 1 + g.r.IntN(6) {
			callID := g.id("call_")
			head("response_item")
			b = fmt.Appendf(b, `{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"go test ./... -run %d\"]}","call_id":"%s"}}`, call, callID)
			w.line(b)
			head("response_item")
			b = fmt.Appendf(b, `{"type":"function_call_output","call_id":"%s","output":"Exit code: 0\nWall time: 1.2 seconds\nOutput:\n`, callID)
			size := 500 + g.r.IntN(8000)
			if g.r.IntN(300) == 0 {
				size = 100_000 + g.r.IntN(400_000)
			}
			b = g.text(b, size)
			b = append(b, `"}}`...)
			w.line(b)
			in := uint64(2000 + g.r.IntN(60000))
			cached := uint64(g.r.IntN(int(in)))
			outTok := uint64(50 + g.r.IntN(2000))
			reason := uint64(g.r.IntN(int(outTok)))
			last := [5]uint64{in, cached, outTok, reason, in + outTok}
			for k := range tot {
				tot[k] += last[k]
			}
			for range 1 + g.r.IntN(2) { // re-emitted unchanged, now and then
				head("event_msg")
				b = append(b, `{"type":"token_count","info":{"total_token_usage":`...)
				b = usage(b, tot)
				b = append(b, `,"last_token_usage":`...)
				b = usage(b, last)
				b = append(b, `,"model_context_window":272000},"rate_limits":null}}`...)
				w.line(b)
			}
		}
		answer := g.text(nil, 100+g.r.IntN(1500))
		head("event_msg")
		b = append(b, `{"type":"agent_message","message":"`...)
		b = append(b, answer...)
		b = append(b, `"}}`...)
		w.line(b)
		head("response_item")
		b = append(b, `{"type":"message","role":"assistant","content":[{"type":"output_text","text":"`...)
		b = append(b, answer...)
		b = append(b, `"}]}}`...)
		w.line(b)
		t = t.Add(time.Duration(g.r.IntN(30)) * time.Minute)
		if g.r.IntN(6) == 0 {
			model = codexModels[g.r.IntN(len(codexModels))]
		}
	}
	return w.close()
}

// geminiHistory writes files Gemini CLI chats (the JSONL of 0.39 and
// later) of total bytes in all under out/.gemini/tmp/<project>/chats/.
func (g *gen) geminiHistory(out string, files int, total int64) (int64, int, error) {
	var written int64
	longest := 0
	for i, target := range g.sizes(files, total) {
		n, long, err := g.chat(out, i, target)
		if err != nil {
			return written, longest, err
		}
		written += n
		longest = max(longest, long)
	}
	return written, longest, nil
}

// chat writes one chat of about target bytes: its metadata line, then
// user and gemini records, each gemini record written twice (a draft,
// then the final record re-appended under the same id, as Gemini CLI
// updates a message: the last record of an id wins).
func (g *gen) chat(out string, i int, target int64) (int64, int, error) {
	t := g.start.AddDate(0, 0, g.r.IntN(g.days)).Add(time.Duration(g.r.IntN(24*60)) * time.Minute)
	sid := g.uuid()
	path := filepath.Join(out, ".gemini", "tmp", fmt.Sprintf("project-%d", i%5), "chats", "session-"+t.Format("2006-01-02T15-04")+"-"+sid[:8]+".jsonl")
	w, err := create(path)
	if err != nil {
		return 0, 0, err
	}
	ts := func() string { return t.Format("2006-01-02T15:04:05.000Z") }
	b := fmt.Appendf(nil, `{"sessionId":"%s","projectHash":"%064x","startTime":"%s","lastUpdated":"%s","kind":"main"}`, sid, i, ts(), ts())
	w.line(b)
	model := geminiModels[g.r.IntN(len(geminiModels))]
	for w.n < target && w.err == nil {
		b = fmt.Appendf(b[:0], `{"id":"%s","timestamp":"%s","type":"user","content":[{"text":"`, g.uuid(), ts())
		b = g.text(b, 40+g.r.IntN(600))
		b = append(b, `"}]}`...)
		w.line(b)
		t = t.Add(time.Duration(1+g.r.IntN(20)) * time.Second)
		mid := g.uuid()
		in := 1000 + g.r.IntN(60000)
		cached := g.r.IntN(in)
		outTok := 10 + g.r.IntN(1500)
		th := g.r.IntN(800)
		b = fmt.Appendf(b[:0], `{"id":"%s","timestamp":"%s","type":"gemini","content":"","model":"%s","tokens":{"input":%d,"output":0,"cached":%d,"thoughts":0,"tool":0,"total":%d}}`,
			mid, ts(), model, in, cached, in)
		w.line(b)
		b = fmt.Appendf(b[:0], `{"id":"%s","timestamp":"%s","type":"gemini","content":"`, mid, ts())
		size := 500 + g.r.IntN(6000)
		if g.r.IntN(300) == 0 {
			size = 100_000 + g.r.IntN(400_000)
		}
		b = g.text(b, size)
		b = fmt.Appendf(b, `","model":"%s","tokens":{"input":%d,"output":%d,"cached":%d,"thoughts":%d,"tool":0,"total":%d},"thoughts":[]}`,
			model, in, outTok, cached, th, in+outTok+th)
		w.line(b)
		t = t.Add(time.Duration(g.r.IntN(30)) * time.Minute)
	}
	return w.close()
}
