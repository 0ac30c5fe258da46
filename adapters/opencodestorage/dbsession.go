package opencodestorage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/evtool/evtool/internal/jsonenc"
)

// dbSession makes the lines of one session of a database, in one read
// transaction (one snapshot): the session row, each message (by
// time_created, then id) followed by its parts (by id, as opencode sorts
// them through its part_message_id_id_idx index), then the todo rows.
// It holds one message's cursor and one part's row at a time.
type dbSession struct {
	db    *database
	tx    *sql.Tx
	id    string
	phase int // 0 session, 1 messages, 2 todo, 3 done
	msgs  *sql.Rows
	parts *sql.Rows
	msgID string
}

func openDatabaseSession(path, id string) (io.ReadCloser, error) {
	var s *dbSession
	err := retry(func() error {
		var err error
		s, err = beginSession(path, id)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &lineReader{next: s.next, close: s.close}, nil
}

// beginSession opens the database and takes the snapshot the session is
// read from: a read transaction begins at its first read, so one is made
// here, where a reading SQLite refuses for a moment can be tried again.
func beginSession(path, id string) (*dbSession, error) {
	db, err := openDatabase(path)
	if err != nil {
		return nil, err
	}
	tx, err := db.db.BeginTx(context.Background(), &sql.TxOptions{ReadOnly: true})
	if err == nil {
		var n int
		if err = tx.QueryRow("SELECT count(*) FROM session WHERE id = ?", id).Scan(&n); err != nil {
			tx.Rollback()
		}
	}
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("%s: %w", db.path, err)
	}
	return &dbSession{db: db, tx: tx, id: id}, nil
}

func (s *dbSession) fail(err error) error {
	return fmt.Errorf("%s: session %s: %w", s.db.path, s.id, err)
}

func (s *dbSession) next(buf []byte) ([]byte, error) {
	for {
		switch s.phase {
		case 0:
			s.phase = 1
			return s.session(buf)
		case 1:
			if line, ok, err := s.message(buf); ok || err != nil {
				return line, err
			}
			s.phase = 2
		case 2:
			s.phase = 3
			if line, ok, err := s.todo(buf); ok || err != nil {
				return line, err
			}
		default:
			// The end: an immutable reading stands only if nothing
			// wrote meanwhile.
			if err := s.db.verify(); err != nil {
				return buf, err
			}
			return buf, io.EOF
		}
	}
}

func (s *dbSession) session(buf []byte) ([]byte, error) {
	rows, err := s.tx.Query("SELECT * FROM session WHERE id = ?", s.id)
	if err != nil {
		return buf, s.fail(err)
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return buf, s.fail(err)
		}
		return buf, s.fail(errors.New("no such session in the database"))
	}
	cols, err := rows.Columns()
	if err != nil {
		return buf, s.fail(err)
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := rows.Scan(ptrs...); err != nil {
		return buf, s.fail(err)
	}
	buf = append(buf, `{"type":"session","id":`...)
	buf = jsonenc.String(buf, s.id)
	buf = append(buf, `,"data":`...)
	buf = appendRow(buf, cols, vals)
	return append(buf, "}\n"...), rows.Close()
}

// message returns the next line of the messages phase: a part of the
// current message, else the next message; ok is false after the last.
func (s *dbSession) message(buf []byte) ([]byte, bool, error) {
	if s.msgs == nil {
		rows, err := s.tx.Query("SELECT id, data FROM message WHERE session_id = ? ORDER BY time_created, id", s.id)
		if err != nil {
			return buf, false, s.fail(err)
		}
		s.msgs = rows
	}
	if s.parts != nil {
		if s.parts.Next() {
			var id string
			var data []byte
			if err := s.parts.Scan(&id, &data); err != nil {
				return buf, false, s.fail(err)
			}
			buf = append(buf, `{"type":"part","id":`...)
			buf = jsonenc.String(buf, id)
			buf = append(buf, `,"messageID":`...)
			buf = jsonenc.String(buf, s.msgID)
			buf = append(buf, `,"sessionID":`...)
			buf = jsonenc.String(buf, s.id)
			buf = append(buf, `,"data":`...)
			buf = appendText(buf, data, true)
			return append(buf, "}\n"...), true, nil
		}
		err := errors.Join(s.parts.Err(), s.parts.Close())
		s.parts = nil
		if err != nil {
			return buf, false, s.fail(err)
		}
	}
	if !s.msgs.Next() {
		err := errors.Join(s.msgs.Err(), s.msgs.Close())
		if err != nil {
			return buf, false, s.fail(err)
		}
		return buf, false, nil
	}
	var id string
	var data []byte
	if err := s.msgs.Scan(&id, &data); err != nil {
		return buf, false, s.fail(err)
	}
	parts, err := s.tx.Query("SELECT id, data FROM part WHERE message_id = ? ORDER BY id", id)
	if err != nil {
		return buf, false, s.fail(err)
	}
	s.parts, s.msgID = parts, id
	buf = append(buf, `{"type":"message","id":`...)
	buf = jsonenc.String(buf, id)
	buf = append(buf, `,"sessionID":`...)
	buf = jsonenc.String(buf, s.id)
	buf = append(buf, `,"data":`...)
	buf = appendText(buf, data, true)
	return append(buf, "}\n"...), true, nil
}

// todo returns the todo line, built from the todo rows (the database
// keeps a todo list as rows, not JSON); ok is false when there are none.
func (s *dbSession) todo(buf []byte) ([]byte, bool, error) {
	rows, err := s.tx.Query("SELECT content, status, priority FROM todo WHERE session_id = ? ORDER BY position", s.id)
	if err != nil {
		if strings.Contains(err.Error(), "no such table") {
			return buf, false, nil
		}
		return buf, false, s.fail(err)
	}
	defer rows.Close()
	start := len(buf)
	buf = append(buf, `{"type":"todo","sessionID":`...)
	buf = jsonenc.String(buf, s.id)
	buf = append(buf, `,"data":[`...)
	n := 0
	for rows.Next() {
		var content, status, priority string
		if err := rows.Scan(&content, &status, &priority); err != nil {
			return buf, false, s.fail(err)
		}
		if n > 0 {
			buf = append(buf, ',')
		}
		n++
		buf = append(buf, `{"content":`...)
		buf = jsonenc.String(buf, content)
		buf = append(buf, `,"status":`...)
		buf = jsonenc.String(buf, status)
		buf = append(buf, `,"priority":`...)
		buf = jsonenc.String(buf, priority)
		buf = append(buf, '}')
	}
	if err := rows.Err(); err != nil {
		return buf, false, s.fail(err)
	}
	if n == 0 {
		return buf[:start], false, nil
	}
	return append(buf, "]}\n"...), true, nil
}

func (s *dbSession) close() error {
	var errs []error
	if s.parts != nil {
		errs = append(errs, s.parts.Close())
	}
	if s.msgs != nil {
		errs = append(errs, s.msgs.Close())
	}
	// The transaction only read: rolling it back ends it.
	if err := s.tx.Rollback(); err != nil && !errors.Is(err, sql.ErrTxDone) {
		errs = append(errs, err)
	}
	errs = append(errs, s.db.Close())
	return errors.Join(errs...)
}
