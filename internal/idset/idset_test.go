package idset

import (
	"strconv"
	"testing"
)

func TestDigestIsFNV1a(t *testing.T) {
	// Published FNV-1a 64 test vectors.
	for s, want := range map[string]uint64{"": 0xcbf29ce484222325, "a": 0xaf63dc4c8601ec8c, "foobar": 0x85944171f73967e8} {
		if got := Digest(s); got != want {
			t.Errorf("Digest(%q) = %#x, want %#x", s, got, want)
		}
	}
}

func TestSet(t *testing.T) {
	var s Set
	if s.Has("x") || s.Len() != 0 {
		t.Fatal("the zero Set is not empty")
	}
	const n = 100000
	for i := range n {
		if s.Add("id"+strconv.Itoa(i), 0) {
			t.Fatalf("id%d reported present before it was added", i)
		}
	}
	// values appear later: the ids added without one read back 0.
	for i := 0; i < n; i += 2 {
		if !s.Add("id"+strconv.Itoa(i), uint64(i)+1) {
			t.Fatalf("id%d not reported present", i)
		}
	}
	if s.Len() != n {
		t.Fatalf("Len = %d, want %d", s.Len(), n)
	}
	for i := range n {
		v, ok := s.Get("id" + strconv.Itoa(i))
		want := uint64(0)
		if i%2 == 0 {
			want = uint64(i) + 1
		}
		if !ok || v != want {
			t.Fatalf("Get(id%d) = %d, %v; want %d, true", i, v, ok, want)
		}
		if s.Has("other" + strconv.Itoa(i)) {
			t.Fatalf("other%d is in the set", i)
		}
	}
	if !s.Has("id0") || s.Has("") {
		t.Fatal("membership is wrong")
	}
	s.Add("", 7)
	if v, ok := s.Get(""); !ok || v != 7 {
		t.Fatalf("the empty id: %d, %v", v, ok)
	}
}

func TestLine(t *testing.T) {
	if Line(-1) != 0 || Line(5) != 5 || Line(1<<40) != 1<<32-1 {
		t.Fatal("Line does not clamp")
	}
}

func BenchmarkAdd(b *testing.B) {
	var s Set
	ids := make([]string, 1<<16)
	for i := range ids {
		ids[i] = "call_" + strconv.Itoa(i)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%len(ids) == 0 {
			s = Set{}
		}
		s.Add(ids[i%len(ids)], uint64(i))
	}
}

// TestGenerations: a Set remembers at least the last max ids, forgets the
// ones two generations back, and never holds more than 2×max.
func TestGenerations(t *testing.T) {
	s := Set{max: 1000}
	for i := range 5500 {
		s.Add("id"+strconv.Itoa(i), uint64(i)+1)
		if s.Len() > 2000 {
			t.Fatalf("after %d ids the set holds %d, more than two generations", i+1, s.Len())
		}
	}
	for i := 4500; i < 5500; i++ {
		if v, ok := s.Get("id" + strconv.Itoa(i)); !ok || v != uint64(i)+1 {
			t.Fatalf("recent id%d: %d, %v", i, v, ok)
		}
	}
	if s.Has("id0") || s.Has("id3000") {
		t.Fatal("ids three generations back are still held")
	}
	// A re-added old id is kept in the new generation and reported present.
	s = Set{max: 2}
	s.Add("a", 1)
	s.Add("b", 2)
	s.Add("c", 3) // a and b move to the old generation
	if !s.Add("a", 4) {
		t.Fatal("an id of the old generation is not reported present")
	}
	if v, _ := s.Get("a"); v != 4 {
		t.Fatalf("the refreshed value is %d, want 4", v)
	}
}
