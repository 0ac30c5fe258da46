package stream

import (
	"github.com/evtool/evtool/diag"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/internal/schemacheck"
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
