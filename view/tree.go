package view

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/klauspost/compress/gzip"
)

// A long run's page holds its first turns as markup and the rest as
// data: a browser parses 40 MB of markup in seconds, but skims a data
// block as fast as it reads it. The data is the same markup the renderer
// wrote for those turns — this package's own, every input string
// already escaped in it — turned here into a JSON tree of [tag,
// {attributes}, children…] and strings, gzipped, which the page's script
// unpacks and builds with document.createElement, setAttribute and text
// nodes when the turns come into view: no markup is parsed from a
// string, and the script takes only the elements and attributes it
// knows.

// packTree writes markup as its JSON tree, gzipped and in base64: the
// data of a slot. Markup compresses some tenfold, and the browser skims
// a tenth of the bytes; the page's script unpacks it with the browser's
// own DecompressionStream.
func packTree(w io.Writer, markup []byte) error {
	b64 := base64.NewEncoder(base64.StdEncoding, w)
	zw, _ := gzip.NewWriterLevel(b64, gzip.BestSpeed)
	bw := bufio.NewWriterSize(zw, 64<<10)
	writeTree(bw, markup)
	if err := bw.Flush(); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return b64.Close()
}

// voidTags are the elements of the renderer's markup that have no end
// tag.
var voidTags = map[string]bool{"br": true, "hr": true, "wbr": true}

// writeTree writes markup of this package's own making as a JSON array of
// its top-level nodes, safe inside a <script type="application/json">
// element (no "<", ">" or "&" in it but as \u escapes).
func writeTree(w *bufio.Writer, markup []byte) {
	w.WriteByte('[')
	depth := 0
	first := true
	sep := func() {
		if depth > 0 || !first {
			w.WriteByte(',')
		}
		first = false
	}
	for i := 0; i < len(markup); {
		if markup[i] != '<' {
			j := bytes.IndexByte(markup[i:], '<')
			if j < 0 {
				j = len(markup) - i
			}
			sep()
			jsonString(w, unescapeText(markup[i:i+j]))
			i += j
			continue
		}
		end := bytes.IndexByte(markup[i:], '>')
		if end < 0 {
			break // the renderer writes whole tags: not reached
		}
		tag := markup[i+1 : i+end]
		i += end + 1
		if len(tag) > 0 && tag[0] == '/' {
			if depth > 0 {
				w.WriteByte(']')
				depth--
			}
			continue
		}
		selfClosing := len(tag) > 0 && tag[len(tag)-1] == '/'
		if selfClosing {
			tag = tag[:len(tag)-1]
		}
		name, attrs := splitTag(string(tag))
		sep()
		w.WriteString(`["`)
		w.WriteString(name)
		w.WriteString(`",{`)
		for k, a := range attrs {
			if k > 0 {
				w.WriteByte(',')
			}
			jsonString(w, []byte(a[0]))
			w.WriteByte(':')
			jsonString(w, []byte(a[1]))
		}
		w.WriteByte('}')
		if selfClosing || voidTags[name] {
			w.WriteByte(']')
			continue
		}
		depth++
	}
	for ; depth > 0; depth-- {
		w.WriteByte(']')
	}
	w.WriteByte(']')
}

// splitTag splits a start tag's inside (name a="v" b) into its name and
// attributes, their values unescaped.
func splitTag(s string) (string, [][2]string) {
	name, rest, _ := strings.Cut(s, " ")
	var attrs [][2]string
	for {
		rest = strings.TrimLeft(rest, " ")
		if rest == "" {
			return name, attrs
		}
		i := strings.IndexAny(rest, "= ")
		if i < 0 {
			return name, append(attrs, [2]string{rest, ""})
		}
		if rest[i] == ' ' {
			attrs = append(attrs, [2]string{rest[:i], ""})
			rest = rest[i:]
			continue
		}
		key := rest[:i]
		rest = rest[i+1:]
		if !strings.HasPrefix(rest, `"`) {
			return name, attrs // the renderer quotes every value: not reached
		}
		j := strings.IndexByte(rest[1:], '"')
		if j < 0 {
			return name, attrs
		}
		attrs = append(attrs, [2]string{key, string(unescapeText([]byte(rest[1 : 1+j])))})
		rest = rest[2+j:]
	}
}

// unescapeText undoes hw.text's escapes.
func unescapeText(b []byte) []byte {
	if bytes.IndexByte(b, '&') < 0 {
		return b
	}
	var out []byte
	for i := 0; i < len(b); i++ {
		if b[i] == '&' {
			matched := false
			for _, e := range [...]struct{ from, to string }{{"&amp;", "&"}, {"&lt;", "<"}, {"&gt;", ">"}, {"&#34;", `"`}, {"&#39;", "'"}} {
				if bytes.HasPrefix(b[i:], []byte(e.from)) {
					out = append(out, e.to...)
					i += len(e.from) - 1
					matched = true
					break
				}
			}
			if matched {
				continue
			}
		}
		out = append(out, b[i])
	}
	return out
}

// jsonString writes s as a JSON string that may stand in an HTML data
// block: <, >, & and the line separators as \u escapes.
func jsonString(w *bufio.Writer, b []byte) {
	const hex = "0123456789abcdef"
	w.WriteByte('"')
	plain := 0 // the start of the bytes that need no escape
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			w.Write(b[plain:i])
			switch c {
			case '"', '\\':
				w.WriteByte('\\')
				w.WriteByte(c)
			case '\n':
				w.WriteString(`\n`)
			case '\t':
				w.WriteString(`\t`)
			default:
				w.WriteString(`\u00`)
				w.WriteByte(hex[c>>4])
				w.WriteByte(hex[c&0xf])
			}
			i++
			plain = i
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			w.Write(b[plain:i])
			w.WriteString(`\ufffd`)
		case r == '\u2028' || r == '\u2029':
			w.Write(b[plain:i])
			w.WriteString(`\u202`)
			w.WriteByte(hex[r&0xf])
		default:
			i += n
			continue
		}
		i += n
		plain = i
	}
	w.Write(b[plain:])
	w.WriteByte('"')
}
