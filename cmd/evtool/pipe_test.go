package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf16"

	"github.com/rogpeppe/go-internal/testscript"
)

// scriptCondition adds the conditions [root] (running as root, where file
// permissions do not stop a read) and [devfull] (there is a /dev/full,
// where every write fails with ENOSPC).
func scriptCondition(cond string) (bool, error) {
	switch cond {
	case "root":
		return os.Geteuid() == 0, nil
	case "devfull":
		fi, err := os.Stat("/dev/full")
		return err == nil && fi.Mode()&os.ModeCharDevice != 0, nil
	}
	return false, fmt.Errorf("unknown condition %q", cond)
}

// A basis stream's first and last lines, for generated inputs.
const (
	basisHead = `{"seq":0,"type":"run_started","schema":2,"basis":"0.6.2","session_id":"s","workspace":"/r","model":"m","provider":"p","context_files":[]}`
	basisTail = `{"seq":%d,"type":"run_finished","status":"ok"}`
	basisMsg  = `{"seq":%d,"type":"user_message","text":%q}`
)

// withPipeCmds adds the commands that make inputs no txtar file can hold
// and that drive evtool as a process in a pipe.
func withPipeCmds(cmds map[string]func(ts *testscript.TestScript, neg bool, args []string)) map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	// unhex IN OUT copies IN to OUT with every <xHH> written as the byte
	// HH, for bytes a txtar file cannot hold; <eof> ends OUT there, for
	// a last line without a newline.
	cmds["unhex"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 2 {
			ts.Fatalf("usage: unhex IN OUT")
		}
		in := ts.ReadFile(args[0])
		in, _, _ = strings.Cut(in, "<eof>")
		var b []byte
		for {
			i := strings.Index(in, "<x")
			if i < 0 || i+5 > len(in) || in[i+4] != '>' {
				b = append(b, in...)
				break
			}
			c, err := strconv.ParseUint(in[i+2:i+4], 16, 8)
			ts.Check(err)
			b = append(append(b, in[:i]...), byte(c))
			in = in[i+5:]
		}
		ts.Check(os.WriteFile(ts.MkAbs(args[1]), b, 0o666))
	}
	// basisrun N FILE writes a basis stream of N user messages, with a
	// newline after every line.
	cmds["basisrun"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 2 {
			ts.Fatalf("usage: basisrun N FILE")
		}
		n, err := strconv.Atoi(args[0])
		ts.Check(err)
		var b bytes.Buffer
		b.WriteString(basisHead + "\n")
		for i := 1; i <= n; i++ {
			fmt.Fprintf(&b, basisMsg+"\n", i, "message "+strconv.Itoa(i))
		}
		fmt.Fprintf(&b, basisTail+"\n", n+1)
		ts.Check(os.WriteFile(ts.MkAbs(args[1]), b.Bytes(), 0o666))
	}
	// bigline MIB FILE writes a basis stream whose second line is a user
	// message of MIB mebibytes, made here rather than committed.
	cmds["bigline"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 2 {
			ts.Fatalf("usage: bigline MIB FILE")
		}
		n, err := strconv.Atoi(args[0])
		ts.Check(err)
		f, err := os.Create(ts.MkAbs(args[1]))
		ts.Check(err)
		w := bufio.NewWriter(f)
		w.WriteString(basisHead + "\n" + `{"seq":1,"type":"user_message","text":"`)
		chunk := strings.Repeat("0123456789abcdef", 1<<16) // 1 MiB
		for range n {
			w.WriteString(chunk)
		}
		w.WriteString(`"}` + "\n" + fmt.Sprintf(basisMsg, 2, "after the big line") + "\n" + fmt.Sprintf(basisTail, 3) + "\n")
		ts.Check(w.Flush())
		ts.Check(f.Close())
	}
	// utf16 IN OUT writes IN as UTF-16LE with a byte order mark, as
	// PowerShell's Out-File does.
	cmds["utf16"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 2 {
			ts.Fatalf("usage: utf16 IN OUT")
		}
		u := utf16.Encode([]rune(ts.ReadFile(args[0])))
		b := []byte{0xFF, 0xFE}
		for _, c := range u {
			b = append(b, byte(c), byte(c>>8))
		}
		ts.Check(os.WriteFile(ts.MkAbs(args[1]), b, 0o666))
	}
	// notemp DIR fails if evtool left a temporary output file in DIR.
	cmds["notemp"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 1 {
			ts.Fatalf("usage: notemp DIR")
		}
		m, err := filepath.Glob(filepath.Join(ts.MkAbs(args[0]), ".*.evtool-*"))
		ts.Check(err)
		if (len(m) == 0) == neg {
			ts.Fatalf("temporary files: %q", m)
		}
	}
	// livepipe ARGS... runs evtool ARGS with its stdin a pipe: it writes
	// a basis header and one message, and requires the message to come out
	// converted while the pipe is still open; then it ends the run, closes
	// the pipe and requires exit 0.
	cmds["livepipe"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if neg {
			ts.Fatalf("usage: livepipe ARGS...")
		}
		cmd := evtoolCmd(ts, args...)
		in, err := cmd.StdinPipe()
		ts.Check(err)
		outPipe, err := cmd.StdoutPipe()
		ts.Check(err)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		ts.Check(cmd.Start())
		lines := make(chan string)
		go func() {
			sc := bufio.NewScanner(outPipe)
			for sc.Scan() {
				lines <- sc.Text()
			}
			close(lines)
		}()
		fmt.Fprintf(in, "%s\n"+basisMsg+"\n", basisHead, 1, "live")
		deadline := time.After(20 * time.Second)
		for found := false; !found; {
			select {
			case l, ok := <-lines:
				if !ok {
					ts.Fatalf("evtool ended before the message came out: %s", stderr.String())
				}
				ts.Logf("out: %s", l)
				found = strings.Contains(l, `"text":"live"`)
			case <-deadline:
				cmd.Process.Kill()
				ts.Fatalf("the message did not come out while stdin stayed open")
			}
		}
		fmt.Fprintf(in, basisTail+"\n", 2)
		in.Close()
		for range lines {
		}
		ts.Check(cmd.Wait())
		ts.Logf("stderr: %s", stderr.String())
	}
	cmds["headone"] = headOne
	// interrupt SIGNAL CODE ARGS... runs evtool ARGS with a pipe on stdin
	// that stays open, writes a header and a message, waits until evtool
	// has made its temporary output file, sends SIGNAL (INT or TERM) and
	// requires exit CODE; evtool's stderr goes to interrupt.err.
	cmds["interrupt"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) < 3 {
			ts.Fatalf("usage: interrupt INT|TERM CODE ARGS...")
		}
		sig := map[string]os.Signal{"INT": os.Interrupt, "TERM": syscall.SIGTERM}[args[0]]
		want, err := strconv.Atoi(args[1])
		ts.Check(err)
		cmd := evtoolCmd(ts, args[2:]...)
		in, err := cmd.StdinPipe()
		ts.Check(err)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		ts.Check(cmd.Start())
		fmt.Fprintf(in, "%s\n"+basisMsg+"\n", basisHead, 1, "before the signal")
		deadline := time.Now().Add(20 * time.Second)
		// evtool flushes its output when its input has nothing more
		// buffered: a temporary file with content means both lines were
		// converted.
		for {
			m, _ := filepath.Glob(filepath.Join(ts.Getenv("WORK"), ".*.evtool-*"))
			if len(m) > 0 {
				if fi, err := os.Stat(m[0]); err == nil && fi.Size() > 0 {
					break
				}
			}
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				ts.Fatalf("no temporary output file with content appeared")
			}
			time.Sleep(10 * time.Millisecond)
		}
		ts.Check(cmd.Process.Signal(sig))
		err = cmd.Wait()
		in.Close()
		got := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			got = ee.ExitCode()
		} else if err != nil {
			ts.Fatalf("interrupt: %v", err)
		}
		ts.Check(os.WriteFile(ts.MkAbs("interrupt.err"), stderr.Bytes(), 0o666))
		if got != want {
			ts.Fatalf("evtool exited %d after SIG%s, want %d; stderr: %s", got, args[0], want, stderr.String())
		}
	}
	return cmds
}

// evtoolCmd returns an evtool command as the script would run it: the
// evtool on the script's PATH, in its working directory and environment.
func evtoolCmd(ts *testscript.TestScript, args ...string) *exec.Cmd {
	var bin string
	for _, dir := range filepath.SplitList(ts.Getenv("PATH")) {
		if p := filepath.Join(dir, "evtool"); fileExists(p) {
			bin = p
			break
		}
	}
	if bin == "" {
		ts.Fatalf("no evtool on the script's PATH")
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = ts.Getenv("WORK")
	for _, k := range []string{"PATH", "HOME", "TMPDIR", "WORK"} {
		cmd.Env = append(cmd.Env, k+"="+ts.Getenv(k))
	}
	return cmd
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// headOne is the script command headone ARGS...: it runs evtool ARGS |
// head -1, reading one line of evtool's stdout, closes the pipe and
// requires evtool to end quietly (nothing on stderr; exit 0, or the
// SIGPIPE that ends cat, or 141).
func headOne(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("usage: headone ARGS...")
	}
	cmd := evtoolCmd(ts, args...)
	outPipe, err := cmd.StdoutPipe()
	ts.Check(err)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	ts.Check(cmd.Start())
	first, err := bufio.NewReader(outPipe).ReadString('\n')
	ts.Check(err)
	outPipe.Close()
	err = cmd.Wait()
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee) && ee.Sys().(syscall.WaitStatus).Signal() == syscall.SIGPIPE:
	case errors.As(err, &ee) && ee.ExitCode() == 128+int(syscall.SIGPIPE):
		// Killed by SIGPIPE as a shell reports it: what a run that
		// holds temporary files ends with once it has removed them.
	default:
		ts.Fatalf("evtool | head -1: %v; stderr: %s", err, stderr.String())
	}
	if stderr.Len() > 0 {
		ts.Fatalf("evtool | head -1 printed on stderr: %s", stderr.String())
	}
	ts.Check(os.WriteFile(ts.MkAbs("head.out"), []byte(first), 0o666))

}
