// Package jsonenc appends JSON values to byte slices.
//
// Strings are escaped the way serde_json and most producers write them: only
// the quote, the backslash and control characters are escaped, so non-ASCII
// text and characters such as '<' stay as they are. That is what makes
// byte-identical round trips of real streams possible.
package jsonenc

import (
	"strconv"
	"unicode/utf8"
)

const hex = "0123456789abcdef"

// String appends s as a JSON string. Invalid UTF-8 is replaced by U+FFFD.
func String(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
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
