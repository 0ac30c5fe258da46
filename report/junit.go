package report

import (
	"encoding/xml"
	"io"
	"strings"

	"github.com/evtool/evtool/diag"
	"github.com/evtool/evtool/validate"
)

// junit writes JUnit XML, as test reporters of CI systems read it: one
// test suite, one test case per input. A case with errors has a failure
// whose text lists its diagnostics, one per line as the text format
// writes them; an input that could not be checked has an error; warnings
// of a passing case go to its system-out.
type junit struct {
	w     io.Writer
	suite junitSuite
}

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	File      string        `xml:"file,attr"`
	Failure   *junitProblem `xml:"failure"`
	Error     *junitProblem `xml:"error"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

const junitName = "evtool validate"

func newJUnit(w io.Writer, _ Tool) Printer {
	return &junit{w: w, suite: junitSuite{Name: junitName, Cases: []junitCase{}}}
}

func (p *junit) File(r *validate.Result) error {
	r = escaped(r)
	c := junitCase{Name: r.File, Classname: "evtool.validate", File: r.File}
	listing := lines(r.Diagnostics)
	switch {
	case r.Err != nil:
		c.Error = &junitProblem{Message: r.Err.Error(), Type: "not checked", Text: listing}
		p.suite.Errors++
	case r.Errors > 0:
		c.Failure = &junitProblem{Message: FileSummary(r), Type: "error", Text: listing}
		p.suite.Failures++
	default:
		c.SystemOut = listing
	}
	p.suite.Tests++
	p.suite.Cases = append(p.suite.Cases, c)
	return nil
}

func lines(ds []diag.Diagnostic) string {
	var b strings.Builder
	for _, d := range ds {
		b.WriteString(d.String())
		b.WriteByte('\n')
	}
	return b.String()
}

func (p *junit) Close(validate.Totals) error {
	doc := junitSuites{Name: junitName, Tests: p.suite.Tests, Failures: p.suite.Failures, Errors: p.suite.Errors, Suites: []junitSuite{p.suite}}
	if _, err := io.WriteString(p.w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(p.w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	if err := enc.Close(); err != nil {
		return err
	}
	_, err := io.WriteString(p.w, "\n")
	return err
}
