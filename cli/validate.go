package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

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

func validateCmd() *cli.Command {
	var (
		dialectName string
		strict      bool
		quiet       bool
		format      string
		schemaFile  string
		assertFmt   bool
		validOut    string
		invalidOut  string
		disable     []string
		maxErrors   int
		workers     int
		maxLine     int64
	)
	var formats []string
	for _, f := range report.Formats() {
		formats = append(formats, "  "+f.ID+": "+f.Summary)
	}
	var ruleIDs []string
	for _, r := range rules.All() {
		if !r.Reading {
			ruleIDs = append(ruleIDs, r.ID)
		}
	}
	return &cli.Command{
		Name:        "validate",
		Usage:       "check streams against their dialect's schema and stream rules, or any NDJSON against a JSON Schema",
		ArgsUsage:   "[FILE|DIR|-...]",
		Description: fmt.Sprintf(validateLong, strings.Join(formats, "\n")),
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "dialect", Aliases: []string{"d"}, Destination: &dialectName, Usage: "the streams' `DIALECT` (default, or none: detected from each first line)"},
			&cli.BoolFlag{Name: "strict", Aliases: []string{"s"}, Destination: &strict, Usage: "treat unknown types and fields as errors"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Destination: &quiet, Usage: "print no summaries on stderr"},
			&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Value: "text", Destination: &format, Usage: "the report's `FORMAT`: " + strings.Join(report.IDs(), ", ")},
			&cli.StringFlag{Name: "schema", Destination: &schemaFile, TakesFile: true, Usage: "check any NDJSON against this JSON Schema `FILE` instead of a dialect's"},
			&cli.BoolFlag{Name: "assert-format", Destination: &assertFmt, Usage: "with --schema, fail strings that are not their \"format\" (date-time, email, ...) in every draft; without it, draft-07 and older assert format, 2019-09 and 2020-12 only annotate it"},
			&cli.StringFlag{Name: "valid-out", Destination: &validOut, TakesFile: true, Usage: "write the lines without errors to `FILE`, byte for byte"},
			&cli.StringFlag{Name: "invalid-out", Destination: &invalidOut, TakesFile: true, Usage: "write the lines with errors to `FILE`, byte for byte"},
			&cli.StringSliceFlag{Name: "disable", Destination: &disable, Usage: "silence a `RULE` (repeatable, or comma-separated; see evtool rules)"},
			&cli.IntFlag{Name: "max-errors", Destination: &maxErrors, Usage: "stop after `N` errors (0: no limit)"},
			&cli.IntFlag{Name: "jobs", Aliases: []string{"j"}, HideDefault: true, Destination: &workers, Usage: "check lines with `N` workers: several streams at once, or one stream's lines ahead of decoding (0, the default: one per CPU; 1: no workers)"},
			&cli.Int64Flag{Name: "max-line-bytes", Value: stream.DefaultMaxLineBytes, Destination: &maxLine, Usage: "refuse lines longer than `N` bytes: each is reported and skipped (0: no limit)"},
		},
		Metadata: completions(map[string][]string{"dialect": sourceDialects(), "format": report.IDs(), "disable": ruleIDs}),
		Action: action(func(ctx context.Context, cmd *cli.Command, args []string) error {
			args, err := operandsOrStdin(cmd, args)
			if err != nil {
				return err
			}
			d, err := lookupDialect("dialect", dialectName)
			if err != nil {
				return err
			}
			f, err := report.Lookup(format)
			if err != nil {
				return usageErr("--format: %v%s", err, didYouMean(format, report.IDs()))
			}
			disable = splitList(disable)
			for _, id := range disable {
				if err := rules.CheckDisable([]string{id}); err != nil {
					return usageErr("%v%s", err, didYouMean(id, ruleIDs))
				}
			}
			if maxErrors < 0 {
				return usageErr("--max-errors %d: want 0 (no limit) or more", maxErrors)
			}
			if err := checkCounts(workers, maxLine); err != nil {
				return err
			}
			opts := validate.RunOptions{Options: validate.Options{Dialect: d, Strict: strict, Disable: disable, MaxErrors: maxErrors, MaxLineBytes: lineLimit(maxLine)},
				Workers: workers, Stdin: cmd.Root().Reader}
			if schemaFile != "" {
				if d != nil || strict {
					return usageErr("--schema checks against a user's schema: it takes no --dialect or --strict")
				}
				if opts.Schema, err = validate.CompileSchemaWith(schemaFile, validate.SchemaOptions{AssertFormat: assertFmt}); err != nil {
					return ioErr(err)
				}
			} else if assertFmt {
				return usageErr("--assert-format applies to a user's schema: it needs --schema")
			}
			inputs, err := validate.Inputs(args)
			if err != nil {
				return ioErr(err)
			}
			if inputs, err = sessionInputs(ctx, inputs); err != nil {
				return ioErr(err)
			}
			stdout, stderr := cmd.Root().Writer, cmd.Root().ErrWriter
			outs, err := openTriage(validOut, invalidOut, maxErrors, inputs, cmd)
			if err != nil {
				return err
			}
			defer outs.AbortAll()
			if v := outs.Outputs(); len(v) > 0 {
				for _, o := range v {
					if o.Flag() == "--valid-out" {
						opts.Valid = o
					} else {
						opts.Invalid = o
					}
				}
				if opts.SpoolDir, err = outs.ScratchDir(); err != nil {
					return ioErr(err)
				}
			}

			bw := bufio.NewWriter(stdout)
			p := f.New(bw, report.Tool{Name: "evtool", Version: Version(), URI: "https://github.com/evtool/evtool"})
			var tot validate.Totals
			complete := true
			var printErr error
			if sp, ok := p.(report.Streamer); ok {
				// Each diagnostic as soon as it is final: the memory of a run
				// is the same for ten diagnostics or ten million.
				opts.Report = func(d validate.Diagnostic) {
					if printErr == nil {
						printErr = sp.Diagnostic(d)
					}
				}
			}
			n, runErr := validate.Run(inputs, opts, func(r *validate.Result) {
				tot.Add(r)
				if r.Stopped || r.Err != nil {
					complete = false
				}
				if printErr == nil {
					printErr = p.File(r)
				}
				if r.Err != nil {
					fmt.Fprintf(stderr, "evtool: %v\n", r.Err)
				} else if !quiet {
					fmt.Fprintf(stderr, "evtool: %s: %s\n", r.File, report.FileSummary(r))
				}
			})
			if printErr == nil {
				printErr = p.Close(tot)
			}
			if printErr == nil {
				printErr = bw.Flush()
			}
			if printErr != nil {
				if isEPIPE(printErr) {
					return printErr
				}
				return ioErr(printErr)
			}
			if runErr != nil {
				return ioErr(fmt.Errorf("writing the valid or invalid lines: %w", runErr))
			}
			if n < len(inputs) {
				fmt.Fprintf(stderr, "evtool: stopped after %s (--max-errors); %s not checked\n", plural(tot.Errors, "error"), plural(len(inputs)-n, "file"))
			}
			if !quiet {
				fmt.Fprintf(stderr, "evtool: %s\n", tot)
			}
			if complete {
				if err := outs.CommitAll(); err != nil {
					return ioErr(err)
				}
			} else if names := replaced(outs); names != "" {
				fmt.Fprintf(stderr, "evtool: %s not written: not every line could be read\n", names)
			}
			switch {
			case tot.Failed > 0:
				return &ExitError{Code: ExitUsage}
			case tot.Errors > 0 || !complete:
				return problem("")
			}
			return nil
		}),
	}
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
