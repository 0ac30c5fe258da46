// Package diag is evtool's one model of a problem found in a stream:
// syntax, schema, decoding and stream rules alike. Every command reports
// through it, and each output format is one printer of it.
package diag

import (
	"cmp"
	"fmt"
	"strings"
)

// Severity ranks a diagnostic.
type Severity int

// Severities, most severe first.
const (
	Error Severity = iota
	Warning
)

func (s Severity) String() string {
	if s == Warning {
		return "warning"
	}
	return "error"
}

// Diagnostic is one problem at one place of a stream.
type Diagnostic struct {
	File     string   // the input's name; "-" for standard input
	Line     int      // 1-based physical line; 0 for the stream as a whole
	Col      int      // 1-based column in characters; 0 when not known
	Severity Severity // Error or Warning
	Rule     string   // stable rule id, e.g. "json/syntax" or "basis/seq-increasing"
	Pointer  string   // JSON pointer of the offending value; "" for the whole line
	Message  string   // what is wrong, for a person

	// Keyword and SchemaLocation say, for a schema error, which keyword of
	// which schema rejected the value.
	Keyword        string
	SchemaLocation string

	// Unknown marks a diagnostic about an unknown type or field, which is
	// a warning unless validation is strict.
	Unknown bool
}

// String renders the diagnostic GNU style:
// FILE:LINE[:COL]: error|warning: [POINTER: ]MESSAGE [RULE].
//
// Every part that comes from the input (the file name, the pointer, the
// message, which may quote a value) is escaped (Escape), so that a key
// holding a newline and "::error" or an ESC sequence cannot forge a line
// of a CI log or drive a terminal.
func (d Diagnostic) String() string {
	var b strings.Builder
	b.WriteString(Escape(d.File))
	if d.Line > 0 {
		fmt.Fprintf(&b, ":%d", d.Line)
		if d.Col > 0 {
			fmt.Fprintf(&b, ":%d", d.Col)
		}
	}
	fmt.Fprintf(&b, ": %s: ", d.Severity)
	if d.Pointer != "" {
		b.WriteString(Escape(d.Pointer))
		b.WriteString(": ")
	}
	b.WriteString(Escape(d.Message))
	fmt.Fprintf(&b, " [%s]", Escape(d.Rule))
	return b.String()
}

// Compare orders diagnostics by file, line, column, rule, pointer and
// message, so that reports are the same bytes from run to run.
func Compare(a, b Diagnostic) int {
	return cmp.Or(
		cmp.Compare(a.File, b.File),
		cmp.Compare(a.Line, b.Line),
		cmp.Compare(a.Col, b.Col),
		cmp.Compare(a.Rule, b.Rule),
		cmp.Compare(a.Pointer, b.Pointer),
		cmp.Compare(a.Message, b.Message),
	)
}

// Rule describes one rule: its id, the severity of its findings and a
// one-line purpose. Rules are data; docs/rules.md is written from them.
type Rule struct {
	ID       string
	Severity Severity
	Summary  string
	// Unknown marks a rule about something the producer is not known to
	// write: its findings are Unknown diagnostics.
	Unknown bool
}

// Finding returns the rule's diagnostic at a line and the value ptr names.
func (r *Rule) Finding(line int, ptr, msg string) Diagnostic {
	return Diagnostic{Line: line, Pointer: ptr, Severity: r.Severity, Rule: r.ID, Message: msg, Unknown: r.Unknown}
}

// Error makes a diagnostic usable as an error; it reads as String.
func (d Diagnostic) Error() string { return d.String() }
