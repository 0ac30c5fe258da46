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
	}
	for _, c := range causes {
		out = leaves(c, out)
	}
	return out
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
