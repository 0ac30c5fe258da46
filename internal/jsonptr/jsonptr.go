// Package jsonptr builds JSON pointers and finds what they point at.
package jsonptr

import (
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/evtool/evtool/internal/jsonenc"

	"github.com/tidwall/gjson"
)

// Column returns the 1-based character column of the value a JSON pointer
// names in a line of valid JSON. It falls back to the deepest value that
// exists, so a missing property points at the object that lacks it.
func Column(line []byte, ptr string) int {
	return column(line, Offset(line, ptr))
}

// Offset returns the byte offset of the value ptr names; see Column.
// It reads the line in place and skips the values it walks past without
// reading them: a finding beside a 500 MB text would otherwise copy the
// line and unescape the text to place its column.
func Offset(line []byte, ptr string) int {
	if len(line) == 0 {
		return 0
	}
	s := unsafe.String(&line[0], len(line)) // nothing of it is kept
	off := skipWS(s, 0)
	if ptr == "" {
		return off
	}
tokens:
	for _, tok := range strings.Split(ptr[1:], "/") {
		key := Unescape(tok)
		next := -1
		switch {
		case off < len(s) && s[off] == '[':
			want, err := strconv.Atoi(key)
			if err != nil {
				break tokens
			}
			i := 0
			members(s, off, func(_ string, v int) bool {
				if i == want {
					next = v
					return false
				}
				i++
				return true
			})
		case off < len(s) && s[off] == '{':
			members(s, off, func(k string, v int) bool {
				if k == key {
					next = v // keep going: the last duplicate wins
				}
				return true
			})
		}
		if next < 0 {
			break
		}
		off = next
	}
	return off
}

// members calls f with the key (an array's elements: "") and the offset
// of each value of the object or array at s[i], until f returns false or
// the text is not JSON.
func members(s string, i int, f func(key string, val int) bool) {
	obj := s[i] == '{'
	i = skipWS(s, i+1)
	for i < len(s) && s[i] != '}' && s[i] != ']' {
		var key string
		if obj {
			if s[i] != '"' {
				return
			}
			end := skipString(s, i)
			if end < 0 {
				return
			}
			key = keyText(s[i:end])
			i = skipWS(s, end)
			if i >= len(s) || s[i] != ':' {
				return
			}
			i = skipWS(s, i+1)
			if i >= len(s) {
				return
			}
		}
		if !f(key, i) {
			return
		}
		if i = skipValue(s, i); i < 0 {
			return
		}
		i = skipWS(s, i)
		if i < len(s) && s[i] == ',' {
			i = skipWS(s, i+1)
		}
	}
}

// keyText is the text of a key's JSON string.
func keyText(raw string) string {
	if !strings.Contains(raw, `\`) {
		return raw[1 : len(raw)-1]
	}
	return gjson.Parse(raw).Str
}

func skipWS(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the offset past the string at s[i], -1 if it does
// not end.
func skipString(s string, i int) int {
	if end, _ := jsonenc.SkipQuoted(s, i); end <= len(s) {
		return end
	}
	return -1
}

// skipValue returns the offset past the value at s[i], -1 if it does not
// end.
func skipValue(s string, i int) int {
	switch s[i] {
	case '"':
		return skipString(s, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(s); j++ {
			switch s[j] {
			case '"':
				if j = skipString(s, j); j < 0 {
					return -1
				}
				j-- // the loop steps past the closing quote
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	j := i
	for j < len(s) && !strings.ContainsRune(",}] \t\r\n", rune(s[j])) {
		j++
	}
	return j
}

// column turns a byte offset into a 1-based character column.
func column(line []byte, off int) int {
	if off > len(line) {
		off = len(line)
	}
	if off < 0 {
		off = 0
	}
	return utf8.RuneCount(line[:off]) + 1
}

// ColumnAt turns a byte offset into a 1-based character column.
func ColumnAt(line []byte, off int) int { return column(line, off) }

var (
	escaper   = strings.NewReplacer("~", "~0", "/", "~1")
	unescaper = strings.NewReplacer("~1", "/", "~0", "~")
)

// Escape escapes a key as a pointer token.
func Escape(key string) string { return escaper.Replace(key) }

// Unescape turns a pointer token back into a key.
func Unescape(tok string) string { return unescaper.Replace(tok) }

// Join builds a pointer from unescaped tokens.
func Join(tokens ...string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(Escape(t))
	}
	return b.String()
}
