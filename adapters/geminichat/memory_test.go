package geminichat_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/evtool/evtool/adapters/geminichat"
	"github.com/evtool/evtool/adapters/internal/adaptertest"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
)

// TestDecoderMemory reads a generated chat of 100,000 turns (a prompt, a
// model response written twice as Gemini CLI writes it, with a tool call
// that ran a subagent, and a final answer; a rewind every 100 turns), some
// 170 MB of lines, and drops the events: what the decoder keeps must stay
// bounded (one record, id digests, the subagent calls up to their bound),
// not grow with the chat.
func TestDecoderMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("long")
	}
	const turns = 100_000
	pad := strings.Repeat("x", 300)
	dec := geminichat.Dialect{}.NewDecoder(dialect.DecodeOptions{Lookahead: true})
	var evs []*event.Event
	n, events, size := 0, 0, 0
	feed := func(line string) {
		n++
		size += len(line) + 1
		var err error
		evs, err = dec.Decode(evs[:0], []byte(line), n)
		if err != nil {
			t.Fatalf("line %d: %v\n%s", n, err, line)
		}
		events += len(evs)
	}
	feed(head)
	var before uint64
	for i := range turns {
		if i == 1000 {
			before = adaptertest.LiveHeap()
		}
		u, g, a := fmt.Sprintf("u%07d", i), fmt.Sprintf("g%07d", i), fmt.Sprintf("a%07d", i)
		feed(`{"id":"` + u + `","timestamp":"2026-05-06T12:00:01.000Z","type":"user","content":[{"text":"` + pad + `"}]}`)
		feed(setLine)
		rec := `{"id":"` + g + `","timestamp":"2026-05-06T12:00:02.000Z","type":"gemini","content":"","thoughts":[{"subject":"S","description":"` + pad + `","timestamp":"2026-05-06T12:00:01.500Z"}],"tokens":{"input":100,"output":5,"cached":40,"thoughts":2,"tool":0,"total":107},"model":"gemini-2.5-pro"`
		feed(rec + `}`)
		feed(setLine)
		feed(rec + `,"toolCalls":[{"id":"c` + g + `","name":"codebase_investigator","args":{"objective":"` + pad + `"},"result":[{"functionResponse":{"id":"c` + g + `","name":"codebase_investigator","response":{"output":"` + pad + `"}}}],"status":"success","timestamp":"2026-05-06T12:00:02.100Z","agentId":"agent-` + g + `"}]}`)
		feed(setLine)
		feed(`{"id":"` + a + `","timestamp":"2026-05-06T12:00:03.000Z","type":"gemini","content":"` + pad + `","thoughts":[],"tokens":{"input":100,"output":5,"cached":40,"thoughts":2,"tool":0,"total":107},"model":"gemini-2.5-pro"}`)
		if i%100 == 99 {
			feed(`{"$rewindTo":"` + u + `"}`)
		}
	}
	evs = dec.End(evs[:0])
	events += len(evs)
	kept := adaptertest.LiveHeap() - min(before, adaptertest.LiveHeap())
	runtime.KeepAlive(dec)
	t.Logf("%d lines (%.0f MB), %d events; the decoder keeps %.1f MiB", n, float64(size)/1e6, events, float64(kept)/(1<<20))
	if kept > 16<<20 {
		t.Errorf("the decoder keeps %d bytes after %d lines, want < 16 MiB", kept, n)
	}
}
