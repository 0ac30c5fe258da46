package jsonobj

import (
	"math/bits"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/evtool/evtool/internal/jsonenc"
	"github.com/tidwall/gjson"
)

// ForEach calls f for each key and value of the object v, or for each
// element of the array v (its key a Number holding the index), in order,
// until f returns false; for any other value it calls f once with a zero
// key. It gives the same Results as v.ForEach of gjson, but it is for
// values already found well formed (every line is, once the reader's
// syntax check passed it): it skips strings and nested values eight bytes
// at a time instead of one, which is most of the work on lines that carry
// whole files. On malformed input it stops early and never panics.
func ForEach(v gjson.Result, f func(k, e gjson.Result) bool) {
	each(v, f, false)
}

// A Member is one key of an object and its value.
type Member struct {
	Key string
	Val gjson.Result
}

// Members returns the members of the object v in order, a repeated key as
// often as it stands, for callers that match or sort them rather than
// read them once through.
func Members(v gjson.Result) []Member {
	var ms []Member
	ForEach(v, func(k, e gjson.Result) bool {
		ms = append(ms, Member{k.Str, e})
		return true
	})
	return ms
}

// ForEachRaw is ForEach for callers that mostly read values' types and
// raw text: a string value with an escape in it is given with Str empty
// (its Raw is set), and Text reads it when it is needed; a number's Num
// is not set (Raw is its exact text; Full gives the Result gjson would).
// Unescaping a whole file carried in a line, for a check that only wants
// to know that it is a string, is the cost this saves.
func ForEachRaw(v gjson.Result, f func(k, e gjson.Result) bool) {
	each(v, f, true)
}

// Text returns the text of a string value from ForEachRaw (or any other
// Result): its Str, unescaped from Raw when ForEachRaw left it out.
func Text(e gjson.Result) string {
	if e.Type == gjson.String && e.Str == "" && len(e.Raw) > 2 {
		return Unescape(e.Raw[1 : len(e.Raw)-1])
	}
	return e.Str
}

// Full completes a Result from ForEachRaw: a string's text, a number's
// Num.
func Full(e gjson.Result) gjson.Result {
	switch e.Type {
	case gjson.String:
		e.Str = Text(e)
	case gjson.Number:
		e.Num = number(e.Raw)
	}
	return e
}

// number returns the float64 value of a JSON number, as strconv.ParseFloat
// does. Most numbers in a stream are small non-negative integers (counts,
// sequence numbers, ids), which float64 holds exactly: those skip the
// general parser.
func number(raw string) float64 {
	if len(raw) > 0 && len(raw) <= 15 {
		var n uint64
		for i := 0; i < len(raw); i++ {
			c := raw[i]
			if c < '0' || c > '9' {
				f, _ := strconv.ParseFloat(raw, 64)
				return f
			}
			n = n*10 + uint64(c-'0')
		}
		return float64(n) // below 10^15 < 2^53: exact
	}
	f, _ := strconv.ParseFloat(raw, 64)
	return f
}

func each(v gjson.Result, f func(k, e gjson.Result) bool, lazy bool) {
	if !v.Exists() {
		return
	}
	if v.Type != gjson.JSON {
		f(gjson.Result{}, v)
		return
	}
	s := v.Raw
	i := ws(s, 0)
	if i >= len(s) {
		return
	}
	obj := s[i] == '{'
	if !obj && s[i] != '[' {
		return
	}
	i++
	var key gjson.Result
	if obj {
		key.Type = gjson.String
	} else {
		key.Type = gjson.Number
		key.Num = -1
	}
	for {
		i = ws(s, i)
		if i < len(s) && s[i] == ',' {
			i = ws(s, i+1)
		}
		if i >= len(s) || s[i] == '}' || s[i] == ']' {
			return
		}
		if obj {
			if s[i] != '"' {
				return
			}
			end, esc := skipString(s, i)
			if end > len(s) {
				return
			}
			key.Raw = s[i:end]
			key.Str = content(key.Raw, esc)
			key.Index = v.Index + i
			i = ws(s, end)
			if i >= len(s) || s[i] != ':' {
				return
			}
			i = ws(s, i+1)
			if i >= len(s) {
				return
			}
		} else {
			key.Num++
		}
		val, end := value(s, i, lazy)
		if end < 0 {
			return
		}
		val.Index = v.Index + i
		i = end
		if !f(key, val) {
			return
		}
	}
}

// ForEachRawObjects is ForEachRaw over the array v for a caller that reads
// the members of its elements: member is called with each member of an
// element that is an object, in order, as the element is found, and then
// f with the element, until f returns false. Each member is the key and
// value ForEachRaw of the element would give, read in the same pass as
// the element rather than in a second one. For a v that is not an array
// it calls f as ForEachRaw does, and member never.
func ForEachRawObjects(v gjson.Result, member func(k, e gjson.Result), f func(e gjson.Result) bool) {
	if !v.IsArray() {
		each(v, func(_, e gjson.Result) bool { return f(e) }, true)
		return
	}
	objects(v.Raw, ws(v.Raw, 0), v.Index, member, f)
}

// ForEachRawIn is ForEachRaw over the object v, except that the value of
// its first member named key, when that is an array, is read as
// ForEachRawObjects reads it, member and elem called for it, in the same
// pass as v rather than skipped over and read again. Past an elem that
// returns false, the array is skipped over.
func ForEachRawIn(v gjson.Result, key string, f func(k, e gjson.Result) bool, member func(k, e gjson.Result), elem func(e gjson.Result) bool) {
	if !v.IsObject() {
		ForEachRaw(v, f)
		return
	}
	s := v.Raw
	done := false
	members(s, ws(s, 0), v.Index, func(k gjson.Result, i int) (gjson.Result, int) {
		if done || k.Str != key || s[i] != '[' {
			return value(s, i, true)
		}
		done = true
		end := objects(s, i, v.Index, member, elem)
		return gjson.Result{Type: gjson.JSON, Raw: s[i:max(end, i)]}, end
	}, f)
}

// objects reads the array at s[i], whose Index is base, as
// ForEachRawObjects does, and returns the index just past it, or -1 when
// it is not well formed.
func objects(s string, i, base int, member func(k, e gjson.Result), f func(e gjson.Result) bool) int {
	i++ // past the '['
	more := true
	for {
		i = ws(s, i)
		if i < len(s) && s[i] == ',' {
			i = ws(s, i+1)
		}
		if i >= len(s) {
			return -1
		}
		if s[i] == ']' {
			return i + 1
		}
		var e gjson.Result
		end := -1
		switch {
		case !more:
			e, end = value(s, i, true)
		case s[i] == '{':
			end = members(s, i, base, nil, func(k, e gjson.Result) bool { member(k, e); return true })
			e.Type, e.Raw = gjson.JSON, s[i:max(end, i)]
		default:
			e, end = value(s, i, true)
		}
		if end < 0 {
			return -1
		}
		e.Index = base + i
		i = end
		if more && !f(e) {
			more = false
		}
	}
}

// members calls f with each member of the object at s[i], as each does
// for an object whose Raw is s and whose Index is base, and returns the
// index just past it, or -1 when it is not well formed. val, when not
// nil, reads each value in place of value (given the key and where the
// value starts). Past an f that returns false, the members are skipped.
func members(s string, i, base int, val func(k gjson.Result, i int) (gjson.Result, int), f func(k, e gjson.Result) bool) int {
	key := gjson.Result{Type: gjson.String}
	more := true
	i++ // past the '{'
	for {
		i = ws(s, i)
		if i < len(s) && s[i] == ',' {
			i = ws(s, i+1)
		}
		if i >= len(s) {
			return -1
		}
		if s[i] == '}' {
			return i + 1
		}
		if s[i] != '"' {
			return -1
		}
		end, esc := skipString(s, i)
		if end > len(s) {
			return -1
		}
		key.Raw = s[i:end]
		key.Str = content(key.Raw, esc)
		key.Index = base + i
		i = ws(s, end)
		if i >= len(s) || s[i] != ':' {
			return -1
		}
		i = ws(s, i+1)
		if i >= len(s) {
			return -1
		}
		var v gjson.Result
		if val != nil && more {
			v, end = val(key, i)
		} else {
			v, end = value(s, i, true)
		}
		if end < 0 {
			return -1
		}
		v.Index = base + i
		i = end
		if more && !f(key, v) {
			more = false
		}
	}
}

// Lookup returns the value of key k in the object v (the first if it is
// repeated, as gjson's Get does), or a Result that does not exist. Unlike
// Get, k is a plain key, not a path.
func Lookup(v gjson.Result, k string) gjson.Result {
	var out gjson.Result
	if !v.IsObject() {
		return out
	}
	// The members passed over are not read: only the value found is
	// completed, as ForEach gives it.
	ForEachRaw(v, func(key, e gjson.Result) bool {
		if key.Str == k {
			out = Full(e)
			return false
		}
		return true
	})
	return out
}

// ws returns the index of the first byte at or after i that is not JSON
// white space.
func ws(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// value reads the value starting at s[i]; end is -1 when there is none.
func value(s string, i int, lazy bool) (v gjson.Result, end int) {
	switch c := s[i]; {
	case c == '"':
		end, esc := skipString(s, i)
		if end > len(s) {
			return v, -1
		}
		v.Type, v.Raw = gjson.String, s[i:end]
		if !lazy || !esc {
			v.Str = content(v.Raw, esc)
		}
		return v, end
	case c == '{' || c == '[':
		end := skipNested(s, i)
		if end < 0 {
			return v, -1
		}
		v.Type, v.Raw = gjson.JSON, s[i:end]
		return v, end
	case c == 't':
		return literal(s, i, "true", gjson.True)
	case c == 'f':
		return literal(s, i, "false", gjson.False)
	case c == 'n':
		return literal(s, i, "null", gjson.Null)
	case c == '-' || (c >= '0' && c <= '9'):
		j := i + 1
		for j < len(s) && numByte(s[j]) {
			j++
		}
		v.Type, v.Raw = gjson.Number, s[i:j]
		if !lazy {
			v.Num = number(v.Raw)
		}
		return v, j
	}
	return v, -1
}

func numByte(c byte) bool {
	return (c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-'
}

func literal(s string, i int, word string, t gjson.Type) (gjson.Result, int) {
	if !strings.HasPrefix(s[i:], word) {
		return gjson.Result{}, -1
	}
	return gjson.Result{Type: t, Raw: word}, i + len(word)
}

// skipString returns the index just past the string whose quote is at
// s[i] (len(s)+1 when it is not closed) and whether it holds an escape.
func skipString(s string, i int) (end int, esc bool) { return jsonenc.SkipQuoted(s, i) }

// skipQuote is skipString for a string inside a value being skipped,
// where whether it holds an escape is not asked: the text of a message or
// a tool's output is looked through once, for its closing quote, not a
// second time for a backslash.
func skipQuote(s string, i int) int {
	const (
		lo = 0x0101010101010101
		hi = 0x8080808080808080
	)
	// Short strings (keys, ids, words) eight bytes at a time, as
	// jsonenc.SkipQuoted reads them.
	for j := i + 1; j+8 <= len(s) && j-i <= 48; j += 8 {
		x := jsonenc.LoadString8(s, j)
		q := x ^ ('"' * lo)
		b := x ^ ('\\' * lo)
		if m := (((q - lo) &^ q) | ((b - lo) &^ b)) & hi; m != 0 {
			k := j + bits.TrailingZeros64(m)/8
			if s[k] == '"' {
				return k + 1
			}
			break
		}
	}
	for j := i + 1; ; {
		q := strings.IndexByte(s[j:], '"')
		if q < 0 {
			return len(s) + 1
		}
		j += q
		k := j - 1
		for k > i && s[k] == '\\' {
			k--
		}
		if (j-1-k)%2 == 0 {
			return j + 1 // not escaped
		}
		j++
	}
}

// skipNested returns the index just past the object or array at s[i], or
// -1 when it is not closed.
func skipNested(s string, i int) int {
	depth := 0
	for i < len(s) {
		if !structural[s[i]] {
			i++
			continue
		}
		switch s[i] {
		case '"':
			i = skipQuote(s, i)
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
		i++
	}
	return -1
}

// structural marks the bytes skipNested stops at.
var structural = [256]bool{'"': true, '{': true, '[': true, '}': true, ']': true}

// content returns the text of the quoted string raw: a view of it when it
// has no escape.
func content(raw string, esc bool) string {
	body := raw[1 : len(raw)-1]
	if !esc {
		return body
	}
	return Unescape(body)
}

// Unescape returns the text a JSON string's body (without its quotes)
// stands for, as gjson reads it: a \u escape of half a surrogate pair
// stands for U+FFFD. The text is built once and not copied again into a
// string: of a 25 MB line's text, the copy was another 25 MB.
func Unescape(body string) string {
	out := make([]byte, 0, len(body))
	for {
		j := strings.IndexByte(body, '\\')
		if j < 0 {
			out = append(out, body...)
			break
		}
		out = append(out, body[:j]...)
		body = body[j:]
		if len(body) < 2 {
			break
		}
		c := body[1]
		body = body[2:]
		switch c {
		case '"', '\\', '/':
			out = append(out, c)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			if len(body) < 4 {
				return unsafe.String(unsafe.SliceData(out), len(out))
			}
			r := hex4(body)
			body = body[4:]
			if r >= 0xD800 && r < 0xDC00 && len(body) >= 6 && body[0] == '\\' && body[1] == 'u' {
				if r2 := hex4(body[2:]); r2 >= 0xDC00 && r2 < 0xE000 {
					r = utf16.DecodeRune(r, r2)
					body = body[6:]
				}
			}
			out = utf8.AppendRune(out, r)
		default:
			return unsafe.String(unsafe.SliceData(out), len(out))
		}
	}
	return unsafe.String(unsafe.SliceData(out), len(out))
}

func hex4(s string) rune {
	n, _ := strconv.ParseUint(s[:4], 16, 64)
	return rune(n)
}
