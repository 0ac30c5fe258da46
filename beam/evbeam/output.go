package evbeam

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
)

// tempPrefix begins the name of an output being written; the name it will
// have follows it.
const tempPrefix = ".evtool-tmp-"

// output is a file being written: under a temporary name beside its own,
// renamed to it by commit, on a filesystem that renames (local files);
// in place on one that does not (an object store, whose object appears
// whole when its upload is closed, and a retried upload replaces it).
type output struct {
	fs         filesystem.Interface
	w          io.WriteCloser
	tmp, final string
	closed     bool
}

// create begins writing name.
func (o *opener) create(ctx context.Context, name string) (*output, error) {
	fsys, err := o.fs(ctx, name)
	if err != nil {
		return nil, err
	}
	out := &output{fs: fsys, final: name}
	target := name
	if _, ok := fsys.(filesystem.Renamer); ok {
		var b [6]byte
		if _, err := rand.Read(b[:]); err != nil {
			return nil, err
		}
		dir, file := splitPath(name)
		out.tmp = dir + tempPrefix + file + "-" + hex.EncodeToString(b[:])
		target = out.tmp
	}
	if out.w, err = fsys.OpenWrite(ctx, target); err != nil {
		return nil, err
	}
	return out, nil
}

func (o *output) Write(p []byte) (int, error) { return o.w.Write(p) }

// commit ends the output: closed, and renamed over its name.
func (o *output) commit(ctx context.Context) error {
	o.closed = true
	if err := o.w.Close(); err != nil {
		o.abort(ctx)
		return err
	}
	if o.tmp == "" {
		return nil
	}
	if err := o.fs.(filesystem.Renamer).Rename(ctx, o.tmp, o.final); err != nil {
		o.abort(ctx)
		return err
	}
	o.tmp = ""
	return nil
}

// abort drops the output: its temporary file is removed (an output
// written in place is left to the next attempt to replace).
func (o *output) abort(ctx context.Context) {
	if !o.closed {
		o.closed = true
		o.w.Close()
	}
	if rm, ok := o.fs.(filesystem.Remover); ok && o.tmp != "" {
		rm.Remove(ctx, o.tmp)
	}
}

// splitPath splits a path of any filesystem after its last slash.
func splitPath(p string) (dir, file string) {
	i := strings.LastIndex(p, "/")
	return p[:i+1], p[i+1:]
}

// joinPath joins an output directory and a relative name with slashes,
// as every Beam filesystem (local ones included, on Unix) names files.
func joinPath(dir, rel string) string {
	if dir == "" {
		return rel
	}
	return strings.TrimSuffix(dir, "/") + "/" + rel
}

// WriteFile writes the one element of col (the bytes of a report) to
// path, in any Beam filesystem, under a temporary name renamed to path
// once whole (on a filesystem that renames). A collection of more than
// one element fails.
func WriteFile(s beam.Scope, col beam.PCollection, path string) {
	s = s.Scope("evbeam.WriteFile")
	filesystem.ValidateScheme(path)
	beam.ParDo0(s, &writeFileFn{Path: path}, beam.Impulse(s), beam.SideInput{Input: col})
}

type writeFileFn struct {
	Path string
	o    opener
}

func (f *writeFileFn) ProcessElement(ctx context.Context, _ []byte, docs func(*[]byte) bool) error {
	var doc []byte
	n := 0
	var b []byte
	for docs(&b) {
		doc = b
		n++
	}
	if n != 1 {
		return fmt.Errorf("evbeam.WriteFile %s: %d documents, want 1", f.Path, n)
	}
	out, err := f.o.create(ctx, f.Path)
	if err != nil {
		return err
	}
	if _, err := out.Write(doc); err != nil {
		out.abort(ctx)
		return err
	}
	return out.commit(ctx)
}

func (f *writeFileFn) Teardown() { f.o.close() }

// removeTemps removes under a local directory the temporary files that
// attempts killed before their rename left behind.
func removeTemps(dir string) error {
	if !isLocal(dir) {
		return nil
	}
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !e.IsDir() && strings.HasPrefix(e.Name(), tempPrefix) {
			return os.Remove(p)
		}
		return nil
	})
	if os.IsNotExist(err) {
		return nil
	}
	return err
}
