package opencodestorage_test

// The store reads opencode.db without disturbing a running opencode.
//
// What "nothing changed" can mean: while opencode writes, the database's
// files change by its hand, so a reader's effect cannot be seen in their
// bytes. Two tests say what can be said:
//
//   - TestReaderChangesNothing: with no writer at all, a copy of the files
//     as opencode leaves them (running, with rows only in the WAL; or
//     closed cleanly, with no WAL), scanned and every session opened: the
//     database, its -wal and its -shm keep every byte and their times, no
//     file is created, and the rows in the WAL are read.
//   - TestConcurrentWriter: another process writes in WAL mode, committing
//     in a loop with frequent checkpoints, while the store scans and opens
//     the session again and again: no write fails, every reading is whole
//     and sees every row committed before it began; when the writer stops
//     (its close checkpoints, as opencode's does), the files it leaves are
//     its own: the database holds exactly its rows and passes SQLite's
//     integrity check, and no -wal or -shm is left behind by a reader.

import (
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/evtool/evtool/adapters/opencodestorage"
	"github.com/evtool/evtool/dialecttest"
	"github.com/evtool/evtool/sessions"
)

// writerEnv names the database a re-executed test binary writes to.
const writerEnv = "EVTOOL_OPENCODE_STORAGE_WRITER"

func TestMain(m *testing.M) {
	if path := os.Getenv(writerEnv); path != "" {
		if err := writeLoop(path); err != nil {
			fmt.Fprintln(os.Stderr, "writer:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// liveSession is the session the writer process grows.
const liveSession = "ses_live"

// writeLoop is the writer process: opencode's way of writing (WAL, a busy
// timeout, a checkpoint every 20 pages to make them frequent), one user
// and one assistant message with two parts a transaction, the number of
// committed transactions written to path.count after each, until
// path.stop exists. Its close checkpoints and removes -wal and -shm, as
// the last connection's does.
func writeLoop(path string) error {
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)&_pragma=busy_timeout(5000)&_pragma=wal_autocheckpoint(20)")
	if err != nil {
		return err
	}
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(schemaDDL); err != nil {
		return err
	}
	if _, err := db.Exec("INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated) VALUES (?, 'p', 'live', '/w', 'live', '1.2.6', 1767000000000, 1767000000000)", liveSession); err != nil {
		return err
	}
	pad := strings.Repeat("x", 2000)
	deadline := time.Now().Add(60 * time.Second)
	for i := 0; ; i++ {
		if _, err := os.Stat(path + ".stop"); err == nil || time.Now().After(deadline) {
			break
		}
		tx, err := db.Begin()
		if err != nil {
			return err
		}
		t := 1767000000000 + int64(i)*10
		u, a := fmt.Sprintf("msg_%08du", i), fmt.Sprintf("msg_%08dv", i)
		stmts := [][]any{
			{"INSERT INTO message VALUES (?, ?, ?, ?, ?)", u, liveSession, t, t, fmt.Sprintf(`{"role":"user","time":{"created":%d},"agent":"build","model":{"providerID":"p","modelID":"m"}}`, t)},
			{"INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)", fmt.Sprintf("prt_%08da", i), u, liveSession, t, t, `{"type":"text","text":"go on"}`},
			{"INSERT INTO message VALUES (?, ?, ?, ?, ?)", a, liveSession, t + 1, t + 2, fmt.Sprintf(`{"role":"assistant","time":{"created":%d,"completed":%d},"parentID":%q,"modelID":"m","providerID":"p","mode":"build","agent":"build","path":{"cwd":"/w","root":"/w"},"cost":0.001,"tokens":{"input":10,"output":5,"reasoning":0,"cache":{"read":100,"write":0}},"finish":"stop"}`, t+1, t+2, u)},
			{"INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)", fmt.Sprintf("prt_%08db", i), a, liveSession, t, t, `{"type":"text","text":"` + pad + `"}`},
		}
		for _, s := range stmts {
			if _, err := tx.Exec(s[0].(string), s[1:]...); err != nil {
				tx.Rollback()
				return err
			}
		}
		if err := tx.Commit(); err != nil {
			return err
		}
		if err := os.WriteFile(path+".count.tmp", []byte(strconv.Itoa(i+1)), 0o644); err != nil {
			return err
		}
		if err := os.Rename(path+".count.tmp", path+".count"); err != nil {
			return err
		}
	}
	return db.Close()
}

// fileState is a file's bytes' digest, size and time, or its absence.
func fileState(path string) string {
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "absent"
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	return fmt.Sprintf("%x size %d mtime %d", sha256.Sum256(b), st.Size(), st.ModTime().UnixNano())
}

// dirState describes every file of a directory.
func dirState(t *testing.T, dir string) map[string]string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range ents {
		out[e.Name()] = fileState(filepath.Join(dir, e.Name()))
	}
	return out
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// readAll scans a directory and opens every session, returning the
// streams by session id.
func readAll(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, ref := range scan(t, dir) {
		out[ref.ID] = open(t, ref)
	}
	return out
}

func TestReaderChangesNothing(t *testing.T) {
	src := t.TempDir()
	// An open writer that never checkpoints: every row stays in the WAL.
	w := openWriter(t, filepath.Join(src, "opencode.db"), "wal_autocheckpoint(0)")
	for _, name := range dbStreams {
		insertStream(t, w, readStream(t, name))
	}
	// The files as a running opencode has them.
	live := t.TempDir()
	for _, f := range []string{"opencode.db", "opencode.db-wal", "opencode.db-shm"} {
		copyFile(t, filepath.Join(src, f), filepath.Join(live, f))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	// The files as opencode leaves them after a clean exit: no WAL.
	closed := t.TempDir()
	copyFile(t, filepath.Join(src, "opencode.db"), filepath.Join(closed, "opencode.db"))
	if _, err := os.Stat(filepath.Join(src, "opencode.db-wal")); err == nil {
		t.Fatal("the writer's close left a WAL: the clean case is not clean")
	}

	for _, c := range []struct{ name, dir string }{{"running", live}, {"closed", closed}} {
		t.Run(c.name, func(t *testing.T) {
			// Let a file's time tell a write apart from the copy.
			time.Sleep(20 * time.Millisecond)
			before := dirState(t, c.dir)
			got := readAll(t, c.dir)
			if after := dirState(t, c.dir); fmt.Sprint(after) != fmt.Sprint(before) {
				t.Errorf("the reader changed the files:\nbefore %v\nafter  %v", before, after)
			}
			if len(got) != len(dbStreams) {
				t.Fatalf("read %d sessions, want %d", len(got), len(dbStreams))
			}
			for _, name := range dbStreams {
				want := readStream(t, name)
				if got[sessionID(want)] != string(want) {
					t.Errorf("%s: read\n%s\nwant\n%s", name, got[sessionID(want)], want)
				}
			}
		})
	}

	// The running copy's rows are in its WAL only: immutable=1, which
	// ignores the WAL, would have missed every one of them.
	db, err := sql.Open("sqlite", "file:"+filepath.Join(live, "opencode.db")+"?immutable=1")
	if err != nil {
		t.Fatal(err)
	}
	var n int
	err = db.QueryRow("SELECT count(*) FROM message").Scan(&n)
	db.Close()
	if err == nil && n != 0 {
		t.Errorf("the copy's database file holds %d messages: the test does not show the WAL is read", n)
	}

	// A WAL without its -shm: refused, and nothing created.
	broken := t.TempDir()
	copyFile(t, filepath.Join(live, "opencode.db"), filepath.Join(broken, "opencode.db"))
	copyFile(t, filepath.Join(live, "opencode.db-wal"), filepath.Join(broken, "opencode.db-wal"))
	before := dirState(t, broken)
	err = (opencodestorage.Store{}).Scan(t.Context(), broken, func(sessions.Ref) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "-shm") {
		t.Errorf("Scan of a WAL without -shm: %v", err)
	}
	if after := dirState(t, broken); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("the refused reading changed the files:\nbefore %v\nafter  %v", before, after)
	}

	// The refusal's advice, followed, reads every session: the database
	// and its -wal copied elsewhere (broken is such a copy already, and is
	// refused the same way), and their log folded into the copy by
	// `PRAGMA journal_mode=DELETE`, which a writable SQLite connection
	// (the sqlite3 shell's) runs.
	const fold = "PRAGMA journal_mode=DELETE"
	if err == nil || !strings.Contains(err.Error(), fold) {
		t.Fatalf("the refusal does not say how to read the database: %v", err)
	}
	w, err = sql.Open("sqlite", "file:"+filepath.Join(broken, "opencode.db"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Exec(fold); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	refs, err := collect(t, broken)
	if _, serr := os.Stat(filepath.Join(broken, "opencode.db-wal")); serr == nil {
		t.Error("the log folded into the copy is still beside it")
	}
	if err != nil || len(refs) != len(dbStreams) {
		t.Errorf("the copy, its log folded in: %d sessions, %v; want %d", len(refs), err, len(dbStreams))
	}
}

// collect scans root and returns what it found and the error.
func collect(t *testing.T, root string) ([]sessions.Ref, error) {
	var refs []sessions.Ref
	err := (opencodestorage.Store{}).Scan(t.Context(), root, func(r sessions.Ref) error {
		refs = append(refs, r)
		return nil
	})
	return refs, err
}

func TestConcurrentWriter(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a writer process")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "opencode.db")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), writerEnv+"="+path)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		os.WriteFile(path+".stop", nil, 0o644)
		if err := cmd.Wait(); err != nil {
			t.Errorf("the writer failed: %v\n%s", err, stderr.String())
		}
	}
	defer stop()
	committed := func() int {
		b, _ := os.ReadFile(path + ".count")
		n, _ := strconv.Atoi(string(b))
		return n
	}
	for deadline := time.Now().Add(20 * time.Second); committed() < 5; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the writer committed nothing: %s", stderr.String())
		}
	}
	d := opencodestorage.Dialect{}
	reads, last := 0, 0
	for end := time.Now().Add(2 * time.Second); time.Now().Before(end); reads++ {
		floor := committed() // committed before this reading began
		var refs []sessions.Ref
		if err := (opencodestorage.Store{}).Scan(t.Context(), dir, func(r sessions.Ref) error {
			refs = append(refs, r)
			return nil
		}); err != nil {
			t.Fatalf("reading %d: Scan: %v", reads, err)
		}
		if len(refs) != 1 || refs[0].ID != liveSession {
			t.Fatalf("reading %d: Scan found %+v", reads, refs)
		}
		got := open(t, refs[0])
		ls := dialecttest.Lines(got)
		users := strings.Count(got, `"role":"user"`)
		if users < floor || users < last {
			t.Fatalf("reading %d sees %d transactions, %d were committed before it began (%d the time before)", reads, users, floor, last)
		}
		// Whole: every message has its part, and the stream reads as
		// the dialect's, without an error.
		if len(ls) != 1+4*users {
			t.Fatalf("reading %d: %d lines for %d transactions", reads, len(ls), users)
		}
		dialecttest.Accepted(t, d, got)
		last = users
	}
	stop()
	final := committed()
	t.Logf("%d readings while the writer committed; they saw up to %d transactions, the writer committed %d in all", reads, last, final)
	if reads < 3 {
		t.Errorf("only %d readings overlapped the writer", reads)
	}
	// The files the writer leaves are its own.
	for _, f := range []string{"opencode.db-wal", "opencode.db-shm"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("%s is left behind: the writer's last close did not remove it", f)
		}
	}
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&immutable=1")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var check string
	var n int
	if err := db.QueryRow("PRAGMA integrity_check").Scan(&check); err != nil || check != "ok" {
		t.Errorf("integrity_check: %q %v", check, err)
	}
	if err := db.QueryRow("SELECT count(*) FROM message").Scan(&n); err != nil || n != 2*final {
		t.Errorf("the database holds %d messages, the writer committed %d (%v)", n, 2*final, err)
	}
	rows := readAll(t, dir)
	if got := strings.Count(rows[liveSession], `"role":"user"`); got != final {
		t.Errorf("after the writer stopped, the store reads %d transactions of %d", got, final)
	}
}
