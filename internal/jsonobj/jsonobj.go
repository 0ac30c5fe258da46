// Package jsonobj gives adapters typed access to the fields of one flat JSON
// line, and writes such lines back with their residue.
//
// Reading goes through gjson without building maps. Writing appends fields
// in the caller's order; a known field that has an entry in the residue is
// written from the residue, verbatim, which is how values the canonical
// model holds only approximately come back exactly.
package jsonobj

import (
	"encoding/json"
	"fmt"
	"slices"
	"unsafe"

	"github.com/evtool/evtool/internal/jsonenc"
	"github.com/evtool/evtool/ndjson"
	"github.com/tidwall/gjson"
)

// FieldError is a known field whose value does not fit.
type FieldError struct {
	Pointer string
	Msg     string
}

func (e *FieldError) Error() string { return e.Pointer + ": " + e.Msg }

// Position returns the JSON pointer of the offending value.
func (e *FieldError) Position() string { return e.Pointer }

// Object holds the top-level keys of one line. Reuse it from line to line.
type Object struct {
	keys []string
	vals []gjson.Result
	full []bool // vals[i] is complete (see Full)
	err  error
}

// Reset loads the keys of root, an object.
func (o *Object) Reset(root gjson.Result) {
	o.empty()
	// Values are read lazily: a line's rules may only want its keys.
	ForEachRaw(root, func(k, v gjson.Result) bool {
		o.keys = append(o.keys, k.Str)
		o.full = append(o.full, false)
		o.vals = append(o.vals, v)
		return true
	})
}

// ResetMembers loads the keys of root, an object, from where the syntax
// check found its members (ndjson.CheckMembers) in a line of the same
// bytes, rather than reading root again. It gives what Reset gives.
func (o *Object) ResetMembers(root gjson.Result, ms []ndjson.Member) {
	o.empty()
	// root is the line from its first byte that is not white space,
	// root.Index bytes in; the members' places are in the line.
	s, at := root.Raw, root.Index
	for _, m := range ms {
		o.keys = append(o.keys, content(s[int(m.KeyStart)-at:int(m.KeyEnd)-at], m.KeyEsc))
		o.full = append(o.full, false)
		o.vals = append(o.vals, rawValue(s, int(m.ValStart)-at, int(m.ValEnd)-at, m.ValEsc, at))
	}
}

// empty readies o for the next object. The members it had are cleared,
// not only cut off: a value left behind the slices' end would keep its
// line's copy alive until an object of as many members overwrote it; a
// freak object's lists are let go.
func (o *Object) empty() {
	if cap(o.vals) > maxKeptMembers {
		o.keys, o.vals, o.full = nil, nil, nil
	}
	clear(o.keys)
	clear(o.vals)
	o.keys, o.vals, o.full, o.err = o.keys[:0], o.vals[:0], o.full[:0], nil
}

// maxKeptMembers is the most members an Object keeps room for between
// objects.
const maxKeptMembers = 1024

// ForEachMember is ForEach over the object root, a line of the same bytes
// as the one whose members the syntax check found (ndjson.CheckMembers),
// from those members rather than from reading root again: the same keys
// and values, in order. Nil members read root with ForEach.
func ForEachMember(root gjson.Result, ms []ndjson.Member, f func(k, v gjson.Result) bool) {
	if ms == nil {
		ForEach(root, f)
		return
	}
	s, at := root.Raw, root.Index
	for _, m := range ms {
		k := gjson.Result{Type: gjson.String, Raw: s[int(m.KeyStart)-at : int(m.KeyEnd)-at], Index: int(m.KeyStart)}
		k.Str = content(k.Raw, m.KeyEsc)
		if !f(k, Full(rawValue(s, int(m.ValStart)-at, int(m.ValEnd)-at, m.ValEsc, at))) {
			return
		}
	}
}

// ForEachRawMember is ForEachRaw over the object root from the members
// the syntax check found (ndjson.CheckMembers) in a line of the same
// bytes, root.Index bytes into it, rather than reading root again: the
// same keys and values, in order. Nil members read root with ForEachRaw.
func ForEachRawMember(root gjson.Result, ms []ndjson.Member, f func(k, v gjson.Result) bool) {
	if ms == nil {
		ForEachRaw(root, f)
		return
	}
	s, at := root.Raw, root.Index
	for _, m := range ms {
		k := gjson.Result{Type: gjson.String, Raw: s[int(m.KeyStart)-at : int(m.KeyEnd)-at], Index: int(m.KeyStart)}
		k.Str = content(k.Raw, m.KeyEsc)
		if !f(k, rawValue(s, int(m.ValStart)-at, int(m.ValEnd)-at, m.ValEsc, at)) {
			return
		}
	}
}

// ForEachRawIndexed is ForEachRaw over v, an object or array inside root,
// from the index the syntax check made of root's line (ndjson.CheckIndex;
// root.Index bytes into it) rather than from reading v's bytes: the same
// keys (an element's index, for an array) and values, in order. It
// reports false, and calls f never, when v is not a value of root's bytes
// or not in the index: the caller reads v itself.
func ForEachRawIndexed(root gjson.Result, x *ndjson.Index, v gjson.Result, f func(k, e gjson.Result) bool) bool {
	off, ok := Offset(root, v)
	if !ok || v.Type != gjson.JSON {
		return false
	}
	ms, ok := x.Find(off, off+len(v.Raw))
	if !ok {
		return false
	}
	s, at := root.Raw, root.Index
	if v.Raw[0] == '[' {
		k := gjson.Result{Type: gjson.Number}
		for i, m := range ms {
			k.Num = float64(i)
			if !f(k, rawValue(s, int(m.ValStart)-at, int(m.ValEnd)-at, m.ValEsc, at)) {
				break
			}
		}
		return true
	}
	for _, m := range ms {
		k := gjson.Result{Type: gjson.String, Raw: s[int(m.KeyStart)-at : int(m.KeyEnd)-at], Index: int(m.KeyStart)}
		k.Str = content(k.Raw, m.KeyEsc)
		if !f(k, rawValue(s, int(m.ValStart)-at, int(m.ValEnd)-at, m.ValEsc, at)) {
			break
		}
	}
	return true
}

// Offset returns where v, a value whose Raw is part of root's, begins in
// root's line (root.Index bytes into it), and whether it is part of it:
// found by the place of its bytes in memory, not by its Index, which a
// Result made elsewhere need not have set.
func Offset(root, v gjson.Result) (int, bool) {
	if len(v.Raw) == 0 || len(root.Raw) == 0 {
		return 0, false
	}
	p, base := uintptr(unsafe.Pointer(unsafe.StringData(v.Raw))), uintptr(unsafe.Pointer(unsafe.StringData(root.Raw)))
	if p < base || p-base > uintptr(len(root.Raw)-len(v.Raw)) || len(v.Raw) > len(root.Raw) {
		return 0, false
	}
	return int(p-base) + root.Index, true
}

// rawValue is the Result ForEachRaw gives for the value s[i:end] of an
// object whose Index is base.
func rawValue(s string, i, end int, esc bool, base int) gjson.Result {
	v := gjson.Result{Raw: s[i:end], Index: base + i}
	switch c := s[i]; {
	case c == '"':
		v.Type = gjson.String
		if !esc {
			v.Str = v.Raw[1 : len(v.Raw)-1]
		}
	case c == '{' || c == '[':
		v.Type = gjson.JSON
	case c == 't':
		v.Type, v.Raw = gjson.True, "true"
	case c == 'f':
		v.Type, v.Raw = gjson.False, "false"
	case c == 'n':
		v.Type, v.Raw = gjson.Null, "null"
	default:
		v.Type = gjson.Number
	}
	return v
}

// Len returns the number of keys.
func (o *Object) Len() int { return len(o.keys) }

// First returns the value of the first member named k, completed, as
// Lookup finds it (Get finds the last), and whether there is one.
func (o *Object) First(k string) (gjson.Result, bool) {
	for i, key := range o.keys {
		if key == k {
			return o.val(i), true
		}
	}
	return gjson.Result{}, false
}

// At returns the i-th key and its value.
func (o *Object) At(i int) (string, gjson.Result) { return o.keys[i], o.val(i) }

// Member returns the i-th key and its value's raw JSON, without reading
// the value: for keeping fields a reader does not know.
func (o *Object) Member(i int) (key, raw string) { return o.keys[i], o.vals[i].Raw }

// val returns the i-th value whole (see Full), completing it once.
func (o *Object) val(i int) gjson.Result {
	if !o.full[i] {
		o.vals[i], o.full[i] = Full(o.vals[i]), true
	}
	return o.vals[i]
}

// Err returns the first field error met, if any.
func (o *Object) Err() error { return o.err }

// Get returns the value of a key; the last occurrence wins.
func (o *Object) Get(k string) (gjson.Result, bool) {
	for i := len(o.keys) - 1; i >= 0; i-- {
		if o.keys[i] == k {
			return o.val(i), true
		}
	}
	return gjson.Result{}, false
}

// Fail records a field error unless one is recorded already.
func (o *Object) Fail(ptr, format string, args ...any) {
	if o.err == nil {
		o.err = &FieldError{Pointer: ptr, Msg: fmt.Sprintf(format, args...)}
	}
}

// Str reads a string field; ok is false when the key is absent.
func (o *Object) Str(k string) (s string, ok bool) {
	v, ok := o.Get(k)
	if !ok {
		return "", false
	}
	if v.Type != gjson.String {
		o.Fail("/"+k, "must be a string")
		return "", false
	}
	return v.Str, true
}

// NullableStr reads a field that is a string or null; ok is false when the
// key is absent or null.
func (o *Object) NullableStr(k string) (string, bool) {
	v, ok := o.Get(k)
	if !ok || v.Type == gjson.Null {
		return "", false
	}
	return o.Str(k)
}

// OptStr reads an optional string. The canonical model omits empty strings,
// so a present "" is kept in the residue to come back as written.
func (o *Object) OptStr(k string, res *Residue) string {
	v, ok := o.Str(k)
	if ok && v == "" {
		res.Add(k, []byte(`""`))
	}
	return v
}

// U64 reads a non-negative integer field, exactly; nil when absent.
func (o *Object) U64(k string) *uint64 {
	v, ok := o.Get(k)
	if !ok {
		return nil
	}
	return o.u64(v, "/"+k)
}

// NullableU64 reads a field that is a non-negative integer or null; nil when
// absent or null.
func (o *Object) NullableU64(k string) *uint64 {
	v, ok := o.Get(k)
	if !ok || v.Type == gjson.Null {
		return nil
	}
	return o.u64(v, "/"+k)
}

func (o *Object) u64(v gjson.Result, ptr string) *uint64 {
	n, msg := ParseUint(v, U64)
	if msg != "" {
		o.Fail(ptr, "%s", msg)
		return nil
	}
	return &n
}

// Bool reads a boolean field; nil when absent.
func (o *Object) Bool(k string) *bool {
	v, ok := o.Get(k)
	if !ok {
		return nil
	}
	if !v.IsBool() {
		o.Fail("/"+k, "must be true or false")
		return nil
	}
	b := v.Bool()
	return &b
}

// Raw returns a field's raw JSON; nil when absent.
func (o *Object) Raw(k string) json.RawMessage {
	v, ok := o.Get(k)
	if !ok {
		return nil
	}
	return json.RawMessage(v.Raw)
}

// RawShared is Raw without the copy: the value's bytes where they lie.
// Only for an Object over memory its caller made for the events it reads
// and never changes (a line copied once for them); the slice is capped at
// its length, so an append to it copies rather than writing over the
// bytes after it.
func (o *Object) RawShared(k string) json.RawMessage {
	v, ok := o.Get(k)
	if !ok {
		return nil
	}
	if v.Raw == "" {
		return json.RawMessage{}
	}
	return unsafe.Slice(unsafe.StringData(v.Raw), len(v.Raw))
}

// Strings reads an array of strings. An explicitly empty array goes to the
// residue, since the canonical model omits empty lists.
func (o *Object) Strings(k string, res *Residue) []string {
	v, ok := o.Get(k)
	if !ok {
		return nil
	}
	if !v.IsArray() {
		o.Fail("/"+k, "must be an array of strings")
		return nil
	}
	var out []string
	i := 0
	ForEach(v, func(_, e gjson.Result) bool {
		if e.Type != gjson.String {
			o.Fail(fmt.Sprintf("/%s/%d", k, i), "must be a string")
			return false
		}
		out = append(out, e.Str)
		i++
		return true
	})
	if out == nil {
		res.Add(k, []byte(v.Raw))
	}
	return out
}

// Shape names the keys of a nested object type.
type Shape struct {
	Known    []string // every key the type has
	Required []string // keys the producer always writes
	// Exact lists keys whose "" the canonical model cannot tell apart from
	// absence; an element holding one such (or a null there, unless the key
	// is Nullable) is kept whole in the residue.
	Exact []string
	// Nullable lists keys the producer writes as null when absent.
	Nullable []string
}

// Each calls f for every element of an array of objects. It keeps the whole
// original array in the residue when an element has a key outside the
// shape, lacks a required key, or holds an Exact key, so that the array is
// written back as it was read. It reports whether the key was present.
func (o *Object) Each(k string, s Shape, res *Residue, f func(ptr string, e gjson.Result)) bool {
	v, ok := o.Get(k)
	if !ok {
		return false
	}
	if !v.IsArray() {
		o.Fail("/"+k, "must be an array")
		return false
	}
	keep := false
	i := 0
	ForEach(v, func(_, e gjson.Result) bool {
		ptr := fmt.Sprintf("/%s/%d", k, i)
		if !e.IsObject() {
			o.Fail(ptr, "must be an object")
			return false
		}
		if !s.fits(e) {
			keep = true
		}
		f(ptr, e)
		i++
		return true
	})
	if keep {
		res.Add(k, []byte(v.Raw))
	}
	return true
}

func (s Shape) fits(e gjson.Result) bool {
	fits := true
	ForEach(e, func(k, v gjson.Result) bool {
		if !slices.Contains(s.Known, k.Str) {
			fits = false
		}
		if slices.Contains(s.Exact, k.Str) && ((v.Type == gjson.Null && !slices.Contains(s.Nullable, k.Str)) || (v.Type == gjson.String && v.Str == "")) {
			fits = false
		}
		if v.Type == gjson.Null && !slices.Contains(s.Nullable, k.Str) {
			fits = false // a null where the producer writes none
		}
		return fits
	})
	for _, k := range s.Required {
		if !Lookup(e, k).Exists() {
			fits = false
		}
	}
	return fits
}

// Field reads a string key of a nested object e at ptr ("" when absent or null).
func (o *Object) Field(ptr string, e gjson.Result, k string) string {
	v := Lookup(e, k)
	if !v.Exists() || v.Type == gjson.Null {
		return ""
	}
	if v.Type != gjson.String {
		o.Fail(ptr+"/"+k, "must be a string")
	}
	return v.Str
}

// FieldU64 reads an integer key of a nested object e at ptr (nil when absent or null).
func (o *Object) FieldU64(ptr string, e gjson.Result, k string) *uint64 {
	v := Lookup(e, k)
	if !v.Exists() || v.Type == gjson.Null {
		return nil
	}
	return o.u64(v, ptr+"/"+k)
}

// AbsentKey is the residue key listing fields a producer normally writes
// (often as null) that a line did not have at all, such as the fields older
// recordings predate. Residue keys starting with '@' are evtool's own.
const AbsentKey = "@absent"

// Residue collects an ext.<dialect> object, in input order.
type Residue struct {
	buf    []byte
	absent []string
}

// Absent records that a normally written key was missing from the line.
func (r *Residue) Absent(k string) { r.absent = append(r.absent, k) }

// Reset empties the residue for reuse.
func (r *Residue) Reset() { r.buf, r.absent = r.buf[:0], r.absent[:0] }

// Add appends a key and its raw value.
func (r *Residue) Add(k string, raw []byte) { addRaw(r, k, raw) }

// AddString is Add of a raw value held in a string (a gjson value's Raw),
// which Add would need copied first.
func (r *Residue) AddString(k, raw string) { addRaw(r, k, raw) }

func addRaw[T ~string | ~[]byte](r *Residue, k string, raw T) {
	if len(r.buf) == 0 {
		r.buf = append(r.buf, '{')
	} else {
		r.buf = append(r.buf, ',')
	}
	r.buf = jsonenc.String(r.buf, k)
	r.buf = append(r.buf, ':')
	r.buf = append(r.buf, raw...)
}

// Empty reports whether nothing was added.
func (r *Residue) Empty() bool { return len(r.buf) == 0 && len(r.absent) == 0 }

// Bytes returns a copy of the residue object.
func (r *Residue) Bytes() json.RawMessage {
	n := len(r.buf) + 1 // the closing brace
	if len(r.absent) > 0 {
		n += len(AbsentKey) + 8
		for _, k := range r.absent {
			n += len(k) + 3
		}
	}
	out := Residue{buf: append(make([]byte, 0, n), r.buf...)}
	if len(r.absent) > 0 {
		list := []byte{'['}
		for i, k := range r.absent {
			if i > 0 {
				list = append(list, ',')
			}
			list = jsonenc.String(list, k)
		}
		out.Add(AbsentKey, append(list, ']'))
	}
	return append(out.buf, '}')
}

// Word reads a string field that holds one of a dialect's words for a
// canonical vocabulary, and returns the canonical value table gives it. A
// word the table lacks (a newer producer's) is kept in the residue, so
// that it is written back as it was, and def stands for it. An absent
// field gives the zero value.
func Word[T ~string](o *Object, k string, table map[string]T, def T, res *Residue) T {
	v, ok := o.Str(k)
	if !ok {
		return ""
	}
	if w, ok := table[v]; ok {
		return w
	}
	res.Add(k, jsonenc.String(nil, v))
	return def
}

// View parses a line without copying it, which gjson.ParseBytes does. The
// result aliases line: a string taken from it must be cloned before line
// changes (a reused buffer) if it is kept. For checks that keep nothing,
// or clone what they keep.
func View(line []byte) gjson.Result {
	if len(line) == 0 {
		return gjson.Result{}
	}
	return gjson.Parse(unsafe.String(unsafe.SliceData(line), len(line)))
}

// OpenMembers is Open with the members the syntax check found in the
// line (ndjson.CheckMembers), root being a line of the same bytes; nil
// members read root as Open does.
func (o *Object) OpenMembers(root gjson.Result, ms []ndjson.Member, what string) (string, error) {
	if ms == nil || !root.IsObject() {
		return o.Open(root, what)
	}
	o.ResetMembers(root, ms)
	return o.opened()
}

// Open begins the reading of a line that must be an object whose "type"
// member, a non-empty string, says what it is: it loads root into o and
// returns that type. what names the line in the error for one that is not
// an object ("a basis line").
func (o *Object) Open(root gjson.Result, what string) (string, error) {
	if !root.IsObject() {
		return "", &FieldError{Msg: what + " must be a JSON object"}
	}
	o.Reset(root)
	return o.opened()
}

// opened returns the type of a line loaded into o.
func (o *Object) opened() (string, error) {
	typ, _ := o.Str("type")
	if o.Err() != nil {
		return "", o.Err()
	}
	if typ == "" {
		return "", &FieldError{Pointer: "/type", Msg: "missing event type"}
	}
	return typ, nil
}

// KeepUnknown adds to res, in order, each member of o whose key known
// rejects: the fields a dialect's reader does not read, kept so that the
// line is written back whole.
func (o *Object) KeepUnknown(res *Residue, known func(k string) bool) {
	for i := range o.keys {
		if k, raw := o.Member(i); !known(k) {
			res.Add(k, []byte(raw))
		}
	}
}

// KeepAbsent records in res each of keys that o lacks, so that a writer
// that would write the key (as null, say) leaves it out as the line did.
func (o *Object) KeepAbsent(res *Residue, keys []string) {
	for _, k := range keys {
		if _, ok := o.Get(k); !ok {
			res.Absent(k)
		}
	}
}

// ParseLine parses a line as gjson.ParseBytes does. own says that the
// line's bytes are a buffer of their own that nothing writes again (what
// package stream tells a decoder through UseOwn): the line is then read
// in place instead of copied, and what is kept of it keeps that line
// alive, as it would keep the copy.
func ParseLine(line []byte, own bool) gjson.Result {
	if own && len(line) > 0 {
		return gjson.Parse(unsafe.String(&line[0], len(line)))
	}
	return gjson.ParseBytes(line)
}

// OwnLine is embedded by a decoder that reads a line of its own in place:
// it implements UseOwn, which package stream calls before each Decode, and
// the decoder then asks Own or ParseLine of the line it reads.
type OwnLine struct{ own bool }

// UseOwn says whether the line the next Decode reads is a buffer of its
// own that nothing writes again (package stream says so of a long line).
func (o *OwnLine) UseOwn(own bool) { o.own = own }

// Own reports what UseOwn said of the line being read, and forgets it.
func (o *OwnLine) Own() bool {
	own := o.own
	o.own = false
	return own
}

// ParseLine parses the line being read: in place when it is its own (see
// the function ParseLine), else a copy.
func (o *OwnLine) ParseLine(line []byte) gjson.Result { return ParseLine(line, o.Own()) }
