package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/evtool/evtool/diag"
	"github.com/evtool/evtool/validate"
)

// github writes workflow commands, one per diagnostic, which GitHub
// Actions turns into annotations on the lines of a pull request:
//
//	::error file=run.jsonl,line=3,col=49,title=basis/tool-not-queued::/tool_call_id: …
//
// An input that could not be checked is an error annotation on the file,
// before its diagnostics; when it fails part way (a read error), those
// found before are printed already as they stream.
type github struct{ w io.Writer }

func newGitHub(w io.Writer, _ Tool) Printer { return &github{w} }

func (p *github) File(r *validate.Result) error {
	r = escaped(r)
	if r.Err != nil {
		if _, err := fmt.Fprintf(p.w, "::error file=%s,title=%s::%s\n", ghProperty(r.File), ghProperty("evtool"), ghData(r.Err.Error())); err != nil {
			return err
		}
	}
	for _, d := range r.Diagnostics {
		if _, err := io.WriteString(p.w, ghCommand(d)); err != nil {
			return err
		}
	}
	return nil
}

func (p *github) Diagnostic(d validate.Diagnostic) error {
	_, err := io.WriteString(p.w, ghCommand(escapedOne(d)))
	return err
}

func (p *github) Close(validate.Totals) error { return nil }

func ghCommand(d diag.Diagnostic) string {
	var b strings.Builder
	cmd := "error"
	if d.Severity == diag.Warning {
		cmd = "warning"
	}
	b.WriteString("::" + cmd + " file=" + ghProperty(d.File))
	if d.Line > 0 {
		b.WriteString(",line=" + strconv.Itoa(d.Line))
		if d.Col > 0 {
			b.WriteString(",col=" + strconv.Itoa(d.Col))
		}
	}
	b.WriteString(",title=" + ghProperty(d.Rule) + "::")
	msg := d.Message
	if d.Pointer != "" {
		msg = d.Pointer + ": " + msg
	}
	b.WriteString(ghData(msg))
	b.WriteByte('\n')
	return b.String()
}

// ghData escapes a command's message, as the runner reads it back.
var ghData = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace

// ghProperty escapes a property value, which ends at ',' and whose key
// ends at ':'.
var ghProperty = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace
