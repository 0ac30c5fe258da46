package openset

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// TestAgainstMap: a Set does what a map of the open ids does, through
// adds, flag changes, deletes (which compact the log and shrink the
// index) and lookups, and lists them in the order opened.
func TestAgainstMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	type state struct {
		e   Entry
		seq int
	}
	var s Set
	m := map[string]state{}
	names := []string{"", "read_file", "shell", "edit"}
	for step := range 200000 {
		id := "call_" + strconv.Itoa(rng.IntN(5000))
		switch rng.IntN(4) {
		case 0, 1:
			name := names[rng.IntN(len(names))]
			if rng.IntN(100) == 0 {
				name = fmt.Sprintf("mcp_%d", rng.IntN(1<<20)) // many names: some kept inline
			}
			_, had := m[id]
			if got := s.Add(id, step+1, name); got == had {
				t.Fatalf("step %d: Add(%s) = %v with the id open: %v", step, id, got, had)
			}
			if !had {
				m[id] = state{Entry{Line: step + 1, Name: name}, step}
			}
		case 2:
			want, had := m[id]
			got, ok := s.Delete(id)
			if ok != had || got != want.e {
				t.Fatalf("step %d: Delete(%s) = %+v %v, want %+v %v", step, id, got, ok, want.e, had)
			}
			delete(m, id)
		case 3:
			want, had := m[id]
			got, ok := s.Get(id)
			if ok != had || got != want.e {
				t.Fatalf("step %d: Get(%s) = %+v %v, want %+v %v", step, id, got, ok, want.e, had)
			}
			if had {
				f := uint8(rng.IntN(128))
				s.SetFlags(id, f)
				want.e.Flags = f
				m[id] = want
			}
		}
		if s.Len() != len(m) {
			t.Fatalf("step %d: Len %d, want %d", step, s.Len(), len(m))
		}
	}
	earliest, prev := math.MaxInt, 0
	for _, st := range m {
		earliest = min(earliest, st.e.Line)
	}
	if got := s.Earliest(); got != earliest {
		t.Errorf("Earliest = %d, want %d", got, earliest)
	}
	n := 0
	for id, e := range s.All {
		if want := m[id].e; e != want {
			t.Errorf("All: %s %+v, want %+v", id, e, want)
		}
		if e.Line <= prev {
			t.Errorf("All: line %d after %d", e.Line, prev)
		}
		prev = e.Line
		n++
	}
	if n != len(m) {
		t.Errorf("All lists %d, want %d", n, len(m))
	}
	for id := range m {
		s.Delete(id)
	}
	if s.Len() != 0 || s.Earliest() != math.MaxInt {
		t.Errorf("emptied: Len %d, Earliest %d", s.Len(), s.Earliest())
	}
}

// TestSmall: two million open calls with ids and names as producers write
// them cost about 17 bytes each, and nothing the collector must follow.
func TestSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("two million calls")
	}
	const n = 2_000_000
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var s Set
	for i := range n {
		s.Add("call_"+strconv.Itoa(i+1), 2*i+3, "read_file")
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	per := float64(after.HeapAlloc-before.HeapAlloc) / n
	t.Logf("%.1f bytes per open call", per)
	if per > 20 {
		t.Errorf("%.1f bytes per open call, want at most 20", per)
	}
	if got := s.Earliest(); got != 3 {
		t.Errorf("Earliest = %d, want 3", got)
	}
	runtime.KeepAlive(&s)
}

// BenchmarkOpenCalls: what a checker does for each call of a run that
// leaves them all open: look it up, add it, look it up again.
func BenchmarkOpenCalls(b *testing.B) {
	ids := make([]string, 1<<20)
	for i := range ids {
		ids[i] = "call_" + strconv.Itoa(i+1)
	}
	b.ReportAllocs()
	for b.Loop() {
		var s Set
		for i, id := range ids {
			s.Get(id)
			s.Add(id, 2*i+3, "read_file")
			s.SetFlags(id, 1)
		}
	}
}

// TestLongNames: a name longer than maxNamed (a value the caller packed)
// is kept inline, never numbered, and comes back whole from Get, Delete
// and All, also after the log is compacted.
func TestLongNames(t *testing.T) {
	var s Set
	long := func(i int) string { return fmt.Sprintf("%d:%s", i, strings.Repeat("x", 100+i%50)) }
	for i := range 5000 {
		s.Add(fmt.Sprintf("call_%d", i), i, long(i))
	}
	for i := 0; i < 5000; i += 2 {
		if e, ok := s.Delete(fmt.Sprintf("call_%d", i)); !ok || e.Name != long(i) {
			t.Fatalf("Delete(call_%d) = %q, %v", i, e.Name, ok)
		}
	}
	if len(s.names) != 0 {
		t.Errorf("%d long names numbered, want none", len(s.names))
	}
	n := 0
	for id, e := range s.All {
		var i int
		fmt.Sscanf(id, "call_%d", &i)
		if e.Name != long(i) || e.Line != i {
			t.Fatalf("All: %s = %q line %d", id, e.Name, e.Line)
		}
		n++
	}
	if n != 2500 {
		t.Errorf("All yielded %d, want 2500", n)
	}
	if e, ok := s.Get("call_4999"); !ok || e.Name != long(4999) {
		t.Errorf("Get(call_4999) = %q, %v", e.Name, ok)
	}
}
