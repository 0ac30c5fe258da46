package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/internal/outfile"
	"github.com/evtool/evtool/sessions"
	"github.com/evtool/evtool/validate"
)

// A session operand: every command that reads streams also takes a
// session id (found in the agents' standard locations) and the session
// files that are not themselves a stream of lines (opencode's database,
// Gemini CLI's single-JSON chats): each is read as the lines its store
// opens it as.

// sessionReader is an opened session: its lines, and every file they come
// from, which no output may be.
type sessionReader struct {
	io.ReadCloser
	paths []string
}

// Whole implements stream.Whole, as sessions.Open's reader does.
func (*sessionReader) Whole() bool { return true }

// sessionOperand reports whether name is a session rather than a stream
// file, and which: a name that is no file is looked up as a session id; a
// file is a session when a store reads it as one and it is not a plain
// stream (a database, a single-JSON chat).
func sessionOperand(ctx context.Context, name string) (sessions.Store, sessions.Ref, bool, error) {
	if name == "-" || len(sessions.Stores()) == 0 {
		return nil, sessions.Ref{}, false, nil
	}
	fi, err := os.Stat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist) && !strings.ContainsRune(name, filepath.Separator):
		s, ref, rerr := sessions.Resolve(ctx, nil, name)
		if rerr != nil {
			if strings.HasPrefix(rerr.Error(), "no session") {
				return nil, sessions.Ref{}, false, nil // the file's own error says it best
			}
			return nil, sessions.Ref{}, false, fmt.Errorf("%s: no such file, and as a session id: %w", name, rerr)
		}
		return s, ref, true, nil
	case err != nil || !fi.Mode().IsRegular() || !container(name):
		return nil, sessions.Ref{}, false, nil
	}
	var (
		store sessions.Store
		refs  []sessions.Ref
	)
	for _, s := range sessions.Stores() {
		_ = s.Scan(ctx, name, func(r sessions.Ref) error {
			store, refs = s, append(refs, r)
			return nil
		}) // a store that cannot read the file does not hold it
		if len(refs) > 0 {
			break
		}
	}
	switch len(refs) {
	case 0:
		return nil, sessions.Ref{}, false, nil
	case 1:
		return store, refs[0], true, nil
	}
	return nil, sessions.Ref{}, false, fmt.Errorf("%s holds %d %s sessions: name one by its id (evtool sessions %s lists them)", name, len(refs), store.Agent(), name)
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

// openSession opens a session operand.
func openSession(s sessions.Store, ref sessions.Ref) (io.ReadCloser, string, error) {
	rc, err := sessions.Open(s, ref)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", ref, err)
	}
	return &sessionReader{ReadCloser: rc, paths: append([]string{ref.Path}, ref.Parts...)}, sessionName(ref), nil
}

// sessionName names a session in diagnostics: by its file when its lines
// are that file's lines, else by agent and id.
func sessionName(ref sessions.Ref) string {
	if len(ref.Parts) > 0 || container(ref.Path) {
		return ref.Agent + " session " + ref.ID
	}
	return ref.Path
}

// protectAgents declares every agent's standard session locations to set:
// evtool reads them and never writes there, whatever the user asks.
func protectAgents(set *outfile.Set) {
	for _, s := range sessions.Stores() {
		for _, home := range sessions.Homes(s) {
			set.Protect(home, s.Agent()+"'s own directory ("+home+")")
		}
	}
}

// protectAgentFiles declares the directory of every input that is an
// agent's own record (its first line is of a read-only dialect: a Claude
// Code transcript, a Codex rollout, a Gemini CLI chat) to set: evtool
// writes nothing beside it, wherever that directory is (protectAgents
// knows only the locations this environment names).
func protectAgentFiles(set *outfile.Set, paths []string) {
	for _, p := range paths {
		if d, ok := firstLineDialect(p); ok {
			if ro, isRO := d.(dialect.ReadOnly); isRO && ro.ReadOnly() != "" {
				dir := filepath.Dir(p)
				set.Protect(dir, "the directory of "+p+", a "+d.Name()+" file ("+dir+")")
			}
		}
	}
}

// firstLineDialect tells the dialect of a regular file's first line, read
// up to 64 KiB (a longer first line is not told).
func firstLineDialect(p string) (dialect.Dialect, bool) {
	f, err := os.Open(p)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil, false
	}
	buf := make([]byte, 64<<10)
	n, _ := io.ReadFull(f, buf)
	line, _, _ := bytes.Cut(buf[:n], []byte("\n"))
	return dialect.Detect(bytes.TrimSpace(line))
}

// sessionInputs turns the inputs that name sessions (a session id, a
// database or single-JSON chat) into inputs that open them.
func sessionInputs(ctx context.Context, inputs []validate.Input) ([]validate.Input, error) {
	for i, in := range inputs {
		if in.Path == "" {
			continue
		}
		s, ref, ok, err := sessionOperand(ctx, in.Path)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		inputs[i] = validate.Input{Name: sessionName(ref), Open: func() (io.ReadCloser, error) {
			rc, _, err := openSession(s, ref)
			return rc, err
		}, Files: append([]string{ref.Path}, ref.Parts...)}
	}
	return inputs, nil
}
