package codex_test

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
	"github.com/evtool/evtool/adapters/codex"
	"github.com/evtool/evtool/convert"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/dialecttest"
	"github.com/evtool/evtool/internal/teststreams"
	"github.com/tidwall/gjson"
)

// TestCrossCheck is the portability check of codex.schema.json, with
// python-jsonschema (schema/testdata/crosscheck.py): every codex test
// stream validates against it, lines Codex refuses fail it, the canonical
// reading of every codex stream validates against canonical.schema.json,
// every other dialect's test stream converted to codex validates against
// it, and the ACP projection of every codex stream validates against the
// official ACP schema (stable and unstable profiles).
func TestCrossCheck(t *testing.T) {
	name := os.Getenv("EVTOOL_PYTHON") // set by make test
	if name == "" {
		name = "python3"
	}
	py, err := exec.LookPath(name)
	if err != nil {
		t.Fatalf("%s is needed for the schema cross-check: %v", name, err)
	}
	type crossCase struct {
		Schema string `json:"schema"`
		File   string `json:"file"`
		Expect string `json:"expect"`
		ACP    bool   `json:"acp,omitempty"`
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
	conv := func(f string, from, to dialect.Dialect, cfg dialect.Config) []byte {
		out, _ := convertFile(t, f, from, to, cfg, func(*convert.LineError) {})
		return out
	}
	self := abs("codex.schema.json")
	canonSchema := abs("../canonical/canonical.schema.json")
	official := abs("../../../shared/acp-schema")
	canon, _ := dialect.Lookup("canonical")
	to, _ := dialect.Lookup(acp.Name)
	var cases []crossCase
	lines := 0
	for _, f := range streams(t) {
		cases = append(cases, crossCase{self, abs(f), "valid", false})
		c := conv(f, codex.Dialect{}, canon, nil)
		cases = append(cases, crossCase{canonSchema, write(c), "valid", false})
		lines += 2 * bytes.Count(c, []byte("\n"))
		for _, profile := range []string{acp.Stable, acp.Unstable} {
			out := conv(f, codex.Dialect{}, to, &acp.Config{Profile: profile, Transcript: true})
			sch := filepath.Join(official, "schema.json")
			if profile == acp.Unstable {
				sch = filepath.Join(official, "schema.unstable.json")
			}
			cases = append(cases, crossCase{sch, write(out), "valid", true})
		}
	}
	for _, d := range dialect.All() {
		if d.Name() == codex.Name {
			continue
		}
		for _, f := range teststreams.Valid(d.Name()) {
			cases = append(cases, crossCase{self, write(conv(f, d, codex.Dialect{}, nil)), "valid", false})
		}
	}
	var broken []string
	rej := dialecttest.ReadLines(t, "testdata/contract/reject.jsonl")
	for i := 0; i+1 < len(rej); i += 2 {
		if gjson.Get(rej[i], "schema").Bool() {
			broken = append(broken, rej[i+1])
		}
	}
	cases = append(cases, crossCase{self, write([]byte(strings.Join(broken, "\n") + "\n")), "invalid", false})
	manifest, _ := json.Marshal(cases)
	mp := write(manifest)
	out, err := exec.Command(py, "../../schema/testdata/crosscheck.py", mp).CombinedOutput()
	if err != nil {
		t.Fatalf("python-jsonschema cross-check failed: %v\n%s", err, out)
	}
	m := regexp.MustCompile(`crosscheck: (\d+) passed, (\d+) failed`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("no summary from the cross-check:\n%s", out)
	}
	if passed, _ := strconv.Atoi(string(m[1])); passed < lines+len(broken) {
		t.Errorf("only %d lines checked, expected at least %d", passed, lines+len(broken))
	}
	t.Logf("%s", bytes.TrimSpace(out))

	// evtool's own ACP validator finds no error in the projection either.
	for _, f := range streams(t) {
		for _, profile := range []string{acp.Stable, acp.Unstable} {
			validates(t, f+" ("+profile+")", conv(f, codex.Dialect{}, to, &acp.Config{Profile: profile, Transcript: true}), to)
		}
	}
}
