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

// lineWindow bounds what Scan reads of one line to find its sessionId: a
// line is read whole up to it, a longer one (a pasted prompt of many MiB,
// a file-history snapshot) only in its first lineWindow bytes, where
// Claude Code writes the envelope (sessionId comes before message).
const lineWindow = 1 << 20

// Scan implements sessions.Store. root is a config directory (with
// projects/), a projects directory, a project directory or one session
// file. A session is a *.jsonl file that is not a subagent's (agent-*)
// and names a session: its id is the file's name when that is a session
// id (Claude Code names each file by the session that writes it, which is
// what claude --resume takes; a resumed session's file may begin with the
// lines of the session it resumes), else the first sessionId of its
// lines. A file that names no session (summaries only, no conversation)
// is no session. Subagents' files whose session's file is gone (2.0
// agent-*.jsonl no session claims, a 2.1 <session>/subagents/ beside no
// <session>.jsonl) are a session of their own, named by the session their
// lines name.
func (s Store) Scan(ctx context.Context, root string, found func(sessions.Ref) error) error {
	st, err := os.Stat(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	sc := &scan{agents: map[string][]agentFile{}, claimed: map[string]bool{}}
	if !st.IsDir() {
		if ref, ok := sc.ref(root); ok {
			return found(ref)
		}
		return nil
	}
	if p := filepath.Join(root, "projects"); isDir(p) {
		root = p
	}
	var agentDirs []string // the directories holding 2.0 agent files, in walk order
	hasAgents := map[string]bool{}
	err = filepath.WalkDir(root, func(p string, de fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			sessions.Unreadable(ctx, p, err) // not a session, but it may hold some
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		name := de.Name()
		if de.IsDir() {
			if p == root {
				return nil
			}
			if name == "subagents" {
				if session := filepath.Dir(p); !isFile(session + ".jsonl") {
					// A 2.1 session whose file is gone: its subagents.
					if ref, ok := orphanParts(session, subagentFiles(p)); ok {
						if err := found(ref); err != nil {
							return err
						}
					}
				}
				return fs.SkipDir
			}
			if isFile(p + ".jsonl") {
				return fs.SkipDir // a 2.1 session's own directory: its parts
			}
			return nil
		}
		if !de.Type().IsRegular() || !strings.HasSuffix(name, ".jsonl") {
			return nil
		}
		if strings.HasPrefix(name, "agent-") {
			if dir := filepath.Dir(p); !hasAgents[dir] {
				hasAgents[dir] = true
				agentDirs = append(agentDirs, dir)
			}
			return nil
		}
		if ref, ok := sc.ref(p); ok {
			return found(ref)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, dir := range agentDirs {
		if err := sc.orphans(dir, found); err != nil {
			return err
		}
	}
	return nil
}

// orphans finds the sessions of a project directory's 2.0 agent files that
// no session claimed (their session's file is gone): one per session they
// name, its files in the order of their names.
func (sc *scan) orphans(dir string, found func(sessions.Ref) error) error {
	var order []string
	bySession := map[string][]string{}
	for _, a := range sc.agentFiles(dir) {
		if sc.claimed[a.path] {
			continue
		}
		if _, ok := bySession[a.session]; !ok {
			order = append(order, a.session)
		}
		bySession[a.session] = append(bySession[a.session], a.path)
	}
	for _, sid := range order {
		files := bySession[sid]
		ref := sessions.Ref{Agent: Store{}.Agent(), ID: sid, Path: files[0], Parts: files[1:]}
		statRef(&ref)
		if err := found(ref); err != nil {
			return err
		}
	}
	return nil
}

// scan is one Scan's state: the sessionIds of the 2.0 agent files of each
// project directory, read once per directory, and the agent files a
// session has claimed as its parts.
type scan struct {
	agents  map[string][]agentFile
	claimed map[string]bool
}

type agentFile struct {
	path, session string
}

// ref describes the session whose main file is p.
func (sc *scan) ref(p string) (sessions.Ref, bool) {
	dir, stem := filepath.Dir(p), strings.TrimSuffix(filepath.Base(p), ".jsonl")
	sid, named := headSession(p, 0)
	switch {
	case sid != "" || named:
	case !readable(p) && isFile(p):
		// A transcript that cannot be opened is still a session the
		// user has: listed under its file's name, its reading then
		// fails loudly instead of the file being passed over.
	default:
		return sessions.Ref{}, false
	}
	id := sid
	if sessionName(stem) || id == "" {
		id = stem
	}
	ref := sessions.Ref{Agent: Store{}.Agent(), ID: id, Path: p}
	// 2.0: the project directory's agent files of this session. A
	// subagent's lines carry the id of the session that ran it: the
	// file's name, or the session its first lines continue when that
	// session's own file is gone.
	for _, a := range sc.agentFiles(dir) {
		if a.session == stem || (a.session == sid && sid != stem && !isFile(filepath.Join(dir, sid+".jsonl"))) {
			ref.Parts = append(ref.Parts, a.path)
			sc.claimed[a.path] = true
		}
	}
	// 2.1: <session>/subagents/, nested as subagents/workflows/<run>/.
	ref.Parts = append(ref.Parts, subagentFiles(filepath.Join(dir, stem, "subagents"))...)
	statRef(&ref)
	return ref, true
}

// subagentFiles returns the agent-*.jsonl files under a 2.1 subagents
// directory, sorted by path.
func subagentFiles(dir string) []string {
	var out []string
	_ = filepath.WalkDir(dir, func(q string, de fs.DirEntry, err error) error {
		if err == nil && de.Type().IsRegular() && strings.HasPrefix(de.Name(), "agent-") && strings.HasSuffix(de.Name(), ".jsonl") {
			out = append(out, q)
		}
		return nil
	})
	sort.Strings(out)
	return out
}

// orphanParts describes the session of a 2.1 session directory whose
// transcript is gone: its subagents' files, under the directory's name.
func orphanParts(session string, files []string) (sessions.Ref, bool) {
	if len(files) == 0 {
		return sessions.Ref{}, false
	}
	id := filepath.Base(session)
	if !sessionName(id) {
		if sid, _ := headSession(files[0], 1); sid != "" {
			id = sid
		}
	}
	ref := sessions.Ref{Agent: Store{}.Agent(), ID: id, Path: files[0], Parts: files[1:]}
	statRef(&ref)
	return ref, true
}

// statRef sets a session's size and modification time from its files.
func statRef(ref *sessions.Ref) {
	for _, f := range append([]string{ref.Path}, ref.Parts...) {
		st, err := os.Stat(f)
		if err != nil {
			continue
		}
		ref.Size += st.Size()
		if st.ModTime().After(ref.Modified) {
			ref.Modified = st.ModTime()
		}
	}
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
			if sid, _ := headSession(m, 1); sid != "" {
				out = append(out, agentFile{m, sid})
			}
		}
	}
	sc.agents[dir] = out
	return out
}

// sessionName reports whether a file's name is a session id as Claude
// Code names its transcripts: a UUID in its canonical text form.
func sessionName(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return false
			}
		}
	}
	return true
}

// headSession returns the first sessionId among a file's lines (at most
// lines of them; 0: every line), reading each line up to lineWindow
// bytes and skipping the rest of a longer one, so that it holds at most
// lineWindow bytes. It stops at the first sessionId: a transcript begins
// with one or with metadata lines (1.0 summaries, snapshots) that name
// none. named reports a file that names none, only because a line was
// longer than lineWindow and its sessionId, if any, was beyond what was
// read: Scan then names the session by its file's name. A file that
// begins as another dialect's is none (a Gemini chat's header names a
// sessionId too).
func headSession(p string, lines int) (sid string, named bool) {
	f, err := os.Open(p)
	if err != nil {
		return "", false
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	var buf []byte
	first, cut := true, false
	for i := 0; lines == 0 || i < lines; i++ {
		buf = buf[:0]
		long := false
		for {
			chunk, err := br.ReadSlice('\n')
			if room := lineWindow - len(buf); len(chunk) > room {
				chunk, long = chunk[:max(room, 0)], true
			}
			buf = append(buf, chunk...)
			if err == bufio.ErrBufferFull {
				continue
			}
			if err != nil && len(buf) == 0 {
				return "", cut // the end of the file, or a read error
			}
			break
		}
		line := bytes.TrimSpace(buf)
		if len(line) == 0 {
			i-- // a blank line is no line (ndjson skips it too)
			continue
		}
		if first {
			// A first line no dialect knows (a metadata line of a newer
			// Claude Code, or one cut at lineWindow) does not rule the
			// file out.
			line = bytes.TrimPrefix(line, []byte("\xEF\xBB\xBF"))
			if !(Dialect{}).Sniff(line) {
				if _, other := dialect.Detect(line); other {
					return "", false
				}
			}
			first = false
		}
		if v := gjson.GetBytes(line, "sessionId"); v.Type == gjson.String && v.Str != "" {
			return v.Str, false
		}
		cut = cut || long
	}
	return "", cut
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

// Homes implements sessions.Homer: Claude Code's configuration directories (~/.claude: settings, credentials, history), of which projects is one folder.
func (s Store) Homes() []string { return sessions.Parents(s.Roots()) }
