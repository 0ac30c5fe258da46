package claudetranscript

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/evtool/evtool/adapters/internal/dialectstore"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/sessions"
	"github.com/tidwall/gjson"
)

// Store finds Claude Code's transcripts: <config>/projects/<encoded-cwd>/
// <session>.jsonl, with the subagents' files of 2.0 (agent-<id>.jsonl in
// the same project directory) and 2.1 (<session>/subagents/**/
// agent-<id>.jsonl) as the session's parts. It opens files read-only and
// writes nothing.
type Store struct{ dialectstore.Of[Dialect] }

// Roots implements sessions.Store: the projects directory of each of
// $CLAUDE_CONFIG_DIR's directories (a comma-separated list, as ccusage
// reads it), else of ~/.claude and of $XDG_CONFIG_HOME/claude
// (~/.config/claude), where Claude Code has kept its data since 1.0.30.
func (Store) Roots() []string {
	var dirs []string
	if v := os.Getenv("CLAUDE_CONFIG_DIR"); strings.TrimSpace(v) != "" {
		dirs = strings.Split(v, ",")
	} else if home, err := os.UserHomeDir(); err == nil {
		cfg := os.Getenv("XDG_CONFIG_HOME")
		if cfg == "" {
			cfg = filepath.Join(home, ".config")
		}
		dirs = []string{filepath.Join(home, ".claude"), filepath.Join(cfg, "claude")}
	}
	var out []string
	for _, d := range dirs {
		if d = strings.TrimSpace(d); d == "" {
			continue
		}
		p := filepath.Join(d, "projects")
		if !contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// Bounds of what Scan reads of a file to tell its session.
const (
	// headLines and headBytes bound the lines read for the first
	// sessionId: a transcript may begin with metadata lines that name none
	// (a summary, a file-history snapshot of several MiB).
	headLines = 64
	headBytes = 16 << 20
)

// Scan implements sessions.Store. root is a config directory (with
// projects/), a projects directory, a project directory or one session
// file. A session is a *.jsonl file that is not a subagent's (agent-*)
// and whose first lines name a sessionId, which is the session's id (the
// file name is not: a resumed session's file may begin with the lines of
// the session it resumes). A file whose first lines name none (only
// metadata, no conversation) is no session.
func (s Store) Scan(ctx context.Context, root string, found func(sessions.Ref) error) error {
	st, err := os.Stat(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	sc := &scan{agents: map[string][]agentFile{}}
	if !st.IsDir() {
		if ref, ok := sc.ref(root); ok {
			return found(ref)
		}
		return nil
	}
	if p := filepath.Join(root, "projects"); isDir(p) {
		root = p
	}
	return filepath.WalkDir(root, func(p string, de fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			return nil // an unreadable entry is not a session
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		name := de.Name()
		if de.IsDir() {
			if p != root && (name == "subagents" || isFile(p+".jsonl")) {
				return fs.SkipDir // a 2.1 session's own directory: its parts
			}
			return nil
		}
		if !de.Type().IsRegular() || !strings.HasSuffix(name, ".jsonl") || strings.HasPrefix(name, "agent-") {
			return nil
		}
		if ref, ok := sc.ref(p); ok {
			return found(ref)
		}
		return nil
	})
}

// scan is one Scan's state: the first-line sessionIds of the 2.0 agent
// files of each project directory, read once per directory.
type scan struct {
	agents map[string][]agentFile
}

type agentFile struct {
	path, session string
}

// ref describes the session whose main file is p.
func (sc *scan) ref(p string) (sessions.Ref, bool) {
	sid := headSession(p, headLines)
	if sid == "" {
		if _, err := os.Stat(p); err == nil && !readable(p) {
			// A transcript that cannot be opened is still a session
			// the user has: listed under its file's name, its reading
			// then fails loudly instead of the file being passed over.
			sid = strings.TrimSuffix(filepath.Base(p), ".jsonl")
		} else {
			return sessions.Ref{}, false
		}
	}
	ref := sessions.Ref{Agent: Store{}.Agent(), ID: sid, Path: p}
	dir, stem := filepath.Dir(p), strings.TrimSuffix(filepath.Base(p), ".jsonl")
	// 2.0: the project directory's agent files of this session. A
	// subagent's lines carry the id of the session that ran it, which is
	// the file's name when a resumed file begins with older lines.
	for _, a := range sc.agentFiles(dir) {
		if a.session == sid || a.session == stem {
			ref.Parts = append(ref.Parts, a.path)
		}
	}
	// 2.1: <session>/subagents/, nested as subagents/workflows/<run>/.
	var nested []string
	_ = filepath.WalkDir(filepath.Join(dir, stem, "subagents"), func(q string, de fs.DirEntry, err error) error {
		if err == nil && de.Type().IsRegular() && strings.HasPrefix(de.Name(), "agent-") && strings.HasSuffix(de.Name(), ".jsonl") {
			nested = append(nested, q)
		}
		return nil
	})
	sort.Strings(nested)
	ref.Parts = append(ref.Parts, nested...)
	for _, f := range append([]string{p}, ref.Parts...) {
		st, err := os.Stat(f)
		if err != nil {
			continue
		}
		ref.Size += st.Size()
		if st.ModTime().After(ref.Modified) {
			ref.Modified = st.ModTime()
		}
	}
	return ref, true
}

// agentFiles returns a project directory's 2.0 agent files with the
// sessionId of their first line (only that line is read).
func (sc *scan) agentFiles(dir string) []agentFile {
	if a, ok := sc.agents[dir]; ok {
		return a
	}
	var out []agentFile
	ms, _ := filepath.Glob(filepath.Join(dir, "agent-*.jsonl"))
	sort.Strings(ms)
	for _, m := range ms {
		if isFile(m) {
			if sid := headSession(m, 1); sid != "" {
				out = append(out, agentFile{m, sid})
			}
		}
	}
	sc.agents[dir] = out
	return out
}

// headSession returns the first sessionId among a file's first lines
// (at most lines of them, headBytes in all), "" if none names one.
func headSession(p string, lines int) string {
	f, err := os.Open(p)
	if err != nil {
		return ""
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	budget := headBytes
	var buf []byte
	first := true
	for i := 0; i < lines && budget > 0; i++ {
		buf = buf[:0]
		var err error
		for {
			var chunk []byte
			chunk, err = br.ReadSlice('\n')
			if len(buf)+len(chunk) > budget {
				return "" // a line longer than what is left to read
			}
			buf = append(buf, chunk...)
			if err == bufio.ErrBufferFull {
				continue
			}
			if err != nil && len(buf) == 0 {
				return ""
			}
			break
		}
		budget -= len(buf)
		line := bytes.TrimSpace(buf)
		if len(line) == 0 {
			i-- // a blank line is no line (ndjson skips it too)
			if err == io.EOF {
				return ""
			}
			continue
		}
		if first {
			// A file that begins as another dialect's is not a
			// transcript, though it names a sessionId (a Gemini chat's
			// header does). A first line no dialect knows (a metadata
			// line of a newer Claude Code) does not rule it out.
			line = bytes.TrimPrefix(line, []byte("\xEF\xBB\xBF"))
			if !(Dialect{}).Sniff(line) {
				if _, other := dialect.Detect(line); other {
					return ""
				}
			}
			first = false
		}
		if v := gjson.GetBytes(line, "sessionId"); v.Type == gjson.String && v.Str != "" {
			return v.Str
		}
	}
	return ""
}

// readable reports whether a file can be opened for reading.
func readable(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	f.Close()
	return true
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// Open implements sessions.Store: the session's main file, then each of
// its parts, as one stream of lines (a newline is put between two files
// when the first does not end with one). Every file is opened read-only.
func (Store) Open(ref sessions.Ref) (io.ReadCloser, error) {
	f, err := os.Open(ref.Path)
	if err != nil {
		return nil, err
	}
	return &files{paths: ref.Parts, cur: f, last: '\n'}, nil
}

// files reads several files one after the other.
type files struct {
	paths []string // the files still to open
	cur   *os.File
	last  byte // the last byte read from cur
	nl    bool // a newline is owed before the next file
}

func (m *files) Read(p []byte) (int, error) {
	for {
		if m.nl && len(p) > 0 {
			m.nl = false
			p[0] = '\n'
			return 1, nil
		}
		if m.cur == nil {
			if len(m.paths) == 0 {
				return 0, io.EOF
			}
			f, err := os.Open(m.paths[0])
			if err != nil {
				return 0, err
			}
			m.paths, m.cur, m.last = m.paths[1:], f, '\n'
		}
		n, err := m.cur.Read(p)
		if n > 0 {
			m.last = p[n-1]
			return n, nil
		}
		if err == io.EOF {
			m.cur.Close()
			m.cur = nil
			m.nl = m.last != '\n'
			continue
		}
		if err != nil {
			return 0, err
		}
	}
}

// Close implements io.Closer.
func (m *files) Close() error {
	m.paths = nil
	if m.cur == nil {
		return nil
	}
	err := m.cur.Close()
	m.cur = nil
	return err
}
