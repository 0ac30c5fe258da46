package validate_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/evtool/evtool/adapters"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/stream"
	"github.com/evtool/evtool/validate"
)

const head = `{"seq":0,"type":"run_started","schema":2,"basis":"0.6.2","session_id":"s","workspace":"/r","model":"m","provider":"p","context_files":[]}`

func run(t *testing.T, in string, opts validate.Options) ([]validate.Diagnostic, validate.Summary) {
	t.Helper()
	var out []validate.Diagnostic
	sum, err := validate.Stream(strings.NewReader(in), "s.jsonl", opts, func(d validate.Diagnostic) { out = append(out, d) })
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	return out, sum
}

func TestDiagnostics(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string // Diagnostic.String() of every finding, in order
	}{
		{"syntax error, later lines still read", head + "\n" +
			`{"seq":1,"type":"user_message","text":"x"` + "\n" +
			`{"seq":2,"type":"user_message","text":"é",}` + "\n" +
			`{"seq":3,"type":"tool_started","tool_call_id":"c","tool_name":"x"}` + "\n" +
			`{"seq":4,"type":"run_finished","status":"ok"}`,
			[]string{
				"s.jsonl:2:42: error: invalid JSON: the line ends inside a value [json/syntax]",
				"s.jsonl:3:43: error: invalid JSON: unexpected '}' where an object key belongs [json/syntax]",
				"s.jsonl:4:8: warning: /seq: seq jumps from 0 to 3 [basis/seq-gap]",
				`s.jsonl:4:47: error: /tool_call_id: tool_started for tool call "c", which was never queued [basis/tool-not-queued]`,
			}},
		{"invalid utf-8", head + "\n" + "{\"seq\":1,\"type\":\"user_message\",\"text\":\"ab\xffc\"}\n" + `{"seq":2,"type":"run_finished","status":"ok"}`,
			[]string{"s.jsonl:2:42: error: /text: invalid UTF-8 at byte 42 [json/utf8]", "s.jsonl:3:8: warning: /seq: seq jumps from 0 to 2 [basis/seq-gap]"}},
		{"schema errors name pointer and column", head + "\n" +
			`{"seq":1,"type":"usage","agent_id":"a","input_tokens":-1,"output_tokens":2,"cache_read_tokens":0,"cache_creation_tokens":0}` + "\n" +
			`{"seq":2,"type":"run_finished","status":"done"}`,
			[]string{
				"s.jsonl:2:55: error: /input_tokens: minimum: got -1, want at least 0 [basis/schema]",
				"s.jsonl:3:41: error: /status: value must be one of 'ok', 'error' [basis/schema]",
			}},
		{"a number where basis writes a string", head + "\n" + `{"seq":1,"type":"task_updated","task_id":"t","kind":"subagent","status":"running","title":"w","detail":5}` + "\n" + `{"seq":2,"type":"run_finished","status":"ok"}`,
			[]string{"s.jsonl:2:104: error: /detail: got 5, want null or string [basis/schema]"}},
		{"truncated stream has no column", head + "\n" + `{"seq":1,"type":"assistant_delta","text":"cut"}` + "\n\n",
			[]string{"s.jsonl:2: error: the stream ends without run_finished: it is truncated [basis/truncated]"}},
		{"not an object", head + "\n[1]\n" + `{"seq":2,"type":"run_finished","status":"ok"}`,
			[]string{"s.jsonl:2:1: error: got array, want object [basis/schema]", "s.jsonl:3:8: warning: /seq: seq jumps from 0 to 2 [basis/seq-gap]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, sum := run(t, tt.in, validate.Options{})
			if len(got) != len(tt.want) {
				var s []string
				for _, d := range got {
					s = append(s, d.String())
				}
				t.Fatalf("got %d diagnostics, want %d:\n%s", len(got), len(tt.want), strings.Join(s, "\n"))
			}
			errs := 0
			for i := range got {
				if got[i].String() != tt.want[i] {
					t.Errorf("diagnostic %d:\n got %s\nwant %s", i, got[i], tt.want[i])
				}
				if got[i].Severity == dialect.Error {
					errs++
				}
			}
			if sum.Errors != errs || sum.Dialect != "basis" {
				t.Errorf("summary %+v, want %d errors of basis", sum, errs)
			}
		})
	}
}

func TestStrict(t *testing.T) {
	in := head + "\n" + `{"seq":1,"type":"new_thing"}` + "\n" + `{"seq":2,"type":"run_finished","status":"ok","why":"x"}`
	for _, strict := range []bool{false, true} {
		got, sum := run(t, in, validate.Options{Strict: strict})
		want := dialect.Warning
		if strict {
			want = dialect.Error
		}
		if len(got) != 2 {
			t.Fatalf("strict=%v: %v", strict, got)
		}
		for _, d := range got {
			if d.Severity != want {
				t.Errorf("strict=%v: %s", strict, d)
			}
		}
		if strict && sum.Errors != 2 || !strict && sum.Warnings != 2 {
			t.Errorf("strict=%v: summary %+v", strict, sum)
		}
	}
}

func TestExplicitDialect(t *testing.T) {
	d, err := dialect.Lookup("canonical")
	if err != nil {
		t.Fatal(err)
	}
	_, err = validate.Stream(strings.NewReader(head+"\n"), "s.jsonl", validate.Options{Dialect: d}, func(validate.Diagnostic) {})
	var se *stream.StreamError
	if !errors.As(err, &se) || !errors.Is(err, stream.ErrMismatch) {
		t.Fatalf("a basis stream checked as canonical must be refused as a mismatch, got %v", err)
	}
	want := "s.jsonl:1:1: error: the stream was named canonical, but this line is basis; name basis, or name none to detect it [stream/dialect-mismatch]"
	if se.Diagnostic.String() != want {
		t.Errorf("got  %s\nwant %s", se.Diagnostic, want)
	}
}

func TestUndetected(t *testing.T) {
	_, err := validate.Stream(strings.NewReader(`{"hello":"world"}`+"\n"), "x", validate.Options{}, func(validate.Diagnostic) {})
	if !errors.Is(err, validate.ErrUndetected) {
		t.Fatalf("got %v, want ErrUndetected", err)
	}
}

// Every bundled basis stream is valid; only forward_compat has warnings.
func TestBundledStreamsAreValid(t *testing.T) {
	files, _ := filepath.Glob("../testdata/streams/basis/*.jsonl")
	if len(files) == 0 {
		t.Fatal("no streams")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		got, sum := run(t, string(data), validate.Options{})
		if sum.Errors != 0 {
			t.Errorf("%s: %v", f, got)
		}
		if filepath.Base(f) != "forward_compat.jsonl" && sum.Warnings != 0 {
			t.Errorf("%s: unexpected warnings %v", f, got)
		}
	}
}
