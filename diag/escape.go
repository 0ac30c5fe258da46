package diag

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Escape makes a string that comes from the input (a file name, a key in
// a JSON pointer, a value a message quotes) safe to print in a report: a
// control character, a byte that is not UTF-8, a C1 control, a line or
// paragraph separator and a bidirectional override are written as Go
// escapes (\n, \x1b, \xff, \u0085, \u202e). Unescaped, a key holding
// "\n::error file=README.md::pwned" is a GitHub Actions workflow command
// of its own in a CI log, and an ESC sequence drives the terminal that
// shows it. Every format escapes every such string. A string with
// nothing to escape is returned as it is, at the cost of one scan.
func Escape(s string) string {
	i := 0
	for i < len(s) {
		c := s[i]
		if c < 0x20 || c == 0x7f {
			break
		}
		if c < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if unsafeRune(r, size) {
			break
		}
		i += size
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		c := s[i]
		switch {
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\t':
			b.WriteString(`\t`)
		case c < 0x20 || c == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, c)
		case c < utf8.RuneSelf:
			b.WriteByte(c)
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			switch {
			case r == utf8.RuneError && size == 1:
				fmt.Fprintf(&b, `\x%02x`, c)
			case unsafeRune(r, size):
				fmt.Fprintf(&b, `\u%04x`, r)
			default:
				b.WriteString(s[i : i+size])
			}
			i += size
			continue
		}
		i++
	}
	return b.String()
}

// unsafeRune reports whether a character (not ASCII) must be escaped:
// bytes that are not UTF-8, C1 controls (U+0085 ends a line for some
// readers, U+009B starts a terminal sequence), line and paragraph
// separators, and the marks and overrides that reorder text as it is
// shown.
func unsafeRune(r rune, size int) bool {
	switch {
	case r == utf8.RuneError && size == 1:
		return true
	case r >= 0x80 && r <= 0x9f:
		return true
	case r == 0x2028 || r == 0x2029:
		return true
	case r == 0x061c || r == 0x200e || r == 0x200f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}
