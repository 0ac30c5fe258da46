package convert

import (
	"io"

	"github.com/evtool/evtool/diag"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/validate"
)

// Residue is what a source keeps of a line beyond its events (the
// canonical ext and unknown raw, the canonical events an ACP stream
// carries under _meta), and a target writes it back verbatim: that is how
// a conversion round-trips byte for byte. But it is the source's word,
// not the encoder's. A canonical stream that passes its own check may hold
// an ext.basis that makes a basis line its validator refuses, and an ACP
// stream may carry canonical events no canonical check would pass. So
// where the source can hold residue for the target, the output is checked
// as it is written, by the target's own validator, and what it refuses is
// reported: a conversion never ends in success having written a stream its
// own validate rejects.

// MaxOutputDiags is how many of the output check's errors Result keeps.
const MaxOutputDiags = 10

// residueFor reports whether a source of dialect from can carry residue
// that a target of dialect to writes back as it was.
func residueFor(from, to dialect.Dialect) bool {
	if from == nil || to == nil {
		return false
	}
	switch from.Name() {
	case "canonical", "acp", to.Name():
		return true
	}
	return false
}

// outCheck validates the output in a goroutine of its own, as evtool
// validate reads it, fed through a pipe as the conversion writes.
type outCheck struct {
	pw   *io.PipeWriter
	done chan struct{}
	res  *Result
}

// startOutCheck starts checking what is written to the returned writer
// against to's validator; name is the output's name in the diagnostics.
func startOutCheck(to dialect.Dialect, name string, res *Result) *outCheck {
	pr, pw := io.Pipe()
	oc := &outCheck{pw: pw, done: make(chan struct{}), res: res}
	go func() {
		defer close(oc.done)
		_, err := validate.Stream(pr, name, validate.Options{Dialect: to}, func(d diag.Diagnostic) {
			if d.Severity != diag.Error {
				return
			}
			res.OutputErrors++
			if len(res.OutputDiags) < MaxOutputDiags {
				res.OutputDiags = append(res.OutputDiags, d)
			}
		})
		if err != nil {
			// The output could not be read to its end as its dialect: that
			// is an error of it too (an output of no line is no stream).
			res.OutputErrors++
			if len(res.OutputDiags) < MaxOutputDiags {
				res.OutputDiags = append(res.OutputDiags, diag.Diagnostic{File: name, Severity: diag.Error, Rule: "convert/output", Message: err.Error()})
			}
		}
		// Whatever stopped the check, the conversion writes on.
		io.Copy(io.Discard, pr)
	}()
	return oc
}

// Write passes p to the check.
func (oc *outCheck) Write(p []byte) (int, error) {
	oc.pw.Write(p)
	return len(p), nil
}

// wait ends the output and waits for the check's verdict.
func (oc *outCheck) wait() {
	oc.pw.Close()
	<-oc.done
}

// tee writes to the output and, once a check is started, to the check.
type tee struct {
	w  io.Writer
	oc *outCheck
}

func (t *tee) Write(p []byte) (int, error) {
	n, err := t.w.Write(p)
	if t.oc != nil && n > 0 {
		t.oc.Write(p[:n])
	}
	return n, err
}
