package report

import (
	"github.com/evtool/evtool/diag"
	"github.com/evtool/evtool/validate"
)

// Escape is diag.Escape: a string from the input made safe to print.
func Escape(s string) string { return diag.Escape(s) }

// escaped returns r with every string from the input escaped; r itself
// when there is nothing to escape, which is the rule.
func escaped(r *validate.Result) *validate.Result {
	c := *r
	changed := false
	esc := func(s *string) {
		if e := Escape(*s); e != *s {
			*s, changed = e, true
		}
	}
	esc(&c.File)
	esc(&c.Dialect)
	esc(&c.Schema)
	if c.Err != nil {
		if msg := Escape(c.Err.Error()); msg != c.Err.Error() {
			c.Err, changed = &escapedError{msg: msg, err: c.Err}, true
		}
	}
	var ds []validate.Diagnostic
	for i := range c.Diagnostics {
		d := c.Diagnostics[i]
		before := changed
		changed = false
		esc(&d.File)
		esc(&d.Rule)
		esc(&d.Pointer)
		esc(&d.Message)
		esc(&d.Keyword)
		esc(&d.SchemaLocation)
		if changed && ds == nil {
			ds = append(make([]validate.Diagnostic, 0, len(c.Diagnostics)), c.Diagnostics[:i]...)
		}
		if ds != nil {
			ds = append(ds, d)
		}
		changed = changed || before
	}
	if ds != nil {
		c.Diagnostics = ds
	}
	if !changed {
		return r
	}
	return &c
}

// escapedError is an error whose message is escaped for a report.
type escapedError struct {
	msg string
	err error
}

func (e *escapedError) Error() string { return e.msg }
func (e *escapedError) Unwrap() error { return e.err }
