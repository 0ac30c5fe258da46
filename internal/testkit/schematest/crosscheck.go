package schematest

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

	"github.com/tidwall/gjson"
)

// Script is schema/testdata/crosscheck.py as an adapter's test (run in
// adapters/<name>) reaches it.
const Script = "../../schema/testdata/crosscheck.py"

// Python returns the interpreter that runs the cross-check: EVTOOL_PYTHON
// (make test sets it) or python3. A missing one fails the test rather than
// skipping it, so that a CI without python cannot pass unchecked.
func Python(t testing.TB) string {
	t.Helper()
	name := os.Getenv("EVTOOL_PYTHON")
	if name == "" {
		name = "python3"
	}
	py, err := exec.LookPath(name)
	if err != nil {
		t.Fatalf("%s is needed for the schema cross-check (.ci/run installs it): %v", name, err)
	}
	return py
}

// crossCase is one entry of crosscheck.py's manifest.
type crossCase struct {
	Schema string `json:"schema"`
	File   string `json:"file"`
	Expect string `json:"expect"`
	ACP    bool   `json:"acp,omitempty"`
}

// A CrossCheck gathers the files that one run of crosscheck.py judges with
// python-jsonschema, each against a schema, and the files written for it.
type CrossCheck struct {
	t     testing.TB
	dir   string
	n     int
	cases []crossCase
}

// NewCrossCheck returns an empty cross-check whose files go to a
// directory of t's.
func NewCrossCheck(t testing.TB) *CrossCheck {
	return &CrossCheck{t: t, dir: t.TempDir()}
}

// Abs returns p as an absolute path: the script runs elsewhere.
func (c *CrossCheck) Abs(p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		c.t.Fatal(err)
	}
	return a
}

// Write writes data to a new file and returns its path.
func (c *CrossCheck) Write(data []byte) string {
	c.n++
	p := filepath.Join(c.dir, strconv.Itoa(c.n)+".jsonl")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		c.t.Fatal(err)
	}
	return p
}

// WriteLines writes lines, each ended by a newline, to a new file and
// returns its path.
func (c *CrossCheck) WriteLines(lines []string) string {
	return c.Write([]byte(strings.Join(lines, "\n") + "\n"))
}

// CanonicalSchema returns the path of canonical.schema.json.
func (c *CrossCheck) CanonicalSchema() string { return c.Abs("../canonical/canonical.schema.json") }

// ACPSchema returns the path of the official ACP schema (kept beside the
// repository, in ../shared) that a projection is judged by: the unstable
// one for the unstable profile, the stable one for every other.
func (c *CrossCheck) ACPSchema(unstable bool) string {
	name := "schema.json"
	if unstable {
		name = "schema.unstable.json"
	}
	return c.Abs(filepath.Join("../../../shared/acp-schema", name))
}

// Valid has every line of file checked against schema, to pass.
func (c *CrossCheck) Valid(schema, file string) {
	c.cases = append(c.cases, crossCase{schema, file, "valid", false})
}

// ValidACP has every line of file, a JSON-RPC message, checked against
// schema (the ACP schema) by its params or result, to pass.
func (c *CrossCheck) ValidACP(schema, file string) {
	c.cases = append(c.cases, crossCase{schema, file, "valid", true})
}

// Invalid has every line of file checked against schema, to fail.
func (c *CrossCheck) Invalid(schema, file string) {
	c.cases = append(c.cases, crossCase{schema, file, "invalid", false})
}

// SchemaRejects returns, of the lines of a kit contract's reject.jsonl
// (pairs: a note {"pointer","schema"}, then a line the reader refuses),
// those whose note says that the schema refuses them too.
func SchemaRejects(rej []string) []string {
	var out []string
	for i := 0; i+1 < len(rej); i += 2 {
		if gjson.Get(rej[i], "schema").Bool() {
			out = append(out, rej[i+1])
		}
	}
	return out
}

var summary = regexp.MustCompile(`crosscheck: (\d+) passed, (\d+) failed`)

// Run runs script with python py on the cases gathered, fails the test
// when it fails or gives no summary, logs its output and returns the
// numbers of lines that passed and failed.
func (c *CrossCheck) Run(py, script string) (passed, failed int) {
	c.t.Helper()
	manifest, err := json.Marshal(c.cases)
	if err != nil {
		c.t.Fatal(err)
	}
	mp := filepath.Join(c.dir, "manifest.json")
	if err := os.WriteFile(mp, manifest, 0o644); err != nil {
		c.t.Fatal(err)
	}
	out, err := exec.Command(py, script, mp).CombinedOutput()
	if err != nil {
		c.t.Fatalf("python-jsonschema cross-check failed: %v\n%s", err, out)
	}
	m := summary.FindSubmatch(out)
	if m == nil {
		c.t.Fatalf("no summary from the cross-check:\n%s", out)
	}
	passed, _ = strconv.Atoi(string(m[1]))
	failed, _ = strconv.Atoi(string(m[2]))
	c.t.Logf("%s", bytes.TrimSpace(out))
	return passed, failed
}
