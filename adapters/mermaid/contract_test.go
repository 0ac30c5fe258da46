package mermaid_test

import (
	"strings"
	"testing"

	"github.com/evtool/evtool/adapters/mermaid"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/dialecttest"
	"github.com/evtool/evtool/event"
)

const header = `{"type":"session_started","protocol_version":1,"cli_version":"9.9.9","model":"m","task_id":null,"session_id":"s"}`

// TestUnknownStatusIsKept reads a tool status mermaid's String allows but
// the canonical model does not know: canonical says error, the residue
// keeps the word, and mermaid gets it back.
func TestUnknownStatusIsKept(t *testing.T) {
	l := `{"type":"tool_finished","call_id":"c","name":"x","status":"timed_out","summary":"","error":null}`
	evs := decode(t, header, l)
	fin := evs[len(evs)-1]
	if b := fin.Body.(*event.ToolFinished); b.Status != "error" || !strings.Contains(string(fin.Ext.Get("mermaid")), `"status":"timed_out"`) {
		t.Errorf("status %q, ext %s", b.Status, fin.Ext.Get("mermaid"))
	}
}

// toMermaid writes canonical lines as mermaid.
func toMermaid(t *testing.T, canon ...string) (string, *dialect.Losses) {
	t.Helper()
	return dialecttest.Encode(t, mermaid.Dialect{}, dialect.EncodeOptions{}, canon...)
}

// TestWriterFinishesOnce checks double finishes, approvals for calls that
// never start, and calls the run leaves open.
func TestWriterFinishesOnce(t *testing.T) {
	out, _ := toMermaid(t, dialecttest.ReadLines(t, "../basis/testdata/canonical/double_finish.jsonl")...)
	if n := strings.Count(out, `"type":"tool_finished"`); n != 1 {
		t.Errorf("%d tool_finished lines for one call:\n%s", n, out)
	}
	out, losses := toMermaid(t, dialecttest.ReadLines(t, "../basis/testdata/canonical/open_at_end.jsonl")...)
	for _, want := range []string{
		`{"type":"tool_started","call_id":"c3"}`,
		`{"type":"tool_finished","call_id":"c1","name":"shell","status":"cancelled","summary":"the run ended before the call finished","error":null}`,
		`{"type":"tool_finished","call_id":"c3","name":"tool","status":"cancelled"`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %s:\n%s", want, out)
		}
	}
	if !strings.Contains(dialecttest.LossText(losses), "synthesized 2 tool_finished lines") {
		t.Errorf("losses: %s", dialecttest.LossText(losses))
	}
}

// TestTokenSumsSaturate sums per-round usage and a run usage beyond u64:
// the total is the largest u64, never a wrapped small number, and the
// saturation is counted once, for the total written.
func TestTokenSumsSaturate(t *testing.T) {
	for _, in := range []string{
		`{"seq":0,"type":"session_started","schema":1,"source":{"dialect":"basis"}}
{"seq":1,"type":"usage","input_tokens":18446744073709551615,"output_tokens":1}
{"seq":2,"type":"session_finished","status":"ok"}`,
		`{"seq":0,"type":"session_started","schema":1,"source":{"dialect":"basis"}}
{"seq":1,"type":"usage","total_tokens":18446744073709551615}
{"seq":2,"type":"usage","total_tokens":1}
{"seq":3,"type":"session_finished","status":"ok"}`,
		`{"seq":0,"type":"session_started","schema":1,"source":{"dialect":"basis"}}
{"seq":1,"type":"session_finished","status":"ok","usage":{"input_tokens":18446744073709551615,"output_tokens":18446744073709551615,"thoughts_tokens":2}}`,
	} {
		out, losses := toMermaid(t, dialecttest.Lines(in)...)
		if !strings.Contains(out, `"total_tokens":18446744073709551615`) {
			t.Errorf("total wrapped:\n%s", out)
		}
		if !strings.Contains(dialecttest.LossText(losses), "approximated 1 token total beyond 18446744073709551615") {
			t.Errorf("saturation not counted: %s", dialecttest.LossText(losses))
		}
	}
}

// TestU32Saturation writes plan counts beyond mermaid's u32 fields.
func TestU32Saturation(t *testing.T) {
	in := `{"seq":0,"type":"session_started","schema":1,"source":{"dialect":"basis"}}
{"seq":1,"type":"plan_updated","entries":[{"id":"4294967296","content":"a","status":"pending"}],"completed":4294967296,"total":18446744073709551615}
{"seq":2,"type":"session_finished","status":"ok"}`
	out, losses := toMermaid(t, dialecttest.Lines(in)...)
	if !strings.Contains(out, `"completed":4294967295,"total":4294967295`) || !strings.Contains(out, `"id":1,`) {
		t.Errorf("not capped:\n%s", out)
	}
	if !strings.Contains(dialecttest.LossText(losses), "approximated 2 task counts beyond 4294967295") {
		t.Errorf("losses: %s", dialecttest.LossText(losses))
	}
	dialecttest.Accepted(t, mermaid.Dialect{}, out)
}
