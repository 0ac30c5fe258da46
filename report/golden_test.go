package report_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evtool/evtool/validate"
	"github.com/rogpeppe/go-internal/txtar"
)

// goldens returns the reviewed outputs the CLI scripts compare evtool's
// stdout with (cmd/evtool/testdata/script/validate_FORMAT.txtar): parsing
// them is parsing what evtool writes.
func goldens(t *testing.T, format, ext string) map[string][]byte {
	t.Helper()
	a, err := txtar.ParseFile(filepath.Join("..", "cmd", "evtool", "testdata", "script", "validate_"+format+".txtar"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, f := range a.Files {
		if strings.HasSuffix(f.Name, "."+ext) {
			out[f.Name] = f.Data
		}
	}
	for _, name := range []string{"valid", "broken", "undetected"} {
		if _, ok := out[name+"."+ext]; !ok {
			t.Fatalf("validate_%s.txtar has no %s.%s", format, name, ext)
		}
	}
	return out
}

// The SARIF goldens parse as JSON into SARIF 2.1.0's shape, and every
// result names a rule of tool.driver.rules by id and index.
func TestGoldenSARIF(t *testing.T) {
	for name, doc := range goldens(t, "sarif", "sarif") {
		var log struct {
			Schema  string `json:"$schema"`
			Version string
			Runs    []struct {
				Tool struct {
					Driver struct {
						Name  string
						Rules []struct{ ID string }
					}
				}
				Results []struct {
					RuleID    string
					RuleIndex int
					Level     string
					Locations []struct {
						PhysicalLocation struct {
							ArtifactLocation struct{ URI string }
						}
					}
				}
			}
		}
		if err := json.Unmarshal(doc, &log); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if log.Version != "2.1.0" || !strings.Contains(log.Schema, "sarif-2.1.0") || len(log.Runs) != 1 || log.Runs[0].Tool.Driver.Name != "evtool" {
			t.Errorf("%s: not a SARIF 2.1.0 log of evtool", name)
		}
		run := log.Runs[0]
		for _, r := range run.Results {
			if r.RuleIndex >= len(run.Tool.Driver.Rules) || run.Tool.Driver.Rules[r.RuleIndex].ID != r.RuleID {
				t.Errorf("%s: result %s has rule index %d", name, r.RuleID, r.RuleIndex)
			}
			if r.Level != "error" && r.Level != "warning" || !strings.HasPrefix(r.Locations[0].PhysicalLocation.ArtifactLocation.URI, "streams/") {
				t.Errorf("%s: result %+v", name, r)
			}
		}
		if name == "broken.sarif" && len(run.Results) != 15 {
			t.Errorf("%s: %d results, want 15", name, len(run.Results))
		}
	}
}

// The JUnit goldens parse as XML: one test case per file.
func TestGoldenJUnit(t *testing.T) {
	want := map[string][3]int{"valid.xml": {2, 0, 0}, "broken.xml": {4, 2, 0}, "undetected.xml": {2, 0, 1}}
	for name, doc := range goldens(t, "junit", "xml") {
		var s struct {
			Tests    int `xml:"tests,attr"`
			Failures int `xml:"failures,attr"`
			Errors   int `xml:"errors,attr"`
			Suite    struct {
				Cases []struct {
					Name    string    `xml:"name,attr"`
					Failure *struct{} `xml:"failure"`
				} `xml:"testcase"`
			} `xml:"testsuite"`
		}
		if err := xml.Unmarshal(doc, &s); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := [3]int{s.Tests, s.Failures, s.Errors}; got != want[name] || len(s.Suite.Cases) != s.Tests {
			t.Errorf("%s: tests, failures, errors = %v, want %v", name, got, want[name])
		}
	}
}

// The json goldens parse as JSON and validate against
// schema/report.schema.json.
func TestGoldenJSON(t *testing.T) {
	sch, err := validate.CompileSchema("../schema/report.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	for name, doc := range goldens(t, "json", "json") {
		var v map[string]any
		if err := json.Unmarshal(doc, &v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if bytes.Count(doc, []byte("\n")) != 1 {
			t.Errorf("%s: the report must be one line", name)
		}
		if _, err := validate.Stream(bytes.NewReader(doc), name, validate.Options{Schema: sch}, func(d validate.Diagnostic) { t.Error(d) }); err != nil {
			t.Fatal(err)
		}
	}
}
