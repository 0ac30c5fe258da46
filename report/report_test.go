package report_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	_ "github.com/evtool/evtool/adapters"
	"github.com/evtool/evtool/report"
	"github.com/evtool/evtool/validate"
)

var tool = report.Tool{Name: "evtool", Version: "dev", URI: "https://github.com/evtool/evtool"}

// results validates the test streams: a valid one, a broken one, one
// whose dialect cannot be told, one with warnings and an awkward name
// (made here: its name is not one a module may hold), and standard input.
func results(t *testing.T) []*validate.Result {
	t.Helper()
	dir := t.TempDir()
	odd := filepath.Join(dir, "warn,ing: odd <&> name.jsonl")
	body := `{"seq":0,"type":"run_started","schema":2,"basis":"0.6.2","session_id":"s","workspace":"/r","model":"m","provider":"p","context_files":[]}` + "\n" +
		`{"seq":1,"type":"new_thing"}` + "\n" + `{"seq":2,"type":"run_finished","status":"ok"}` + "\n"
	if err := os.WriteFile(odd, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	ins, err := validate.Inputs([]string{"testdata", "../testdata/streams/basis/schema1.jsonl", odd, "-"})
	if err != nil {
		t.Fatal(err)
	}
	var out []*validate.Result
	if _, err := validate.Run(ins, validate.RunOptions{Stdin: strings.NewReader(body)}, func(r *validate.Result) { out = append(out, r) }); err != nil {
		t.Fatal(err)
	}
	return out
}

func write(t *testing.T, format string, rs []*validate.Result) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := report.Write(&b, format, tool, rs); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestFormats(t *testing.T) {
	if got := strings.Join(report.IDs(), ","); got != "text,json,github,junit,sarif" {
		t.Errorf("formats %s", got)
	}
	if _, err := report.Lookup("xml"); err == nil || !strings.Contains(err.Error(), "text, json, github, junit, sarif") {
		t.Errorf("Lookup(xml): %v", err)
	}
	for _, f := range report.Formats() {
		if f.Summary == "" || f.New == nil {
			t.Errorf("format %s is incomplete", f.ID)
		}
	}
}

// Every format gives the same bytes for the same inputs, run after run
// and side by side.
func TestDeterministic(t *testing.T) {
	for _, f := range report.IDs() {
		want := write(t, f, results(t))
		var wg sync.WaitGroup
		got := make([][]byte, 3)
		for i := range got {
			wg.Add(1)
			go func() {
				defer wg.Done()
				got[i] = write(t, f, results(t))
			}()
		}
		wg.Wait()
		for i := range got {
			// The odd file lives in a fresh temporary directory each time.
			if norm(got[i]) != norm(want) {
				t.Errorf("%s: run %d differs", f, i)
			}
		}
	}
}

func norm(b []byte) string {
	s := string(b)
	for _, odd := range []string{"/warn,ing", "/warn%2Cing"} {
		if i := strings.Index(s, odd); i >= 0 {
			j := strings.LastIndexAny(s[:i], "\"= \n'")
			s = strings.ReplaceAll(s, s[j+1:i], "TMP")
		}
	}
	return s
}

// The json report validates against its published schema.
func TestJSONAgainstSchema(t *testing.T) {
	sch, err := validate.CompileSchema("../schema/report.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	doc := write(t, "json", results(t))
	var compact bytes.Buffer
	if err := json.Compact(&compact, doc); err != nil {
		t.Fatal(err)
	}
	compact.WriteByte('\n')
	_, err = validate.Stream(bytes.NewReader(compact.Bytes()), "report.json", validate.Options{Schema: sch}, func(d validate.Diagnostic) { t.Error(d) })
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Files []struct {
			File, Dialect, Failure string
			Errors, Warnings       int
			Diagnostics            []struct {
				Line, Column                     int
				Severity, Rule, Pointer, Keyword string
				SchemaLocation                   string `json:"schemaLocation"`
			}
		}
		Totals struct{ Files, Errors, Warnings, Failed int }
	}
	if err := json.Unmarshal(doc, &r); err != nil {
		t.Fatal(err)
	}
	if r.Totals.Files != 5 || r.Totals.Failed != 1 || r.Files[0].File != "../testdata/streams/basis/schema1.jsonl" || r.Files[4].File != "testdata/mystery.jsonl" {
		t.Fatalf("totals %+v, first file %q", r.Totals, r.Files[0].File)
	}
	schemaErrors := 0
	for _, f := range r.Files {
		for _, d := range f.Diagnostics {
			if d.Rule == "basis/schema" {
				schemaErrors++
				if d.Keyword != "type" || !strings.HasPrefix(d.SchemaLocation, "https://evtool.github.io/schema/basis.schema.json#") {
					t.Errorf("schema error without keyword and location: %+v", d)
				}
			}
		}
		if f.File == "testdata/mystery.jsonl" && !strings.Contains(f.Failure, "cannot tell the dialect") {
			t.Errorf("mystery: failure %q", f.Failure)
		}
	}
	if schemaErrors != 1 {
		t.Errorf("%d schema errors", schemaErrors)
	}
	// Something the schema must refuse, so that the check above can fail.
	bad := strings.Replace(compact.String(), `"severity":"error"`, `"severity":"fatal"`, 1)
	n := 0
	validate.Stream(strings.NewReader(bad), "bad.json", validate.Options{Schema: sch}, func(validate.Diagnostic) { n++ })
	if n == 0 {
		t.Error("the report schema accepts a severity it does not define")
	}
}

// SARIF parses as JSON and holds what code scanning needs.
func TestSARIF(t *testing.T) {
	var log struct {
		Version string
		Runs    []struct {
			Tool struct {
				Driver struct {
					Name  string
					Rules []struct {
						ID                   string
						ShortDescription     struct{ Text string }
						DefaultConfiguration struct{ Level string }
					}
				}
			}
			Invocations []struct {
				ExecutionSuccessful        bool
				ToolExecutionNotifications []struct{ Level string }
			}
			ColumnKind string
			Results    []struct {
				RuleID    string
				RuleIndex int
				Level     string
				Message   struct{ Text string }
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string }
						Region           *struct{ StartLine, StartColumn int }
					}
				}
			}
		}
	}
	doc := write(t, "sarif", results(t))
	if err := json.Unmarshal(doc, &log); err != nil {
		t.Fatal(err)
	}
	if log.Version != "2.1.0" || len(log.Runs) != 1 {
		t.Fatalf("version %q, %d runs", log.Version, len(log.Runs))
	}
	run := log.Runs[0]
	if run.Tool.Driver.Name != "evtool" || run.ColumnKind != "unicodeCodePoints" {
		t.Errorf("driver %q columnKind %q", run.Tool.Driver.Name, run.ColumnKind)
	}
	if inv := run.Invocations[0]; inv.ExecutionSuccessful || len(inv.ToolExecutionNotifications) != 1 {
		t.Errorf("the undetected stream must make the run unsuccessful: %+v", inv)
	}
	rules := run.Tool.Driver.Rules
	for i := 1; i < len(rules); i++ {
		if rules[i-1].ID >= rules[i].ID {
			t.Errorf("rules not sorted: %s, %s", rules[i-1].ID, rules[i].ID)
		}
	}
	if len(run.Results) < 8 {
		t.Fatalf("%d results", len(run.Results))
	}
	uris := map[string]bool{}
	for _, r := range run.Results {
		rule := rules[r.RuleIndex]
		if rule.ID != r.RuleID || rule.ShortDescription.Text == "" || rule.ShortDescription.Text == rule.ID {
			t.Errorf("result %s points at rule %+v", r.RuleID, rule)
		}
		loc := r.Locations[0].PhysicalLocation
		uris[loc.ArtifactLocation.URI] = true
		if r.RuleID != "basis/truncated" && (loc.Region == nil || loc.Region.StartLine < 1 || loc.Region.StartColumn < 1) {
			t.Errorf("result %s has no region", r.RuleID)
		}
	}
	if !uris["testdata/broken.jsonl"] || !uris["%3Cstdin%3E"] {
		t.Errorf("artifact URIs %v", uris)
	}
	for u := range uris {
		if strings.Contains(u, "warn") && !strings.HasPrefix(u, "file:///") || strings.Contains(u, " ") {
			t.Errorf("URI %q", u)
		}
	}
}

// JUnit parses as XML: one case per file, a failure per broken file and
// an error per file that could not be checked.
func TestJUnit(t *testing.T) {
	var suites struct {
		XMLName  xml.Name `xml:"testsuites"`
		Tests    int      `xml:"tests,attr"`
		Failures int      `xml:"failures,attr"`
		Errors   int      `xml:"errors,attr"`
		Suites   []struct {
			Tests int `xml:"tests,attr"`
			Cases []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Message string `xml:"message,attr"`
					Text    string `xml:",chardata"`
				} `xml:"failure"`
				Error *struct {
					Message string `xml:"message,attr"`
				} `xml:"error"`
				SystemOut string `xml:"system-out"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	doc := write(t, "junit", results(t))
	if err := xml.Unmarshal(doc, &suites); err != nil {
		t.Fatal(err)
	}
	if suites.Tests != 5 || suites.Failures != 1 || suites.Errors != 1 || len(suites.Suites) != 1 || len(suites.Suites[0].Cases) != 5 {
		t.Fatalf("%+v", suites)
	}
	for _, c := range suites.Suites[0].Cases {
		switch {
		case c.Name == "testdata/broken.jsonl":
			if c.Failure == nil || c.Failure.Message != "6 errors, 1 warning in 5 lines (basis)" || !strings.Contains(c.Failure.Text, "testdata/broken.jsonl:3:100: error: /is_error: got string, want boolean [basis/schema]\n") {
				t.Errorf("broken: %+v", c.Failure)
			}
		case c.Name == "testdata/mystery.jsonl":
			if c.Error == nil || !strings.Contains(c.Error.Message, "cannot tell") {
				t.Errorf("mystery: %+v", c)
			}
		case strings.HasSuffix(c.Name, "odd <&> name.jsonl"), c.Name == "<stdin>":
			if c.Failure != nil || !strings.Contains(c.SystemOut, "basis/unknown-type") {
				t.Errorf("%s: %+v", c.Name, c)
			}
		default:
			if c.Failure != nil || c.Error != nil || c.SystemOut != "" {
				t.Errorf("%s: %+v", c.Name, c)
			}
		}
	}
}

// GitHub workflow commands: one per diagnostic, escaped as the runner
// reads them.
func TestGitHub(t *testing.T) {
	out := string(write(t, "github", results(t)))
	for _, want := range []string{
		"::error file=testdata/broken.jsonl,line=2,col=42,title=json/syntax::invalid JSON: the line ends inside a value\n",
		"::warning file=testdata/broken.jsonl,line=3,col=8,title=basis/seq-gap::/seq: seq jumps from 0 to 2\n",
		"::error file=testdata/mystery.jsonl,title=evtool::",
		"odd <&> name.jsonl,line=2,col=17,title=basis/unknown-type::",
		"%2Cing%3A odd <&> name.jsonl",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if !strings.HasPrefix(l, "::error file=") && !strings.HasPrefix(l, "::warning file=") {
			t.Errorf("not a workflow command: %q", l)
		}
	}
}

func TestText(t *testing.T) {
	out := string(write(t, "text", results(t)))
	if !strings.Contains(out, "testdata/broken.jsonl:2:42: error: invalid JSON: the line ends inside a value [json/syntax]\n") {
		t.Errorf("%s", out)
	}
}
