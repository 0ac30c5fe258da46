package gemini_test

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/evtool/evtool/adapters/gemini"
	"github.com/evtool/evtool/convert"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/stream"
	"github.com/evtool/evtool/validate"
	"github.com/tidwall/gjson"
)

// Gemini CLI's stdout can carry banners and warnings that are not JSON
// (testdata/noisy, written from the reference's quirks). The one reading
// of package stream reports each such line as json/syntax and reads on:
// these tests hold it to that for gemini streams.

func validateAll(t *testing.T, data []byte, d dialect.Dialect) ([]validate.Diagnostic, validate.Summary) {
	t.Helper()
	var got []validate.Diagnostic
	sum, err := validate.Stream(bytes.NewReader(data), "x", validate.Options{Dialect: d}, func(dg validate.Diagnostic) { got = append(got, dg) })
	if err != nil {
		t.Fatal(err)
	}
	return got, sum
}

func convertAll(t *testing.T, data []byte, from dialect.Dialect, to string, onError convert.OnError) (string, []*convert.LineError) {
	t.Helper()
	target, err := dialect.Lookup(to)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	var errs []*convert.LineError
	if _, err := convert.Run(bytes.NewReader(data), &out, "x", convert.Options{From: from, To: target, OnError: onError}, func(le *convert.LineError) { errs = append(errs, le) }); err != nil {
		t.Fatal(err)
	}
	return out.String(), errs
}

// withoutNonJSON returns the lines of data that start with '{'.
func withoutNonJSON(data []byte) []byte {
	var out []byte
	for _, l := range bytes.SplitAfter(data, []byte("\n")) {
		if bytes.HasPrefix(l, []byte("{")) {
			out = append(out, l...)
		}
	}
	return out
}

// TestBannerLinesAreReportedAndSkipped: each banner is one json/syntax
// error at its line, detection still finds gemini, and every other line
// reads exactly as it does in the same stream without the banners. Kept
// (the default), a banner is an unknown event that holds its text: the
// canonical stream carries it, gemini counts it as a loss.
func TestBannerLinesAreReportedAndSkipped(t *testing.T) {
	data, err := os.ReadFile("testdata/noisy/written_banner_lines.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	clean := withoutNonJSON(data)
	diags, sum := validateAll(t, data, nil) // detected, not named
	if sum.Dialect != gemini.Name {
		t.Fatalf("detected %q, want gemini", sum.Dialect)
	}
	var lines []int
	for _, d := range diags {
		if d.Rule != stream.RuleSyntax {
			t.Errorf("unexpected diagnostic %s", d)
			continue
		}
		lines = append(lines, d.Line)
	}
	if len(lines) != 3 || lines[0] != 1 || lines[1] != 4 || lines[2] != 6 {
		t.Errorf("syntax errors at lines %v, want 1, 4 and 6", lines)
	}
	if clean, _ := validateAll(t, clean, nil); len(clean) != 0 {
		t.Fatalf("the stream without banners is not clean: %v", clean)
	}

	for _, to := range []string{"canonical", gemini.Name} {
		noisy, errs := convertAll(t, data, nil, to, convert.Skip)
		want, _ := convertAll(t, clean, nil, to, convert.Keep)
		if len(errs) != 3 || errs[0].Line != 1 || errs[1].Line != 4 || errs[2].Line != 6 {
			t.Errorf("--to %s: reported %v, want the three banner lines", to, errs)
		}
		if noisy != want {
			t.Errorf("--to %s --on-error skip: the good lines read differently next to banners:\n%s\nwant\n%s", to, noisy, want)
		}
	}
	// Kept, the canonical stream holds each banner's text where it stood,
	// and the other lines as they read without the banners.
	kept, _ := convertAll(t, data, nil, "canonical", convert.Keep)
	want, _ := convertAll(t, clean, nil, "canonical", convert.Keep)
	var banners, rest []string
	for _, l := range strings.Split(strings.TrimSuffix(kept, "\n"), "\n") {
		if r := gjson.Parse(l); r.Get("dialect").Str == convert.UnreadableDialect {
			banners = append(banners, r.Get("raw.text").Str)
			continue
		}
		rest = append(rest, gjson.Parse(l).Get("type").Raw)
	}
	var wantTypes []string
	for _, l := range strings.Split(strings.TrimSuffix(want, "\n"), "\n") {
		wantTypes = append(wantTypes, gjson.Parse(l).Get("type").Raw)
	}
	if strings.Join(banners, "|") != "Loaded cached credentials.|Warning: TERM is not set; colours are disabled.|Skill \"release-notes\" from the workspace overrides the user skill." {
		t.Errorf("kept banners %q", banners)
	}
	if strings.Join(rest, " ") != strings.Join(wantTypes, " ") {
		t.Errorf("kept: the other lines are %v, want %v", rest, wantTypes)
	}
	// Written back as gemini, kept or skipped, the banners are gone (kept,
	// each is counted as a loss) and the rest is as it was.
	for _, onError := range []convert.OnError{convert.Keep, convert.Skip} {
		back, _ := convertAll(t, data, gemini.Dialect{}, gemini.Name, onError)
		if back != string(clean) {
			t.Errorf("gemini → gemini (on error %d):\n%s\nwant\n%s", onError, back, clean)
		}
	}
}

// TestBannerGluedToInit: a banner glued to the init object makes the line
// not JSON. The reading reports it and goes on; the user's message, the
// first JSON line, still tells the dialect, and gemini/first-line says that
// init is missing. The decoder synthesises the session start, so the
// canonical stream is whole but has no session id or model: those were on
// the lost line. (Reading the object after the banner would need the
// reading itself to try the text from the first '{'; see the docs.) Kept
// (the default), the glued line's whole text goes on as an unknown event
// right after the session start, which a kept line never precedes.
func TestBannerGluedToInit(t *testing.T) {
	data, err := os.ReadFile("testdata/noisy/written_banner_glued.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(data), "MCP issues detected. Run /mcp list for status.{\"type\":\"init\"") {
		t.Fatal("the glued banner stream changed")
	}
	diags, sum := validateAll(t, data, nil)
	if sum.Dialect != gemini.Name {
		t.Fatalf("detected %q, want gemini", sum.Dialect)
	}
	var got []string
	for _, d := range diags {
		got = append(got, d.Rule)
		if d.Rule == stream.RuleSyntax && (d.Line != 1 || d.Col != 1) {
			t.Errorf("syntax error at %d:%d, want 1:1", d.Line, d.Col)
		}
	}
	if strings.Join(got, " ") != stream.RuleSyntax+" "+gemini.RuleFirstLine.ID {
		t.Errorf("diagnostics %v, want json/syntax then gemini/first-line", got)
	}
	kept, _ := convertAll(t, data, nil, "canonical", convert.Keep)
	keptLines := strings.SplitN(kept, "\n", 3)
	if first := gjson.Parse(keptLines[0]); first.Get("type").Str != "session_started" {
		t.Errorf("kept: first canonical line %s, want the session start (a kept line never comes before it)", first.Raw)
	}
	if second := gjson.Parse(keptLines[1]); second.Get("dialect").Str != convert.UnreadableDialect ||
		!strings.HasSuffix(second.Get("raw.text").Str, `"model":"gemini-3.5-flash"}`) {
		t.Errorf("kept: second canonical line %s, want the glued line's text", second.Raw)
	}
	out, errs := convertAll(t, data, nil, "canonical", convert.Skip)
	if len(errs) != 1 || errs[0].Line != 1 {
		t.Errorf("reported %v", errs)
	}
	first := strings.SplitN(out, "\n", 2)[0]
	if gjson.Get(first, "type").Str != "session_started" || !gjson.Get(first, "synthetic").Bool() || gjson.Get(first, "session_id").Exists() {
		t.Errorf("first canonical line %s", first)
	}
	canon, _ := dialect.Lookup("canonical")
	if cd, _ := validateAll(t, []byte(out), canon); len(cd) != 0 {
		t.Errorf("the canonical stream does not validate: %v", cd)
	}
}
