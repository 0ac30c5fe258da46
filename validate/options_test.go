package validate_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/evtool/evtool/dialect"
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

// Lines go to the valid or the invalid output byte for byte; a warning
// does not make a line invalid, and what only the end tells fails no line.
func TestTriage(t *testing.T) {
	in := strings.Replace(brokenBasis, "\n", "\r\n", 1) + "\n   \n"
	var valid, invalid bytes.Buffer
	_, err := validate.Stream(strings.NewReader(in), "x", validate.Options{Valid: &valid, Invalid: &invalid}, func(validate.Diagnostic) {})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(brokenBasis, "\n"), "\n")
	if want := lines[0] + "\n" + lines[3] + "\n"; valid.String() != want {
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
