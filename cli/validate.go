package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/evtool/evtool/report"
	"github.com/evtool/evtool/rules"
	"github.com/evtool/evtool/stream"
	"github.com/evtool/evtool/validate"
	"github.com/spf13/cobra"
)

func validateCmd() *cobra.Command {
	var (
		dialectName string
		strict      bool
		quiet       bool
		format      string
		schemaFile  string
		validOut    string
		invalidOut  string
		disable     []string
		maxErrors   int
		jobs        int
		maxLine     int64
	)
	var formats []string
	for _, f := range report.Formats() {
		formats = append(formats, "  "+f.ID+": "+f.Summary)
	}
	cmd := &cobra.Command{
		Use:   "validate FILE|DIR|-...",
		Short: "check streams against their dialect's schema and stream rules, or any NDJSON against a JSON Schema",
		Long: "Checks every stream named: a file, each *.jsonl and *.ndjson file under a\n" +
			"directory, or - for standard input. Streams are checked in parallel; the\n" +
			"report lists them sorted by file, and each one's diagnostics by line,\n" +
			"column and rule, so the same inputs give the same bytes.\n\n" +
			"Report formats (--format):\n" + strings.Join(formats, "\n") + "\n\n" +
			"The text format prints one problem per line:\n" +
			"FILE:LINE[:COL]: error|warning: [POINTER: ]MESSAGE [RULE]\n" +
			"Each file's summary and the total go to stderr:\n" +
			"evtool: 3 files, 12034 lines, 2 errors, 5 warnings\n\n" +
			"With --schema FILE, any NDJSON is checked against that JSON Schema (draft\n" +
			"2020-12 unless its $schema says otherwise; $ref to files beside it, never\n" +
			"the network) instead of a dialect's; its errors are json/schema.\n\n" +
			"Exit 0 when no file has an error, 1 when one has, 2 for usage or I/O\n" +
			"errors and streams whose dialect cannot be told.",
		ValidArgsFunction: cobra.FixedCompletions(nil, cobra.ShellCompDirectiveDefault),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErr("name at least one FILE or DIR, or - for stdin")
			}
			d, err := lookupDialect("dialect", dialectName)
			if err != nil {
				return err
			}
			f, err := report.Lookup(format)
			if err != nil {
				return usageErr("--format: %v", err)
			}
			if err := rules.CheckDisable(disable); err != nil {
				return usageErr("%v", err)
			}
			if maxErrors < 0 {
				return usageErr("--max-errors %d: want 0 (no limit) or more", maxErrors)
			}
			opts := validate.RunOptions{Options: validate.Options{Dialect: d, Strict: strict, Disable: disable, MaxErrors: maxErrors, MaxLineBytes: lineLimit(maxLine)},
				Workers: jobs, Stdin: cmd.InOrStdin()}
			if schemaFile != "" {
				if d != nil || strict {
					return usageErr("--schema checks against a user's schema: it takes no --dialect or --strict")
				}
				if opts.Schema, err = validate.CompileSchema(schemaFile); err != nil {
					return ioErr(err)
				}
			}
			inputs, err := validate.Inputs(args)
			if err != nil {
				return ioErr(err)
			}
			outs, err := openTriage(validOut, invalidOut, maxErrors, inputs)
			if err != nil {
				return err
			}
			defer outs.abort()
			opts.Valid, opts.Invalid = outs.writer(0), outs.writer(1)
			opts.SpoolDir = outs.dir

			stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
			bw := bufio.NewWriter(stdout)
			p := f.New(bw, report.Tool{Name: "evtool", Version: Version(), URI: "https://github.com/evtool/evtool"})
			var tot validate.Totals
			complete := true
			var printErr error
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
				if err := outs.commit(); err != nil {
					return ioErr(err)
				}
			} else if outs.any() {
				fmt.Fprintf(stderr, "evtool: %s not written: not every line could be read\n", outs.names())
			}
			switch {
			case tot.Failed > 0:
				return &ExitError{Code: ExitUsage}
			case tot.Errors > 0 || !complete:
				return problem("")
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&dialectName, "dialect", "d", "", "the streams' `DIALECT` (default: detected from each first line)")
	fl.BoolVarP(&strict, "strict", "s", false, "treat unknown types and fields as errors")
	fl.BoolVarP(&quiet, "quiet", "q", false, "print no summaries on stderr")
	fl.StringVarP(&format, "format", "f", "text", "the report's `FORMAT`: "+strings.Join(report.IDs(), ", "))
	fl.StringVar(&schemaFile, "schema", "", "check any NDJSON against this JSON Schema `FILE` instead of a dialect's")
	fl.StringVar(&validOut, "valid-out", "", "write the lines without errors to `FILE`, byte for byte")
	fl.StringVar(&invalidOut, "invalid-out", "", "write the lines with errors to `FILE`, byte for byte")
	fl.StringSliceVar(&disable, "disable", nil, "silence a `RULE` (repeatable; see evtool rules)")
	fl.IntVar(&maxErrors, "max-errors", 0, "stop after `N` errors (0: no limit)")
	fl.IntVarP(&jobs, "jobs", "j", 0, "check lines with `N` workers: several streams at once, or one stream's lines ahead of decoding (default: one per CPU; 1: no workers)")
	fl.Int64Var(&maxLine, "max-line-bytes", stream.DefaultMaxLineBytes, "refuse lines longer than `N` bytes: each is reported and skipped (0: no limit)")
	completeDialects(cmd, "dialect")
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions(report.IDs(), cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("disable", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		var ids []string
		for _, r := range rules.All() {
			if !r.Reading {
				ids = append(ids, r.ID)
			}
		}
		return ids, cobra.ShellCompDirectiveNoFileComp
	})
	return cmd
}

// triage holds the files --valid-out and --invalid-out are written to:
// each is a temporary file beside its target, renamed over it only when
// every line was read, so that a failed run leaves what was there before.
type triage struct {
	targets [2]string
	tmp     [2]*os.File
	buf     [2]*bufio.Writer
	dir     string // where inputs' lines wait for those before them
}

func openTriage(validOut, invalidOut string, maxErrors int, inputs []validate.Input) (*triage, error) {
	t := &triage{targets: [2]string{validOut, invalidOut}}
	if validOut == "" && invalidOut == "" {
		return t, nil
	}
	if maxErrors > 0 {
		return nil, usageErr("--max-errors stops early, so it cannot be combined with --valid-out or --invalid-out")
	}
	if validOut != "" && validOut == invalidOut {
		return nil, usageErr("--valid-out and --invalid-out name the same file")
	}
	for i, target := range t.targets {
		if target == "" {
			continue
		}
		if target == "-" {
			return nil, usageErr("--%s takes a file name; - is not one", []string{"valid-out", "invalid-out"}[i])
		}
		// Never replace an input with a part of itself.
		if fi, err := os.Stat(target); err == nil {
			for _, in := range inputs {
				if ifi, err := os.Stat(in.Path); in.Path != "" && err == nil && os.SameFile(fi, ifi) {
					return nil, usageErr("--%s %s is one of the inputs", []string{"valid-out", "invalid-out"}[i], target)
				}
			}
		}
		dir := filepath.Dir(target)
		f, err := os.CreateTemp(dir, "."+filepath.Base(target)+".tmp-*")
		if err != nil {
			t.abort()
			return nil, ioErr(err)
		}
		t.tmp[i], t.buf[i] = f, bufio.NewWriterSize(f, 256<<10)
		if t.dir == "" {
			t.dir = dir
		}
	}
	return t, nil
}

func (t *triage) writer(i int) io.Writer {
	if t.buf[i] == nil {
		return nil
	}
	return t.buf[i]
}

func (t *triage) any() bool { return t.tmp[0] != nil || t.tmp[1] != nil }

func (t *triage) names() string {
	var n []string
	for _, target := range t.targets {
		if target != "" {
			n = append(n, target)
		}
	}
	return strings.Join(n, " and ")
}

// commit flushes the temporary files and renames them into place.
func (t *triage) commit() error {
	for i, f := range t.tmp {
		if f == nil {
			continue
		}
		err := t.buf[i].Flush()
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Chmod(f.Name(), 0o644)
		}
		if err == nil {
			err = os.Rename(f.Name(), t.targets[i])
		}
		if err != nil {
			return errors.Join(err, t.abort())
		}
		t.tmp[i] = nil
	}
	return nil
}

// abort removes the temporary files that were not committed.
func (t *triage) abort() error {
	var errs []error
	for i, f := range t.tmp {
		if f == nil {
			continue
		}
		f.Close()
		if err := os.Remove(f.Name()); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
		t.tmp[i] = nil
	}
	return errors.Join(errs...)
}
