package mermaid_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evtool/evtool/internal/schematest"

	"github.com/evtool/evtool/adapters/canonical"
	"github.com/evtool/evtool/adapters/mermaid"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/jsoneq"
)

const header = `{"type":"session_started","protocol_version":1,"cli_version":"9.9.9","model":"m","task_id":null,"session_id":"s"}`

// TestContractAccepts reads lines mermaid's serde types accept: schema and
// decoder take them, and they come back byte for byte.
func TestContractAccepts(t *testing.T) {
	s := schematest.Compile(t, mermaid.Dialect{})
	for i, l := range readLines(t, "testdata/contract/accept.jsonl") {
		if err := schematest.Check(s, l); err != nil {
			t.Errorf("line %d: the schema rejects a line mermaid accepts: %v\n%s", i+1, err, l)
		}
		in := []string{header, l}
		if strings.Contains(l, `"type":"session_started"`) {
			in = []string{l}
		}
		back := roundTrip(t, in)
		if strings.Join(back, "\n") != strings.Join(in, "\n") {
			t.Errorf("line %d is not written back byte for byte:\n in: %s\nout: %s", i+1, l, back[len(back)-1])
		}
	}
}

// TestContractRejects reads lines mermaid's serde types refuse: the schema
// refuses those whose fault it can see, the decoder the others (integer
// literal form), at the value's pointer, saying what it got and wants.
func TestContractRejects(t *testing.T) {
	s := schematest.Compile(t, mermaid.Dialect{})
	lines := readLines(t, "testdata/contract/reject.jsonl")
	for i := 0; i+1 < len(lines); i += 2 {
		var want struct {
			Pointer string
			Schema  bool
		}
		if err := json.Unmarshal([]byte(lines[i]), &want); err != nil {
			t.Fatal(err)
		}
		l := lines[i+1]
		serr := schematest.Check(s, l)
		_, derr := mermaid.Dialect{}.NewDecoder(dialect.DecodeOptions{}).Decode(nil, []byte(l), 1) // must not panic
		if want.Schema {
			if serr == nil {
				t.Errorf("line %d: the schema accepts a line mermaid refuses:\n%s", i+2, l)
			}
			continue
		}
		if serr != nil {
			t.Errorf("line %d: the schema rejects a line it cannot judge: %v", i+2, serr)
		}
		var fe *mermaid.DecodeError
		if !errors.As(derr, &fe) {
			t.Errorf("line %d: the decoder accepts a line mermaid refuses (err %v):\n%s", i+2, derr, l)
			continue
		}
		if fe.Pointer != want.Pointer {
			t.Errorf("line %d: error at %q, want %q: %v", i+2, fe.Pointer, want.Pointer, fe)
		}
		got, wanted, ok := strings.Cut(strings.TrimPrefix(fe.Msg, "got "), ", want ")
		if !strings.HasPrefix(fe.Msg, "got ") || !ok || got == wanted {
			t.Errorf("line %d: message %q does not say what it got and what it wants", i+2, fe.Msg)
		}
	}
}

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

// TestKeyOrder reads every line of the full stream with its keys reversed:
// the same canonical events and JSON-equal lines back.
func TestKeyOrder(t *testing.T) {
	lines := readLines(t, filepath.Join(streams, "full_run.jsonl"))
	var rev []string
	for _, l := range lines {
		rev = append(rev, reverseKeys(l))
	}
	back := roundTrip(t, rev)
	for i := range rev {
		if !jsoneq.Equal(rev[i], back[i]) {
			t.Errorf("line %d:\n in: %s\nout: %s", i+1, rev[i], back[i])
		}
	}
	a, b := canonicalOf(t, lines), canonicalOf(t, rev)
	for i := range a {
		if !jsoneq.Equal(a[i], b[i]) {
			t.Errorf("canonical line %d depends on key order:\n%s\n%s", i+1, a[i], b[i])
		}
	}
}

func canonicalOf(t *testing.T, lines []string) []string {
	t.Helper()
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	enc := canonical.Dialect{}.NewEncoder(w, dialect.EncodeOptions{Losses: &dialect.Losses{}})
	for _, ev := range decode(t, lines...) {
		if err := enc.Encode(ev); err != nil {
			t.Fatal(err)
		}
	}
	w.Flush()
	return strings.Split(strings.TrimSpace(buf.String()), "\n")
}

// reverseKeys reverses the keys of the top-level object and of the objects
// nested in it, one level down (mermaid's nesting is shallow).
func reverseKeys(l string) string {
	var m []struct {
		k string
		v json.RawMessage
	}
	dec := json.NewDecoder(strings.NewReader(l))
	dec.Token()
	for dec.More() {
		k, _ := dec.Token()
		var v json.RawMessage
		dec.Decode(&v)
		if len(v) > 0 && (v[0] == '{' || v[0] == '[') && !bytes.Contains(v[1:], []byte("[")) {
			v = json.RawMessage(reverseInner(string(v)))
		}
		m = append(m, struct {
			k string
			v json.RawMessage
		}{k.(string), v})
	}
	var b strings.Builder
	b.WriteByte('{')
	for i := len(m) - 1; i >= 0; i-- {
		kb, _ := json.Marshal(m[i].k)
		b.Write(kb)
		b.WriteByte(':')
		b.Write(m[i].v)
		if i > 0 {
			b.WriteByte(',')
		}
	}
	b.WriteByte('}')
	return b.String()
}

func reverseInner(v string) string {
	if v[0] == '{' {
		return reverseKeys(v)
	}
	var elems []json.RawMessage
	json.Unmarshal([]byte(v), &elems)
	var b strings.Builder
	b.WriteByte('[')
	for i, e := range elems {
		if i > 0 {
			b.WriteByte(',')
		}
		if len(e) > 0 && e[0] == '{' {
			b.WriteString(reverseKeys(string(e)))
		} else {
			b.Write(e)
		}
	}
	b.WriteByte(']')
	return b.String()
}

// assertAccepted checks a stream as validate does: schema and decoder per
// line, and the stream rules.
func assertAccepted(t *testing.T, d dialect.Dialect, out []byte) {
	t.Helper()
	s := schematest.Compile(t, d)
	dec := d.NewDecoder(dialect.DecodeOptions{})
	chk := d.NewChecker(dialect.CheckOptions{})
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	for i, l := range lines {
		if err := schematest.Check(s, l); err != nil {
			t.Errorf("line %d: schema: %v\n%s", i+1, err, l)
		}
		if _, err := dec.Decode(nil, []byte(l), i+1); err != nil {
			t.Errorf("line %d: decoder: %v\n%s", i+1, err, l)
		}
		chk.Line([]byte(l), i+1, func(f dialect.Finding) {
			if f.Severity == dialect.Error {
				t.Errorf("line %d: %s: %s", i+1, f.Rule, f.Message)
			}
		})
	}
	chk.End(len(lines), func(f dialect.Finding) {
		if f.Severity == dialect.Error {
			t.Errorf("end: %s: %s", f.Rule, f.Message)
		}
	})
}

func encodeCanonical(t *testing.T, in []byte) ([]byte, *dialect.Losses) {
	t.Helper()
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	losses := &dialect.Losses{}
	enc := mermaid.Dialect{}.NewEncoder(w, dialect.EncodeOptions{Losses: losses})
	for i, l := range strings.Split(strings.TrimSpace(string(in)), "\n") {
		ev, err := event.Parse([]byte(l))
		if err != nil {
			t.Fatalf("canonical line %d: %v", i+1, err)
		}
		if err := enc.Encode(ev); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	w.Flush()
	return buf.Bytes(), losses
}

// TestWriterOutputIsValid writes the hand-made canonical streams (shared
// with basis) as mermaid: every output passes mermaid's schema, decoder and
// stream rules.
func TestWriterOutputIsValid(t *testing.T) {
	files, _ := filepath.Glob("../basis/testdata/canonical/*.jsonl")
	if len(files) < 8 {
		t.Fatalf("only %d canonical test streams", len(files))
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			in, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			out, losses := encodeCanonical(t, in)
			assertAccepted(t, mermaid.Dialect{}, out)
			if losses.Empty() {
				t.Error("nothing counted")
			}
		})
	}
}

// TestWriterFinishesOnce checks double finishes, approvals for calls that
// never start, and calls the run leaves open.
func TestWriterFinishesOnce(t *testing.T) {
	in, _ := os.ReadFile("../basis/testdata/canonical/double_finish.jsonl")
	out, _ := encodeCanonical(t, in)
	if n := bytes.Count(out, []byte(`"type":"tool_finished"`)); n != 1 {
		t.Errorf("%d tool_finished lines for one call:\n%s", n, out)
	}
	in, _ = os.ReadFile("../basis/testdata/canonical/open_at_end.jsonl")
	out, losses := encodeCanonical(t, in)
	for _, want := range []string{
		`{"type":"tool_started","call_id":"c3"}`,
		`{"type":"tool_finished","call_id":"c1","name":"shell","status":"cancelled","summary":"the run ended before the call finished","error":null}`,
		`{"type":"tool_finished","call_id":"c3","name":"tool","status":"cancelled"`,
	} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("output lacks %s:\n%s", want, out)
		}
	}
	if !strings.Contains(lossText(losses), "synthesized 2 tool_finished lines") {
		t.Errorf("losses: %s", lossText(losses))
	}
}

func lossText(ls *dialect.Losses) string {
	var b strings.Builder
	for _, l := range ls.List() {
		b.WriteString(l.String() + "\n")
	}
	return b.String()
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
		out, losses := encodeCanonical(t, []byte(in))
		if !bytes.Contains(out, []byte(`"total_tokens":18446744073709551615`)) {
			t.Errorf("total wrapped:\n%s", out)
		}
		if !strings.Contains(lossText(losses), "approximated 1 token total beyond 18446744073709551615") {
			t.Errorf("saturation not counted: %s", lossText(losses))
		}
	}
}

// TestU32Saturation writes plan counts beyond mermaid's u32 fields.
func TestU32Saturation(t *testing.T) {
	in := `{"seq":0,"type":"session_started","schema":1,"source":{"dialect":"basis"}}
{"seq":1,"type":"plan_updated","entries":[{"id":"4294967296","content":"a","status":"pending"}],"completed":4294967296,"total":18446744073709551615}
{"seq":2,"type":"session_finished","status":"ok"}`
	out, losses := encodeCanonical(t, []byte(in))
	if !bytes.Contains(out, []byte(`"completed":4294967295,"total":4294967295`)) || !bytes.Contains(out, []byte(`"id":1,`)) {
		t.Errorf("not capped:\n%s", out)
	}
	if !strings.Contains(lossText(losses), "approximated 2 task counts beyond 4294967295") {
		t.Errorf("losses: %s", lossText(losses))
	}
	assertAccepted(t, mermaid.Dialect{}, out)
}
