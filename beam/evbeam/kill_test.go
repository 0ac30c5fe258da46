package evbeam

import (
	"bytes"
	"io/fs"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestSIGKILLedJobWritesOnce kills the whole evtool-beam process (SIGKILL:
// no deferred function, no clean-up, as a machine or a container dies)
// while it converts 1,000 runs on Prism, once some outputs are written
// and others are not, then runs the same command again, as one reruns a
// failed job. Every output is then present once, with the bytes of a run
// without failure, and no temporary file is left. Prism does not retry a
// bundle (its README: "Prism doesn't retry failed bundles, and simply
// fails the job instead"), so the rerun is the retry here.
func TestSIGKILLedJobWritesOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("builds evtool-beam")
	}
	in := filepath.Join(corpus(t), "gen")
	bin := filepath.Join(t.TempDir(), "evtool-beam")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/evtool/evtool/beam/cmd/evtool-beam").CombinedOutput(); err != nil {
		t.Fatalf("building evtool-beam: %v\n%s", err, out)
	}
	convert := func(out string) *exec.Cmd {
		return exec.Command(bin, "convert", "--to", "canonical", "--out-dir", out, in)
	}
	clean := t.TempDir()
	if out, err := convert(clean).CombinedOutput(); err != nil {
		t.Fatalf("a run without failure: %v\n%s", err, out)
	}
	want := tree(t, clean)
	if len(want) < 500 {
		t.Fatalf("only %d outputs in %s", len(want), clean)
	}

	out := t.TempDir()
	c := convert(out)
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	// Killed when between a tenth and nine tenths of the outputs are
	// written: mid-pipeline.
	deadline := time.Now().Add(5 * time.Minute)
	killed := false
	for !killed && time.Now().Before(deadline) {
		select {
		case err := <-done:
			t.Fatalf("the job ended (%v) before it was killed: %d outputs", err, count(t, out))
		case <-time.After(20 * time.Millisecond):
		}
		if n := count(t, out); n >= len(want)/10 && n <= len(want)*9/10 {
			if err := c.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			killed = true
			t.Logf("killed with %d of %d outputs written", n, len(want))
		}
	}
	if !killed {
		t.Fatal("the job was not killed within five minutes")
	}
	<-done
	if n := count(t, out); n >= len(want) {
		t.Fatalf("%d outputs after the kill: the job was not killed mid-way", n)
	}

	if b, err := convert(out).CombinedOutput(); err != nil {
		t.Fatalf("the job run again: %v\n%s", err, b)
	}
	got := tree(t, out)
	if len(got) != len(want) {
		t.Errorf("%d outputs after the rerun, want %d", len(got), len(want))
	}
	for name, b := range want {
		if !bytes.Equal(got[name], b) {
			t.Errorf("%s: not the bytes of a run without failure", name)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("%s: an output a run without failure does not write", name)
		}
	}
	if left := temps(t, out); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// count counts the files under dir, temporary ones among them, without
// reading them.
func count(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err == nil && !e.IsDir() {
			n++
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}
