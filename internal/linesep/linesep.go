// Package linesep keeps how a line spelled its U+2028 and U+2029
// characters, so that a writer gives the line back byte for byte.
//
// serde_json producers (basis, mermaid) write both characters raw, and so
// do evtool's writers; a line that escaped them (\u2028), one another JSON
// writer made or a hand-edited one, reads as the same text. The decoder
// keeps the spelling in its residue under Key, and the encoder respells the
// line it writes for that event with Respell.
package linesep

import (
	"bytes"

	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/tidwall/gjson"
)

// Key is the residue key that remembers how a line spelled its U+2028 and
// U+2029 characters when it escaped any of them: one byte per character,
// in the order they stand in the line, 'e' for the escape (\u2028) and 'r'
// for the raw character. Residue keys starting with '@' are evtool's own:
// no conversion counts them as facts.
const Key = "@ls"

// Of returns how line spells its U+2028 and U+2029 characters (see Key),
// or "" when it escapes none of them, the common case, found with one
// search of the line.
func Of(line []byte) string {
	if !bytes.Contains(line, []byte(`\u202`)) {
		return ""
	}
	var out []byte
	escaped := false
	forEach(line, func(_, _ int, esc bool) {
		if esc {
			out = append(out, 'e')
			escaped = true
		} else {
			out = append(out, 'r')
		}
	})
	if !escaped {
		return ""
	}
	return string(out)
}

// forEach calls f with the start and end of every U+2028 and U+2029 in a
// JSON text, raw or escaped, in order. Outside strings JSON has neither a
// backslash nor these characters, so no string tracking is needed: an
// escape is skipped whole, so that \\u2028 is a backslash followed by text.
func forEach(b []byte, f func(start, end int, escaped bool)) {
	for i := 0; i < len(b); {
		switch {
		case b[i] == '\\':
			if i+5 < len(b) && b[i+1] == 'u' && b[i+2] == '2' && b[i+3] == '0' && b[i+4] == '2' && (b[i+5] == '8' || b[i+5] == '9') {
				f(i, i+6, true)
				i += 6
				continue
			}
			i += 2
		case b[i] == 0xE2 && i+2 < len(b) && b[i+1] == 0x80 && (b[i+2] == 0xA8 || b[i+2] == 0xA9):
			f(i, i+3, false)
			i += 3
		default:
			i++
		}
	}
}

// Respell writes the U+2028 and U+2029 characters of a written line as its
// source line spelled them (seps, see Key), and reports whether it did.
// When the line holds another number of them than the source did, it is no
// longer the source line, and it is returned as it is: raw, as the
// producer writes them.
func Respell(line []byte, seps string) ([]byte, bool) {
	n := 0
	forEach(line, func(_, _ int, _ bool) { n++ })
	if n != len(seps) {
		return line, false
	}
	out := make([]byte, 0, len(line)+3*len(seps))
	last, i := 0, 0
	forEach(line, func(start, end int, escaped bool) {
		want := seps[i] == 'e'
		i++
		if want == escaped {
			return
		}
		out = append(out, line[last:start]...)
		last = end
		ch := byte('8')
		if escaped {
			ch = line[start+5]
		} else if line[start+2] == 0xA9 {
			ch = '9'
		}
		if want {
			out = append(out, '\\', 'u', '2', '0', '2', ch)
		} else {
			out = append(out, 0xE2, 0x80, 0xA8+ch-'8')
		}
	})
	return append(out, line[last:]...), true
}

// FromResidue returns the spelling a residue remembers (see Key), or "".
func FromResidue(residue []byte) string {
	if !bytes.Contains(residue, []byte(`"`+Key+`"`)) {
		return ""
	}
	v := jsonobj.Lookup(gjson.ParseBytes(residue), Key)
	if v.Type != gjson.String {
		return ""
	}
	for i := 0; i < len(v.Str); i++ {
		if v.Str[i] != 'e' && v.Str[i] != 'r' {
			return ""
		}
	}
	return v.Str
}
