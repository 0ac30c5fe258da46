package cli

import (
	"bytes"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe to read while liveWriter's timer
// writes to it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// A diagnostic written while the input waits reaches the reader without a
// Flush (validate of a live stream shows each as it is found), and what a
// Flush leaves is written at once.
func TestLiveWriterShowsWhatWaits(t *testing.T) {
	var out syncBuffer
	lw := newLiveWriter(&out)
	lw.Write([]byte("first\n"))
	if out.String() != "" {
		t.Fatalf("written through at once: %q (want it buffered)", out.String())
	}
	deadline := time.Now().Add(10 * time.Second)
	for out.String() != "first\n" {
		if time.Now().After(deadline) {
			t.Fatalf("after 10 s the reader has %q, want the line written while the input waits", out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	lw.Write([]byte("second\n"))
	if err := lw.Flush(); err != nil {
		t.Fatal(err)
	}
	if out.String() != "first\nsecond\n" {
		t.Errorf("after Flush: %q", out.String())
	}
}
