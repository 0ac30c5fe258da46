// Package jsonenc appends JSON values to byte slices.
//
// Strings are escaped the way serde_json and most producers write them: only
// the quote, the backslash and control characters are escaped, so non-ASCII
// text and characters such as '<' stay as they are. That is what makes
// byte-identical round trips of real streams possible.
package jsonenc

import (
	"encoding/binary"
	"io"
	"iter"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	simdutf8 "github.com/segmentio/asm/utf8"
)

const hex = "0123456789abcdef"

// String appends s as a JSON string. Invalid UTF-8 is replaced by U+FFFD.
func String(dst []byte, s string) []byte {
	// Plain ASCII without a byte to escape, the commonest case by count
	// (keys, ids, names, short texts): one copy.
	i := 0
	for i+8 <= len(s) && Plain8(LoadString8(s, i)) {
		i += 8
	}
	for i < len(s) && s[i] >= 0x20 && s[i] < utf8.RuneSelf && s[i] != '"' && s[i] != '\\' {
		i++
	}
	if i == len(s) {
		dst = append(dst, '"')
		dst = append(dst, s...)
		return append(dst, '"')
	}
	if !simdutf8.Valid(unsafe.Slice(unsafe.StringData(s), len(s))) {
		return stringSlow(dst, s)
	}
	// Valid UTF-8, the common case: only the quote, the backslash and
	// control characters need escaping, and runs of text without them are
	// found eight bytes at a time. U+2028 and U+2029 stay as they are, as
	// serde_json and JSON.stringify write them: escaping them (as
	// encoding/json does for old JavaScript) would break byte-identical
	// round trips of every producer's streams.
	dst = append(dst, '"')
	dst = appendText(dst, s)
	return append(dst, '"')
}

// appendText appends valid UTF-8 text, escaped.
func appendText(dst []byte, s string) []byte {
	if len(s) > 64<<10 && cap(dst)-len(dst) < len(s) {
		// Room for a long text at once, escapes counted: grown by
		// append, a 25 MB text made buffers of 150 MB in all, the last
		// ones alive together.
		dst = slices.Grow(dst, escapedLen(s))
	}
	start, i := 0, 0
	for {
		for i+8 <= len(s) && Text8(LoadString8(s, i)) {
			i += 8
		}
		for i < len(s) && s[i] >= 0x20 && s[i] != '"' && s[i] != '\\' {
			i++
		}
		dst = append(dst, s[start:i]...)
		if i >= len(s) {
			return dst
		}
		dst = escapeASCII(dst, s[i])
		i++
		start = i
	}
}

// escapedLen is the length of s escaped by appendText.
func escapedLen(s string) int {
	n := len(s)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t' || c == '\b' || c == '\f':
			n++
		case c < 0x20:
			n += 5
		}
	}
	return n
}

// escapeASCII appends the escape of a quote, a backslash or a control
// character.
func escapeASCII(dst []byte, c byte) []byte {
	switch c {
	case '"':
		return append(dst, '\\', '"')
	case '\\':
		return append(dst, '\\', '\\')
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	case '\b':
		return append(dst, '\\', 'b')
	case '\f':
		return append(dst, '\\', 'f')
	}
	return append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
}

// stringSlow is String for text with invalid UTF-8, rune by rune.
func stringSlow(dst []byte, s string) []byte {
	dst = append(dst, '"')
	dst = textSlow(dst, s)
	return append(dst, '"')
}

// textSlow appends text with invalid UTF-8, escaped, rune by rune.
func textSlow(dst []byte, s string) []byte {
	start := 0
	for i := 0; i < len(s); {
		for i+8 <= len(s) && Plain8(LoadString8(s, i)) {
			i += 8
		}
		if i >= len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			dst = escapeASCII(dst, c)
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, "\ufffd"...)
			i += size
			start = i
			continue
		}
		i += size
	}
	return append(dst, s[start:]...)
}

// LongValue is the length from which a writer of lines writes a value
// straight to its output (StringTo) rather than into the line's buffer:
// the length from which package stream reads a line in place.
const LongValue = 256 << 10

// A Spill writes the long values of a line (LongValue bytes or more)
// straight to W, after the part of the line made so far, rather than into
// the line's buffer: a line with a 500 MB text is then in memory as the
// text, not again as the line. The caller writes the rest of the line to
// W. A nil *Spill, or one without W, appends every value.
type Spill struct {
	W   io.Writer
	Err error // W's first error; nothing more is written after it
}

// Flush writes dst to W and returns it emptied.
func (sp *Spill) Flush(dst []byte) []byte {
	sp.Write(dst)
	return dst[:0]
}

// Write writes b to W, unless W failed before.
func (sp *Spill) Write(b []byte) {
	if len(b) > 0 && sp.Err == nil {
		_, sp.Err = sp.W.Write(b)
	}
}

// on reports whether a value of n bytes is written rather than appended.
func (sp *Spill) on(n int) bool { return sp != nil && sp.W != nil && n >= LongValue }

// String appends s as a JSON string, as String does, or writes it.
func (sp *Spill) String(dst []byte, s string) []byte {
	if !sp.on(len(s)) {
		return String(dst, s)
	}
	dst = sp.Flush(dst)
	if sp.Err == nil {
		dst, sp.Err = StringTo(sp.W, dst, s)
	}
	return dst
}

// Verbatim appends b as it is, or writes it.
func (sp *Spill) Verbatim(dst, b []byte) []byte {
	if !sp.on(len(b)) {
		return append(dst, b...)
	}
	dst = sp.Flush(dst)
	sp.Write(b)
	return dst
}

// VerbatimString is Verbatim of a value held as a string.
func (sp *Spill) VerbatimString(dst []byte, s string) []byte {
	if !sp.on(len(s)) {
		return append(dst, s...)
	}
	dst = sp.Flush(dst)
	if sp.Err == nil {
		_, sp.Err = io.WriteString(sp.W, s)
	}
	return dst
}

// pieceLen is how much of a text StringTo escapes at a time.
const pieceLen = 64 << 10

// StringTo writes s to w as a JSON string, as String appends it, in
// pieces of about 64 KiB escaped into buf (which it returns, emptied, for
// the caller to reuse): a text of hundreds of megabytes is written
// without a copy of itself.
func StringTo(w io.Writer, buf []byte, s string) ([]byte, error) {
	return StringsTo(w, buf, func(yield func(string) bool) { yield(s) })
}

// StringsTo is StringTo of the concatenation of pieces, never made whole
// (a text kept in blocks, say). Each piece is escaped about 64 KiB at a
// time, cut where a character begins, so the parts escape as the whole
// does (an invalid byte is replaced alone, a valid character never cut);
// a character cut between two pieces is escaped once whole.
func StringsTo(w io.Writer, buf []byte, pieces iter.Seq[string]) ([]byte, error) {
	buf = append(buf[:0], '"')
	// carry is the end of the last piece from its last character start:
	// a character the next piece may go on with.
	carry := ""
	for p := range pieces {
		if carry != "" {
			// carry and the continuation bytes that begin p, up to a
			// character's four bytes: what follows begins another.
			k := 0
			for k < len(p) && len(carry)+k < utf8.UTFMax && !utf8.RuneStart(p[k]) {
				k++
			}
			if k == len(p) && len(carry)+k < utf8.UTFMax {
				carry += p // it may go on in the next piece
				continue
			}
			buf = appendEscaped(buf, carry+p[:k])
			p, carry = p[k:], ""
		}
		for len(p) > 0 {
			n := len(p)
			if n > pieceLen {
				n = cut(p, pieceLen)
			} else {
				// A piece's end: its last character may go on in the
				// next piece.
				for i := len(p) - 1; i >= max(0, len(p)-(utf8.UTFMax-1)); i-- {
					if utf8.RuneStart(p[i]) {
						n, carry = i, strings.Clone(p[i:])
						break
					}
				}
			}
			buf = appendEscaped(buf, p[:n])
			if p = p[n:]; carry != "" {
				p = ""
			}
			if len(buf) > 0 {
				if _, err := w.Write(buf); err != nil {
					return buf[:0], err
				}
				buf = buf[:0]
			}
		}
	}
	buf = appendEscaped(buf, carry)
	buf = append(buf, '"')
	_, err := w.Write(buf)
	return buf[:0], err
}

// appendEscaped appends s escaped as String escapes it, without quotes.
func appendEscaped(dst []byte, s string) []byte {
	if simdutf8.Valid(unsafe.Slice(unsafe.StringData(s), len(s))) {
		return appendText(dst, s)
	}
	return textSlow(dst, s)
}

// cut returns n, or the start of the character that byte n of s is in
// when it is a continuation byte of one (up to three bytes back: a longer
// run of continuation bytes is invalid, each byte on its own).
func cut(s string, n int) int {
	for i := n; i > n-utf8.UTFMax && i > 0; i-- {
		if utf8.RuneStart(s[i]) {
			return i
		}
	}
	return n
}

// Key appends a comma unless the object is still empty, the key, and a colon.
// first must point at the caller's "no key written yet" flag.
func Key(dst []byte, first *bool, k string) []byte {
	if *first {
		*first = false
	} else {
		dst = append(dst, ',')
	}
	dst = String(dst, k)
	return append(dst, ':')
}

// Uint appends n.
func Uint(dst []byte, n uint64) []byte { return strconv.AppendUint(dst, n, 10) }

// Int appends n.
func Int(dst []byte, n int64) []byte { return strconv.AppendInt(dst, n, 10) }

// Bool appends b.
func Bool(dst []byte, b bool) []byte { return strconv.AppendBool(dst, b) }

// Plain8 reports whether none of the eight bytes in x (little-endian) needs
// a closer look inside a JSON string: a quote, a backslash, a control
// character or a byte of a multi-byte UTF-8 sequence. It is exact when it
// says none; a set bit may be a false alarm, which only sends the bytes the
// slow way.
func Plain8(x uint64) bool {
	const (
		lo = 0x0101010101010101
		hi = 0x8080808080808080
	)
	less := (x - 0x20*lo) &^ x // bytes below 0x20
	q := x ^ ('"' * lo)
	b := x ^ ('\\' * lo)
	return (x|less|((q-lo)&^q)|((b-lo)&^b))&hi == 0
}

// Text8 reports whether none of the eight bytes in x (little-endian) is a
// quote, a backslash or a control character: bytes of multi-byte UTF-8
// sequences pass. Exact when it says none, like Plain8.
func Text8(x uint64) bool {
	const (
		lo = 0x0101010101010101
		hi = 0x8080808080808080
	)
	less := (x - 0x20*lo) &^ x
	q := x ^ ('"' * lo)
	b := x ^ ('\\' * lo)
	return (less|((q-lo)&^q)|((b-lo)&^b))&hi == 0
}

// Load8 reads the eight bytes of b at i as a little-endian word.
func Load8(b []byte, i int) uint64 { return binary.LittleEndian.Uint64(b[i:]) }

// LoadString8 reads the eight bytes of s at i as a little-endian word, in
// one load: a string's bytes are never written, so viewing them as a
// slice is safe.
func LoadString8(s string, i int) uint64 {
	return binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(s[i:i+8]), 8))
}

// SkipString returns the index just past the JSON string that starts with
// the quote at b[i]. The string is trusted to be well formed; an
// unterminated one ends at len(b).
func SkipString(b []byte, i int) int {
	if i >= len(b) {
		return len(b)
	}
	end, _ := SkipQuoted(unsafe.String(unsafe.SliceData(b), len(b)), i)
	return min(end, len(b))
}

// SkipQuoted returns the index just past the JSON string whose quote is
// at s[i] (len(s)+1 when it is not closed), and whether the string holds
// an escape. The string is trusted to be well formed.
//
// It looks for quotes with strings.IndexByte, which the runtime does with
// SIMD, and asks of each whether a backslash escapes it: text carried in
// events (source files, tool output) has an escaped newline or tab every
// few dozen bytes, and stopping at each would cost more than the text in
// between.
//
// Most strings of a line are short (keys, ids, words): those are read
// eight bytes at a time up to their first quote or backslash, which costs
// less than the call of IndexByte; a longer one, or one with a backslash,
// goes the way above.
func SkipQuoted(s string, i int) (end int, esc bool) {
	const (
		lo = 0x0101010101010101
		hi = 0x8080808080808080
	)
	for j := i + 1; j+8 <= len(s) && j-i <= shortString; j += 8 {
		x := LoadString8(s, j)
		q := x ^ ('"' * lo)
		b := x ^ ('\\' * lo)
		// The lowest byte flagged is exact (a borrow only flags bytes
		// above a match).
		if m := (((q - lo) &^ q) | ((b - lo) &^ b)) & hi; m != 0 {
			k := j + bits.TrailingZeros64(m)/8
			if s[k] == '"' {
				return k + 1, false
			}
			return skipQuotedSlow(s, i)
		}
	}
	return skipQuotedSlow(s, i)
}

// shortString is how far SkipQuoted reads a string eight bytes at a time.
const shortString = 48

func skipQuotedSlow(s string, i int) (end int, esc bool) {
	start := i
	for j := i + 1; ; {
		q := strings.IndexByte(s[j:], '"')
		if q < 0 {
			return len(s) + 1, strings.IndexByte(s[start+1:], '\\') >= 0
		}
		j += q
		if !escaped(s, start, j) {
			return j + 1, strings.IndexByte(s[start+1:j], '\\') >= 0
		}
		j++
	}
}

// escaped reports whether the quote at s[j] is preceded, after the
// string's opening quote at s[start], by an odd number of backslashes.
func escaped(s string, start, j int) bool {
	k := j - 1
	for k > start && s[k] == '\\' {
		k--
	}
	return (j-1-k)%2 == 1
}
