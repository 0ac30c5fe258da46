package ndjson

import (
	"bytes"
	"fmt"
	"strconv"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/evtool/evtool/internal/jsonenc"
	simdutf8 "github.com/segmentio/asm/utf8"

	"github.com/evtool/evtool/internal/jsonptr"
)

// DefaultMaxDepth bounds the nesting of objects and arrays in one line. It
// keeps every later stage (the schema engine, decoders, writers) away from
// stack exhaustion on hostile input, and is far above what any producer
// writes.
const DefaultMaxDepth = 10000

// SyntaxKind says which check a line failed.
type SyntaxKind int

// The kinds of syntax problems, from the lowest level up.
const (
	BadJSON      SyntaxKind = iota // not one JSON value
	BadUTF8                        // not UTF-8
	DuplicateKey                   // a key appears twice in one object
	TooDeep                        // nesting beyond the depth limit
)

// SyntaxError describes why a line is not one acceptable JSON value.
type SyntaxError struct {
	Kind    SyntaxKind
	Offset  int    // byte offset of the problem in the line
	Col     int    // 1-based character column of the problem
	Pointer string // JSON pointer of the value concerned, when there is one
	Msg     string
}

func (e *SyntaxError) Error() string { return e.Msg }

// Check reports whether line is valid UTF-8 holding exactly one JSON value
// with no key twice in any object and no nesting deeper than
// DefaultMaxDepth, and where it goes wrong if it is not.
func Check(line []byte) *SyntaxError { return CheckDepth(line, DefaultMaxDepth) }

// CheckDepth is Check with a nesting limit of its own (0 means
// DefaultMaxDepth).
//
// It accepts what serde_json, the producers' own parser, accepts: RFC 8259
// JSON whose \u escapes form whole characters (a lone surrogate is an
// error), and it reads the line once, in constant memory apart from the
// keys of the objects it is inside.
func CheckDepth(line []byte, maxDepth int) *SyntaxError {
	return CheckWith(line, Options{MaxDepth: maxDepth})
}

// Options refine Check.
type Options struct {
	// MaxDepth bounds nesting; 0 means DefaultMaxDepth.
	MaxDepth int
	// DuplicateOK, when set, is asked about each repeated key with the
	// JSON pointer of its second value; true lets the line pass. It is
	// for a producer known to write one key twice at one place.
	DuplicateOK func(pointer string) bool
}

// CheckWith is Check with options.
func CheckWith(line []byte, opts Options) *SyntaxError {
	_, err := CheckNesting(line, opts)
	return err
}

// CheckNesting is CheckWith that also returns how deep objects and arrays
// nest in the line (0 for a scalar; as far as it was read when the line
// fails). It costs nothing more: the check keeps that count anyway, and a
// writer that nests a line's values deeper than they came asks it to stay
// under the limit the reader of its output holds to.
func CheckNesting(line []byte, opts Options) (depth int, err *SyntaxError) {
	depth, _, err = CheckMembers(line, opts, nil)
	return depth, err
}

// Member is where one member of a line's top-level object stands in the
// line, as the check read it: the spans of its key and of its value, each
// quotes included for a string. A reader of the line that wants its
// members takes them from here rather than reading the line again.
type Member struct {
	KeyStart, KeyEnd int32
	ValStart, ValEnd int32
	// KeyEsc and ValEsc say that the key, or a string value, holds an
	// escape (its text is not the bytes between its quotes).
	KeyEsc, ValEsc bool
}

// CheckMembers is CheckNesting that also appends to dst[:0] the members
// of the line's top-level object, in order (a repeated key as often as it
// stands), and returns them when dst is not nil: nil for a line that is
// not an object or not acceptable, or one longer than a Member can place
// (2 GiB).
func CheckMembers(line []byte, opts Options, dst []Member) (depth int, members []Member, err *SyntaxError) {
	return check(line, opts, dst, nil)
}

// check is the check of CheckMembers and CheckIndex: dst, when not nil,
// collects the top-level members; x, when not nil, the index.
func check(line []byte, opts Options, dst []Member, x *Index) (depth int, members []Member, err *SyntaxError) {
	maxDepth := opts.MaxDepth
	if maxDepth <= 0 {
		maxDepth = DefaultMaxDepth
	}
	s := scanners.Get().(*scanner)
	*s = scanner{b: line, max: maxDepth, stack: s.stack[:0], keys: s.keys[:0], dupOK: opts.DuplicateOK,
		members: dst[:0], want: dst != nil && len(line) < 1<<31, pend: s.pend[:0]}
	if x != nil && len(line) < 1<<31 {
		s.index, s.room = x, min(MaxIndexed, len(line)/8+64)
	}
	// The line's UTF-8 is checked at once, with SIMD where the machine has
	// it; only a line that fails is checked string by string, to report
	// the first bad byte in its place among the line's other problems.
	s.utf8OK = simdutf8.Valid(line)
	s.clean = s.utf8OK && !hasControl(line)
	defer func() {
		if cap(s.stack) > 1024 || cap(s.keys) > 4096 {
			return // a freak line: let its memory go
		}
		s.b, s.err, s.dupOK, s.members, s.index = nil, nil, nil, nil, nil
		if cap(s.pend) > MaxIndexed {
			s.pend = nil
		}
		clear(s.keys[:cap(s.keys)]) // keys view the line: drop them
		clear(s.stack[:cap(s.stack)])
		scanners.Put(s)
	}()
	s.ws()
	if s.i >= len(s.b) {
		return 0, nil, s.fail(BadJSON, s.i, "invalid JSON: the line holds no value")
	}
	top := s.i
	s.value()
	if s.err == nil {
		s.ws()
		if s.i < len(s.b) {
			s.syntax("after the value")
		}
	}
	if s.err != nil || !s.want || s.b[top] != '{' {
		return s.deepest, nil, s.err
	}
	return s.deepest, s.members, nil
}

// scanners keeps scanners, and the stacks and key lists they grew, for
// the next line.
var scanners = sync.Pool{New: func() any { return new(scanner) }}

// maxPointerDepth bounds the pointer of a depth error.
const maxPointerDepth = 8

// frame is one object or array the scanner is inside.
type frame struct {
	object bool
	index  int            // array: index of the current element
	key    string         // object: the current key, decoded
	first  int            // object: where its keys start in scanner.keys
	set    map[string]int // object: its keys, once it has many
	cont   int32          // its place in the index's containers; -1: none
	pend   int            // where its members start in scanner.pend
}

// seenKey is a key of an object being read, and where it stands.
type seenKey struct {
	key string
	at  int
}

type scanner struct {
	b     []byte
	i     int
	max   int
	stack []frame
	// deepest is the deepest the stack has been.
	deepest int
	keys    []seenKey // the keys of every open object, innermost last
	err     *SyntaxError
	dupOK   func(pointer string) bool
	// utf8OK is set when the whole line is valid UTF-8; clean, when it
	// also holds no control character at all (a raw tab or carriage
	// return between tokens, which is allowed, takes the careful way).
	utf8OK, clean bool
	// members collects the top-level object's members when want is set;
	// esc says that the string scanned last holds an escape.
	members []Member
	want    bool
	esc     bool
	// index, when not nil, collects the line's containers (CheckIndex);
	// pend holds the members of the open ones, innermost last.
	index *Index
	pend  []Member
	room  int // the most entries the index takes for this line
}

func (s *scanner) fail(k SyntaxKind, off int, msg string) *SyntaxError {
	if s.err == nil {
		if off > len(s.b) {
			off = len(s.b)
		}
		s.err = &SyntaxError{Kind: k, Offset: off, Col: utf8.RuneCount(s.b[:off]) + 1, Msg: msg}
	}
	return s.err
}

// syntax reports an unexpected character (or the end of the line) at s.i.
func (s *scanner) syntax(where string) {
	if s.i >= len(s.b) {
		s.fail(BadJSON, len(s.b), "invalid JSON: the line ends inside a value")
		return
	}
	c := s.b[s.i]
	if c >= utf8.RuneSelf {
		if r, _ := utf8.DecodeRune(s.b[s.i:]); r == utf8.RuneError {
			s.fail(BadUTF8, s.i, fmt.Sprintf("invalid UTF-8 at byte %d", s.i+1))
			return
		}
	}
	r, _ := utf8.DecodeRune(s.b[s.i:])
	s.fail(BadJSON, s.i, fmt.Sprintf("invalid JSON: unexpected %s %s", quoteChar(r), where))
}

func quoteChar(r rune) string {
	if r < 0x20 || r == 0x7f {
		return fmt.Sprintf("control character U+%04X", r)
	}
	return strconv.QuoteRune(r)
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// pointer renders the path to the value being read.
func (s *scanner) pointer() string {
	toks := make([]string, 0, len(s.stack))
	for i := range s.stack {
		f := &s.stack[i]
		if f.object {
			toks = append(toks, f.key)
		} else {
			toks = append(toks, strconv.Itoa(f.index))
		}
	}
	return jsonptr.Join(toks...)
}

func (s *scanner) value() {
	if s.i >= len(s.b) {
		s.syntax("")
		return
	}
	switch c := s.b[s.i]; {
	case c == '{':
		s.object()
	case c == '[':
		s.array()
	case c == '"':
		s.str()
	case c == '-' || (c >= '0' && c <= '9'):
		s.number()
	case c == 't':
		s.literal("true")
	case c == 'f':
		s.literal("false")
	case c == 'n':
		s.literal("null")
	default:
		s.syntax("where a value belongs")
	}
}

func (s *scanner) literal(word string) {
	for j := 0; j < len(word); j++ {
		if s.i >= len(s.b) || s.b[s.i] != word[j] {
			s.syntax("in a literal (true, false or null)")
			return
		}
		s.i++
	}
}

func (s *scanner) number() {
	if s.b[s.i] == '-' {
		s.i++
	}
	if s.i >= len(s.b) {
		s.syntax("in a number")
		return
	}
	switch c := s.b[s.i]; {
	case c == '0':
		s.i++
	case c >= '1' && c <= '9':
		s.digits()
	default:
		s.syntax("in a number")
		return
	}
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		if !s.digits() {
			s.syntax("after the decimal point of a number")
			return
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if !s.digits() {
			s.syntax("in the exponent of a number")
		}
	}
}

func (s *scanner) digits() bool {
	start := s.i
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		s.i++
	}
	return s.i > start
}

// str scans a string value; a problem inside it points at the value.
func (s *scanner) str() {
	s.scanString(false)
	if s.err != nil {
		s.err.Pointer = s.pointer()
	}
}

// scanString scans the string at s.i and returns its decoded value when
// want is set.
func (s *scanner) scanString(want bool) string {
	s.esc = false
	if !want && s.clean {
		if s.skipClean() {
			return ""
		}
		// A problem: the careful way finds it and says it the same.
	}
	s.i++ // the quote
	var out []byte
	open := s.i  // the text's first byte
	start := s.i // where the text not yet copied to out begins
	// high collects the bytes seen, so that the UTF-8 of the whole string
	// is checked once, at its end, and only when it has non-ASCII bytes:
	// escapes are ASCII, so they cannot hide or make a bad sequence. A
	// problem found before the end is reported only after the text before
	// it is checked, so the first problem is the one reported.
	var high uint64
	for s.i < len(s.b) {
		// A run of text: no quote, backslash or control character, eight
		// bytes at a time.
		for s.i+8 <= len(s.b) {
			x := jsonenc.Load8(s.b, s.i)
			if !jsonenc.Text8(x) {
				break
			}
			high |= x
			s.i += 8
		}
		for s.i < len(s.b) {
			c := s.b[s.i]
			if c < 0x20 || c == '"' || c == '\\' {
				break
			}
			high |= uint64(c)
			s.i++
		}
		if s.i >= len(s.b) {
			break
		}
		c := s.b[s.i]
		switch {
		case c == '"':
			if !s.utf8(open, s.i, high) {
				return ""
			}
			var v string
			if want {
				if out == nil {
					// A view of the line, not a copy: keys live only
					// while the line is scanned, and every string made
					// from them for an error (pointer, message) is new.
					v = unsafe.String(unsafe.SliceData(s.b[start:]), s.i-start)
				} else {
					v = string(append(out, s.b[start:s.i]...))
				}
			}
			s.i++
			return v
		case c == '\\':
			s.esc = true
			if want {
				out = append(out, s.b[start:s.i]...)
			}
			at := s.i
			r, ok := s.escape()
			if !ok {
				s.utf8(open, at, high)
				return ""
			}
			if want {
				out = utf8.AppendRune(out, r)
			}
			start = s.i
		default: // a control character
			if !s.utf8(open, s.i, high) {
				return ""
			}
			s.fail(BadJSON, s.i, fmt.Sprintf("invalid JSON: unescaped %s in a string", quoteChar(rune(c))))
			return ""
		}
	}
	if s.utf8(open, len(s.b), high) {
		s.fail(BadJSON, len(s.b), "invalid JSON: the line ends inside a string")
	}
	return ""
}

// skipClean scans the string value at s.i in a clean line (valid UTF-8,
// no control character), so that only its escapes need checking: it
// looks for the closing quote and for backslashes with bytes.IndexByte,
// which the runtime does with SIMD, and checks each escape. It returns
// false, leaving s as it found it, at the first problem.
func (s *scanner) skipClean() bool {
	open := s.i
	i := open + 1
	// A short string (an id, a name, a word) ends before a call of
	// IndexByte would pay off: eight bytes at a time up to its first quote
	// or backslash (the line is clean: no control character to stop at).
	for j := i; j+8 <= len(s.b) && j-i < 48; j += 8 {
		if x := jsonenc.Load8(s.b, j); !jsonenc.Text8(x) {
			k := j
			for s.b[k] != '"' && s.b[k] != '\\' {
				k++
			}
			if s.b[k] == '"' {
				s.i = k + 1
				return true
			}
			break // an escape: the way below checks it
		}
	}
	for {
		q := bytes.IndexByte(s.b[i:], '"')
		if q < 0 {
			s.i = open
			return false
		}
		q += i
		for i <= q {
			b := bytes.IndexByte(s.b[i:q], '\\')
			if b < 0 {
				s.i = q + 1
				return true
			}
			s.i = i + b
			s.esc = true
			if _, ok := s.escape(); !ok {
				s.i, s.err = open, nil
				return false
			}
			i = s.i
		}
		// The last escape took the quote (\"): look further.
	}
}

// hasControl reports whether b holds a byte below 0x20.
func hasControl(b []byte) bool {
	const (
		lo = 0x0101010101010101
		hi = 0x8080808080808080
	)
	i := 0
	for ; i+8 <= len(b); i += 8 {
		x := jsonenc.Load8(b, i)
		if (x-0x20*lo)&^x&hi != 0 {
			return true
		}
	}
	for ; i < len(b); i++ {
		if b[i] < 0x20 {
			return true
		}
	}
	return false
}

// utf8 checks the UTF-8 of s.b[from:to], whose bytes or'ed together are
// high, and reports its first bad byte, replacing any problem reported
// after it.
func (s *scanner) utf8(from, to int, high uint64) bool {
	if s.utf8OK || high&0x8080808080808080 == 0 || utf8.Valid(s.b[from:to]) {
		return true
	}
	for j := from; j < to; {
		r, size := utf8.DecodeRune(s.b[j:to])
		if r == utf8.RuneError && size == 1 {
			s.err = nil
			s.fail(BadUTF8, j, fmt.Sprintf("invalid UTF-8 at byte %d", j+1))
			return false
		}
		j += size
	}
	return true
}

// escape reads one escape sequence at s.i (the backslash) and returns the
// character it stands for.
func (s *scanner) escape() (rune, bool) {
	at := s.i
	s.i++
	if s.i >= len(s.b) {
		s.fail(BadJSON, len(s.b), "invalid JSON: the line ends inside a string")
		return 0, false
	}
	c := s.b[s.i]
	s.i++
	switch c {
	case '"', '\\', '/':
		return rune(c), true
	case 'b':
		return '\b', true
	case 'f':
		return '\f', true
	case 'n':
		return '\n', true
	case 'r':
		return '\r', true
	case 't':
		return '\t', true
	case 'u':
		r, ok := s.hex4()
		if !ok {
			return 0, false
		}
		if utf16.IsSurrogate(r) {
			if r >= 0xDC00 || s.i+1 >= len(s.b) || s.b[s.i] != '\\' || s.b[s.i+1] != 'u' {
				s.fail(BadJSON, at, fmt.Sprintf("invalid JSON: lone surrogate \\u%04x in a string", r))
				return 0, false
			}
			s.i += 2
			lo, ok := s.hex4()
			if !ok {
				return 0, false
			}
			if lo < 0xDC00 || lo > 0xDFFF {
				s.fail(BadJSON, at, fmt.Sprintf("invalid JSON: lone surrogate \\u%04x in a string", r))
				return 0, false
			}
			return utf16.DecodeRune(r, lo), true
		}
		return r, true
	}
	s.i--
	s.syntax("after a backslash in a string")
	return 0, false
}

func (s *scanner) hex4() (rune, bool) {
	var r rune
	for j := 0; j < 4; j++ {
		if s.i >= len(s.b) {
			s.fail(BadJSON, len(s.b), "invalid JSON: the line ends inside a string")
			return 0, false
		}
		c := s.b[s.i]
		var v byte
		switch {
		case c >= '0' && c <= '9':
			v = c - '0'
		case c >= 'a' && c <= 'f':
			v = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			v = c - 'A' + 10
		default:
			s.syntax("in a \\u escape")
			return 0, false
		}
		r = r<<4 | rune(v)
		s.i++
	}
	return r, true
}

func (s *scanner) push(object bool) bool {
	if len(s.stack) >= s.max {
		// The pointer names where the deep value starts, not all of its
		// levels: a pointer of ten thousand tokens helps nobody. The
		// column is exact.
		full := len(s.stack)
		if len(s.stack) > maxPointerDepth {
			s.stack = s.stack[:maxPointerDepth]
		}
		e := s.fail(TooDeep, s.i, fmt.Sprintf("nesting deeper than %d levels (%d levels below here)", s.max, full-len(s.stack)))
		e.Pointer = s.pointer()
		return false
	}
	s.stack = append(s.stack, frame{object: object, first: len(s.keys), cont: -1})
	s.deepest = max(s.deepest, len(s.stack))
	if s.index != nil {
		s.open(&s.stack[len(s.stack)-1])
	}
	return true
}

// pop leaves the object or array that ends at s.i.
func (s *scanner) pop() {
	f := &s.stack[len(s.stack)-1]
	if s.index != nil {
		s.close(f)
	}
	if f.object {
		s.keys = s.keys[:f.first]
	}
	s.stack = s.stack[:len(s.stack)-1]
}

func (s *scanner) object() {
	if !s.push(true) {
		return
	}
	s.i++ // {
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		s.pop()
		return
	}
	for s.err == nil {
		if s.i >= len(s.b) || s.b[s.i] != '"' {
			s.syntax("where an object key belongs")
			return
		}
		at := s.i
		k := s.scanString(true)
		if s.err != nil {
			return
		}
		keyEnd, keyEsc := s.i, s.esc
		f := &s.stack[len(s.stack)-1]
		f.key = k
		if first, dup := s.seen(f, k, at); dup && (s.dupOK == nil || !s.dupOK(s.pointer())) {
			e := s.fail(DuplicateKey, at, fmt.Sprintf("duplicate key %s (first at column %d)", strconv.Quote(k), utf8.RuneCount(s.b[:first])+1))
			e.Pointer = s.pointer()
			return
		}
		s.ws()
		if s.i >= len(s.b) || s.b[s.i] != ':' {
			s.syntax("after an object key")
			return
		}
		s.i++
		s.ws()
		valStart := s.i
		s.value()
		if s.err != nil {
			return
		}
		if s.want && len(s.stack) == 1 {
			s.members = append(s.members, Member{KeyStart: int32(at), KeyEnd: int32(keyEnd), KeyEsc: keyEsc,
				ValStart: int32(valStart), ValEnd: int32(s.i), ValEsc: s.esc && s.b[valStart] == '"'})
		}
		if s.index != nil {
			s.member(&s.stack[len(s.stack)-1], Member{KeyStart: int32(at), KeyEnd: int32(keyEnd), KeyEsc: keyEsc,
				ValStart: int32(valStart), ValEnd: int32(s.i), ValEsc: s.esc && s.b[valStart] == '"'})
		}
		s.ws()
		if s.i >= len(s.b) {
			s.syntax("")
			return
		}
		switch s.b[s.i] {
		case ',':
			s.i++
			s.ws()
		case '}':
			s.i++
			s.pop()
			return
		default:
			s.syntax("after an object member")
			return
		}
	}
}

// seen records key k of the object f, first met at byte at, and reports
// where it was first met if it is a duplicate. Small objects are searched
// linearly; a large one switches to a map so that a line of many keys
// stays linear.
func (s *scanner) seen(f *frame, k string, at int) (int, bool) {
	if f.set != nil {
		if first, ok := f.set[k]; ok {
			return first, true
		}
		f.set[k] = at
		return 0, false
	}
	own := s.keys[f.first:]
	for _, old := range own {
		if old.key == k {
			return old.at, true
		}
	}
	if len(own) >= 32 {
		f.set = make(map[string]int, 64)
		for _, old := range own {
			f.set[old.key] = old.at
		}
		f.set[k] = at
		s.keys = s.keys[:f.first]
		return 0, false
	}
	s.keys = append(s.keys, seenKey{k, at})
	return 0, false
}

func (s *scanner) array() {
	if !s.push(false) {
		return
	}
	s.i++ // [
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == ']' {
		s.i++
		s.pop()
		return
	}
	for s.err == nil {
		valStart := s.i
		s.value()
		if s.err != nil {
			return
		}
		if s.index != nil {
			s.member(&s.stack[len(s.stack)-1], Member{KeyStart: int32(valStart), KeyEnd: int32(valStart),
				ValStart: int32(valStart), ValEnd: int32(s.i), ValEsc: s.esc && s.b[valStart] == '"'})
		}
		s.ws()
		if s.i >= len(s.b) {
			s.syntax("")
			return
		}
		switch s.b[s.i] {
		case ',':
			s.i++
			s.ws()
			s.stack[len(s.stack)-1].index++
		case ']':
			s.i++
			s.pop()
			return
		default:
			s.syntax("after an array element")
			return
		}
	}
}
