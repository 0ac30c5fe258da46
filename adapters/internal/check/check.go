// Package check holds what the stream checkers of several dialects share,
// each configured with the dialect's own rules (dialect.RuleSet values)
// and words: the reading of a line and the rules of a stream's frame (the
// line it begins with, the line it ends with, nothing after that), the
// bookkeeping of tool calls by id (Calls), and the reports of unknown keys
// (Keys).
//
// What a finding says is the dialect's: its rule, and where a dialect
// words one of these findings its own way, its message.
package check

import (
	"fmt"
	"slices"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/evtool/evtool/internal/jsonptr"
	"github.com/tidwall/gjson"
)

// Frame counts the lines of a stream and checks its frame: the type the
// first line has and no later line (Start), the type of the line that ends
// the stream (End), after which nothing follows, and the stream's end. A
// rule left nil is not checked; a message left empty is the default given
// with its field.
type Frame struct {
	Start, End string
	// FirstLine: the first line is a Start; "the first line is %q, want
	// <Start>", a format of the line's type, unless FirstMsg says
	// otherwise. An empty stream breaks it too (see Empty).
	FirstLine *dialect.Rule
	FirstMsg  string
	// Repeated: no later line is a Start ("<Start> may only be the first
	// line").
	Repeated *dialect.Rule
	// After: nothing follows the End line ("<type> after <End> on line
	// <n>: <End> must be the last line"), but a line of type Trailer.
	After   *dialect.Rule
	Trailer string
	// Truncated: the stream ends with an End line; "the stream ends
	// without <End>: it is truncated" unless TruncatedMsg says otherwise.
	Truncated    *dialect.Rule
	TruncatedMsg string
	// EmptyRule and EmptyMsg are the finding of an empty stream: by
	// default FirstLine's, "the stream has no JSON line: want <Start> first".
	EmptyRule *dialect.Rule
	EmptyMsg  string
	// UnknownType: the type of a line is one the dialect knows (see
	// Known). Types says which those are, for Next.
	UnknownType *dialect.Rule
	Types       func(typ string) bool
	// Alias says Next reads a line as View does, not as Read.
	Alias bool

	// Lines counts the lines read (each a JSON value), Ended is the line
	// of the last End line, 0 before it.
	Lines, Ended int
}

// Read counts a line and parses it, and returns the line's reporter. ok
// is false for a line that is no JSON object: the schema reports it, and
// a checker has nothing to add.
func (f *Frame) Read(line []byte, n int, report func(dialect.Finding)) (r gjson.Result, rep dialect.Reporter, ok bool) {
	f.Lines++
	r = gjson.ParseBytes(line)
	return r, dialect.Reporter{Line: n, Report: report}, r.IsObject()
}

// View is Read for a checker that keeps little of a line: the Result
// shares the line's memory (jsonobj.View), so what is kept is cloned.
func (f *Frame) View(line []byte, n int, report func(dialect.Finding)) (r gjson.Result, rep dialect.Reporter, ok bool) {
	f.Lines++
	r = jsonobj.View(line)
	return r, dialect.Reporter{Line: n, Report: report}, r.IsObject()
}

// Next begins the check of a line: it counts and reads it (View or Read),
// checks its place by its "type" (Place) and whether the dialect knows
// that type (Known, by Types). ok is false for a line that is no JSON
// object or of a type the dialect does not know: nothing more is checked.
func (f *Frame) Next(line []byte, n int, report func(dialect.Finding)) (r gjson.Result, rep dialect.Reporter, typ string, ok bool) {
	if f.Alias {
		r, rep, ok = f.View(line, n, report)
	} else {
		r, rep, ok = f.Read(line, n, report)
	}
	if !ok {
		return r, rep, "", false
	}
	typ = r.Get("type").Str
	f.Place(rep, typ)
	return r, rep, typ, f.Known(rep, typ, f.Types(typ))
}

// Place checks a line's place in the stream, by its type: nothing after
// the End line, a Start first and only there. An End line is noted.
func (f *Frame) Place(rep dialect.Reporter, typ string) {
	if f.After != nil && f.Ended > 0 && (f.Trailer == "" || typ != f.Trailer) {
		rep.Reportf(f.After, "/type", "%s after %s on line %d: %s must be the last line", typ, f.End, f.Ended, f.End)
	}
	if f.FirstLine != nil && f.Lines == 1 && typ != f.Start {
		if f.FirstMsg != "" {
			rep.Reportf(f.FirstLine, "/type", f.FirstMsg, typ)
		} else {
			rep.Reportf(f.FirstLine, "/type", "the first line is %q, want %s", typ, f.Start)
		}
	}
	if f.Repeated != nil && f.Lines > 1 && typ == f.Start {
		rep.Reportf(f.Repeated, "/type", "%s may only be the first line", f.Start)
	}
	if f.End != "" && typ == f.End {
		f.Ended = rep.Line
	}
}

// Known reports a line whose type the dialect does not know (a line with
// no type is the schema's to report), and says whether it is known.
func (f *Frame) Known(rep dialect.Reporter, typ string, known bool) bool {
	if !known && typ != "" {
		rep.Reportf(f.UnknownType, "/type", "unknown event type %q (kept as opaque data)", typ)
	}
	return known
}

// Empty reports an empty stream, and says whether it was.
func (f *Frame) Empty(report func(dialect.Finding)) bool {
	if f.Lines > 0 {
		return false
	}
	rule, msg := f.EmptyRule, f.EmptyMsg
	if rule == nil {
		rule = f.FirstLine
	}
	if msg == "" {
		msg = fmt.Sprintf("the stream has no JSON line: want %s first", f.Start)
	}
	report(rule.Finding(0, "", msg))
	return true
}

// Complete reports a stream that ends without its End line, last being
// its last line, and says whether it has one.
func (f *Frame) Complete(last int, report func(dialect.Finding)) bool {
	if f.Ended > 0 {
		return true
	}
	msg := f.TruncatedMsg
	if msg == "" {
		msg = fmt.Sprintf("the stream ends without %s: it is truncated", f.End)
	}
	report(f.Truncated.Finding(last, "", msg))
	return false
}

// Keys reports under rule each key of v (at ptr) that known rejects, with
// the message format, whose first argument is the key and whose others
// are args. v is read as jsonobj.ForEach reads it: the members of an
// object, the indexes of an array.
func Keys(rep dialect.Reporter, rule *dialect.Rule, v gjson.Result, ptr string, known func(string) bool, format string, args ...any) {
	jsonobj.ForEachRaw(v, func(k, _ gjson.Result) bool {
		if !known(k.Str) {
			rep.Reportf(rule, ptr+"/"+jsonptr.Escape(k.Str), format, append([]any{k.Str}, args...)...)
		}
		return true
	})
}

// In returns the known of Keys for a list of keys.
func In(keys []string) func(string) bool {
	return func(k string) bool { return slices.Contains(keys, k) }
}
