package view

import (
	"bufio"
	"fmt"
	"io"
	"unicode/utf8"
)

// hw writes the page. Markup is written with raw, and only with strings
// of this package's own making; every string that comes from a stream
// goes through text (or attr), which escapes it and makes control
// characters visible, so that no input can become markup or script.
type hw struct {
	w   *bufio.Writer
	err error
	n   int64 // bytes written, about (text counts its input's length)
}

func newHW(w io.Writer) *hw { return &hw{w: bufio.NewWriterSize(w, 64<<10)} }

// raw writes this package's own markup.
func (h *hw) raw(s string) {
	if h.err == nil {
		_, h.err = h.w.WriteString(s)
		h.n += int64(len(s))
	}
}

// rawf writes this package's own markup, formatted; the arguments must be
// numbers or strings of this package's making.
func (h *hw) rawf(format string, args ...any) {
	if h.err == nil {
		_, h.err = fmt.Fprintf(h.w, format, args...)
	}
}

func (h *hw) flush() error {
	if h.err == nil {
		h.err = h.w.Flush()
	}
	return h.err
}

// text writes a string from the input as text: escaped for HTML (element
// content and quoted attribute values alike), terminal escape sequences
// left out, other control characters shown as their Unicode pictures,
// bidirectional overrides shown as their code points (they could make a
// line read other than it is), and bytes that are not UTF-8 shown as
// U+FFFD.
func (h *hw) text(s string) {
	if h.err != nil {
		return
	}
	h.n += int64(len(s))
	start := 0
	flush := func(i int) {
		if start < i {
			h.w.WriteString(s[start:i])
		}
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f {
			var rep string
			switch c {
			case '&':
				rep = "&amp;"
			case '<':
				rep = "&lt;"
			case '>':
				rep = "&gt;"
			case '"':
				rep = "&#34;"
			case '\'':
				rep = "&#39;"
			default:
				i++
				continue
			}
			flush(i)
			h.w.WriteString(rep)
			i++
			start = i
			continue
		}
		if c == '\n' || c == '\t' {
			i++
			continue
		}
		if c < 0x80 {
			flush(i)
			switch {
			case c == 0x1b:
				i += escapeLen(s[i:])
			case c == '\r':
				// A lone carriage return (a terminal's progress line)
				// starts a new line; "\r\n" is one line end.
				if i+1 >= len(s) || s[i+1] != '\n' {
					h.w.WriteByte('\n')
				}
				i++
			case c == 0x7f:
				h.w.WriteString("\u2421")
				i++
			default:
				h.w.WriteRune(0x2400 + rune(c))
				i++
			}
			start = i
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1, r >= 0x80 && r <= 0x9f:
			flush(i)
			h.w.WriteString("\ufffd")
		case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
			flush(i)
			fmt.Fprintf(h.w, "[U+%04X]", r)
		default:
			i += n
			continue
		}
		i += n
		start = i
	}
	flush(len(s))
}

// attr writes a string as a quoted attribute value's contents: the same
// escaping as text.
func (h *hw) attr(s string) { h.text(s) }

// escapeLen is the length of the terminal escape sequence at the start of
// s (which begins with ESC): a CSI sequence (ESC [ … final byte), an OSC
// or other string sequence (ESC ] … BEL or ESC \), or ESC and one byte.
func escapeLen(s string) int {
	if len(s) < 2 {
		return 1
	}
	switch s[1] {
	case '[':
		for i := 2; i < len(s); i++ {
			c := s[i]
			if c >= 0x40 && c <= 0x7e {
				return i + 1
			}
			if c < 0x20 || c > 0x7e {
				return i // a broken sequence ends before what cannot be in it
			}
		}
		return len(s)
	case ']', 'P', 'X', '^', '_':
		for i := 2; i < len(s); i++ {
			switch {
			case s[i] == 0x07:
				return i + 1
			case s[i] == 0x1b && i+1 < len(s) && s[i+1] == '\\':
				return i + 2
			case s[i] == '\n':
				return i // a string sequence never spans lines in practice
			}
		}
		return len(s)
	}
	if s[1] < 0x20 || s[1] >= 0x7f {
		return 1
	}
	return 2
}
