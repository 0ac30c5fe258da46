package cli

import (
	"bufio"
	"io"
	"sync"
	"time"
)

// liveWriter buffers a report for speed and still shows a live stream's
// diagnostics as they are found: what was written is flushed at most
// liveDelay after the first write since the last flush, by a goroutine of
// its own, so that a run printing millions of lines makes a few flushes a
// second rather than one system call a line, and a run that waits on its
// input leaves nothing unshown while it waits.
type liveWriter struct {
	mu    sync.Mutex
	bw    *bufio.Writer
	err   error // the first flush that failed, for the next Write or Flush
	timer *time.Timer
	armed bool
}

// liveDelay is how long a written diagnostic may wait in the buffer.
const liveDelay = 100 * time.Millisecond

func newLiveWriter(w io.Writer) *liveWriter {
	lw := &liveWriter{bw: bufio.NewWriter(w)}
	lw.timer = time.AfterFunc(time.Hour, lw.tick)
	lw.timer.Stop()
	return lw
}

func (lw *liveWriter) Write(p []byte) (int, error) {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.err != nil {
		return 0, lw.err
	}
	n, err := lw.bw.Write(p)
	if !lw.armed && lw.bw.Buffered() > 0 {
		lw.armed = true
		lw.timer.Reset(liveDelay)
	}
	return n, err
}

// tick flushes what waited liveDelay.
func (lw *liveWriter) tick() {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	lw.armed = false
	if lw.err == nil {
		lw.err = lw.bw.Flush()
	}
}

// Flush writes what is buffered and stops the timer; the writer may be
// written again after it.
func (lw *liveWriter) Flush() error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	lw.timer.Stop()
	lw.armed = false
	if lw.err == nil {
		lw.err = lw.bw.Flush()
	}
	return lw.err
}
