package replay

import (
	"bufio"
	"context"
	"io"
	"strings"
	"testing"
	"time"
)

// initialize is answered without touching the recording: an Opener that
// never returns does not delay it.
func TestInitializeBeforeTheRecording(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	blocked := make(chan struct{})
	open := func() (io.ReadCloser, error) {
		<-blocked
		return io.NopCloser(strings.NewReader("")), nil
	}
	done := make(chan error, 1)
	go func() { done <- Serve(context.Background(), inR, outW, open, Options{}) }()
	start := time.Now()
	go io.WriteString(inW, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`+"\n")
	line, err := bufio.NewReader(outR).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(line, `"loadSession":true`) || time.Since(start) > time.Second {
		t.Errorf("after %v: %s", time.Since(start), line)
	}
	close(blocked)
	inW.Close()
	go io.Copy(io.Discard, outR)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// The pacer lets a burst through at once, then holds the rate.
func TestPacer(t *testing.T) {
	p := newPacer(2000)
	start := time.Now()
	for range rateBurst {
		p.wait()
	}
	if d := time.Since(start); d > 50*time.Millisecond {
		t.Errorf("a burst of %d took %v", rateBurst, d)
	}
	start = time.Now()
	for range 1000 {
		p.wait()
	}
	// 1000 sends at 2000/s: half a second, less the debt not yet paid.
	if d := time.Since(start); d < 400*time.Millisecond || d > 900*time.Millisecond {
		t.Errorf("1000 sends past the burst at 2000/s took %v", d)
	}
	unpaced := newPacer(-1)
	start = time.Now()
	for range 10000 {
		unpaced.wait()
	}
	if d := time.Since(start); d > 100*time.Millisecond {
		t.Errorf("an unpaced pacer waited %v", d)
	}
}
