package diag

import "testing"

// TestStringEscapes: every part of a diagnostic that comes from the input
// is escaped, so that a key or a value cannot forge a line of a CI log
// (a newline and "::error") or drive a terminal (ESC).
func TestStringEscapes(t *testing.T) {
	d := Diagnostic{File: "a\x1b[31m.jsonl", Line: 3, Col: 7, Severity: Error, Rule: "basis/schema",
		Pointer: "/k\n::error file=README.md::pwned", Message: "got \"\u202eevil\", want \u2028x"}
	want := `a\x1b[31m.jsonl:3:7: error: /k\n::error file=README.md::pwned: got "\u202eevil", want \u2028x [basis/schema]`
	if got := d.String(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	plain := Diagnostic{File: "run.jsonl", Line: 1, Severity: Warning, Rule: "r", Message: "é ok"}
	if got := plain.String(); got != "run.jsonl:1: warning: é ok [r]" {
		t.Errorf("plain text changed: %s", got)
	}
}
