package outfile

import (
	"errors"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// fileState is what a path names, to compare before and after a run: the
// file's type, identity, permissions, bytes and a link's target.
type fileState struct {
	exists bool
	mode   fs.FileMode
	ino    uint64
	rdev   uint64
	data   string
	link   string
}

func snap(t *testing.T, p string) fileState {
	t.Helper()
	fi, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return fileState{}
	}
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	s := fileState{exists: true, mode: fi.Mode(), ino: st.Ino, rdev: st.Rdev}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		s.link, err = os.Readlink(p)
	case fi.Mode().IsRegular():
		var b []byte
		b, err = os.ReadFile(p)
		s.data = string(b)
	}
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func write(t *testing.T, p, data string, perm fs.FileMode) {
	t.Helper()
	if err := os.WriteFile(p, []byte(data), perm); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, perm); err != nil { // past the umask
		t.Fatal(err)
	}
}

// noTemps fails if a temporary file or scratch directory is left in dir.
func noTemps(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.Contains(e.Name(), ".evtool-") {
			t.Errorf("left behind: %s", filepath.Join(dir, e.Name()))
		}
	}
}

// refused checks that Open refuses with msg, as a usage error with
// ErrSameFile when same is set.
func refused(t *testing.T, s *Set, msg string, same bool) {
	t.Helper()
	err := s.Open()
	if err == nil {
		s.AbortAll()
		t.Fatalf("Open succeeded, want %q", msg)
	}
	if err.Error() != msg {
		t.Errorf("Open: %q\n                   want %q", err, msg)
	}
	var e *Error
	if !errors.As(err, &e) || !e.Usage {
		t.Errorf("Open: %#v, want a usage *Error", err)
	}
	if errors.Is(err, ErrSameFile) != same {
		t.Errorf("errors.Is(%v, ErrSameFile) = %v, want %v", err, !same, same)
	}
	if s.AbortAll() != nil || s.CommitAll() == nil {
		t.Error("a refused Set must abort quietly and not commit")
	}
}

func TestSameFileSpellings(t *testing.T) {
	for _, exists := range []bool{true, false} {
		for _, second := range []string{"./a.jsonl", "sub/../a.jsonl", "ABS/a.jsonl", "here/a.jsonl", "link.jsonl", "hard.jsonl"} {
			if second == "hard.jsonl" && !exists {
				continue
			}
			name := second + map[bool]string{true: " existing", false: " new"}[exists]
			t.Run(name, func(t *testing.T) {
				dir := t.TempDir()
				t.Chdir(dir)
				os.Mkdir("sub", 0o755)
				os.Symlink(".", "here")
				os.Symlink("a.jsonl", "link.jsonl") // dangling when a.jsonl is new
				if exists {
					write(t, "a.jsonl", "old\n", 0o640)
					os.Link("a.jsonl", "hard.jsonl")
				}
				second := strings.ReplaceAll(second, "ABS", dir)
				before := snap(t, "a.jsonl")
				s := NewSet()
				s.Add("--valid-out", "a.jsonl")
				s.Add("--invalid-out", second)
				refused(t, s, "--invalid-out "+second+": is the same file as --valid-out a.jsonl", true)
				if after := snap(t, "a.jsonl"); after != before {
					t.Errorf("a.jsonl changed: %+v, was %+v", after, before)
				}
				noTemps(t, dir)
			})
		}
	}
}

// A symbolic link to a directory followed by ".." is the link's target's
// parent, as the kernel reads it, not the directory the path spells:
// lexical cleaning would refuse two different files.
func TestDotDotThroughLink(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	os.MkdirAll("sub/inner", 0o755)
	os.Symlink("sub/inner", "deep")
	s := NewSet()
	a := s.Add("--valid-out", "a.jsonl")
	b := s.Add("--invalid-out", "deep/../a.jsonl")
	if err := s.Open(); err != nil {
		t.Fatal(err)
	}
	io.WriteString(a, "valid\n")
	io.WriteString(b, "invalid\n")
	if err := s.CommitAll(); err != nil {
		t.Fatal(err)
	}
	if got := snap(t, "a.jsonl").data; got != "valid\n" {
		t.Errorf("a.jsonl = %q", got)
	}
	if got := snap(t, "sub/a.jsonl").data; got != "invalid\n" {
		t.Errorf("sub/a.jsonl = %q", got)
	}
}

func TestInputs(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	write(t, "m.jsonl", "input\n", 0o644)
	os.Link("m.jsonl", "hard.jsonl")
	os.Symlink("m.jsonl", "link.jsonl")
	before := snap(t, "m.jsonl")
	stdin, err := os.Open("m.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	for _, c := range []struct {
		input func(*Set)
		out   string
		msg   string
	}{
		{func(s *Set) { s.Input("m.jsonl") }, "./m.jsonl", "--valid-out ./m.jsonl: is the same file as the input m.jsonl"},
		{func(s *Set) { s.Input("m.jsonl") }, "hard.jsonl", "--valid-out hard.jsonl: is the same file as the input m.jsonl"},
		{func(s *Set) { s.Input("./link.jsonl") }, "m.jsonl", "--valid-out m.jsonl: is the same file as the input ./link.jsonl"},
		{func(s *Set) { s.Input("/dev/stdin") }, "x.jsonl", ""}, // not a conflict: only to check it is harmless
		// validate - --valid-out m.jsonl < m.jsonl
		{func(s *Set) { s.InputFile("stdin", stdin) }, "m.jsonl", "--valid-out m.jsonl: is the same file as the input stdin"},
		{func(s *Set) { s.InputFile("stdin", stdin) }, "link.jsonl", "--valid-out link.jsonl: is the same file as the input stdin"},
		// An input that cannot be stat'ed, or is no file, protects nothing.
		{func(s *Set) { s.Input("missing.jsonl"); s.InputFile("stdin", strings.NewReader("")) }, "m2.jsonl", ""},
	} {
		s := NewSet()
		c.input(s)
		s.Add("--valid-out", c.out)
		if c.msg == "" {
			if err := s.Open(); err != nil {
				t.Errorf("%s: %v", c.out, err)
			}
			s.AbortAll()
			continue
		}
		refused(t, s, c.msg, true)
	}
	if after := snap(t, "m.jsonl"); after != before {
		t.Errorf("m.jsonl changed: %+v, was %+v", after, before)
	}
	noTemps(t, dir)
}

// fdPaths are the spellings of descriptor n.
func fdPaths(t *testing.T, dir string, n int) []string {
	link := filepath.Join(dir, "fdlink")
	os.Remove(link)
	if err := os.Symlink("/proc/self/fd/"+strconv.Itoa(n), link); err != nil {
		t.Fatal(err)
	}
	fdDir := filepath.Join(dir, "fddir")
	os.Remove(fdDir)
	os.Symlink("/proc/self/fd", fdDir)
	pid := strconv.Itoa(os.Getpid())
	return []string{"/dev/fd/" + strconv.Itoa(n), "/proc/self/fd/" + strconv.Itoa(n), "/proc/" + pid + "/fd/" + strconv.Itoa(n),
		"/proc/thread-self/fd/" + strconv.Itoa(n), link, fdDir + "/" + strconv.Itoa(n)}
}

// A stream the command writes (its stdout redirected to out.jsonl) is no
// output's, however the descriptor is spelled.
func TestStreamDescriptor(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.jsonl")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	io.WriteString(f, "stream\n")
	before := snap(t, p)
	for _, path := range append(fdPaths(t, dir, int(f.Fd())), p) {
		s := NewSet()
		s.Stream("stdout", f)
		s.Add("--loss-report", path)
		refused(t, s, "--loss-report "+path+": is the same file as stdout", true)
	}
	if after := snap(t, p); after != before {
		t.Errorf("out.jsonl changed: %+v, was %+v", after, before)
	}
	noTemps(t, dir)
}

// A descriptor no stream claims is written in place, through a duplicate:
// after what was written to it, never renamed, and still open after.
func TestDescriptorInPlace(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.jsonl")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	io.WriteString(f, "stream\n")
	ino := snap(t, p).ino
	for i, path := range fdPaths(t, dir, int(f.Fd())) {
		s := NewSet()
		o := s.Add("--loss-report", path)
		if err := s.Open(); err != nil {
			t.Fatal(err)
		}
		if !o.InPlace() {
			t.Errorf("%s: not in place", path)
		}
		io.WriteString(o, "report "+strconv.Itoa(i)+"\n")
		if err := s.CommitAll(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := io.WriteString(f, "still open\n"); err != nil {
		t.Fatal(err)
	}
	got := snap(t, p)
	want := "stream\nreport 0\nreport 1\nreport 2\nreport 3\nreport 4\nreport 5\nstill open\n"
	if got.data != want || got.ino != ino || !got.mode.IsRegular() {
		t.Errorf("out.jsonl = %q (inode %d, %v), want %q (inode %d)", got.data, got.ino, got.mode, want, ino)
	}
	noTemps(t, dir)

	// A descriptor open for reading only is refused before the run.
	r, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	s := NewSet()
	path := "/dev/fd/" + strconv.Itoa(int(r.Fd()))
	s.Add("-o", path)
	refused(t, s, "-o "+path+": descriptor "+strconv.Itoa(int(r.Fd()))+" is open for reading only: not writable", false)
	s = NewSet()
	s.Add("-o", "/dev/fd/987")
	if err := s.Open(); err == nil || err.Error() != "-o /dev/fd/987: descriptor 987 is not open: bad file descriptor" {
		t.Errorf("Open: %v", err)
	}
}

// Devices and FIFOs are written in place: never replaced by a regular
// file, never renamed or removed.
func TestDeviceAndFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	os.Symlink("/dev/null", filepath.Join(dir, "null"))
	nullBefore, fifoBefore, linkBefore := snap(t, "/dev/null"), snap(t, fifo), snap(t, filepath.Join(dir, "null"))
	got := make(chan string)
	go func() {
		r, err := os.Open(fifo)
		if err != nil {
			got <- err.Error()
			return
		}
		b, _ := io.ReadAll(r)
		r.Close()
		got <- string(b)
	}()
	s := NewSet()
	null := s.Add("--valid-out", "/dev/null")
	f := s.Add("--invalid-out", fifo)
	viaLink := s.Add("--loss-report", filepath.Join(dir, "null")) // a character device may be shared
	if err := s.Open(); err != nil {
		t.Fatal(err)
	}
	for _, o := range []*Output{null, f, viaLink} {
		if !o.InPlace() {
			t.Errorf("%s: not in place", o.Path())
		}
		io.WriteString(o, "line\n")
	}
	if err := s.CommitAll(); err != nil {
		t.Fatal(err)
	}
	if g := <-got; g != "line\n" {
		t.Errorf("the FIFO's reader got %q", g)
	}
	if a := snap(t, "/dev/null"); a != nullBefore || a.mode&fs.ModeCharDevice == 0 {
		t.Errorf("/dev/null: %+v, was %+v", a, nullBefore)
	}
	if a := snap(t, fifo); a != fifoBefore || a.mode&fs.ModeNamedPipe == 0 {
		t.Errorf("fifo: %+v, was %+v", a, fifoBefore)
	}
	if a := snap(t, filepath.Join(dir, "null")); a != linkBefore {
		t.Errorf("link to /dev/null: %+v, was %+v", a, linkBefore)
	}
	noTemps(t, dir)

	// Two writers on one FIFO would interleave: refused.
	s = NewSet()
	s.Add("--valid-out", fifo)
	s.Add("--invalid-out", filepath.Join(dir, ".", "fifo"))
	refused(t, s, "--invalid-out "+filepath.Join(dir, ".", "fifo")+": is the same file as --valid-out "+fifo, true)
}

// A symbolic link stays a link: its target is replaced, keeping its
// permissions (and owner); a dangling link's target is created.
func TestSymlinks(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	os.Mkdir("sub", 0o755)
	write(t, "sub/t.jsonl", "old\n", 0o640)
	if os.Geteuid() == 0 {
		os.Chown("sub/t.jsonl", 1234, 5678)
	}
	os.Symlink("sub/t.jsonl", "link")
	os.Symlink("../new.jsonl", "sub/dangling") // relative to the link's directory
	linkBefore, danglingBefore, oldIno := snap(t, "link"), snap(t, "sub/dangling"), snap(t, "sub/t.jsonl").ino

	s := NewSet()
	a := s.Add("-o", "link")
	b := s.Add("--loss-report", "sub/dangling")
	if err := s.Open(); err != nil {
		t.Fatal(err)
	}
	if a.InPlace() || b.InPlace() {
		t.Error("a regular or new target must go through a temporary file")
	}
	io.WriteString(a, "new\n")
	io.WriteString(b, "report\n")
	// Nothing is replaced before CommitAll.
	if snap(t, "sub/t.jsonl").data != "old\n" || snap(t, "new.jsonl").exists {
		t.Fatal("a target changed before CommitAll")
	}
	if err := s.CommitAll(); err != nil {
		t.Fatal(err)
	}
	if snap(t, "link") != linkBefore || snap(t, "sub/dangling") != danglingBefore {
		t.Error("a link was replaced")
	}
	tgt := snap(t, "sub/t.jsonl")
	if tgt.data != "new\n" || tgt.mode != 0o640 || tgt.ino == oldIno {
		t.Errorf("sub/t.jsonl: %q, %v, inode %d (was %d): want new contents, 0640, renamed", tgt.data, tgt.mode, tgt.ino, oldIno)
	}
	if os.Geteuid() == 0 {
		fi, _ := os.Stat("sub/t.jsonl")
		if st := fi.Sys().(*syscall.Stat_t); st.Uid != 1234 || st.Gid != 5678 {
			t.Errorf("owner %d:%d, want 1234:5678", st.Uid, st.Gid)
		}
	}
	nw := snap(t, "new.jsonl")
	if nw.data != "report\n" || nw.mode != 0o666&^umask() {
		t.Errorf("new.jsonl: %q, %v, want 'report', %v", nw.data, nw.mode, 0o666&^umask())
	}
	noTemps(t, dir)
	noTemps(t, filepath.Join(dir, "sub"))
}

func TestRefused(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	os.Mkdir("d", 0o755)
	os.Symlink("loop", "loop")
	os.Symlink("d", "dlink")
	l, err := net.Listen("unix", filepath.Join(dir, "sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for path, msg := range map[string]string{
		"d":      "is a directory",
		"d/":     "is a directory",
		"dlink":  "is a directory",
		"d/..":   "is a directory",
		".":      "is a directory",
		"-":      "takes a file name, and - is not one",
		"loop":   "more than 40 symbolic links: too many levels of symbolic links",
		"sock":   "is a socket, which cannot be opened as a file",
		"sock/x": "", // checked below: not a directory
	} {
		if msg == "" {
			continue
		}
		s := NewSet()
		s.Add("--valid-out", path)
		usage := path != "sock"
		err := s.Open()
		var e *Error
		if err == nil || err.Error() != "--valid-out "+path+": "+msg || !errors.As(err, &e) || e.Usage != usage {
			t.Errorf("%s: %#v, want %q (usage %v)", path, err, msg, usage)
		}
	}
	s := NewSet()
	s.Add("--valid-out", "sock/x")
	if err := s.Open(); err == nil || err.Error() != "--valid-out sock/x: sock is not a directory: not a directory" {
		t.Errorf("sock/x: %v", err)
	}
	noTemps(t, dir)
}

// A failing --loss-report (its directory missing) is found by Open,
// before -o is touched.
func TestMissingDirectory(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	write(t, "out.jsonl", "old\n", 0o644)
	before := snap(t, "out.jsonl")
	s := NewSet()
	s.Add("-o", "out.jsonl")
	s.Add("--loss-report", "nodir/l.json")
	err := s.Open()
	var e *Error
	if err == nil || err.Error() != "--loss-report nodir/l.json: the directory nodir does not exist: file does not exist" ||
		!errors.Is(err, fs.ErrNotExist) || !errors.As(err, &e) || e.Usage {
		t.Errorf("Open: %v", err)
	}
	s.AbortAll()
	if snap(t, "out.jsonl") != before {
		t.Error("out.jsonl changed")
	}
	noTemps(t, dir)
}

// Outputs are committed together, after every one was written: a second
// output that fails leaves the first as it was.
func TestFailingOutputLeavesOthers(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	write(t, "out.jsonl", "old\n", 0o644)
	before := snap(t, "out.jsonl")
	s := NewSet()
	o := s.Add("-o", "out.jsonl")
	n := s.Add("--valid-out", "new.jsonl")
	full := s.Add("--loss-report", "/dev/full")
	defer s.AbortAll()
	if err := s.Open(); err != nil {
		t.Fatal(err)
	}
	io.WriteString(o, "new\n")
	io.WriteString(n, "new\n")
	io.WriteString(full, "report\n")
	err := s.CommitAll()
	if err == nil || err.Error() != "--loss-report /dev/full: no space left on device" || !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("CommitAll: %v", err)
	}
	if snap(t, "out.jsonl") != before || snap(t, "new.jsonl").exists {
		t.Error("an output was replaced though another failed")
	}
	noTemps(t, dir)
	if s.AbortAll() != nil {
		t.Error("AbortAll after a failed CommitAll")
	}
}

func TestAbortAll(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	write(t, "out.jsonl", "old\n", 0o600)
	before := snap(t, "out.jsonl")
	s := NewSet()
	o := s.Add("-o", "out.jsonl")
	n := s.Add("--valid-out", "new.jsonl")
	if s.Add("--invalid-out", "") != nil || s.Add("--invalid-out", "").Writer() != nil {
		t.Error("an empty path must give nil, and a nil io.Writer")
	}
	if _, err := o.Write([]byte("x")); err == nil {
		t.Error("Write before Open succeeded")
	}
	if err := s.Open(); err != nil {
		t.Fatal(err)
	}
	if len(s.Outputs()) != 2 {
		t.Errorf("Outputs: %d", len(s.Outputs()))
	}
	scratch, err := s.ScratchDir()
	if err != nil || !strings.HasPrefix(scratch, "./.evtool-scratch-") {
		t.Fatalf("ScratchDir: %q, %v; want it beside -o out.jsonl", scratch, err)
	}
	write(t, filepath.Join(scratch, "spool"), "spooled", 0o600)
	io.WriteString(o, strings.Repeat("x", 1<<20))
	io.WriteString(n, "new\n")
	if err := s.AbortAll(); err != nil {
		t.Fatal(err)
	}
	if err := s.AbortAll(); err != nil {
		t.Error("AbortAll twice:", err)
	}
	if s.CommitAll() == nil {
		t.Error("CommitAll after AbortAll succeeded")
	}
	if snap(t, "out.jsonl") != before || snap(t, "new.jsonl").exists {
		t.Error("a target changed")
	}
	noTemps(t, dir)
	checkUninstalled(t)

	// After CommitAll, AbortAll (deferred) does nothing.
	s = NewSet()
	o = s.Add("-o", "out.jsonl")
	s.Open()
	io.WriteString(o, "committed\n")
	if err := s.CommitAll(); err != nil {
		t.Fatal(err)
	}
	if s.AbortAll() != nil || s.CommitAll() != nil || snap(t, "out.jsonl").data != "committed\n" {
		t.Error("AbortAll after CommitAll undid it")
	}
	if snap(t, "out.jsonl").mode != 0o600 {
		t.Errorf("mode %v, want 0600", snap(t, "out.jsonl").mode)
	}
	noTemps(t, dir)
	checkUninstalled(t)
}

func checkUninstalled(t *testing.T) {
	t.Helper()
	reg.mu.Lock()
	defer reg.mu.Unlock()
	if len(reg.sets) != 0 || reg.ch != nil {
		t.Errorf("the signal handler is still installed for %d sets", len(reg.sets))
	}
}

// TestStreamIsAnInput: stdout redirected to the input (evtool convert
// in.jsonl >> in.jsonl) is refused: the command would read what it
// writes and grow the file without end.
func TestStreamIsAnInput(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	if err := os.WriteFile(in, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, err := os.OpenFile(in, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer stdout.Close()
	s := NewSet()
	defer s.AbortAll()
	s.Input(in)
	s.Stream("stdout", stdout)
	err = s.Open()
	var oe *Error
	if !errors.As(err, &oe) || !oe.Usage || !errors.Is(err, ErrSameFile) || err.Error() != "stdout: is the same file as the input "+in {
		t.Fatalf("Open: %v, want stdout refused as the input", err)
	}
	// A stream that is another file, or a character device, is fine.
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	s = NewSet()
	s.Input(in)
	s.Stream("stdout", null)
	if err := s.Open(); err != nil {
		t.Fatalf("Open with stdout on /dev/null: %v", err)
	}
	s.AbortAll()
}

// TestProtect: no output inside a protected directory, at any depth and by
// any path to it, new file or existing; outside it, outputs are fine.
func TestProtect(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	os.MkdirAll("agent/projects/p", 0o755)
	os.Mkdir("elsewhere", 0o755)
	os.Symlink("agent", "via-link")
	write(t, "agent/projects/p/s.jsonl", "line\n", 0o644)
	before := snap(t, "agent/projects/p/s.jsonl")
	for _, c := range []struct {
		out string
		bad bool
	}{
		{"agent/projects/p/new.jsonl", true},
		{"agent/projects/p/s.jsonl", true},
		{"via-link/projects/x.jsonl", true},
		{"agent/../agent/y.jsonl", true},
		{"elsewhere/z.jsonl", false},
		{"agent2.jsonl", false},
	} {
		s := NewSet()
		s.Protect("agent", "claude's sessions")
		s.Add("-o", c.out)
		err := s.Open()
		if got := err != nil; got != c.bad {
			t.Errorf("-o %s: error %v, want refused %v", c.out, err, c.bad)
		}
		if err != nil && !strings.Contains(err.Error(), "is inside claude's sessions, which evtool never writes") {
			t.Errorf("-o %s: %v", c.out, err)
		}
		s.AbortAll()
	}
	if after := snap(t, "agent/projects/p/s.jsonl"); after != before {
		t.Error("the protected file changed")
	}
	if _, err := os.Stat("agent/projects/p/new.jsonl"); err == nil {
		t.Error("a file was made in the protected directory")
	}
}
