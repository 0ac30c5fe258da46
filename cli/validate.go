package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/evtool/evtool/diag"
	"github.com/evtool/evtool/internal/outfile"
	"github.com/evtool/evtool/report"
	"github.com/evtool/evtool/rules"
	"github.com/evtool/evtool/stream"
	"github.com/evtool/evtool/validate"
	"github.com/urfave/cli/v3"
)

const validateLong = `Checks every stream named: a file, each *.jsonl and *.ndjson file under a
directory, or - for standard input (read without - too when no operand is
named and stdin is not a terminal). Streams are checked in parallel; the
report lists them sorted by file, and each one's diagnostics by line,
column and rule, so the same inputs give the same bytes.

Report formats (--format):
%s

The text format prints one problem per line:
FILE:LINE[:COL]: error|warning: [POINTER: ]MESSAGE [RULE]
Each file's summary and the total go to stderr:
evtool: 3 files, 12034 lines, 2 errors, 5 warnings

With --schema FILE, any NDJSON is checked against that JSON Schema (draft
2020-12 unless its $schema says otherwise; $ref to files beside it, never
the network) instead of a dialect's; its errors are json/schema. A schema
that cannot be compiled, or that applies itself to the same value without
end (a $ref cycle), is refused once, before any line is read: exit 2.

Exit 0 when no file has an error, 1 when one has, 2 for usage or I/O
errors and streams whose dialect cannot be told.`

// validateFlags are validate's command line.
type validateFlags struct {
	dialect              string
	strict, quiet        bool
	format               string
	schema               string
	assertFormat         bool
	validOut, invalidOut string
	disable              []string
	maxErrors            int
	jobs                 int
	maxLine              int64
}

func validateCmd() *cli.Command {
	var fl validateFlags
	var formats []string
	for _, f := range report.Formats() {
		formats = append(formats, "  "+f.ID+": "+f.Summary)
	}
	return &cli.Command{
		Name:        "validate",
		Usage:       "check streams against their dialect's schema and stream rules, or any NDJSON against a JSON Schema",
		ArgsUsage:   "[FILE|DIR|-...]",
		Description: fmt.Sprintf(validateLong, strings.Join(formats, "\n")),
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "dialect", Aliases: []string{"d"}, Destination: &fl.dialect, Usage: "the streams' `DIALECT` (default, or none: detected from each first line)"},
			&cli.BoolFlag{Name: "strict", Aliases: []string{"s"}, Destination: &fl.strict, Usage: "treat unknown types and fields as errors"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Destination: &fl.quiet, Usage: "print no summaries on stderr"},
			&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Value: "text", Destination: &fl.format, Usage: "the report's `FORMAT`: " + strings.Join(report.IDs(), ", ")},
			&cli.StringFlag{Name: "schema", Destination: &fl.schema, TakesFile: true, Usage: "check any NDJSON against this JSON Schema `FILE` instead of a dialect's"},
			&cli.BoolFlag{Name: "assert-format", Destination: &fl.assertFormat, Usage: "with --schema, fail strings that are not their \"format\" (date-time, email, ...) in every draft; without it, draft-07 and older assert format, 2019-09 and 2020-12 only annotate it"},
			&cli.StringFlag{Name: "valid-out", Validator: namesAFile, Destination: &fl.validOut, TakesFile: true, Usage: "write the lines without errors to `FILE`, byte for byte"},
			&cli.StringFlag{Name: "invalid-out", Validator: namesAFile, Destination: &fl.invalidOut, TakesFile: true, Usage: "write the lines with errors to `FILE`, byte for byte"},
			&cli.StringSliceFlag{Name: "disable", Destination: &fl.disable, Usage: "silence a `RULE` (repeatable, or comma-separated; see evtool rules)"},
			&cli.IntFlag{Config: base10, Name: "max-errors", Destination: &fl.maxErrors, Usage: "stop after `N` errors (0: no limit)"},
			&cli.IntFlag{Config: base10, Name: "jobs", Aliases: []string{"j"}, HideDefault: true, Destination: &fl.jobs, Usage: "check lines with `N` workers: several streams at once, or one stream's lines ahead of decoding (0, the default: one per CPU; 1: no workers)"},
			&cli.Int64Flag{Config: base10, Name: "max-line-bytes", Value: stream.DefaultMaxLineBytes, Destination: &fl.maxLine, Usage: "refuse lines longer than `N` bytes: each is reported and skipped (0: no limit)"},
		},
		Metadata: completions(map[string][]string{"dialect": sourceDialects(), "format": report.IDs(), "disable": checkingRules()}),
		Action: action(func(ctx context.Context, cmd *cli.Command, args []string) error {
			return runValidate(ctx, cmd, args, &fl)
		}),
	}
}

// checkingRules returns the ids of the rules that --disable can silence:
// all but those of reading, which always apply.
func checkingRules() []string {
	var ids []string
	for _, r := range rules.All() {
		if !r.Reading {
			ids = append(ids, r.ID)
		}
	}
	return ids
}

// validatePlan is a checked command line.
type validatePlan struct {
	operands []string
	format   report.Format
	opts     validate.RunOptions
}

// planValidate checks the command line before any stream is read: the
// flags must be known and fit together, and the schema of --schema must
// compile.
func planValidate(cmd *cli.Command, args []string, fl *validateFlags) (*validatePlan, error) {
	args, err := operandsOrStdin(cmd, args)
	if err != nil {
		return nil, err
	}
	d, err := lookupDialect("dialect", fl.dialect)
	if err != nil {
		return nil, err
	}
	f, err := report.Lookup(fl.format)
	if err != nil {
		return nil, usageErr("--format: %v%s", err, didYouMean(fl.format, report.IDs()))
	}
	fl.disable = splitList(fl.disable)
	for _, id := range fl.disable {
		if err := rules.CheckDisable([]string{id}); err != nil {
			return nil, usageErr("%v%s", err, didYouMean(id, checkingRules()))
		}
	}
	if fl.maxErrors < 0 {
		return nil, usageErr("--max-errors %d: want 0 (no limit) or more", fl.maxErrors)
	}
	if err := checkCounts(fl.jobs, fl.maxLine); err != nil {
		return nil, err
	}
	opts := validate.RunOptions{Options: validate.Options{Dialect: d, Strict: fl.strict, Disable: fl.disable, MaxErrors: fl.maxErrors, MaxLineBytes: lineLimit(fl.maxLine)},
		Workers: fl.jobs, Stdin: cmd.Root().Reader}
	if opts.Schema, err = userSchema(fl, d != nil); err != nil {
		return nil, err
	}
	return &validatePlan{operands: args, format: f, opts: opts}, nil
}

// userSchema compiles the schema of --schema, nil without it. A user's
// schema replaces a dialect's, so it takes neither --dialect (dialectNamed
// says whether one was named) nor --strict; --assert-format applies to
// it alone.
func userSchema(fl *validateFlags, dialectNamed bool) (*validate.Schema, error) {
	if fl.schema == "" {
		if fl.assertFormat {
			return nil, usageErr("--assert-format applies to a user's schema: it needs --schema")
		}
		return nil, nil
	}
	if dialectNamed || fl.strict {
		return nil, usageErr("--schema checks against a user's schema: it takes no --dialect or --strict")
	}
	s, err := validate.CompileSchemaWith(fl.schema, validate.SchemaOptions{AssertFormat: fl.assertFormat})
	if err != nil {
		return nil, ioErr(err)
	}
	return s, nil
}

// runValidate checks the streams the command line names, prints the
// report, and replaces --valid-out and --invalid-out when every line was
// read.
func runValidate(ctx context.Context, cmd *cli.Command, args []string, fl *validateFlags) error {
	plan, err := planValidate(cmd, args, fl)
	if err != nil {
		return err
	}
	inputs, err := validate.Inputs(plan.operands)
	if err != nil {
		return ioErr(err)
	}
	if inputs, err = sessionInputs(ctx, inputs); err != nil {
		return ioErr(err)
	}
	outs, err := openTriage(fl.validOut, fl.invalidOut, fl.maxErrors, inputs, cmd)
	if err != nil {
		return err
	}
	defer outs.AbortAll()
	if err := triage(outs, &plan.opts); err != nil {
		return err
	}
	v := &validation{stderr: cmd.Root().ErrWriter, quiet: fl.quiet, complete: true}
	n, err := v.run(cmd.Root().Writer, plan, inputs)
	if err != nil {
		return err
	}
	return v.finish(outs, len(inputs)-n)
}

// triage passes the outputs of --valid-out and --invalid-out that outs
// opened to opts, with a scratch directory beside them for the lines that
// wait.
func triage(outs *outfile.Set, opts *validate.RunOptions) error {
	v := outs.Outputs()
	if len(v) == 0 {
		return nil
	}
	for _, o := range v {
		if o.Flag() == "--valid-out" {
			opts.Valid = o
		} else {
			opts.Invalid = o
		}
	}
	var err error
	if opts.SpoolDir, err = outs.ScratchDir(); err != nil {
		return ioErr(err)
	}
	return nil
}

// A validation is one run of validate: the report it prints and what the
// streams came to.
type validation struct {
	stderr   io.Writer
	quiet    bool
	p        report.Printer
	tot      validate.Totals
	complete bool  // every line of every stream was read
	printErr error // the first write of the report that failed
}

// run validates inputs as plan says and prints the report on stdout and
// each stream's summary on stderr. It returns how many inputs were
// checked (fewer than all when --max-errors stopped the run).
func (v *validation) run(stdout io.Writer, plan *validatePlan, inputs []validate.Input) (int, error) {
	bw := newLiveWriter(stdout)
	v.p = plan.format.New(bw, report.Tool{Name: "evtool", Version: Version(), URI: "https://github.com/evtool/evtool"})
	opts := plan.opts
	if sp, ok := v.p.(report.Streamer); ok {
		// Each diagnostic as soon as it is final: the memory of a run
		// is the same for ten diagnostics or ten million.
		opts.Report = func(d validate.Diagnostic) {
			if v.printErr == nil {
				v.printErr = sp.Diagnostic(d)
			}
		}
	}
	n, runErr := validate.Run(inputs, opts, v.file)
	if v.printErr == nil {
		v.printErr = v.p.Close(v.tot)
	}
	if v.printErr == nil {
		v.printErr = bw.Flush()
	}
	if v.printErr != nil {
		if isEPIPE(v.printErr) {
			return n, v.printErr
		}
		return n, ioErr(v.printErr)
	}
	if runErr != nil {
		return n, ioErr(fmt.Errorf("writing the valid or invalid lines: %w", runErr))
	}
	return n, nil
}

// file prints the result of one stream.
func (v *validation) file(r *validate.Result) {
	v.tot.Add(r)
	if r.Stopped || r.Err != nil {
		v.complete = false
	}
	if v.printErr == nil {
		v.printErr = v.p.File(r)
	}
	if r.Err != nil {
		fmt.Fprintf(v.stderr, "evtool: %v\n", r.Err)
	} else if !v.quiet {
		fmt.Fprintf(v.stderr, "evtool: %s: %s\n", diag.Escape(r.File), report.FileSummary(r))
	}
}

// finish prints the total, replaces the outputs of outs when every line
// was read, and returns the exit status: unchecked is how many inputs
// --max-errors left out.
func (v *validation) finish(outs *outfile.Set, unchecked int) error {
	if unchecked > 0 {
		fmt.Fprintf(v.stderr, "evtool: stopped after %s (--max-errors); %s not checked\n", plural(v.tot.Errors, "error"), plural(unchecked, "file"))
	}
	if !v.quiet {
		fmt.Fprintf(v.stderr, "evtool: %s\n", v.tot)
	}
	if v.complete {
		// Replaced only once what was to be said was said (not with a
		// stderr that fails: 2>/dev/full).
		if err := failedWrite(v.stderr); err != nil {
			return ioErr(err)
		}
		if err := outs.CommitAll(); err != nil {
			return ioErr(err)
		}
	} else if names := replaced(outs); names != "" {
		fmt.Fprintf(v.stderr, "evtool: %s not written: not every line could be read\n", names)
	}
	switch {
	case v.tot.Failed > 0:
		return &ExitError{Code: ExitUsage}
	case v.tot.Errors > 0 || !v.complete:
		return problem("")
	}
	return nil
}

// splitList splits the comma-separated values of a repeatable flag:
// --disable a,b is --disable a --disable b. (The library's own splitting
// is off, so that --default KEY=A,B keeps its comma.)
func splitList(vs []string) []string {
	var out []string
	for _, v := range vs {
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

// openTriage opens --valid-out and --invalid-out through outfile, which
// refuses an output that is an input (stdin included), stdout, stderr or
// the other output by any spelling, writes a device or FIFO in place, and
// replaces a regular file only when every line was read (CommitAll).
func openTriage(validOut, invalidOut string, maxErrors int, inputs []validate.Input, cmd *cli.Command) (*outfile.Set, error) {
	set := outfile.NewSet()
	if maxErrors > 0 && (validOut != "" || invalidOut != "") {
		return nil, usageErr("--max-errors stops early, so it cannot be combined with --valid-out or --invalid-out")
	}
	for _, in := range inputs {
		if in.Open != nil {
			for _, p := range in.Files {
				set.Input(p)
				set.Protect(filepath.Dir(p), "the session's directory ("+filepath.Dir(p)+")")
			}
			continue
		}
		if in.Path == "" {
			set.InputFile(in.Name, fileOf(cmd.Root().Reader))
		} else {
			set.Input(in.Path)
			protectAgentFiles(set, []string{in.Path})
		}
	}
	set.Stream("stdout", fileOf(cmd.Root().Writer))
	set.Stream("stderr", fileOf(cmd.Root().ErrWriter))
	protectAgents(set)
	set.Add("--valid-out", validOut)
	set.Add("--invalid-out", invalidOut)
	stderr := cmd.Root().ErrWriter
	set.OnSignal = func(sig os.Signal) {
		if names := replaced(set); names != "" {
			was := "it was"
			if strings.Contains(names, " and ") {
				was = "they were"
			}
			fmt.Fprintf(stderr, "evtool: interrupted by %s; %s left as %s\n", signalName(sig), names, was)
		}
	}
	if err := set.Open(); err != nil {
		var oe *outfile.Error
		if errors.As(err, &oe) && oe.Usage {
			return nil, usageErr("%v", err)
		}
		return nil, ioErr(err)
	}
	return set, nil
}

// replaced names the outputs of set that are written through a temporary
// file, which a failed run leaves as they were.
func replaced(set *outfile.Set) string {
	var n []string
	for _, o := range set.Outputs() {
		if !o.InPlace() {
			n = append(n, o.Path())
		}
	}
	return strings.Join(n, " and ")
}
