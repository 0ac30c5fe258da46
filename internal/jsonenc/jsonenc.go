// Package jsonenc appends JSON values to byte slices.
//
// Strings are escaped the way serde_json and most producers write them: only
// the quote, the backslash and control characters are escaped, so non-ASCII
// text and characters such as '<' stay as they are. That is what makes
// byte-identical round trips of real streams possible.
package jsonenc

import (
	"encoding/binary"
	"strconv"
	"unicode/utf8"
	"unsafe"
)

const hex = "0123456789abcdef"

// String appends s as a JSON string. Invalid UTF-8 is replaced by U+FFFD.
func String(dst []byte, s string) []byte {
	dst = append(dst, '"')
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
			switch c {
			case '"':
				dst = append(dst, '\\', '"')
			case '\\':
				dst = append(dst, '\\', '\\')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
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
		if r == '\u2028' || r == '\u2029' {
			// As encoding/json does: JavaScript before ES2019 reads these
			// as line ends, which would break a line-oriented reader.
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
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
	i++
	for i < len(b) {
		for i+8 <= len(b) && Plain8(Load8(b, i)) {
			i += 8
		}
		if i >= len(b) {
			break
		}
		switch b[i] {
		case '"':
			return i + 1
		case '\\':
			i += 2
		default:
			i++
		}
	}
	return len(b)
}
