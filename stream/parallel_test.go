package stream_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/testkit/streamgen"
	"github.com/evtool/evtool/internal/testkit/teststreams"
	"github.com/evtool/evtool/stream"
)

// transcript reads a stream and writes down everything a caller sees of
// each line: number, bytes, verdict, diagnostics and events.
func transcript(t *testing.T, in []byte, opts stream.Options) (string, bool) {
	t.Helper()
	return writeDown(t, in, opts, true)
}

// writeDown is transcript, with the events or without them.
func writeDown(t *testing.T, in []byte, opts stream.Options, events bool) (string, bool) {
	t.Helper()
	rd := stream.NewReader(bytes.NewReader(in), "f", opts)
	defer rd.Close()
	var b strings.Builder
	for {
		l, err := rd.ReadLine()
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Fprintf(&b, "stop: %v\n", err)
			return b.String(), rd.Parallel()
		}
		fmt.Fprintf(&b, "%d %v %q\n", l.N, l.JSON, l.Raw)
		for _, d := range l.Diags {
			fmt.Fprintf(&b, "  %s | %s | %s\n", d.String(), d.Keyword, d.SchemaLocation)
		}
		for _, ev := range l.Events {
			if !events {
				break // the verdict only
			}
			line, err := event.Append(nil, ev)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "  > %s\n", line)
		}
	}
	for _, ev := range rd.End() {
		if !events {
			break
		}
		line, _ := event.Append(nil, ev)
		fmt.Fprintf(&b, "end > %s\n", line)
	}
	return b.String(), rd.Parallel()
}

// TestWorkersSameVerdicts reads every test stream of every dialect, a
// generated stream of each writable one, and streams with broken lines,
// with and without workers: each line must get the same verdict,
// diagnostics and events.
func TestWorkersSameVerdicts(t *testing.T) {
	defer stream.SetParallelThreshold(0)()
	type input struct {
		name string
		d    dialect.Dialect
		data []byte
	}
	var ins []input
	for _, d := range dialect.All() {
		for _, f := range append(teststreams.Valid(d.Name()), teststreams.Invalid(d.Name())...) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			ins = append(ins, input{f, d, data}, input{f + " (detected)", nil, data})
		}
		g, err := streamgen.Bytes(d.Name(), streamgen.Options{Seed: 7, Bytes: 3 << 19})
		if err != nil {
			continue // not a generated dialect
		}
		// Break some lines: a duplicate key, a wrong type, a torn line, a
		// line over the length limit.
		lines := bytes.Split(g, []byte("\n"))
		for i := 50; i < len(lines); i += 997 {
			switch i % 4 {
			case 0:
				lines[i] = append(bytes.TrimSuffix(lines[i], []byte("}")), []byte(`,"type":"x"}`)...)
			case 1:
				lines[i] = bytes.Replace(lines[i], []byte(`"seq":`), []byte(`"seq":"1",`), 1)
			case 2:
				lines[i] = lines[i][:len(lines[i])/2]
			case 3:
				lines[i] = bytes.Repeat([]byte("x"), 70<<10)
			}
		}
		ins = append(ins, input{"generated " + d.Name(), d, bytes.Join(lines, []byte("\n"))})
	}
	for _, in := range ins {
		max, workers := 0, []int{2}
		if strings.HasPrefix(in.name, "generated") {
			max, workers = 64<<10, []int{2, 3}
		}
		{
			simple, _ := transcript(t, in.data, stream.Options{Dialect: in.d, MaxLineBytes: max})
			for _, w := range workers {
				par, started := transcript(t, in.data, stream.Options{Dialect: in.d, MaxLineBytes: max, Workers: w})
				if par != simple {
					t.Errorf("%s, %d workers, max %d: the reading differs from the simple path:\n%s", in.name, w, max, firstDiff(simple, par))
				}
				if strings.HasPrefix(in.name, "generated") && !started {
					t.Errorf("%s: the workers never started", in.name)
				}
			}
		}
	}
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return fmt.Sprintf("line %d:\n  simple:   %.300s\n  parallel: %.300s", i+1, al[i], bl[i])
		}
	}
	return fmt.Sprintf("lengths %d and %d", len(al), len(bl))
}

// TestWorkersLivePipe: with workers, a line written into a pipe that stays
// open comes out at once; the Reader does not wait to fill a batch.
func TestWorkersLivePipe(t *testing.T) {
	defer stream.SetParallelThreshold(0)()
	d, _ := dialect.Lookup("basis")
	pr, pw := io.Pipe()
	rd := stream.NewReader(pr, "pipe", stream.Options{Dialect: d, Workers: 2})
	defer rd.Close()
	lines := []string{head, `{"seq":1,"type":"user_message","text":"hi"}`, `{"seq":2,"type":"assistant_delta","text":"a"}`}
	go pw.Write([]byte(lines[0] + "\n"))
	if _, err := rd.ReadLine(); err != nil { // the simple path, up to the dialect
		t.Fatal(err)
	}
	for i, line := range lines[1:] {
		go pw.Write([]byte(line + "\n"))
		got := make(chan string, 1)
		go func() {
			l, err := rd.ReadLine()
			if err != nil {
				got <- err.Error()
				return
			}
			got <- string(l.Raw)
		}()
		select {
		case g := <-got:
			if g != line {
				t.Fatalf("line %d: got %q", i+2, g)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("line %d did not come out while the pipe stayed open", i+2)
		}
		if !rd.Parallel() {
			t.Fatal("the workers did not start")
		}
	}
	pw.Close()
	if _, err := rd.ReadLine(); err != io.EOF {
		t.Fatalf("after the pipe closed: %v", err)
	}
}

// TestMaxLineBytes: a line over the limit is reported at its line and
// skipped; the lines around it are read.
func TestMaxLineBytes(t *testing.T) {
	long := `{"seq":1,"type":"user_message","text":"` + strings.Repeat("y", 100<<10) + `"}`
	in := head + "\n" + long + "\n" + `{"seq":2,"type":"assistant_delta","text":"a"}` + "\n"
	got, _ := transcript(t, []byte(in), stream.Options{MaxLineBytes: 64 << 10})
	want := "f:2:1: error: the line is 102441 bytes long, over the limit of 65536 (--max-line-bytes); skipped [json/line-length]"
	if !strings.Contains(got, want) || !strings.Contains(got, "3 true") || !strings.Contains(got, "1 true") {
		t.Errorf("got\n%s\nwant a line with %q and lines 1 and 3 read", got, want)
	}
	if got, _ := transcript(t, []byte(in), stream.Options{MaxLineBytes: -1}); strings.Contains(got, "line-length") {
		t.Errorf("no limit still refuses: %s", got)
	}
}

// TestWorkersLongLines: lines longer than a batch travel in batches of
// their own, without a copy, and read as on the simple path, whether they
// come first in a batch or after short lines.
func TestWorkersLongLines(t *testing.T) {
	defer stream.SetParallelThreshold(0)()
	long := func(seq int, c string) string {
		return fmt.Sprintf(`{"seq":%d,"type":"assistant_delta","text":"%s"}`, seq, strings.Repeat(c, 300<<10))
	}
	lines := []string{head, `{"seq":1,"type":"user_message","text":"hi"}`, long(2, "a"), long(3, "b"),
		`{"seq":4,"type":"assistant_delta","text":"c"}`, long(5, "d"), `{"seq":6,"type":"run_finished","status":"ok"}`}
	in := []byte(strings.Join(lines, "\n") + "\n")
	simple, _ := transcript(t, in, stream.Options{})
	par, started := transcript(t, in, stream.Options{Workers: 2})
	if !started {
		t.Fatal("the workers never started")
	}
	if par != simple {
		t.Errorf("the reading differs from the simple path:\n%s", firstDiff(simple, par))
	}
}

// TestKeepLines holds on to every line the workers read with KeepLines, and
// checks each against the input once the whole stream is read: no buffer of
// a kept line may be reused for a later one.
func TestKeepLines(t *testing.T) {
	defer stream.SetParallelThreshold(0)()
	d, err := dialect.Lookup("basis")
	if err != nil {
		t.Fatal(err)
	}
	in, err := streamgen.Bytes("basis", streamgen.Options{Seed: 3, Bytes: 3 << 20})
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Split(strings.TrimSuffix(string(in), "\n"), "\n")
	rd := stream.NewReader(bytes.NewReader(in), "f", stream.Options{Dialect: d, Workers: 2, KeepLines: true})
	defer rd.Close()
	type held struct {
		n   int
		raw []byte
	}
	var kept []held
	for {
		l, err := rd.ReadLine()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if l.Kept {
			kept = append(kept, held{l.N, l.Raw})
		}
	}
	if !rd.Parallel() || len(kept) < len(want)/2 {
		t.Fatalf("parallel %v, %d of %d lines kept: the test does not test the workers", rd.Parallel(), len(kept), len(want))
	}
	for _, h := range kept {
		if string(h.raw) != want[h.n-1] {
			t.Fatalf("line %d changed after it was read: %.60q, want %.60q", h.n, h.raw, want[h.n-1])
		}
	}
}

// verdicts is transcript without the events: each line's number,
// bytes, verdict and diagnostics.
func verdicts(t *testing.T, in []byte, opts stream.Options) string {
	t.Helper()
	out, _ := writeDown(t, in, opts, false)
	return out
}

// TestVerdictsOnlySameVerdicts: with Options.VerdictsOnly (and with
// Summary), every test stream of every dialect, the shared captures and a
// generated stream of each writable dialect with broken lines give each
// line the verdict and diagnostics of a full reading.
func TestVerdictsOnlySameVerdicts(t *testing.T) {
	defer stream.SetParallelThreshold(0)()
	files := 0
	for _, d := range dialect.All() {
		var ins [][]byte
		var names []string
		paths := append(teststreams.Valid(d.Name()), teststreams.Invalid(d.Name())...)
		for _, dir := range []string{"corpus", "dialects-next/captures"} {
			more, _ := filepath.Glob(filepath.Join(teststreams.Root(), "..", "shared", dir, d.Name(), "*.jsonl"))
			paths = append(paths, more...)
		}
		for _, f := range paths {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			ins, names = append(ins, data), append(names, f)
		}
		if g, err := streamgen.Bytes(d.Name(), streamgen.Options{Seed: 11, Bytes: 1 << 19}); err == nil {
			lines := bytes.Split(g, []byte("\n"))
			for i := 40; i < len(lines); i += 331 {
				switch i % 3 {
				case 0:
					lines[i] = append(bytes.TrimSuffix(lines[i], []byte("}")), []byte(`,"type":"x"}`)...)
				case 1:
					lines[i] = lines[i][:len(lines[i])/2]
				case 2:
					lines[i] = bytes.Replace(lines[i], []byte(`"id":"`), []byte(`"id":7,"x":"`), 1)
				}
			}
			ins, names = append(ins, bytes.Join(lines, []byte("\n"))), append(names, "generated "+d.Name())
		}
		for i, in := range ins {
			files++
			full := verdicts(t, in, stream.Options{Dialect: d, Workers: 2})
			for _, o := range []stream.Options{{Dialect: d, Workers: 2, VerdictsOnly: true}, {Dialect: d, VerdictsOnly: true}, {Dialect: d, Workers: 2, Summary: true}} {
				if got := verdicts(t, in, o); got != full {
					t.Errorf("%s (%s), verdicts only %v, summary %v, %d workers: the verdicts differ:\n%s", names[i], d.Name(), o.VerdictsOnly, o.Summary, o.Workers, firstDiff(full, got))
				}
			}
		}
	}
	if files < 100 {
		t.Errorf("only %d streams read", files)
	}
	t.Logf("%d streams", files)
}

// TestOwnLinesStay: a long line is handed on as a buffer of its own
// (Line.Kept without Options.KeepLines; a decoder with UseOwn reads it in
// place): on the simple path and the workers', its bytes are still the
// line's once the whole stream has been read.
func TestOwnLinesStay(t *testing.T) {
	d, err := dialect.Lookup("mermaid")
	if err != nil {
		t.Fatal(err)
	}
	g, err := streamgen.Bytes("mermaid", streamgen.Options{Seed: 5, Bytes: 3 << 20})
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSuffix(g, []byte("\n")), []byte("\n"))
	var in [][]byte
	for i, l := range lines {
		in = append(in, l)
		if i%97 == 3 {
			pad := bytes.Repeat([]byte{byte('a' + i%26)}, 300<<10+i)
			in = append(in, append(append([]byte(`{"type":"x_long","pad":"`), pad...), `"}`...))
		}
	}
	data := bytes.Join(in, []byte("\n"))
	for _, threshold := range []int64{0, 1 << 40} { // workers from the start; never
		restore := stream.SetParallelThreshold(threshold)
		rd := stream.NewReader(bytes.NewReader(data), "f", stream.Options{Dialect: d, Workers: 2})
		type kept struct {
			n   int
			raw []byte
		}
		var ks []kept
		for {
			l, err := rd.ReadLine()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if l.Kept {
				ks = append(ks, kept{l.N, l.Raw})
			}
		}
		rd.Close()
		restore()
		if len(ks) < 10 {
			t.Fatalf("threshold %d: %d lines kept, want every long one", threshold, len(ks))
		}
		for _, k := range ks {
			if !bytes.Equal(k.raw, in[k.n-1]) {
				t.Fatalf("threshold %d: line %d was written over after it was read", threshold, k.n)
			}
		}
	}
}
