package jsonobj

import (
	"encoding/json"
	"slices"

	"github.com/evtool/evtool/internal/jsonenc"
	"github.com/tidwall/gjson"
)

type extField struct {
	key  string
	raw  string
	used bool
}

// Writer appends one flat JSON object. Reuse it from line to line.
type Writer struct {
	B      []byte
	ext    []extField
	absent []string
	first  bool
	// Spill, when its W is set, writes a long value (jsonenc.LongValue
	// bytes or more: a text, a raw value) at once, after B, which is then
	// emptied: a line with a text of 500 MB is in memory as the text, not
	// again as the line. The caller writes what End returns to Spill.W to
	// finish the line. Set it only where B goes to Spill.W in order, never
	// on a Writer whose B is copied into another line.
	Spill jsonenc.Spill
}

// SpillErr returns the first error of writing to Spill.W.
func (w *Writer) SpillErr() error { return w.Spill.Err }

// Begin starts a line with the residue of its event (may be nil).
func (w *Writer) Begin(residue json.RawMessage) {
	w.B = append(w.B[:0], '{')
	w.first, w.Spill.Err = true, nil
	w.ext, w.absent = w.ext[:0], w.absent[:0]
	if len(residue) > 0 {
		ForEach(gjson.ParseBytes(residue), func(k, v gjson.Result) bool {
			if k.Str == AbsentKey {
				ForEach(v, func(_, a gjson.Result) bool {
					w.absent = append(w.absent, a.Str)
					return true
				})
				return true
			}
			w.ext = append(w.ext, extField{key: k.Str, raw: v.Raw})
			return true
		})
	}
}

// Absent reports whether the residue says the source line lacked key k.
func (w *Writer) Absent(k string) bool { return slices.Contains(w.absent, k) }

// Residue returns the residue value of a key.
func (w *Writer) Residue(k string) (string, bool) {
	for _, f := range w.ext {
		if f.key == k {
			return f.raw, true
		}
	}
	return "", false
}

// Use marks a residue key as consumed, so End does not write it.
func (w *Writer) Use(k string) {
	for i := range w.ext {
		if w.ext[i].key == k {
			w.ext[i].used = true
		}
	}
}

// Has reports whether the residue has a key.
func (w *Writer) Has(k string) bool {
	_, ok := w.Residue(k)
	return ok
}

// Key writes a key and reports whether the caller must write the value: it
// returns false when the value came from the residue.
func (w *Writer) Key(k string) bool {
	w.B = jsonenc.Key(w.B, &w.first, k)
	for i := range w.ext {
		if f := &w.ext[i]; f.key == k {
			f.used = true
			w.B = w.Spill.VerbatimString(w.B, f.raw)
			return false
		}
	}
	return true
}

// Str writes a string field, or nothing when the residue says the source
// line lacked the key: the residue is authoritative for its line.
func (w *Writer) Str(k, v string) {
	if w.Absent(k) {
		return
	}
	if w.Key(k) {
		w.B = w.Spill.String(w.B, v)
	}
}

// OptStr writes a string field unless it is empty and not in the residue.
func (w *Writer) OptStr(k, v string) {
	if v != "" || w.Has(k) {
		w.Str(k, v)
	}
}

// NullStr writes a string field, or null when it is empty, or nothing when
// the residue says the source line lacked the key.
func (w *Writer) NullStr(k, v string) {
	if w.Absent(k) {
		return
	}
	if w.Key(k) {
		if v == "" {
			w.B = append(w.B, "null"...)
		} else {
			w.B = w.Spill.String(w.B, v)
		}
	}
}

// Uint writes an integer field.
func (w *Writer) Uint(k string, v uint64) {
	if w.Key(k) {
		w.B = jsonenc.Uint(w.B, v)
	}
}

// OptUint writes an integer field when it is set or in the residue.
func (w *Writer) OptUint(k string, v *uint64) {
	if v != nil {
		w.Uint(k, *v)
	} else if w.Has(k) {
		w.Key(k)
	}
}

// NullUint writes an integer field, or null when it is not set, or nothing
// when the residue says the source line lacked the key.
func (w *Writer) NullUint(k string, v *uint64) {
	if w.Absent(k) {
		return
	}
	if w.Key(k) {
		if v == nil {
			w.B = append(w.B, "null"...)
		} else {
			w.B = jsonenc.Uint(w.B, *v)
		}
	}
}

// Bool writes a boolean field.
func (w *Writer) Bool(k string, v bool) {
	if w.Key(k) {
		w.B = jsonenc.Bool(w.B, v)
	}
}

// Raw writes a raw JSON field, null when v is empty.
func (w *Writer) Raw(k string, v json.RawMessage) {
	if w.Key(k) {
		if len(v) == 0 {
			w.B = append(w.B, "null"...)
		} else {
			w.B = w.Spill.Verbatim(w.B, v)
		}
	}
}

// OptRaw writes a raw JSON field when it is set or in the residue.
func (w *Writer) OptRaw(k string, v json.RawMessage) {
	if len(v) > 0 || w.Has(k) {
		w.Raw(k, v)
	}
}

// Strings writes an array of strings, omitted when empty unless the residue
// has it.
func (w *Writer) Strings(k string, v []string) {
	if len(v) == 0 && !w.Has(k) {
		return
	}
	if w.Key(k) {
		w.B = append(w.B, '[')
		for i, s := range v {
			if i > 0 {
				w.B = append(w.B, ',')
			}
			w.B = w.Spill.String(w.B, s)
		}
		w.B = append(w.B, ']')
	}
}

// End writes the residue keys no field consumed, except those named in
// skip, closes the object and adds a newline.
func (w *Writer) End(skip ...string) []byte {
	for i := range w.ext {
		f := &w.ext[i]
		if f.used || slices.Contains(skip, f.key) || (len(f.key) > 0 && f.key[0] == '@') {
			continue
		}
		w.B = jsonenc.Key(w.B, &w.first, f.key)
		w.B = w.Spill.VerbatimString(w.B, f.raw)
	}
	return append(w.B, '}', '\n')
}
