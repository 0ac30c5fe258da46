package muse

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/evtool/evtool/internal/jsonenc"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/tidwall/gjson"
)

// The JSON form of ext.muse, written and read by hand: it is on every line
// a muse stream converts to, and reflection cost more than the rest of the
// line. Keys come in the order of the struct fields, map keys sorted, as
// encoding/json wrote them before.

// appendJSON appends x as a JSON object.
func (x *museExt) appendJSON(dst []byte) []byte {
	first := true
	dst = append(dst, '{')
	if len(x.Before) > 0 {
		dst = jsonenc.Key(dst, &first, "before")
		dst = append(dst, '[')
		for i, b := range x.Before {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, b...)
		}
		dst = append(dst, ']')
	}
	dst = x.residue.appendFields(dst, &first)
	return append(dst, '}')
}

// appendJSON appends r as a JSON object.
func (r *residue) appendJSON(dst []byte) []byte {
	first := true
	dst = append(dst, '{')
	dst = r.appendFields(dst, &first)
	return append(dst, '}')
}

func (r *residue) appendFields(dst []byte, first *bool) []byte {
	rawMap := func(k string, m map[string]json.RawMessage) {
		if len(m) == 0 {
			return
		}
		dst = jsonenc.Key(dst, first, k)
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		f := true
		dst = append(dst, '{')
		for _, k := range keys {
			dst = jsonenc.Key(dst, &f, k)
			dst = append(dst, m[k]...)
		}
		dst = append(dst, '}')
	}
	strs := func(k string, ss []string) {
		if len(ss) == 0 {
			return
		}
		dst = jsonenc.Key(dst, first, k)
		dst = append(dst, '[')
		for i, s := range ss {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = jsonenc.String(dst, s)
		}
		dst = append(dst, ']')
	}
	str := func(k, s string) {
		if s != "" {
			dst = jsonenc.Key(dst, first, k)
			dst = jsonenc.String(dst, s)
		}
	}
	rawMap("env", r.Env)
	rawMap("p", r.P)
	strs("@absent", r.Absent)
	str("@order", r.Order)
	strs("@keys", r.Keys)
	if len(r.Line) > 0 {
		dst = jsonenc.Key(dst, first, "line")
		dst = append(dst, r.Line...)
	}
	str("@eorder", r.EOrder)
	strs("@ekeys", r.EKeys)
	if len(r.WS) > 0 {
		dst = jsonenc.Key(dst, first, "@ws")
		dst = append(dst, '[')
		for i, g := range r.WS {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, '[')
			dst = jsonenc.Int(dst, int64(g.At))
			dst = append(dst, ',')
			dst = jsonenc.String(dst, g.S)
			dst = append(dst, ']')
		}
		dst = append(dst, ']')
	}
	str("@task", r.Task)
	str("task_kind", r.TaskKind)
	return dst
}

// parseMuseExt reads ext.muse, which may come from a canonical file that a
// person edited: every value is checked, and unknown keys are ignored as
// encoding/json did.
func parseMuseExt(raw []byte, x *museExt) error {
	*x = museExt{}
	v := gjson.ParseBytes(raw)
	if !v.IsObject() {
		return fmt.Errorf("ext.muse: got %s, want an object", raw)
	}
	if b := v.Get("before"); b.Exists() && b.Type != gjson.Null {
		if !b.IsArray() {
			return fmt.Errorf("ext.muse.before: got %s, want an array", b.Raw)
		}
		for _, e := range b.Array() {
			x.Before = append(x.Before, json.RawMessage(e.Raw))
		}
	}
	return parseResidueValue(v, &x.residue)
}

// parseResidue reads one residue object.
func parseResidue(raw []byte, r *residue) error {
	*r = residue{}
	v := gjson.ParseBytes(raw)
	if !v.IsObject() {
		return fmt.Errorf("muse residue: got %s, want an object", raw)
	}
	return parseResidueValue(v, r)
}

func parseResidueValue(v gjson.Result, r *residue) error {
	var err error
	fail := func(k, want string, got gjson.Result) {
		if err == nil {
			err = fmt.Errorf("ext.muse %s: got %s, want %s", k, got.Raw, want)
		}
	}
	jsonobj.ForEach(v, func(k, e gjson.Result) bool {
		if e.Type == gjson.Null {
			return true // encoding/json leaves a null as the zero value
		}
		switch k.Str {
		case "env", "p":
			if !e.IsObject() {
				fail(k.Str, "an object", e)
				return false
			}
			m := map[string]json.RawMessage{}
			jsonobj.ForEach(e, func(mk, mv gjson.Result) bool {
				m[mk.Str] = json.RawMessage(mv.Raw)
				return true
			})
			if k.Str == "env" {
				r.Env = m
			} else {
				r.P = m
			}
		case "@absent", "@keys", "@ekeys":
			if !e.IsArray() {
				fail(k.Str, "an array of strings", e)
				return false
			}
			var ss []string
			for _, s := range e.Array() {
				if s.Type != gjson.String {
					fail(k.Str, "an array of strings", e)
					return false
				}
				ss = append(ss, s.Str)
			}
			switch k.Str {
			case "@absent":
				r.Absent = ss
			case "@keys":
				r.Keys = ss
			default:
				r.EKeys = ss
			}
		case "@order", "@eorder", "@task", "task_kind":
			if e.Type != gjson.String {
				fail(k.Str, "a string", e)
				return false
			}
			switch k.Str {
			case "@order":
				r.Order = e.Str
			case "@eorder":
				r.EOrder = e.Str
			case "@task":
				r.Task = e.Str
			default:
				r.TaskKind = e.Str
			}
		case "line":
			r.Line = json.RawMessage(e.Raw)
		case "@ws":
			if !e.IsArray() {
				fail(k.Str, "an array of [index, white space] pairs", e)
				return false
			}
			for _, p := range e.Array() {
				g, ok := parseGap(p)
				if !ok {
					fail(k.Str, "an array of [index, white space] pairs", p)
					return false
				}
				r.WS = append(r.WS, g)
			}
		}
		return true
	})
	return err
}

// parseGap reads [index, white space].
func parseGap(p gjson.Result) (gap, bool) {
	if !p.IsArray() {
		return gap{}, false
	}
	a := p.Array()
	if len(a) != 2 || a[0].Type != gjson.Number || a[1].Type != gjson.String {
		return gap{}, false
	}
	at := a[0].Int()
	if a[0].Raw != fmt.Sprint(at) || at < 0 || strings.Trim(a[1].Str, " \t\r\n") != "" {
		return gap{}, false
	}
	return gap{At: int(at), S: a[1].Str}, true
}
