package view

import (
	"regexp"
	"strings"
)

// Assistant messages are markdown. They are rendered here, in Go, as a
// small subset — paragraphs, headings, fenced code (a diff fence as a
// diff), block quotes, lists, tables, rules, and inline code, emphasis,
// strike-through — with every piece of the input written through
// hw.text, so that a message can only ever be text in this package's own
// elements. Raw HTML in a message is shown as the text it is. Links and
// images are shown as their text and address, never followed or loaded:
// the page makes no request on a message's say, and a javascript: link
// is just words.

// maxMDDepth bounds the nesting of block quotes, lists and emphasis; what
// is nested deeper is written as plain text.
const maxMDDepth = 12

// md writes markdown source as HTML.
func md(h *hw, src string) {
	src = strings.ReplaceAll(src, "\r\n", "\n")
	mdBlocks(h, strings.Split(src, "\n"), 0)
}

var (
	reFence    = regexp.MustCompile("^ {0,3}(```+|~~~+)\\s*([^`\\s]*)")
	reHeading  = regexp.MustCompile(`^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t#]*$`)
	reRule     = regexp.MustCompile(`^ {0,3}([-*_])(?:[ \t]*([-*_]))(?:[ \t]*([-*_]))+[ \t]*$`)
	reBullet   = regexp.MustCompile(`^( {0,3})([-*+])([ \t]+|$)`)
	reOrdered  = regexp.MustCompile(`^( {0,3})(\d{1,9})([.)])([ \t]+|$)`)
	reTableSep = regexp.MustCompile(`^ {0,3}\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$`)
)

// listItem reports whether a line begins a list item: its marker's
// width, whether the list is ordered, and its number.
func listItem(line string) (width int, ordered bool, start string, ok bool) {
	if m := reBullet.FindStringSubmatch(line); m != nil {
		if reRule.MatchString(line) {
			return 0, false, "", false
		}
		return len(m[0]), false, "", true
	}
	if m := reOrdered.FindStringSubmatch(line); m != nil {
		return len(m[0]), true, m[2], true
	}
	return 0, false, "", false
}

func blank(line string) bool { return strings.TrimSpace(line) == "" }

// startsBlock reports whether a line begins a block other than a
// paragraph, and so ends a paragraph before it.
func startsBlock(line string) bool {
	if reFence.MatchString(line) || reHeading.MatchString(line) || reRule.MatchString(line) {
		return true
	}
	t := strings.TrimLeft(line, " ")
	if strings.HasPrefix(t, ">") {
		return true
	}
	_, _, _, ok := listItem(line)
	return ok
}

func mdBlocks(h *hw, lines []string, depth int) {
	if depth > maxMDDepth {
		h.raw(`<p class="md">`)
		h.text(strings.Join(lines, "\n"))
		h.raw("</p>")
		return
	}
	for i := 0; i < len(lines); {
		line := lines[i]
		if blank(line) {
			i++
			continue
		}
		if m := reFence.FindStringSubmatch(line); m != nil {
			fence := m[1]
			lang := strings.ToLower(m[2])
			var body []string
			j := i + 1
			for ; j < len(lines); j++ {
				t := strings.TrimSpace(lines[j])
				if strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == "" {
					break
				}
				body = append(body, lines[j])
			}
			code := strings.Join(body, "\n")
			if lang == "diff" || lang == "patch" {
				writeDiffLines(h, code)
			} else {
				h.raw(`<pre class="code">`)
				if lang != "" {
					h.raw(`<span class="lang">`)
					h.text(lang)
					h.raw("</span>")
				}
				h.raw("<code>")
				h.text(code)
				h.raw("</code></pre>")
			}
			i = j + 1
			continue
		}
		if m := reHeading.FindStringSubmatch(line); m != nil {
			level := min(6, len(m[1])+2)
			h.rawf(`<h%d class="md">`, level)
			inline(h, m[2], depth)
			h.rawf("</h%d>", level)
			i++
			continue
		}
		if reRule.MatchString(line) {
			h.raw(`<hr class="md">`)
			i++
			continue
		}
		if t := strings.TrimLeft(line, " "); strings.HasPrefix(t, ">") {
			var q []string
			for ; i < len(lines); i++ {
				t := strings.TrimLeft(lines[i], " ")
				if !strings.HasPrefix(t, ">") {
					if blank(lines[i]) || startsBlock(lines[i]) || len(q) == 0 {
						break
					}
					q = append(q, lines[i]) // a lazy continuation
					continue
				}
				t = strings.TrimPrefix(t[1:], " ")
				q = append(q, t)
			}
			h.raw("<blockquote>")
			mdBlocks(h, q, depth+1)
			h.raw("</blockquote>")
			continue
		}
		if _, ordered, start, ok := listItem(line); ok {
			i = mdList(h, lines, i, ordered, start, depth)
			continue
		}
		if i+1 < len(lines) && strings.Contains(line, "|") && reTableSep.MatchString(lines[i+1]) && strings.Contains(lines[i+1], "-") {
			i = mdTable(h, lines, i, depth)
			continue
		}
		// A paragraph: lines up to a blank line or another block.
		j := i + 1
		for j < len(lines) && !blank(lines[j]) && !startsBlock(lines[j]) {
			j++
		}
		h.raw(`<p class="md">`)
		inline(h, strings.Join(lines[i:j], "\n"), depth)
		h.raw("</p>")
		i = j
	}
}

// mdList writes the list beginning at lines[i] and returns the index of
// the line after it.
func mdList(h *hw, lines []string, i int, ordered bool, start string, depth int) int {
	if ordered {
		if start != "" && start != "1" {
			h.raw(`<ol class="md" start="`)
			h.attr(strings.TrimLeft(start, "0"))
			h.raw(`">`)
		} else {
			h.raw(`<ol class="md">`)
		}
	} else {
		h.raw(`<ul class="md">`)
	}
	for i < len(lines) {
		width, o, _, ok := listItem(lines[i])
		if !ok || o != ordered {
			break
		}
		item := []string{lines[i][width:]}
		i++
		// The item's further lines: indented ones, lazy continuations,
		// and blank lines followed by indented ones.
		for i < len(lines) {
			l := lines[i]
			if blank(l) {
				if i+1 < len(lines) && indent(lines[i+1]) >= min(width, 2) && !blank(lines[i+1]) {
					item = append(item, "")
					i++
					continue
				}
				break
			}
			if indent(l) >= min(width, 2) {
				item = append(item, dedent(l, width))
				i++
				continue
			}
			if startsBlock(l) {
				break
			}
			item = append(item, l)
			i++
		}
		h.raw("<li>")
		// A one-paragraph item is written without its paragraph.
		if len(item) == 1 || !containsBlock(item) {
			inline(h, strings.Join(item, "\n"), depth+1)
		} else {
			mdBlocks(h, item, depth+1)
		}
		h.raw("</li>")
		// A blank line between items of the same list keeps the list.
		if i+1 < len(lines) && blank(lines[i]) {
			if _, o, _, ok := listItem(lines[i+1]); ok && o == ordered {
				i++
			}
		}
	}
	if ordered {
		h.raw("</ol>")
	} else {
		h.raw("</ul>")
	}
	return i
}

func containsBlock(lines []string) bool {
	for _, l := range lines[1:] {
		if blank(l) || startsBlock(l) {
			return true
		}
	}
	return false
}

func indent(l string) int {
	n := 0
	for _, c := range l {
		switch c {
		case ' ':
			n++
		case '\t':
			n += 4
		default:
			return n
		}
	}
	return n
}

func dedent(l string, n int) string {
	for n > 0 && len(l) > 0 && (l[0] == ' ' || l[0] == '\t') {
		l = l[1:]
		n--
	}
	return l
}

// maxColumns bounds a table's columns.
const maxColumns = 64

func mdTable(h *hw, lines []string, i, depth int) int {
	head := cells(lines[i])
	h.raw(`<div class="tw"><table class="md"><thead><tr>`)
	for _, c := range head {
		h.raw("<th>")
		inline(h, c, depth+1)
		h.raw("</th>")
	}
	h.raw("</tr></thead><tbody>")
	i += 2
	for ; i < len(lines) && strings.Contains(lines[i], "|") && !blank(lines[i]); i++ {
		h.raw("<tr>")
		row := cells(lines[i])
		for k := range head {
			h.raw("<td>")
			if k < len(row) {
				inline(h, row[k], depth+1)
			}
			h.raw("</td>")
		}
		h.raw("</tr>")
	}
	h.raw("</tbody></table></div>")
	return i
}

// cells splits a table row at its unescaped pipes.
func cells(line string) []string {
	line = strings.TrimSpace(line)
	line = strings.TrimPrefix(line, "|")
	if strings.HasSuffix(line, "|") && !strings.HasSuffix(line, `\|`) {
		line = line[:len(line)-1]
	}
	var out []string
	var b strings.Builder
	for i := 0; i < len(line); i++ {
		switch {
		case line[i] == '\\' && i+1 < len(line) && line[i+1] == '|':
			b.WriteByte('|')
			i++
		case line[i] == '|':
			out = append(out, strings.TrimSpace(b.String()))
			b.Reset()
		default:
			b.WriteByte(line[i])
		}
	}
	out = append(out, strings.TrimSpace(b.String()))
	if len(out) > maxColumns {
		out = out[:maxColumns]
	}
	return out
}

// inliner writes a paragraph's inline markdown. Each search for a closing
// delimiter that finds none is remembered, so that a text full of
// unmatched delimiters is written in linear time, not quadratic.
type inliner struct {
	h     *hw
	s     string
	dead  map[string]bool // delimiters with no closer after the last search
	depth int
}

// inline writes s as inline markdown.
func inline(h *hw, s string, depth int) {
	in := &inliner{h: h, s: s, dead: map[string]bool{}, depth: depth}
	in.run(0, len(s))
}

// isPunct reports whether c is ASCII punctuation (which a backslash
// escapes).
func isPunct(c byte) bool {
	return c >= '!' && c <= '/' || c >= ':' && c <= '@' || c >= '[' && c <= '`' || c >= '{' && c <= '~'
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// run writes s[from:to]: plain text as it stands, and each inline
// construct by the method of its first byte. A method returns how far it
// read and whether it wrote (after flushing the plain text before it);
// one that read nothing leaves the byte to the plain text.
func (in *inliner) run(from, to int) {
	s, h := in.s, in.h
	plain := from
	flush := func(i int) {
		if plain < i {
			h.text(s[plain:i])
		}
	}
	for i := from; i < to; {
		var adv int
		var wrote bool
		switch c := s[i]; {
		case c == '\\':
			adv, wrote = in.backslash(i, to, flush)
		case c == '\n':
			if in.hardBreak(i, flush) {
				plain = i
			}
		case c == '`':
			adv, wrote = in.codeSpan(i, to, flush)
		case (c == '*' || c == '_' || c == '~') && in.depth < maxMDDepth:
			adv, wrote = in.emphasis(c, i, to, flush)
		case c == '[' || (c == '!' && i+1 < to && s[i+1] == '['):
			adv, wrote = in.linkAt(c == '!', i, to, flush)
		}
		switch {
		case wrote:
			i += adv
			plain = i
		case adv > 0:
			i += adv
		default:
			i++
		}
	}
	flush(to)
}

// backslash writes an escaped punctuation character as itself, and a
// backslash before a line's end as a line break.
func (in *inliner) backslash(i, to int, flush func(int)) (int, bool) {
	s, h := in.s, in.h
	switch {
	case i+1 < to && isPunct(s[i+1]):
		flush(i)
		h.text(s[i+1 : i+2])
		return 2, true
	case i+1 < to && s[i+1] == '\n':
		flush(i)
		h.raw("<br>")
		return 1, true
	}
	return 0, false
}

// hardBreak writes a line break where two spaces end a line; the line's
// end itself stays in the plain text.
func (in *inliner) hardBreak(i int, flush func(int)) bool {
	s := in.s
	if i >= 2 && s[i-1] == ' ' && s[i-2] == ' ' {
		flush(strings.LastIndexFunc(s[:i], func(r rune) bool { return r != ' ' }) + 1)
		in.h.raw("<br>")
		return true
	}
	return false
}

// codeSpan writes a code span opened at i; an opener without a closer is
// plain text.
func (in *inliner) codeSpan(i, to int, flush func(int)) (int, bool) {
	s, h := in.s, in.h
	n := run(s, i, to, '`')
	end := in.closer(s[i:i+n], i+n, to, false)
	if end < 0 {
		return n, false
	}
	flush(i)
	code := s[i+n : end]
	if len(code) >= 2 && code[0] == ' ' && code[len(code)-1] == ' ' && strings.Trim(code, " ") != "" {
		code = code[1 : len(code)-1]
	}
	h.raw("<code>")
	h.text(strings.ReplaceAll(code, "\n", " "))
	h.raw("</code>")
	return end + n - i, true
}

// emphasis writes emphasis, strong emphasis or strikethrough opened at i
// by a run of c, and what it holds.
func (in *inliner) emphasis(c byte, i, to int, flush func(int)) (int, bool) {
	s, h := in.s, in.h
	n := run(s, i, to, c)
	if c == '~' && n != 2 {
		return n, false
	}
	// An opener is followed by a non-space; _ opens only at a word's
	// start.
	if i+n >= to || s[i+n] == ' ' || s[i+n] == '\n' || (c == '_' && i > 0 && isAlnum(s[i-1])) || n > 3 {
		return n, false
	}
	end := in.closer(s[i:i+n], i+n, to, true)
	if end < 0 {
		return n, false
	}
	flush(i)
	open, shut := "<em>", "</em>"
	switch {
	case c == '~':
		open, shut = "<del>", "</del>"
	case n == 2:
		open, shut = "<strong>", "</strong>"
	case n == 3:
		open, shut = "<strong><em>", "</em></strong>"
	}
	h.raw(open)
	in.depth++
	in.run(i+n, end)
	in.depth--
	h.raw(shut)
	return end + n - i, true
}

// linkAt writes a link, or an image as its alt text, opened at i.
func (in *inliner) linkAt(img bool, i, to int, flush func(int)) (int, bool) {
	s, h := in.s, in.h
	open := i
	if img {
		open++
	}
	label, url, end, ok := in.link(open, to)
	if !ok {
		return 0, false
	}
	flush(i)
	if img {
		h.raw(`<span class="img">[image: `)
		h.text(s[label[0]:label[1]])
		h.raw("]</span>")
	} else {
		h.raw(`<span class="lk">`)
		in.depth++
		in.run(label[0], label[1])
		in.depth--
		h.raw("</span>")
	}
	if url != "" {
		h.raw(` <span class="url">(`)
		h.text(url)
		h.raw(")</span>")
	}
	return end - i, true
}

// run returns the length of the run of c at s[i:to].
func run(s string, i, to int, c byte) int {
	n := 0
	for i+n < to && s[i+n] == c {
		n++
	}
	return n
}

// closer returns where the closing delimiter d is in s[from:to], or -1.
// For emphasis the closer follows a non-space and is not part of a
// longer run.
func (in *inliner) closer(d string, from, to int, emphasis bool) int {
	// A search that failed fails again from further on, within the same
	// bounds.
	key := d + "@" + itoa(to)
	if in.dead[key] {
		return -1
	}
	s := in.s
	for i := from; i < to; {
		j := strings.Index(s[i:to], d)
		if j < 0 {
			break
		}
		j += i
		n := run(s, j, to, d[0])
		if n == len(d) && (!emphasis || (j > from && s[j-1] != ' ' && s[j-1] != '\n' &&
			(d[0] != '_' || j+n == to || !isAlnum(s[j+n])))) {
			return j
		}
		i = j + n
	}
	in.dead[key] = true
	return -1
}

// maxLabel bounds a link's label: a longer one is not read as a link,
// which keeps a text full of brackets fast to write.
const maxLabel = 256

// link reads [label](url) at s[i:to]: the label's bounds, the address,
// and where the link ends.
func (in *inliner) link(i, to int) (label [2]int, url string, end int, ok bool) {
	s := in.s
	window := s[i:min(to, i+maxLabel)]
	if !strings.Contains(window, "](") {
		return label, "", 0, false
	}
	level := 0
	j := i
	for ; j < i+len(window); j++ {
		switch s[j] {
		case '\\':
			j++
			continue
		case '[':
			level++
		case ']':
			level--
		}
		if level == 0 {
			break
		}
	}
	if level != 0 || j+1 >= to || s[j+1] != '(' {
		return label, "", 0, false
	}
	// The address ends at the parenthesis that balances the opening one.
	k, open := -1, 0
	for x := j + 2; x < min(to, j+2+4096); x++ {
		if s[x] == '(' {
			open++
		} else if s[x] == ')' {
			if open == 0 {
				k = x - (j + 2)
				break
			}
			open--
		}
	}
	if k < 0 {
		return label, "", 0, false
	}
	url = strings.TrimSpace(s[j+2 : j+2+k])
	// A title after the address is dropped; <…> around it too.
	if sp := strings.IndexAny(url, " \t\n"); sp >= 0 {
		url = url[:sp]
	}
	url = strings.TrimSuffix(strings.TrimPrefix(url, "<"), ">")
	return [2]int{i + 1, j}, url, j + 2 + k + 1, true
}

// writeDiffLines writes a diff's text, each line in a span of its class.
func writeDiffLines(h *hw, s string) {
	h.raw(`<pre class="diff">`)
	diffBody(h, s)
	h.raw("</pre>")
}

func diffBody(h *hw, s string) {
	for len(s) > 0 {
		line := s
		rest := ""
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			line, rest = s[:i], s[i+1:]
		}
		if c := diffClass(line); c != "" {
			h.raw(`<span class="` + c + `">`)
			h.text(line)
			h.raw("</span>\n")
		} else {
			h.text(line)
			h.raw("\n")
		}
		s = rest
	}
}
