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
)

// DefaultBufferSize is the size of the read buffer. Lines longer than this
// are assembled in a separate buffer that grows as needed.
const DefaultBufferSize = 64 << 10

var bom = []byte{0xEF, 0xBB, 0xBF}

// Reader reads lines of an NDJSON stream.
type Reader struct {
	br    *bufio.Reader
	long  []byte // assembly buffer for lines longer than br's buffer
	line  int    // physical number of the line last returned
	phys  int    // physical lines consumed so far
	err   error
	first bool
	max   int // longest line returned; 0: no limit
	// What Next stripped from the line it returned last: its terminator
	// and a byte order mark. Kept so that a caller can write the line
	// back exactly as it was read.
	term string
	bom  bool
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
// *LineTooLongError, holding no more than about n bytes of such a line;
// n <= 0 means no limit.
func (r *Reader) SetMaxLineBytes(n int) {
	if n < 0 {
		n = 0
	}
	r.max = n
}

// NewReader returns a Reader that reads from r.
func NewReader(r io.Reader) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, DefaultBufferSize), first: true}
}

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

// readPhysical returns one physical line without its '\n'.
func (r *Reader) readPhysical() ([]byte, error) {
	b, err := r.br.ReadSlice('\n')
	if err == nil {
		if r.max > 0 && len(b)-1 > r.max {
			return nil, r.tooLong(int64(len(b) - 1))
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
	// Longer than the buffer: collect the pieces.
	r.long = append(r.long[:0], b...)
	for {
		if r.max > 0 && len(r.long) > r.max+1 { // +1: a '\n' may end it
			return nil, r.skip(int64(len(r.long)))
		}
		b, err = r.br.ReadSlice('\n')
		r.long = append(r.long, b...)
		if err == nil {
			if r.max > 0 && len(r.long)-1 > r.max {
				return nil, r.tooLong(int64(len(r.long) - 1))
			}
			return r.long[:len(r.long)-1], nil
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			if r.max > 0 && len(r.long) > r.max {
				r.err = err // the input ends inside the long line
				return nil, r.tooLong(int64(len(r.long)))
			}
			return r.long, err
		}
	}
}

// skip reads past the rest of a line that is over the limit, of which
// have bytes were read already, and reports it.
func (r *Reader) skip(have int64) error {
	n := have
	for {
		b, err := r.br.ReadSlice('\n')
		n += int64(len(b))
		if err == nil {
			return r.tooLong(n - 1)
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			r.err = err // EOF or a read error, after this line
			return r.tooLong(n)
		}
	}
}

func (r *Reader) tooLong(n int64) error {
	// The assembly buffer has grown to the limit; let it go.
	if cap(r.long) > DefaultBufferSize {
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
