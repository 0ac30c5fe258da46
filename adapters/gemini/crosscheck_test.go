package gemini_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/evtool/evtool/adapters/acp"
	"github.com/evtool/evtool/convert"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/dialecttest"
	"github.com/evtool/evtool/internal/teststreams"
	"github.com/evtool/evtool/validate"
)

type crossCase struct {
	Schema string `json:"schema"`
	File   string `json:"file"`
	Expect string `json:"expect"`
	ACP    bool   `json:"acp,omitempty"`
}

// TestCrossCheck has python-jsonschema (schema/testdata/crosscheck.py, as
// make test runs it) judge what this adapter publishes and writes:
// gemini's schema against the written streams, the contract lines, the
// reference's examples, every other dialect's test streams converted to
// gemini, and the refused lines; the canonical schema against the
// canonical reading of the gemini streams; and the official ACP schema
// against their ACP projection in every profile, with evtool's own
// validator finding no error in it either.
func TestCrossCheck(t *testing.T) {
	name := os.Getenv("EVTOOL_PYTHON")
	if name == "" {
		name = "python3"
	}
	py, err := exec.LookPath(name)
	if err != nil {
		t.Fatalf("%s is needed for the schema cross-check (.ci/run installs it): %v", name, err)
	}
	abs := func(p string) string {
		a, err := filepath.Abs(p)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	dir := t.TempDir()
	n := 0
	write := func(data []byte) string {
		n++
		p := filepath.Join(dir, strconv.Itoa(n)+".jsonl")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
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
	ours := abs("gemini.schema.json")
	canon := abs("../canonical/canonical.schema.json")
	official := abs("../../../shared/acp-schema")
	var cases []crossCase
	lines := 0
	for _, f := range teststreams.Valid("gemini") {
		cases = append(cases, crossCase{ours, abs(f), "valid", false},
			crossCase{canon, write(conv(f, "canonical", nil)), "valid", false})
		for _, profile := range []string{acp.Stable, acp.Unstable, acp.Basis} {
			for _, transcript := range []string{"false", "true"} {
				out := conv(f, acp.Name, &acp.Config{Profile: profile, Transcript: transcript == "true", Meta: transcript == "true"})
				lines += bytes.Count(out, []byte("\n"))
				sch := filepath.Join(official, "schema.json")
				if profile == acp.Unstable {
					sch = filepath.Join(official, "schema.unstable.json")
				}
				cases = append(cases, crossCase{sch, write(out), "valid", true})
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
			cases = append(cases, crossCase{ours, write(conv(f, "gemini", nil)), "valid", false})
		}
	}
	accept := dialecttest.ReadLines(t, "testdata/contract/accept.jsonl")
	cases = append(cases, crossCase{ours, write([]byte(strings.Join(append(accept, referenceLines(t)...), "\n") + "\n")), "valid", false})
	var broken []string
	rej := dialecttest.ReadLines(t, "testdata/contract/reject.jsonl")
	for i := 0; i+1 < len(rej); i += 2 {
		if strings.Contains(rej[i], `"schema":true`) {
			broken = append(broken, rej[i+1])
		}
	}
	cases = append(cases, crossCase{ours, write([]byte(strings.Join(broken, "\n") + "\n")), "invalid", false})

	manifest, _ := json.Marshal(cases)
	mp := filepath.Join(dir, "manifest.json")
	if err := os.WriteFile(mp, manifest, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(py, "../../schema/testdata/crosscheck.py", mp).CombinedOutput()
	if err != nil {
		t.Fatalf("python-jsonschema cross-check failed: %v\n%s", err, out)
	}
	m := regexp.MustCompile(`crosscheck: (\d+) passed, (\d+) failed`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("no summary from the cross-check:\n%s", out)
	}
	if passed, _ := strconv.Atoi(string(m[1])); passed < lines+len(accept)+len(broken) {
		t.Errorf("only %d lines checked, expected at least %d", passed, lines+len(accept)+len(broken))
	}
	t.Logf("%s", bytes.TrimSpace(out))
}
