// Package schemaerr turns the schema engine's errors into evtool's
// diagnostics, the same words from run to run.
//
// The engine reports a tree of errors whose order, and the order of the
// names inside some messages, follow Go map iteration, and whose top holds
// only "doesn't validate with …" behind a $ref. Explain keeps the leaves,
// which say what is actually wrong, writes their messages itself (names
// sorted, numbers exactly as the line writes them and bounds exactly), and
// returns them in a fixed order.
package schemaerr

import (
	"cmp"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/evtool/evtool/diag"
	"github.com/evtool/evtool/internal/jsonptr"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"github.com/tidwall/gjson"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Explain returns the diagnostics of an error the engine returned for
// line, without file, line number or rule; Col is set from the pointer.
// location rewrites each schema location (to make it relative, say); nil
// keeps them as the engine gives them. The result is sorted by column,
// pointer and message.
func Explain(err error, line []byte, location func(string) string) []diag.Diagnostic {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []diag.Diagnostic{{Severity: diag.Error, Col: 1, Message: "cannot be checked: " + err.Error()}}
	}
	var out []diag.Diagnostic
	for _, leaf := range leaves(ve, nil) {
		ptr := jsonptr.Join(leaf.InstanceLocation...)
		loc := leaf.SchemaURL
		if location != nil {
			loc = location(loc)
		}
		out = append(out, diag.Diagnostic{
			Severity:       diag.Error,
			Col:            jsonptr.Column(line, ptr),
			Pointer:        ptr,
			Message:        Message(leaf, line, ptr),
			Keyword:        keyword(leaf),
			SchemaLocation: loc,
		})
	}
	slices.SortFunc(out, func(a, b diag.Diagnostic) int {
		return cmp.Or(cmp.Compare(a.Col, b.Col), cmp.Compare(a.Pointer, b.Pointer),
			cmp.Compare(a.Message, b.Message), cmp.Compare(a.SchemaLocation, b.SchemaLocation))
	})
	return slices.CompactFunc(out, func(a, b diag.Diagnostic) bool { return a == b })
}

// leaves returns the innermost errors.
//
// The branches of an anyOf or oneOf that fail only because the value is of
// another type say nothing about what is wrong when some branch is of the
// value's type: a nullable integer that is too large fails its "null"
// branch too, and "want null" would be the wrong word for it. So those
// branches are left out when another branch fails for a reason of its own;
// when every branch fails on the type, they are said once, as one type
// error that names every type the value may have.
func leaves(ve *jsonschema.ValidationError, out []*jsonschema.ValidationError) []*jsonschema.ValidationError {
	if len(ve.Causes) == 0 {
		return append(out, ve)
	}
	causes := ve.Causes
	switch ve.ErrorKind.(type) {
	case *kind.AnyOf, *kind.OneOf:
		var want []string
		got := ""
		var fit []*jsonschema.ValidationError
		for _, c := range causes {
			if t, ok := typeOnly(c, ve.InstanceLocation); ok {
				got = t.Got
				want = append(want, t.Want...)
				continue
			}
			fit = append(fit, c)
		}
		switch {
		case len(fit) > 0:
			causes = fit
		case got != "":
			slices.Sort(want)
			return append(out, &jsonschema.ValidationError{SchemaURL: ve.SchemaURL, InstanceLocation: ve.InstanceLocation,
				ErrorKind: &kind.Type{Got: got, Want: slices.Compact(want)}})
		}
		return append(out, branches(ve, causes)...)
	}
	for _, c := range causes {
		out = leaves(c, out)
	}
	return out
}

// branches explains the branches of an anyOf or oneOf that all failed.
//
// Most of evtool's unions are tagged: each branch holds one property (the
// tag, "type" mostly) to a const, and at most one branch, the "any other
// type" one, holds it out of their list. A line is explained by the
// branch of its tag alone: the others fail on the tag, which says nothing
// about what is wrong. When no branch is the line's, the tag itself is
// what is wrong: missing, of another type, or none of the values the
// branches name (said once, as one enum error that names them all).
//
// Branches that apply only under a condition ({"if": …, "then": …,
// "else": false}, or {"not": …} beside them) and whose condition fails
// are left out the same way.
func branches(ve *jsonschema.ValidationError, causes []*jsonschema.ValidationError) []*jsonschema.ValidationError {
	u := newUnion(ve, causes)
	tag := u.tag()
	if tag != "" {
		if out := u.of(tag); out != nil {
			return out
		}
	}
	// No branch is the line's. What all of them say is wrong (the keys
	// all of them miss, the errors all of them share) is; and so is the
	// tag, when there is one.
	var at []string
	if tag != "" {
		at = append(slices.Clip(u.loc), tag)
	}
	out := u.shared(at)
	if tag == "" {
		if out != nil {
			return out
		}
		return u.all()
	}
	if slices.ContainsFunc(out, func(l *jsonschema.ValidationError) bool {
		k, ok := l.ErrorKind.(*kind.Required)
		return ok && slices.Contains(k.Missing, tag)
	}) {
		return out // the tag is missing
	}
	return append(out, u.tagErrors(at)...)
}

// A union is the failed branches of one anyOf or oneOf, and what they say
// about each property of the value that might be its tag.
type union struct {
	ve   *jsonschema.ValidationError
	loc  []string // where the value is
	kept []branch // the branches that apply to the value

	count    map[string]int      // how many branches fail on a property
	evidence map[string]bool     // the properties that are tags
	wants    map[string][]string // what each branch holds a property to, in words
	consts   map[string]bool     // the properties some branch holds to a const
}

// A branch is one failed branch of a union.
type branch struct {
	leaves []*jsonschema.ValidationError
	miss   map[string]bool // the tags this branch fails on
}

// newUnion explains each branch, leaves out those whose condition does
// not hold, and tallies the properties the others fail on.
func newUnion(ve *jsonschema.ValidationError, causes []*jsonschema.ValidationError) *union {
	u := &union{
		ve:       ve,
		loc:      ve.InstanceLocation,
		count:    map[string]int{},
		evidence: map[string]bool{},
		wants:    map[string][]string{},
		consts:   map[string]bool{},
	}
	bs := make([]branch, 0, len(causes))
	for _, c := range causes {
		bs = append(bs, branch{leaves: leaves(c, nil)})
	}
	u.kept = applicable(bs, u.loc)
	for i := range u.kept {
		b := &u.kept[i]
		b.miss = map[string]bool{}
		for _, l := range b.leaves {
			u.tally(b, l)
		}
	}
	return u
}

// applicable returns the branches whose condition holds for the value at
// loc, or all of them when none does.
func applicable(bs []branch, loc []string) []branch {
	var kept []branch
	for _, b := range bs {
		if !slices.ContainsFunc(b.leaves, func(l *jsonschema.ValidationError) bool { return guard(l, loc) }) {
			kept = append(kept, b)
		}
	}
	if len(kept) == 0 {
		return bs
	}
	return kept
}

// tally notes the properties one leaf of b says are not b's, and what b
// holds them to.
func (u *union) tally(b *branch, l *jsonschema.ValidationError) {
	ps := tagMiss(l, u.loc)
	for _, p := range ps {
		if !b.miss[p] {
			b.miss[p] = true
			u.count[p]++
		}
	}
	w, ok := holds(l)
	if !ok {
		return
	}
	switch l.ErrorKind.(type) {
	case *kind.Const:
		u.consts[p0(ps)] = true
	case *kind.Not:
		for _, p := range ps {
			u.evidence[p] = true // an "any other" branch
		}
	}
	for _, p := range ps {
		u.wants[p] = append(u.wants[p], w)
	}
}

// holds says in words what a leaf holds its value to, when it is a kind
// of error a tag fails with.
func holds(l *jsonschema.ValidationError) (string, bool) {
	switch k := l.ErrorKind.(type) {
	case *kind.Const:
		return fmt.Sprint("const ", k.Want), true
	case *kind.Enum:
		return fmt.Sprint("enum ", k.Want), true
	case *kind.Pattern:
		return "pattern " + k.Want, true
	case *kind.Type:
		return "type", true
	case *kind.Not:
		return "not", true
	}
	return "", false
}

// tag returns the union's tag: a property some branch holds to values (a
// const, an enum or a not failed on it), and that all branches but at
// most one fail on; "" when there is none.
func (u *union) tag() string {
	// A property is a tag when branches hold it to different values, or
	// when some branch fails on it and another does not. One every branch
	// fails on alike (an enum or a pattern of the envelope) is the value's
	// own error.
	for p, ws := range u.wants {
		if u.count[p] < len(u.kept) && slices.ContainsFunc(ws, func(w string) bool { return w != "type" }) ||
			len(slices.Compact(slices.Sorted(slices.Values(ws)))) > 1 {
			u.evidence[p] = true
		}
	}
	tag := ""
	for p, n := range u.count {
		if u.evidence[p] && n >= 1 && n >= len(u.kept)-1 && (tag == "" || u.better(p, tag)) {
			tag = p
		}
	}
	return tag
}

// better reports whether p is a better tag than q: the one the most
// branches fail on; then one held to a const; then the first by name.
func (u *union) better(p, q string) bool {
	switch {
	case u.count[p] != u.count[q]:
		return u.count[p] > u.count[q]
	case u.consts[p] != u.consts[q]:
		return u.consts[p]
	}
	return p < q
}

// of returns the leaves of the branches that do not fail on tag: the
// line's own branch; nil when there is none.
func (u *union) of(tag string) []*jsonschema.ValidationError {
	var out []*jsonschema.ValidationError
	for _, b := range u.kept {
		if !b.miss[tag] {
			out = append(out, b.leaves...)
		}
	}
	return out
}

// all returns the leaves of every branch.
func (u *union) all() []*jsonschema.ValidationError {
	var out []*jsonschema.ValidationError
	for _, b := range u.kept {
		out = append(out, b.leaves...)
	}
	return out
}

// shared returns what every branch says is wrong with the value, when
// there are two or more: the keys all of them miss, as one error, and the
// errors all of them share, but those at the tag (at; nil for none).
func (u *union) shared(at []string) []*jsonschema.ValidationError {
	if len(u.kept) < 2 {
		return nil
	}
	var out []*jsonschema.ValidationError
	rest := make([][]*jsonschema.ValidationError, 0, len(u.kept)-1)
	for _, b := range u.kept[1:] {
		rest = append(rest, b.leaves)
	}
	if common := commonMissing(u.kept[0].leaves, rest, u.loc); len(common) > 0 {
		out = append(out, &jsonschema.ValidationError{SchemaURL: u.ve.SchemaURL, InstanceLocation: u.loc, ErrorKind: &kind.Required{Missing: common}})
	}
	for _, l := range u.kept[0].leaves {
		if _, ok := l.ErrorKind.(*kind.Required); ok && slices.Equal(l.InstanceLocation, u.loc) || at != nil && slices.Equal(l.InstanceLocation, at) {
			continue
		}
		if allHave(rest, l) {
			out = append(out, l)
		}
	}
	return out
}

// tagErrors returns what is wrong with the tag, at at, when no branch is
// the line's: its own type or form, as the branches say it, or else one
// enum error that names every value the branches hold it to.
func (u *union) tagErrors(at []string) []*jsonschema.ValidationError {
	var want []any
	var got any
	var own []*jsonschema.ValidationError
	for _, b := range u.kept {
		for _, l := range b.leaves {
			if !slices.Equal(l.InstanceLocation, at) {
				continue
			}
			switch k := l.ErrorKind.(type) {
			case *kind.Const:
				want, got = appendNew(want, k.Want), k.Got
			case *kind.Enum:
				want, got = appendNew(want, k.Want...), k.Got
			case *kind.Not, *kind.Pattern:
			default:
				// The tag's own type or form: the "any other type" branch
				// says it, and so may others, in the same words.
				own = appendNewMessage(own, l)
			}
		}
	}
	if own != nil {
		return own
	}
	if want != nil {
		return []*jsonschema.ValidationError{{SchemaURL: u.ve.SchemaURL, InstanceLocation: at, ErrorKind: &kind.Enum{Got: got, Want: want}}}
	}
	return nil
}

// appendNewMessage appends l to list unless list holds one that says the
// same.
func appendNewMessage(list []*jsonschema.ValidationError, l *jsonschema.ValidationError) []*jsonschema.ValidationError {
	msg := l.ErrorKind.LocalizedString(printer)
	if slices.ContainsFunc(list, func(m *jsonschema.ValidationError) bool { return m.ErrorKind.LocalizedString(printer) == msg }) {
		return list
	}
	return append(list, l)
}

// p0 returns the first of ps, or "".
func p0(ps []string) string {
	if len(ps) == 0 {
		return ""
	}
	return ps[0]
}

// appendNew appends the values of vs that list does not hold yet.
func appendNew(list []any, vs ...any) []any {
	for _, v := range vs {
		if !slices.ContainsFunc(list, func(w any) bool { return fmt.Sprint(w) == fmt.Sprint(v) }) {
			list = append(list, v)
		}
	}
	return list
}

// commonMissing returns the keys of the value at loc that first and every
// one of rest say are missing, in first's order.
func commonMissing(first []*jsonschema.ValidationError, rest [][]*jsonschema.ValidationError, loc []string) []string {
	missing := func(ls []*jsonschema.ValidationError) map[string]bool {
		m := map[string]bool{}
		for _, l := range ls {
			if k, ok := l.ErrorKind.(*kind.Required); ok && slices.Equal(l.InstanceLocation, loc) {
				for _, p := range k.Missing {
					m[p] = true
				}
			}
		}
		return m
	}
	var out []string
	for _, l := range first {
		k, ok := l.ErrorKind.(*kind.Required)
		if !ok || !slices.Equal(l.InstanceLocation, loc) {
			continue
		}
		for _, p := range k.Missing {
			all := !slices.Contains(out, p)
			for _, b := range rest {
				if all && !missing(b)[p] {
					all = false
				}
			}
			if all {
				out = append(out, p)
			}
		}
	}
	return out
}

// allHave reports whether every list of leaves holds one that says what l
// says, where l says it.
func allHave(lists [][]*jsonschema.ValidationError, l *jsonschema.ValidationError) bool {
	msg := l.ErrorKind.LocalizedString(printer)
	for _, ls := range lists {
		if !slices.ContainsFunc(ls, func(m *jsonschema.ValidationError) bool {
			return slices.Equal(m.InstanceLocation, l.InstanceLocation) && m.ErrorKind.LocalizedString(printer) == msg
		}) {
			return false
		}
	}
	return true
}

// guard reports whether a branch's leaf says the branch does not apply to
// the value at loc: an "else": false, or a "not" beside it, failed there.
func guard(l *jsonschema.ValidationError, loc []string) bool {
	if !slices.Equal(l.InstanceLocation, loc) {
		return false
	}
	switch l.ErrorKind.(type) {
	case *kind.FalseSchema, *kind.Not:
		return true
	}
	return false
}

// tagMiss returns the properties of the value at loc that a branch's leaf
// says are not the branch's: a const, an enum, a pattern, a not or the
// type of a property failed, or the property is missing.
func tagMiss(l *jsonschema.ValidationError, loc []string) []string {
	switch k := l.ErrorKind.(type) {
	case *kind.Required:
		if slices.Equal(l.InstanceLocation, loc) {
			return k.Missing
		}
	case *kind.Const, *kind.Enum, *kind.Not, *kind.Pattern, *kind.Type:
		if len(l.InstanceLocation) == len(loc)+1 && slices.Equal(l.InstanceLocation[:len(loc)], loc) {
			return l.InstanceLocation[len(loc):]
		}
	}
	return nil
}

// typeOnly reports whether a branch's error is a type error of the value
// at loc and nothing else (behind $refs), and returns it.
func typeOnly(ve *jsonschema.ValidationError, loc []string) (*kind.Type, bool) {
	for len(ve.Causes) == 1 {
		ve = ve.Causes[0]
	}
	t, ok := ve.ErrorKind.(*kind.Type)
	if !ok || len(ve.Causes) > 0 || !slices.Equal(ve.InstanceLocation, loc) {
		return nil, false
	}
	return t, true
}

// Message says what a schema keyword found wrong with the value at ptr.
func Message(ve *jsonschema.ValidationError, line []byte, ptr string) string {
	var verb string
	var want *big.Rat
	switch k := ve.ErrorKind.(type) {
	case *kind.Minimum:
		verb, want = "at least", k.Want
	case *kind.Maximum:
		verb, want = "at most", k.Want
	case *kind.ExclusiveMinimum:
		verb, want = "more than", k.Want
	case *kind.ExclusiveMaximum:
		verb, want = "less than", k.Want
	case *kind.Type:
		if k.Got == "number" {
			return fmt.Sprintf("got %s, want %s", literal(line, ptr), strings.Join(k.Want, " or "))
		}
		return k.LocalizedString(printer)
	case *kind.AdditionalProperties:
		// The engine lists them in map order.
		names := slices.Sorted(slices.Values(k.Properties))
		return (&kind.AdditionalProperties{Properties: names}).LocalizedString(printer)
	default:
		return ve.ErrorKind.LocalizedString(printer)
	}
	return fmt.Sprintf("%s: got %s, want %s %s", keyword(ve), literal(line, ptr), verb, exact(want))
}

// literal returns the number at ptr as the line writes it.
func literal(line []byte, ptr string) string {
	r := gjson.ParseBytes(line[jsonptr.Offset(line, ptr):])
	if r.Type != gjson.Number {
		return "a number"
	}
	return r.Raw
}

// exact renders a bound without rounding.
func exact(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	return r.RatString()
}

func keyword(ve *jsonschema.ValidationError) string {
	p := ve.ErrorKind.KeywordPath()
	if len(p) == 0 {
		return ""
	}
	return p[len(p)-1]
}

var printer = message.NewPrinter(language.English)
