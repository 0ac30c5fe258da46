// Package ndjson reads newline-delimited JSON the way real producers write it.
//
// A Reader hands out one logical line at a time together with its physical
// line number. It has no line-length cap unless one is set (SetMaxLineBytes),
// strips a trailing CR (CRLF files),
// a UTF-8 byte order mark on the first line, and skips lines that hold only
// white space. A last line without a newline is still a line. It does not
// parse JSON: syntax is the caller's business, so a broken line never stops
// the lines after it from being read.
package ndjson

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
)

// DefaultBufferSize is the size of the read buffer. Lines longer than this
// are read into memory of their own (see Take).
const DefaultBufferSize = 64 << 10

// keepLong is the largest buffer of a long line the Reader keeps once a
// short line follows; a larger one is kept only for the long lines that
// follow it, so that a giant line's memory goes with it and two giant
// lines in a row share one buffer.
const keepLong = 16 << 20

var bom = []byte{0xEF, 0xBB, 0xBF}

// Reader reads lines of an NDJSON stream.
//
// A line longer than the read buffer is held once, in memory of its own
// size: on a regular file (SetFile) it is measured first and then read
// into a buffer of exactly its length; from a pipe it is gathered in
// blocks and copied once into such a buffer. A line over the limit
// (SetMaxLineBytes) is skipped without being held on a regular file, and
// with at most the limit held from a pipe, which cannot be read twice.
type Reader struct {
	br    *bufio.Reader
	file  File     // the regular file under br, when known: a long line is measured, then read once
	long  []byte   // the buffer of the last line longer than br's buffer
	parts [][]byte // the blocks of a long line being gathered
	line  int      // physical number of the line last returned
	phys  int      // physical lines consumed so far
	err   error
	first bool
	max   int // longest line returned; 0: no limit
	// What Next stripped from the line it returned last: its terminator
	// and a byte order mark. Kept so that a caller can write the line
	// back exactly as it was read.
	term string
	bom  bool
}

// File is what a Reader needs of a regular file to read a long line
// without gathering it: its position (Seek) and reads at an offset
// (ReadAt), which leave the position alone. *os.File has both.
type File interface {
	io.ReaderAt
	io.Seeker
}

// The terminators Term reports.
const (
	LF   = "\n"
	CRLF = "\r\n"
	CR   = "\r" // a last line that ends in a carriage return and no newline
)

// LineTooLongError reports a line longer than the Reader's limit. The line
// was skipped without being held in memory; reading goes on with the next.
type LineTooLongError struct {
	Line  int   // its 1-based physical line number
	Bytes int64 // its length without the terminator
	Max   int   // the limit
}

func (e *LineTooLongError) Error() string {
	return fmt.Sprintf("line %d is %d bytes long, over the limit of %d bytes; skipped", e.Line, e.Bytes, e.Max)
}

// SetMaxLineBytes makes the Reader refuse lines longer than n bytes with a
// *LineTooLongError, holding none of such a line when it reads a regular
// file (SetFile) and no more than about n bytes of it otherwise; n <= 0
// means no limit.
func (r *Reader) SetMaxLineBytes(n int) {
	if n < 0 {
		n = 0
	}
	r.max = n
}

// NewReader returns a Reader that reads from r. When r is a regular file
// (an *os.File), the Reader reads long lines from it as SetFile says.
func NewReader(r io.Reader) *Reader {
	rd := &Reader{br: bufio.NewReaderSize(r, DefaultBufferSize), first: true}
	if f, ok := r.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			rd.file = f
		}
	}
	return rd
}

// SetFile tells the Reader that the bytes it reads come straight from f,
// a regular file that nothing else reads meanwhile: the io.Reader
// NewReader was given is f itself or a *bufio.Reader of f (of at least
// DefaultBufferSize bytes, which the Reader then reads through). A line
// longer than the read buffer is then measured before it is read, and
// read once with ReadAt into a buffer of its length; a line over the limit
// is skipped without any of it being held. Reading a long line this way
// reads its bytes from f twice (the second time, most likely, from the
// page cache) and holds them once.
func (r *Reader) SetFile(f File) { r.file = f }

// Next returns the next non-blank line without its line terminator, and its
// 1-based physical line number. The slice is valid until the next call. At the
// end of the input it returns io.EOF; a *LineTooLongError is about one line
// and the next call goes on; any other error is a read error of the
// underlying reader.
func (r *Reader) Next() (line []byte, n int, err error) {
	for {
		if r.err != nil {
			return nil, r.line, r.err
		}
		b, err := r.readPhysical()
		r.term, r.bom = LF, false
		if tl, ok := err.(*LineTooLongError); ok {
			r.phys++
			r.line = r.phys
			tl.Line = r.line
			r.first = false
			return nil, r.line, tl
		}
		if err != nil {
			if err == io.EOF && len(b) == 0 {
				r.err = io.EOF
				return nil, r.line, io.EOF
			}
			if err != io.EOF {
				r.err = err
				return nil, r.line, err
			}
			// A final line without a newline: return it now, EOF next time.
			r.err = io.EOF
			r.term = ""
		}
		r.phys++
		if r.first {
			r.first = false
			r.bom = bytes.HasPrefix(b, bom)
			b = bytes.TrimPrefix(b, bom)
		}
		if len(b) > 0 && b[len(b)-1] == '\r' {
			b = b[:len(b)-1]
			if r.term == LF {
				r.term = CRLF
			} else {
				r.term = CR
			}
		}
		if isBlank(b) {
			if r.err != nil {
				return nil, r.line, r.err
			}
			continue
		}
		r.line = r.phys
		return b, r.line, nil
	}
}

// Term returns the terminator Next stripped from the line it returned
// last: LF, CRLF, CR, or "" for a last line that ends without one.
func (r *Reader) Term() string { return r.term }

// BOM reports whether the line Next returned last is the first and began
// with a UTF-8 byte order mark, which Next stripped.
func (r *Reader) BOM() bool { return r.bom }

// Take hands the caller the line Next just returned, when it was
// assembled in a buffer of its own (a line longer than the read buffer):
// the Reader lets go of that buffer and the caller may keep the line. It
// reports false, and the line stays the Reader's, otherwise. A reader of
// long lines that must keep one saves a copy of it.
func (r *Reader) Take(line []byte) bool {
	if len(line) == 0 || len(r.long) == 0 || &line[0] != &r.long[0] {
		return false
	}
	r.long = nil
	return true
}

// Buffered reports how many bytes of input are already read but not yet
// returned. Writers flush when it is zero, so a live pipe sees each event as
// soon as it is converted, while a file is written in large blocks.
func (r *Reader) Buffered() int { return r.br.Buffered() }

// readPhysical returns one physical line without its '\n'. The limit is
// on what the line holds: the '\r' of a line that ends in "\r\n" is its
// terminator, as the '\n' is, so it is read with one byte of room and the
// line is held to the limit once it is whole.
func (r *Reader) readPhysical() ([]byte, error) {
	if r.max <= 0 {
		return r.readTerminated()
	}
	r.max++
	b, err := r.readTerminated()
	r.max--
	var tl *LineTooLongError
	if errors.As(err, &tl) {
		tl.Max = r.max
		return b, err
	}
	if n := len(b); n > r.max && (n > r.max+1 || b[n-1] != '\r' || err != nil) {
		if err != nil {
			r.err = err // the input ends with this line
		}
		return nil, r.tooLong(int64(n))
	}
	return b, err
}

// readTerminated is readPhysical, with the limit on the line and its '\r'.
func (r *Reader) readTerminated() ([]byte, error) {
	b, err := r.br.ReadSlice('\n')
	if cap(r.long) > keepLong && !errors.Is(err, bufio.ErrBufferFull) {
		r.long = nil // a giant line's buffer, which a short line does not need
	}
	if err == nil {
		if r.max > 0 && len(b)-1 > r.max {
			return nil, r.tooLong(int64(len(b) - 1 - crlf(b, 0)))
		}
		return b[:len(b)-1], nil
	}
	if !errors.Is(err, bufio.ErrBufferFull) {
		if r.max > 0 && len(b) > r.max {
			r.err = err
			return nil, r.tooLong(int64(len(b)))
		}
		return b, err
	}
	// Longer than the buffer.
	if r.file != nil {
		if start, err := r.file.Seek(0, io.SeekCurrent); err == nil {
			return r.readLongAt(start-int64(r.br.Buffered())-int64(len(b)), int64(len(b)))
		}
		r.file = nil // not seekable after all: gather the line
	}
	return r.gather(b)
}

// readLongAt reads a long line of the file that starts at offset start,
// of which have bytes are read already: it reads on to the line's end
// without holding the bytes, then, unless the line is over the limit,
// reads the line once into a buffer of its length.
func (r *Reader) readLongAt(start, have int64) ([]byte, error) {
	n := have
	var end error // what follows the line: nil (a newline) or the end of the input
	var last byte // the last byte read before the newline's block
	cr := 0       // 1 when the newline follows a '\r'
	for {
		b, err := r.br.ReadSlice('\n')
		n += int64(len(b))
		if err == nil {
			n-- // the newline
			cr = crlf(b, last)
			break
		}
		if len(b) > 0 {
			last = b[len(b)-1]
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			if err != io.EOF {
				r.err = err
				return nil, err
			}
			end = io.EOF
			break
		}
	}
	if r.max > 0 && n > int64(r.max) {
		if end != nil {
			r.err = end
		}
		return nil, r.tooLong(n - int64(cr))
	}
	if int64(int(n)) != n {
		r.err = errors.New("ndjson: a line too long for this machine's memory")
		return nil, r.err
	}
	buf := r.long
	if int64(cap(buf)) < n {
		r.long = nil // not kept while its successor is made
		buf = make([]byte, n)
	}
	buf = buf[:n]
	if m, err := r.file.ReadAt(buf, start); int64(m) < n {
		if err == nil || err == io.EOF {
			err = io.ErrUnexpectedEOF // the file shrank under the reading
		}
		r.err = err
		return nil, err
	}
	r.long = buf
	return buf, end
}

// gather collects a long line from a reader that cannot be read twice: in
// the buffer of the last long line while it has room, then in blocks, each
// as large as the line so far up to 4 MiB, which are copied once into a
// buffer of the line's length when it ends. Nothing grows by appending,
// which would leave a trail of copies several times the line's size.
func (r *Reader) gather(first []byte) ([]byte, error) {
	head := append(r.long[:0], first...)
	n := len(head)
	var err error
	for {
		var b []byte
		b, err = r.br.ReadSlice('\n')
		if r.max > 0 && n+len(b) > r.max+1 { // +1: a '\n' may end it
			prev := lastOf(head, r.parts)
			if len(b) > 0 {
				prev = b[len(b)-1]
			}
			cr := 0
			if err == nil {
				cr = crlf(b, lastOf(head, r.parts))
			}
			r.long, r.parts = head[:0], dropParts(r.parts)
			switch {
			case err == nil:
				return nil, r.tooLong(int64(n + len(b) - 1 - cr))
			case errors.Is(err, bufio.ErrBufferFull):
				return nil, r.skip(int64(n+len(b)), prev)
			}
			r.err = err // the input ends inside the long line
			return nil, r.tooLong(int64(n + len(b)))
		}
		n += len(b)
		for len(b) > 0 {
			if len(r.parts) == 0 && len(head) < cap(head) {
				k := min(len(b), cap(head)-len(head))
				head = append(head, b[:k]...)
				b = b[k:]
				continue
			}
			last := len(r.parts) - 1
			if last < 0 || len(r.parts[last]) == cap(r.parts[last]) {
				r.parts = append(r.parts, make([]byte, 0, min(max(n, DefaultBufferSize), 4<<20)))
				last++
			}
			p := r.parts[last]
			k := min(len(b), cap(p)-len(p))
			r.parts[last] = append(p, b[:k]...)
			b = b[k:]
		}
		if err == nil || !errors.Is(err, bufio.ErrBufferFull) {
			break
		}
	}
	line := head
	if len(r.parts) > 0 {
		line = make([]byte, 0, n)
		line = append(line, head...)
		for _, p := range r.parts {
			line = append(line, p...)
		}
		r.parts = dropParts(r.parts)
	}
	r.long = line
	if err == nil {
		return line[:len(line)-1], nil // without its '\n'
	}
	if r.max > 0 && len(line) > r.max {
		r.err = err // the input ends inside the long line
		return nil, r.tooLong(int64(len(line)))
	}
	return line, err
}

// dropParts lets go of the blocks of a gathered line and keeps their list.
func dropParts(parts [][]byte) [][]byte {
	clear(parts)
	return parts[:0]
}

// skip reads past the rest of a line that is over the limit, of which
// have bytes were read already, the last of them last, and reports it.
func (r *Reader) skip(have int64, last byte) error {
	n := have
	for {
		b, err := r.br.ReadSlice('\n')
		n += int64(len(b))
		if err == nil {
			return r.tooLong(n - 1 - int64(crlf(b, last)))
		}
		if len(b) > 0 {
			last = b[len(b)-1]
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			r.err = err // EOF or a read error, after this line
			return r.tooLong(n)
		}
	}
}

// crlf returns 1 when the block b, which ends with a newline, ends a CRLF
// line: the byte before the newline is a '\r', in b or, when b is the
// newline alone, the last byte read before it (prev).
func crlf(b []byte, prev byte) int {
	if len(b) >= 2 && b[len(b)-2] == '\r' || len(b) == 1 && prev == '\r' {
		return 1
	}
	return 0
}

// lastOf returns the last byte gathered so far of a long line.
func lastOf(head []byte, parts [][]byte) byte {
	for i := len(parts) - 1; i >= 0; i-- {
		if p := parts[i]; len(p) > 0 {
			return p[len(p)-1]
		}
	}
	if len(head) > 0 {
		return head[len(head)-1]
	}
	return 0
}

func (r *Reader) tooLong(n int64) error {
	// A buffer that grew toward the limit is let go.
	if cap(r.long) > keepLong {
		r.long = nil
	}
	return &LineTooLongError{Bytes: n, Max: r.max}
}

func isBlank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return false
		}
	}
	return true
}
