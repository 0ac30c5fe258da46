package evbeam

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/sessions"
	"github.com/evtool/evtool/validate"
)

// Run is one element of a pipeline: one run to read, a file of any Beam
// filesystem or one session of an agent's on-disk store.
type Run struct {
	// Key orders the runs as the command line orders its inputs: by name
	// for files (validate.Inputs sorts them so), in the order the stores
	// find them for sessions. Reports list runs, and usage reports count
	// a response repeated by two runs in the first, in this order.
	Key string
	// Name is how diagnostics and reports name the run, as the command
	// line names it: the path as matched, or "<agent> session <id>" for a
	// session whose lines are not one file's.
	Name string
	// Path is the file to read, in any Beam filesystem ("" for a session).
	Path string
	// Rel is the run's output name, relative to an output directory:
	// its path below the glob's fixed directory (its own extension,
	// less .gz or .zst), or "<agent>-<id>.jsonl" for a session.
	Rel string
	// Session is the session of an agent's store, nil for a file.
	Session *sessions.Ref
	// Store says the run was found by Sessions: usage reads it in its
	// store's dialect, as `evtool usage` with no FILE reads it.
	Store bool
}

// Match returns the runs the patterns match, one element each: Beam
// filesystem globs (gs://bucket/runs/*.jsonl.gz, s3://…, local paths).
// A local pattern is expanded as a shell would expand it and the result
// read as the command line reads its operands: a directory stands for
// its *.jsonl and *.ndjson files at any depth (plain, .gz or .zst), a
// file for itself, and a file that holds sessions without being a stream
// (opencode's database, a Gemini CLI session-*.json) for each of its
// sessions. The runs are listed in one step and spread over the workers
// by a reshuffle; two runs that would share an output name (Rel) fail
// the expansion.
func Match(s beam.Scope, patterns ...string) beam.PCollection {
	s = s.Scope("evbeam.Match")
	for _, p := range patterns {
		filesystem.ValidateScheme(p)
	}
	imp := beam.Impulse(s)
	runs := beam.ParDo(s, &matchFn{Patterns: patterns}, imp)
	return beam.Reshuffle(s, runs)
}

// Sessions returns the sessions agents keep under roots (a store's
// directory, database or file; none: every agent's standard locations,
// as `evtool sessions` finds them), one element each, in the order the
// stores find them; agents, when given, keeps those agents' only. The
// stores read local files, on the worker that lists them and on those
// that read them: this machine's with Prism, else a shared file system.
func Sessions(s beam.Scope, roots []string, agents ...string) beam.PCollection {
	s = s.Scope("evbeam.Sessions")
	imp := beam.Impulse(s)
	runs := beam.ParDo(s, &sessionsFn{Roots: roots, Agents: agents}, imp)
	return beam.Reshuffle(s, runs)
}

type matchFn struct {
	Patterns []string
}

func (f *matchFn) ProcessElement(ctx context.Context, _ []byte, emit func(Run)) error {
	runs, err := expand(ctx, f.Patterns)
	if err != nil {
		return err
	}
	for _, r := range runs {
		emit(r)
	}
	return nil
}

type sessionsFn struct {
	Roots  []string
	Agents []string
}

func (f *sessionsFn) ProcessElement(ctx context.Context, _ []byte, emit func(Run)) error {
	n := 0
	return sessions.Find(ctx, f.Roots, sessions.Filter{Agents: f.Agents}, func(st sessions.Store, ref sessions.Ref) error {
		ref.Agent = st.Agent()
		emit(Run{Key: fmt.Sprintf("session\x00%012d", n), Name: sessionName(ref), Rel: sessionRel(ref), Session: &ref, Store: true})
		n++
		return nil
	})
}

// expand lists the runs of patterns, sorted and once each.
func expand(ctx context.Context, patterns []string) ([]Run, error) {
	var runs []Run
	for _, p := range patterns {
		var (
			got []Run
			err error
		)
		if isLocal(p) {
			got, err = expandLocal(ctx, p)
		} else {
			got, err = expandRemote(ctx, p)
		}
		if err != nil {
			return nil, err
		}
		runs = append(runs, got...)
	}
	slices.SortStableFunc(runs, func(a, b Run) int { return strings.Compare(a.Key, b.Key) })
	runs = slices.CompactFunc(runs, func(a, b Run) bool { return a.Key == b.Key && a.Path == b.Path })
	seen := map[string]string{}
	for _, r := range runs {
		if o, dup := seen[r.Rel]; dup {
			return nil, fmt.Errorf("%s and %s would be written to one output name, %s: match them apart", o, r.Name, r.Rel)
		}
		seen[r.Rel] = r.Name
	}
	return runs, nil
}

func isLocal(p string) bool { return !strings.Contains(p, "://") }

func hasMeta(p string) bool { return strings.ContainsAny(p, `*?[\`) }

// base is the directory of a pattern before its first glob character:
// the directory outputs are named relative to.
func base(p string) string {
	if i := strings.IndexAny(p, `*?[\`); i >= 0 {
		p = p[:i]
		if j := strings.LastIndex(p, "/"); j >= 0 {
			return p[:j+1]
		}
		return ""
	}
	if j := strings.LastIndex(p, "/"); j >= 0 {
		return p[:j+1]
	}
	return ""
}

// expandLocal reads a local pattern as the shell and the command line
// read it: the glob's matches, each directory walked (validate.Inputs),
// each session container opened as its sessions.
func expandLocal(ctx context.Context, p string) ([]Run, error) {
	matches := []string{p}
	if hasMeta(p) {
		fs, err := filesystem.New(ctx, p)
		if err != nil {
			return nil, err
		}
		defer fs.Close()
		if matches, err = fs.List(ctx, p); err != nil {
			return nil, err
		}
		if len(matches) == 0 {
			return nil, fmt.Errorf("%s: no file matches", p)
		}
	}
	b := base(p)
	if !hasMeta(p) {
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			b = p
		}
	}
	var out []Run
	for _, m := range matches {
		inputs, err := validate.Inputs([]string{m})
		if err != nil {
			return nil, err
		}
		for _, in := range inputs {
			rel := in.Path
			if b != "" {
				if r, err := filepath.Rel(filepath.Clean(b), in.Path); err == nil {
					rel = r
				}
			}
			refs, err := containerSessions(ctx, in.Path)
			if err != nil {
				return nil, err
			}
			if len(refs) == 0 {
				out = append(out, Run{Key: in.Name, Name: in.Name, Path: in.Path, Rel: relName(rel, "")})
				continue
			}
			for i, ref := range refs {
				out = append(out, Run{Key: fmt.Sprintf("%s\x00%012d", in.Name, i), Name: sessionName(ref), Rel: sessionRel(ref), Session: &ref})
			}
		}
	}
	return out, nil
}

// expandRemote lists a pattern of an object store: each object it
// matches is a run.
func expandRemote(ctx context.Context, p string) ([]Run, error) {
	fs, err := filesystem.New(ctx, p)
	if err != nil {
		return nil, err
	}
	defer fs.Close()
	files, err := fs.List(ctx, p)
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: no file matches", p)
	}
	b := base(p)
	out := make([]Run, 0, len(files))
	for _, f := range files {
		out = append(out, Run{Key: f, Name: f, Path: f, Rel: relName(f, b)})
	}
	return out, nil
}

// relName is a file's output name below the directory b: its path there,
// less a compression suffix (the output is written plain).
func relName(p, b string) string {
	r := strings.TrimPrefix(p, b)
	if i := strings.Index(r, "://"); i >= 0 {
		r = r[i+3:]
	}
	r = strings.TrimLeft(filepath.ToSlash(r), "/")
	low := strings.ToLower(r)
	for _, z := range []string{".gz", ".zst"} {
		if strings.HasSuffix(low, z) {
			r = r[:len(r)-len(z)]
			break
		}
	}
	r = path.Clean(r)
	for strings.HasPrefix(r, "../") {
		r = r[3:]
	}
	return r
}

// containerSessions returns the sessions of a file that holds sessions
// without being a stream of lines (an SQLite database, a single-JSON
// chat), as the command line's session operands; none for a stream.
func containerSessions(ctx context.Context, name string) ([]sessions.Ref, error) {
	fi, err := os.Stat(name)
	if err != nil || !fi.Mode().IsRegular() || !container(name) {
		return nil, nil
	}
	var refs []sessions.Ref
	for _, st := range sessions.Stores() {
		_ = st.Scan(ctx, name, func(r sessions.Ref) error {
			r.Agent = st.Agent()
			refs = append(refs, r)
			return nil
		}) // a store that cannot read the file does not hold it
		if len(refs) > 0 {
			break
		}
	}
	return refs, nil
}

// container reports whether a file is one a session is kept in without
// being a stream of lines: an SQLite database, a single-JSON document.
func container(name string) bool {
	if strings.EqualFold(filepath.Ext(name), ".json") {
		return true
	}
	f, err := os.Open(name)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 16)
	n, _ := io.ReadFull(f, head)
	return bytes.Equal(head[:n], []byte("SQLite format 3\x00"))
}

// sessionName names a session in diagnostics as the command line does:
// by its file when its lines are that file's lines, else by agent and id.
func sessionName(ref sessions.Ref) string {
	if len(ref.Parts) > 0 || container(ref.Path) {
		return ref.Agent + " session " + ref.ID
	}
	return ref.Path
}

func sessionRel(ref sessions.Ref) string {
	clean := strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r < ' ' {
			return '_'
		}
		return r
	}, ref.Agent+"-"+ref.ID)
	return clean + ".jsonl"
}

// storeDialect is the dialect a session's store opens it in.
func storeDialect(r Run) (dialect.Dialect, error) {
	st, ok := sessions.Lookup(r.Session.Agent)
	if !ok {
		return nil, fmt.Errorf("%s: no store of agent %q is registered", r.Name, r.Session.Agent)
	}
	return dialect.Lookup(st.Dialect())
}

// opener opens runs, keeping one filesystem client per scheme (a cloud
// client is costly to make).
type opener struct {
	mu  sync.Mutex
	fss map[string]filesystem.Interface
}

func (o *opener) fs(ctx context.Context, p string) (filesystem.Interface, error) {
	scheme := "default"
	if i := strings.Index(p, "://"); i > 0 {
		scheme = p[:i]
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if fs, ok := o.fss[scheme]; ok {
		return fs, nil
	}
	fs, err := filesystem.New(ctx, p)
	if err != nil {
		return nil, err
	}
	if o.fss == nil {
		o.fss = map[string]filesystem.Interface{}
	}
	o.fss[scheme] = fs
	return fs, nil
}

// open opens a run's lines as the command line opens them: its file, or
// its session as its store opens it. The reading looks ahead in a regular
// file and in a session (stream.RegularFile, stream.Whole: a decoder may
// hold an event back until a later line names what it needs), as the
// command line's does: a session comes wrapped as a Whole reader, and an object
// of an object store (gs://, s3://) is copied to a local temporary file
// first, unless raw (for a reading that sets stream.Options.Lookahead
// itself).
func (o *opener) open(ctx context.Context, r Run, raw ...bool) (io.ReadCloser, error) {
	if r.Session != nil {
		st, ok := sessions.Lookup(r.Session.Agent)
		if !ok {
			return nil, fmt.Errorf("%s: no store of agent %q is registered", r.Name, r.Session.Agent)
		}
		// Whole, as a file is (stream.Whole): the decoder may look ahead,
		// as the command line's reading of a session does.
		rc, err := sessions.Open(st, *r.Session)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", *r.Session, err)
		}
		return rc, nil
	}
	fs, err := o.fs(ctx, r.Path)
	if err != nil {
		return nil, err
	}
	rc, err := fs.OpenRead(ctx, r.Path)
	if err != nil || isLocal(r.Path) || len(raw) > 0 && raw[0] {
		return rc, err
	}
	return spool(rc)
}

// spool copies an object to a temporary file and returns the file, read
// from its start: an *os.File, which is what stream.RegularFile looks
// for. The file is unlinked at once, so that nothing is left of it once
// closed, whatever becomes of the worker.
func spool(rc io.ReadCloser) (io.ReadCloser, error) {
	defer rc.Close()
	f, err := os.CreateTemp("", "evbeam-run-*")
	if err != nil {
		return nil, err
	}
	os.Remove(f.Name())
	if _, err = io.Copy(f, rc); err == nil {
		_, err = f.Seek(0, io.SeekStart)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

func (o *opener) close() {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, fs := range o.fss {
		fs.Close()
	}
	o.fss = nil
}
