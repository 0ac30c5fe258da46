package muse_test

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/evtool/evtool/adapters"
	"github.com/evtool/evtool/adapters/canonical"
	"github.com/evtool/evtool/adapters/internal/adaptertest"
	"github.com/evtool/evtool/adapters/muse"
	"github.com/evtool/evtool/convert"
	"github.com/evtool/evtool/diag"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/validate"
	"github.com/tidwall/gjson"
)

const corpus = "../../../shared/corpus/muse"

func captures(t *testing.T) []string {
	t.Helper()
	files := adaptertest.Glob(t, filepath.Join(corpus, "*.jsonl"), 6, "muse captures in "+corpus)
	if len(files) != 6 {
		t.Fatalf("want the six muse captures in %s, found %d", corpus, len(files))
	}
	return files
}

func read(t *testing.T, f string) []byte { return adaptertest.ReadFile(t, f) }

// convertStream converts in from one dialect to another (from nil: the
// dialect is detected), as evtool convert does, and returns the output,
// the losses and every line error.
func convertStream(t *testing.T, in []byte, from, to dialect.Dialect) ([]byte, *dialect.Losses, []*convert.LineError) {
	t.Helper()
	var out bytes.Buffer
	var les []*convert.LineError
	res, err := convert.Run(bytes.NewReader(in), &out, "in", convert.Options{From: from, To: to},
		func(le *convert.LineError) { les = append(les, le) })
	if err != nil {
		t.Fatal(err)
	}
	return out.Bytes(), res.Losses, les
}

// errorsOf returns the line errors that are errors: the lines convert
// could not convert.
func errorsOf(les []*convert.LineError) []*convert.LineError {
	var out []*convert.LineError
	for _, le := range les {
		if le.Severity == diag.Error {
			out = append(out, le)
		}
	}
	return out
}

// toCanonical decodes muse bytes into canonical text; no line may fail.
func toCanonical(t *testing.T, in []byte) []byte {
	t.Helper()
	out, _, les := convertStream(t, in, muse.Dialect{}, canonical.Dialect{})
	for _, le := range errorsOf(les) {
		t.Error(le)
	}
	return out
}

// fromCanonical encodes canonical text as muse and returns it with the
// losses; no line may have anything to say.
func fromCanonical(t *testing.T, canon []byte) ([]byte, *dialect.Losses) {
	t.Helper()
	out, losses, les := convertStream(t, canon, canonical.Dialect{}, muse.Dialect{})
	for _, le := range les {
		t.Error(le)
	}
	return out, losses
}

// roundTrip writes muse bytes as canonical text and that back as muse.
func roundTrip(t *testing.T, in []byte) []byte {
	t.Helper()
	back, _ := fromCanonical(t, toCanonical(t, in))
	return back
}

func TestCapturesRoundTripByteForByte(t *testing.T) {
	for _, f := range captures(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			in := read(t, f)
			canon := toCanonical(t, in)
			if bytes.Contains(canon, []byte(`"line":`)) {
				t.Error("a record was kept whole: derivation should rebuild every captured record")
			}
			back, losses := fromCanonical(t, canon)
			if !bytes.Equal(back, in) {
				a, b := strings.Split(string(in), "\n"), strings.Split(string(back), "\n")
				for i := range a {
					if i >= len(b) || a[i] != b[i] {
						t.Fatalf("line %d differs:\n in: %s\nout: %s", i+1, a[i], b[min(i, len(b)-1)])
					}
				}
				t.Fatalf("%d lines in, %d out", len(a), len(b))
			}
			if !losses.Empty() {
				t.Errorf("muse → canonical → muse lost: %v", losses.List())
			}
		})
	}
}

func TestCapturesValidateClean(t *testing.T) {
	for _, f := range captures(t) {
		var diags []string
		sum, err := validate.Stream(bytes.NewReader(read(t, f)), f, validate.Options{}, func(d validate.Diagnostic) { diags = append(diags, d.String()) })
		if err != nil {
			t.Fatal(err)
		}
		if sum.Dialect != "muse" || sum.Errors != 0 || sum.Warnings != 0 {
			t.Errorf("%s: %+v\n%s", f, sum, strings.Join(diags, "\n"))
		}
	}
}

func events(t *testing.T, canon []byte) []*event.Event {
	t.Helper()
	var out []*event.Event
	for _, l := range bytes.Split(bytes.TrimSpace(canon), []byte("\n")) {
		ev, err := event.Parse(l)
		if err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		out = append(out, ev)
	}
	return out
}

// The canonical reading of each capture has no unknown events, joins every
// tool.result to its task, and its canonical stream validates.
func TestCanonicalReading(t *testing.T) {
	results := 0
	for _, f := range captures(t) {
		canon := toCanonical(t, read(t, f))
		evs := events(t, canon)
		calls := map[string]bool{}
		for _, ev := range evs {
			switch b := ev.Body.(type) {
			case *event.Unknown:
				t.Errorf("%s: %s decoded as unknown", f, b.SourceType)
			case *event.ToolCall:
				if ev.Synthetic {
					t.Errorf("%s: tool call %s had to be synthesised", f, b.CallID)
				}
				calls[b.CallID] = true
			case *event.ToolFinished:
				if ev.Ext.Get("muse") == nil || !strings.Contains(string(ev.Ext.Get("muse")), "task.lifecycle.") && !calls[b.CallID] {
					t.Errorf("%s: tool result %s is not joined to a task", f, b.CallID)
				}
				if !calls[b.CallID] {
					t.Errorf("%s: tool_finished for %s, which had no tool_call", f, b.CallID)
				}
				results++
			}
		}
		if evs[0].Type() != event.TypeSessionStarted || !evs[0].Synthetic || evs[len(evs)-1].Type() != event.TypeSessionFinished {
			t.Errorf("%s: session_started and session_finished must be synthesised", f)
		}
		sum, err := validate.Stream(bytes.NewReader(canon), f, validate.Options{Dialect: canonical.Dialect{}}, func(d validate.Diagnostic) { t.Errorf("%s", d) })
		if err != nil || sum.Errors+sum.Warnings != 0 {
			t.Errorf("%s: canonical reading: %+v %v", f, sum, err)
		}
	}
	if results != 3 {
		t.Errorf("joined %d tool results, the corpus has 3", results)
	}
}

func TestBashResultIsLifted(t *testing.T) {
	line := `{"schema_version":1,"id":"018f0000-0000-7000-8000-00000000c350","stream":{"kind":"session","id":"s"},"sequence":1,"recorded_at":1,"record_type":"event","durability":"durable","causation_id":"c","payload_type":"tool.result","payload_schema_version":1,"payload":{"kind":"tool_result","command_id":"c","run_stream":{"kind":"run","id":"c"},"call_id":"call_1","text":"{\"chunk_id\":\"k\",\"command\":\"ls -la\",\"description\":\"list\",\"exit_code\":2,\"terminal_status\":\"exited\",\"output\":\"ls: nope\",\"original_output_bytes\":8,\"original_output_tokens\":3,\"truncated\":false}","correlation_facts":{"tool_name":"bash","outcome":"failure"}}}`
	evs := events(t, toCanonical(t, []byte(line+"\n")))
	var f *event.ToolFinished
	for _, ev := range evs {
		if b, ok := ev.Body.(*event.ToolFinished); ok {
			f = b
		}
	}
	if f == nil || f.Command != "ls -la" || f.ExitCode == nil || *f.ExitCode != 2 || f.Output == nil || *f.Output != "ls: nope" || f.Status != "error" {
		t.Fatalf("bash result not lifted: %+v", f)
	}
	if back := roundTrip(t, []byte(line+"\n")); string(back) != line+"\n" {
		t.Errorf("not byte-identical:\n in: %s\nout: %s", line, back)
	}
}

// invented builds a capture with a payload type invented for the test, an
// unknown lifecycle kind and an unknown field on a known payload.
func invented(t *testing.T) []byte {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(string(read(t, filepath.Join(corpus, "echo_basic_wire_order.jsonl")))), "\n")
	var out []string
	for _, l := range lines {
		if strings.Contains(l, `"payload_type":"run.output.delta"`) {
			l = strings.Replace(l, `"text":"echo: fixture one"}`, `"text":"echo: fixture one","tone":{"warmth":3}}`, 1)
		}
		if strings.Contains(l, `"payload_type":"run.terminal.completed"`) {
			at := gjson.Get(l, "recorded_at").Raw // the new records share the terminal's time
			env := `{"schema_version":1,"id":"018f0000-0000-7000-8000-0000000f0001","stream":{"kind":"session","id":"5174af86-1581-4010-ac39-8cc7a174e4ba"},"sequence":23,"recorded_at":` + at + `,"record_type":"event","durability":"durable","causation_id":"4df5c2f5-5e4e-4dc1-8310-17d3ffcfb09d",`
			out = append(out,
				env+`"payload_type":"subagent.lifecycle.spawned","payload_schema_version":1,"payload":{"kind":"subagent_spawned","command_id":"4df5c2f5-5e4e-4dc1-8310-17d3ffcfb09d","agent":{"name":"reviewer","depth":1}}}`,
				strings.Replace(strings.Replace(env, `0f0001`, `0f0003`, 1), `"sequence":23`, `"sequence":24`, 1)+`"payload_type":"task.lifecycle.paused","payload_schema_version":1,"payload":{"kind":"task_lifecycle","command_id":"4df5c2f5-5e4e-4dc1-8310-17d3ffcfb09d","run_stream":{"kind":"run","id":"4df5c2f5-5e4e-4dc1-8310-17d3ffcfb09d"},"task_stream":{"kind":"task","id":"018f0000-0000-7000-8000-000000002712"},"task_id":"018f0000-0000-7000-8000-000000002712","event":{"kind":"paused","task_id":"018f0000-0000-7000-8000-000000002712","until":"review"}}}`)
			l = strings.Replace(l, `"sequence":23`, `"sequence":25`, 1)
		}
		out = append(out, l)
	}
	return []byte(strings.Join(out, "\n") + "\n")
}

func TestInventedCapture(t *testing.T) {
	in := invented(t)
	if back := roundTrip(t, in); !bytes.Equal(back, in) {
		t.Errorf("the invented capture does not round-trip byte for byte:\n%s", back)
	}
	var warns []string
	sum, err := validate.Stream(bytes.NewReader(in), "invented", validate.Options{}, func(d validate.Diagnostic) { warns = append(warns, d.Rule) })
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"muse/unknown-field", "muse/unknown-payload", "muse/unknown-payload"}
	if sum.Errors != 0 || strings.Join(warns, " ") != strings.Join(want, " ") {
		t.Errorf("got %+v with %v, want warnings %v only", sum, warns, want)
	}
	// The unknown payload and lifecycle kind pass through as unknown events.
	n := 0
	for _, ev := range events(t, toCanonical(t, in)) {
		if u, ok := ev.Body.(*event.Unknown); ok {
			n++
			if !json.Valid(u.Raw) || u.Dialect != "muse" {
				t.Errorf("unknown event %+v", u)
			}
		}
	}
	if n != 2 {
		t.Errorf("%d unknown events, want 2", n)
	}
}

// muse written by evtool for another dialect reads back and round-trips.
func TestForeignMuseRoundTrips(t *testing.T) {
	for _, f := range []string{"../../testdata/streams/basis/full_schema2.jsonl", "../../testdata/streams/mermaid/full_run.jsonl"} {
		out, _, les := convertStream(t, read(t, f), nil, muse.Dialect{})
		for _, le := range les {
			t.Error(le)
		}
		if back := roundTrip(t, out); !bytes.Equal(back, out) {
			t.Errorf("%s: evtool's own muse does not round-trip", f)
		}
	}
}
