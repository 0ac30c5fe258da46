package claudetranscript_test

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/evtool/evtool/adapters/claudetranscript"
	"github.com/evtool/evtool/stream"
)

// TestStateHoldsNoLine reads a transcript whose lines are large and leave
// something open that the decoder keeps: tool calls never answered, Task
// calls no subagent answers, subagents whose responses never close, and
// requires the heap, the reader still open, to be far below the lines'
// size. (What is its own to keep, a Task call's description, is short
// here.) What the decoder keeps of a line (an id, a name, a model, a
// usage) must be a copy of its own: a string cut from the line's copy
// keeps the whole line's copy alive, hundreds of them at once.
func TestStateHoldsNoLine(t *testing.T) {
	const lines, size = 300, 96 << 10
	big := strings.Repeat("x", size)
	var b bytes.Buffer
	env := func(i int, side bool, agent string) string {
		a := ""
		if agent != "" {
			a = `,"agentId":"` + agent + `"`
		}
		return fmt.Sprintf(`"parentUuid":null,"isSidechain":%v,"userType":"external","cwd":"/w","sessionId":"s1","version":"2.0.30","uuid":"u-%d","timestamp":"2026-01-02T03:04:05.678Z"%s`, side, i, a)
	}
	fmt.Fprintf(&b, `{%s,"type":"user","message":{"role":"user","content":"go"}}`+"\n", env(0, false, ""))
	for i := 1; i <= lines; i++ {
		switch i % 3 {
		case 0: // a call never answered, in a response that stays open
			fmt.Fprintf(&b, `{%s,"type":"assistant","requestId":"req_%d","message":{"id":"msg_%d","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"%s"},{"type":"tool_use","id":"toolu_%d","name":"Read","input":{"file_path":"/w/f.go"}}],"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":4,"output_tokens":9}}}`+"\n",
				env(i, false, ""), i, i, big, i)
		case 1: // a Task call no subagent answers
			fmt.Fprintf(&b, `{%s,"type":"assistant","requestId":"req_%d","message":{"id":"msg_%d","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"%s"},{"type":"tool_use","id":"task_%d","name":"Task","input":{"description":"d%d","prompt":"p%d"}}],"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":4,"output_tokens":9}}}`+"\n",
				env(i, false, ""), i, i, big, i, i, i)
		default: // a subagent's response, never closed
			fmt.Fprintf(&b, `{%s,"type":"assistant","requestId":"req_%d","message":{"id":"msg_%d","type":"message","role":"assistant","model":"claude-haiku-4-5","content":[{"type":"text","text":"%s"}],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":4,"output_tokens":9}}}`+"\n",
				env(i, true, fmt.Sprintf("agent%d", i)), i, i, big)
		}
	}
	for _, summary := range []bool{false, true} {
		t.Run(fmt.Sprintf("summary=%v", summary), func(t *testing.T) {
			base := liveHeap()
			rd := stream.NewReader(bytes.NewReader(b.Bytes()), "pin.jsonl", stream.Options{Dialect: claudetranscript.Dialect{}, Summary: summary})
			for {
				_, err := rd.ReadLine()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			held := liveHeap() - min(base, liveHeap())
			if held > 8<<20 {
				t.Errorf("%d lines of %d KiB read: the heap holds %d MiB", lines, size>>10, held>>20)
			}
			_ = rd.Close()
		})
	}
}
