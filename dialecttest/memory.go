package dialecttest

import (
	"bufio"
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
)

// MaxKept is the most heap a checker, or an encoder and a checker
// together, may keep after a long valid stream of closed items.
const MaxKept = 16 << 20

// Memory is a dialect's own long stream for the memory check: Items items
// (tool calls, tasks), each opened and closed, fed to its checker one line
// at a time and never kept. What the checker keeps after them must stay
// under MaxKept, and the lines Probe feeds afterwards (about closed items)
// must draw exactly the findings Want.
type Memory struct {
	// Items is how many times Item is called.
	Items int
	// What names the items in the log ("closed calls").
	What string
	// Head feeds the lines before the items (a header), Item the lines of
	// item i, Probe the lines after them.
	Head, Probe func(f *Feed)
	Item        func(f *Feed, i int)
	// End says to end the stream after Probe.
	End bool
	// Want are the findings the probe draws, as "RULE: MESSAGE".
	Want []string
}

// Feed gives lines to the checker under test, numbering them from 1.
type Feed struct {
	n        int
	buf      []byte
	ch       dialect.Checker
	report   func(dialect.Finding)
	findings []dialect.Finding
}

// Line feeds the parts, joined, as one line.
func (f *Feed) Line(parts ...string) {
	f.buf = f.buf[:0]
	for _, p := range parts {
		f.buf = append(f.buf, p...)
	}
	f.n++
	f.ch.Line(f.buf, f.n, f.report)
}

// N returns the number of lines fed so far.
func (f *Feed) N() int { return f.n }

func newFeed(ch dialect.Checker) *Feed {
	f := &Feed{ch: ch}
	f.report = func(x dialect.Finding) { f.findings = append(f.findings, x) }
	return f
}

// liveHeap returns the bytes live on the heap after a full collection.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// keptSince returns what the heap grew by since before, never less than 0.
func keptSince(before uint64) uint64 {
	after := liveHeap()
	return after - min(before, after)
}

// genericCalls is how many tool calls the generic stream closes, and
// genericPerCall the most its checker may keep for each: a checker that
// pins a line (of some 300 bytes) for every call is caught.
const (
	genericCalls   = 20_000
	genericPerCall = 256
	// genericDecoded is the most a decoder may keep of each closed call:
	// a digest of its id, say (the ACP decoder kept every call's name and
	// output for the rest of the stream).
	genericDecoded = 64
)

// memory: the generic stream (canonical tool calls in turns, each opened
// and closed, written by the dialect's own encoder) through the encoder
// and the checker together, and then the dialect's own stream, if any,
// through its checker alone.
func (k *kit) memory(t *testing.T) {
	if k.writable {
		k.genericMemory(t)
		k.openMemory(t)
	} else if k.c.Memory == nil {
		t.Error("a read-only dialect cannot be given the generic stream: its corpus must have a Memory stream of its own")
	}
	if m := k.c.Memory; m != nil {
		ownMemory(t, k.d, m)
	}
}

// genericMemory writes the generic stream with the dialect's encoder to a
// file, then feeds the file to its checker: what the checker keeps is
// measured apart from the encoder, and apart from the lines, which a
// checker that pins them would keep alive. What the encoder keeps (it may
// remember closed calls, to write each end once) is logged.
func (k *kit) genericMemory(t *testing.T) {
	pad := strings.Repeat("x", 100)
	path := filepath.Join(t.TempDir(), "generic.jsonl")
	enc := newEncoding(t, k.d, path)
	emit := enc.emit
	emit(`"type":"session_started","schema":1,"source":{"dialect":"canonical"},"session_id":"s","model":"m"`)
	before := liveHeap()
	for i := range genericCalls {
		turn := fmt.Sprintf("t%05d", i/100)
		if i%100 == 0 {
			emit(`"type":"turn_started","turn_id":%q,"prompt":%q`, turn, pad)
		}
		emit(`"type":"tool_call","call_id":"c%07d","name":"read_file","title":%q,"input":{"path":%q}`, i, pad, pad)
		emit(`"type":"tool_started","call_id":"c%07d"`, i)
		emit(`"type":"tool_finished","call_id":"c%07d","status":"success","summary":%q`, i, pad)
		if i%100 == 99 {
			emit(`"type":"turn_finished","turn_id":%q,"status":"ok","text":%q`, turn, pad)
		}
	}
	encKept := keptSince(before)
	enc.finish(false)

	in, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	feed := newFeed(k.d.NewChecker(dialect.CheckOptions{}))
	sc := bufio.NewScanner(in)
	sc.Buffer(nil, 64<<20)
	if !sc.Scan() {
		t.Fatal("the encoder wrote nothing")
	}
	feed.Line(sc.Text()) // the header, before measuring
	before = liveHeap()
	for sc.Scan() {
		feed.Line(string(sc.Bytes()))
	}
	kept := keptSince(before)
	runtime.KeepAlive(feed)
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	for _, f := range feed.findings {
		if f.Severity == dialect.Error {
			t.Fatalf("the written stream has an error at line %d: %s: %s", f.Line, f.Rule, f.Message)
		}
	}
	lines, _ := openLines(t, path)
	decKept, err := decoderKeeps(k.d, lines, len(lines)-1)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("generic: %d closed calls in %d lines; the checker keeps %.1f MiB (%.0f bytes a call), the decoder %.1f MiB (%.0f bytes a call), the encoder %.1f MiB (%.0f bytes a call)",
		genericCalls, feed.N(), float64(kept)/(1<<20), float64(kept)/genericCalls, float64(decKept)/(1<<20), float64(decKept)/genericCalls, float64(encKept)/(1<<20), float64(encKept)/genericCalls)
	if limit := genericCalls * uint64(cmp.Or(k.c.ClosedCallBytes, genericDecoded)); decKept > limit {
		t.Errorf("the decoder keeps %d bytes after %d closed calls, want < %d", decKept, genericCalls, limit)
	}
	if kept > genericCalls*genericPerCall {
		t.Errorf("the checker keeps %d bytes after %d closed calls, want < %d", kept, genericCalls, genericCalls*genericPerCall)
	}
}

func ownMemory(t *testing.T, d dialect.Dialect, m *Memory) {
	feed := newFeed(d.NewChecker(dialect.CheckOptions{}))
	if m.Head != nil {
		m.Head(feed)
	}
	before := liveHeap()
	for i := range m.Items {
		m.Item(feed, i)
	}
	kept := keptSince(before)
	runtime.KeepAlive(feed)
	if len(feed.findings) != 0 {
		t.Fatalf("a valid stream has findings, the first: %v", feed.findings[0])
	}
	what := m.What
	if what == "" {
		what = "items"
	}
	t.Logf("own: the checker keeps %.1f MiB for %d %s in %d lines: %.0f bytes an item",
		float64(kept)/(1<<20), m.Items, what, feed.N(), float64(kept)/float64(max(m.Items, 1)))
	if kept > MaxKept {
		t.Errorf("the checker keeps %d bytes after %d %s, want < %d", kept, m.Items, what, MaxKept)
	}
	if m.Probe != nil {
		m.Probe(feed)
	}
	if m.End {
		feed.ch.End(feed.n, feed.report)
	}
	if len(feed.findings) != len(m.Want) {
		t.Fatalf("the probe drew %d findings, want %d: %v", len(feed.findings), len(m.Want), feed.findings)
	}
	for i, f := range feed.findings {
		if s := f.Rule + ": " + f.Message; s != m.Want[i] {
			t.Errorf("finding %d:\ngot  %s\nwant %s", i, s, m.Want[i])
		}
	}
}

// openCalls is how many calls the open-calls stream leaves open, and
// openPerCall the most its checker and its decoder may keep for each.
// A stream can leave millions of calls open (a producer killed in a long
// turn, or a generator's test); kept in a Go map of values, a call cost
// several hundred bytes to a few kilobytes, and 2,000,000 of them
// gigabytes. Kept compactly (packages openset and idset), tens of bytes.
const (
	openCalls   = 20_000
	openPerCall = 160
)

// openMemory writes, with the dialect's encoder, a turn of calls that
// start and never finish, then reads the stream with its decoder and
// with its checker apart, measuring what each keeps once every call is
// open: what it keeps of each open call. The encoder's share is logged
// (it may need a call's input to write its end).
func (k *kit) openMemory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "open.jsonl")
	enc := newEncoding(t, k.d, path)
	emit := enc.emit
	emit(`"type":"session_started","schema":1,"source":{"dialect":"canonical"},"session_id":"s","model":"m"`)
	emit(`"type":"turn_started","turn_id":"t","prompt":"go"`)
	before := liveHeap()
	for i := range openCalls {
		emit(`"type":"tool_call","call_id":"call_%07d","name":"read_file","input":{"path":"/srv/a.go"}`, i)
		emit(`"type":"tool_started","call_id":"call_%07d"`, i)
	}
	encKept := keptSince(before)
	enc.finish(true)
	lines, last := openLines(t, path)
	if last < 0 {
		t.Logf("open: the dialect writes no call until it finishes (%d lines for %d open calls)", len(lines), openCalls)
		return
	}
	per := func(n uint64) float64 { return float64(n) / openCalls }
	chKept := checkerKeeps(k.d, lines, last)
	decKept, err := decoderKeeps(k.d, lines, last)
	if err != nil {
		t.Fatal(err)
	}
	limit := float64(cmp.Or(k.c.OpenCallBytes, openPerCall))
	t.Logf("open: %d calls never finished in %d lines; kept a call: checker %.0f bytes, decoder %.0f, encoder %.0f (limit %.0f)",
		openCalls, last+1, per(chKept), per(decKept), per(encKept), limit)
	if per(chKept) > limit {
		t.Errorf("the checker keeps %.0f bytes for each open call, want at most %.0f", per(chKept), limit)
	}
	if per(decKept) > limit {
		t.Errorf("the decoder keeps %.0f bytes for each open call, want at most %.0f", per(decKept), limit)
	}
}

// openLines reads the open-calls stream, and finds the line of the last
// call (-1: none has a line): what a stream's end does (closing every
// open call) is not measured.
func openLines(t *testing.T, path string) (lines []string, last int) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines = strings.SplitAfter(strings.TrimSuffix(string(data), "\n"), "\n")
	for i, l := range lines {
		if strings.Contains(l, fmt.Sprintf("call_%07d", openCalls-1)) {
			return lines, i
		}
	}
	return lines, -1
}

// checkerKeeps feeds lines[:last+1] to a new checker and returns what it
// keeps of all but the first.
func checkerKeeps(d dialect.Dialect, lines []string, last int) uint64 {
	ch := d.NewChecker(dialect.CheckOptions{})
	report := func(dialect.Finding) {}
	ch.Line([]byte(lines[0]), 1, report)
	before := liveHeap()
	for i := 1; i <= last; i++ {
		ch.Line([]byte(lines[i]), i+1, report)
	}
	kept := keptSince(before)
	runtime.KeepAlive(ch)
	runtime.KeepAlive(lines) // the stream's text is not the checker's
	return kept
}

// decoderKeeps is checkerKeeps of a new decoder.
func decoderKeeps(d dialect.Dialect, lines []string, last int) (uint64, error) {
	dec := d.NewDecoder(dialect.DecodeOptions{})
	evs, err := dec.Decode(nil, []byte(lines[0]), 1)
	if err != nil {
		return 0, fmt.Errorf("line 1: %w", err)
	}
	clear(evs)
	before := liveHeap()
	for i := 1; i <= last; i++ {
		if evs, err = dec.Decode(evs[:0], []byte(lines[i]), i+1); err != nil {
			return 0, fmt.Errorf("line %d: %w", i+1, err)
		}
		clear(evs)
	}
	kept := keptSince(before)
	runtime.KeepAlive(dec)
	runtime.KeepAlive(lines) // the stream's text is not the decoder's
	return kept, nil
}

// encoding writes canonical events, given as the text of their fields
// without seq, with a dialect's encoder to a file.
type encoding struct {
	t    *testing.T
	file *os.File
	w    *bufio.Writer
	enc  dialect.Encoder
	seq  int
}

func newEncoding(t *testing.T, d dialect.Dialect, path string) *encoding {
	file, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(file, 1<<16)
	return &encoding{t: t, file: file, w: w, enc: d.NewEncoder(w, dialect.EncodeOptions{Losses: &dialect.Losses{}})}
}

// emit encodes one event, its fields given by a format and its arguments.
func (e *encoding) emit(format string, args ...any) {
	line := fmt.Sprintf(`{"seq":%d,`, e.seq) + fmt.Sprintf(format, args...) + "}"
	e.seq++
	ev, err := event.Parse([]byte(line))
	if err != nil {
		e.t.Fatalf("%v\n%s", err, line)
	}
	if err := e.enc.Encode(ev); err != nil {
		e.t.Fatal(err)
	}
}

// finish closes the encoder when asked (it may then end what is open),
// and the file; the encoder is let go.
func (e *encoding) finish(closeEncoder bool) {
	if closeEncoder {
		if err := e.enc.Close(); err != nil {
			e.t.Fatal(err)
		}
	}
	if err := e.w.Flush(); err != nil {
		e.t.Fatal(err)
	}
	if err := e.file.Close(); err != nil {
		e.t.Fatal(err)
	}
	e.enc = nil
}
