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

	_ "github.com/evtool/evtool/adapters"
	"github.com/evtool/evtool/convert"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/validate"
)

type crossCase struct {
	Schema string `json:"schema"`
	File   string `json:"file"`
	Expect string `json:"expect"`
}

// Lines each schema must reject, in any implementation.
var broken = map[string][]string{
	"basis": {
		`{"seq":2,"type":"tool_completed","tool_call_id":"c1","tool_name":"shell","summary":"ok","is_error":"no"}`,
		`{"seq":-1,"type":"assistant_delta","text":"hi"}`,
		`{"seq":3,"type":"task_updated","task_id":"t1","kind":"subagent","status":"running","title":"work","detail":null}`,
		`{"seq":4,"type":"usage","agent_id":"a","input_tokens":18446744073709551616,"output_tokens":0,"cache_read_tokens":0,"cache_creation_tokens":0}`,
		`{"seq":5,"type":"run_finished","status":"maybe"}`,
		`{"type":"assistant_delta","text":"no seq"}`,
	},
	"canonical": {
		`{"seq":1,"type":"tool_call","name":"shell"}`,
		`{"seq":1,"type":"martian"}`,
		`{"seq":1,"type":"usage","input_tokens":-5}`,
		`{"seq":1,"type":"message_delta","text":null}`,
		`{"seq":1,"type":"tool_finished","call_id":"c","status":"exploded"}`,
		`{"seq":1,"type":"turn_started","prompt":"no turn id"}`,
		`{"seq":1,"type":"notice","message":"m","time":"yesterday"}`,
	},
}

// TestCrossCheck validates the bundled basis streams, the reference
// examples, and the canonical output of every stream with python-jsonschema,
// and proves broken lines fail there too.
func TestCrossCheck(t *testing.T) {
	name := os.Getenv("EVTOOL_PYTHON") // set by make test
	if name == "" {
		name = "python3"
	}
	py, err := exec.LookPath(name)
	if err != nil {
		t.Fatalf("%s is needed for the schema cross-check (.ci/run installs it): %v", name, err)
	}
	dir := t.TempDir()
	var cases []crossCase
	abs := func(p string) string {
		a, err := filepath.Abs(p)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	basisSchema, canonSchema := abs("basis.schema.json"), abs("canonical.schema.json")
	write := func(name string, lines []string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}

	files, _ := filepath.Glob("../testdata/streams/basis/*.jsonl")
	if len(files) == 0 {
		t.Fatal("no basis streams")
	}
	toCanon, _ := dialect.Lookup("canonical")
	lines := 0
	for _, f := range files {
		cases = append(cases, crossCase{basisSchema, abs(f), "valid"})
		in, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if _, err := convert.Run(in, &out, f, convert.Options{To: toCanon}, func(le *convert.LineError) { t.Error(le) }); err != nil {
			t.Fatal(err)
		}
		in.Close()
		// With provenance too, so src is checked as well.
		in, _ = os.Open(f)
		var prov bytes.Buffer
		if _, err := convert.Run(in, &prov, f, convert.Options{To: toCanon, Provenance: true}, func(le *convert.LineError) { t.Error(le) }); err != nil {
			t.Fatal(err)
		}
		in.Close()
		base := strings.TrimSuffix(filepath.Base(f), ".jsonl")
		c := write(base+".canonical.jsonl", strings.Split(strings.TrimSpace(out.String()), "\n"))
		p := write(base+".provenance.jsonl", strings.Split(strings.TrimSpace(prov.String()), "\n"))
		cases = append(cases, crossCase{canonSchema, c, "valid"}, crossCase{canonSchema, p, "valid"})
		lines += 3 * strings.Count(out.String(), "\n")
	}
	ref, err := os.ReadFile("../../shared/dialects/basis.md")
	if err != nil {
		t.Fatalf("the basis reference is needed beside the repository: %v", err)
	}
	var examples []string
	for _, l := range strings.Split(string(ref), "\n") {
		if strings.HasPrefix(l, `{"seq":`) {
			examples = append(examples, l)
		}
	}
	cases = append(cases,
		crossCase{basisSchema, write("reference.jsonl", examples), "valid"},
		crossCase{basisSchema, write("broken.basis.jsonl", broken["basis"]), "invalid"},
		crossCase{canonSchema, write("broken.canonical.jsonl", broken["canonical"]), "invalid"},
	)
	manifest, _ := json.Marshal(cases)
	mpath := write("manifest.json", []string{string(manifest)})

	cmd := exec.Command(py, "testdata/crosscheck.py", mpath)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("python-jsonschema cross-check failed: %v\n%s", err, out)
	}
	m := regexp.MustCompile(`crosscheck: (\d+) passed, (\d+) failed`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("no summary from the cross-check:\n%s", out)
	}
	passed, _ := strconv.Atoi(string(m[1]))
	want := len(examples) + len(broken["basis"]) + len(broken["canonical"])
	if passed < want+lines/3 {
		t.Errorf("only %d lines checked, expected at least %d", passed, want+lines/3)
	}
	t.Logf("%s", bytes.TrimSpace(out))
}

// TestSchemasAreValidJSON checks the embedded files parse and carry $id.
func TestSchemasAreValidJSON(t *testing.T) {
	for _, name := range []string{"basis.schema.json", "canonical.schema.json"} {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Schema string         `json:"$schema"`
			ID     string         `json:"$id"`
			Defs   map[string]any `json:"$defs"`
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if doc.Schema != "https://json-schema.org/draft/2020-12/schema" || !strings.HasSuffix(doc.ID, "/"+name) {
			t.Errorf("%s: $schema %q $id %q", name, doc.Schema, doc.ID)
		}
	}
}

// TestGoAgrees checks that evtool's own validator rejects the same broken
// lines by schema, so the Go and Python readings of the files agree.
func TestGoAgrees(t *testing.T) {
	for name, lines := range broken {
		d, err := dialect.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range lines {
			schemaErr := false
			_, err := validate.Stream(strings.NewReader(l+"\n"), "x", validate.Options{Dialect: d}, func(diag validate.Diagnostic) {
				if diag.Rule == name+"/schema" {
					schemaErr = true
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			if !schemaErr {
				t.Errorf("%s schema accepts a line python rejects: %s", name, l)
			}
		}
	}
}
