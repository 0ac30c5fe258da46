package opencodestorage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/evtool/evtool/adapters/internal/dialectstore"
	"github.com/evtool/evtool/sessions"
)

// Store finds and opens opencode's stored sessions. It only reads: the
// database is opened read-only without disturbing a running opencode
// (see sqlite.go), the JSON files are only opened for reading.
type Store struct{ dialectstore.Of[Dialect] }

// Roots implements sessions.Store: opencode's data directory,
// ${XDG_DATA_HOME:-~/.local/share}/opencode (on every platform: opencode
// resolves it with xdg-basedir), which holds opencode.db and the older
// storage/ directory; and the database $OPENCODE_DB names, when set.
func (Store) Roots() []string {
	data := os.Getenv("XDG_DATA_HOME")
	if data == "" {
		if home, err := os.UserHomeDir(); err == nil {
			data = filepath.Join(home, ".local", "share")
		}
	}
	var roots []string
	if data != "" {
		roots = append(roots, filepath.Join(data, "opencode"))
	}
	// opencode reads OPENCODE_DB as a path, absolute or under its data
	// directory (":memory:" keeps nothing on disk).
	if db := os.Getenv("OPENCODE_DB"); db != "" && db != ":memory:" {
		if !filepath.IsAbs(db) && data != "" {
			db = filepath.Join(data, "opencode", db)
		}
		roots = append(roots, db)
	}
	return roots
}

// Scan implements sessions.Store. root is opencode's data directory (its
// databases — opencode.db, and opencode-<channel>.db of other release
// channels — and its storage/ directory), a storage/ directory itself, a
// database file, or one session file of the JSON storage. A session both
// in a database and in the JSON files is found once, in the database:
// opencode 1.2 copied the files into it and left them as they were.
//
// Scanning a database is one query of its session table; a Ref's Path is
// the database, its Parts the -wal, its Size theirs, and its Modified the
// session's own time_updated (the files' times are the whole database's).
// Scanning the JSON storage lists storage/session/*/ and stats each
// session file and its message directory; no message or part is read.
func (s Store) Scan(ctx context.Context, root string, found func(sessions.Ref) error) error {
	st, err := os.Stat(root)
	if err != nil {
		return err
	}
	if !st.IsDir() {
		if isDatabase(root) {
			return scanDatabase(ctx, root, nil, found)
		}
		return scanSessionFile(root, found)
	}
	seen := map[string]bool{}
	dbs, _ := filepath.Glob(filepath.Join(root, "opencode*.db"))
	sort.Strings(dbs)
	for _, db := range dbs {
		if base := filepath.Base(db); base != "opencode.db" && !strings.HasPrefix(base, "opencode-") {
			continue
		}
		if err := scanDatabase(ctx, db, seen, found); err != nil {
			return err
		}
	}
	storage := filepath.Join(root, "storage")
	if _, err := os.Stat(filepath.Join(root, "session")); err == nil {
		storage = root // root is a storage directory
	}
	return scanStorage(ctx, storage, seen, found)
}

// isDatabase reports whether a file is a SQLite database, by its header.
func isDatabase(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var head [16]byte
	_, err = io.ReadFull(f, head[:])
	return err == nil && string(head[:]) == "SQLite format 3\x00"
}

func scanDatabase(ctx context.Context, path string, seen map[string]bool, found func(sessions.Ref) error) error {
	// The rows are read whole before any is reported (below), so a
	// reading SQLite refuses for a moment is simply read again.
	var refs []sessions.Ref
	err := retry(func() error {
		var err error
		refs, err = readSessions(ctx, path)
		return err
	})
	if err != nil {
		return err
	}
	// The rows are read whole before any is reported, so that found
	// never runs while the database is held open.
	for _, ref := range refs {
		if seen[ref.ID] {
			continue
		}
		if seen != nil {
			seen[ref.ID] = true
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := found(ref); err != nil {
			return err
		}
	}
	return nil
}

// scanStorage finds the sessions of a JSON storage directory:
// session/<projectID>/<sessionID>.json. The ids are the files' names, as
// opencode's own migration takes them.
func scanStorage(ctx context.Context, storage string, seen map[string]bool, found func(sessions.Ref) error) error {
	files, _ := filepath.Glob(filepath.Join(storage, "session", "*", "*.json"))
	sort.Strings(files)
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return err
		}
		id := strings.TrimSuffix(filepath.Base(f), ".json")
		if seen[id] {
			continue
		}
		seen[id] = true
		if err := found(sessionRef(storage, f, id)); err != nil {
			return err
		}
	}
	return nil
}

// scanSessionFile takes one session file of the JSON storage. Any other
// file holds no opencode session: a file named on the command line is
// offered to every agent's store, and another agent's session file is
// its store's to find, not an error of this one.
func scanSessionFile(path string, found func(sessions.Ref) error) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	storage := filepath.Dir(filepath.Dir(filepath.Dir(abs)))
	if filepath.Ext(abs) != ".json" || filepath.Base(filepath.Dir(filepath.Dir(abs))) != "session" {
		return nil
	}
	return found(sessionRef(storage, abs, strings.TrimSuffix(filepath.Base(abs), ".json")))
}

// sessionRef describes a JSON session: its size is the session file's;
// its time the later of the file's and of its message directory's (which
// changes when a message is added).
func sessionRef(storage, file, id string) sessions.Ref {
	mod := fileTime(file)
	if t := fileTime(filepath.Join(storage, "message", id)); t.After(mod) {
		mod = t
	}
	return sessions.Ref{Agent: "opencode", ID: id, Path: file, Size: fileSize(file), Modified: mod}
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func fileSize(path string) int64 {
	if st, err := os.Stat(path); err == nil {
		return st.Size()
	}
	return 0
}

func fileTime(path string) time.Time {
	if st, err := os.Stat(path); err == nil {
		return st.ModTime()
	}
	return time.Time{}
}

// Open implements sessions.Store: the session's lines (see the package
// comment), read as they are asked for. A database stays open, read-only,
// until the reader is closed.
func (Store) Open(ref sessions.Ref) (io.ReadCloser, error) {
	if isDatabase(ref.Path) {
		return openDatabaseSession(ref.Path, ref.ID)
	}
	abs, err := filepath.Abs(ref.Path)
	if err != nil {
		return nil, err
	}
	storage := filepath.Dir(filepath.Dir(filepath.Dir(abs)))
	if _, err := os.Stat(abs); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: no such session file", ref.Path)
		}
		return nil, err
	}
	return openStorageSession(storage, abs, ref.ID)
}

// lineReader serves lines made one at a time by next, which appends a
// line to buf and returns io.EOF after the last.
type lineReader struct {
	line  []byte
	off   int
	next  func(buf []byte) ([]byte, error)
	err   error
	close func() error
}

func (r *lineReader) Read(p []byte) (int, error) {
	for r.off >= len(r.line) {
		if r.err != nil {
			return 0, r.err
		}
		r.line, r.err = r.next(r.line[:0])
		r.off = 0
	}
	n := copy(p, r.line[r.off:])
	r.off += n
	return n, nil
}

// Close implements io.Closer: it lets go of the files or the database.
func (r *lineReader) Close() error {
	if r.close == nil {
		return nil
	}
	c := r.close
	r.close = nil
	return c()
}

// readSessions reads the sessions of an opencode database, in the order
// they were created.
func readSessions(ctx context.Context, path string) ([]sessions.Ref, error) {
	db, err := openDatabase(path)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	var refs []sessions.Ref
	size, mod := fileSize(db.path), fileTime(db.path)
	var parts []string
	if wal := db.path + "-wal"; exists(wal) {
		parts = []string{wal}
		size += fileSize(wal)
		if t := fileTime(wal); t.After(mod) {
			mod = t
		}
	}
	rows, err := db.db.QueryContext(ctx, "SELECT id, time_updated FROM session ORDER BY time_created, id")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for rows.Next() {
		var id string
		var updated *int64
		if err := rows.Scan(&id, &updated); err != nil {
			rows.Close()
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		ref := sessions.Ref{Agent: "opencode", ID: id, Path: db.path, Parts: parts, Size: size, Modified: mod}
		if updated != nil {
			ref.Modified = time.UnixMilli(*updated)
		}
		refs = append(refs, ref)
	}
	err = errors.Join(rows.Err(), rows.Close(), db.verify())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return refs, nil
}
