package view

import (
	"strings"
	"unicode/utf8"
)

// Limits bound what a page holds of a run, so that a run of any size
// gives a page a browser opens: long texts are cut and the cut is stated
// where it is made.
type Limits struct {
	// Preview is how many bytes of a long text (a tool's output or input)
	// are shown before a click; PreviewLines how many lines.
	Preview, PreviewLines int
	// Text is how many bytes of one text (a message, an output) the page
	// keeps; the rest is left out and the page says how much.
	Text int
	// Run is how many bytes of text the page of one run keeps in all. Once
	// they are used, each further text keeps only its first Head bytes.
	Run int64
	// Head is what a text keeps once Run is used up.
	Head int
	// Items is how many items (turns, messages, tool calls, notes) the
	// page of one run shows; past it the page stops and says what it
	// left out. The header's figures still count the whole run.
	Items int
	// Live is how many bytes of markup a run's view holds before what
	// follows is held as data — blocks of about Chunk bytes of markup,
	// whole turns or, within a long turn, its items — which the page's
	// script builds when they come into view: a long run opens as fast
	// as a short one.
	Live, Chunk int
}

// DefaultLimits are the limits Read uses for the zero Limits; see
// docs/view.md for the page sizes they give.
var DefaultLimits = Limits{
	Preview:      1 << 10,
	PreviewLines: 12,
	Text:         64 << 10,
	Run:          32 << 20,
	Head:         160,
	Items:        150_000,
	Live:         1 << 20,
	Chunk:        1 << 20,
}

func (l Limits) orDefault() Limits {
	d := DefaultLimits
	if l.Preview > 0 {
		d.Preview = l.Preview
	}
	if l.PreviewLines > 0 {
		d.PreviewLines = l.PreviewLines
	}
	if l.Text > 0 {
		d.Text = l.Text
	}
	if l.Run > 0 {
		d.Run = l.Run
	}
	if l.Head > 0 {
		d.Head = l.Head
	}
	if l.Items > 0 {
		d.Items = l.Items
	}
	if l.Live > 0 {
		d.Live = l.Live
	}
	if l.Chunk > 0 {
		d.Chunk = l.Chunk
	}
	return d
}

// text is a string from the input as the page keeps it: a prefix of it,
// and its whole length.
type text struct {
	b []byte
	n int64 // the whole length in bytes
}

func (t *text) String() string { return string(t.b) }

// cut reports whether part of the text was left out.
func (t *text) cut() bool { return t.n > int64(len(t.b)) }

// budget hands out the bytes of text a run's page may keep.
type budget struct {
	lim      Limits
	left     int64
	cuts     int   // texts cut
	cutBytes int64 // bytes left out
}

// room is how many bytes a text may keep now.
func (b *budget) room() int {
	if b.left <= 0 {
		return b.lim.Head
	}
	return b.lim.Text
}

// keep returns s as the page keeps it. The bytes kept are copied, so that
// a 10 MB output is not held alive by its prefix.
func (b *budget) keep(s string) text {
	var t text
	b.add(&t, s)
	return t
}

// add appends s to t within the limits.
func (b *budget) add(t *text, s string) {
	was := t.cut()
	t.n += int64(len(s))
	limit := b.room()
	if len(t.b) < limit && !was {
		part := s
		if len(t.b)+len(part) > limit {
			part = prefixUTF8(part, limit-len(t.b))
		}
		t.b = append(t.b, part...)
		b.left -= int64(len(part))
	}
	if left := t.n - int64(len(t.b)); left > 0 {
		if !was {
			b.cuts++
		}
		b.cutBytes += min(left, int64(len(s)))
	}
}

// prefixUTF8 returns the longest prefix of s of at most n bytes that does
// not split a UTF-8 sequence.
func prefixUTF8(s string, n int) string {
	if n >= len(s) {
		return s
	}
	if n <= 0 {
		return ""
	}
	i := n
	for i > 0 && i > n-utf8.UTFMax && !utf8.RuneStart(s[i]) {
		i--
	}
	if !utf8.RuneStart(s[i]) {
		i = n
	}
	return s[:i]
}

// splitPreview splits a kept text into what is shown at once (at most
// Preview bytes and PreviewLines lines, ending at a line's end where one
// is near) and the rest.
func splitPreview(s string, lim Limits) (head, rest string) {
	if len(s) <= lim.Preview && strings.Count(s, "\n") < lim.PreviewLines {
		return s, ""
	}
	end := min(len(s), lim.Preview)
	lines := 0
	for i := 0; i < end; i++ {
		if s[i] == '\n' {
			lines++
			if lines == lim.PreviewLines {
				end = i + 1
				break
			}
		}
	}
	if end < len(s) && s[end-1] != '\n' {
		if nl := strings.LastIndexByte(s[:end], '\n'); nl > end/2 {
			end = nl + 1
		}
	}
	head = prefixUTF8(s, end)
	return head, s[len(head):]
}

// firstLine returns the first non-blank line of s, at most n bytes.
func firstLine(s string, n int) string {
	s = strings.TrimLeft(s, " \t\r\n")
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = s[:i]
		if len(s) > n {
			return prefixUTF8(s, n) + "…"
		}
		return s + " …"
	}
	if len(s) > n {
		return prefixUTF8(s, n) + "…"
	}
	return s
}
