package recent

import (
	"strconv"
	"testing"
)

func TestMapForgetsOldest(t *testing.T) {
	m := New[int](3)
	for i := range 5 {
		m.Put(strconv.Itoa(i), i)
	}
	if m.Len() != 3 {
		t.Fatalf("Len = %d, want 3", m.Len())
	}
	for i := range 5 {
		v, ok := m.Get(strconv.Itoa(i))
		if want := i >= 2; ok != want || (ok && v != i) {
			t.Errorf("Get(%d) = %d, %v; want kept %v", i, v, ok, want)
		}
	}
}

// TestMapUpdateKeepsPlace: setting a key again does not make it newer, and
// a deleted key's place in the queue does not let a live key go early.
func TestMapUpdateKeepsPlace(t *testing.T) {
	m := New[int](2)
	m.Put("a", 1)
	m.Put("b", 2)
	m.Put("a", 3) // still the oldest
	m.Put("c", 4)
	if _, ok := m.Get("a"); ok {
		t.Error("a kept: an update made it newer")
	}
	if v, _ := m.Get("b"); v != 2 {
		t.Errorf("b = %d, want 2", v)
	}
	m.Delete("b")
	m.Put("d", 5)
	if _, ok := m.Get("c"); !ok {
		t.Error("c let go although b's deletion made room")
	}
}

// TestMapQueueBounded: a million keys put and deleted leave the queue as
// bounded as the map.
func TestMapQueueBounded(t *testing.T) {
	m := New[struct{}](16)
	for i := range 1_000_000 {
		k := strconv.Itoa(i)
		m.Put(k, struct{}{})
		if i%2 == 0 {
			m.Delete(k)
		}
	}
	if m.Len() > 16 || len(m.queue) > 2*16+16+1 {
		t.Errorf("Len %d, queue %d: want at most 16 and 49", m.Len(), len(m.queue))
	}
}
