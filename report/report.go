// Package report renders the results of `evtool validate` in the formats
// CI systems read: GNU-style text, one JSON document, GitHub workflow
// commands, JUnit XML and SARIF 2.1.0. Every format is a printer of the
// one diagnostic model (package diag), and the formats are data: Formats
// lists them with their ids.
//
// A printer is given the results in the order they are to appear, each
// with its diagnostics sorted (validate.Run does both), and writes the
// same bytes for the same results. Every string that comes from the input
// (file names, pointers built from keys, messages that quote values) is
// escaped in every format (Escape): a report is read in CI logs and
// terminals, where a newline or an ESC from the input is a command.
package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/evtool/evtool/validate"
)

// Tool names the program in a report.
type Tool struct {
	Name    string // "evtool"
	Version string // e.g. "dev" or "1.2.0"
	URI     string // the project's home page
}

// Printer writes one report.
type Printer interface {
	// File adds the result of one input.
	File(r *validate.Result) error
	// Close ends the report with the totals of the run.
	Close(t validate.Totals) error
}

// A Streamer is a Printer that prints each diagnostic as soon as it is
// given, in the order of the report (validate.RunOptions.Report), rather
// than an input's all at once: its memory is then the same for ten
// diagnostics or ten million. The File call of an input follows its
// diagnostics and prints what is left in its Result. The text and github
// formats stream; json, junit and sarif put counts before the
// diagnostics they count, so they keep every diagnostic of a run until
// Close: a few hundred bytes each (--max-errors bounds them).
type Streamer interface {
	Printer
	// Diagnostic prints one diagnostic of the input whose File comes next.
	Diagnostic(d validate.Diagnostic) error
}

// Format is one output format.
type Format struct {
	ID      string // its name on the command line
	Summary string // one line for --help
	New     func(w io.Writer, tool Tool) Printer
}

// Formats returns every format, the default (text) first.
func Formats() []Format {
	return []Format{
		{ID: "text", Summary: "one line per diagnostic, GNU style (the default)", New: newText},
		{ID: "json", Summary: "one JSON document (schema/report.schema.json): every diagnostic, per-file and total counts", New: newJSON},
		{ID: "github", Summary: "GitHub Actions workflow commands that annotate a pull request", New: newGitHub},
		{ID: "junit", Summary: "JUnit XML: one test case per file, failures with their positions", New: newJUnit},
		{ID: "sarif", Summary: "SARIF 2.1.0 for code scanning, rules described in tool.driver.rules", New: newSARIF},
	}
}

// IDs returns the ids of the formats.
func IDs() []string {
	var out []string
	for _, f := range Formats() {
		out = append(out, f.ID)
	}
	return out
}

// Lookup returns the format of that id.
func Lookup(id string) (Format, error) {
	for _, f := range Formats() {
		if f.ID == id {
			return f, nil
		}
	}
	return Format{}, fmt.Errorf("unknown format %q (known: %s)", id, strings.Join(IDs(), ", "))
}

// Write renders results with totals in one format: a convenience for
// callers that hold every result.
func Write(w io.Writer, format string, tool Tool, results []*validate.Result) error {
	f, err := Lookup(format)
	if err != nil {
		return err
	}
	p := f.New(w, tool)
	var t validate.Totals
	for _, r := range results {
		t.Add(r)
		if err := p.File(r); err != nil {
			return err
		}
	}
	return p.Close(t)
}

// FileSummary says what one input held, as the text summary does:
// "2 errors, 1 warning in 5 lines (basis)".
func FileSummary(r *validate.Result) string {
	what := r.Dialect
	if r.Schema != "" {
		what = "schema " + r.Schema
	}
	s := fmt.Sprintf("%s, %s in %s", plural(r.Errors, "error"), plural(r.Warnings, "warning"), plural(r.Lines, "line"))
	if what != "" {
		s += " (" + Escape(what) + ")"
	}
	return s
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// text is the GNU-style format of Diagnostic.String. An input that could
// not be checked is the caller's to say on stderr, as before.
type text struct{ w io.Writer }

func newText(w io.Writer, _ Tool) Printer { return &text{w} }

func (p *text) File(r *validate.Result) error {
	r = escaped(r)
	for _, d := range r.Diagnostics {
		if _, err := fmt.Fprintln(p.w, d.String()); err != nil {
			return err
		}
	}
	return nil
}

func (p *text) Diagnostic(d validate.Diagnostic) error {
	_, err := fmt.Fprintln(p.w, escapedOne(d).String())
	return err
}

// escapedOne is a diagnostic escaped as escaped escapes those of a Result.
func escapedOne(d validate.Diagnostic) validate.Diagnostic {
	one := [1]validate.Diagnostic{d}
	return escaped(&validate.Result{Diagnostics: one[:]}).Diagnostics[0]
}

func (p *text) Close(validate.Totals) error { return nil }
