package validate

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	_ "github.com/evtool/evtool/adapters"
)

const basisHead = `{"seq":0,"type":"run_started","schema":2,"basis":"0.6.2","session_id":"s","workspace":"/r","model":"m","provider":"p","context_files":[]}`

// TestReportStreams: with Report, a diagnostic is passed on while its
// input is still being read, as soon as the next line shows it final.
func TestReportStreams(t *testing.T) {
	pr, pw := io.Pipe()
	got := make(chan Diagnostic, 16)
	done := make(chan error, 1)
	go func() {
		_, err := Run([]Input{{Name: StdinName}}, RunOptions{Workers: 1, Stdin: pr,
			Report: func(d Diagnostic) { got <- d }}, func(*Result) {})
		done <- err
	}()
	w := bufio.NewWriter(pw)
	fmt.Fprintln(w, basisHead)
	fmt.Fprintln(w, `{"seq":1,"type":"user_message","text":"hi","zz":1}`)
	fmt.Fprintln(w, `{"seq":2,"type":"user_message","text":"ho"}`)
	w.Flush()
	select {
	case d := <-got:
		if d.Line != 2 || d.Rule != "basis/unknown-field" {
			t.Errorf("first diagnostic: %s", d)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no diagnostic passed on while the input is open")
	}
	fmt.Fprintln(w, `{"seq":3,"type":"run_finished","status":"ok"}`)
	w.Flush()
	pw.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if len(got) != 0 {
		t.Errorf("more diagnostics: %s", <-got)
	}
}

// TestReportSameAsResults: whatever the number of workers, MaxErrors and
// the memory diagnostics may wait in, Report passes on exactly what the
// Results list without it, in the same order, and the Results' counts are
// the same.
func TestReportSameAsResults(t *testing.T) {
	dir := t.TempDir()
	var lines []string
	lines = append(lines, basisHead)
	seq := 1
	add := func(format string, args ...any) {
		lines = append(lines, fmt.Sprintf(`{"seq":%d,`, seq)+fmt.Sprintf(format, args...))
		seq++
	}
	for i := range 400 {
		switch i % 7 {
		case 0:
			add(`"type":"tool_queued","tool_call_id":"c%d","tool_name":"t","summary":"","mutability":"read_only","input":{}}`, i)
		case 1:
			add(`"type":"user_message","text":"x","zz%d":1}`, i)
		case 2:
			if i%3 == 0 {
				add(`"type":"tool_completed","tool_call_id":"c%d","tool_name":"t","summary":"ok","is_error":false}`, i-2)
			} else {
				add(`"type":"tool_started","tool_call_id":"c%d","tool_name":"u"}`, i-2)
			}
		case 3:
			add(`"type":"user_message","text":"x"`) // broken
		case 4:
			add(`"type":"frobnicate"}`)
		case 5:
			add(`"type":"tool_started","tool_call_id":"nope%d","tool_name":"t"}`, i)
		case 6:
			seq += i % 2 // a gap
			add(`"type":"user_message","text":"y"}`)
		}
	}
	basis := strings.Join(lines, "\n") + "\n"
	files := map[string]string{
		"a.jsonl": basis,
		"b.jsonl": basis + fmt.Sprintf(`{"seq":%d,"type":"run_finished","status":"ok"}`, seq) + "\n",
		"c.jsonl": "not json\n" + basis,
		"d.jsonl": "",
		"e.jsonl": "banner\n{\"what\":1}\n",
		"f.jsonl": strings.Repeat(`{"type":"tool_started","call_id":"x"}`+"\n", 50),
		"g.jsonl": torn(), // its reading fails part way: a diagnostic on no line
	}
	var ins []Input
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for n := range files {
			if !yield(n) {
				return
			}
		}
	}) {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(files[name]), 0o644); err != nil {
			t.Fatal(err)
		}
		ins = append(ins, Input{Name: p, Path: p})
	}
	defer func(m int) { heldMax = m }(heldMax)
	for _, max := range []int{1 << 30, 2 << 10} {
		heldMax = max
		for _, workers := range []int{1, 2, 4} {
			for _, maxErrors := range []int{0, 1, 2, 5, 30, 300} {
				name := fmt.Sprintf("held %d, %d workers, max %d errors", max, workers, maxErrors)
				opts := RunOptions{Options: Options{MaxErrors: maxErrors}, Workers: workers, SpoolDir: dir}
				want, wantN := collect(t, ins, opts)
				got, gotN := collect(t, ins, opts, true)
				if wantN != gotN || !slices.Equal(want, got) {
					t.Errorf("%s: with Report:\n%s\nwithout:\n%s", name, strings.Join(got, "\n"), strings.Join(want, "\n"))
				}
			}
		}
	}
}

// torn returns a basis stream with a warning a line, gzipped, cut short.
func torn() string {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	fmt.Fprintln(w, basisHead)
	for i := 1; i < 2000; i++ {
		fmt.Fprintf(w, `{"seq":%d,"type":"user_message","text":"x","zz":1}`+"\n", i)
	}
	w.Close()
	return b.String()[:b.Len()*3/4]
}

// collect runs Run and returns the diagnostics of every result in
// order, each result's counts after them; with report, through Report
// (and what a failed input's Result holds).
func collect(t *testing.T, ins []Input, opts RunOptions, report ...bool) ([]string, int) {
	t.Helper()
	var out []string
	if len(report) > 0 {
		opts.Report = func(d Diagnostic) { out = append(out, d.String()) }
	}
	n, err := Run(ins, opts, func(r *Result) {
		for _, d := range r.Diagnostics {
			out = append(out, d.String())
		}
		out = append(out, fmt.Sprintf("%s: %+v %v", filepath.Base(r.File), r.Summary, r.Err))
	})
	if err != nil {
		t.Fatal(err)
	}
	return out, n
}
