package acp

import (
	"strconv"
	"unicode/utf8"
)

// MaxMessage is the largest JSON-RPC message evtool writes, in bytes. The
// Go SDK's reader stops at 10 MiB a line; each field that can grow with
// the source is capped so that a message stays under this.
const MaxMessage = 8 << 20

const (
	// maxText caps one text in a message. JSON escaping can make text up
	// to six times longer (\u001f for a control byte), so the worst case
	// still fits MaxMessage.
	maxText = 1 << 20
	// maxRaw caps raw JSON carried as it is (rawInput, residue).
	maxRaw = 1 << 20
	// maxTitle caps titles and other one-line texts.
	maxTitle = 8 << 10
	// eagerOutput is the output size up to which every chunk of a call's
	// output is sent; past it, an update goes out each time the output
	// has doubled.
	eagerOutput = 64 << 10
)

// capped is a tool call's output: its first maxText bytes and its total
// size, so that memory and messages stay bounded whatever the output's
// length.
type capped struct {
	b    []byte
	n    int  // bytes seen
	full bool // b reached its cap
}

func (c *capped) add(s string) {
	c.n += len(s)
	if c.full {
		return
	}
	if room := maxText - len(c.b); len(s) > room {
		s = s[:cut(s, room)]
		c.full = true
	}
	c.b = append(c.b, s...)
}

// text returns the output, with a visible note when it was cut.
func (c *capped) text() string {
	if c.n <= len(c.b) {
		return string(c.b)
	}
	return string(c.b) + "\n[… output truncated by evtool: showing the first " + strconv.Itoa(len(c.b)) +
		" of " + strconv.Itoa(c.n) + " bytes]"
}

// clip cuts s to at most max bytes (on a rune boundary), marking the cut.
func clip(s string, max int) string {
	if len(s) <= max {
		return s
	}
	return s[:cut(s, max-len("…"))] + "…"
}

// cut returns the largest n <= max at which s can be cut without splitting
// a UTF-8 sequence.
func cut(s string, max int) int {
	if max >= len(s) {
		return len(s)
	}
	if max <= 0 {
		return 0
	}
	n := max
	for n > 0 && n > max-utf8.UTFMax && !utf8.RuneStart(s[n]) {
		n--
	}
	if !utf8.RuneStart(s[n]) {
		return max // not UTF-8 here anyway
	}
	return n
}
