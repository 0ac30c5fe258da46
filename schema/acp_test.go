package schema_test

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
	"github.com/evtool/evtool/validate"
)

// Messages both the official ACP schema and evtool's must reject.
var brokenACP = []string{
	`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":"c1","title":"x","kind":"reading"}}}`,
	`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":"c1"}}}`,
	`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text"}}}}`,
	`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"plan","entries":[{"content":"a","status":"pending"}]}}}`,
	`{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"no session"}}}}`,
	`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call_update","toolCallId":"c1","status":"cancelled"}}}`,
	`{"jsonrpc":"2.0","id":3,"method":"session/request_permission","params":{"sessionId":"s","toolCall":{"toolCallId":"c1"},"options":[{"optionId":"a","name":"A","kind":"maybe"}]}}`,
	`{"jsonrpc":"2.0","id":3,"result":{"stopReason":"done"}}`,
}

// TestACPAgreesWithOfficialSchema validates every params (and result) that
// --to acp writes, for every test stream, against the official ACP schema
// with python-jsonschema: the stable profile against schema.json (so it
// never uses an unstable variant), the unstable one against
// schema.unstable.json. The same lines validate against evtool's own
// acp.schema.json, and broken ones fail against both.
func TestACPAgreesWithOfficialSchema(t *testing.T) {
	name := os.Getenv("EVTOOL_PYTHON")
	if name == "" {
		name = "python3"
	}
	py, err := exec.LookPath(name)
	if err != nil {
		t.Fatalf("%s is needed for the ACP schema check: %v", name, err)
	}
	official, _ := filepath.Abs("../../shared/acp-schema")
	ours, _ := filepath.Abs("acp.schema.json")
	dir := t.TempDir()
	// The bundled streams and real captures of every wire dialect in the
	// registry, so that a new dialect's projection onto ACP is checked too.
	var files []string
	for _, d := range wireDialects() {
		for _, dir := range []string{"../testdata/streams/", "../../shared/corpus/", "../../shared/dialects-next/captures/"} {
			m, _ := filepath.Glob(dir + d + "/*.jsonl")
			files = append(files, m...)
		}
	}
	// The ACP goldens' inputs and the probe's valid streams: every test
	// stream of every dialect.
	for _, g := range []string{"../testdata/acp/*.jsonl", "../testdata/probe/*/valid/*.jsonl"} {
		m, _ := filepath.Glob(g)
		for _, f := range m {
			if !strings.HasSuffix(f, ".acp.jsonl") && !strings.HasSuffix(f, ".transcript.jsonl") {
				files = append(files, f)
			}
		}
	}
	type crossCase struct {
		Schema string `json:"schema"`
		File   string `json:"file"`
		Expect string `json:"expect"`
		ACP    bool   `json:"acp"`
	}
	var cases []crossCase
	lines := 0
	to, _ := dialect.Lookup(acp.Name)
	for _, f := range files {
		for _, profile := range []string{acp.Stable, acp.Unstable, acp.Basis} {
			for _, transcript := range []string{"false", "true"} {
				in, err := os.Open(f)
				if err != nil {
					t.Fatal(err)
				}
				var out bytes.Buffer
				_, err = convert.Run(in, &out, f, convert.Options{To: to, Config: &acp.Config{Profile: profile, Meta: transcript == "true", Transcript: transcript == "true"}},
					func(le *convert.LineError) { t.Error(le) })
				in.Close()
				if err != nil {
					t.Fatal(err)
				}
				p := filepath.Join(dir, strings.NewReplacer("/", "_", ".", "_").Replace(f)+"."+profile+"."+transcript+".jsonl")
				if err := os.WriteFile(p, out.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				lines += strings.Count(out.String(), "\n")
				if out.Len() == 0 && profile == acp.Basis && transcript == "false" {
					// A stream of only the user's prompt and the run's
					// end: the basis client sent the prompt itself, so
					// its log has nothing to show, and nothing to check.
					continue
				}
				sch := filepath.Join(official, "schema.json")
				if profile == acp.Unstable {
					sch = filepath.Join(official, "schema.unstable.json")
				}
				cases = append(cases, crossCase{sch, p, "valid", true}, crossCase{ours, p, "valid", false})
				// evtool's own validator finds no error in its output either.
				sum, err := validate.Stream(bytes.NewReader(out.Bytes()), p, validate.Options{Dialect: to}, func(d validate.Diagnostic) {
					if d.Severity == dialect.Error || profile != acp.Unstable {
						t.Errorf("%s", d)
					}
				})
				if err != nil || sum.Errors > 0 {
					t.Errorf("%s (%s): %+v %v", f, profile, sum, err)
				}
			}
		}
	}
	bp := filepath.Join(dir, "broken.acp.jsonl")
	os.WriteFile(bp, []byte(strings.Join(brokenACP, "\n")+"\n"), 0o644)
	cases = append(cases,
		crossCase{filepath.Join(official, "schema.json"), bp, "invalid", true},
		crossCase{filepath.Join(official, "schema.unstable.json"), bp, "invalid", true},
		crossCase{ours, bp, "invalid", false})
	manifest, _ := json.Marshal(cases)
	mp := filepath.Join(dir, "manifest.json")
	os.WriteFile(mp, manifest, 0o644)
	out, err := exec.Command(py, "testdata/crosscheck.py", mp).CombinedOutput()
	if err != nil {
		t.Fatalf("ACP schema check failed: %v\n%s", err, out)
	}
	m := regexp.MustCompile(`crosscheck: (\d+) passed`).FindSubmatch(out)
	if n, _ := strconv.Atoi(string(m[1])); n < 2*lines+3*len(brokenACP) {
		t.Errorf("only %d checks for %d lines", n, lines)
	}
	t.Logf("%s", bytes.TrimSpace(out))
}
