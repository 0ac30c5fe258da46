package rules

import (
	"fmt"
	"strings"

	"github.com/evtool/evtool/convert"
	"github.com/evtool/evtool/dialect"
)

// LossGroup is the loss catalogue of one writer: the kinds of fact it
// drops, approximates or synthesizes, each with its id.
type LossGroup struct {
	// Name is the target dialect, or "shared" for the kinds any conversion
	// may count.
	Name  string
	Kinds []*dialect.LossKind
}

// Losses returns the whole loss catalogue: the kinds every conversion may
// count, then each registered writable dialect's, in name order. Like the
// rules, the kinds are values declared once (dialect.LossCatalog), and
// docs/losses.md is written from them.
func Losses() []LossGroup {
	out := []LossGroup{{Name: "shared", Kinds: append(dialect.SharedLossKinds(), convert.LossKinds()...)}}
	for _, d := range dialect.Targets() {
		g := LossGroup{Name: d.Name()}
		if ll, ok := d.(dialect.LossLister); ok {
			g.Kinds = ll.LossKinds()
		}
		out = append(out, g)
	}
	return out
}

const lossIntro = `# Loss catalogue

<!-- Generated from the loss catalogue (dialect.LossCatalog values) by
` + "`go test ./rules -run TestLossDocs -update`" + `; a test keeps it in step. -->

When ` + "`evtool convert`" + ` writes a stream in a dialect that cannot carry a fact
of its source, it does not drop it silently: it counts it under one of the
kinds below and reports the counts on stderr and in ` + "`--loss-report`" + `
(see docs/cli.md). A kind's verb says what became of the fact:

- **dropped**: the target cannot say it at all;
- **approximated**: the target can say it only approximately;
- **synthesized**: the target needs a line no source line stands behind.

A kind whose wording holds ` + "`%[1]s`" + ` is counted apart for each detail (an
event type, a status). Kinds several targets count are worded once
(` + "`dialect/sharedlosses.go`" + `); each target says in its own words why it
cannot carry them. ` + "`evtool convert --to acp --acp-meta`" + ` and ` + "`--to canonical`" + `
lose nothing: what the vocabulary has no place for rides along.

Read-only dialects (an agent's own session files) are never written, so
they have no catalogue.
`

// LossMarkdown returns docs/losses.md: one table per writer, written from
// the catalogue, so that the document cannot say other than the code does.
func LossMarkdown() []byte {
	var b strings.Builder
	b.WriteString(lossIntro)
	for _, g := range Losses() {
		fmt.Fprintf(&b, "\n## %s\n\n", g.Name)
		if len(g.Kinds) == 0 {
			b.WriteString("Loses nothing: every fact of the canonical model has its place.\n")
			continue
		}
		b.WriteString("| id | verb | what is lost (one / many) | why |\n|---|---|---|---|\n")
		for _, k := range g.Kinds {
			fmt.Fprintf(&b, "| `%s` | %s | %s / %s | %s |\n", k.ID, k.Verb, markdownCell.Replace(k.One),
				markdownCell.Replace(k.Many), markdownCell.Replace(k.Why))
		}
	}
	return []byte(b.String())
}
