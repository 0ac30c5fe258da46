// Package ndjson reads newline-delimited JSON the way real producers write it.
//
// A Reader hands out one logical line at a time together with its physical
// line number. It has no line-length cap, strips a trailing CR (CRLF files),
// a UTF-8 byte order mark on the first line, and skips lines that hold only
// white space. A last line without a newline is still a line. It does not
// parse JSON: syntax is the caller's business, so a broken line never stops
// the lines after it from being read.
package ndjson

import (
	"bufio"
	"bytes"
	"errors"
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
}

// NewReader returns a Reader that reads from r.
func NewReader(r io.Reader) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, DefaultBufferSize), first: true}
}

// Next returns the next non-blank line without its line terminator, and its
// 1-based physical line number. The slice is valid until the next call. At the
// end of the input it returns io.EOF; any other error is a read error of the
// underlying reader.
func (r *Reader) Next() (line []byte, n int, err error) {
	for {
		if r.err != nil {
			return nil, r.line, r.err
		}
		b, err := r.readPhysical()
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
		}
		r.phys++
		if r.first {
			r.first = false
			b = bytes.TrimPrefix(b, bom)
		}
		if len(b) > 0 && b[len(b)-1] == '\r' {
			b = b[:len(b)-1]
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

// Buffered reports how many bytes of input are already read but not yet
// returned. Writers flush when it is zero, so a live pipe sees each event as
// soon as it is converted, while a file is written in large blocks.
func (r *Reader) Buffered() int { return r.br.Buffered() }

// readPhysical returns one physical line without its '\n'.
func (r *Reader) readPhysical() ([]byte, error) {
	b, err := r.br.ReadSlice('\n')
	if err == nil {
		return b[:len(b)-1], nil
	}
	if !errors.Is(err, bufio.ErrBufferFull) {
		return b, err
	}
	// Longer than the buffer: collect the pieces.
	r.long = append(r.long[:0], b...)
	for {
		b, err = r.br.ReadSlice('\n')
		r.long = append(r.long, b...)
		if err == nil {
			return r.long[:len(r.long)-1], nil
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return r.long, err
		}
	}
}

func isBlank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return false
		}
	}
	return true
}
