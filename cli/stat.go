package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"syscall"
)

// output is where convert writes: standard output, or a file that is
// written as a temporary file beside it and renamed over it only when the
// run succeeds, so that a failed or interrupted run leaves it as it was.
type output struct {
	w      io.Writer
	name   string // the target's name, "" for standard output
	f      *os.File
	tmp    string // the temporary file, "" when writing in place
	target string // where the temporary file goes, symbolic links resolved

	mu   sync.Mutex
	done bool
}

// umask is the process's file mode creation mask, read once.
var umask = sync.OnceValue(func() os.FileMode {
	m := syscall.Umask(0)
	syscall.Umask(m)
	return os.FileMode(m)
})

// createOutput opens -o FILE for writing. A regular file (or none yet) is
// written through a temporary file in the same directory; anything else
// (a device such as /dev/null, a FIFO) is written in place.
func createOutput(name string) (*output, error) {
	target := name
	if t, err := filepath.EvalSymlinks(name); err == nil {
		target = t
	}
	fi, err := os.Stat(target)
	switch {
	case err == nil && fi.IsDir():
		return nil, fmt.Errorf("%s: is a directory", name)
	case err == nil && !fi.Mode().IsRegular():
		f, err := os.OpenFile(target, os.O_WRONLY, 0)
		if err != nil {
			return nil, err
		}
		return &output{w: f, name: name, f: f}, nil
	case err != nil && !errors.Is(err, os.ErrNotExist):
		return nil, err
	}
	mode := 0o666 &^ umask()
	if fi != nil {
		mode = fi.Mode().Perm()
	}
	f, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".evtool-*")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := f.Chmod(mode); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return &output{w: f, name: name, f: f, tmp: f.Name(), target: target}, nil
}

// commit makes the written output the target: the temporary file is
// synced and renamed over it.
func (o *output) commit() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.done || o.f == nil {
		return nil
	}
	o.done = true
	if o.tmp == "" {
		return o.f.Close()
	}
	err := o.f.Sync()
	if cerr := o.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(o.tmp, o.target)
	}
	if err != nil {
		os.Remove(o.tmp)
		return fmt.Errorf("%s: %w", o.name, err)
	}
	return nil
}

// abort removes the temporary file; the target stays as it was. It
// reports whether there was a target to keep.
func (o *output) abort() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.done || o.f == nil {
		return o.f != nil
	}
	o.done = true
	o.f.Close()
	if o.tmp != "" {
		os.Remove(o.tmp)
	}
	return true
}

// sameFile reports whether two files are one (os.SameFile), for the names
// and open files at hand; a file that cannot be stat'ed is no other's.
func sameFile(a, b os.FileInfo) bool {
	return a != nil && b != nil && a.Mode().IsRegular() && os.SameFile(a, b)
}

// statOf returns the FileInfo of an open stream that is an *os.File.
func statOf(v any) os.FileInfo {
	f, ok := v.(*os.File)
	if !ok {
		return nil
	}
	fi, err := f.Stat()
	if err != nil {
		return nil
	}
	return fi
}
