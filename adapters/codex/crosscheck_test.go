package codex_test

import (
	"bytes"
	"testing"

	"github.com/evtool/evtool/adapters/acp"
	"github.com/evtool/evtool/adapters/codex"
	"github.com/evtool/evtool/convert"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/dialecttest"
	"github.com/evtool/evtool/internal/testkit/schematest"
	"github.com/evtool/evtool/internal/testkit/teststreams"
)

// TestCrossCheck is the portability check of codex.schema.json, with
// python-jsonschema (schema/testdata/crosscheck.py): every codex test
// stream validates against it, lines Codex refuses fail it, the canonical
// reading of every codex stream validates against canonical.schema.json,
// every other dialect's test stream converted to codex validates against
// it, and the ACP projection of every codex stream validates against the
// official ACP schema (stable and unstable profiles).
func TestCrossCheck(t *testing.T) {
	py := schematest.Python(t)
	cc := schematest.NewCrossCheck(t)
	conv := func(f string, from, to dialect.Dialect, cfg dialect.Config) []byte {
		out, _ := convertFile(t, f, from, to, cfg, func(*convert.LineError) {})
		return out
	}
	self := cc.Abs("codex.schema.json")
	canonSchema := cc.CanonicalSchema()
	canon, _ := dialect.Lookup("canonical")
	to, _ := dialect.Lookup(acp.Name)
	lines := 0
	for _, f := range streams(t) {
		cc.Valid(self, cc.Abs(f))
		c := conv(f, codex.Dialect{}, canon, nil)
		cc.Valid(canonSchema, cc.Write(c))
		lines += 2 * bytes.Count(c, []byte("\n"))
		for _, profile := range []string{acp.Stable, acp.Unstable} {
			out := conv(f, codex.Dialect{}, to, &acp.Config{Profile: profile, Transcript: true})
			cc.ValidACP(cc.ACPSchema(profile == acp.Unstable), cc.Write(out))
		}
	}
	for _, d := range dialect.All() {
		if d.Name() == codex.Name {
			continue
		}
		for _, f := range teststreams.Valid(d.Name()) {
			cc.Valid(self, cc.Write(conv(f, d, codex.Dialect{}, nil)))
		}
	}
	broken := schematest.SchemaRejects(dialecttest.ReadLines(t, "testdata/contract/reject.jsonl"))
	cc.Invalid(self, cc.WriteLines(broken))
	if passed, _ := cc.Run(py, schematest.Script); passed < lines+len(broken) {
		t.Errorf("only %d lines checked, expected at least %d", passed, lines+len(broken))
	}

	// evtool's own ACP validator finds no error in the projection either.
	for _, f := range streams(t) {
		for _, profile := range []string{acp.Stable, acp.Unstable} {
			validates(t, f+" ("+profile+")", conv(f, codex.Dialect{}, to, &acp.Config{Profile: profile, Transcript: true}), to)
		}
	}
}
