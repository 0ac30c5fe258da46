// Package schemacheck is a fast judge of one JSON line against one of
// evtool's own schemas. It compiles the subset of JSON Schema draft 2020-12
// those schemas use (type, enum, const, required, properties,
// additionalProperties, items, allOf, anyOf, oneOf, not, if/then/else,
// local $ref, minimum, maximum, minLength, pattern) into a tree that it
// walks over the raw line, with no map[string]any and no reflection. A
// oneOf whose branches are told apart by a const on one property (a
// tagged union, as evtool's schemas are) walks only the branch of the
// line's tag, and the "any other" branch, not every branch.
//
// It is the schema, not a second opinion: wherever its answer could differ
// from a full JSON Schema engine's (a number written with a fraction or
// an exponent, a non-string enum, a pattern Go cannot compile), it
// answers Unsure and the caller asks the engine. It answers Valid or
// Invalid only where the answer is certain, and a differential test and a
// fuzz target hold it to the engine. The engine also explains every
// Invalid line, so diagnostics are the engine's, word for word.
package schemacheck

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
	"unsafe"

	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/evtool/evtool/ndjson"
	"github.com/tidwall/gjson"
)

// Verdict is the judgement of a value.
type Verdict int

// Verdicts. In a conjunction Invalid wins over Unsure, which wins over Valid.
const (
	Valid Verdict = iota
	Unsure
	Invalid
)

func (v Verdict) String() string {
	return [...]string{"valid", "unsure", "invalid"}[v]
}

// Schema is a compiled schema.
type Schema struct {
	root *node
	tags []string // the tag of each oneOf that dispatches, for tests
}

// ErrUnsupported means the schema uses a keyword outside the subset; use a
// full engine for it.
var ErrUnsupported = errors.New("schemacheck: keyword outside the supported subset")

// Compile compiles a schema document.
func Compile(doc []byte) (*Schema, error) { return compile(doc, true) }

// compile compiles a schema document; dispatch says whether a oneOf may
// spare the branches a value certainly fails (see oneDispatch).
func compile(doc []byte, dispatch bool) (*Schema, error) {
	d := json.NewDecoder(bytes.NewReader(doc))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	c := &compiler{root: v, byPtr: map[string]*node{}}
	n, err := c.compile(v, "#")
	if err != nil {
		return nil, err
	}
	for len(c.refs) > 0 { // resolving a ref may compile, and meet, more
		r := c.refs[0]
		c.refs = c.refs[1:]
		target, err := c.resolve(r.ref)
		if err != nil {
			return nil, err
		}
		r.n.ref = target
	}
	s := &Schema{root: n}
	for _, m := range c.byPtr {
		if dispatch && len(m.oneOf) >= 2 {
			if m.oneDispatch = oneDispatchOf(m.oneOf); m.oneDispatch != nil {
				s.tags = append(s.tags, m.oneDispatch.prop)
			}
		}
	}
	return s, nil
}

// Check judges one line, which must be valid JSON.
func (s *Schema) Check(line []byte) Verdict { return s.CheckMembers(line, nil) }

// CheckMembers is Check for a line whose top-level members the syntax
// check found (ndjson.CheckMembers): they are taken from there, not read
// again, and the verdict is the same. Nil members: the line is read.
func (s *Schema) CheckMembers(line []byte, ms []ndjson.Member) Verdict {
	w := walks.Get().(*walker)
	defer w.done()
	root := jsonobj.View(line)
	if ms != nil && root.IsObject() {
		// The members' places are in the line; root begins at its first
		// byte that is not white space.
		root.Index = len(line) - len(root.Raw)
		jsonobj.ForEachRawMember(root, ms, func(k, e gjson.Result) bool {
			w.push(k, e)
			return true
		})
		w.remember(root.Raw, 0)
	}
	return s.root.check(w, root)
}

// CheckIndex is Check for a line the syntax check indexed
// (ndjson.CheckIndex): the members of its objects and the elements of its
// arrays are taken from the index, not read again, and the verdict is the
// same. A nil index: the line is read.
func (s *Schema) CheckIndex(line []byte, x *ndjson.Index) Verdict {
	w := walks.Get().(*walker)
	defer w.done()
	root := jsonobj.View(line)
	if x != nil && len(x.Containers) > 0 {
		// The index's places are in the line; root begins at its first
		// byte that is not white space.
		root.Index = len(line) - len(root.Raw)
		w.idx, w.root = x, root
	}
	return s.root.check(w, root)
}

// walker remembers the members of the objects a check has read, so that
// the keywords that read the same object (properties at the top, the
// dispatch on its type, the properties of the branch) walk it once.
//
// The members are kept on a stack, keys and vals, that grows as the check
// goes into a line and shrinks as it comes out (mark and release): the
// objects on it are the ones being checked, from the line down to the
// value at hand, so that a line of any size is checked in memory that a
// few lines have grown, with no allocation per object.
type walker struct {
	keys []string
	vals []gjson.Result
	high int // the most members held in this check, to clear at its end
	// objs are the objects read last, which are the ones asked for again.
	objs [maxWalked]walked
	next int
	// matched is the last string each pattern was matched against, and
	// the answer: a stream repeats its values (a version on every line).
	matched [maxMatched]match
	// idx, when not nil, is the index of the line root (CheckIndex).
	idx  *ndjson.Index
	root gjson.Result
}

// match is a pattern's answer for one string.
type match struct {
	re *regexp.Regexp
	s  string // a copy: the line's bytes are reused
	ok bool
}

// maxMatched bounds the patterns whose last answer a walker keeps.
const maxMatched = 4

// match reports whether re matches s, as re.MatchString does. A
// pattern's first string is kept with its answer: a value every line
// repeats (a version) is matched once, and one that differs from line
// to line (a time) costs no copy.
func (w *walker) match(re *regexp.Regexp, s string) bool {
	free := -1
	for i := range w.matched {
		m := &w.matched[i]
		if m.re == re {
			if m.s == s {
				return m.ok
			}
			return re.MatchString(s)
		}
		if m.re == nil && free < 0 {
			free = i
		}
	}
	ok := re.MatchString(s)
	if free >= 0 && len(s) <= 256 {
		w.matched[free] = match{re: re, s: strings.Clone(s), ok: ok}
	}
	return ok
}

// walked is one object's members, by their place in the line: keys and
// vals [from:to] of the walker.
type walked struct {
	raw      string
	from, to int
}

// maxWalked bounds the objects remembered.
const maxWalked = 4

// maxKept is how many members a walker keeps room for between checks; a
// freak line's stack is let go.
const maxKept = 1 << 14

var walks = sync.Pool{New: func() any { return new(walker) }}

// done returns w to the pool, holding nothing of the line.
func (w *walker) done() {
	w.high = max(w.high, len(w.keys))
	if cap(w.keys) > maxKept {
		*w = walker{}
	} else {
		clear(w.keys[:w.high])
		clear(w.vals[:w.high])
		w.keys, w.vals, w.high = w.keys[:0], w.vals[:0], 0
		for i := range w.objs {
			w.objs[i] = walked{}
		}
		w.next = 0
		w.idx, w.root = nil, gjson.Result{}
	}
	walks.Put(w)
}

// mark returns the height of the stack, for release.
func (w *walker) mark() int { return len(w.keys) }

// release drops the members of the objects read since mark m: their
// checks are over.
func (w *walker) release(m int) {
	if len(w.keys) <= m {
		return
	}
	w.high = max(w.high, len(w.keys))
	w.keys, w.vals = w.keys[:m], w.vals[:m]
	for i := range w.objs {
		if w.objs[i].to > m {
			w.objs[i] = walked{}
		}
	}
}

// push adds a member to the stack.
func (w *walker) push(k, e gjson.Result) {
	w.keys = append(w.keys, k.Str)
	w.vals = append(w.vals, e)
}

// remember makes the members on the stack from mark m the members of the
// object raw.
func (w *walker) remember(raw string, m int) {
	w.objs[w.next] = walked{raw: raw, from: m, to: len(w.keys)}
	w.next = (w.next + 1) % maxWalked
}

// members returns the keys and values of the object v. They stay valid
// until the stack is released below them.
func (w *walker) members(v gjson.Result) ([]string, []gjson.Result) {
	for i := range w.objs {
		o := &w.objs[i]
		if len(o.raw) == len(v.Raw) && len(o.raw) > 0 && unsafe.StringData(o.raw) == unsafe.StringData(v.Raw) {
			return w.keys[o.from:o.to:o.to], w.vals[o.from:o.to:o.to]
		}
	}
	from := len(w.keys)
	w.read(v)
	to := len(w.keys)
	w.remember(v.Raw, from)
	return w.keys[from:to:to], w.vals[from:to:to]
}

// read pushes the members of the object v: from the line's index when it
// has them, else read from v.
func (w *walker) read(v gjson.Result) {
	if w.idx != nil && jsonobj.ForEachRawIndexed(w.root, w.idx, v, w.pushed) {
		return
	}
	jsonobj.ForEachRaw(v, w.pushed)
}

// pushed is push for an iteration.
func (w *walker) pushed(k, e gjson.Result) bool {
	w.push(k, e)
	return true
}

// elements calls f with each element of the array v until f returns
// false, the members of an element that is an object pushed first (as
// jsonobj.ForEachRawObjects does): from the line's index when it has them.
func (w *walker) elements(v gjson.Result, f func(e gjson.Result) bool) {
	if w.idx != nil && jsonobj.ForEachRawIndexed(w.root, w.idx, v, func(_, e gjson.Result) bool {
		if e.IsObject() {
			w.read(e)
		}
		return f(e)
	}) {
		return
	}
	jsonobj.ForEachRawObjects(v, w.push, f)
}

// Type bits.
const (
	tNull = 1 << iota
	tBool
	tInteger
	tNumber // any number, integers included
	tString
	tArray
	tObject
)

// node is one compiled (sub)schema.
type node struct {
	never bool // the false schema
	types int  // 0: any

	konst, enum *set // const is a set of one

	props      map[string]*node
	required   []string
	additional *node

	items *node

	allOf, anyOf, oneOf []*node
	not                 *node
	ifN, thenN, elseN   *node
	dispatch            *dispatch
	oneDispatch         *oneDispatch

	ref *node

	min, max   *bound
	minLength  int
	hasMinLen  bool
	pattern    *regexp.Regexp
	hasPattern bool
}

// dispatch is an allOf of {"if":{"properties":{P:{"const":S}}},"then":T}
// entries on one property P: the branch is picked by P's value at once.
type dispatch struct {
	prop     string
	branches map[string]*node
}

// bound is a minimum or maximum.
type bound struct {
	r   *big.Rat
	u64 uint64  // the bound, when it is an integer in [0, MaxUint64]
	ok  bool    // u64 is set
	i64 int64   // the bound, when it is an integer in the int64 range
	iok bool    // i64 is set
	f64 float64 // the bound, when shortFloat reads it
	fok bool    // f64 is set
}

// shortFloat reads a number of at most 15 significant digits with no
// exponent, within float64's normal range. Such numbers compare as their
// float64 values do: a float64 holds every decimal of 15 digits apart from
// every other (DBL_DIG), and rounding keeps their order, so two of them
// are equal, or one is less, exactly when their float64 values are. The
// schema check compares fractions (a percentage, a cost) with it rather
// than with exact rationals, a tenth of the time.
func shortFloat(raw string) (float64, bool) {
	sig, lead := 0, true
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; {
		case c == '-' && i == 0, c == '.':
		case c == '0' && lead:
		case c >= '0' && c <= '9':
			lead = false
			sig++
		default:
			return 0, false // an exponent
		}
	}
	if sig > 15 {
		return 0, false
	}
	f, err := strconv.ParseFloat(raw, 64)
	if err != nil || (f != 0 && math.Abs(f) < 0x1p-1022) {
		return 0, false
	}
	return f, true
}

// and combines the verdicts of a conjunction.
func and(a, b Verdict) Verdict { return max(a, b) }

func (n *node) check(w *walker, v gjson.Result) Verdict {
	if n.never {
		return Invalid
	}
	r := Valid
	if n.types != 0 {
		if r = and(r, typeOK(n.types, v)); r == Invalid {
			return r
		}
	}
	for _, m := range [2]*set{n.konst, n.enum} {
		if m != nil {
			if r = and(r, m.has(v)); r == Invalid {
				return r
			}
		}
	}
	if v.IsObject() && (n.props != nil || n.required != nil || n.additional != nil) {
		if r = and(r, n.objectOK(w, v)); r == Invalid {
			return r
		}
	}
	if n.items != nil && v.IsArray() {
		// The members of an element that is an object are read as the
		// element is found, and remembered for its check.
		m := w.mark()
		w.elements(v, func(e gjson.Result) bool {
			if e.IsObject() {
				w.remember(e.Raw, m)
			}
			r = and(r, n.items.check(w, e))
			w.release(m) // the element's members: its check is over
			return r != Invalid
		})
		if r == Invalid {
			return r
		}
	}
	if v.Type == gjson.Number && (n.min != nil || n.max != nil) {
		if r = and(r, n.boundsOK(v.Raw)); r == Invalid {
			return r
		}
	}
	if v.Type == gjson.String && (n.hasMinLen || n.hasPattern) {
		if n.hasMinLen && utf8.RuneCountInString(jsonobj.Text(v)) < n.minLength {
			return Invalid
		}
		if n.hasPattern {
			// Go's regexp, as the engine evtool uses: the same answer.
			// A pattern Go cannot compile leaves it to the engine.
			switch {
			case n.pattern == nil:
				r = and(r, Unsure)
			case !w.match(n.pattern, jsonobj.Text(v)):
				return Invalid
			}
		}
	}
	if n.ref != nil {
		if r = and(r, n.ref.check(w, v)); r == Invalid {
			return r
		}
	}
	if n.dispatch != nil {
		r = and(r, n.dispatch.check(w, v))
	} else {
		for _, s := range n.allOf {
			if r = and(r, s.check(w, v)); r == Invalid {
				return r
			}
		}
	}
	if r == Invalid {
		return r
	}
	if n.anyOf != nil {
		r = and(r, anyOf(w, n.anyOf, v))
	}
	if n.oneOf != nil {
		if n.oneDispatch != nil && v.IsObject() {
			r = and(r, n.oneDispatch.check(w, n.oneOf, v))
		} else {
			r = and(r, oneOf(w, n.oneOf, v))
		}
	}
	if n.not != nil {
		r = and(r, negate(n.not.check(w, v)))
	}
	if n.ifN != nil {
		switch n.ifN.check(w, v) {
		case Valid:
			if n.thenN != nil {
				r = and(r, n.thenN.check(w, v))
			}
		case Invalid:
			if n.elseN != nil {
				r = and(r, n.elseN.check(w, v))
			}
		default:
			r = and(r, Unsure)
		}
	}
	return r
}

func (d *dispatch) check(w *walker, v gjson.Result) Verdict {
	var val gjson.Result
	found := false
	if v.IsObject() {
		keys, vals := w.members(v)
		for i, k := range keys {
			if k == d.prop {
				val, found = vals[i], true
				break
			}
		}
	}
	if !found {
		// Every "if" holds vacuously: every branch applies.
		r := Valid
		for _, b := range d.branches {
			if r = and(r, b.check(w, v)); r == Invalid {
				return r
			}
		}
		return r
	}
	if val.Type != gjson.String {
		return Valid // no const matches: no branch applies
	}
	if b := d.branches[jsonobj.Text(val)]; b != nil {
		return b.check(w, v)
	}
	return Valid
}

func anyOf(w *walker, list []*node, v gjson.Result) Verdict {
	r := Invalid
	for _, s := range list {
		switch s.check(w, v) {
		case Valid:
			return Valid
		case Unsure:
			r = Unsure
		}
	}
	return r
}

func oneOf(w *walker, list []*node, v gjson.Result) Verdict {
	valid := 0
	for _, s := range list {
		switch s.check(w, v) {
		case Valid:
			valid++
		case Unsure:
			return Unsure
		}
	}
	if valid == 1 {
		return Valid
	}
	return Invalid
}

func negate(v Verdict) Verdict {
	switch v {
	case Valid:
		return Invalid
	case Invalid:
		return Valid
	}
	return Unsure
}

func typeOK(bits int, v gjson.Result) Verdict {
	switch {
	case v.Type == gjson.Null:
		return ok(bits&tNull != 0)
	case v.Type == gjson.True || v.Type == gjson.False:
		return ok(bits&tBool != 0)
	case v.Type == gjson.String:
		return ok(bits&tString != 0)
	case v.Type == gjson.Number:
		if bits&tNumber != 0 {
			return Valid
		}
		if bits&tInteger == 0 {
			return Invalid
		}
		if plainInt(v.Raw) {
			return Valid
		}
		return Unsure // 1.0 and 1e2 are integers to JSON Schema; let the engine judge
	case v.IsArray():
		return ok(bits&tArray != 0)
	case v.IsObject():
		return ok(bits&tObject != 0)
	}
	return Unsure
}

func ok(b bool) Verdict {
	if b {
		return Valid
	}
	return Invalid
}

// smallExponent reports whether a number literal's exponent, if it has
// one, is at most 1000 in size.
func smallExponent(raw string) bool {
	i := strings.IndexAny(raw, "eE")
	if i < 0 {
		return true
	}
	e, err := strconv.Atoi(strings.TrimPrefix(raw[i+1:], "+"))
	return err == nil && e >= -1000 && e <= 1000
}

// plainInt reports whether raw is written as an integer: an optional
// minus sign and digits.
func plainInt(raw string) bool {
	s := strings.TrimPrefix(raw, "-")
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func (n *node) objectOK(w *walker, v gjson.Result) Verdict {
	r := Valid
	var seen uint64 // required keys present, by index (the first 64)
	keys, vals := w.members(v)
	m := w.mark()
	defer w.release(m) // the members of the values, once they are checked
	for j, key := range keys {
		for i, req := range n.required {
			if i < 64 && req == key {
				seen |= 1 << i
			}
		}
		if s, ok := n.props[key]; ok {
			r = and(r, s.check(w, vals[j]))
		} else if n.additional != nil {
			r = and(r, n.additional.check(w, vals[j]))
		}
		if r == Invalid {
			return r
		}
	}
	for i, req := range n.required {
		if i >= 64 {
			if !slices.Contains(keys, req) {
				return Invalid
			}
			continue
		}
		if seen&(1<<i) == 0 {
			return Invalid
		}
	}
	return r
}

// shortBounds judges raw against n's bounds when it and they are short
// floats (shortFloat), and reports whether it could.
func (n *node) shortBounds(raw string) (Verdict, bool) {
	if (n.min != nil && !n.min.fok) || (n.max != nil && !n.max.fok) {
		return Unsure, false
	}
	x, ok := shortFloat(raw)
	if !ok {
		return Unsure, false
	}
	if (n.min != nil && x < n.min.f64) || (n.max != nil && x > n.max.f64) {
		return Invalid, true
	}
	return Valid, true
}

func (n *node) boundsOK(raw string) Verdict {
	if !plainInt(raw) {
		if v, ok := n.shortBounds(raw); ok {
			return v
		}
		// A fraction or an exponent: exact arithmetic, when the exponent
		// is small enough for it to be cheap (1e999999999 is not).
		if len(raw) > 4096 || !smallExponent(raw) {
			return Unsure
		}
		x, ok := new(big.Rat).SetString(raw)
		if !ok {
			return Unsure
		}
		if n.min != nil && x.Cmp(n.min.r) < 0 {
			return Invalid
		}
		if n.max != nil && x.Cmp(n.max.r) > 0 {
			return Invalid
		}
		return Valid
	}
	neg := raw[0] == '-'
	digits := strings.TrimPrefix(raw, "-")
	// The common case: a non-negative integer of at most 19 digits against
	// bounds that are integers in the u64 range.
	if !neg && len(digits) <= 19 && (n.min == nil || n.min.ok) && (n.max == nil || n.max.ok) {
		u, err := strconv.ParseUint(digits, 10, 64)
		if err == nil {
			if n.min != nil && u < n.min.u64 {
				return Invalid
			}
			if n.max != nil && u > n.max.u64 {
				return Invalid
			}
			return Valid
		}
	}
	// An integer of the int64 range against integer bounds of it (a
	// signed count, a time offset).
	if len(digits) <= 18 && (n.min == nil || n.min.iok) && (n.max == nil || n.max.iok) {
		if x, err := strconv.ParseInt(raw, 10, 64); err == nil {
			if (n.min != nil && x < n.min.i64) || (n.max != nil && x > n.max.i64) {
				return Invalid
			}
			return Valid
		}
	}
	if len(digits) > 4096 {
		return Unsure // no big arithmetic on hostile input
	}
	x, ok := new(big.Rat).SetString(raw)
	if !ok {
		return Unsure
	}
	if n.min != nil && x.Cmp(n.min.r) < 0 {
		return Invalid
	}
	if n.max != nil && x.Cmp(n.max.r) > 0 {
		return Invalid
	}
	return Valid
}
