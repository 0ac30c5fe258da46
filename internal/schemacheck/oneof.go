package schemacheck

import (
	"slices"
	"sort"

	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/tidwall/gjson"
)

// oneDispatch spares a oneOf the variants an object certainly fails, which
// is all of them but one in a union tagged on a property: the variant of
// {"type":"a"} is the one whose "type" is {"const":"a"}.
//
// What each variant certainly requires is read from the variant itself and
// from what it takes in whole ($ref and allOf, not anyOf, oneOf or if): a
// property that must be present and be one of some strings (required and
// const or enum of strings), a property that must not be one of some
// strings (not of an enum of strings, the "any other type" variant), keys
// that must be present (required) and keys that must be absent (not of
// required). A variant that fails one of these is Invalid without being
// walked; every other variant is checked in order, as oneOf would, so the
// verdict is the one the whole oneOf gives.
type oneDispatch struct {
	prop    string            // the tag; "" when no property tells the variants apart
	byValue map[string][]int  // the variants a value of prop may select, in order
	untag   []int             // the variants with no const on prop, in order
	tagged  []bool            // variant i has a const (or an enum of strings) on prop
	needTag []bool            // variant i requires prop
	not     []map[string]bool // variant i fails when prop is one of these
	needs   [][]string        // keys variant i requires
	forbids [][]string        // keys variant i forbids
	filter  bool              // some variant needs or forbids a key
}

// tagInfo is what a variant certainly requires of one property.
type tagInfo struct {
	in     map[string]bool // nil: any value; else the value must be one of these strings
	needed bool            // the property must be present
	notIn  map[string]bool // the value must not be one of these strings
}

// facts is what a variant certainly requires of an object.
type facts struct {
	tags    map[string]*tagInfo
	needs   []string
	forbids []string
}

func (f *facts) tag(p string) *tagInfo {
	if f.tags == nil {
		f.tags = map[string]*tagInfo{}
	}
	t := f.tags[p]
	if t == nil {
		t = &tagInfo{}
		f.tags[p] = t
	}
	return t
}

// collect adds what n requires of an object, and of what n takes in
// whole, to f. depth bounds the walk through references.
func (f *facts) collect(n *node, depth int) {
	if n == nil || depth > 16 {
		return
	}
	for _, r := range n.required {
		if !slices.Contains(f.needs, r) {
			f.needs = append(f.needs, r)
		}
		f.tag(r).needed = true
	}
	for p, s := range n.props {
		if in := stringMembers(valueSet(s)); in != nil {
			t := f.tag(p)
			if t.in == nil {
				t.in = in
			} else { // both hold: the values in both
				for v := range t.in {
					if !in[v] {
						delete(t.in, v)
					}
				}
			}
		}
		if out := excluded(s); out != nil {
			t := f.tag(p)
			if t.notIn == nil {
				t.notIn = map[string]bool{}
			}
			for v := range out {
				t.notIn[v] = true
			}
		}
	}
	for _, k := range forbidden(n.not) {
		if !slices.Contains(f.forbids, k) {
			f.forbids = append(f.forbids, k)
		}
	}
	f.collect(n.ref, depth+1)
	for _, a := range n.allOf {
		f.collect(a, depth+1)
	}
}

// valueSet returns the const or enum that a value valid against n must be
// a member of, following references: nil when n names none.
func valueSet(n *node) *set {
	for range 16 {
		if n == nil {
			return nil
		}
		if n.konst != nil {
			return n.konst
		}
		if n.enum != nil {
			return n.enum
		}
		n = n.ref
	}
	return nil
}

// stringMembers returns the members of m when all of them are strings.
func stringMembers(m *set) map[string]bool {
	if m == nil || m.other || m.null || m.ints != nil || m.bools[0] || m.bools[1] || len(m.strs) == 0 {
		return nil
	}
	out := make(map[string]bool, len(m.strs))
	for s := range m.strs {
		out[s] = true
	}
	return out
}

// excluded returns the strings a value valid against n is certainly none
// of: those of {"not":{"enum":[…]}}, or of an enum among the branches of
// {"not":{"anyOf":[…]}}.
func excluded(n *node) map[string]bool {
	if n == nil || n.not == nil {
		return nil
	}
	x := n.not
	if only(x, "enum") || only(x, "const") {
		return stringsOf(x)
	}
	if !only(x, "anyOf") {
		return nil
	}
	var out map[string]bool
	for _, b := range x.anyOf {
		if only(b, "enum") || only(b, "const") {
			for s := range stringsOf(b) {
				if out == nil {
					out = map[string]bool{}
				}
				out[s] = true
			}
		}
	}
	return out
}

// stringsOf returns the string members of the enum or const of n (which
// may hold other members: a string among them makes it valid all the same).
func stringsOf(n *node) map[string]bool {
	m := n.enum
	if m == nil {
		m = n.konst
	}
	if m == nil || len(m.strs) == 0 {
		return nil
	}
	out := make(map[string]bool, len(m.strs))
	for s := range m.strs {
		out[s] = true
	}
	return out
}

// forbidden returns the keys whose presence makes "not": n hold false:
// {"required":[k]}, or an anyOf of such.
func forbidden(n *node) []string {
	if n == nil {
		return nil
	}
	if only(n, "required") && len(n.required) == 1 {
		return n.required
	}
	if !only(n, "anyOf") {
		return nil
	}
	var out []string
	for _, b := range n.anyOf {
		if only(b, "required") && len(b.required) == 1 {
			out = append(out, b.required[0])
		}
	}
	return out
}

// only reports whether n constrains a value by the one keyword named and
// by nothing else.
func only(n *node, keyword string) bool {
	has := map[string]bool{
		"never":    n.never,
		"type":     n.types != 0,
		"const":    n.konst != nil,
		"enum":     n.enum != nil,
		"props":    n.props != nil,
		"required": n.required != nil,
		"addl":     n.additional != nil,
		"items":    n.items != nil,
		"allOf":    n.allOf != nil,
		"anyOf":    n.anyOf != nil,
		"oneOf":    n.oneOf != nil,
		"not":      n.not != nil,
		"if":       n.ifN != nil || n.thenN != nil || n.elseN != nil,
		"ref":      n.ref != nil,
		"bounds":   n.min != nil || n.max != nil,
		"string":   n.hasMinLen || n.hasPattern,
	}
	for k, v := range has {
		if v != (k == keyword) {
			return false
		}
	}
	return true
}

// oneDispatchOf reads what each variant of a oneOf requires, and returns
// nil when nothing spares any variant.
func oneDispatchOf(list []*node) *oneDispatch {
	fs := make([]facts, len(list))
	props := map[string]bool{}
	for i, v := range list {
		fs[i].collect(v, 0)
		for p, t := range fs[i].tags {
			if t.in != nil {
				props[p] = true
			}
		}
	}
	// The tag: the property that tells the most variants apart, each held
	// to values no other variant is held to (a property every variant
	// holds to the same values tells none apart).
	told := func(p string) int {
		n := 0
		for i := range fs {
			t := fs[i].tags[p]
			if t == nil || t.in == nil {
				continue
			}
			own := true
			for j := range fs {
				if o := fs[j].tags[p]; i != j && o != nil && o.in != nil {
					for v := range t.in {
						if o.in[v] {
							own = false
						}
					}
				}
			}
			if own {
				n++
			}
		}
		return n
	}
	best, bestN := "", 0
	names := make([]string, 0, len(props))
	for p := range props {
		names = append(names, p)
	}
	sort.Strings(names)
	for _, p := range names {
		if n := told(p); n >= 2 && n > bestN {
			best, bestN = p, n
		}
	}
	d := &oneDispatch{prop: best, needs: make([][]string, len(list)), forbids: make([][]string, len(list))}
	for i := range list {
		d.needs[i], d.forbids[i] = fs[i].needs, fs[i].forbids
		if len(fs[i].needs) > 0 || len(fs[i].forbids) > 0 {
			d.filter = true
		}
	}
	if best != "" {
		d.byValue = map[string][]int{}
		d.tagged = make([]bool, len(list))
		d.needTag = make([]bool, len(list))
		d.not = make([]map[string]bool, len(list))
		for i := range list {
			t := fs[i].tags[best]
			if t == nil {
				d.untag = append(d.untag, i)
				continue
			}
			d.needTag[i] = t.needed
			d.not[i] = t.notIn
			if t.in == nil {
				d.untag = append(d.untag, i)
				continue
			}
			d.tagged[i] = true
			vals := make([]string, 0, len(t.in))
			for s := range t.in {
				vals = append(vals, s)
			}
			sort.Strings(vals)
			for _, s := range vals {
				d.byValue[s] = append(d.byValue[s], i)
			}
		}
	}
	if best == "" && !d.filter {
		return nil
	}
	return d
}

// check judges an object against the oneOf list, walking only the variants
// it may satisfy.
func (d *oneDispatch) check(w *walker, list []*node, v gjson.Result) Verdict {
	keys, vals := w.members(v)
	if d.prop == "" {
		return d.run(w, list, v, keys, func(int) bool { return true })
	}
	var val gjson.Result
	found := false
	for i, k := range keys {
		if k == d.prop {
			val, found = vals[i], true
			break
		}
	}
	if found && val.Type == gjson.String {
		s := jsonobj.Text(val)
		tagged := d.byValue[s]
		// The variants of this value and the untagged ones, in order.
		valid, a, b := 0, 0, 0
		for a < len(tagged) || b < len(d.untag) {
			var i int
			if b == len(d.untag) || a < len(tagged) && tagged[a] < d.untag[b] {
				i, a = tagged[a], a+1
			} else {
				i, b = d.untag[b], b+1
			}
			if d.not[i][s] || !d.keysOK(i, keys) {
				continue
			}
			switch list[i].check(w, v) {
			case Valid:
				valid++
			case Unsure:
				return Unsure
			}
		}
		return ok(valid == 1)
	}
	// The tag is missing or not a string: no tagged variant holds, but one
	// that does not require the tag may.
	return d.run(w, list, v, keys, func(i int) bool { return !d.tagged[i] || !found && !d.needTag[i] })
}

// run checks the variants that may hold, in order, as oneOf does.
func (d *oneDispatch) run(w *walker, list []*node, v gjson.Result, keys []string, may func(int) bool) Verdict {
	valid := 0
	for i, s := range list {
		if !may(i) || !d.keysOK(i, keys) {
			continue
		}
		switch s.check(w, v) {
		case Valid:
			valid++
		case Unsure:
			return Unsure
		}
	}
	return ok(valid == 1)
}

// keysOK reports whether an object with these keys may satisfy variant i.
func (d *oneDispatch) keysOK(i int, keys []string) bool {
	if !d.filter {
		return true
	}
	for _, k := range d.needs[i] {
		if !slices.Contains(keys, k) {
			return false
		}
	}
	for _, k := range d.forbids[i] {
		if slices.Contains(keys, k) {
			return false
		}
	}
	return true
}
