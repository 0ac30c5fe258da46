package report_test

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/evtool/evtool/diag"
	"github.com/evtool/evtool/internal/jsonptr"
	"github.com/evtool/evtool/report"
	"github.com/evtool/evtool/validate"
)

// hostileKeys are keys a line may hold that a JSON pointer or a report
// must take care of.
var hostileKeys = []string{
	"foo\nbar", "cr\rlf", "tab\there", `q"uote`, `back\slash`, "c\x01trl", "esc\x1b[31m", "del\x7f",
	"a~b", "a/b", "~1", "~0/~", "/", "~", "", "sep\u2028par\u2029", "bidi\u202e", "c1\u0085", "é 𝄞",
}

// hostileRun validates a line whose every key is hostile (and an object
// under one of them whose keys are too) against a user's schema that
// rejects every value, as `evtool validate --schema` does, and returns the
// line, the results and the json and sarif reports.
func hostileRun(t *testing.T) (line []byte, rs []*validate.Result, reports map[string][]byte) {
	t.Helper()
	dir := t.TempDir()
	obj := map[string]any{}
	inner := map[string]any{}
	for _, k := range hostileKeys {
		obj[k] = "x"
		inner[k] = "y"
	}
	obj["nested/~\n"] = inner
	line, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(dir, "keys.jsonl")
	sch := filepath.Join(dir, "ints.schema.json")
	if err := os.WriteFile(in, append(line, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(sch, []byte(`{"additionalProperties": {"type": ["integer", "object"], "additionalProperties": {"type": "integer"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := validate.CompileSchema(sch)
	if err != nil {
		t.Fatal(err)
	}
	ins, err := validate.Inputs([]string{in})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := validate.Run(ins, validate.RunOptions{Options: validate.Options{Schema: s}}, func(r *validate.Result) { rs = append(rs, r) }); err != nil {
		t.Fatal(err)
	}
	if len(rs) != 1 || len(rs[0].Diagnostics) != 2*len(hostileKeys) {
		t.Fatalf("%d results, %d diagnostics, want %d", len(rs), len(rs[0].Diagnostics), 2*len(hostileKeys))
	}
	reports = map[string][]byte{}
	for _, f := range []string{"json", "sarif"} {
		var b bytes.Buffer
		if err := report.Write(&b, f, tool, rs); err != nil {
			t.Fatal(err)
		}
		reports[f] = b.Bytes()
	}
	return line, rs, reports
}

// wantPointer is the pointer a report gives for a key path: each key
// escaped as a pointer token (~0, ~1), then for a terminal.
func wantPointer(keys ...string) string { return diag.Escape(jsonptr.Join(keys...)) }

// resolve follows a JSON pointer into v, or reports that it cannot.
func resolve(v any, ptr string) (any, bool) {
	if ptr == "" {
		return v, true
	}
	if !strings.HasPrefix(ptr, "/") {
		return nil, false
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[jsonptr.Unescape(tok)]; !ok {
			return nil, false
		}
	}
	return v, true
}

// The pointers of the json and sarif reports are RFC 6901 pointers: a
// key's "~" and "/" written ~0 and ~1, so that a key with neither
// resolves as written, and a key that holds what a terminal must not see
// escaped on top of that (issue 28).
func TestReportPointers(t *testing.T) {
	line, _, reports := hostileRun(t)
	var inst any
	if err := json.Unmarshal(line, &inst); err != nil {
		t.Fatal(err)
	}
	var want []string
	exact := map[string]bool{} // pointers not escaped for a terminal
	for _, k := range hostileKeys {
		for _, path := range [][]string{{k}, {"nested/~\n", k}} {
			p := wantPointer(path...)
			want = append(want, p)
			exact[p] = p == jsonptr.Join(path...)
		}
	}
	slices.Sort(want)
	if n := len(exact); n != len(want) {
		t.Fatalf("%d distinct pointers for %d key paths", n, len(want))
	}
	if !exact[`/q"uote`] || !exact["/a~1b"] || exact["/foo\\nbar"] {
		t.Fatalf("exact: %v", exact)
	}

	var doc struct {
		Files []struct {
			Diagnostics []struct{ Pointer string }
		}
	}
	if err := json.Unmarshal(reports["json"], &doc); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range doc.Files[0].Diagnostics {
		got = append(got, d.Pointer)
		if !exact[d.Pointer] {
			continue // a key escaped for a terminal: not resolvable as written
		}
		if v, ok := resolve(inst, d.Pointer); !ok || (v != "x" && v != "y") {
			t.Errorf("the pointer %q does not resolve to the value it names (%v, %v)", d.Pointer, v, ok)
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("json pointers\n got %q\nwant %q", got, want)
	}

	var sarif struct {
		Runs []struct {
			Results []struct {
				Properties struct{ Pointer string }
			}
		}
	}
	if err := json.Unmarshal(reports["sarif"], &sarif); err != nil {
		t.Fatal(err)
	}
	got = got[:0]
	for _, r := range sarif.Runs[0].Results {
		got = append(got, r.Properties.Pointer)
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("sarif pointers\n got %q\nwant %q", got, want)
	}
}

// reportCases are documents for the report schema: evtool's own json
// report of hostile keys, which must be valid, and variants of it with a
// pointer the schema must accept (a raw newline, issue 28) or refuse.
func reportCases(t *testing.T) (docs map[string][]byte, valid map[string]bool) {
	t.Helper()
	_, _, reports := hostileRun(t)
	docs, valid = map[string][]byte{"evtool": reports["json"]}, map[string]bool{"evtool": true}
	for name, c := range map[string]struct {
		ptr   string
		valid bool
	}{
		"raw-newline":   {"/foo\nbar/a\u2028b\r\u0085\x01", true},
		"escaped-tilde": {"/a~0b~1c/~1~0", true},
		"whole-line":    {"", true},
		"bare-tilde":    {"/a~b", false},
		"tilde-2":       {"/a~2", false},
		"tilde-at-end":  {"/a~", false},
		"no-slash":      {"a/b", false},
	} {
		var doc map[string]any
		if err := json.Unmarshal(reports["json"], &doc); err != nil {
			t.Fatal(err)
		}
		d := doc["files"].([]any)[0].(map[string]any)["diagnostics"].([]any)[0].(map[string]any)
		d["pointer"] = c.ptr
		b, err := json.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		docs[name], valid[name] = b, c.valid
	}
	return docs, valid
}

const reportSchema = "../schema/report.schema.json"

// The json report of hostile keys is valid against
// schema/report.schema.json, whose pointer pattern takes any character
// after a "/" and only ~0 or ~1 after a "~": by evtool's own engine, by
// ajv and by python-jsonschema (each of the last two where it is
// installed: make test installs both).
func TestReportSchemaHostileKeys(t *testing.T) {
	docs, valid := reportCases(t)
	names := slices.Sorted(maps.Keys(docs))
	sch, err := validate.CompileSchema(reportSchema)
	if err != nil {
		t.Fatal(err)
	}
	verdicts := map[string]map[string]bool{"evtool": {}}
	for _, n := range names {
		ok := true
		_, err := validate.Stream(bytes.NewReader(append(docs[n], '\n')), n, validate.Options{Schema: sch}, func(d validate.Diagnostic) {
			ok = false
			if valid[n] {
				t.Errorf("evtool: %s: %s", n, d)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		verdicts["evtool"][n] = ok
	}

	dir := t.TempDir()
	var paths []string
	for _, n := range names {
		p := filepath.Join(dir, n+".json")
		if err := os.WriteFile(p, docs[n], 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	schemaPath, err := filepath.Abs(reportSchema)
	if err != nil {
		t.Fatal(err)
	}
	if out, ok := runAjv(t, schemaPath, paths); ok {
		verdicts["ajv"] = parseVerdicts(t, "ajv", out, names)
	}
	if out, ok := runPython(t, schemaPath, paths); ok {
		verdicts["python-jsonschema"] = parseVerdicts(t, "python-jsonschema", out, names)
	}
	for engine, vs := range verdicts {
		for _, n := range names {
			if vs[n] != valid[n] {
				t.Errorf("%s: %s: valid %v, want %v", engine, n, vs[n], valid[n])
			}
		}
	}
}

// parseVerdicts reads one "valid" or "invalid" a line, one per document.
func parseVerdicts(t *testing.T, engine string, out []byte, names []string) map[string]bool {
	t.Helper()
	lines := strings.Fields(string(out))
	if len(lines) != len(names) {
		t.Fatalf("%s: %d verdicts for %d documents:\n%s", engine, len(lines), len(names), out)
	}
	vs := map[string]bool{}
	for i, n := range names {
		vs[n] = lines[i] == "valid"
	}
	return vs
}

// runAjv judges the documents with ajv's draft 2020-12 build, from the
// ajv differential's pinned install.
func runAjv(t *testing.T, schema string, docs []string) ([]byte, bool) {
	t.Helper()
	ajv, err := filepath.Abs("../internal/testkit/ajvdiff/testdata/node_modules/ajv/dist/2020.js")
	if err != nil {
		t.Fatal(err)
	}
	node, err := exec.LookPath("node")
	if _, serr := os.Stat(ajv); err != nil || serr != nil {
		t.Logf("ajv not run: node or ajv missing (npm ci --prefix internal/testkit/ajvdiff/testdata installs ajv)")
		return nil, false
	}
	const script = `
const { readFileSync } = require("node:fs");
const Ajv2020 = require(process.argv[1]).default;
const ajv = new Ajv2020({ strict: false, validateFormats: false });
const validate = ajv.compile(JSON.parse(readFileSync(process.argv[2], "utf8")));
for (const f of process.argv.slice(3)) {
  console.log(validate(JSON.parse(readFileSync(f, "utf8"))) ? "valid" : "invalid");
}`
	out, err := exec.Command(node, append([]string{"-e", script, ajv, schema}, docs...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("ajv: %v\n%s", err, out)
	}
	return out, true
}

// runPython judges the documents with python-jsonschema's Draft 2020-12
// validator ($EVTOOL_PYTHON, as make test sets it, or python3).
func runPython(t *testing.T, schema string, docs []string) ([]byte, bool) {
	t.Helper()
	name := os.Getenv("EVTOOL_PYTHON")
	if name == "" {
		name = "python3"
	}
	py, err := exec.LookPath(name)
	if err == nil {
		err = exec.Command(py, "-c", "import jsonschema").Run()
	}
	if err != nil {
		t.Logf("python-jsonschema not run: %s with jsonschema is missing (.ci/run installs it)", name)
		return nil, false
	}
	const script = `
import json, sys
from jsonschema import Draft202012Validator
v = Draft202012Validator(json.load(open(sys.argv[1], encoding="utf-8")))
for f in sys.argv[2:]:
    print("valid" if v.is_valid(json.load(open(f, encoding="utf-8"))) else "invalid")
`
	out, err := exec.Command(py, append([]string{"-c", script, schema}, docs...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("python-jsonschema: %v\n%s", err, out)
	}
	return out, true
}
