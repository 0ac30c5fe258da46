package gemini_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/evtool/evtool/adapters/acp"
	"github.com/evtool/evtool/convert"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/dialecttest"
	"github.com/evtool/evtool/internal/testkit/schematest"
	"github.com/evtool/evtool/internal/testkit/teststreams"
	"github.com/evtool/evtool/validate"
)

// TestCrossCheck has python-jsonschema (schema/testdata/crosscheck.py, as
// make test runs it) judge what this adapter publishes and writes:
// gemini's schema against the written streams, the contract lines, the
// reference's examples, every other dialect's test streams converted to
// gemini, and the refused lines; the canonical schema against the
// canonical reading of the gemini streams; and the official ACP schema
// against their ACP projection in every profile, with evtool's own
// validator finding no error in it either.
func TestCrossCheck(t *testing.T) {
	py := schematest.Python(t)
	cc := schematest.NewCrossCheck(t)
	conv := func(f string, to string, cfg dialect.Config) []byte {
		target, _ := dialect.Lookup(to)
		in, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		defer in.Close()
		var out bytes.Buffer
		if _, err := convert.Run(in, &out, f, convert.Options{To: target, Config: cfg}, func(le *convert.LineError) { t.Error(le) }); err != nil {
			t.Fatal(err)
		}
		return out.Bytes()
	}
	ours := cc.Abs("gemini.schema.json")
	canon := cc.CanonicalSchema()
	lines := 0
	for _, f := range teststreams.Valid("gemini") {
		cc.Valid(ours, cc.Abs(f))
		cc.Valid(canon, cc.Write(conv(f, "canonical", nil)))
		for _, profile := range []string{acp.Stable, acp.Unstable, acp.Basis} {
			for _, transcript := range []string{"false", "true"} {
				out := conv(f, acp.Name, &acp.Config{Profile: profile, Transcript: transcript == "true", Meta: transcript == "true"})
				lines += bytes.Count(out, []byte("\n"))
				cc.ValidACP(cc.ACPSchema(profile == acp.Unstable), cc.Write(out))
				to, _ := dialect.Lookup(acp.Name)
				sum, err := validate.Stream(bytes.NewReader(out), f, validate.Options{Dialect: to}, func(d validate.Diagnostic) {
					if d.Severity == dialect.Error {
						t.Errorf("%s --to acp (%s): %s", filepath.Base(f), profile, d)
					}
				})
				if err != nil || sum.Errors > 0 {
					t.Errorf("%s (%s): %+v %v", f, profile, sum, err)
				}
			}
		}
	}
	for _, d := range dialect.All() {
		if d.Name() == "gemini" {
			continue
		}
		for _, f := range teststreams.Valid(d.Name()) {
			cc.Valid(ours, cc.Write(conv(f, "gemini", nil)))
		}
	}
	accept := dialecttest.ReadLines(t, "testdata/contract/accept.jsonl")
	cc.Valid(ours, cc.WriteLines(append(accept, referenceLines(t)...)))
	broken := schematest.SchemaRejects(dialecttest.ReadLines(t, "testdata/contract/reject.jsonl"))
	cc.Invalid(ours, cc.WriteLines(broken))
	if passed, _ := cc.Run(py, schematest.Script); passed < lines+len(accept)+len(broken) {
		t.Errorf("only %d lines checked, expected at least %d", passed, lines+len(accept)+len(broken))
	}
}
