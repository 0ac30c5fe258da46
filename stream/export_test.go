package stream

import (
	"github.com/evtool/evtool/diag"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/internal/schemacheck"
	"github.com/evtool/evtool/ndjson"
)

// FastAndEngine judges a line of dialect d twice, by the fast check and by
// the engine, for the differential tests.
func FastAndEngine(d dialect.Dialect, line []byte) (schemacheck.Verdict, []diag.Diagnostic, bool) {
	ls, err := compiled(d)
	if err != nil || ls == nil || ls.fast == nil {
		return schemacheck.Unsure, nil, false
	}
	return ls.fast.Check(line), ls.explain(line), true
}

// FastMembers judges a line of dialect d by the fast check given the
// line's top-level members as the syntax check finds them, as a Reader
// does: the verdict must be FastAndEngine's.
func FastMembers(d dialect.Dialect, line []byte) schemacheck.Verdict {
	ls, err := compiled(d)
	if err != nil || ls == nil || ls.fast == nil {
		return schemacheck.Unsure
	}
	_, ms, _ := ndjson.CheckMembers(line, ndjson.Options{DuplicateOK: func(string) bool { return true }}, []ndjson.Member{})
	return ls.fast.CheckMembers(line, ms)
}

// FastIndexed judges a line of dialect d by the fast check given the
// line's index as the syntax check makes it, as a Reader does, and again
// with every other container left out of the index (as a line too dense
// for the index's room has them): both verdicts must be FastAndEngine's.
func FastIndexed(d dialect.Dialect, line []byte) (whole, partial schemacheck.Verdict) {
	ls, err := compiled(d)
	if err != nil || ls == nil || ls.fast == nil {
		return schemacheck.Unsure, schemacheck.Unsure
	}
	var x ndjson.Index
	ndjson.CheckIndex(line, ndjson.Options{DuplicateOK: func(string) bool { return true }}, &x)
	whole = ls.fast.CheckIndex(line, &x)
	for i := range x.Containers {
		if i%2 == 1 {
			x.Containers[i].From, x.Containers[i].To = -1, -1
		}
	}
	return whole, ls.fast.CheckIndex(line, &x)
}

// SetParallelThreshold sets how much input the simple path reads before
// the workers start, and returns a function that restores it.
func SetParallelThreshold(n int64) (restore func()) {
	old := parallelThreshold
	parallelThreshold = n
	return func() { parallelThreshold = old }
}

// Parallel reports whether the Reader's workers have started.
func (r *Reader) Parallel() bool { return r.par != nil }

// ReadBytes is how many bytes of lines the simple path has read: what a
// compressed input held, as far as it was read.
func (r *Reader) ReadBytes() int64 { return r.read }
