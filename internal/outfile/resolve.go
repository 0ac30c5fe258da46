package outfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// kind is what an output path names, which decides how it is written.
type kind int

const (
	// kindNew: nothing is there yet (or a dangling symbolic link points
	// there): a temporary file is renamed to it.
	kindNew kind = iota
	// kindRegular: a regular file, replaced by renaming a temporary file
	// over it.
	kindRegular
	// kindInPlace: a device, a FIFO: opened and written where it is, never
	// renamed or removed, since replacing it with a regular file would
	// destroy it (as root, --valid-out /dev/null once replaced /dev/null).
	kindInPlace
	// kindDescriptor: one of this process's open descriptors, spelled
	// /dev/stdout, /dev/fd/N, /proc/self/fd/N...: written through a
	// duplicate of the descriptor. Reopening the path would start at
	// offset 0 (or truncate: Linux reopens, it does not dup), and renaming
	// over what the link resolves to would replace the file the shell
	// redirected stdout to.
	kindDescriptor
)

// maxLinks bounds the symbolic links followed, as the kernel's ELOOP does.
const maxLinks = 40

// resolved is what an output path names, found before anything is opened.
type resolved struct {
	kind kind
	// target is the path written: symbolic links followed, so that the
	// link stays a link and its target is what is replaced. It is kept
	// as the kernel would read it (never cleaned lexically), since
	// "link/../a" is not "a" when link is a symbolic link to a directory.
	target string
	// fi is the file there now (nil for kindNew).
	fi os.FileInfo
	// dir is the directory a new file goes into, and base its name in
	// it: two new outputs are one file when their directories are one
	// (os.SameFile) and the names are equal.
	dir  os.FileInfo
	base string
	// fd is the descriptor of a kindDescriptor output.
	fd int
}

// resolve follows path to what it names, without changing anything.
func resolve(path string) (*resolved, error) {
	p := path
	for range maxLinks {
		if fd, ok := descriptorOf(p); ok {
			return &resolved{kind: kindDescriptor, target: p, fd: fd}, nil
		}
		dir, base := split(p)
		if base == "" || base == "." || base == ".." {
			return nil, errIsDir
		}
		fi, err := os.Lstat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			dfi, err := os.Stat(dir)
			switch {
			case errors.Is(err, fs.ErrNotExist):
				return nil, fmt.Errorf("the directory %s does not exist: %w", dir, fs.ErrNotExist)
			case err != nil:
				return nil, fmt.Errorf("the directory %s: %w", dir, unwrapPath(err))
			case !dfi.IsDir():
				return nil, fmt.Errorf("%s is not a directory: %w", dir, syscall.ENOTDIR)
			}
			return &resolved{kind: kindNew, target: p, dir: dfi, base: base}, nil
		case errors.Is(err, syscall.ENOTDIR):
			return nil, fmt.Errorf("%s is not a directory: %w", dir, syscall.ENOTDIR)
		case err != nil:
			return nil, unwrapPath(err)
		case fi.Mode()&fs.ModeSymlink != 0:
			l, err := os.Readlink(p)
			if err != nil {
				return nil, unwrapPath(err)
			}
			if !filepath.IsAbs(l) {
				// Relative to the link's directory, as the kernel reads it.
				l = dir + "/" + l
			}
			p = l
			continue
		case fi.IsDir():
			return nil, errIsDir
		case fi.Mode().IsRegular():
			return &resolved{kind: kindRegular, target: p, fi: fi}, nil
		case fi.Mode()&fs.ModeSocket != 0:
			return nil, errors.New("is a socket, which cannot be opened as a file")
		}
		return &resolved{kind: kindInPlace, target: p, fi: fi}, nil
	}
	return nil, fmt.Errorf("more than %d symbolic links: %w", maxLinks, syscall.ELOOP)
}

var errIsDir error = isDirError{}

// isDirError says "is a directory" once (syscall.EISDIR's text is the
// same words) and is still errors.Is(err, syscall.EISDIR).
type isDirError struct{}

func (isDirError) Error() string        { return "is a directory" }
func (isDirError) Is(target error) bool { return target == syscall.EISDIR }

// split cuts p at its last slash, without cleaning it ("a/b/.." stays
// "a/b" and ".."). The directory of a bare name is ".".
func split(p string) (dir, base string) {
	i := strings.LastIndexByte(p, '/')
	switch {
	case i < 0:
		return ".", p
	case i == 0:
		return "/", p[1:]
	}
	return p[:i], p[i+1:]
}

// descriptorOf reports whether p names one of this process's open
// descriptors, and which: /dev/stdin, /dev/stdout, /dev/stderr,
// /dev/fd/N, /proc/self/fd/N, /proc/thread-self/fd/N, /proc/PID/fd/N and
// /proc/PID/task/TID/fd/N with this process's PID, or any other spelling
// of a directory that is /proc/self/fd.
func descriptorOf(p string) (int, bool) {
	switch c := filepath.Clean(p); c {
	case "/dev/stdin":
		return 0, true
	case "/dev/stdout":
		return 1, true
	case "/dev/stderr":
		return 2, true
	}
	dir, base := split(p)
	n, err := strconv.Atoi(base)
	if err != nil || n < 0 || base != strconv.Itoa(n) {
		return 0, false
	}
	cd := filepath.Clean(dir)
	pid := strconv.Itoa(os.Getpid())
	switch cd {
	case "/dev/fd", "/proc/self/fd", "/proc/thread-self/fd", "/proc/" + pid + "/fd":
		return n, true
	}
	if t, ok := strings.CutPrefix(cd, "/proc/"+pid+"/task/"); ok {
		if tid, ok := strings.CutSuffix(t, "/fd"); ok && !strings.Contains(tid, "/") {
			return n, true
		}
	}
	// Another spelling of the directory (a symbolic link to /proc/self/fd,
	// say): the same directory is the same descriptors.
	dfi, err := os.Stat(dir)
	if err != nil || !dfi.IsDir() {
		return 0, false
	}
	self, err := os.Stat("/proc/self/fd")
	if err != nil || !os.SameFile(dfi, self) {
		return 0, false
	}
	return n, true
}

// unwrapPath drops an *fs.PathError's operation and path, which the
// caller's message already carries (the flag and the path as given).
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// dupDescriptor duplicates fd, close-on-exec, so that the output can be
// closed without closing the process's own stdout. A descriptor open for
// reading only (/dev/stdin, say) is refused now rather than at the first
// write, after the run's work. The raw fcntl calls leave the shared file
// description's flags alone (os.File.Fd would make it blocking).
func dupDescriptor(fd int, name string) (*os.File, error) {
	fl, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFL, 0)
	switch {
	case errno == syscall.EBADF:
		return nil, fmt.Errorf("descriptor %d is not open: %w", fd, errno)
	case errno != 0:
		return nil, fmt.Errorf("descriptor %d: %w", fd, errno)
	case fl&syscall.O_ACCMODE == syscall.O_RDONLY:
		return nil, fmt.Errorf("descriptor %d is open for reading only: %w", fd, errReadOnly)
	}
	nfd, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_DUPFD_CLOEXEC, 0)
	if errno != 0 {
		return nil, fmt.Errorf("descriptor %d: %w", fd, errno)
	}
	return os.NewFile(nfd, name), nil
}

// errReadOnly marks a descriptor that cannot be written, a usage error.
var errReadOnly = errors.New("not writable")
