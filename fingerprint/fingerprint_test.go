package fingerprint_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/evtool/evtool/adapters"
	"github.com/evtool/evtool/convert"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/fingerprint"
	"github.com/evtool/evtool/internal/testkit/teststreams"
)

var corpus = filepath.Join(teststreams.Root(), "..", "shared", "corpus", "muse")

func of(t *testing.T, files ...string) *fingerprint.Fingerprint {
	t.Helper()
	fp := fingerprint.New()
	for _, f := range files {
		in, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		err = fp.Add(in, f, nil)
		in.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	return fp
}

func text(t *testing.T, fp *fingerprint.Fingerprint) string {
	t.Helper()
	var b bytes.Buffer
	if _, err := fp.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// The upstream fingerprint is reproduced byte for byte from each capture
// of the echo vocabulary, whatever its key order.
func TestUpstreamMuse(t *testing.T) {
	want, err := os.ReadFile(filepath.Join(corpus, "fingerprint.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"echo_basic.jsonl", "echo_basic_wire_order.jsonl", "preset_native_basic.jsonl"} {
		fp := of(t, filepath.Join(corpus, name))
		if got := text(t, fp); got != string(want) {
			t.Errorf("%s:\n got %s\nwant %s", name, got, want)
		}
		if fp.Dialect != "muse" {
			t.Errorf("dialect %q", fp.Dialect)
		}
		back, err := fingerprint.Parse(bytes.NewReader(want))
		if err != nil {
			t.Fatal(err)
		}
		if d := fingerprint.Diff(back, fp); len(d) != 0 {
			t.Errorf("%s drifts from its own snapshot: %v", name, d)
		}
	}
}

// The live captures drift from the echo snapshot as the corpus README
// says: new types, and span_id on started lifecycle events.
func TestDrift(t *testing.T) {
	want, err := os.ReadFile(filepath.Join(corpus, "fingerprint.txt"))
	if err != nil {
		t.Fatal(err)
	}
	snap, err := fingerprint.Parse(bytes.NewReader(want))
	if err != nil {
		t.Fatal(err)
	}
	got := of(t, filepath.Join(corpus, "meta_tool_use.jsonl"))
	d := strings.Join(fingerprint.Diff(snap, got), "\n")
	for _, w := range []string{
		"type added: run.model.configured: ",
		"type added: tool.result: call_id, command_id, correlation_facts, edit_facts, kind, run_stream, text",
		"fields added to task.lifecycle.started::event[started]: span_id",
	} {
		if !strings.Contains(d, w) {
			t.Errorf("drift report lacks %q:\n%s", w, d)
		}
	}
	// And removed: a snapshot with a field and a type the stream lacks.
	snap2, err := fingerprint.Parse(strings.NewReader(string(want) + "zz.gone: a\n"))
	if err != nil {
		t.Fatal(err)
	}
	d2 := fingerprint.Diff(snap2, of(t, filepath.Join(corpus, "echo_basic.jsonl")))
	if len(d2) != 1 || d2[0] != "type removed: zz.gone: a" {
		t.Errorf("got %q", d2)
	}
	d3 := fingerprint.Diff(got, of(t, filepath.Join(corpus, "echo_basic.jsonl")))
	if !strings.Contains(strings.Join(d3, "\n"), "fields removed from task.lifecycle.started::event[started]: span_id") {
		t.Errorf("no field removal in %q", d3)
	}
}

func canonical(t *testing.T, src string) string {
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	to, _ := dialect.Lookup("canonical")
	var out bytes.Buffer
	if _, err := convert.Run(in, &out, src, convert.Options{To: to}, func(le *convert.LineError) { t.Error(le) }); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "canonical.jsonl")
	if err := os.WriteFile(p, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Every dialect has a fingerprint: its types, each with fields.
func TestEveryDialect(t *testing.T) {
	for _, d := range dialect.All() {
		files := teststreams.Valid(d.Name())
		switch d.Name() {
		case "acp":
			files, _ = filepath.Glob(filepath.Join(teststreams.Root(), "testdata", "acp", "*.acp.jsonl"))
		case "canonical":
			// evtool's own model has no captures: convert a basis stream.
			files = []string{canonical(t, teststreams.Valid("basis")[0])}
		}
		if len(files) == 0 {
			t.Errorf("%s: no streams", d.Name())
			continue
		}
		fp := fingerprint.New()
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			err = fp.Add(bytes.NewReader(data), f, d)
			var le *fingerprint.LineError
			if err != nil && !errors.As(err, &le) {
				t.Fatalf("%s: %v", f, err)
			}
		}
		names := fp.Names()
		if len(names) < 3 {
			t.Errorf("%s: only %v", d.Name(), names)
		}
		out := text(t, fp)
		back, err := fingerprint.Parse(strings.NewReader(out))
		if err != nil {
			t.Fatalf("%s: %v", d.Name(), err)
		}
		if diff := fingerprint.Diff(back, fp); len(diff) != 0 {
			t.Errorf("%s: does not read back: %v", d.Name(), diff)
		}
		t.Logf("%s: %d names from %d streams", d.Name(), len(names), len(files))
	}
}

func TestShapes(t *testing.T) {
	tests := []struct {
		dialect, in, want string
	}{
		{"basis", `{"seq":0,"type":"run_started","schema":2}` + "\n" + `{"seq":1,"type":"user_message","text":"x"}` + "\n" + `{"type":"user_message","seq":2,"extra":1}`,
			"run_started: schema, seq, type\nuser_message: extra, seq, text, type\n"},
		{"acp", `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}}` + "\n" + `{"jsonrpc":"2.0","id":1,"result":{}}`,
			"__envelope__: jsonrpc, method, params\n__untyped__: id, jsonrpc, result\nsession/update: sessionId, update\nsession/update::update[agent_message_chunk]: content, sessionUpdate\n"},
	}
	for _, tt := range tests {
		d, _ := dialect.Lookup(tt.dialect)
		fp := fingerprint.New()
		if err := fp.Add(strings.NewReader(tt.in), "x", d); err != nil {
			t.Fatal(err)
		}
		if got := text(t, fp); got != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.dialect, got, tt.want)
		}
	}
}

// Names and fields that would not read back are quoted.
func TestQuoting(t *testing.T) {
	d, _ := dialect.Lookup("basis")
	fp := fingerprint.New()
	in := `{"seq":0,"type":"a: b","x,y":1,"":2," s":3,"q\"":4,"tab\t":5}`
	if err := fp.Add(strings.NewReader(in), "x", d); err != nil {
		t.Fatal(err)
	}
	out := text(t, fp)
	want := `"a: b": "", " s", q", seq, "tab\t", type, "x,y"` + "\n"
	if out != want {
		t.Errorf("got  %s\nwant %s", out, want)
	}
	back, err := fingerprint.Parse(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if diff := fingerprint.Diff(back, fp); len(diff) != 0 {
		t.Errorf("does not read back: %v", diff)
	}
}

func TestErrors(t *testing.T) {
	d, _ := dialect.Lookup("basis")
	fp := fingerprint.New()
	err := fp.Add(strings.NewReader(`{"seq":0,"type":"run_started"}`+"\n{bad\n"), "x.jsonl", d)
	var le *fingerprint.LineError
	if !errors.As(err, &le) || le.Line != 2 || !strings.Contains(err.Error(), "x.jsonl:2: ") {
		t.Errorf("a line that is not JSON: got %v", err)
	}
	// A first line that is not JSON, before any dialect is told (it
	// panicked once): an error of the line, no dialect taken.
	for _, in := range []string{"garbage\n", "garbage\n" + `{"seq":0,"type":"run_started"}` + "\n"} {
		fresh := fingerprint.New()
		err := fresh.Add(strings.NewReader(in), "g.jsonl", nil)
		if !errors.As(err, &le) || le.Line != 1 || fresh.Dialect != "" && fresh.Dialect != "basis" {
			t.Errorf("%q: got %v, dialect %q", in, err, fresh.Dialect)
		}
	}
	// Streams of two dialects.
	m, _ := dialect.Lookup("mermaid")
	if err := fp.Add(strings.NewReader(`{"type":"session_started","protocol_version":1}`+"\n"), "y.jsonl", m); err == nil || !strings.Contains(err.Error(), "each dialect on its own") {
		t.Errorf("mixed dialects: got %v", err)
	}
	if _, err := fingerprint.Parse(strings.NewReader("no colon here\n")); err == nil {
		t.Error("Parse accepted a line without a name")
	}
	if _, err := fingerprint.Parse(strings.NewReader("a: x\na: y\n")); err == nil {
		t.Error("Parse accepted a name twice")
	}
}
