package convert_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/evtool/evtool/convert"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/ndjson"
	"github.com/evtool/evtool/stream"
)

const basisRun = head + "\n" + `{"seq":1,"type":"user_message","text":"hi"}` + "\n" + `{"seq":2,"type":"run_finished","status":"ok"}` + "\n"

func convertIt(t *testing.T, in []byte, opts convert.Options) (string, convert.Result, error) {
	t.Helper()
	var out bytes.Buffer
	res, err := convert.Run(bytes.NewReader(in), &out, "in.jsonl", opts, func(*convert.LineError) {})
	return out.String(), res, err
}

// TestNothingJSON: an input none of whose lines is JSON converts nothing
// and writes nothing, whatever the target and --on-error (issue 21: an
// unterminated page of HTML exited 0 and emptied the -o file).
func TestNothingJSON(t *testing.T) {
	for _, c := range []struct {
		in      string
		notJSON int
		msg     string
	}{
		{"<html>502</html>", 1, "in.jsonl: nothing to convert: its only line is not JSON"},
		{"hello\n", 1, "its only line is not JSON"},
		{"a log\nof three\nlines\n", 3, "in.jsonl: nothing to convert: none of its 3 lines is JSON"},
	} {
		for _, to := range []string{"basis", "canonical", "claude"} {
			for _, oe := range []convert.OnError{convert.Keep, convert.Skip} {
				out, _, err := convertIt(t, []byte(c.in), convert.Options{To: lookup(t, to), OnError: oe})
				var ee *convert.EmptyError
				if !errors.As(err, &ee) || !errors.Is(err, convert.ErrEmpty) || ee.NotJSON != c.notJSON || err.Error() != c.msg && !strings.Contains(err.Error(), c.msg) {
					t.Errorf("%q to %s: %v, want %q", c.in, to, err, c.msg)
				}
				if out != "" {
					t.Errorf("%q to %s: wrote %q", c.in, to, out)
				}
			}
		}
	}
	// More lines that are not JSON than are held back: still an error.
	many := strings.Repeat("not json\n", 100)
	if _, _, err := convertIt(t, []byte(many), convert.Options{To: lookup(t, "canonical")}); !errors.Is(err, convert.ErrEmpty) {
		t.Errorf("100 lines of text: %v", err)
	}
	// A banner before a stream is kept, after the header (KeepInPlace), as
	// before.
	out, res, err := convertIt(t, []byte("Loaded cached credentials.\n"+basisRun), convert.Options{To: lookup(t, "canonical")})
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if err != nil || res.Errors != 1 || len(lines) < 3 || !strings.Contains(lines[1], "unreadable-line") || !strings.Contains(lines[0], "session_started") {
		t.Errorf("banner: %v, %+v:\n%s", err, res, out)
	}
}

// TestRefusedInput: UTF-16 is a UTF16Error as before, now told by the
// reading; binary input is one stream/input error; nothing is written.
func TestRefusedInput(t *testing.T) {
	var u16 []byte
	for _, c := range []byte(basisRun) {
		u16 = append(u16, c, 0)
	}
	out, _, err := convertIt(t, append([]byte{0xff, 0xfe}, u16...), convert.Options{To: lookup(t, "canonical")})
	var ue *convert.UTF16Error
	if !errors.As(err, &ue) || ue.Why != "it starts with a UTF-16LE byte order mark" || out != "" {
		t.Errorf("UTF-16: %v, %q", err, out)
	}
	bin := []byte("\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\x3e\x00\x01\x00\x00\x00")
	out, res, err := convertIt(t, bin, convert.Options{To: lookup(t, "canonical")})
	var se *stream.StreamError
	if !errors.As(err, &se) || se.Rule != stream.RuleInput || out != "" || res.Errors != 1 {
		t.Errorf("binary: %v, %q, %+v", err, out, res)
	}
}

// TestGzipInput converts what a gzip input holds, as the plain one.
func TestGzipInput(t *testing.T) {
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	io.WriteString(w, basisRun)
	w.Close()
	want, _, err := convertIt(t, []byte(basisRun), convert.Options{To: lookup(t, "canonical")})
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := convertIt(t, z.Bytes(), convert.Options{To: lookup(t, "canonical")})
	if err != nil || got != want {
		t.Errorf("gzip: %v\n%s\nwant\n%s", err, got, want)
	}
}

// TestNamedDialectOfAnotherStream: --from claude of an opencode stream is
// refused at its first line (issue 21: it exited 0, every event dropped).
func TestNamedDialectOfAnotherStream(t *testing.T) {
	in := `{"type":"step_start","timestamp":1,"sessionID":"ses_1","part":{"id":"prt_1","sessionID":"ses_1","messageID":"msg_1","type":"step-start"}}` + "\n" +
		`{"type":"text","timestamp":2,"sessionID":"ses_1","part":{"id":"prt_2","sessionID":"ses_1","messageID":"msg_1","type":"text","text":"hi","time":{"start":1,"end":2}}}` + "\n"
	out, _, err := convertIt(t, []byte(in), convert.Options{From: lookup(t, "claude"), To: lookup(t, "basis")})
	if !errors.Is(err, stream.ErrMismatch) || out != "" {
		t.Errorf("%v, %q", err, out)
	}
}

// TestDepthGuard: a line as deep as evtool reads converts, to every
// target, into lines evtool reads back (issue 21: acp and claude wrote
// lines too deep for their own reader); each value cut is counted.
func TestDepthGuard(t *testing.T) {
	for _, depth := range []int{9998, ndjson.DefaultMaxDepth} {
		inner := depth - 1 // the line's object is one level
		deep := strings.Repeat("[", inner) + strings.Repeat("]", inner)
		in := head + "\n" +
			`{"seq":1,"type":"tool_queued","tool_call_id":"c1","tool_name":"shell","input":` + deep + "}\n" +
			`{"seq":2,"type":"tool_finished","tool_call_id":"c1","status":"ok","output":"x"}` + "\n" +
			`{"seq":3,"type":"run_finished","status":"ok"}` + "\n"
		if se := ndjson.Check([]byte(strings.Split(in, "\n")[1])); se != nil {
			t.Fatalf("the input line must be readable: %v", se)
		}
		for _, to := range dialect.Targets() {
			out, res, err := convertIt(t, []byte(in), convert.Options{To: to, Defaults: dialect.Defaults{SessionID: "s", Workspace: "/r", Model: "m"}})
			if err != nil {
				t.Errorf("%d deep to %s: %v", depth, to.Name(), err)
				continue
			}
			for i, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
				if se := ndjson.Check([]byte(l)); se != nil && se.Kind == ndjson.TooDeep {
					t.Errorf("%d deep to %s: output line %d: %v", depth, to.Name(), i+1, se)
				}
			}
			cut := false
			for _, l := range res.Losses.List() {
				cut = cut || l.ID == convert.LossTooDeep.ID
			}
			if strings.Contains(out, `[[[`) && !cut {
				t.Errorf("%d deep to %s: the cut is not counted", depth, to.Name())
			}
		}
	}
	heldDepthGuard(t)
	// A shallow line is not touched.
	out, res, err := convertIt(t, []byte(basisRun), convert.Options{To: lookup(t, "canonical")})
	if err != nil || strings.Contains(out, `"[[`) || !res.Losses.Empty() {
		t.Errorf("shallow: %v %v", err, res.Losses.List())
	}
}

// heldDepthGuard: a decoder that holds a line's events and gives them
// with a later line's (Claude's holds the start of its stream until it
// knows the session) has them guarded too (a hostile-input sweep: claude,
// claude-transcript, gemini-chat and muse wrote lines too deep for
// evtool's reader and exited 0).
func heldDepthGuard(t *testing.T) {
	src, err := os.ReadFile("../adapters/claude/testdata/written_all_types.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(src), "\n")
	inner := ndjson.DefaultMaxDepth - 1
	// The third line: a hook's, held with the two before it.
	third := strings.TrimSuffix(lines[2], "}\n") + `,"zz_future":` + strings.Repeat("[", inner) + strings.Repeat("]", inner) + "}\n"
	if se := ndjson.Check([]byte(strings.TrimSuffix(third, "\n"))); se != nil {
		t.Fatalf("the input line must be readable: %v", se)
	}
	in := lines[0] + lines[1] + third + strings.Join(lines[3:], "")
	for _, to := range []string{"canonical", "acp", "claude"} {
		out, res, err := convertIt(t, []byte(in), convert.Options{From: lookup(t, "claude"), To: lookup(t, to)})
		if err != nil {
			t.Errorf("held, to %s: %v", to, err)
			continue
		}
		for i, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
			if se := ndjson.Check([]byte(l)); se != nil && se.Kind == ndjson.TooDeep {
				t.Errorf("held, to %s: output line %d: %v", to, i+1, se)
			}
		}
		cut := false
		for _, l := range res.Losses.List() {
			cut = cut || l.ID == convert.LossTooDeep.ID
		}
		if !cut {
			t.Errorf("held, to %s: the cut is not counted", to)
		}
	}
}
