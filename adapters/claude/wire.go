package claude

import (
	"slices"
	"strconv"

	"github.com/evtool/evtool/internal/jsonenc"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/tidwall/gjson"
)

// A Claude Code line is rebuilt in two steps: the encoder derives a line
// from canonical events (derive.go), then applies the residue the decoder
// kept in ext.claude. The residue is the difference between the source line
// and the derived one, computed by the decoder with the same derivation, so
// that applying it gives back the source line exactly.
//
// The residue of a line is a patch object. Its keys are the line's keys
// whose value differs from the derived one, or that the derived line lacks
// (unknown fields, under their own names, in input order), plus evtool's
// own bookkeeping keys, which start with '@':
//
//	@absent  keys the derived line has and the source line lacks
//	@at      for each added key, in order, the key it follows in the
//	         source ("" for the first place), when not every added key
//	         comes last
//	@keys    the source's key order, when the derived keys come in
//	         another order in the source
//	@items   for an array of the derived length: index → patch of that item
//	@value   a value that replaces the derived one whole, where a plain
//	         value would be read as a patch (an object for an array)
//
// The value of a key present in both lines is read against the derived
// value: a patch object patches a derived object, an object with @items
// patches a derived array, and anything else replaces the derived value.
// A source key that starts with '@', or is "before" (see decode.go), is
// kept under one more '@'.
//
// Values are compared by their bytes, so a string written with other
// escapes, or a number written as 1.0, comes back as it was written; white
// space between tokens is not kept (lines come back compact).

// kv is one key of an object under construction, with its raw value.
type kv struct {
	k string
	v []byte
}

// obj is a JSON object under construction, in key order.
type obj []kv

// set adds a key, or replaces its value when it is there already.
func (o *obj) set(k string, v []byte) {
	for i := range *o {
		if (*o)[i].k == k {
			(*o)[i].v = v
			return
		}
	}
	*o = append(*o, kv{k, v})
}

func (o *obj) str(k, s string) { o.set(k, jsonenc.String(nil, s)) }
func (o *obj) uint(k string, n uint64) {
	o.set(k, jsonenc.Uint(nil, n))
}
func (o *obj) boolean(k string, b bool) { o.set(k, jsonenc.Bool(nil, b)) }
func (o *obj) null(k string)            { o.set(k, []byte("null")) }
func (o *obj) sub(k string, s obj)      { o.set(k, s.bytes(nil)) }

// bytes appends the object's JSON to dst.
func (o obj) bytes(dst []byte) []byte {
	first := true
	dst = append(dst, '{')
	for _, e := range o {
		dst = jsonenc.Key(dst, &first, e.k)
		dst = append(dst, e.v...)
	}
	return append(dst, '}')
}

// array appends a JSON array of raw values to dst.
func array(dst []byte, items ...[]byte) []byte {
	dst = append(dst, '[')
	for i, it := range items {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, it...)
	}
	return append(dst, ']')
}

// strings renders a list of strings as a JSON array.
func stringsArray(ss []string) []byte {
	b := []byte{'['}
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonenc.String(b, s)
	}
	return append(b, ']')
}

// Bookkeeping keys of a patch.
const (
	keyAbsent = "@absent"
	keyKeys   = "@keys"
	keyItems  = "@items"
	keyValue  = "@value"
	keyAt     = "@at"
	keyMore   = "@more"
	keyKind   = "@kind"
	keyAfter  = "@after"
)

func reserved(k string) bool {
	switch k {
	case keyAbsent, keyKeys, keyItems, keyValue, keyAt, keyMore, keyKind, keyAfter:
		return true
	}
	return false
}

// escape names a source key in a patch.
func escape(k string) string {
	if k == "before" || (len(k) > 0 && k[0] == '@') {
		return "@" + k
	}
	return k
}

// unescape returns the source key a patch key names, or "", false for a
// bookkeeping key.
func unescape(p string) (string, bool) {
	if reserved(p) || p == "before" {
		return "", false
	}
	if len(p) > 0 && p[0] == '@' {
		return p[1:], true
	}
	return p, true
}

// members returns the keys and values of an object, in order.
func members(r gjson.Result) ([]string, []gjson.Result) {
	var ks []string
	var vs []gjson.Result
	jsonobj.ForEach(r, func(k, v gjson.Result) bool {
		ks = append(ks, k.Str)
		vs = append(vs, v)
		return true
	})
	return ks, vs
}

// diff returns the patch that turns the derived value into the source
// value, and false when there is nothing to patch.
func diff(derived, source gjson.Result) ([]byte, bool) {
	if derived.Raw == source.Raw {
		return nil, false
	}
	switch {
	case derived.IsObject() && source.IsObject():
		return diffObject(derived, source)
	case derived.IsArray() && source.IsArray():
		d, s := derived.Array(), source.Array()
		if len(d) != len(s) {
			return []byte(source.Raw), true
		}
		var items obj
		for i := range d {
			if p, ok := diff(d[i], s[i]); ok {
				items.set(strconv.Itoa(i), p)
			}
		}
		if len(items) == 0 {
			return nil, false // the same up to white space
		}
		var p obj
		p.sub(keyItems, items)
		return p.bytes(nil), true
	case source.IsObject():
		// An object in place of an array or a plain value: wrapped, so
		// that its own keys are not read as bookkeeping.
		var p obj
		p.set(keyValue, []byte(source.Raw))
		return p.bytes(nil), true
	}
	return []byte(source.Raw), true
}

func diffObject(derived, source gjson.Result) ([]byte, bool) {
	dk, dv := members(derived)
	sk, sv := members(source)
	seen := make(map[string]bool, len(sk))
	for _, k := range sk {
		seen[k] = true
	}
	var p obj
	var kept, absent []string
	for i, k := range dk {
		if !seen[k] {
			absent = append(absent, k)
			continue
		}
		kept = append(kept, k)
		if patch, ok := diff(dv[i], sv[slices.Index(sk, k)]); ok {
			p.set(escape(k), patch)
		}
	}
	var added, anchors []string
	anchor := ""
	for j, k := range sk {
		if slices.Contains(dk, k) {
			anchor = k
			continue
		}
		added = append(added, k)
		anchors = append(anchors, anchor)
		p.set(escape(k), []byte(sv[j].Raw))
	}
	if len(absent) > 0 {
		p.set(keyAbsent, stringsArray(absent))
	}
	last := ""
	if len(kept) > 0 {
		last = kept[len(kept)-1]
	}
	atEnd := true
	for _, a := range anchors {
		atEnd = atEnd && a == last
	}
	switch {
	case !slices.Equal(placeAdded(kept, added, anchors), sk):
		p.set(keyKeys, stringsArray(sk))
	case !atEnd:
		p.set(keyAt, stringsArray(anchors))
	}
	if len(p) == 0 {
		return nil, false
	}
	return p.bytes(nil), true
}

// placeAdded returns the kept keys with each added key after its anchor
// (the kept key before it in the source, "" for the start), in order.
func placeAdded(kept, added, anchors []string) []string {
	out := make([]string, 0, len(kept)+len(added))
	put := func(a string) {
		for i, k := range added {
			if i < len(anchors) && anchors[i] == a {
				out = append(out, k)
			}
		}
	}
	put("")
	for _, k := range kept {
		out = append(out, k)
		if k != "" {
			put(k)
		}
	}
	return out
}

// apply returns the derived value with the patch applied.
func apply(dst []byte, derived, patch gjson.Result) []byte {
	if patch.IsObject() {
		if v := jsonobj.Lookup(patch, keyValue); v.Exists() {
			return append(dst, v.Raw...)
		}
		switch {
		case derived.IsObject():
			return applyObject(dst, derived, patch)
		case derived.IsArray():
			items := jsonobj.Lookup(patch, keyItems)
			d := derived.Array()
			dst = append(dst, '[')
			for i, e := range d {
				if i > 0 {
					dst = append(dst, ',')
				}
				if ip := items.Get(strconv.Itoa(i)); ip.Exists() {
					dst = apply(dst, e, ip)
				} else {
					dst = append(dst, e.Raw...)
				}
			}
			return append(dst, ']')
		}
	}
	if !patch.Exists() {
		return append(dst, derived.Raw...)
	}
	return append(dst, patch.Raw...)
}

func applyObject(dst []byte, derived, patch gjson.Result) []byte {
	strs := func(k string) ([]string, bool) {
		v := jsonobj.Lookup(patch, k)
		var out []string
		jsonobj.ForEach(v, func(_, e gjson.Result) bool {
			out = append(out, e.Str)
			return true
		})
		return out, v.IsArray()
	}
	absent, _ := strs(keyAbsent)
	dk, dv := members(derived)
	vals := map[string][]byte{}
	var kept, added []string
	for i, k := range dk {
		if slices.Contains(absent, k) || vals[k] != nil {
			continue
		}
		if p := jsonobj.Lookup(patch, escape(k)); p.Exists() {
			vals[k] = apply(nil, dv[i], p)
		} else {
			vals[k] = []byte(dv[i].Raw)
		}
		kept = append(kept, k)
	}
	jsonobj.ForEach(patch, func(pk, pv gjson.Result) bool {
		k, ok := unescape(pk.Str)
		if ok && !slices.Contains(dk, k) && vals[k] == nil {
			vals[k] = []byte(pv.Raw)
			added = append(added, k)
		}
		return true
	})
	var order []string
	if keys, ok := strs(keyKeys); ok {
		for _, k := range keys {
			if vals[k] != nil && !slices.Contains(order, k) {
				order = append(order, k)
			}
		}
		for _, k := range append(kept, added...) {
			if !slices.Contains(order, k) {
				order = append(order, k)
			}
		}
	} else if anchors, ok := strs(keyAt); ok && len(anchors) == len(added) {
		order = placeAdded(kept, added, anchors)
	} else {
		order = append(kept, added...)
	}
	first := true
	dst = append(dst, '{')
	for _, k := range order {
		dst = jsonenc.Key(dst, &first, k)
		dst = append(dst, vals[k]...)
	}
	return append(dst, '}')
}
