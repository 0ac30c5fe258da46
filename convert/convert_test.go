package convert_test

import (
	"bufio"
	"bytes"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	_ "github.com/evtool/evtool/adapters"
	"github.com/evtool/evtool/convert"
	"github.com/evtool/evtool/dialect"
)

func lookup(t *testing.T, name string) dialect.Dialect {
	t.Helper()
	d, err := dialect.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

const head = `{"seq":0,"type":"run_started","schema":2,"basis":"0.6.2","session_id":"s","workspace":"/r","model":"m","provider":"p","context_files":[]}`

func TestBadLinesAreReportedAndKept(t *testing.T) {
	in := strings.Join([]string{
		head,
		`{"seq":1,"type":"user_message","text":"a"`,
		"{\"seq\":2,\"type\":\"assistant_delta\",\"text\":\"\xff\"}",
		`{"seq":3,"type":"usage","agent_id":"a","input_tokens":"many"}`,
		`{"seq":4,"type":"assistant_delta","text":"still here"}`,
		`{"seq":5,"type":"run_finished","status":"ok"}`,
	}, "\n")
	var out bytes.Buffer
	var errs []*convert.LineError
	res, err := convert.Run(strings.NewReader(in), &out, "in.jsonl", convert.Options{To: lookup(t, "canonical")},
		func(le *convert.LineError) { errs = append(errs, le) })
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"in.jsonl:2:42: error: invalid JSON: the line ends inside a value [json/syntax]",
		"in.jsonl:3:43: error: /text: invalid UTF-8 at byte 43 [json/utf8]",
		"in.jsonl:4:1: error: missing properties 'output_tokens', 'cache_read_tokens', 'cache_creation_tokens' [basis/schema]",
		"in.jsonl:4:55: error: /input_tokens: got string, want integer [basis/schema]",
	}
	if len(errs) != len(want) || res.Errors != 3 {
		t.Fatalf("got %d errors (%d counted): %v", len(errs), res.Errors, errs)
	}
	for i, le := range errs {
		if le.Error() != want[i] {
			t.Errorf("error %d:\n got %s\nwant %s", i, le, want[i])
		}
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	// The line that is JSON but cannot be read is kept whole, as an
	// unknown event of its dialect and its type as written; the lines that are not JSON are kept as
	// unknown events that hold their text.
	if len(lines) != 6 || !strings.Contains(lines[3], `"type":"unknown","dialect":"basis","source_type":"usage","raw":{"seq":3,`) ||
		!strings.Contains(lines[1], `"type":"unknown","dialect":"evtool","source_type":"unreadable-line","raw":{"text":"{\"seq\":1,`) ||
		!strings.Contains(lines[2], `"raw":{"text":"{\"seq\":2,\"type\":\"assistant_delta\",\"text\":\"�\"}"}`) ||
		!strings.Contains(lines[4], "still here") || !strings.Contains(lines[5], "session_finished") {
		t.Fatalf("the good lines must all be converted, and the bad ones kept:\n%s", out.String())
	}
	if res.From != "basis" || res.Lines != 6 || res.Kept != 3 || res.Skipped != 0 || res.Torn != 0 || !slices.Equal(res.BadLines, []int{2, 3, 4}) {
		t.Errorf("result %+v", res)
	}
}

// TestOnError runs each --on-error choice, the torn last line and the
// inputs with nothing to convert.
func TestOnError(t *testing.T) {
	good := head + "\n" + `{"seq":1,"type":"user_message","text":"a"}` + "\n"
	bad := `{"seq":2,"type":"user_message","text":"b"` // not JSON
	tail := `{"seq":3,"type":"run_finished","status":"ok"}` + "\n"
	for _, c := range []struct {
		name, in string
		onError  convert.OnError
		err      string // substring of the error, "" for none
		lines    int    // canonical lines written
		errors   int
		torn     int
		diag     string // the reported diagnostic's prefix
	}{
		{"keep", good + bad + "\n" + tail, convert.Keep, "", 5, 1, 0, "in:3:42: error: invalid JSON"},
		{"skip", good + bad + "\n" + tail, convert.Skip, "", 4, 1, 0, "in:3:42: error: invalid JSON"},
		{"fail", good + bad + "\n" + tail, convert.Fail, "in:3: stopped at the first line with problems", 3, 1, 0, "in:3:42: error:"},
		{"torn", good + bad, convert.Keep, "", 4, 0, 3, "in:3:42: error: invalid JSON"},
		{"torn skipped", good + bad, convert.Skip, "", 3, 0, 3, "in:3:42: error: invalid JSON"},
		{"torn then blanks", good + bad + "  \r", convert.Keep, "", 4, 0, 3, "in:3:44: error: invalid JSON"},
		{"bad last line with a newline", good + bad + "\n", convert.Keep, "", 4, 1, 0, "in:3:42: error:"},
		{"bad line then blank lines", good + bad + "\n\n  \n", convert.Keep, "", 4, 1, 0, "in:3:42: error:"},
		{"whole last line without newline", good + strings.TrimSuffix(tail, "\n"), convert.Keep, "", 4, 0, 0, ""},
		{"empty", "", convert.Keep, "in: nothing to convert: the input is empty", 0, 0, 0, ""},
		{"blank", "\n  \r\n\t\n", convert.Keep, "in: nothing to convert: the input holds only blank lines (7 bytes)", 0, 0, 0, ""},
		{"utf-16le bom", "\xff\xfe{\x00}\x00\n\x00", convert.Keep, "looks like UTF-16 (it starts with a UTF-16LE byte order mark)", 0, 0, 0, ""},
		{"utf-16le", "{\x00\"\x00", convert.Keep, "looks like UTF-16 (every other byte is NUL, as in UTF-16LE)", 0, 0, 0, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			var diags []string
			res, err := convert.Run(strings.NewReader(c.in), &out, "in", convert.Options{From: lookup(t, "basis"), To: lookup(t, "canonical"), OnError: c.onError},
				func(le *convert.LineError) { diags = append(diags, le.Error()) })
			switch {
			case c.err == "" && err != nil:
				t.Fatalf("error %v", err)
			case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
				t.Fatalf("error %v, want %q", err, c.err)
			}
			if n := strings.Count(out.String(), "\n"); n != c.lines {
				t.Errorf("%d lines written, want %d:\n%s", n, c.lines, out.String())
			}
			if res.Errors != c.errors || res.Torn != c.torn {
				t.Errorf("errors %d torn %d, want %d and %d", res.Errors, res.Torn, c.errors, c.torn)
			}
			if c.diag == "" && len(diags) > 0 || c.diag != "" && (len(diags) != 1 || !strings.HasPrefix(diags[0], c.diag)) {
				t.Errorf("diagnostics %q, want one starting %q", diags, c.diag)
			}
		})
	}
}

// signalWriter reports every write on a channel.
type signalWriter struct {
	buf   bytes.Buffer
	wrote chan string
}

func (w *signalWriter) Write(p []byte) (int, error) {
	w.buf.Write(p)
	w.wrote <- string(p)
	return len(p), nil
}

// A live producer writes a line and waits: the converted line must come out
// before the next input line exists.
func TestLivePipeFlushesEachLine(t *testing.T) {
	pr, pw := io.Pipe()
	sw := &signalWriter{wrote: make(chan string, 16)}
	done := make(chan error, 1)
	go func() {
		_, err := convert.Run(pr, sw, "-", convert.Options{From: lookup(t, "basis"), To: lookup(t, "canonical")}, func(*convert.LineError) {})
		done <- err
	}()
	lines := []string{head, `{"seq":1,"type":"assistant_delta","text":"one"}`, `{"seq":2,"type":"run_finished","status":"ok"}`}
	for _, l := range lines {
		go pw.Write([]byte(l + "\n"))
		select {
		case got := <-sw.wrote:
			if !strings.HasSuffix(got, "\n") {
				t.Fatalf("partial line written: %q", got)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no output for %s while the producer waits", l)
		}
	}
	pw.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestLossesAreCounted(t *testing.T) {
	in := strings.Join([]string{
		`{"seq":0,"type":"session_started","schema":1,"source":{"dialect":"mermaid","version":1},"session_id":"s"}`,
		`{"seq":1,"type":"turn_started","turn_id":"t1","prompt":"go"}`,
		`{"seq":2,"type":"plan_updated","turn_id":"t1","entries":[]}`,
		`{"seq":3,"type":"plan_updated","turn_id":"t1","entries":[{"content":"a","status":"pending"}]}`,
		`{"seq":4,"type":"tool_call","call_id":"c","name":"x"}`,
		`{"seq":5,"type":"tool_finished","call_id":"c","status":"cancelled"}`,
		`{"seq":6,"type":"session_finished","status":"ok"}`,
	}, "\n")
	var out bytes.Buffer
	res, err := convert.Run(strings.NewReader(in), &out, "c", convert.Options{To: lookup(t, "basis")}, func(le *convert.LineError) { t.Error(le) })
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range res.Losses.List() {
		got = append(got, l.String())
	}
	want := []string{
		`approximated 1 tool status "cancelled" (basis says only is_error)`,
		"dropped 2 plan_updated events (basis has no such event)",
		"dropped 1 turn_started event (basis has no turn events; a turn begins at its user_message)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("losses:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	sc := bufio.NewScanner(&out)
	n := 0
	for sc.Scan() {
		n++
	}
	if n != 4 {
		t.Errorf("wrote %d basis lines, want 4:\n%s", n, out.String())
	}
}

func lookupB(b *testing.B, name string) dialect.Dialect {
	b.Helper()
	d, err := dialect.Lookup(name)
	if err != nil {
		b.Fatal(err)
	}
	return d
}
