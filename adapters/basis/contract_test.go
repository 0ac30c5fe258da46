package basis_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/evtool/evtool/dialecttest"
	"github.com/evtool/evtool/internal/testkit/schematest"

	"github.com/evtool/evtool/adapters/basis"
	"github.com/evtool/evtool/adapters/canonical"
	"github.com/evtool/evtool/adapters/mermaid"
	"github.com/evtool/evtool/dialect"
)

// TestU32Bounds checks the u32 fields at and beyond their bound, in the
// decoder and the schema alike.
func TestU32Bounds(t *testing.T) {
	s := schematest.Compile(t, basis.Dialect{})
	for _, tt := range []struct {
		line string
		ok   bool
	}{
		{`{"seq":1,"type":"retry","agent_id":"a","error":"e","attempt":4294967295,"max_attempts":4294967295,"next_delay_ms":1}`, true},
		{`{"seq":1,"type":"retry","agent_id":"a","error":"e","attempt":4294967296,"max_attempts":1,"next_delay_ms":1}`, false},
		{`{"seq":1,"type":"retry","agent_id":"a","error":"e","attempt":1,"max_attempts":4294967296,"next_delay_ms":1}`, false},
		{`{"seq":0,"type":"run_started","schema":4294967296,"basis":"b","session_id":"s","workspace":"/","model":"m","provider":"p","context_files":[]}`, false},
	} {
		_, derr := basis.Dialect{}.NewDecoder(dialect.DecodeOptions{}).Decode(nil, []byte(tt.line), 1)
		serr := schematest.Check(s, tt.line)
		if (derr == nil) != tt.ok || (serr == nil) != tt.ok {
			t.Errorf("%s: decoder %v, schema %v, want ok=%v", tt.line, derr, serr, tt.ok)
		}
	}
}

// TestUnknownKeysRoundTrip puts unknown keys at the top level and inside
// nested objects: they ride in ext.basis and come back in place.
func TestUnknownKeysRoundTrip(t *testing.T) {
	lines := []string{
		`{"seq":0,"type":"run_started","schema":2,"basis":"0.6.2","session_id":"s","workspace":"/r","model":"m","provider":"p","context_files":[{"path":"/r/AGENTS.md","scope":"workspace","sha":"abc"}],"hooks":["h"]}`,
		`{"seq":1,"type":"run_finished","status":"ok","usage":{"input_tokens":1,"output_tokens":2,"cache_read_tokens":3,"cache_creation_tokens":4,"cost_micros":7},"trace":{"id":1}}`,
	}
	canon, back := roundTrip(t, lines)
	for i := range lines {
		if back[i] != lines[i] {
			t.Errorf("line %d:\n in: %s\nout: %s", i+1, lines[i], back[i])
		}
	}
	for _, want := range []string{`"hooks":["h"]`, `"sha":"abc"`, `"cost_micros":7`, `"trace":{"id":1}`} {
		if !strings.Contains(canon, want) {
			t.Errorf("ext.basis lacks %s:\n%s", want, canon)
		}
	}
}

// TestEmptyTaskIDIsCanonical reads a task_updated with "task_id":"", which
// basis's String id allows: the canonical line passes canonical's schema.
func TestEmptyTaskIDIsCanonical(t *testing.T) {
	s := schematest.Compile(t, canonical.Dialect{})
	canon, back := roundTrip(t, []string{
		`{"seq":1,"type":"task_updated","task_id":"","kind":"subagent","status":"running","title":"work"}`,
		`{"seq":2,"type":"tool_completed","tool_call_id":"","tool_name":"shell","summary":"","is_error":false}`,
	})
	for _, l := range dialecttest.Lines(canon) {
		if err := schematest.Check(s, l); err != nil {
			t.Errorf("canonical schema rejects %s: %v", l, err)
		}
	}
	if len(back) != 2 {
		t.Errorf("got %d lines back, want 2: %v", len(back), back)
	}
}

// TestUnqueuedCallIsAnnounced reads a tool_completed for a call no
// tool_queued announced: the canonical stream gets a synthetic tool_call
// first, and basis's writer does not write it back.
func TestUnqueuedCallIsAnnounced(t *testing.T) {
	lines := []string{
		`{"seq":0,"type":"run_started","schema":2,"basis":"0.6.2","session_id":"s","workspace":"/r","model":"m","provider":"p","context_files":[]}`,
		`{"seq":1,"type":"tool_started","tool_call_id":"c1","tool_name":"shell"}`,
		`{"seq":2,"type":"tool_completed","tool_call_id":"c1","tool_name":"shell","summary":"ok","is_error":false}`,
		`{"seq":3,"type":"run_finished","status":"ok"}`,
	}
	canon, back := roundTrip(t, lines)
	cl := dialecttest.Lines(canon)
	if len(cl) != 5 || !strings.Contains(cl[1], `"type":"tool_call"`) || !strings.Contains(cl[1], `"synthetic":true`) {
		t.Fatalf("no synthetic tool_call before the call's first line:\n%s", canon)
	}
	dialecttest.Accepted(t, canonical.Dialect{}, canon)
	if strings.Join(back, "\n") != strings.Join(lines, "\n") {
		t.Errorf("not written back as read:\n%s", strings.Join(back, "\n"))
	}
}

// toBasis writes canonical lines as basis.
func toBasis(t *testing.T, canon ...string) (string, *dialect.Losses) {
	t.Helper()
	return dialecttest.Encode(t, basis.Dialect{}, dialect.EncodeOptions{}, canon...)
}

// TestWriterOutputIsValid writes every hand-made canonical stream of
// testdata/canonical as basis and as mermaid, which shares them: each
// output passes the dialect's schema, decoder and stream rules (as the
// kit's cross check also proves), and what had to be made up or left out
// is counted.
func TestWriterOutputIsValid(t *testing.T) {
	files, _ := filepath.Glob("testdata/canonical/*.jsonl")
	if len(files) < 8 {
		t.Fatalf("only %d canonical test streams", len(files))
	}
	for _, d := range []dialect.Dialect{basis.Dialect{}, mermaid.Dialect{}} {
		for _, f := range files {
			t.Run(d.Name()+"/"+filepath.Base(f), func(t *testing.T) {
				out, losses := dialecttest.Encode(t, d, dialect.EncodeOptions{}, dialecttest.ReadLines(t, f)...)
				dialecttest.Accepted(t, d, out)
				if losses.Empty() {
					t.Errorf("nothing counted as lost or synthesised")
				}
			})
		}
	}
}

// TestWriterClosesWhatTheRunEnds checks the particular repairs.
func TestWriterClosesWhatTheRunEnds(t *testing.T) {
	out, losses := toBasis(t, dialecttest.ReadLines(t, "testdata/canonical/open_at_end.jsonl")...)
	for _, want := range []string{
		`"type":"tool_queued","tool_call_id":"c3"`,
		`"type":"tool_completed","tool_call_id":"c1","tool_name":"shell","summary":"the run ended before the call completed","is_error":true`,
		`"type":"tool_completed","tool_call_id":"c2"`,
		`"task_id":"t1","kind":"subagent","status":"failed"`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %s:\n%s", want, out)
		}
	}
	counted := map[string]int{}
	for _, l := range losses.List() {
		counted[l.Verb+" "+l.Kind] = l.Count
	}
	if counted["synthesized tool_completed lines"] != 3 || counted["synthesized tool_queued line"] != 1 || counted["synthesized task_updated line"] != 1 {
		t.Errorf("losses: %v", losses.List())
	}
	out, _ = toBasis(t, dialecttest.ReadLines(t, "testdata/canonical/double_finish.jsonl")...)
	if n := strings.Count(out, `"type":"tool_completed"`); n != 1 {
		t.Errorf("%d tool_completed lines for one call:\n%s", n, out)
	}
	out, losses = toBasis(t, dialecttest.ReadLines(t, "testdata/canonical/statuses.jsonl")...)
	if n := strings.Count(out, `"is_error":true`); n != 2 {
		t.Errorf("cancelled and rejected calls: %d failed completions, want 2:\n%s", n, out)
	}
	if len(losses.List()) == 0 {
		t.Error("no loss counted")
	}
}

// TestU32Saturation writes counts beyond basis's u32 fields: they are
// capped and counted, never wrapped.
func TestU32Saturation(t *testing.T) {
	out, losses := toBasis(t,
		`{"seq":0,"type":"session_started","schema":1,"source":{"dialect":"muse"}}`,
		`{"seq":1,"type":"retry","error":"e","attempt":4294967296,"max_attempts":18446744073709551615}`,
		`{"seq":2,"type":"session_finished","status":"ok"}`)
	if !strings.Contains(out, `"attempt":4294967295,"max_attempts":4294967295`) {
		t.Errorf("not capped:\n%s", out)
	}
	found := false
	for _, l := range losses.List() {
		found = found || (l.Verb == "approximated" && strings.Contains(l.Kind, "retry attempts") && l.Count == 2)
	}
	if !found {
		t.Errorf("capping not counted: %v", losses.List())
	}
}
