package validate_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/stream"
	"github.com/evtool/evtool/validate"
)

func basisDialect(t *testing.T) dialect.Dialect {
	t.Helper()
	d, err := dialect.Lookup("basis")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// broken is a basis stream with errors on lines 2, 3 and 5, a warning on
// line 3 and an error only its end tells.
var brokenBasis = head + "\n" +
	`{"seq":1,"type":"user_message","text":"x"` + "\n" +
	`{"seq":3,"type":"tool_completed","tool_call_id":"c9","tool_name":"shell","summary":"ok","is_error":false}` + "\n" +
	`{"seq":4,"type":"user_message","text":"fine"}` + "\n" +
	`{"seq":4,"type":"user_message","text":"again"}` + "\n"

func TestDisable(t *testing.T) {
	all, sum := run(t, brokenBasis, validate.Options{})
	got, sum2 := run(t, brokenBasis, validate.Options{Disable: []string{"basis/seq-gap", "basis/truncated"}})
	if len(got) != len(all)-2 || sum2.Warnings != sum.Warnings-1 || sum2.Errors != sum.Errors-1 {
		t.Fatalf("disabling two rules: %d of %d diagnostics, summary %+v of %+v", len(got), len(all), sum2, sum)
	}
	for _, d := range got {
		if d.Rule == "basis/seq-gap" || d.Rule == "basis/truncated" {
			t.Errorf("disabled rule reported: %s", d)
		}
	}
}

func TestMaxErrors(t *testing.T) {
	all, _ := run(t, brokenBasis, validate.Options{})
	for n := 1; n <= 4; n++ {
		got, sum := run(t, brokenBasis, validate.Options{MaxErrors: n})
		errs := 0
		for _, d := range got {
			if d.Severity == dialect.Error {
				errs++
			}
		}
		if errs != n || sum.Errors != n || !sum.Stopped {
			t.Errorf("MaxErrors %d: %d errors, summary %+v", n, errs, sum)
		}
		for i := range got {
			if got[i] != all[i] {
				t.Errorf("MaxErrors %d: diagnostic %d is %s, want %s", n, i, got[i], all[i])
			}
		}
	}
	_, sum := run(t, brokenBasis, validate.Options{MaxErrors: 100})
	if sum.Stopped {
		t.Error("a limit not reached must not stop the stream")
	}
	if _, err := validate.Stream(strings.NewReader(brokenBasis), "x", validate.Options{MaxErrors: 1, Valid: &bytes.Buffer{}}, func(validate.Diagnostic) {}); err == nil {
		t.Error("MaxErrors with triage must be refused")
	}
}

// Lines go to the valid or the invalid output byte for byte, each with
// its own terminator; a warning
// does not make a line invalid, and what only the end tells fails no line.
func TestTriage(t *testing.T) {
	in := strings.Replace(brokenBasis, "\n", "\r\n", 1) + "\n   \n"
	var valid, invalid bytes.Buffer
	_, err := validate.Stream(strings.NewReader(in), "x", validate.Options{Valid: &valid, Invalid: &invalid}, func(validate.Diagnostic) {})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(brokenBasis, "\n"), "\n")
	// The first line ends in CRLF, and goes out so (issue 21).
	if want := lines[0] + "\r\n" + lines[3] + "\n"; valid.String() != want {
		t.Errorf("valid:\n%s\nwant\n%s", valid.String(), want)
	}
	if want := lines[1] + "\n" + lines[2] + "\n" + lines[4] + "\n"; invalid.String() != want {
		t.Errorf("invalid:\n%s\nwant\n%s", invalid.String(), want)
	}
	// Disabling the rule of a line's only error makes it valid.
	valid.Reset()
	invalid.Reset()
	if _, err := validate.Stream(strings.NewReader(in), "x", validate.Options{Valid: &valid, Invalid: &invalid, Disable: []string{"basis/seq-increasing"}}, func(validate.Diagnostic) {}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(valid.String(), lines[4]+"\n") {
		t.Errorf("valid:\n%s", valid.String())
	}
}

// TestTriageAsRead: the valid and invalid lines are the input's bytes: a
// byte order mark on the first line, CRLF and LF as they were, and a
// newline after a last line that had none; with workers too (issue 21:
// --valid-out turned CRLF into LF and dropped the BOM).
func TestTriageAsRead(t *testing.T) {
	in := "\xef\xbb\xbf" + strings.ReplaceAll(brokenBasis, "\n", "\r\n")
	in = strings.Replace(in, "\r\n", "\n", 2) // the first two lines end in LF
	in = strings.TrimSuffix(in, "\r\n")       // the last line in nothing
	var valid, invalid bytes.Buffer
	if _, err := validate.Stream(strings.NewReader(in), "x", validate.Options{Valid: &valid, Invalid: &invalid}, func(validate.Diagnostic) {}); err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(in, "\n")
	if want := lines[0] + lines[3]; valid.String() != want {
		t.Errorf("valid %q, want %q", valid.String(), want)
	}
	if want := lines[1] + lines[2] + lines[4] + "\n"; invalid.String() != want {
		t.Errorf("invalid %q, want %q", invalid.String(), want)
	}

	// Enough lines for the workers and the rules' goroutine.
	var b strings.Builder
	b.WriteString(head + "\r\n")
	for i := 1; b.Len() < 3<<20; i++ {
		fmt.Fprintf(&b, `{"seq":%d,"type":"user_message","text":"line %d"}`+"\r\n", i, i)
	}
	big := b.String()
	valid.Reset()
	if _, err := validate.Stream(strings.NewReader(big), "x", validate.Options{Valid: &valid, Invalid: &invalid, Workers: 2}, func(validate.Diagnostic) {}); err != nil {
		t.Fatal(err)
	}
	if valid.String() != big {
		t.Errorf("workers: the valid lines are not the input (%d bytes of %d)", valid.Len(), len(big))
	}
}

// TestRefusedInputIsAFinding: UTF-16 and binary input are one diagnostic
// of rule stream/input, a finding (not a usage error), before any line's
// (issue 21: validate gave no UTF-16 hint, and a binary file one
// diagnostic per "line").
func TestRefusedInputIsAFinding(t *testing.T) {
	var u16 []byte
	for _, c := range []byte(brokenBasis) {
		u16 = append(u16, c, 0)
	}
	dir := t.TempDir()
	files := map[string][]byte{
		"u16.jsonl": append([]byte{0xff, 0xfe}, u16...),
		"bin.jsonl": bytes.Repeat([]byte("\x00\x01\x02\x03\xfe\xff\n"), 10000),
	}
	var ins []validate.Input
	for name, b := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		ins = append(ins, validate.Input{Name: name, Path: p})
	}
	_, err := validate.Run(ins, validate.RunOptions{}, func(r *validate.Result) {
		if r.Err != nil || r.Errors != 1 || len(r.Diagnostics) != 1 || r.Diagnostics[0].Rule != stream.RuleInput {
			t.Errorf("%s: %v, %d errors, %v", r.File, r.Err, r.Errors, r.Diagnostics)
			return
		}
		want := map[string]string{"u16.jsonl": "the input looks like UTF-16", "bin.jsonl": "the input is binary"}[r.File]
		if !strings.Contains(r.Diagnostics[0].Message, want) {
			t.Errorf("%s: %s", r.File, r.Diagnostics[0].Message)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
}
