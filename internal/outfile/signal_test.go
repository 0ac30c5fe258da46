package outfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain runs the test binary as a child command when asked to: the
// signal and /dev/stdout cases need a process of their own.
func TestMain(m *testing.M) {
	if mode := os.Getenv("OUTFILE_CHILD"); mode != "" {
		child(mode, os.Getenv("OUTFILE_DIR"))
		return
	}
	os.Exit(m.Run())
}

// child is a command using a Set; it exits 0 on success, 3 on a refusal,
// 4 on any other error.
func child(mode, dir string) {
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, err)
		if errors.Is(err, ErrSameFile) {
			os.Exit(3)
		}
		os.Exit(4)
	}
	s := NewSet()
	switch mode {
	case "signal":
		s.OnSignal = func(sig os.Signal) { fmt.Fprintf(os.Stderr, "interrupted by %v\n", sig) }
		o := s.Add("-o", filepath.Join(dir, "out.jsonl"))
		n := s.Add("--valid-out", filepath.Join(dir, "new.jsonl"))
		if err := s.Open(); err != nil {
			fail(err)
		}
		scratch, err := s.ScratchDir()
		if err != nil {
			fail(err)
		}
		os.WriteFile(filepath.Join(scratch, "spool"), []byte("spooled"), 0o600)
		big := strings.Repeat("x", 4<<20)
		io.WriteString(o, big)
		io.WriteString(n, big)
		fmt.Println("ready")
		time.Sleep(30 * time.Second)
		os.Exit(0)
	case "nohup":
		o := s.Add("-o", filepath.Join(dir, "out.jsonl"))
		if err := s.Open(); err != nil {
			fail(err)
		}
		io.WriteString(o, "survived\n")
		syscall.Kill(os.Getpid(), syscall.SIGHUP)
		time.Sleep(200 * time.Millisecond)
		if err := s.CommitAll(); err != nil {
			fail(err)
		}
	case "stdout-busy": // convert --loss-report /dev/stdout > out.jsonl
		os.Stdout.WriteString("stream\n")
		s.Stream("stdout", os.Stdout)
		s.Stream("stderr", os.Stderr)
		s.Add("--loss-report", os.Getenv("OUTFILE_PATH"))
		if err := s.Open(); err != nil {
			fail(err)
		}
		s.CommitAll()
	case "stdout-free": // convert -o other --loss-report /dev/stdout > out.jsonl
		os.Stdout.WriteString("before\n")
		o := s.Add("-o", filepath.Join(dir, "other.jsonl"))
		r := s.Add("--loss-report", "/dev/stdout")
		if err := s.Open(); err != nil {
			fail(err)
		}
		io.WriteString(o, "stream\n")
		io.WriteString(r, "report\n")
		if err := s.CommitAll(); err != nil {
			fail(err)
		}
		os.Stdout.WriteString("after\n")
	}
	os.Exit(0)
}

func childCmd(t *testing.T, mode, dir string, env ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), append(env, "OUTFILE_CHILD="+mode, "OUTFILE_DIR="+dir)...)
	return cmd
}

// Every signal that ends a command removes its temporary files (and
// scratch directory) and exits with 128+signal, the targets as they were.
func TestSignalSubprocess(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			write(t, filepath.Join(dir, "out.jsonl"), "old\n", 0o644)
			before := snap(t, filepath.Join(dir, "out.jsonl"))
			cmd := childCmd(t, "signal", dir)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			stdout, _ := cmd.StdoutPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			line, _ := bufio.NewReader(stdout).ReadString('\n')
			if line != "ready\n" {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("child: %q, stderr %q", line, stderr.String())
			}
			// The temporary files and the scratch directory exist now.
			if m, _ := filepath.Glob(filepath.Join(dir, ".*evtool-*")); len(m) != 3 {
				t.Errorf("before the signal: %q, want 2 temporary files and a scratch directory", m)
			}
			cmd.Process.Signal(sig)
			cmd.Wait()
			if got := cmd.ProcessState.ExitCode(); got != 128+int(sig) {
				t.Errorf("exit code %d, want %d; stderr %q", got, 128+int(sig), stderr.String())
			}
			if want := "interrupted by " + sig.String() + "\n"; stderr.String() != want {
				t.Errorf("stderr %q, want %q", stderr.String(), want)
			}
			noTemps(t, dir)
			if snap(t, filepath.Join(dir, "out.jsonl")) != before || snap(t, filepath.Join(dir, "new.jsonl")).exists {
				t.Error("a target changed")
			}
		})
	}
}

// A SIGHUP ignored when the command started (nohup) stays ignored.
func TestNohup(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	dir := t.TempDir()
	cmd := childCmd(t, "nohup", dir)
	cmd.Args = []string{sh, "-c", `trap '' HUP; exec "$0" -test.run='^$'`, os.Args[0]}
	cmd.Path = sh
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if got := snap(t, filepath.Join(dir, "out.jsonl")).data; got != "survived\n" {
		t.Errorf("out.jsonl = %q", got)
	}
	noTemps(t, dir)
}

// convert --loss-report /dev/stdout > out.jsonl: stdout carries the
// stream, so the report may not go there, however it is spelled.
func TestDevStdoutRedirected(t *testing.T) {
	dir := t.TempDir()
	os.Symlink("/dev/stdout", filepath.Join(dir, "link"))
	for _, path := range []string{"/dev/stdout", "/dev/fd/1", "/proc/self/fd/1", filepath.Join(dir, "link"), filepath.Join(dir, "out.jsonl"), "/dev/stderr"} {
		p := filepath.Join(dir, "out.jsonl")
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		cmd := childCmd(t, "stdout-busy", dir, "OUTFILE_PATH="+path)
		cmd.Stdout = f
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if path == "/dev/stderr" {
			cmd.Stdout, cmd.Stderr = nil, f // >/dev/null 2> out.jsonl, where diagnostics go
			f.WriteString("stream\n")
		}
		cmd.Run()
		f.Close()
		code := cmd.ProcessState.ExitCode()
		what := "stdout"
		if path == "/dev/stderr" {
			what = "stderr"
		}
		wantErr := "--loss-report " + path + ": is the same file as " + what + "\n"
		if path == "/dev/stderr" {
			if got := snap(t, p).data; code != 3 || got != "stream\n"+wantErr {
				t.Errorf("%s: exit %d, out.jsonl %q", path, code, got)
			}
			continue
		}
		if code != 3 || stderr.String() != wantErr {
			t.Errorf("%s: exit %d, stderr %q, want 3, %q", path, code, stderr.String(), wantErr)
		}
		if got := snap(t, p); got.data != "stream\n" || !got.mode.IsRegular() {
			t.Errorf("%s: out.jsonl %+v", path, got)
		}
		noTemps(t, dir)
	}
}

// convert -o other.jsonl --loss-report /dev/stdout > out.jsonl: stdout
// is free, and the report is written to it in place, after what the
// command wrote before and before what it writes after; out.jsonl is
// never renamed over.
func TestDevStdoutInPlace(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.jsonl")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	ino := snap(t, p).ino
	cmd := childCmd(t, "stdout-free", dir)
	cmd.Stdout = f
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err = cmd.Run()
	f.Close()
	if err != nil {
		t.Fatalf("%v: %s", err, stderr.String())
	}
	if got := snap(t, p); got.data != "before\nreport\nafter\n" || got.ino != ino {
		t.Errorf("out.jsonl %q (inode %d, was %d)", got.data, got.ino, ino)
	}
	if got := snap(t, filepath.Join(dir, "other.jsonl")).data; got != "stream\n" {
		t.Errorf("other.jsonl %q", got)
	}
	noTemps(t, dir)
}

// The handler itself, in this process, with Exit replaced: a real
// SIGHUP removes the temporary files of every open Set, calls OnSignal,
// and asks for 129; the Sets then refuse to commit.
func TestSignalInProcess(t *testing.T) {
	codes := make(chan int, 4)
	exit := Exit
	Exit = func(code int) { codes <- code }
	defer func() { Exit = exit }()

	dir := t.TempDir()
	write(t, filepath.Join(dir, "out.jsonl"), "old\n", 0o644)
	before := snap(t, filepath.Join(dir, "out.jsonl"))
	var got []os.Signal
	s1, s2 := NewSet(), NewSet()
	s1.OnSignal = func(sig os.Signal) { got = append(got, sig) }
	o := s1.Add("-o", filepath.Join(dir, "out.jsonl"))
	n := s2.Add("--valid-out", filepath.Join(dir, "new.jsonl"))
	for _, s := range []*Set{s1, s2} {
		if err := s.Open(); err != nil {
			t.Fatal(err)
		}
		defer s.AbortAll()
	}
	if _, err := s2.ScratchDir(); err != nil {
		t.Fatal(err)
	}
	io.WriteString(o, strings.Repeat("x", 1<<20))
	io.WriteString(n, "line\n")

	reg.mu.Lock()
	installed := reg.ch != nil
	reg.mu.Unlock()
	if !installed {
		t.Fatal("no handler installed while temporary files exist")
	}
	syscall.Kill(os.Getpid(), syscall.SIGHUP)
	select {
	case code := <-codes:
		if code != 129 {
			t.Errorf("exit code %d, want 129", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the handler did not run")
	}
	if len(got) != 1 || got[0] != syscall.SIGHUP {
		t.Errorf("OnSignal got %v", got)
	}
	noTemps(t, dir)
	if snap(t, filepath.Join(dir, "out.jsonl")) != before || snap(t, filepath.Join(dir, "new.jsonl")).exists {
		t.Error("a target changed")
	}
	if _, err := io.WriteString(o, strings.Repeat("y", 1<<20)); err == nil {
		t.Error("writing after the signal succeeded")
	}
	if err := s1.CommitAll(); !errors.Is(err, errInterrupted) {
		t.Errorf("CommitAll after the signal: %v", err)
	}
	noTemps(t, dir)
	s1.AbortAll()
	s2.AbortAll()
	checkUninstalled(t)

	// The exit codes of the others, by the handler directly.
	for sig, want := range map[syscall.Signal]int{syscall.SIGINT: 130, syscall.SIGTERM: 143} {
		handle(sig)
		if code := <-codes; code != want {
			t.Errorf("%v: exit code %d, want %d", sig, code, want)
		}
	}
}
