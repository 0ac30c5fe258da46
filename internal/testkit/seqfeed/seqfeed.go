// Package seqfeed feeds the conformance kit's memory cases lines of the
// dialects that number every line with a leading "seq" from 0 (basis and
// canonical), so that their tests write only each line's own fields.
package seqfeed

import (
	"strconv"

	"github.com/evtool/evtool/dialecttest"
)

// Line feeds one object line: "seq", the number of lines fed before it,
// then the parts, joined, as the rest of its members.
func Line(f *dialecttest.Feed, parts ...string) {
	f.Line(append([]string{`{"seq":`, strconv.Itoa(f.N()), `,`}, append(parts, `}`)...)...)
}
