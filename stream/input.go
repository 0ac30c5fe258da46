package stream

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"unicode/utf8"

	"github.com/evtool/evtool/diag"
	"github.com/evtool/evtool/ndjson"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// What the input is, told once from its first bytes before any line of it
// is read: plain text is read as it is; gzip and zstd, which producers
// write (newer Codex builds write .jsonl.zst), are read as what they
// hold, for files and standard input alike; UTF-16, another compression
// and binary input are refused with one error, not a diagnostic for every
// "line" of it. The check looks at the first line only, so a stream
// whose later lines are broken is still read line by line, and nothing of
// it runs per line.

// InputKind says why an input is refused as a whole.
type InputKind int

// The kinds of input refused as a whole.
const (
	// UTF16 is text in UTF-16 (or UTF-32: Encoding says which), which
	// evtool does not read.
	UTF16 InputKind = iota + 1
	// Binary is input that is not text.
	Binary
	// Compressed is input compressed in a format evtool does not read
	// (it reads gzip and zstd).
	Compressed
	// Corrupt is a gzip or zstd input that cannot be decompressed on: it
	// is truncated or damaged. The lines before the damage were read.
	Corrupt
)

// InputError is an input refused as a whole. A Reader reports it as the
// Err of a *StreamError of rule stream/input.
type InputError struct {
	Kind InputKind
	// Format is the compression (gzip, zstd, bzip2, …) of a Compressed or
	// Corrupt input.
	Format string
	// Why says what gave the input away, for UTF16 and Binary.
	Why string
	// Encoding names the encoding of a UTF16 input: "UTF-16" or "UTF-32".
	Encoding string
	// Offset is how many compressed bytes were read when a Corrupt input
	// failed: the damage is at or shortly before it.
	Offset int64
	// Err is the decompressor's error of a Corrupt input.
	Err error
}

func (e *InputError) Error() string {
	switch e.Kind {
	case UTF16:
		return NotUTF8(e.Encoding, e.Why)
	case Binary:
		return fmt.Sprintf("the input is binary, not newline-delimited JSON (%s)", e.Why)
	case Compressed:
		return fmt.Sprintf("the input is %s compressed; evtool reads plain, gzip or zstd compressed newline-delimited JSON: decompress it first", e.Format)
	}
	why := "it is truncated or damaged"
	if errors.Is(e.Err, zstd.ErrWindowSizeExceeded) {
		why = fmt.Sprintf("it asks for a window of more than %d MiB", maxZstdWindow>>20)
	}
	return fmt.Sprintf("the %s input cannot be decompressed past compressed byte %d: %v (%s)", e.Format, e.Offset, e.Err, why)
}

func (e *InputError) Unwrap() error { return e.Err }

// headBytes bounds what the check reads of an input's first line.
const headBytes = 1024

// maxZstdWindow bounds the memory a zstd input may ask for: 128 MiB, the
// most the zstd tool itself decompresses without being told otherwise.
const maxZstdWindow = 128 << 20

// open looks at the first bytes of the input and readies the line reader:
// on the input itself, or on what a gzip or zstd input holds.
func (r *Reader) open() error {
	br := bufio.NewReaderSize(r.src, ndjson.DefaultBufferSize)
	head, err := peekHead(br)
	if err != nil {
		return r.readError(err) // a source's own InputError (a store's decompressor) is a finding
	}
	var in io.Reader = br // ndjson reuses br: it is large enough
	if format, ok := compression(head); ok {
		src := &counted{br: br}
		var unz io.Reader
		switch format {
		case "gzip":
			gz, err := gzip.NewReader(src)
			if err != nil {
				if src.err != nil {
					return r.readError(src.err)
				}
				return r.inputError(corrupt(format, src, err))
			}
			unz, r.unz = gz, gz
		case "zstd":
			zd, err := newZstd(src)
			if err != nil {
				return r.inputError(corrupt(format, src, err))
			}
			unz, r.unz = zd, zstdCloser{zd}
		default:
			return r.inputError(&InputError{Kind: Compressed, Format: format})
		}
		zbr := bufio.NewReaderSize(&unpacking{r: unz, src: src, format: format}, ndjson.DefaultBufferSize)
		if head, err = peekHead(zbr); err != nil {
			return r.readError(err)
		}
		if format, ok := compression(head); ok {
			return r.inputError(&InputError{Kind: Binary, Why: "it holds " + format + " data compressed again"})
		}
		in = zbr
	}
	if ie := textProblem(head); ie != nil {
		return r.inputError(ie)
	}
	r.nd = ndjson.NewReader(in)
	if f := fileOf(r.src); f != nil && in == io.Reader(br) {
		// A long line of a plain file is measured before it is read, and
		// read once; a line over the limit is skipped unread.
		r.nd.SetFile(f)
	}
	if r.maxLine > 0 {
		r.nd.SetMaxLineBytes(r.maxLine)
	}
	return nil
}

// fileOf returns the regular file whose bytes r reads as they are: r
// itself, or what a wrapper that passes the bytes on unchanged (one that
// counts them, say) names by a method Underlying() io.Reader; nil if that
// is no regular file.
func fileOf(r io.Reader) ndjson.File {
	if w, ok := r.(interface{ Underlying() io.Reader }); ok {
		r = w.Underlying()
	}
	f, ok := r.(*os.File)
	if !ok || !RegularFile(f) {
		return nil
	}
	return f
}

// Compressed reports whether the input is gzip or zstd compressed, once
// its first line was read and until the reading ends. Only such an input
// can fail part way with a *StreamError about the whole input (a corrupt
// stream), whose diagnostic has no line.
func (r *Reader) Compressed() bool { return r.unz != nil }

// readError is the error that ends a reading: a *StreamError for an
// input that cannot be decompressed on, else the read error.
func (r *Reader) readError(err error) error {
	var ie *InputError
	if errors.As(err, &ie) {
		return r.inputError(ie)
	}
	return fmt.Errorf("%s: %w", r.file, err)
}

// inputError is the *StreamError of an input refused as a whole: a
// finding about the input (exit status 1), not a usage error.
func (r *Reader) inputError(ie *InputError) error {
	return &StreamError{Err: ie, Diagnostic: diag.Diagnostic{File: r.file, Severity: diag.Error, Rule: RuleInput, Message: ie.Error()}}
}

// peekHead returns the input's first bytes without consuming them: up to
// the end of its first non-blank line, at least 4 bytes (the longest
// magic number looked for), at most headBytes. It waits for no more than
// the reading of the first line would: a live producer's first line is
// judged as soon as it is whole.
func peekHead(br *bufio.Reader) ([]byte, error) {
	want := 1
	for {
		b, err := br.Peek(want)
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return nil, err
		}
		b, _ = br.Peek(min(br.Buffered(), headBytes))
		if len(b) >= headBytes || len(b) >= 4 && lineEnds(b) {
			return b, nil
		}
		want = len(b) + 1
	}
}

// lineEnds reports whether b holds a newline after a byte that is not
// blank: the first non-blank line is whole.
func lineEnds(b []byte) bool {
	i := bytes.IndexFunc(b, func(r rune) bool { return !isSpace(r) })
	return i >= 0 && bytes.IndexByte(b[i:], '\n') >= 0
}

func isSpace(r rune) bool { return r == ' ' || r == '\t' || r == '\r' || r == '\n' }

// compression names the compressed format that head starts with, by its
// magic number. gzip and zstd are read; the others are named in the
// error that refuses them.
func compression(head []byte) (string, bool) {
	magics := []struct {
		format string
		magic  string
	}{
		{"gzip", "\x1f\x8b"},
		{"zstd", "\x28\xb5\x2f\xfd"},
		{"bzip2", "BZh"},
		{"xz", "\xfd7zXZ\x00"},
		{"lz4", "\x04\x22\x4d\x18"},
		{"zip", "PK\x03\x04"},
		{"7-zip", "7z\xbc\xaf\x27\x1c"},
		{"lzip", "LZIP"},
	}
	for _, m := range magics {
		if bytes.HasPrefix(head, []byte(m.magic)) {
			if m.format == "bzip2" && (len(head) < 4 || head[3] < '1' || head[3] > '9') {
				continue // text that starts with "BZh"
			}
			return m.format, true
		}
	}
	return "", false
}

// NotUTF8 says that an input looks like enc ("UTF-16" when empty), which
// why gave away, and how to convert it.
func NotUTF8(enc, why string) string {
	if enc == "" {
		enc = "UTF-16"
	}
	return fmt.Sprintf("the input looks like %s (%s); evtool reads UTF-8: convert it first, e.g. with iconv -f %s -t UTF-8", enc, why, enc)
}

// otherUnicode says why an input that starts with h looks like UTF-16 or
// UTF-32, or returns nil.
func otherUnicode(h []byte) *InputError {
	bom := func(b string) bool { return bytes.HasPrefix(h, []byte(b)) }
	switch {
	// UTF-32 first: its little-endian byte order mark begins as UTF-16's.
	case bom("\xff\xfe\x00\x00"):
		return &InputError{Kind: UTF16, Encoding: "UTF-32", Why: "it starts with a UTF-32LE byte order mark"}
	case bom("\x00\x00\xfe\xff"):
		return &InputError{Kind: UTF16, Encoding: "UTF-32", Why: "it starts with a UTF-32BE byte order mark"}
	case utf32Text(h, 0):
		return &InputError{Kind: UTF16, Encoding: "UTF-32", Why: "three of every four bytes are NUL, as in UTF-32LE"}
	case utf32Text(h, 3):
		return &InputError{Kind: UTF16, Encoding: "UTF-32", Why: "three of every four bytes are NUL, as in UTF-32BE"}
	case bom("\xff\xfe"):
		return &InputError{Kind: UTF16, Why: "it starts with a UTF-16LE byte order mark"}
	case bom("\xfe\xff"):
		return &InputError{Kind: UTF16, Why: "it starts with a UTF-16BE byte order mark"}
	case len(h) >= 4 && h[0] != 0 && h[1] == 0 && h[2] != 0 && h[3] == 0:
		return &InputError{Kind: UTF16, Why: "every other byte is NUL, as in UTF-16LE"}
	case len(h) >= 4 && h[0] == 0 && h[1] != 0 && h[2] == 0 && h[3] != 0:
		return &InputError{Kind: UTF16, Why: "every other byte is NUL, as in UTF-16BE"}
	}
	return nil
}

// utf32Text reports whether head begins with two characters of ASCII text
// in UTF-32, the byte of each at offset at of its four, the others NUL.
func utf32Text(head []byte, at int) bool {
	if len(head) < 8 {
		return false
	}
	for i := 0; i < 8; i++ {
		c := head[i]
		if i%4 == at {
			if c < '\t' || c > '~' {
				return false
			}
		} else if c != 0 {
			return false
		}
	}
	return true
}

// textProblem says why an input that starts with head is not UTF-8 text,
// or returns nil.
func textProblem(head []byte) *InputError {
	if ie := otherUnicode(head); ie != nil {
		return ie
	}
	h := head
	// The first non-blank line, as far as head goes. A UTF-8 byte order
	// mark is text.
	h = bytes.TrimPrefix(h, []byte("\xef\xbb\xbf"))
	h = bytes.TrimLeftFunc(h, isSpace)
	if i := bytes.IndexByte(h, '\n'); i >= 0 {
		h = h[:i]
	}
	if len(h) == 0 {
		return nil
	}
	ctl, notUTF8, nul := 0, 0, -1
	for i := 0; i < len(h); {
		c := h[i]
		switch {
		case c == 0:
			ctl++
			if nul < 0 {
				nul = i
			}
		case c < 0x20 && c != '\t' && c != '\r' && c != '\f' && c != '\b' && c != 0x1b, c == 0x7f:
			// ESC is text: a log's colours.
			ctl++
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(h[i:])
			if r == utf8.RuneError && size == 1 && (utf8.FullRune(h[i:]) || len(head) < headBytes) {
				notUTF8++ // not a character cut short by the end of head
			}
			i += size
			continue
		}
		i++
	}
	// A line of JSON with a control character in it is a bad line of a
	// stream, judged as such with the lines after it; binary data is
	// mostly control characters and bytes that are not UTF-8, and its
	// first "line" is not JSON.
	json := h[0] == '{' || h[0] == '['
	// Random bytes are one in ten a control character and about half not
	// UTF-8; text in Latin-1 is not UTF-8 either, but only here and there.
	switch {
	case ctl*16 > len(h) || (ctl+notUTF8)*2 > len(h):
		return &InputError{Kind: Binary, Why: fmt.Sprintf("%d of its first %d bytes are not text", ctl+notUTF8, len(h))}
	case nul >= 0 && !json:
		return &InputError{Kind: Binary, Why: fmt.Sprintf("its first line holds a NUL byte at byte %d", nul+1)}
	}
	return nil
}

// counted reads the compressed input and counts the bytes read, so that
// damage is reported where it is. It keeps the input's own read error
// apart from the decompressor's verdict.
type counted struct {
	br  *bufio.Reader
	n   int64
	err error // the input's own read error, not io.EOF
}

func (c *counted) Read(p []byte) (int, error) {
	n, err := c.br.Read(p)
	c.n += int64(n)
	if err != nil && err != io.EOF {
		c.err = err
	}
	return n, err
}

// ReadByte lets the gzip reader read exactly what it needs, with no
// buffer of its own, so that the offset is exact.
func (c *counted) ReadByte() (byte, error) {
	b, err := c.br.ReadByte()
	if err == nil {
		c.n++
	} else if err != io.EOF {
		c.err = err
	}
	return b, err
}

// unpacking is what a compressed input holds. A decompressor's error is
// an *InputError of kind Corrupt with where it happened; a read error of
// the input itself stays what it is.
type unpacking struct {
	r      io.Reader
	src    *counted
	format string
}

func (u *unpacking) Read(p []byte) (int, error) {
	n, err := u.r.Read(p)
	if err != nil && err != io.EOF {
		if u.src.err != nil && errors.Is(err, u.src.err) {
			return n, err
		}
		return n, corrupt(u.format, u.src, err)
	}
	return n, err
}

func corrupt(format string, src *counted, err error) *InputError {
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return &InputError{Kind: Corrupt, Format: format, Offset: src.n, Err: err}
}

// newZstd is the zstd decoder of an input: one goroutine, low memory,
// a window of at most maxZstdWindow.
func newZstd(r io.Reader) (*zstd.Decoder, error) {
	return zstd.NewReader(r, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true), zstd.WithDecoderMaxWindow(maxZstdWindow))
}

// Unzstd returns what the zstd data r holds, decompressed as a Reader
// decompresses a zstd input: within the same memory, and with an error of
// the decompressor an *InputError of kind Corrupt at the compressed byte
// it broke at, which a Reader reading the result reports as such a
// finding (rule stream/input). For a source that decompresses before the
// Reader reads it: a store that keeps its sessions compressed. Closing it
// closes the decompressor, not r.
func Unzstd(r io.Reader) (io.ReadCloser, error) {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReader(r)
	}
	src := &counted{br: br}
	zd, err := newZstd(src)
	if err != nil {
		return nil, corrupt("zstd", src, err)
	}
	return struct {
		io.Reader
		io.Closer
	}{&unpacking{r: zd, src: src, format: "zstd"}, zstdCloser{zd}}, nil
}

// zstdCloser closes a zstd decoder, whose Close returns nothing.
type zstdCloser struct{ d *zstd.Decoder }

func (z zstdCloser) Close() error {
	z.d.Close()
	return nil
}

// Empty returns, once the stream has ended, an error wrapping ErrEmpty
// when it had no line and no dialect was named, else nil: a caller that
// sums streams up (stats, view) reports such a stream rather than count an
// empty run, as validate does.
func (r *Reader) Empty() error {
	if r.Dialect() == nil && r.Lines() == 0 {
		return fmt.Errorf("%s: %w", r.file, ErrEmpty)
	}
	return nil
}
