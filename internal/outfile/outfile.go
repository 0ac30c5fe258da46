// Package outfile is the one place that decides what a command's output
// may be, and how it is written, so that no command harms the user's
// files.
//
// A command run makes a Set, declares what it reads (Input, InputFile)
// and the standard streams it writes itself (Stream), adds each output
// flag (Add), and opens them all at once (Open). Open refuses, before
// anything is created or written:
//
//   - an output that is an input, a busy stream or another output. Files
//     are compared by identity (os.SameFile), not by name, so that
//     "./a" and "a", "dir/../a", a hard link, a symbolic link (dangling
//     too: two new outputs are one when their directories are one and
//     their names equal), /dev/stdout while stdout is redirected to the
//     file, and stdin redirected from it are all caught. Character
//     devices (/dev/null, a terminal) store nothing and may be shared.
//   - a directory, a socket, "-" and a path whose directory is missing.
//
// What is written depends on what the path names:
//
//   - A regular file, or nothing yet: a temporary file in the target's
//     directory (a symbolic link's target's, so that the link stays a
//     link), with the target's permissions, renamed over the target by
//     CommitAll only when the whole run succeeded, and only after every
//     output of the Set was written and synced: a failing second output
//     leaves the first as it was. AbortAll removes the temporary files.
//     The target's directory must be writable; a hard link to the old
//     file keeps the old contents (the identity check has made sure that
//     link is no input or output of the run).
//   - A device or a FIFO: opened and written in place, never renamed
//     or removed (as root, renaming over /dev/null would replace it).
//   - One of the process's descriptors (/dev/stdout, /dev/stderr,
//     /dev/fd/N, /proc/self/fd/N): written through a duplicate of the
//     descriptor, in place, never reopened (Linux reopens at offset 0,
//     or truncates) and never renamed (over the file stdout was
//     redirected to).
//
// While any Set holds a temporary file (or wants to be told, OnSignal),
// SIGINT, SIGTERM and SIGHUP remove every temporary file of every open
// Set and end the process with 128+signal; see Exit.
package outfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// ErrSameFile is what errors.Is finds in the error of an output refused
// because it is the same file as an input, a stream or another output.
var ErrSameFile = errors.New("is the same file as another input or output")

// Error is why an output cannot be written. It names the flag and the
// path as the user gave them.
type Error struct {
	Flag, Path string
	// Usage is set when the command line asks for what is refused (an
	// output that is an input, a stream or another output; a directory;
	// "-"), and clear when the system failed (a missing directory, no
	// permission, a full disk).
	Usage bool
	Err   error
}

func (e *Error) Error() string {
	if e.Path == "" {
		return e.Flag + ": " + e.Err.Error() // a stream: "stdout: is the same file as …"
	}
	return e.Flag + " " + e.Path + ": " + e.Err.Error()
}
func (e *Error) Unwrap() error { return e.Err }

// sameAs is the cause of a refusal: the output is the same file as what.
type sameAs string

func (s sameAs) Error() string        { return "is the same file as " + string(s) }
func (s sameAs) Is(target error) bool { return target == ErrSameFile }

// errInterrupted is why a Set cannot be committed after a signal removed
// its temporary files (reached only when Exit returns, in tests).
var errInterrupted = errors.New("interrupted by a signal: the temporary files were removed")

// bufSize is each output's buffer: outputs are written line by line, and
// a write per line would cost a system call each.
const bufSize = 256 << 10

type state int

const (
	declaring state = iota
	open
	committing
	committed
	aborted
	interrupted
)

// Set is the files one command run reads and writes. Declare them, Open,
// write the outputs, then CommitAll on success; AbortAll (deferred) on
// every path, which does nothing after CommitAll.
type Set struct {
	// OnSignal, when set before Open, is called when SIGINT, SIGTERM or
	// SIGHUP ends the run, after the temporary files are removed and
	// before Exit, so that the command can say how far it got. It runs on
	// the signal's goroutine, while the command's go on. A Set with
	// OnSignal holds the signal handler even with no temporary file (a
	// command writing to stdout only).
	OnSignal func(os.Signal)

	inputs    []occupant
	streams   []occupant
	protected []occupant // directories no output may be written in
	outs      []*Output

	mu      sync.Mutex // guards state, each output's tmp, scratch
	state   state
	scratch string // the directory ScratchDir made, "" when none
}

// occupant is an input or a stream: a file no output may be.
type occupant struct {
	what string // how a refusal names it
	path string // for Input
	file any    // for InputFile and Stream
}

// Protect declares a directory no output may be written in, at any depth,
// by any path to it (symbolic links followed): an agent's own session
// directory, say, which evtool reads and never writes. A directory that
// does not exist is skipped.
func (s *Set) Protect(dir, what string) {
	s.protected = append(s.protected, occupant{what: what, path: dir})
}

// inProtected names the protected directory a file written at target
// would be in, "" for none.
func (s *Set) inProtected(target string) string {
	if len(s.protected) == 0 {
		return ""
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(target))
	if err != nil {
		return ""
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return ""
	}
	var ps []os.FileInfo
	var names []string
	for _, p := range s.protected {
		if fi, err := os.Stat(p.path); err == nil && fi.IsDir() {
			ps, names = append(ps, fi), append(names, p.what)
		}
	}
	for {
		if fi, err := os.Stat(dir); err == nil {
			for i, p := range ps {
				if os.SameFile(fi, p) {
					return names[i]
				}
			}
		}
		up := filepath.Dir(dir)
		if up == dir {
			return ""
		}
		dir = up
	}
}

// NewSet returns an empty Set.
func NewSet() *Set { return &Set{} }

// Input declares a file the run reads, by path. A path that cannot be
// stat'ed is skipped: reading it will fail and say why.
func (s *Set) Input(path string) {
	s.inputs = append(s.inputs, occupant{what: "the input " + path, path: path})
}

// InputFile declares an open file the run reads, such as stdin, named
// for messages (e.g. "stdin"). Anything but an *os.File (a test's
// buffer) is nothing to protect and is ignored.
func (s *Set) InputFile(name string, r any) {
	s.inputs = append(s.inputs, occupant{what: "the input " + name, file: r})
}

// Stream declares an open file the command writes itself, named for
// messages: stdout when it carries the command's stream or report, and
// stderr, which carries diagnostics. No output may be the same file
// (unless it is a character device, such as a terminal): with stdout
// redirected to out.jsonl, --loss-report /dev/stdout would otherwise
// replace the stream. Anything but an *os.File is ignored.
func (s *Set) Stream(name string, w any) {
	s.streams = append(s.streams, occupant{what: name, file: w})
}

// Add declares an output: the flag that names it (e.g. "--valid-out",
// "-o", for messages) and its path. It returns nil for an empty path (the
// flag was not given); a nil *Output's Writer is a nil io.Writer.
func (s *Set) Add(flag, path string) *Output {
	if path == "" {
		return nil
	}
	o := &Output{set: s, flag: flag, path: path}
	s.outs = append(s.outs, o)
	return o
}

// Outputs returns the outputs added, in order.
func (s *Set) Outputs() []*Output { return s.outs }

// Output is one output of a Set. Its writes are buffered; CommitAll
// flushes them.
type Output struct {
	set        *Set
	flag, path string
	res        *resolved
	f          *os.File      // the file written: temporary, in place or a duplicate descriptor
	tmp        string        // the temporary file's path, "" once renamed or removed (guarded by set.mu)
	bw         *bufio.Writer // nil until Open
}

// Flag returns the flag that named the output.
func (o *Output) Flag() string { return o.flag }

// Path returns the output's path as given.
func (o *Output) Path() string { return o.path }

// InPlace reports whether the output is written where it is (a device, a
// FIFO, a descriptor) rather than through a temporary file: what was
// written to it stays written whether or not the run succeeds. It is
// known once Open succeeded.
func (o *Output) InPlace() bool {
	return o.res != nil && (o.res.kind == kindInPlace || o.res.kind == kindDescriptor)
}

// Writer returns o as an io.Writer, and nil (not a nil *Output in an
// interface) for a nil o, so that an output flag not given can be passed
// on as "no writer".
func (o *Output) Writer() io.Writer {
	if o == nil {
		return nil
	}
	return o
}

// Write buffers p for the output. Errors name the flag and the path.
func (o *Output) Write(p []byte) (int, error) {
	if o.bw == nil {
		return 0, o.fail(false, errors.New("written before Open"))
	}
	n, err := o.bw.Write(p)
	if err != nil {
		err = o.fail(false, err)
	}
	return n, err
}

// Flush writes what is buffered to the file (the temporary one, or a
// device or FIFO in place), so that a live reader sees it: a writer that
// buffers on its own flushes here at its own flush points. It replaces
// nothing; CommitAll does.
func (o *Output) Flush() error {
	if o.bw == nil {
		return o.fail(false, errors.New("flushed before Open"))
	}
	if err := o.bw.Flush(); err != nil {
		return o.fail(false, err)
	}
	return nil
}

func (o *Output) fail(usage bool, err error) *Error {
	return &Error{Flag: o.flag, Path: o.path, Usage: usage, Err: err}
}

// Open checks every output against every input, stream and other output,
// and refuses (an *Error) before anything is created; then it opens them
// all: a temporary file beside each regular or new target, the others in
// place. A FIFO's open waits for its reader. On an error nothing is left
// behind.
func (s *Set) Open() error {
	if s.state != declaring {
		return errors.New("outfile: Open called twice")
	}
	if err := s.check(); err != nil {
		s.closeAll()
		s.state = aborted
		return err
	}
	needSignals := s.OnSignal != nil
	for _, o := range s.outs {
		if o.res.kind == kindNew || o.res.kind == kindRegular {
			needSignals = true
		}
	}
	// Registered first, so that a signal after a temporary file exists
	// finds it.
	if needSignals {
		if err := register(s); err != nil {
			s.closeAll()
			s.state = aborted
			return err
		}
	}
	s.mu.Lock()
	s.state = open
	s.mu.Unlock()
	for _, o := range s.outs {
		if err := s.openOne(o); err != nil {
			s.AbortAll()
			return err
		}
		o.bw = bufio.NewWriterSize(o.f, bufSize)
	}
	return nil
}

// check resolves every output and compares it with everything else.
func (s *Set) check() error {
	type ident struct {
		what string
		fi   os.FileInfo
	}
	var others []ident
	nIn := 0 // how many of others are inputs
	for i, in := range append(s.inputs, s.streams...) {
		var fi os.FileInfo
		var err error
		switch f := in.file.(type) {
		case nil:
			fi, err = os.Stat(in.path)
		case *os.File:
			fi, err = f.Stat()
		default:
			continue
		}
		if err != nil {
			continue
		}
		if i >= len(s.inputs) && fi.Mode().IsRegular() {
			// A stream the command writes (stdout redirected to a
			// file) must not be an input either: the command would read
			// what it writes, and grow the file without end.
			for _, x := range others[:nIn] {
				if os.SameFile(fi, x.fi) {
					return &Error{Flag: in.what, Usage: true, Err: sameAs(x.what)}
				}
			}
		}
		others = append(others, ident{in.what, fi})
		if i < len(s.inputs) {
			nIn++
		}
	}
	type newFile struct {
		what string
		dir  os.FileInfo
		base string
	}
	var news []newFile
	for _, o := range s.outs {
		if o.path == "-" {
			return o.fail(true, errors.New("takes a file name, and - is not one"))
		}
		r, err := resolve(o.path)
		if err != nil {
			return o.fail(errors.Is(err, errIsDir) || errors.Is(err, syscall.ELOOP), err)
		}
		o.res = r
		if r.kind != kindDescriptor {
			if in := s.inProtected(r.target); in != "" {
				return o.fail(true, fmt.Errorf("is inside %s, which evtool never writes", in))
			}
		}
		what := o.flag + " " + o.path
		if r.kind == kindNew {
			for _, n := range news {
				if n.base == r.base && os.SameFile(n.dir, r.dir) {
					return o.fail(true, sameAs(n.what))
				}
			}
			news = append(news, newFile{what, r.dir, r.base})
			continue
		}
		if r.kind == kindDescriptor {
			if o.f, err = dupDescriptor(r.fd, o.path); err != nil {
				return o.fail(errors.Is(err, errReadOnly), err)
			}
			if r.fi, err = o.f.Stat(); err != nil {
				return o.fail(false, unwrapPath(err))
			}
		}
		for _, x := range others {
			if os.SameFile(r.fi, x.fi) && r.fi.Mode()&fs.ModeCharDevice == 0 {
				return o.fail(true, sameAs(x.what))
			}
		}
		others = append(others, ident{what, r.fi})
	}
	return nil
}

// openOne opens one checked output for writing.
func (s *Set) openOne(o *Output) error {
	r := o.res
	switch r.kind {
	case kindDescriptor:
		return nil // duplicated by check
	case kindInPlace:
		// No O_CREATE, no O_TRUNC: a device or FIFO is written as it is.
		// O_NOFOLLOW and the identity check below catch a path changed
		// since check: a regular file there would be overwritten in
		// place, not replaced.
		f, err := os.OpenFile(r.target, os.O_WRONLY|syscall.O_NOFOLLOW, 0)
		if err != nil {
			return o.fail(false, unwrapPath(err))
		}
		if fi, err := f.Stat(); err != nil || !os.SameFile(fi, r.fi) {
			f.Close()
			return o.fail(false, errors.New("changed while it was being opened"))
		}
		o.f = f
		return nil
	}
	dir, base := split(r.target)
	s.mu.Lock()
	if s.state != open {
		s.mu.Unlock()
		return o.fail(false, errInterrupted)
	}
	f, err := os.CreateTemp(dir, "."+base+".evtool-*")
	if err == nil {
		o.f, o.tmp = f, f.Name()
	}
	s.mu.Unlock()
	if err != nil {
		return o.fail(false, fmt.Errorf("creating a temporary file in %s: %w", dir, unwrapPath(err)))
	}
	mode := 0o666 &^ umask()
	if r.fi != nil {
		mode = r.fi.Mode().Perm()
		// Best effort: as root, replacing a user's file must not hand it
		// to root; as anyone else, chown fails and the file is theirs.
		if st, ok := r.fi.Sys().(*syscall.Stat_t); ok && (int(st.Uid) != os.Geteuid() || int(st.Gid) != os.Getegid()) {
			_ = f.Chown(int(st.Uid), int(st.Gid))
		}
	}
	if err := f.Chmod(mode); err != nil {
		return o.fail(false, unwrapPath(err))
	}
	return nil
}

// closeAll closes the descriptors check duplicated, when Open fails
// before anything else was opened.
func (s *Set) closeAll() {
	for _, o := range s.outs {
		if o.f != nil {
			o.f.Close()
			o.f = nil
		}
	}
}

// CommitAll ends a successful run: it flushes every output, syncs and
// closes the temporary files, and only when all of that worked renames
// each over its target. If anything fails, the targets not yet renamed
// are left as they were and their temporary files removed; a rename that
// fails after others succeeded (the directory removed meanwhile, say) is
// the one case where some targets are replaced and some not, and the
// error says which.
func (s *Set) CommitAll() error {
	s.mu.Lock()
	switch s.state {
	case committed:
		s.mu.Unlock()
		return nil
	case interrupted:
		s.mu.Unlock()
		return errInterrupted
	case open:
	default:
		s.mu.Unlock()
		return errors.New("outfile: CommitAll without a successful Open")
	}
	s.state = committing
	s.mu.Unlock()

	// Flushing and syncing may block (a FIFO whose reader is slow, a
	// disk), so they run without the lock, which the signal handler
	// takes.
	var errs []error
	for _, o := range s.outs {
		err := o.bw.Flush()
		if !o.InPlace() && err == nil {
			err = o.f.Sync()
		}
		if cerr := o.f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			errs = append(errs, o.fail(false, unwrapPath(err)))
		}
	}

	s.mu.Lock()
	if s.state == interrupted {
		s.mu.Unlock()
		return errInterrupted
	}
	var replaced []string
	for _, o := range s.outs {
		if o.tmp == "" {
			continue
		}
		if len(errs) == 0 {
			if err := os.Rename(o.tmp, o.res.target); err != nil {
				errs = append(errs, o.fail(false, unwrapLink(err)))
			} else {
				replaced = append(replaced, o.flag+" "+o.path)
				o.tmp = ""
				continue
			}
		}
		os.Remove(o.tmp)
		o.tmp = ""
	}
	s.state = committed
	if len(errs) > 0 {
		s.state = aborted
	}
	s.removeScratch()
	s.mu.Unlock()
	unregister(s)

	if len(errs) > 0 && len(replaced) > 0 {
		errs = append(errs, fmt.Errorf("%s already replaced", strings.Join(replaced, " and ")))
	}
	return errors.Join(errs...)
}

// unwrapLink drops an *os.LinkError's operation and paths: the
// temporary file's name means nothing to the user.
func unwrapLink(err error) error {
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

// AbortAll ends a failed run: the temporary files are removed and the
// targets left as they were. What was written to an output in place is
// flushed, as far as the run got, like a command's stdout. It does
// nothing after CommitAll, so that it can be deferred.
func (s *Set) AbortAll() error {
	s.mu.Lock()
	switch s.state {
	case declaring:
		s.closeAll()
	case open:
	default:
		s.mu.Unlock()
		unregister(s)
		return nil
	}
	s.state = aborted
	var tmps []string
	for _, o := range s.outs {
		if o.tmp != "" {
			tmps = append(tmps, o.tmp)
			o.tmp = ""
		}
	}
	s.removeScratch()
	s.mu.Unlock()

	var errs []error
	for _, o := range s.outs {
		if o.f == nil {
			continue
		}
		if o.InPlace() && o.bw != nil {
			_ = o.bw.Flush()
		}
		o.f.Close()
	}
	for _, t := range tmps {
		if err := os.Remove(t); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	unregister(s)
	return errors.Join(errs...)
}

// ScratchDir returns a private directory, made on the first call, for
// the run's other temporary files (validate's spools), removed with
// everything in it by CommitAll, AbortAll or a signal. It is made beside
// the first output written through a temporary file, so that spooled
// lines go to the disk the outputs go to, else in os.TempDir.
func (s *Set) ScratchDir() (string, error) {
	s.mu.Lock()
	st := s.state
	s.mu.Unlock()
	if st != open {
		return "", errors.New("outfile: ScratchDir without an open Set")
	}
	if err := register(s); err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state != open {
		return "", errInterrupted
	}
	if s.scratch != "" {
		return s.scratch, nil
	}
	dir := os.TempDir()
	for _, o := range s.outs {
		if !o.InPlace() {
			dir, _ = split(o.res.target)
			break
		}
	}
	d, err := os.MkdirTemp(dir, ".evtool-scratch-*")
	if err != nil {
		return "", err
	}
	s.scratch = d
	return d, nil
}

// removeScratch removes ScratchDir's directory; s.mu is held.
func (s *Set) removeScratch() {
	if s.scratch != "" {
		os.RemoveAll(s.scratch)
		s.scratch = ""
	}
}

// interrupt removes every temporary file for the signal handler; the
// files are closed first, so that the command's writes fail rather than
// fill a file no longer there.
func (s *Set) interrupt() {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch s.state {
	case open, committing:
	default:
		return
	}
	s.state = interrupted
	for _, o := range s.outs {
		if o.tmp != "" {
			o.f.Close()
			os.Remove(o.tmp)
			o.tmp = ""
		}
	}
	s.removeScratch()
}

// umask is the process's file mode creation mask, which a new output's
// permissions honour as open(2) would: read once, from /proc when it
// can be, since setting it to read it leaves a window in which another
// goroutine's files get mode 0.
var umask = sync.OnceValue(func() os.FileMode {
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		for line := range strings.Lines(string(b)) {
			if v, ok := strings.CutPrefix(line, "Umask:"); ok {
				if m, err := strconv.ParseUint(strings.TrimSpace(v), 8, 32); err == nil {
					return os.FileMode(m)
				}
			}
		}
	}
	m := syscall.Umask(0)
	syscall.Umask(m)
	return os.FileMode(m)
})
