package report

import (
	_ "embed"
	"encoding/json"
	"io"

	"github.com/evtool/evtool/validate"
)

// schemaDoc is the JSON Schema of the json format, published as
// schema/report.schema.json.
//
//go:embed report.schema.json
var schemaDoc []byte

// Schema returns the JSON Schema (draft 2020-12) of the json format.
func Schema() []byte { return schemaDoc }

// FormatVersion is the version of the json format's document; it changes
// when a field changes meaning or goes away.
const FormatVersion = 1

type jsonDoc struct {
	Version int        `json:"version"`
	Tool    jsonTool   `json:"tool"`
	Files   []jsonFile `json:"files"`
	Totals  jsonTotals `json:"totals"`
}

type jsonTool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

type jsonFile struct {
	File        string     `json:"file"`
	Dialect     string     `json:"dialect,omitempty"`
	Schema      string     `json:"schema,omitempty"`
	Lines       int        `json:"lines"`
	Errors      int        `json:"errors"`
	Warnings    int        `json:"warnings"`
	Stopped     bool       `json:"stopped"`
	Failure     string     `json:"failure,omitempty"`
	Diagnostics []jsonDiag `json:"diagnostics"`
}

type jsonDiag struct {
	File           string `json:"file"`
	Line           int    `json:"line"`
	Column         int    `json:"column"`
	Severity       string `json:"severity"`
	Rule           string `json:"rule"`
	Message        string `json:"message"`
	Pointer        string `json:"pointer"`
	Keyword        string `json:"keyword,omitempty"`
	SchemaLocation string `json:"schemaLocation,omitempty"`
}

type jsonTotals struct {
	Files    int `json:"files"`
	Lines    int `json:"lines"`
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	Failed   int `json:"failed"`
}

// jsonPrinter gathers the document and writes it on Close: the totals
// come last, and a document is only whole at the end. It is written on one
// line, so that the report is itself NDJSON: `evtool validate --schema
// schema/report.schema.json` checks it, and jq pretty-prints it.
type jsonPrinter struct {
	w   io.Writer
	doc jsonDoc
}

func newJSON(w io.Writer, tool Tool) Printer {
	return &jsonPrinter{w: w, doc: jsonDoc{Version: FormatVersion, Tool: jsonTool{tool.Name, tool.Version}, Files: []jsonFile{}}}
}

func (p *jsonPrinter) File(r *validate.Result) error {
	r = escaped(r)
	f := jsonFile{File: r.File, Dialect: r.Dialect, Schema: r.Schema, Lines: r.Lines, Errors: r.Errors,
		Warnings: r.Warnings, Stopped: r.Stopped, Diagnostics: []jsonDiag{}}
	if r.Err != nil {
		f.Failure = r.Err.Error()
	}
	for _, d := range r.Diagnostics {
		f.Diagnostics = append(f.Diagnostics, jsonDiag{File: d.File, Line: d.Line, Column: d.Col, Severity: d.Severity.String(),
			Rule: d.Rule, Message: d.Message, Pointer: d.Pointer, Keyword: d.Keyword, SchemaLocation: d.SchemaLocation})
	}
	p.doc.Files = append(p.doc.Files, f)
	return nil
}

func (p *jsonPrinter) Close(t validate.Totals) error {
	p.doc.Totals = jsonTotals{t.Files, t.Lines, t.Errors, t.Warnings, t.Failed}
	enc := json.NewEncoder(p.w)
	enc.SetEscapeHTML(false) // "<stdin>" as it reads
	return enc.Encode(p.doc)
}
