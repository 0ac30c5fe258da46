// Package storetest holds what the tests of the on-disk dialects' stores
// (sessions.Store) share: a copy of a test tree to scan, the sessions a
// store finds and their lines, and the proof that a store changed no file.
package storetest

import (
	"context"
	"crypto/sha256"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/evtool/evtool/sessions"
)

// CopyTree copies the tree from into to, its files with mode perm.
func CopyTree(t testing.TB, from, to string, perm fs.FileMode) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		if e.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, perm)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Scan returns the sessions s finds under root, in the order it finds
// them.
func Scan(t testing.TB, s sessions.Store, root string) []sessions.Ref {
	t.Helper()
	var refs []sessions.Ref
	if err := s.Scan(context.Background(), root, func(r sessions.Ref) error {
		refs = append(refs, r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return refs
}

// Open returns the lines s opens a session as, all read and closed. It
// reads in pieces of a few bytes, so that the seams between a session's
// files are crossed inside a read.
func Open(t testing.TB, s sessions.Store, ref sessions.Ref) string {
	t.Helper()
	rc, err := s.Open(ref)
	if err != nil {
		t.Fatal(err)
	}
	var out []byte
	buf := make([]byte, 7)
	for {
		n, err := rc.Read(buf)
		out = append(out, buf[:n]...)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := rc.Close(); err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// SpreadTimes gives every file under root a modification time of its
// own, a day apart in path order from the first day of 2026 on, so that a
// store's Modified can be checked; it returns them by path.
func SpreadTimes(t testing.TB, root string) map[string]time.Time {
	t.Helper()
	times := map[string]time.Time{}
	mt := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		mt = mt.Add(24 * time.Hour)
		times[p] = mt
		return os.Chtimes(p, mt, mt)
	})
	if err != nil {
		t.Fatal(err)
	}
	return times
}

// A Snapshot is every file and directory under a root: what a store must
// leave as it was.
type Snapshot map[string]FileState

// FileState is what is kept of a file: its bytes' digest, size, time and
// mode.
type FileState struct {
	Sum  [32]byte
	Size int64
	Mod  time.Time
	Mode fs.FileMode
}

// Take records every file and directory under root.
func Take(t testing.TB, root string) Snapshot {
	t.Helper()
	out := Snapshot{}
	err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := e.Info()
		if err != nil {
			return err
		}
		st := FileState{Size: fi.Size(), Mod: fi.ModTime(), Mode: fi.Mode()}
		if e.Type().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			st.Sum = sha256.Sum256(b)
		}
		out[p] = st
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Unchanged reports an error unless root is as it was when s was taken:
// no byte, time or mode changed, no file came or went.
func (s Snapshot) Unchanged(t testing.TB, root string) {
	t.Helper()
	after := Take(t, root)
	same := len(s) == len(after)
	for k, v := range s {
		w, ok := after[k]
		if !ok || v.Sum != w.Sum || v.Size != w.Size || !v.Mod.Equal(w.Mod) || v.Mode != w.Mode {
			same = false
		}
	}
	if !same {
		t.Errorf("the store changed files:\nbefore %v\nafter  %v", s, after)
	}
}
