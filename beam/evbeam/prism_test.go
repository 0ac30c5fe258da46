package evbeam

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"
	"github.com/evtool/evtool/report"
	"github.com/evtool/evtool/stats"
	"github.com/evtool/evtool/stream"
	"github.com/evtool/evtool/validate"
)

func TestMain(m *testing.M) {
	beam.Init()
	dir, err := os.MkdirTemp("", "evbeam-test-")
	if err != nil {
		panic(err)
	}
	tempRoot = dir
	code := m.Run()
	if os.Getenv("EVBEAM_KEEP") == "" {
		os.RemoveAll(dir)
	} else {
		fmt.Fprintln(os.Stderr, "evbeam: test files kept in", dir)
	}
	os.Exit(code)
}

// execute runs a pipeline on Prism, in this process.
func execute(t *testing.T, p *beam.Pipeline) error {
	t.Helper()
	start := time.Now()
	_, err := prism.Execute(context.Background(), p)
	t.Logf("pipeline on Prism: %v", time.Since(start).Round(time.Millisecond))
	return err
}

// usageCases are the usage reports compared with the command line's.
var usageCases = []UsageOptions{
	{By: "day,model", Timezone: "UTC", Format: "json"},
	{By: "day,model", Timezone: "UTC", Format: "text"},
	{By: "month,agent", Timezone: "UTC", Format: "csv"},
	{By: "week,project", Timezone: "Europe/Paris", StartOfWeek: "monday", Format: "markdown"},
	{By: "block", Timezone: "UTC", Format: "json"},
	{By: "tool", Timezone: "UTC", Format: "text"},
	{By: "session,run", Timezone: "UTC", Format: "json"},
}

func (o UsageOptions) args() []string {
	a := []string{"usage", "--by", o.By, "-z", o.Timezone, "-f", o.Format}
	if o.StartOfWeek != "" {
		a = append(a, "-w", o.StartOfWeek)
	}
	if o.Since != "" {
		a = append(a, "--since", o.Since)
	}
	if o.Until != "" {
		a = append(a, "--until", o.Until)
	}
	return a
}

// TestPrismMatchesCLI runs one pipeline on Prism over 1,000 generated
// runs of every dialect evtool writes (some gzip or zstd, some broken or
// torn) and the real captures, and holds its outputs to the command
// line's on the same files: every report format of validate, every
// converted run (to canonical and to claude), and usage reports by
// several dimensions, byte for byte.
func TestPrismMatchesCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the 1,000-run pipeline")
	}
	in := corpus(t)
	files := streamFiles(t, in)
	if len(files) < generated {
		t.Fatalf("%d runs in the corpus, want %d and more", len(files), generated)
	}
	t.Logf("%d runs", len(files))
	out := t.TempDir()

	p, s := beam.NewPipelineWithRoot()
	runs := Match(s, in)
	res := Validate(s, runs, ValidateOptions{})
	for _, f := range report.IDs() {
		WriteFile(s, Report(s, res, f), filepath.Join(out, "report."+f))
	}
	targets := []string{"canonical", "claude"}
	for _, to := range targets {
		Convert(s, runs, ConvertOptions{To: to, OutDir: filepath.Join(out, to)})
	}
	parts := UsageParts(s, runs, UsageOptions{})
	for i, o := range usageCases {
		WriteFile(s, UsageReport(s, parts, o), filepath.Join(out, fmt.Sprintf("usage-%d", i)))
	}
	ranged := UsageOptions{By: "day", Timezone: "UTC", Format: "json", Since: "2020-01-01", Until: "2026-06-30"}
	WriteFile(s, Usage(s, runs, ranged), filepath.Join(out, "usage-ranged"))
	if err := execute(t, p); err != nil {
		t.Fatal(err)
	}

	start := time.Now()
	for _, f := range report.IDs() {
		want, _, code := evtool("validate", "-q", "-f", f, in)
		if len(want) == 0 {
			t.Fatalf("evtool validate -f %s: exit %d, no report", f, code)
		}
		sameFile(t, filepath.Join(out, "report."+f), want)
	}
	for i, o := range usageCases {
		want, stderr, code := evtool(append(o.args(), in)...)
		if len(want) == 0 {
			t.Fatalf("evtool %s: exit %d\n%s", strings.Join(o.args(), " "), code, stderr)
		}
		sameFile(t, filepath.Join(out, fmt.Sprintf("usage-%d", i)), want)
		t.Logf("evtool %s: %d bytes, %d lines", strings.Join(o.args(), " "), len(want), bytes.Count(want, []byte("\n")))
	}
	want, _, _ := evtool(append(ranged.args(), in)...)
	sameFile(t, filepath.Join(out, "usage-ranged"), want)

	converted := 0
	for _, to := range targets {
		var written []string
		for _, f := range files {
			rel, _ := filepath.Rel(in, f)
			rel = strings.TrimSuffix(strings.TrimSuffix(rel, ".gz"), ".zst")
			ref := filepath.Join(t.TempDir(), "out.jsonl")
			_, _, code := evtool("convert", "-q", "--to", to, f, "-o", ref)
			got := filepath.Join(out, to, rel)
			want, err := os.ReadFile(ref)
			if err != nil {
				// Not written by the command line (exit 1 or 2): nor here.
				if _, err := os.Stat(got); err == nil {
					t.Errorf("%s: written as %s, while evtool convert (exit %d) wrote nothing", f, got, code)
				}
				continue
			}
			sameFile(t, got, want)
			written = append(written, got)
			converted++
		}
		all := streamFiles(t, filepath.Join(out, to))
		slices.Sort(written)
		if !slices.Equal(all, written) {
			t.Errorf("--to %s: %d outputs, the command line wrote %d", to, len(all), len(written))
		}
	}
	orderMatters(t, in, usageCases[6])
	t.Logf("compared with the command line: %d reports, %d converted runs (%v)", len(report.IDs())+len(usageCases)+1, converted, time.Since(start).Round(time.Millisecond))
	if converted < len(files) {
		t.Errorf("only %d conversions written, for %d runs and %d targets", converted, len(files), len(targets))
	}
}

// sameFile holds the file at path to want, byte for byte.
func sameFile(t *testing.T, path string, want []byte) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("%v", err)
		return
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the command line's output (%d bytes, want %d):\n%s", path, len(got), len(want), firstDiff(got, want))
	}
}

// firstDiff shows the first line where got and want differ.
func firstDiff(got, want []byte) string {
	g, w := bytes.Split(got, []byte("\n")), bytes.Split(want, []byte("\n"))
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl []byte
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if !bytes.Equal(gl, wl) {
			return fmt.Sprintf("line %d:\n got: %.400s\nwant: %.400s", i+1, gl, wl)
		}
	}
	return "(same lines)"
}

// orderMatters shows the comparison would see runs taken in another order:
// the same parts in the reverse order make another report (a response or
// call two runs repeat counts in the one read first), unlike the
// pipeline's.
func orderMatters(t *testing.T, in string, o UsageOptions) {
	t.Helper()
	inputs, err := validate.Inputs([]string{in})
	if err != nil {
		t.Fatal(err)
	}
	var parts []Part
	for _, r := range inputs {
		f, err := os.Open(r.Path)
		if err != nil {
			t.Fatal(err)
		}
		data, _, err := reduce(f, r.Name, stream.Options{})
		f.Close()
		if err == nil {
			parts = append(parts, Part{Key: r.Name, Name: r.Name, Data: data})
		}
	}
	render := func(parts []Part) []byte {
		ro, err := o.reportOptions()
		if err != nil {
			t.Fatal(err)
		}
		rp := stats.NewReport(ro)
		if err := replay(rp, parts); err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := stats.WriteReport(&b, o.format(), rp); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	want, _, _ := evtool(append(o.args(), in)...)
	if got := render(parts); !bytes.Equal(got, want) {
		t.Errorf("the parts, read in order, do not make the command line's report:\n%s", firstDiff(got, want))
	}
	slices.Reverse(parts)
	if got := render(parts); bytes.Equal(got, want) {
		t.Errorf("the parts make the same report in the reverse order: the test cannot tell the order the runs are counted in")
	}
}

// replay reads the parts, in the order given, into one report, as the
// command line reads runs.
func replay(rp *stats.Report, parts []Part) error {
	d, err := partDialect()
	if err != nil {
		return err
	}
	for _, p := range parts {
		opts := partReadOptions(d)
		opts.Report = rp
		run, err := stats.Read(bytes.NewReader(p.Data), p.Name, opts)
		if err == nil && run.BadLines > 0 {
			err = fmt.Errorf("%d lines with problems", run.BadLines)
		}
		if err != nil {
			return fmt.Errorf("evbeam: reading back the usage of %s: %w", p.Name, err)
		}
	}
	return nil
}
