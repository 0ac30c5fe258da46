package tsdecl

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// schemaDoc is a schema read for the shape of its unions, as gen.mjs
// reads it for the declarations.
type schemaDoc struct {
	defs map[string]any
}

func obj(v any) map[string]any { m, _ := v.(map[string]any); return m }

// resolve follows $refs, and a guarded branch ({"if", "then", "else":
// false}) to its then, as the declarations do.
func (d schemaDoc) resolve(v any) map[string]any {
	s := obj(v)
	for range 32 {
		if ref, ok := s["$ref"].(string); ok && strings.HasPrefix(ref, "#/$defs/") {
			name := strings.NewReplacer("~1", "/", "~0", "~").Replace(ref[len("#/$defs/"):])
			s = obj(d.defs[name])
			continue
		}
		if e, ok := s["else"].(bool); ok && !e && s["then"] != nil {
			s = obj(s["then"])
			continue
		}
		return s
	}
	return s
}

// isOther mirrors gen.mjs: the "any other" branch of a union.
func (d schemaDoc) isOther(v any) bool {
	s := d.resolve(v)
	for _, p := range obj(s["properties"]) {
		not := obj(obj(p)["not"])
		if not == nil {
			continue
		}
		if not["enum"] != nil || not["const"] != nil {
			return true
		}
		for _, b := range asList(not["anyOf"]) {
			if obj(b)["enum"] != nil {
				return true
			}
		}
	}
	all := asList(s["allOf"])
	if s["properties"] != nil || s["oneOf"] != nil || len(all) == 0 {
		return false
	}
	for _, m := range all {
		if obj(m)["not"] == nil {
			return false
		}
	}
	return true
}

func asList(v any) []any { l, _ := v.([]any); return l }

// union returns the known branches of a union.
func (d schemaDoc) union(s map[string]any) []map[string]any {
	var out []map[string]any
	for _, b := range asList(s["oneOf"]) {
		if !d.isOther(b) {
			out = append(out, d.resolve(b))
		}
	}
	return out
}

func isUnion(s map[string]any) bool { return s["oneOf"] != nil && s["properties"] == nil }

// leaves returns the object branches of a union, through nested unions.
func (d schemaDoc) leaves(s map[string]any) []map[string]any {
	if !isUnion(s) {
		return []map[string]any{s}
	}
	var out []map[string]any
	for _, b := range d.union(s) {
		out = append(out, d.leaves(b)...)
	}
	return out
}

// units returns the branches of a union a switch on its tag tells apart:
// a nested union whose branches share a tag value (claude's system lines)
// is one, and one whose branches do not (codex-rollout's rollout lines)
// is its branches.
func (d schemaDoc) units(u map[string]any) []map[string]any {
	var out []map[string]any
	for _, b := range d.union(u) {
		if isUnion(b) && len(d.tagValues(b)) == 0 {
			out = append(out, d.units(b)...)
		} else {
			out = append(out, b)
		}
	}
	return out
}

// tagOf returns the tag of a union: the property that tells the most of
// its branches apart, each held to strings (by const or enum; a nested
// union by the value its branches share) that no other branch is held to.
func (d schemaDoc) tagOf(u map[string]any) string {
	var each []map[string][]string
	props := map[string]bool{}
	for _, b := range d.units(u) {
		tv := d.tagValues(b)
		each = append(each, tv)
		for p := range tv {
			props[p] = true
		}
	}
	best, bestN := "", 0
	for p := range props {
		n := 0
		for i, tv := range each {
			own := len(tv[p]) > 0
			for j, other := range each {
				if i != j && slices.ContainsFunc(tv[p], func(v string) bool { return slices.Contains(other[p], v) }) {
					own = false
				}
			}
			if own {
				n++
			}
		}
		if n > bestN || n == bestN && n > 0 && p < best {
			best, bestN = p, n
		}
	}
	return best
}

// tagValues returns, by property, the strings a branch holds it to.
func (d schemaDoc) tagValues(b map[string]any) map[string][]string {
	out := map[string][]string{}
	if isUnion(b) {
		for i, l := range d.union(b) {
			lv := d.tagValues(l)
			if i == 0 {
				out = lv
				continue
			}
			for p, vs := range out {
				out[p] = slices.DeleteFunc(vs, func(v string) bool { return !slices.Contains(lv[p], v) })
				if len(out[p]) == 0 {
					delete(out, p)
				}
			}
		}
		return out
	}
	for p, v := range obj(b["properties"]) {
		var ss []any
		if c, ok := obj(v)["const"].(string); ok {
			ss = []any{c}
		}
		for _, x := range append(ss, asList(obj(v)["enum"])...) {
			if s, ok := x.(string); ok {
				out[p] = append(out[p], s)
			}
		}
	}
	return out
}

// values returns the tag values that select a branch: its const or enum,
// the observed values its pattern admits, or for a nested union the
// const all of its branches share.
func (d schemaDoc) values(b map[string]any, tag string, seen map[string]bool) []string {
	if isUnion(b) {
		var common []string
		for i, l := range d.leaves(b) {
			vs := d.values(l, tag, seen)
			if i == 0 {
				common = vs
			} else {
				common = slices.DeleteFunc(common, func(v string) bool { return !slices.Contains(vs, v) })
			}
		}
		return common
	}
	p := obj(obj(b["properties"])[tag])
	if c, ok := p["const"].(string); ok {
		return []string{c}
	}
	var out []string
	for _, e := range asList(p["enum"]) {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	if pat, ok := p["pattern"].(string); ok && out == nil {
		re, err := regexp.Compile(pat)
		if err == nil {
			for v := range seen {
				if re.MatchString(v) {
					out = append(out, v)
				}
			}
			sort.Strings(out)
		}
	}
	return out
}

// typed reports whether a property's schema gives it a type (not "any
// JSON value", which the declarations type unknown).
func (d schemaDoc) typed(v any) bool {
	s := obj(v)
	for _, k := range []string{"type", "enum", "const", "properties", "items", "oneOf", "anyOf"} {
		if s[k] != nil {
			return true
		}
	}
	if s["$ref"] != nil {
		return d.typed(d.resolve(s))
	}
	for _, m := range asList(s["allOf"]) {
		if d.typed(m) {
			return true
		}
	}
	return false
}

func required(s map[string]any, p string) bool {
	return slices.ContainsFunc(asList(s["required"]), func(r any) bool { return r == p })
}

// field returns a path to a typed field of branch b that as few other
// branches of the union declare as may be, so that reading it without
// narrowing would give unknown: one that no other branch declares, or
// else one of a required object field that no other branch's declares
// (muse's payload), or else one that not every branch declares. nil when
// b has none.
func (d schemaDoc) field(b map[string]any, branches []map[string]any, tag string) []string {
	declared := func(p string) int {
		n := 0
		for _, o := range branches {
			if _, ok := obj(o["properties"])[p]; ok {
				n++
			}
		}
		return n
	}
	props := obj(b["properties"])
	names := make([]string, 0, len(props))
	for p := range props {
		if p != tag && jsIdent(p) && d.typed(props[p]) {
			names = append(names, p)
		}
	}
	sort.Slice(names, func(i, j int) bool {
		ri, rj := required(b, names[i]), required(b, names[j])
		if ri != rj {
			return ri
		}
		return names[i] < names[j]
	})
	for _, p := range names {
		if declared(p) == 1 {
			return []string{p}
		}
	}
	for _, p := range names {
		if !required(b, p) {
			continue
		}
		inner := d.resolve(props[p])
		if inner["properties"] == nil {
			continue
		}
		var others []map[string]any
		for _, o := range branches {
			if q := obj(obj(o["properties"])[p]); q != nil {
				others = append(others, d.resolve(q))
			}
		}
		if f := d.field(inner, others, ""); f != nil && required(inner, f[0]) {
			return append([]string{p}, f...)
		}
	}
	for _, p := range names {
		if declared(p) < len(branches) {
			return []string{p}
		}
	}
	return nil
}

var identRE = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`)

func jsIdent(s string) bool { return identRE.MatchString(s) }

// narrower returns a TypeScript function that narrows a line of the
// dialect on its tag, reads a field of each known type, and says whether
// the line's type is known.
func narrower(name string, doc []byte, seen map[string]bool) (string, error) {
	var root map[string]any
	if err := json.Unmarshal(doc, &root); err != nil {
		return "", err
	}
	d := schemaDoc{defs: obj(root["$defs"])}
	ns := name
	for strings.Contains(ns, "-") {
		i := strings.Index(ns, "-")
		ns = ns[:i] + strings.ToUpper(ns[i+1:i+2]) + ns[i+2:]
	}
	typ := fmt.Sprintf("types.%s.%sEvent", ns, pascal(name))
	var b strings.Builder
	fmt.Fprintf(&b, "function narrow_%s(ev: %s): boolean {\n", ident(name), typ)
	cases, err := d.emitSwitch(&b, root, "  ", seen)
	if err != nil {
		return "", err
	}
	if cases == 0 {
		return "", fmt.Errorf("no case to narrow on")
	}
	b.WriteString("}\n\n")
	return b.String(), nil
}

func pascal(s string) string {
	var b strings.Builder
	for _, p := range strings.Split(s, "-") {
		b.WriteString(strings.ToUpper(p[:1]) + p[1:])
	}
	return b.String()
}

// emitSwitch writes a switch over the union u's tag, returning the number
// of cases.
func (d schemaDoc) emitSwitch(b *strings.Builder, u map[string]any, indent string, seen map[string]bool) (int, error) {
	branches := d.units(u)
	tag := d.tagOf(u)
	if tag == "" || !jsIdent(tag) {
		return 0, fmt.Errorf("no tag")
	}
	fmt.Fprintf(b, "%sswitch (ev.%s) {\n", indent, tag)
	n := 0
	done := map[string]bool{}
	for _, br := range branches {
		vals := slices.DeleteFunc(d.values(br, tag, seen), func(v string) bool { return done[v] })
		if len(vals) == 0 {
			continue
		}
		for _, v := range vals {
			done[v] = true
			fmt.Fprintf(b, "%s  case %q:\n", indent, v)
		}
		n++
		fmt.Fprintf(b, "%s  {\n", indent)
		if isUnion(br) {
			if _, err := d.emitSwitch(b, br, indent+"    ", seen); err != nil {
				return 0, err
			}
		} else if f := d.field(br, branches, tag); f != nil {
			fmt.Fprintf(b, "%s    known(ev.%s);\n", indent, strings.Join(f, "."))
		}
		fmt.Fprintf(b, "%s    return true;\n%s  }\n", indent, indent)
	}
	fmt.Fprintf(b, "%s  default:\n%s    return false;\n%s}\n", indent, indent, indent)
	return n, nil
}
