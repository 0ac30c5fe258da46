package evbeam

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/evtool/evtool/cli"
	"github.com/evtool/evtool/diag"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/report"
	"github.com/evtool/evtool/rules"
	"github.com/evtool/evtool/stream"
	"github.com/evtool/evtool/validate"
)

// ValidateOptions are `evtool validate`'s flags that apply to one run.
type ValidateOptions struct {
	// Dialect is the runs' dialect ("": detected from each first line).
	Dialect string
	// Strict makes findings about unknown types and fields errors.
	Strict bool
	// Disable silences rules (see `evtool rules`).
	Disable []string
	// MaxLineBytes refuses longer lines (0: the command line's default,
	// stream.DefaultMaxLineBytes; -1: no limit).
	MaxLineBytes int64
	// Workers check a run's lines ahead of its decoding (0: one per CPU).
	Workers int
}

// Result is what validating one run found: the validate.Result the
// command line prints (Validation), and the run's Key.
type Result struct {
	Key  string
	File string
	validate.Summary
	// Diagnostics are sorted by file, line, column, rule, pointer and
	// message (diag.Compare).
	Diagnostics []diag.Diagnostic `json:",omitempty"`
	// Err says why the run could not be checked (validate.Result.Err),
	// "" when it was.
	Err string `json:",omitempty"`
}

// Validation is the result as package validate has it.
func (r *Result) Validation() *validate.Result {
	v := &validate.Result{File: r.File, Summary: r.Summary, Diagnostics: r.Diagnostics}
	if r.Err != "" {
		v.Err = errors.New(r.Err)
	}
	return v
}

func newResult(key string, v *validate.Result) Result {
	r := Result{Key: key, File: v.File, Summary: v.Summary, Diagnostics: v.Diagnostics}
	if v.Err != nil {
		r.Err = v.Err.Error()
	}
	return r
}

// Validate validates each run on its own worker, as `evtool validate`
// does: one Result per run, its diagnostics sorted.
func Validate(s beam.Scope, runs beam.PCollection, opts ValidateOptions) beam.PCollection {
	s = s.Scope("evbeam.Validate")
	if _, err := opts.options(); err != nil {
		panic(fmt.Sprintf("evbeam.Validate: %v", err))
	}
	return beam.ParDo(s, &validateFn{Opts: opts}, runs)
}

// options are the library's options for opts.
func (opts ValidateOptions) options() (validate.Options, error) {
	d, err := lookupDialect(opts.Dialect)
	if err != nil {
		return validate.Options{}, err
	}
	if err := rules.CheckDisable(opts.Disable); err != nil {
		return validate.Options{}, err
	}
	return validate.Options{Dialect: d, Strict: opts.Strict, Disable: opts.Disable, MaxLineBytes: lineLimit(opts.MaxLineBytes), Workers: opts.Workers}, nil
}

func lookupDialect(name string) (dialect.Dialect, error) {
	if name == "" {
		return nil, nil
	}
	return dialect.Lookup(name)
}

// lineLimit is the command line's --max-line-bytes as stream.Options
// takes it: 0 the default, -1 no limit.
func lineLimit(n int64) int {
	switch {
	case n == 0:
		return stream.DefaultMaxLineBytes
	case n < 0:
		return -1
	}
	return int(n)
}

type validateFn struct {
	Opts ValidateOptions
	vo   validate.Options
	o    opener
}

func (f *validateFn) Setup() error {
	var err error
	f.vo, err = f.Opts.options()
	return err
}

func (f *validateFn) ProcessElement(ctx context.Context, r Run, emit func(Result)) error {
	in := validate.Input{Name: r.Name, Open: func() (io.ReadCloser, error) { return f.o.open(ctx, r) }}
	var got *validate.Result
	_, err := validate.Run([]validate.Input{in}, validate.RunOptions{Options: f.vo, Workers: 1}, func(res *validate.Result) { got = res })
	if err != nil {
		return err
	}
	if got == nil {
		return fmt.Errorf("%s: not validated", r.Name)
	}
	linesRead.Inc(ctx, int64(got.Lines))
	errorsFound.Inc(ctx, int64(got.Errors))
	warningsFound.Inc(ctx, int64(got.Warnings))
	if got.Err != nil {
		notChecked.Inc(ctx, 1)
	}
	emit(newResult(r.Key, got))
	return nil
}

func (f *validateFn) Teardown() { f.o.close() }

var (
	linesRead     = beam.NewCounter("evtool", "lines")
	errorsFound   = beam.NewCounter("evtool", "errors")
	warningsFound = beam.NewCounter("evtool", "warnings")
	notChecked    = beam.NewCounter("evtool", "not_checked")
)

// Diagnostics are the diagnostics of the results, one element each.
func Diagnostics(s beam.Scope, results beam.PCollection) beam.PCollection {
	s = s.Scope("evbeam.Diagnostics")
	return beam.ParDo(s, emitDiagnostics, results)
}

func emitDiagnostics(r Result, emit func(diag.Diagnostic)) {
	for _, d := range r.Diagnostics {
		emit(d)
	}
}

// ReportOptions name the program in a report.
type ReportOptions struct {
	// Tool is the program a report names (json, junit, sarif); zero: the
	// command line's own, evtool at cli.Version().
	Tool report.Tool
}

// Report writes the results in one of evtool's report formats
// (report.IDs: text, json, github, junit, sarif): one element, the bytes
// `evtool validate -f FORMAT` prints on the same runs. Every result is
// gathered on one worker, in the runs' order: a report holds the
// diagnostics, not the runs.
func Report(s beam.Scope, results beam.PCollection, format string, opts ...ReportOptions) beam.PCollection {
	s = s.Scope("evbeam.Report")
	if _, err := report.Lookup(format); err != nil {
		panic(fmt.Sprintf("evbeam.Report: %v", err))
	}
	var o ReportOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	// Every result, as a side input of one element: a report is written
	// for no run too.
	return beam.ParDo(s, &reportFn{Format: format, Tool: o.Tool}, beam.Impulse(s), beam.SideInput{Input: results})
}

// CLITool is how the command line names itself in a report.
func CLITool() report.Tool {
	return report.Tool{Name: "evtool", Version: cli.Version(), URI: "https://github.com/evtool/evtool"}
}

type reportFn struct {
	Format string
	Tool   report.Tool
}

func (f *reportFn) ProcessElement(_ []byte, results func(*Result) bool, emit func([]byte)) error {
	var all []Result
	var r Result
	for results(&r) {
		all = append(all, r)
		r = Result{}
	}
	slices.SortStableFunc(all, func(a, b Result) int { return strings.Compare(a.Key, b.Key) })
	rs := make([]*validate.Result, len(all))
	for i := range all {
		rs[i] = all[i].Validation()
	}
	tool := f.Tool
	if tool == (report.Tool{}) {
		tool = CLITool()
	}
	var b bytes.Buffer
	if err := report.Write(&b, f.Format, tool, rs); err != nil {
		return err
	}
	emit(b.Bytes())
	return nil
}
