package codex

import (
	"encoding/json"
	"strings"

	"github.com/evtool/evtool/internal/jsonenc"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/tidwall/gjson"
)

// The residue of a line, ext.codex, is what the real line has that the
// line the encoder derives from the canonical events lacks or says
// otherwise, in two levels:
//
//   - top-level keys under their own names, as written (an unknown key, or
//     a known one whose value differs, such as a usage object with a key
//     evtool does not know), and "@absent" listing the keys the derived
//     line has and the real one lacks;
//   - for an item event, "item": the same for the keys of the item.
//
// Deeper values are compared whole: a nested value that differs is kept
// whole under its key. Values are compared as JSON (key order free,
// strings by their text, numbers by their exact literal), so a line whose
// keys are reordered leaves no residue.

// lineFallback is the residue key that holds a whole line the derivation
// cannot rebuild even with its residue; the encoder writes it as it is.
// It is a safety net: no known line needs it.
const lineFallback = "@line"

// diffLine returns the residue that turns derived into actual, or nil
// when they are the same JSON. Both are JSON objects.
func diffLine(actual, derived []byte, itemLine bool) json.RawMessage {
	var res jsonobj.Residue
	// Read in place: nothing of either line is kept (res copies what it
	// takes), and a copy of each was two more of a line's size at once.
	a, d := jsonobj.View(actual), jsonobj.View(derived)
	diffObject(a, d, &res, func(k string, av, dv gjson.Result) bool {
		if !itemLine || k != "item" || !av.IsObject() || !dv.IsObject() {
			return false
		}
		var sub jsonobj.Residue
		diffObject(av, dv, &sub, nil)
		if !sub.Empty() {
			res.Add("item", sub.Bytes())
		}
		return true
	})
	if res.Empty() {
		return nil
	}
	return res.Bytes()
}

// diffObject adds to res what turns object d into object a. A key that
// appears twice (web_search's second "id") is matched by its occurrence.
// nested may take a key over and report that it did.
func diffObject(a, d gjson.Result, res *jsonobj.Residue, nested func(k string, av, dv gjson.Result) bool) {
	dm := jsonobj.Members(d)
	used := make([]bool, len(dm))
	find := func(k string, occ int) int {
		for i, m := range dm {
			if m.Key == k {
				if occ == 0 {
					return i
				}
				occ--
			}
		}
		return -1
	}
	seen := map[string]int{}
	jsonobj.ForEach(a, func(k, av gjson.Result) bool {
		occ := seen[k.Str]
		seen[k.Str]++
		i := find(k.Str, occ)
		if i < 0 {
			key := k.Str
			if strings.HasPrefix(key, "@") {
				key = "@" + key // apart from evtool's own "@…" keys; see end
			}
			res.AddString(key, av.Raw)
			return true
		}
		used[i] = true
		if nested != nil && nested(k.Str, av, dm[i].Val) {
			return true
		}
		if !sameJSON(av, dm[i].Val) {
			res.AddString(k.Str, av.Raw)
		}
		return true
	})
	for i, m := range dm {
		if !used[i] {
			res.Absent(m.Key)
		}
	}
}

// sameJSON reports whether two values are the same JSON: numbers by their
// literal, strings by their text, objects whatever their key order.
func sameJSON(a, b gjson.Result) bool {
	if a.Raw == b.Raw {
		return true
	}
	if a.Type != b.Type {
		return false
	}
	switch a.Type {
	case gjson.String:
		return a.Str == b.Str
	case gjson.Number:
		return a.Raw == b.Raw
	case gjson.Null, gjson.True, gjson.False:
		return true
	}
	switch {
	case a.IsObject() && b.IsObject():
		am, bm := map[string]gjson.Result{}, map[string]gjson.Result{}
		dup := false
		jsonobj.ForEach(a, func(k, v gjson.Result) bool {
			_, dup = am[k.Str]
			am[k.Str] = v
			return !dup
		})
		jsonobj.ForEach(b, func(k, v gjson.Result) bool {
			if _, d := bm[k.Str]; d {
				dup = true
			}
			bm[k.Str] = v
			return !dup
		})
		if dup || len(am) != len(bm) {
			return false
		}
		for k, v := range am {
			w, ok := bm[k]
			if !ok || !sameJSON(v, w) {
				return false
			}
		}
		return true
	case a.IsArray() && b.IsArray():
		as, bs := a.Array(), b.Array()
		if len(as) != len(bs) {
			return false
		}
		for i := range as {
			if !sameJSON(as[i], bs[i]) {
				return false
			}
		}
		return true
	}
	return false
}

// split separates a line's residue into its top-level part and the
// residue of its item (nil when it has none). For a line that is not an
// item event, "item" is an unknown key like any other and stays on top.
func split(ext json.RawMessage, itemLine bool) (top, item json.RawMessage) {
	if len(ext) == 0 {
		return nil, nil
	}
	r := gjson.ParseBytes(ext)
	if !itemLine || !r.Get("item").Exists() {
		return ext, nil
	}
	out := []byte{'{'}
	first := true
	jsonobj.ForEach(r, func(k, v gjson.Result) bool {
		if k.Str == "item" {
			item = json.RawMessage(v.Raw)
			return true
		}
		out = jsonenc.Key(out, &first, k.Str)
		out = append(out, v.Raw...)
		return true
	})
	if first {
		return nil, item
	}
	return append(out, '}'), item
}

// fallback returns the residue that keeps a whole line.
func fallback(line []byte) json.RawMessage {
	var res jsonobj.Residue
	res.Add(lineFallback, line)
	return res.Bytes()
}

// withKey returns a residue object with one more key (res may be empty).
func withKey(res json.RawMessage, k string, v []byte) json.RawMessage {
	out := []byte{'{'}
	first := true
	if len(res) > 0 {
		jsonobj.ForEach(gjson.ParseBytes(res), func(rk, rv gjson.Result) bool {
			out = jsonenc.Key(out, &first, rk.Str)
			out = append(out, rv.Raw...)
			return true
		})
	}
	out = jsonenc.Key(out, &first, k)
	out = append(out, v...)
	return append(out, '}')
}
