package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// fileState is what a script test compares of a path before and after a
// command: its type, inode and mode (not following a symbolic link), and
// its bytes (a regular file) or its target (a link).
type fileState struct {
	exists bool
	mode   os.FileMode
	ino    uint64
	data   []byte
	link   string
}

func stateOf(path string) fileState {
	fi, err := os.Lstat(path)
	if err != nil {
		return fileState{}
	}
	st := fileState{exists: true, mode: fi.Mode()}
	if sys, ok := fi.Sys().(*syscall.Stat_t); ok {
		st.ino = sys.Ino
	}
	switch {
	case fi.Mode().IsRegular():
		st.data, _ = os.ReadFile(path)
	case fi.Mode()&os.ModeSymlink != 0:
		st.link, _ = os.Readlink(path)
	}
	return st
}

func (a fileState) differs(b fileState) string {
	switch {
	case a.exists != b.exists:
		return fmt.Sprintf("exists %v, was %v", b.exists, a.exists)
	case a.mode != b.mode:
		return fmt.Sprintf("mode %v, was %v", b.mode, a.mode)
	case a.ino != b.ino:
		return fmt.Sprintf("inode %d, was %d (replaced)", b.ino, a.ino)
	case !bytes.Equal(a.data, b.data):
		return fmt.Sprintf("%d bytes, were %d (changed)", len(b.data), len(a.data))
	case a.link != b.link:
		return fmt.Sprintf("links to %q, linked to %q", b.link, a.link)
	}
	return ""
}

// snapshots holds each script's snap, by its work directory.
var snapshots sync.Map // string → map[string]fileState

// withHarmCmds adds the commands of the scripts that prove evtool harms
// no file: snap, unharmed, mkfifo and signalrun.
func withHarmCmds(cmds map[string]func(ts *testscript.TestScript, neg bool, args []string)) map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	// snap PATH... records the state of each path (type, inode, mode,
	// bytes or link target).
	cmds["snap"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) == 0 {
			ts.Fatalf("usage: snap PATH...")
		}
		m := map[string]fileState{}
		if v, ok := snapshots.Load(ts.Getenv("WORK")); ok {
			m = v.(map[string]fileState)
		}
		for _, p := range args {
			m[p] = stateOf(ts.MkAbs(p))
		}
		snapshots.Store(ts.Getenv("WORK"), m)
	}
	// unharmed PATH... fails if a path's state differs from its snap.
	cmds["unharmed"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) == 0 {
			ts.Fatalf("usage: unharmed PATH...")
		}
		v, _ := snapshots.Load(ts.Getenv("WORK"))
		m, _ := v.(map[string]fileState)
		for _, p := range args {
			was, ok := m[p]
			if !ok {
				ts.Fatalf("unharmed %s: no snap of it", p)
			}
			if why := was.differs(stateOf(ts.MkAbs(p))); why != "" {
				ts.Fatalf("%s was harmed: %s", p, why)
			}
		}
	}
	// mkfifo PATH makes a named pipe.
	cmds["mkfifo"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 1 {
			ts.Fatalf("usage: mkfifo PATH")
		}
		ts.Check(syscall.Mkfifo(ts.MkAbs(args[0]), 0o644))
	}
	// signalrun SIG DIR ARGS... runs evtool ARGS with its stdin a live
	// pipe that sends a basis header and messages and stays open; once a
	// temporary output file shows in DIR it sends the signal (HUP, INT or
	// TERM), and requires exit 128+signal and no temporary file left in
	// DIR. evtool's stderr is the script's stderr.
	cmds["signalrun"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) < 3 {
			ts.Fatalf("usage: signalrun HUP|INT|TERM DIR ARGS...")
		}
		sig := map[string]syscall.Signal{"HUP": syscall.SIGHUP, "INT": syscall.SIGINT, "TERM": syscall.SIGTERM}[args[0]]
		if sig == 0 {
			ts.Fatalf("signalrun: unknown signal %s", args[0])
		}
		dir := ts.MkAbs(args[1])
		cmd := evtoolCmd(ts, args[2:]...)
		in, err := cmd.StdinPipe()
		ts.Check(err)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		cmd.Stdout = io.Discard
		ts.Check(cmd.Start())
		fmt.Fprintln(in, basisHead)
		for i := 1; i <= 2000; i++ {
			fmt.Fprintf(in, basisMsg+"\n", i, "message "+strconv.Itoa(i))
		}
		// The pipe stays open: evtool waits for more, a temporary file
		// open, until the signal.
		deadline := time.Now().Add(10 * time.Second)
		for {
			m, _ := filepath.Glob(filepath.Join(dir, ".*evtool*"))
			if len(m) > 0 {
				break
			}
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				cmd.Wait()
				ts.Fatalf("no temporary file in %s after 10 s; stderr:\n%s", dir, stderr.String())
			}
			time.Sleep(10 * time.Millisecond)
		}
		ts.Check(cmd.Process.Signal(sig))
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err = <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			ts.Fatalf("evtool still runs 10 s after SIG%s", args[0])
		}
		in.Close()
		ts.Logf("stderr:\n%s", stderr.String())
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 128+int(sig) {
			ts.Fatalf("exit %v after SIG%s, want %d; stderr:\n%s", err, args[0], 128+int(sig), stderr.String())
		}
		if m, _ := filepath.Glob(filepath.Join(dir, ".*evtool*")); len(m) > 0 {
			ts.Fatalf("temporary files left after SIG%s: %q", args[0], m)
		}
		if !bytes.Contains(stderr.Bytes(), []byte("interrupted by SIG"+args[0])) {
			ts.Fatalf("stderr does not say it was interrupted by SIG%s:\n%s", args[0], stderr.String())
		}
	}
	return cmds
}
