package opencodestorage

// Reading opencode.db without disturbing a running opencode.
//
// opencode keeps the database in WAL mode: committed rows may sit in
// opencode.db-wal, indexed by the shared memory file opencode.db-shm,
// until a checkpoint copies them into opencode.db. What SQLite (as the
// pure-Go modernc.org/sqlite runs it) does with a read-only connection,
// found by experiment and kept true by store_test.go:
//
//   - mode=ro alone reads the WAL, but writes read marks into -shm, and
//     creates -shm (and an empty -wal) where they are missing and the
//     directory is writable; it fails where it cannot create them.
//   - readonly_shm=1 opens -shm read-only: SQLite then indexes the WAL in
//     its own memory where it cannot trust or write the shared one, and
//     holds only shared locks. It reads every committed row and changes
//     no byte of any file; it fails where -shm is missing.
//   - immutable=1 ignores the WAL: rows not yet checkpointed are missed.
//     It takes no lock either, so it is safe only while no one writes.
//
// So: with -wal and -shm present (opencode running, or stopped without
// its last checkpoint) the database is opened mode=ro&readonly_shm=1.
// Without -wal every committed row is in the database file, and it is
// opened mode=ro&immutable=1, which creates nothing; since an immutable
// reader takes no lock, the file's size and time are compared when the
// reading ends, and a change (a writer came) fails the read rather than
// give rows read across it. A -wal without its -shm cannot be read
// without creating the -shm: that is refused, with the reason.

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/evtool/evtool/internal/jsonenc"
	_ "modernc.org/sqlite" // the pure-Go SQLite driver, registered as "sqlite"
)

// database is an opencode database opened read-only.
type database struct {
	db        *sql.DB
	path      string
	immutable bool
	size      int64 // of the file when opened immutable
	mtime     int64
}

// errWALWithoutSHM says why a database is not read.
// A copy of the database and its -wal is refused the same way: the advice
// is to fold the log into the copy, which a writable connection does (and
// TestReaderChangesNothing does); the copy then has no -wal.
var errWALWithoutSHM = errors.New("its write-ahead log (-wal) has no shared-memory index (-shm) beside it, and SQLite reads the log only by creating one, which evtool does not do: start opencode once (it recovers the log), or copy the database and its -wal, under the same names, to another directory, fold the log into the copy with `sqlite3 COPY 'PRAGMA journal_mode=DELETE'`, and read the copy")

// openDatabase opens an opencode database read-only, as the package
// comment says.
func openDatabase(path string) (*database, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	st, err := os.Stat(abs)
	if err != nil {
		return nil, err
	}
	_, walErr := os.Stat(abs + "-wal")
	_, shmErr := os.Stat(abs + "-shm")
	d := &database{path: abs}
	q := "mode=ro&readonly_shm=1"
	switch {
	case walErr == nil && shmErr == nil:
	case walErr == nil:
		return nil, fmt.Errorf("%s: %w", abs, errWALWithoutSHM)
	default:
		q = "mode=ro&immutable=1"
		d.immutable, d.size, d.mtime = true, st.Size(), st.ModTime().UnixNano()
	}
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs), RawQuery: q}
	if !strings.HasPrefix(u.Path, "/") {
		u.Path = "/" + u.Path // a Windows volume: file:///C:/…
	}
	db, err := sql.Open("sqlite", u.String())
	if err != nil {
		return nil, err
	}
	// One connection: every query of a reading sees one snapshot.
	db.SetMaxOpenConns(1)
	if err := db.Ping(); err != nil {
		db.Close()
		return nil, fmt.Errorf("%s: %w", abs, err)
	}
	d.db = db
	return d, nil
}

// transient reports whether SQLite refused a read for a moment only: the
// database is busy, or a writer is (re)building the shared-memory index a
// read-only connection may not build itself (SQLITE_READONLY_RECOVERY,
// SQLITE_READONLY_CANTINIT; SQLite's advice for both is to try again).
func transient(err error) bool {
	var c interface{ Code() int }
	if !errors.As(err, &c) {
		return false
	}
	switch code := c.Code(); {
	case code&0xff == 5: // SQLITE_BUSY and its extended codes
		return true
	case code == 264, code == 1288: // SQLITE_READONLY_RECOVERY, SQLITE_READONLY_CANTINIT
		return true
	}
	return false
}

// retry runs a reading again while SQLite refuses it for a moment
// (transient), for about two seconds at most, and returns its last error.
func retry(read func() error) error {
	wait := 5 * time.Millisecond
	for deadline := time.Now().Add(2 * time.Second); ; {
		err := read()
		if err == nil || !transient(err) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(wait)
		wait = min(2*wait, 200*time.Millisecond)
	}
}

// verify reports whether an immutable reading may stand: the file did not
// change while it was read.
func (d *database) verify() error {
	if !d.immutable {
		return nil
	}
	st, err := os.Stat(d.path)
	if err != nil {
		return err
	}
	if st.Size() != d.size || st.ModTime().UnixNano() != d.mtime {
		return fmt.Errorf("%s changed while it was read (opencode started writing to it): read it again", d.path)
	}
	return nil
}

func (d *database) Close() error { return d.db.Close() }

// jsonColumns are the session columns opencode stores as JSON text.
var jsonColumns = map[string]bool{
	"summary_diffs": true, "revert": true, "permission": true, "model": true, "metadata": true, "goal": true,
}

// appendRow appends a session row as a JSON object, column by column in
// the table's order: integers as written, reals as JavaScript prints them
// (a REAL is a double in SQLite, so the double is the value itself),
// NULL as null, the JSON columns as their JSON, other text as strings.
func appendRow(b []byte, cols []string, vals []any) []byte {
	b = append(b, '{')
	for i, c := range cols {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonenc.String(b, c)
		b = append(b, ':')
		switch v := vals[i].(type) {
		case nil:
			b = append(b, "null"...)
		case int64:
			b = strconv.AppendInt(b, v, 10)
		case float64:
			b = append(b, jsNumber(v)...)
		case bool:
			b = strconv.AppendBool(b, v)
		case string:
			b = appendText(b, []byte(v), jsonColumns[c])
		case []byte:
			b = appendText(b, v, jsonColumns[c])
		default:
			b = jsonenc.String(b, fmt.Sprint(v))
		}
	}
	return append(b, '}')
}

// appendText appends stored text: compacted JSON where the column holds
// JSON and the text is valid JSON, else a JSON string.
func appendText(b, text []byte, isJSON bool) []byte {
	if isJSON {
		if out, ok := compactJSON(b, text); ok {
			return out
		}
	}
	if !utf8.Valid(text) {
		text = bytes.ToValidUTF8(text, []byte("\uFFFD"))
	}
	return jsonenc.String(b, string(text))
}

// compactJSON appends text compacted, if it is valid JSON. Compacting
// removes white space only: numbers and strings keep their text.
func compactJSON(b, text []byte) ([]byte, bool) {
	var buf bytes.Buffer
	if err := json.Compact(&buf, text); err != nil {
		return b, false
	}
	return append(b, buf.Bytes()...), true
}

// jsNumber formats a double as JavaScript's Number.prototype.toString
// (and so JSON.stringify) does: the shortest digits that read back as the
// same double, in plain notation for exponents from -7 to 20.
func jsNumber(f float64) string {
	switch {
	case math.IsNaN(f) || math.IsInf(f, 0):
		return "null" // what JSON.stringify writes
	case f == 0:
		return "0"
	}
	sign := ""
	if f < 0 {
		sign, f = "-", -f
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±x
	mant, exp, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	x, _ := strconv.Atoi(exp)
	k, n := len(digits), x+1 // n: the decimal point's place after the first digit
	switch {
	case k <= n && n <= 21:
		return sign + digits + strings.Repeat("0", n-k)
	case 0 < n && n <= 21:
		return sign + digits[:n] + "." + digits[n:]
	case -6 < n && n <= 0:
		return sign + "0." + strings.Repeat("0", -n) + digits
	}
	s := digits[:1]
	if k > 1 {
		s += "." + digits[1:]
	}
	if n-1 >= 0 {
		return sign + s + "e+" + strconv.Itoa(n-1)
	}
	return sign + s + "e-" + strconv.Itoa(1-n)
}
