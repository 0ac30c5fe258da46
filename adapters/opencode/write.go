package opencode

import (
	"slices"

	"github.com/evtool/evtool/internal/jsonenc"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/tidwall/gjson"
)

// obj writes one JSON object into a shared buffer, taking from its residue
// (the ext.opencode object of its level) every key the residue holds: a
// key the source line lacked stays out, a value the canonical event holds
// only approximately comes back as written, and the source's unknown keys
// follow the known ones in input order.
type obj struct {
	b     *[]byte
	first bool
	res   gjson.Result
	done  []string
}

// open starts an object whose residue is res (which may not exist).
func open(b *[]byte, res gjson.Result) *obj {
	*b = append(*b, '{')
	return &obj{b: b, first: true, res: res}
}

func (o *obj) key(k string) {
	if o.first {
		o.first = false
	} else {
		*o.b = append(*o.b, ',')
	}
	*o.b = append(jsonenc.String(*o.b, k), ':')
	o.done = append(o.done, k)
}

// absent reports whether the source line lacked key k.
func (o *obj) absent(k string) bool {
	found := false
	jsonobj.ForEach(o.res.Get(jsonobj.AbsentKey), func(_, v gjson.Result) bool {
		found = v.Str == k
		return !found
	})
	return found
}

// kept returns the residue value of key k.
func (o *obj) kept(k string) (gjson.Result, bool) {
	if !o.res.IsObject() {
		return gjson.Result{}, false
	}
	v := jsonobj.Lookup(o.res, k)
	return v, v.Exists()
}

// field writes key k: the residue's value when it has one, else write's
// (nothing when write is nil), and nothing when the source lacked it.
func (o *obj) field(k string, write func()) {
	if o.absent(k) {
		o.done = append(o.done, k)
		return
	}
	if v, ok := o.kept(k); ok {
		o.key(k)
		*o.b = append(*o.b, v.Raw...)
		return
	}
	if write == nil {
		return
	}
	o.key(k)
	write()
}

// str writes a string field.
func (o *obj) str(k, v string) { o.field(k, func() { *o.b = jsonenc.String(*o.b, v) }) }

// raw writes a field whose value is raw JSON.
func (o *obj) raw(k string, v []byte) { o.field(k, func() { *o.b = append(*o.b, v...) }) }

// opt writes a field only from the residue.
func (o *obj) opt(k string) { o.field(k, nil) }

// sub writes a nested object whose residue is the residue's value of k.
func (o *obj) sub(k string, f func(*obj)) {
	if o.absent(k) {
		o.done = append(o.done, k)
		return
	}
	o.key(k)
	at := len(*o.b)
	s := open(o.b, jsonobj.Lookup(o.res, k))
	f(s)
	s.close()
	if keys := jsonobj.Lookup(s.res, keyKeys); keys.IsArray() {
		*o.b = append((*o.b)[:at], reorder((*o.b)[at:], keys)...)
	}
}

// reorder returns a compact object with its keys in the order keys
// names, the others after them as they were.
func reorder(obj []byte, keys gjson.Result) []byte {
	type member struct{ k, raw string }
	var ms []member
	r := gjson.ParseBytes(obj)
	jsonobj.ForEach(r, func(k, v gjson.Result) bool {
		ms = append(ms, member{k.Str, k.Raw + ":" + v.Raw})
		return true
	})
	out := make([]byte, 0, len(obj))
	out = append(out, '{')
	used := make([]bool, len(ms))
	add := func(i int) {
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(out, ms[i].raw...)
		used[i] = true
	}
	jsonobj.ForEach(keys, func(_, k gjson.Result) bool {
		for i, m := range ms {
			if !used[i] && m.k == k.Str {
				add(i)
				break
			}
		}
		return true
	})
	for i := range ms {
		if !used[i] {
			add(i)
		}
	}
	return append(out, '}')
}

// close writes the residue keys nothing wrote, in residue order, and
// closes the object. evtool's own keys ('@') and the lines held before an
// event are not the object's.
func (o *obj) close() {
	if o.res.IsObject() {
		jsonobj.ForEach(o.res, func(k, v gjson.Result) bool {
			if k.Str == keyBefore || (k.Str != "" && k.Str[0] == '@') || slices.Contains(o.done, k.Str) {
				return true
			}
			o.key(k.Str)
			*o.b = append(*o.b, v.Raw...)
			return true
		})
	}
	*o.b = append(*o.b, '}')
}
