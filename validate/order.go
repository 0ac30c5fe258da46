package validate

import (
	"bufio"
	"container/heap"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"os"
	"slices"
	"sort"
	"sync"
	"unsafe"

	"github.com/evtool/evtool/diag"
)

// heldMax bounds, roughly in bytes, the diagnostics an orderer keeps in
// memory; more are written to a temporary file, in sorted runs.
var heldMax = 4 << 20

// orderer passes the diagnostics of one input on in the order of the
// report (diag.Compare, and the order they were found among equals), each
// as soon as nothing found later can come before it: the caller tells,
// line by line, below which line everything is found (release). What
// waits is held in memory up to heldMax, then in sorted runs in a
// temporary file, which the orderer merges; so its memory stays flat
// however many diagnostics wait, and however many pass.
type orderer struct {
	out    func(Diagnostic)
	held   []Diagnostic // found, not passed on, in order: held[from:]
	from   int
	late   []Diagnostic // found out of order with held, in order among themselves (add)
	low    int          // the lowest line in held[from:] and late; math.MaxInt if none
	bytes  int          // roughly, the memory of held[from:] and late
	dir    string
	spill  *os.File // the runs, one after another
	size   int64    // of spill
	runs   []*run
	m      merge // the runs not passed on yet, by head
	broken bool  // the spill failed: what comes is held in memory
	direct bool  // add passes on at once
}

// newOrderer returns an orderer that passes diagnostics on to out; a
// direct one passes each on as it is found.
func newOrderer(out func(Diagnostic), dir string, direct bool) *orderer {
	o := &orderer{out: out, dir: dir, direct: direct, low: math.MaxInt}
	o.m.o = o
	return o
}

// add takes a diagnostic as it is found.
func (o *orderer) add(d Diagnostic) {
	if o.direct {
		o.out(d)
		return
	}
	// What comes in order is appended; what comes before the last held
	// (a finding of the stream's end among the lines' own) waits in late,
	// in its place, so that passing on never sorts all that is held: a
	// stream's end may report 100,000 calls never finished, each followed
	// by a release, and a sort of everything held at each one took
	// minutes.
	n, k := len(o.held), len(o.late)
	if (n > o.from && diag.Compare(o.held[n-1], d) > 0) || (k > 0 && diag.Compare(o.late[k-1], d) >= 0) {
		i := sort.Search(len(o.late), func(i int) bool { return diag.Compare(o.late[i], d) > 0 })
		o.late = slices.Insert(o.late, i, d)
		if len(o.late) > 64 && len(o.late) > (len(o.held)-o.from)/4 {
			o.merge()
		}
	} else {
		o.held = append(o.held, d)
	}
	o.low = min(o.low, d.Line)
	o.bytes += footprint(&d)
	if o.bytes > heldMax && !o.broken {
		if err := o.spillRun(); err != nil {
			o.broken = true
		}
	}
}

// footprint is about what a held diagnostic costs.
func footprint(d *Diagnostic) int {
	return int(unsafe.Sizeof(*d)) + len(d.File) + len(d.Rule) + len(d.Pointer) + len(d.Message) + len(d.Keyword) + len(d.SchemaLocation)
}

// release passes on, in order, every diagnostic found so far on a line
// before below: the caller knows that none found later is on such a line.
func (o *orderer) release(below int) {
	if below <= o.low && (o.m.Len() == 0 || below <= o.m.head().Line) {
		return
	}
	// The runs, oldest first, then what is held, then what came late:
	// among equal diagnostics the one found first comes first.
	i, j := o.from, 0
	for {
		var d *Diagnostic
		if o.m.Len() > 0 {
			d = o.m.head()
		}
		src := 0
		if i < len(o.held) && (d == nil || diag.Compare(o.held[i], *d) < 0) {
			d, src = &o.held[i], 1
		}
		if j < len(o.late) && (d == nil || diag.Compare(o.late[j], *d) < 0) {
			d, src = &o.late[j], 2
		}
		if d == nil || d.Line >= below {
			break
		}
		o.out(*d)
		switch {
		case src == 1:
			i++
		case src == 2:
			j++
		case o.runs[o.m.h[0]].next():
			heap.Fix(&o.m, 0)
		default:
			heap.Pop(&o.m)
		}
	}
	o.passLate(j)
	o.pass(i)
	if o.m.Len() == 0 && len(o.runs) > 0 {
		o.dropRuns()
	}
}

// close passes on everything still held and lets go of the spill.
func (o *orderer) close() {
	o.release(math.MaxInt)
	o.dropRuns()
}

// rest returns what is still held, in order, instead of passing it on,
// and lets go of the spill.
func (o *orderer) rest() []Diagnostic {
	var out []Diagnostic
	keep := o.out
	o.out = func(d Diagnostic) { out = append(out, d) }
	o.close()
	o.out = keep
	return out
}

// merge takes late into held, in order: held first among equals, for
// each was found before every late diagnostic it equals.
func (o *orderer) merge() {
	if len(o.late) == 0 {
		return
	}
	h := o.held[o.from:]
	out := make([]Diagnostic, 0, len(h)+len(o.late))
	i, j := 0, 0
	for i < len(h) && j < len(o.late) {
		if diag.Compare(o.late[j], h[i]) < 0 {
			out = append(out, o.late[j])
			j++
		} else {
			out = append(out, h[i])
			i++
		}
	}
	out = append(append(out, h[i:]...), o.late[j:]...)
	clear(o.held)
	clear(o.late)
	o.held, o.from, o.late = out, 0, o.late[:0]
}

// passLate drops late[:j], which were passed on.
func (o *orderer) passLate(j int) {
	for k := range j {
		o.bytes -= footprint(&o.late[k])
	}
	n := copy(o.late, o.late[j:])
	clear(o.late[n:])
	o.late = o.late[:n]
}

// pass drops held[from:i], which were passed on.
func (o *orderer) pass(i int) {
	for j := o.from; j < i; j++ {
		o.bytes -= footprint(&o.held[j])
	}
	clear(o.held[o.from:i])
	o.from = i
	switch n := len(o.held) - o.from; {
	case n == 0:
		o.held, o.from = o.held[:0], 0
		if cap(o.held) > 4096 {
			o.held = nil // let a burst's memory go
		}
	case cap(o.held) > 4096 && n < cap(o.held)/8:
		o.held, o.from = append(make([]Diagnostic, 0, 2*n), o.held[o.from:]...), 0
	case o.from > len(o.held)/2:
		copy(o.held, o.held[o.from:])
		clear(o.held[n:])
		o.held, o.from = o.held[:n], 0
	}
	o.low = math.MaxInt
	if o.from < len(o.held) {
		o.low = o.held[o.from].Line // sorted
	}
	if len(o.late) > 0 {
		o.low = min(o.low, o.late[0].Line)
	}
}

// spillRun writes what is held, sorted, as a run of the spill.
func (o *orderer) spillRun() error {
	if o.spill == nil {
		f, err := os.CreateTemp(o.dir, ".evtool-diagnostics-*")
		if err != nil {
			return err
		}
		os.Remove(f.Name()) // it lives as long as it is open
		o.spill = f
	}
	o.merge()
	start := o.size
	w := bufio.NewWriterSize(&offsetWriter{f: o.spill, off: &o.size}, 64<<10)
	var buf []byte
	for i := o.from; i < len(o.held); i++ {
		buf = appendDiag(buf[:0], &o.held[i])
		if _, err := w.Write(buf); err != nil {
			return err
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	r := &run{br: bufio.NewReaderSize(io.NewSectionReader(o.spill, start, o.size-start), 16<<10)}
	o.runs = append(o.runs, r)
	if r.next() {
		heap.Push(&o.m, len(o.runs)-1)
	}
	clear(o.held)
	o.held, o.from, o.bytes, o.low = o.held[:0], 0, 0, math.MaxInt
	return nil
}

// dropRuns lets go of the runs, all of them passed on, and of the spill.
func (o *orderer) dropRuns() {
	if o.m.Len() > 0 {
		return
	}
	o.runs = nil
	if o.spill != nil {
		o.spill.Close()
		o.spill, o.size = nil, 0
	}
}

type offsetWriter struct {
	f   *os.File
	off *int64
}

func (w *offsetWriter) Write(p []byte) (int, error) {
	n, err := w.f.WriteAt(p, *w.off)
	*w.off += int64(n)
	return n, err
}

// run is a sorted run of the spill, read one diagnostic ahead.
type run struct {
	br   *bufio.Reader
	head Diagnostic
}

func (r *run) next() bool {
	var err error
	r.head, err = readDiag(r.br)
	if err != nil {
		r.br, r.head = nil, Diagnostic{}
		return false
	}
	return true
}

// merge is a heap of the runs with a head, by head, then by age.
type merge struct {
	o *orderer
	h []int
}

func (m *merge) head() *Diagnostic { return &m.o.runs[m.h[0]].head }

func (m *merge) Len() int { return len(m.h) }
func (m *merge) Less(i, j int) bool {
	if c := diag.Compare(m.o.runs[m.h[i]].head, m.o.runs[m.h[j]].head); c != 0 {
		return c < 0
	}
	return m.h[i] < m.h[j]
}
func (m *merge) Swap(i, j int) { m.h[i], m.h[j] = m.h[j], m.h[i] }
func (m *merge) Push(x any)    { m.h = append(m.h, x.(int)) }
func (m *merge) Pop() any {
	x := m.h[len(m.h)-1]
	m.h = m.h[:len(m.h)-1]
	return x
}

// appendDiag encodes a diagnostic for the spill: its numbers as varints,
// its strings with their lengths.
func appendDiag(b []byte, d *Diagnostic) []byte {
	b = binary.AppendUvarint(b, uint64(d.Line))
	b = binary.AppendUvarint(b, uint64(d.Col))
	flags := uint64(d.Severity) << 1
	if d.Unknown {
		flags |= 1
	}
	b = binary.AppendUvarint(b, flags)
	for _, s := range []string{d.File, d.Rule, d.Pointer, d.Message, d.Keyword, d.SchemaLocation} {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	return b
}

var errCorrupt = errors.New("validate: a spilled diagnostic is corrupt")

// readDiag decodes what appendDiag wrote.
func readDiag(br *bufio.Reader) (Diagnostic, error) {
	var d Diagnostic
	line, err := binary.ReadUvarint(br)
	if err != nil {
		return d, err
	}
	col, err := binary.ReadUvarint(br)
	if err != nil {
		return d, errCorrupt
	}
	flags, err := binary.ReadUvarint(br)
	if err != nil {
		return d, errCorrupt
	}
	d.Line, d.Col = int(line), int(col)
	d.Severity, d.Unknown = diag.Severity(flags>>1), flags&1 != 0
	for _, s := range []*string{&d.File, &d.Rule, &d.Pointer, &d.Message, &d.Keyword, &d.SchemaLocation} {
		n, err := binary.ReadUvarint(br)
		if err != nil || n > math.MaxInt32 {
			return d, errCorrupt
		}
		if n == 0 {
			continue
		}
		b := make([]byte, n)
		if _, err := io.ReadFull(br, b); err != nil {
			return d, errCorrupt
		}
		*s = unsafe.String(unsafe.SliceData(b), len(b))
	}
	return d, nil
}

// outbox holds the diagnostics of an input of Run until it is that
// input's turn (open), then passes them on as they come: in memory up to
// heldMax, beyond that in a temporary file. Its methods are safe for
// concurrent use: the input's goroutine puts, Run's opens and closes.
type outbox struct {
	mu      sync.Mutex
	deliver func(Diagnostic)
	dir     string
	live    bool // its turn: put passes on at once
	closed  bool // its turn is over: put drops
	q       []Diagnostic
	bytes   int
	file    *os.File // what waits beyond q, after it, once q outgrew heldMax
	w       *bufio.Writer
	buf     []byte
}

// put takes a diagnostic of the input, in order.
func (o *outbox) put(d Diagnostic) {
	o.mu.Lock()
	defer o.mu.Unlock()
	switch {
	case o.closed:
	case o.live:
		o.deliver(d)
	case o.w != nil:
		o.buf = appendDiag(o.buf[:0], &d)
		o.w.Write(o.buf) // an error shows when it is read back
	default:
		o.q = append(o.q, d)
		o.bytes += footprint(&d)
		if o.bytes > heldMax {
			o.spill()
		}
	}
}

// spill moves what waits to a temporary file, where what follows goes
// too; if none can be made, it waits in memory.
func (o *outbox) spill() {
	f, err := os.CreateTemp(o.dir, ".evtool-diagnostics-*")
	if err != nil {
		return
	}
	os.Remove(f.Name()) // it lives as long as it is open
	o.file, o.w = f, bufio.NewWriterSize(f, 64<<10)
	for i := range o.q {
		o.buf = appendDiag(o.buf[:0], &o.q[i])
		o.w.Write(o.buf)
	}
	o.q, o.bytes = nil, 0
}

// open begins the input's turn: what waits is passed on, then what comes.
func (o *outbox) open() {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, d := range o.q {
		o.deliver(d)
	}
	o.q, o.bytes = nil, 0
	if o.file != nil {
		err := o.w.Flush()
		if err == nil {
			_, err = o.file.Seek(0, io.SeekStart)
		}
		br := bufio.NewReaderSize(o.file, 64<<10)
		for err == nil {
			var d Diagnostic
			if d, err = readDiag(br); err == nil {
				o.deliver(d)
			}
		}
		o.file.Close()
		o.file, o.w = nil, nil
	}
	o.live = true
}

// close ends the input's turn, or drops what it found when it has none.
func (o *outbox) close() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.live, o.closed, o.q = false, true, nil
	if o.file != nil {
		o.file.Close()
		o.file, o.w = nil, nil
	}
}
