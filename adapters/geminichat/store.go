package geminichat

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/evtool/evtool/adapters/internal/dialectstore"
	"github.com/evtool/evtool/internal/jsonenc"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/evtool/evtool/sessions"
	"github.com/tidwall/gjson"
)

// Store is where Gemini CLI keeps its chats (sessions.Store): under
// ~/.gemini/tmp/<project>/chats/, where <project> is the project's
// short name from ~/.gemini/projects.json (since 0.29) or the sha256 of
// its path (before). A session is a chat file of its own:
//
//	chats/session-<time>-<id8>.jsonl    the chat, 0.39 and later
//	chats/session-<time>-<id8>.json     the chat, up to 0.38 (a .jsonl of
//	                                    the same name, which 0.39 writes
//	                                    when it resumes it, wins)
//	chats/<sessionId>/<agentId>.jsonl   its subagents' chats (.json before 0.39)
//
// It reads files, and never writes one.
type Store struct{ dialectstore.Of[Dialect] }

// Roots implements sessions.Store: Gemini CLI's temporary directory,
// <home>/.gemini/tmp, where <home> is $GEMINI_CLI_HOME if it is set (the
// CLI puts its .gemini directory there instead of the user's home), else
// the user's home directory, else, as the CLI does without one, the
// system's temporary directory.
func (Store) Roots() []string { return []string{filepath.Join(geminiDir(), "tmp")} }

func geminiDir() string {
	home := os.Getenv("GEMINI_CLI_HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	if home == "" {
		home = os.TempDir()
	}
	return filepath.Join(home, ".gemini")
}

// Scan implements sessions.Store. root is Gemini CLI's tmp directory (or
// the .gemini directory above it), a project's directory, its chats
// directory, or one chat file. A file whose first line (or, for a legacy
// chat, whose document) holds no sessionId is no chat and is passed over.
func (s Store) Scan(ctx context.Context, root string, found func(sessions.Ref) error) error {
	st, err := os.Stat(root)
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return scanFile(root, found)
	}
	switch {
	case filepath.Base(root) == "chats":
		return scanChats(ctx, root, found)
	case isDir(filepath.Join(root, "chats")):
		return scanChats(ctx, filepath.Join(root, "chats"), found)
	case isDir(filepath.Join(root, "tmp")):
		root = filepath.Join(root, "tmp")
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		return err
	}
	// A directory outside Gemini's layout (chats collected elsewhere):
	// its own chat files are sessions too, with subdirectories named for
	// a session's id as its subagents' chats.
	if err := scanChats(ctx, root, found); err != nil {
		return err
	}
	for _, e := range entries { // sorted by name
		if err := ctx.Err(); err != nil {
			return err
		}
		chats := filepath.Join(root, e.Name(), "chats")
		if e.IsDir() && isDir(chats) {
			if err := scanChats(ctx, chats, found); err != nil {
				return err
			}
		}
	}
	return nil
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// chatFile is a chat file found, with what its first line says.
type chatFile struct {
	path    string
	id      string
	start   string
	size    int64
	modTime time.Time
}

// chatFiles lists the chat files of a directory: *.jsonl, and *.json
// unless a .jsonl of the same name stands beside it. Files that hold no
// chat are passed over.
func chatFiles(ctx context.Context, dir string) ([]chatFile, []string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, err
	}
	names := map[string]bool{}
	for _, e := range entries {
		names[e.Name()] = true
	}
	var files []chatFile
	var dirs []string
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		name := e.Name()
		if e.IsDir() {
			dirs = append(dirs, name)
			continue
		}
		if !strings.HasSuffix(name, ".jsonl") && (!strings.HasSuffix(name, ".json") || names[name+"l"]) {
			continue
		}
		if cf, ok := readChatFile(filepath.Join(dir, name)); ok {
			files = append(files, cf)
		}
	}
	return files, dirs, nil
}

// scanChats finds the sessions of a chats directory, each with its
// subagents' chats as parts, ordered by their start. A subagent chat whose
// parent is not found is a session of its own.
func scanChats(ctx context.Context, dir string, found func(sessions.Ref) error) error {
	files, dirs, err := chatFiles(ctx, dir)
	if err != nil {
		return err
	}
	refs := make([]sessions.Ref, 0, len(files))
	bySafeID := map[string]int{}
	for _, f := range files {
		if _, dup := bySafeID[safeName(f.id)]; !dup {
			bySafeID[safeName(f.id)] = len(refs)
		}
		refs = append(refs, ref(f))
	}
	for _, sub := range dirs {
		subs, _, err := chatFiles(ctx, filepath.Join(dir, sub))
		if err != nil {
			return err
		}
		sortByStart(subs)
		i, ok := bySafeID[sub]
		for _, f := range subs {
			if !ok {
				refs = append(refs, ref(f))
				continue
			}
			addPart(&refs[i], f)
		}
	}
	for _, r := range refs {
		if err := found(r); err != nil {
			return err
		}
	}
	return nil
}

// scanFile reports the session of one chat file, with its subagents'
// chats if it is a session's main chat.
func scanFile(p string, found func(sessions.Ref) error) error {
	f, ok := readChatFile(p)
	if !ok {
		return nil
	}
	r := ref(f)
	if filepath.Base(filepath.Dir(p)) == "chats" {
		subs, _, err := chatFiles(context.Background(), filepath.Join(filepath.Dir(p), safeName(f.id)))
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		sortByStart(subs)
		for _, s := range subs {
			addPart(&r, s)
		}
	}
	return found(r)
}

func ref(f chatFile) sessions.Ref {
	return sessions.Ref{Agent: Store{}.Agent(), ID: f.id, Path: f.path, Size: f.size, Modified: f.modTime}
}

func addPart(r *sessions.Ref, f chatFile) {
	r.Parts = append(r.Parts, f.path)
	r.Size += f.size
	if f.modTime.After(r.Modified) {
		r.Modified = f.modTime
	}
}

func sortByStart(fs []chatFile) {
	sort.SliceStable(fs, func(i, j int) bool {
		if fs[i].start != fs[j].start {
			return fs[i].start < fs[j].start
		}
		return fs[i].path < fs[j].path
	})
}

// safeName is Gemini CLI's sanitizeFilenamePart: the name a session's id
// gives its subagents' directory.
func safeName(id string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' {
			return r
		}
		return '_'
	}, id)
}

// readChatFile reads what a chat file says of itself: its session id and
// start, from its first line (a .jsonl) or the first members of its
// document (a legacy .json). It reads no more than that.
func readChatFile(p string) (chatFile, bool) {
	st, err := os.Stat(p)
	if err != nil || !st.Mode().IsRegular() || st.Size() == 0 {
		return chatFile{}, false
	}
	cf := chatFile{path: p, size: st.Size(), modTime: st.ModTime()}
	f, err := os.Open(p)
	if err != nil {
		return chatFile{}, false
	}
	defer f.Close()
	if strings.HasSuffix(p, ".json") {
		cf.id, cf.start, err = legacyHead(f)
		return cf, err == nil && cf.id != ""
	}
	line, err := bufio.NewReaderSize(f, 1<<16).ReadBytes('\n')
	if err != nil && err != io.EOF {
		return chatFile{}, false
	}
	r := gjson.ParseBytes(bytes.TrimSpace(line))
	if classify(r) != lineMeta {
		return chatFile{}, false
	}
	cf.id = jsonobj.Lookup(r, "sessionId").Str
	cf.start = jsonobj.Lookup(r, "startTime").Str
	return cf, true
}

// legacyHead reads sessionId and startTime from a legacy chat document,
// token by token: they come first, before its messages.
func legacyHead(r io.Reader) (id, start string, err error) {
	dec := json.NewDecoder(bufio.NewReader(r))
	dec.UseNumber()
	if err := expectDelim(dec, '{'); err != nil {
		return "", "", err
	}
	for dec.More() && (id == "" || start == "") {
		k, err := dec.Token()
		if err != nil {
			return "", "", err
		}
		key, _ := k.(string)
		if key != "sessionId" && key != "startTime" {
			if err := skipValue(dec); err != nil {
				return "", "", err
			}
			continue
		}
		v, err := dec.Token()
		if err != nil {
			return "", "", err
		}
		s, _ := v.(string)
		if key == "sessionId" {
			id = s
		} else {
			start = s
		}
	}
	return id, start, nil
}

func expectDelim(dec *json.Decoder, want json.Delim) error {
	t, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := t.(json.Delim); !ok || d != want {
		return fmt.Errorf("got %v, want %v", t, want)
	}
	return nil
}

// skipValue reads past one JSON value without holding it.
func skipValue(dec *json.Decoder) error {
	depth := 0
	for {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		if d, ok := t.(json.Delim); ok {
			if d == '{' || d == '[' {
				depth++
			} else {
				depth--
			}
		}
		if depth == 0 {
			return nil
		}
	}
}

// Open implements sessions.Store: the lines of the session's chat, then
// those of each subagent's chat, in the dialect's line shape. A .jsonl
// is read as it is, but for the metadata line of the session's chat, to
// which Open adds {"$evtool":{"projectRoot": …}} when Gemini CLI's
// project registry names the project's directory (the chat itself holds
// only its sha256, projectHash). A legacy .json document becomes the same
// lines: its members but messages on one metadata line, then each message
// on a line of its own, each as it stands in the file, without its white
// space (keys in their order, numbers and strings as written).
func (Store) Open(ref sessions.Ref) (io.ReadCloser, error) {
	files := append([]string{ref.Path}, ref.Parts...)
	for _, p := range files { // fail early on a file that cannot be read
		f, err := os.Open(p)
		if err != nil {
			return nil, err
		}
		f.Close()
	}
	pr, pw := io.Pipe()
	go func() {
		w := bufio.NewWriterSize(pw, 1<<16)
		var err error
		for i, p := range files {
			if err = writeChat(w, p, i == 0); err != nil {
				break
			}
		}
		if err == nil {
			err = w.Flush()
		}
		pw.CloseWithError(err)
	}()
	return pr, nil
}

// writeChat writes the lines of one chat file.
func writeChat(w *bufio.Writer, p string, main bool) error {
	if strings.HasSuffix(p, ".json") {
		return writeLegacy(w, p, main)
	}
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<16)
	first, err := r.ReadBytes('\n')
	if err != nil && err != io.EOF {
		return err
	}
	if main {
		first = withRoot(first, p)
	}
	if _, err := w.Write(first); err != nil {
		return err
	}
	last := byte('\n')
	if len(first) > 0 {
		last = first[len(first)-1]
	}
	buf := make([]byte, 1<<16)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			last = buf[n-1]
			if _, werr := w.Write(buf[:n]); werr != nil {
				return werr
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
	}
	if last != '\n' {
		return w.WriteByte('\n') // the next chat's first line starts a line
	}
	return nil
}

// withRoot adds the project's directory to a session's metadata line,
// if the registry names it.
func withRoot(line []byte, chat string) []byte {
	body := bytes.TrimRight(line, " \t\r\n")
	r := gjson.ParseBytes(body)
	if classify(r) != lineMeta || len(body) < 2 || body[len(body)-1] != '}' || jsonobj.Lookup(r, evtoolKey).Exists() {
		return line
	}
	root := projectRoot(chat, jsonobj.Lookup(r, "projectHash").Str)
	if root == "" {
		return line
	}
	out := append([]byte(nil), body[:len(body)-1]...)
	if len(bytes.TrimSpace(out[1:])) > 0 {
		out = append(out, ',')
	}
	out = append(out, rootMember(root)...)
	out = append(out, '}')
	return append(out, line[len(body):]...)
}

// rootMember is the "$evtool" member that names the project's directory.
func rootMember(root string) []byte {
	b := jsonenc.String(nil, evtoolKey)
	b = append(b, `:{"projectRoot":`...)
	b = jsonenc.String(b, root)
	return append(b, '}')
}

// projectRoot returns the directory of the project a chat belongs to, as
// Gemini CLI's own records name it, or "" when they do not: the path in
// ~/.gemini/projects.json whose sha256 is the chat's projectHash, else
// the one path registered under the project directory's name, else the
// path in the directory's .project_root marker. A directory named by a
// hash before 0.29 and never registered has no path to tell: none is made
// up.
func projectRoot(chat, hash string) string {
	chats := filepath.Dir(chat)
	if filepath.Base(chats) != "chats" {
		return ""
	}
	project := filepath.Dir(chats)
	slug := filepath.Base(project)
	registry := filepath.Join(filepath.Dir(filepath.Dir(project)), "projects.json")
	if data, err := os.ReadFile(registry); err == nil {
		var reg struct {
			Projects map[string]string `json:"projects"`
		}
		if json.Unmarshal(data, &reg) == nil {
			var bySlug []string
			for p, s := range reg.Projects {
				if hash != "" && sha256Hex(p) == hash {
					return p
				}
				if s == slug {
					bySlug = append(bySlug, p)
				}
			}
			if len(bySlug) == 1 {
				return bySlug[0]
			}
		}
	}
	if data, err := os.ReadFile(filepath.Join(project, ".project_root")); err == nil {
		return strings.TrimSpace(string(data))
	}
	return ""
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// openDocument opens a legacy chat document to be read token by token,
// its numbers as written.
func openDocument(p string) (*os.File, *json.Decoder, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, nil, err
	}
	dec := json.NewDecoder(bufio.NewReaderSize(f, 1<<16))
	dec.UseNumber()
	return f, dec, nil
}

// writeLegacy writes a legacy chat document as lines: its metadata, then
// its messages. It reads the file twice, token by token, so that it holds
// one message at a time: the metadata line needs the members after the
// messages too (summary and kind come after them).
func writeLegacy(w *bufio.Writer, p string, main bool) error {
	f, dec, err := openDocument(p)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := expectDelim(dec, '{'); err != nil {
		return fmt.Errorf("%s: %w", p, err)
	}
	var meta bytes.Buffer
	meta.WriteByte('{')
	var id, hash string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		key, _ := k.(string)
		if key == "messages" {
			if err := skipValue(dec); err != nil {
				return fmt.Errorf("%s: %w", p, err)
			}
			continue
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		switch key {
		case "sessionId":
			id = gjson.ParseBytes(raw).Str
		case "projectHash":
			hash = gjson.ParseBytes(raw).Str
		}
		if meta.Len() > 1 {
			meta.WriteByte(',')
		}
		meta.Write(jsonenc.String(nil, key))
		meta.WriteByte(':')
		if err := json.Compact(&meta, raw); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
	}
	if main && id != "" {
		if root := projectRoot(p, hash); root != "" {
			if meta.Len() > 1 {
				meta.WriteByte(',')
			}
			meta.Write(rootMember(root))
		}
	}
	meta.WriteString("}\n")
	if _, err := w.Write(meta.Bytes()); err != nil {
		return err
	}
	return writeMessages(w, p)
}

// writeMessages writes the messages of a legacy chat document, one a line.
func writeMessages(w *bufio.Writer, p string) error {
	f, dec, err := openDocument(p)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := expectDelim(dec, '{'); err != nil {
		return err
	}
	var line bytes.Buffer
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		if key, _ := k.(string); key != "messages" {
			if err := skipValue(dec); err != nil {
				return fmt.Errorf("%s: %w", p, err)
			}
			continue
		}
		if err := expectDelim(dec, '['); err != nil {
			return fmt.Errorf("%s: messages: %w", p, err)
		}
		for dec.More() {
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return fmt.Errorf("%s: %w", p, err)
			}
			line.Reset()
			if err := json.Compact(&line, raw); err != nil {
				return fmt.Errorf("%s: %w", p, err)
			}
			line.WriteByte('\n')
			if _, err := w.Write(line.Bytes()); err != nil {
				return err
			}
		}
		return nil
	}
	return nil
}

// Homes implements sessions.Homer: Gemini CLI's .gemini directory (settings, the projects registry), of which tmp is one folder.
func (s Store) Homes() []string { return sessions.Parents(s.Roots()) }
