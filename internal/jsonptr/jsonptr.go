// Package jsonptr builds JSON pointers and finds what they point at.
package jsonptr

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// Column returns the 1-based character column of the value a JSON pointer
// names in a line of valid JSON. It falls back to the deepest value that
// exists, so a missing property points at the object that lacks it.
func Column(line []byte, ptr string) int {
	return column(line, Offset(line, ptr))
}

// Offset returns the byte offset of the value ptr names; see Column.
func Offset(line []byte, ptr string) int {
	cur := gjson.ParseBytes(line)
	off := cur.Index
	if ptr == "" {
		return off
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		key := Unescape(tok)
		var next gjson.Result
		found := false
		if cur.IsArray() {
			want, err := strconv.Atoi(key)
			if err != nil {
				break
			}
			i := 0
			cur.ForEach(func(_, v gjson.Result) bool {
				if i == want {
					next, found = v, true
					return false
				}
				i++
				return true
			})
		} else if cur.IsObject() {
			cur.ForEach(func(k, v gjson.Result) bool {
				if k.Str == key {
					next, found = v, true // keep going: the last duplicate wins
				}
				return true
			})
		}
		if !found {
			break
		}
		// ForEach reports offsets relative to its receiver's Raw.
		off += next.Index - cur.Index
		cur = next
		cur.Index = off
	}
	return off
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
