package report

import (
	"encoding/json"
	"io"
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"github.com/evtool/evtool/diag"
	"github.com/evtool/evtool/rules"
	"github.com/evtool/evtool/validate"
)

// sarif writes one SARIF 2.1.0 log with one run, as code scanning reads
// it. The rules the results name are described in tool.driver.rules, from
// the catalogue; columns count characters (columnKind
// unicodeCodePoints), as evtool's do. An input that could not be checked
// is a tool execution notification, and the run is then not successful.
type sarif struct {
	w       io.Writer
	tool    Tool
	results []sarifResult
	notes   []sarifNotification
	ruleIDs map[string]bool
}

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool        sarifTool         `json:"tool"`
	Invocations []sarifInvocation `json:"invocations"`
	ColumnKind  string            `json:"columnKind"`
	Results     []sarifResult     `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri,omitempty"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID                   string             `json:"id"`
	ShortDescription     sarifMessage       `json:"shortDescription"`
	DefaultConfiguration sarifConfiguration `json:"defaultConfiguration"`
}

type sarifConfiguration struct {
	Level string `json:"level"`
}

type sarifMessage struct {
	Text string `json:"text"`
}

type sarifInvocation struct {
	ExecutionSuccessful        bool                `json:"executionSuccessful"`
	ToolExecutionNotifications []sarifNotification `json:"toolExecutionNotifications,omitempty"`
}

type sarifNotification struct {
	Level     string          `json:"level"`
	Message   sarifMessage    `json:"message"`
	Locations []sarifLocation `json:"locations"`
}

type sarifResult struct {
	RuleID     string          `json:"ruleId"`
	RuleIndex  int             `json:"ruleIndex"`
	Level      string          `json:"level"`
	Message    sarifMessage    `json:"message"`
	Locations  []sarifLocation `json:"locations"`
	Properties *sarifProps     `json:"properties,omitempty"`
}

// sarifProps carry what SARIF has no field for: where in the line, and
// for a schema error which keyword of which schema.
type sarifProps struct {
	Pointer        string `json:"pointer"`
	Keyword        string `json:"keyword,omitempty"`
	SchemaLocation string `json:"schemaLocation,omitempty"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           *sarifRegion  `json:"region,omitempty"`
}

type sarifArtifact struct {
	URI string `json:"uri"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn,omitempty"`
}

const sarifSchema = "https://json.schemastore.org/sarif-2.1.0.json"

func newSARIF(w io.Writer, tool Tool) Printer {
	return &sarif{w: w, tool: tool, results: []sarifResult{}, ruleIDs: map[string]bool{}}
}

func (p *sarif) File(r *validate.Result) error {
	r = escaped(r)
	if r.Err != nil {
		p.notes = append(p.notes, sarifNotification{Level: "error", Message: sarifMessage{r.Err.Error()},
			Locations: []sarifLocation{{sarifPhysical{ArtifactLocation: sarifArtifact{fileURI(r.File)}}}}})
	}
	for _, d := range r.Diagnostics {
		p.ruleIDs[d.Rule] = true
		msg := d.Message
		if d.Pointer != "" {
			msg = d.Pointer + ": " + msg
		}
		loc := sarifPhysical{ArtifactLocation: sarifArtifact{fileURI(d.File)}}
		if d.Line > 0 {
			loc.Region = &sarifRegion{StartLine: d.Line, StartColumn: d.Col}
		}
		res := sarifResult{RuleID: d.Rule, Level: level(d.Severity), Message: sarifMessage{msg}, Locations: []sarifLocation{{loc}}}
		if d.Pointer != "" || d.Keyword != "" || d.SchemaLocation != "" {
			res.Properties = &sarifProps{Pointer: d.Pointer, Keyword: d.Keyword, SchemaLocation: d.SchemaLocation}
		}
		p.results = append(p.results, res)
	}
	return nil
}

func level(s diag.Severity) string {
	if s == diag.Warning {
		return "warning"
	}
	return "error"
}

func (p *sarif) Close(validate.Totals) error {
	ids := slices.Sorted(func(yield func(string) bool) {
		for id := range p.ruleIDs {
			if !yield(id) {
				return
			}
		}
	})
	index := map[string]int{}
	rs := []sarifRule{}
	for i, id := range ids {
		index[id] = i
		r, ok := rules.Lookup(id)
		if !ok {
			r = rules.Rule{ID: id, Summary: id}
		}
		rs = append(rs, sarifRule{ID: id, ShortDescription: sarifMessage{r.Summary}, DefaultConfiguration: sarifConfiguration{level(r.Severity)}})
	}
	for i := range p.results {
		p.results[i].RuleIndex = index[p.results[i].RuleID]
	}
	doc := sarifLog{Schema: sarifSchema, Version: "2.1.0", Runs: []sarifRun{{
		Tool:        sarifTool{sarifDriver{Name: p.tool.Name, Version: p.tool.Version, InformationURI: p.tool.URI, Rules: rs}},
		Invocations: []sarifInvocation{{ExecutionSuccessful: len(p.notes) == 0, ToolExecutionNotifications: p.notes}},
		ColumnKind:  "unicodeCodePoints",
		Results:     p.results,
	}}}
	enc := json.NewEncoder(p.w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

// fileURI writes a file name as a URI reference: a relative path stays
// relative (to the directory evtool ran in, which code scanning takes as
// the repository's), an absolute one becomes a file: URI.
func fileURI(name string) string {
	p := filepath.ToSlash(name)
	u := url.URL{Path: p}
	if filepath.IsAbs(name) {
		u.Scheme = "file"
		return u.String()
	}
	s := u.EscapedPath()
	// A first segment with a colon would read as a scheme.
	if first, _, _ := strings.Cut(s, "/"); strings.Contains(first, ":") {
		s = "./" + s
	}
	return s
}
