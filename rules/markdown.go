package rules

import (
	"bytes"
	_ "embed"
	"fmt"
	"strings"
	"text/template"

	"github.com/evtool/evtool/dialect"
)

// docTemplate is the prose of docs/rules.md. The tables come from the
// catalogue; a dialect's notes, if any, are the template named
// "notes/<dialect>".
//
//go:embed rules.md.tmpl
var docTemplate string

// Markdown returns docs/rules.md: the prose of rules.md.tmpl around one
// table per dialect, written from the catalogue, so that the document
// cannot say other than the code does.
func Markdown() ([]byte, error) {
	var tmpl *template.Template
	tmpl = template.New("rules.md").Funcs(template.FuncMap{
		"table":    func(rs []Rule) string { return table(rs) },
		"reading":  Reading,
		"dialects": func() []dialect.Dialect { return dialect.All() },
		"rulesOf":  Of,
		"notes": func(name string) (string, error) {
			t := tmpl.Lookup("notes/" + name)
			if t == nil {
				return "", nil
			}
			var b bytes.Buffer
			if err := t.Execute(&b, nil); err != nil {
				return "", err
			}
			return "\n" + strings.TrimSpace(b.String()) + "\n", nil
		},
	})
	if _, err := tmpl.Parse(docTemplate); err != nil {
		return nil, fmt.Errorf("rules.md.tmpl: %w", err)
	}
	var b bytes.Buffer
	if err := tmpl.Execute(&b, nil); err != nil {
		return nil, fmt.Errorf("rules.md.tmpl: %w", err)
	}
	return b.Bytes(), nil
}

// table renders rules as a Markdown table.
func table(rs []Rule) string {
	var b strings.Builder
	b.WriteString("| rule | severity | what it checks |\n|---|---|---|\n")
	for _, r := range rs {
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", r.ID, r.Severity, markdownCell.Replace(r.Summary))
	}
	return b.String()
}
