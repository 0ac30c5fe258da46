package report_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/evtool/evtool/diag"
	"github.com/evtool/evtool/report"
	"github.com/evtool/evtool/validate"
)

func TestEscape(t *testing.T) {
	for in, want := range map[string]string{
		"plain /a/b: got 1, want 2 é 𝄞": "plain /a/b: got 1, want 2 é 𝄞",
		"a\nb\r\tc":                     `a\nb\r\tc`,
		"\x1b[31mred\x1b[0m":            `\x1b[31mred\x1b[0m`,
		"\x00\x7f":                      `\x00\x7f`,
		"bad \xff utf-8":                `bad \xff utf-8`,
		"c1 \u0085 \u009b":              `c1 \u0085 \u009b`,
		"sep \u2028 \u2029":             `sep \u2028 \u2029`,
		"bidi \u202e \u2066 \u200f":     `bidi \u202e \u2066 \u200f`,
		`a \u escape stays`:             `a \u escape stays`,
	} {
		if got := report.Escape(in); got != want {
			t.Errorf("Escape(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestHostileKeysInEveryFormat: a key or a value from the input that holds
// a newline and a workflow command, or a terminal escape, comes out of no
// format raw (issue 21: the text report printed pointers built from input
// keys raw, a workflow command in a CI log).
func TestHostileKeysInEveryFormat(t *testing.T) {
	const evil = "x\n::error file=README.md::pwned\x1b]0;title\x07\u009b31m\u202e"
	r := &validate.Result{File: "run\n::warning::.jsonl", Summary: validate.Summary{Dialect: "basis", Lines: 1, Errors: 1},
		Diagnostics: []validate.Diagnostic{{File: "run\n::warning::.jsonl", Line: 1, Col: 2, Severity: diag.Error, Rule: "basis/schema",
			Pointer: "/" + evil, Message: "got \"" + evil + "\", want integer"}}}
	failed := &validate.Result{File: "gone" + evil, Err: errors.New("open gone" + evil + ": no such file")}
	for _, f := range report.Formats() {
		var b bytes.Buffer
		p := f.New(&b, tool)
		if err := p.File(r); err != nil {
			t.Fatal(err)
		}
		if err := p.File(failed); err != nil {
			t.Fatal(err)
		}
		if err := p.Close(validate.Totals{Files: 2, Lines: 1, Errors: 1, Failed: 1}); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if f.ID == "json" || f.ID == "sarif" {
			// The document's strings, decoded, are what a viewer shows.
			var doc any
			if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
				t.Fatalf("%s: %v", f.ID, err)
			}
			var sb strings.Builder
			walkStrings(doc, func(s string) { sb.WriteString(s + "\n") })
			out = sb.String()
		}
		for _, line := range strings.Split(out, "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "::") && f.ID == "github" && !strings.HasPrefix(line, "::error file=run") && !strings.HasPrefix(line, "::error file=gone") {
				t.Errorf("%s: an injected workflow command: %q", f.ID, line)
			}
			if f.ID != "github" && strings.HasPrefix(strings.TrimSpace(line), "::") {
				t.Errorf("%s: a line starts a workflow command: %q", f.ID, line)
			}
		}
		for _, bad := range []string{"\x1b", "\x07", "\u009b", "\u202e"} {
			if strings.Contains(out, bad) {
				t.Errorf("%s: %q is in the output:\n%s", f.ID, bad, out)
			}
		}
		if !strings.Contains(out, `x\n::error file=README.md::pwned\x1b]0;title\x07\u009b31m\u202e`) && f.ID != "junit" && f.ID != "github" {
			t.Errorf("%s: the escaped key is not there:\n%s", f.ID, out)
		}
	}
}

func walkStrings(v any, f func(string)) {
	switch v := v.(type) {
	case string:
		f(v)
	case []any:
		for _, e := range v {
			walkStrings(e, f)
		}
	case map[string]any:
		for _, e := range v {
			walkStrings(e, f)
		}
	}
}
