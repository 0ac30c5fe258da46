package validate

import (
	"slices"

	"github.com/evtool/evtool/diag"
)

// sortDiags orders the diagnostics of one line (or of the end) by column,
// rule and pointer, so that a report is the same bytes from run to run.
func sortDiags(ds []diag.Diagnostic) { slices.SortStableFunc(ds, diag.Compare) }
