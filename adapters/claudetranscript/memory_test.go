package claudetranscript_test

import (
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/evtool/evtool/adapters/claudetranscript"
	"github.com/evtool/evtool/convert"
	"github.com/evtool/evtool/dialect"
)

// longTranscript generates a transcript of about size bytes, turn by turn,
// never holding more than a turn: a prompt, a response streamed as three
// lines, a tool result, a final answer and metadata; an inline subagent
// every 10 turns; a 150 KB tool result every 500. Every 20 MB it calls
// probe, which measures the heap of the reader.
type longTranscript struct {
	size, sent, next int
	turn             int
	buf              []byte
	probe            func()
}

const step = 20 << 20

func (g *longTranscript) Read(p []byte) (int, error) {
	for len(g.buf) == 0 {
		if g.sent >= g.size {
			return 0, io.EOF
		}
		g.buf = g.turnLines(g.buf[:0])
	}
	n := copy(p, g.buf)
	g.buf = g.buf[n:]
	g.sent += n
	if g.sent >= g.next {
		g.next += step
		g.probe()
	}
	return n, nil
}

var (
	pad  = strings.Repeat("lorem ipsum dolor sit amet ", 20)
	huge = strings.Repeat("0123456789abcdef", 150<<10/16)
)

func (g *longTranscript) turnLines(b []byte) []byte {
	i := g.turn
	g.turn++
	env := func(uuid, parent string) string {
		p := "null"
		if parent != "" {
			p = `"` + parent + `"`
		}
		return fmt.Sprintf(`"parentUuid":%s,"isSidechain":false,"userType":"external","cwd":"/w","sessionId":"s1","version":"2.0.30","gitBranch":"main","uuid":"%s","timestamp":"2026-01-02T03:04:05.678Z"`, p, uuid)
	}
	u := func(k string) string { return fmt.Sprintf("%s-%d", k, i) }
	prev := ""
	if i > 0 {
		prev = fmt.Sprintf("f-%d", i-1)
	}
	line := func(format string, args ...any) { b = fmt.Appendf(b, format, args...); b = append(b, '\n') }
	line(`{%s,"type":"user","message":{"role":"user","content":"prompt %d: %s"}}`, env(u("p"), prev), i, pad[:100])
	msg := func(uuid, parent, id, block string, out int, stop string) {
		line(`{%s,"type":"assistant","requestId":"req_%s","message":{"id":"msg_%s","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[%s],"stop_reason":%s,"stop_sequence":null,"usage":{"input_tokens":4,"cache_creation_input_tokens":300,"cache_read_input_tokens":20000,"output_tokens":%d,"service_tier":"standard"}}}`,
			env(uuid, parent), id, id, block, stop, out)
	}
	msg(u("a1"), u("p"), u("m"), `{"type":"thinking","thinking":"`+pad+`","signature":"sig"}`, 8, "null")
	msg(u("a2"), u("a1"), u("m"), `{"type":"text","text":"`+pad+`"}`, 8, "null")
	call := u("toolu")
	msg(u("a3"), u("a2"), u("m"), `{"type":"tool_use","id":"`+call+`","name":"Read","input":{"file_path":"/w/f.go"}}`, 412, `"tool_use"`)
	out := pad + pad + pad
	if i%500 == 499 {
		out = huge
	}
	line(`{%s,"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"%s","content":"%s"}]}}`, env(u("r"), u("a3")), call, out)
	last := u("r")
	if i%10 == 0 {
		// An inline (1.0) subagent: a Task call, its lines, its result.
		task := u("task")
		prompt := fmt.Sprintf("subagent %d: %s", i, pad[:80])
		msg(u("t1"), last, u("mt"), `{"type":"tool_use","id":"`+task+`","name":"Task","input":{"description":"sub","prompt":"`+prompt+`"}}`, 50, `"tool_use"`)
		line(`{"parentUuid":null,"isSidechain":true,"userType":"external","cwd":"/w","sessionId":"s1","version":"2.0.30","type":"user","message":{"role":"user","content":"%s"},"uuid":"%s","timestamp":"2026-01-02T03:04:05.678Z"}`, prompt, u("s1"))
		line(`{"parentUuid":"%s","isSidechain":true,"userType":"external","cwd":"/w","sessionId":"s1","version":"2.0.30","type":"assistant","requestId":"req_%s","message":{"id":"msg_%s","type":"message","role":"assistant","model":"claude-haiku-4-5","content":[{"type":"text","text":"%s"}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":3,"output_tokens":30}},"uuid":"%s","timestamp":"2026-01-02T03:04:05.678Z"}`,
			u("s1"), u("ms"), u("ms"), pad[:200], u("s2"))
		line(`{%s,"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"%s","content":"done"}]}}`, env(u("t2"), u("t1")), task)
		last = u("t2")
	}
	msg(fmt.Sprintf("f-%d", i), last, u("mf"), `{"type":"text","text":"`+pad+`"}`, 90, `"end_turn"`)
	line(`{"type":"last-prompt","lastPrompt":"prompt %d","sessionId":"s1"}`, i)
	line(`{"type":"file-history-snapshot","messageId":"%s","snapshot":{"messageId":"%s","trackedFileBackups":{},"timestamp":"2026-01-02T03:04:05.678Z"},"isSnapshotUpdate":false}`, u("p"), u("p"))
	return b
}

func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestMemory reads a generated 200 MB transcript, as evtool convert does
// (into canonical text, thrown away), and requires the heap to stay
// bounded: the reading keeps sets of ids and a few open items, never a
// line, so the heap after 200 MB is what it was after 40.
func TestMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 200 MB")
	}
	to, err := dialect.Lookup("canonical")
	if err != nil {
		t.Fatal(err)
	}
	base := liveHeap()
	var samples []uint64
	g := &longTranscript{size: 200 << 20, next: step}
	g.probe = func() { samples = append(samples, liveHeap()-min(base, liveHeap())) }
	var errs int
	res, err := convert.Run(g, io.Discard, "long.jsonl", convert.Options{From: claudetranscript.Dialect{}, To: to}, func(*convert.LineError) { errs++ })
	if err != nil || errs > 0 {
		t.Fatalf("convert: %v, %d line errors", err, errs)
	}
	_ = res
	peak := uint64(0)
	for _, s := range samples {
		peak = max(peak, s)
	}
	t.Logf("%d turns, %d MB; live heap every 20 MB (MiB): %v", g.turn, g.sent>>20, mib(samples))
	if peak > 32<<20 {
		t.Errorf("the heap grew to %d MiB reading %d MB", peak>>20, g.sent>>20)
	}
	if len(samples) >= 10 && samples[len(samples)-1] > samples[1]+16<<20 {
		t.Errorf("the heap grows with the transcript: %v MiB", mib(samples))
	}
}

func mib(s []uint64) []uint64 {
	out := make([]uint64, len(s))
	for i, v := range s {
		out[i] = v >> 20
	}
	return out
}
