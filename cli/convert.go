package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/evtool/evtool/adapters/acp"
	"github.com/evtool/evtool/convert"
	"github.com/evtool/evtool/diag"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/internal/outfile"
	"github.com/evtool/evtool/stream"
	"github.com/urfave/cli/v3"
)

// convertFlags are convert's command line.
type convertFlags struct {
	from, to, output string
	provenance       bool
	strict, quiet    bool
	onError          string
	lossReport       string
	progress         string
	jobs             int
	maxLine          int64
	sessionID        string
	defaults         []string
	acpProfile       string
	acpMeta          bool
	transcript       bool
}

const convertLong = `Reads FILE (or stdin) and writes the stream converted to the target dialect
on stdout, or to -o FILE. -o writes a temporary file beside FILE and renames
it over FILE only when the run succeeds; an output that is the input is
refused.

A line with problems is reported on stderr with its position, and then
--on-error says what becomes of it: keep (the default) passes on whatever
could be read of it, as a canonical unknown event where nothing could;
skip leaves it out; fail stops at it and leaves -o FILE as it was. A torn
last line (no newline at the end and not JSON, as a producer that stopped
mid-line leaves it) is a warning only.

A stream that ends inside its session (cut short, as when its producer was
stopped) is converted as far as it goes; the output is cut short too, and
the run exits 1. Where the source can carry lines verbatim for the target
(from canonical or acp, or to the source's own dialect), the output is
checked by the target's validator as it is written, and its errors fail
the run: convert never exits 0 after writing what validate rejects.

What the target cannot carry is counted, one line per kind on stderr
(silenced by -q), and written as JSON by --loss-report FILE.

Exit status: 0 on success; 1 when a line had problems, the input had no
line, the stream was cut short, the output fails the target's validator,
or, with --strict, anything was lost or the last line was torn; 2 for
usage errors and files that cannot be read or written; 129, 130 and 143
when stopped by SIGHUP, SIGINT or SIGTERM (-o and --loss-report left as
they were).`

func convertCmd() *cli.Command {
	var fl convertFlags
	return &cli.Command{
		Name:        "convert",
		Usage:       "convert a stream from one dialect to another",
		UsageText:   "evtool convert --to DIALECT [options] [FILE|-]",
		Description: convertLong,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "from", Destination: &fl.from, Usage: "the source `DIALECT` (default, or none: detected from the first line)"},
			&cli.StringFlag{Name: "to", Aliases: []string{"t"}, Destination: &fl.to, Usage: "the target `DIALECT` (required)"},
			&cli.StringFlag{Name: "output", Validator: namesAFile, Aliases: []string{"o"}, Destination: &fl.output, TakesFile: true, Usage: "write to `FILE` instead of stdout, replacing it only on success"},
			&cli.BoolFlag{Name: "provenance", Destination: &fl.provenance, Usage: "with --to canonical (or acp --acp-meta): record each event's source line in src"},
			&cli.BoolFlag{Name: "strict", Aliases: []string{"s"}, Destination: &fl.strict, Usage: "exit 1 when anything was lost or the last line was torn (the output is still written)"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Destination: &fl.quiet, Usage: "print no loss summary on stderr"},
			&cli.StringFlag{Name: "on-error", Value: "keep", Destination: &fl.onError, Usage: "what becomes of a line with problems: `keep`, skip or fail"},
			&cli.StringFlag{Name: "loss-report", Validator: namesAFile, Destination: &fl.lossReport, TakesFile: true, Usage: "write the losses as JSON to `FILE`"},
			&cli.IntFlag{Config: base10, Name: "jobs", Aliases: []string{"j"}, HideDefault: true, Destination: &fl.jobs, Usage: "check lines with `N` workers ahead of decoding, which stays in order (0, the default: one per CPU; 1: no workers); the output is the same"},
			&cli.Int64Flag{Config: base10, Name: "max-line-bytes", Value: stream.DefaultMaxLineBytes, Destination: &fl.maxLine, Usage: "refuse lines longer than `N` bytes: each is reported and handled as --on-error says (0: no limit)"},
			&cli.StringFlag{Name: "progress", Value: "never", Destination: &fl.progress, Usage: "show a progress bar on stderr: auto (a bare --progress: only on a terminal, for a file), always or `never` (a value only as --progress=VALUE)"},
			&cli.StringFlag{Name: "session-id", Destination: &fl.sessionID, Usage: "the session `ID` to write when the source has none"},
			&cli.StringSliceFlag{Name: "default", Destination: &fl.defaults, Usage: "a `KEY=VALUE` fact to write when the source lacks it (repeatable; the keys the target takes)"},
			&cli.StringFlag{Name: "acp-profile", Value: acp.Stable, Destination: &fl.acpProfile, Usage: "with --to acp: stable, unstable or basis"},
			&cli.BoolFlag{Name: "acp-meta", Destination: &fl.acpMeta, Usage: "with --to acp: carry every canonical event under _meta[\"evtool/source\"], so that --from acp gives it back whole"},
			&cli.BoolFlag{Name: "transcript", Destination: &fl.transcript, Usage: "with --to acp: write both sides of the conversation (prompts, permission answers, prompt responses)"},
		},
		Metadata: completions(map[string][]string{
			"from": sourceDialects(), "to": targetNames(),
			"acp-profile": acpProfiles, "on-error": onErrors, "progress": progressModes,
		}),
		Action: action(func(_ context.Context, cmd *cli.Command, args []string) error { return runConvert(cmd, args, &fl) }),
	}
}

var (
	acpProfiles   = acp.Profiles
	onErrors      = []string{"keep", "skip", "fail"}
	progressModes = []string{"auto", "always", "never"}
)

// convertPlan is a checked command line.
type convertPlan struct {
	from, to dialect.Dialect
	opts     convert.Options
}

// planConvert checks the command line before any file is touched: every
// flag must apply to the target chosen.
func planConvert(cmd *cli.Command, args []string, fl *convertFlags) (*convertPlan, error) {
	to, err := lookupTarget(fl.to)
	if err != nil {
		return nil, err
	}
	if len(args) > 1 {
		return nil, usageErr("takes at most one FILE, got %d: %s", len(args), strings.Join(args, " "))
	}
	from, err := lookupDialect("from", fl.from)
	if err != nil {
		return nil, err
	}
	if to.Name() != acp.Name {
		for _, name := range []string{"acp-profile", "acp-meta", "transcript"} {
			if cmd.IsSet(name) {
				return nil, usageErr("--%s applies only with --to acp, not --to %s", name, to.Name())
			}
		}
	}
	if fl.provenance && to.Name() != "canonical" && !(to.Name() == acp.Name && fl.acpMeta) {
		return nil, usageErr("--provenance applies only with --to canonical (or --to acp --acp-meta), not --to %s", to.Name())
	}
	onError, ok := convert.OnErrors[fl.onError]
	if !ok {
		return nil, usageErr("--on-error %q: want keep, skip or fail%s", fl.onError, didYouMean(fl.onError, onErrors))
	}
	if !slices.Contains(progressModes, fl.progress) {
		return nil, usageErr("--progress=%q: want auto, always or never%s", fl.progress, didYouMean(fl.progress, progressModes))
	}
	if err := checkCounts(fl.jobs, fl.maxLine); err != nil {
		return nil, err
	}
	if fl.lossReport == "-" {
		return nil, usageErr("--loss-report takes a FILE; stdout carries the stream")
	}
	defaults, err := parseDefaults(to, fl.defaults)
	if err != nil {
		return nil, err
	}
	if cmd.IsSet("session-id") {
		if !slices.Contains(dialect.DefaultKeysOf(to), dialect.DefaultSessionID) {
			return nil, usageErr("--session-id: %s", noDefaults(to))
		}
		defaults.SessionID = fl.sessionID
	}
	var cfg dialect.Config
	if to.Name() == acp.Name {
		if cfg, err = acpConfig(fl.acpProfile, fl.acpMeta, fl.transcript); err != nil {
			return nil, err
		}
	}
	return &convertPlan{from: from, to: to, opts: convert.Options{From: from, To: to, Provenance: fl.provenance,
		Defaults: defaults, Config: cfg, OnError: onError, Workers: jobs(fl.jobs), MaxLineBytes: lineLimit(fl.maxLine)}}, nil
}

// flushing passes each write of convert's own buffer (which it flushes
// whenever the input has nothing more buffered) through to -o, so that a
// FIFO's reader, or a look at the temporary file, sees every event as soon
// as its line was read.
type flushing struct{ o *outfile.Output }

func (f flushing) Write(p []byte) (int, error) {
	n, err := f.o.Write(p)
	if err == nil {
		err = f.o.Flush()
	}
	return n, err
}

// signalName names a signal as the shell does.
func signalName(sig os.Signal) string {
	switch sig {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	}
	return sig.String()
}

func runConvert(cmd *cli.Command, args []string, fl *convertFlags) error {
	plan, err := planConvert(cmd, args, fl)
	if err != nil {
		return err
	}
	name := "-"
	if len(args) == 1 {
		name = args[0]
	}
	in, file, err := openInput(cmd, name)
	if err != nil {
		return err
	}
	defer in.Close()
	inInfo := statOf(in)
	if name == "-" {
		inInfo = statOf(fileOf(cmd.Root().Reader))
	}

	// outfile decides what -o and --loss-report may be: never the input,
	// stdout or each other by any spelling, a device or FIFO written in
	// place, a regular file replaced only when the whole run succeeded.
	stderr := cmd.Root().ErrWriter
	set := outfile.NewSet()
	defer set.AbortAll()
	if name == "-" {
		set.InputFile(file, fileOf(cmd.Root().Reader))
	} else if sr, ok := in.(*sessionReader); ok {
		for _, p := range sr.paths {
			set.Input(p)
			set.Protect(filepath.Dir(p), "the session's directory ("+filepath.Dir(p)+")")
		}
	} else {
		set.Input(name)
		set.InputFile(file, in)
		protectAgentFiles(set, []string{name})
	}
	set.Stream("stderr", fileOf(stderr))
	protectAgents(set)
	writeTo := fl.output
	if writeTo == "-" {
		writeTo = ""
	}
	var w io.Writer = cmd.Root().Writer
	out := set.Add("-o", writeTo)
	if out == nil {
		set.Stream("stdout", fileOf(cmd.Root().Writer))
	} else {
		w = flushing{out}
	}
	report := set.Add("--loss-report", fl.lossReport)

	// A signal removes the temporary files and says how far the run got;
	// a blocked read of a live pipe cannot be interrupted otherwise.
	var lines atomic.Int64
	set.OnSignal = func(sig os.Signal) {
		what := "the output on stdout is incomplete"
		if out != nil && !out.InPlace() {
			what = out.Path() + " was left as it was"
		}
		fmt.Fprintf(stderr, "evtool: interrupted by %s after %s of %s; %s\n", signalName(sig), plural(int(lines.Load()), "line"), file, what)
	}
	if err := set.Open(); err != nil {
		var oe *outfile.Error
		if errors.As(err, &oe) && oe.Usage {
			return usageErr("%v", err)
		}
		return ioErr(err)
	}

	bar := newProgress(fl.progress, stderr, inInfo)
	if out != nil {
		plan.opts.OutputName = out.Path()
	}
	plan.opts.Progress = func(n int, bytes int64) {
		lines.Store(int64(n))
		bar.update(n, bytes)
	}
	res, err := convert.Run(in, w, file, plan.opts, func(le *convert.LineError) {
		if bar != nil {
			bar.bar.Clear()
		}
		fmt.Fprintln(stderr, le.Error())
	})
	bar.finish()
	if err != nil {
		return convertFailed(stderr, file, out, err)
	}

	losses := res.Losses.List()
	if !fl.quiet {
		for _, l := range losses {
			fmt.Fprintf(stderr, "evtool: %s [%s]\n", l, l.ID)
		}
	}
	if report != nil {
		if err := writeLossReport(report, file, res, plan.to.Name(), losses); err != nil {
			return ioErr(err)
		}
	}
	// Every output is replaced together, once all were written, and
	// what was to be said of them was said.
	if err := failedWrite(stderr); err != nil {
		return ioErr(err)
	}
	if err := set.CommitAll(); err != nil {
		return ioErr(err)
	}
	if res.Torn > 0 {
		fmt.Fprintf(stderr, "evtool: %s: the last line (%d) is torn; %s\n", diag.Escape(file), res.Torn, fate(plan.opts.OnError, 1))
	}
	if res.Unfinished && res.OutputErrors == 0 {
		fmt.Fprintf(stderr, "evtool: %s: the stream ends inside its session (nothing ends it by line %d, as when its producer was stopped): the output is cut short too\n", diag.Escape(file), res.Lines)
	}
	if res.Errors == 0 {
		// Kept lines with problems make output lines with the same: the
		// input's diagnostics say it. Else what the output check finds is
		// news.
		for _, d := range res.OutputDiags {
			fmt.Fprintf(stderr, "evtool: output: %s\n", d.String())
		}
	}
	switch {
	case res.Errors > 0:
		return problem("%s: %s with problems (%s); %s, and the other lines converted", file,
			plural(res.Errors, "line"), lineList(res.BadLines), fate(plan.opts.OnError, res.Errors))
	case res.OutputErrors > 0:
		return problem("%s: evtool validate finds %s in the output (%s): the input carried them over verbatim, or the output is cut short", file,
			plural(res.OutputErrors, "error"), shownOf(len(res.OutputDiags), res.OutputErrors))
	case res.Unfinished:
		return problem("%s: the stream is cut short, and so is the output", file)
	case fl.strict && len(losses) > 0:
		return problem("--strict: the conversion lost information (see above)")
	case fl.strict && res.Torn > 0:
		return problem("--strict: the last line is torn")
	}
	return nil
}

// shownOf says how many of n diagnostics were shown.
func shownOf(shown, n int) string {
	if shown == n {
		return "shown above"
	}
	return fmt.Sprintf("the first %d shown above", shown)
}

// convertFailed reports a conversion that did not run to the end; -o
// FILE is left as it was.
func convertFailed(stderr io.Writer, file string, out *outfile.Output, err error) error {
	kept := ""
	if out != nil && !out.InPlace() {
		kept = "; " + out.Path() + " was left as it was"
	}
	var se *stream.StreamError
	var ee *convert.EmptyError
	var ue *convert.UTF16Error
	var fe *convert.FailError
	switch {
	case isEPIPE(err):
		return err
	case errors.As(err, &se) && se.Usage:
		return &ExitError{Code: ExitUsage, Msg: err.Error() + kept}
	case errors.As(err, &se):
		fmt.Fprintln(stderr, se.Diagnostic.String())
		return problem("%s: not converted%s", file, kept)
	case errors.As(err, &ee), errors.As(err, &ue), errors.As(err, &fe):
		return problem("%v%s", err, kept)
	}
	return ioErr(fmt.Errorf("%w%s", err, kept))
}

// fate says what became of n lines with problems.
func fate(o convert.OnError, n int) string {
	switch {
	case o == convert.Skip && n == 1:
		return "it was skipped"
	case o == convert.Skip:
		return "they were skipped"
	case n == 1:
		return "it was kept as far as it could be read (else as an unknown event)"
	}
	return "they were kept as far as they could be read (else as unknown events)"
}

// lineList names the first few of a list of line numbers.
func lineList(ns []int) string {
	const most = 10
	var b strings.Builder
	b.WriteString("line")
	if len(ns) > 1 {
		b.WriteString("s")
	}
	for i, n := range ns {
		if i == most {
			fmt.Fprintf(&b, " and %d more", len(ns)-most)
			break
		}
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(" " + strconv.Itoa(n))
	}
	return b.String()
}

// lossReport is the JSON --loss-report writes.
type lossReport struct {
	Input  string       `json:"input"`
	From   string       `json:"from"`
	To     string       `json:"to"`
	Lines  int          `json:"lines"`
	Losses []lossRecord `json:"losses"`
}

type lossRecord struct {
	ID        string `json:"id"`
	Verb      string `json:"verb"`
	Count     int    `json:"count"`
	FirstLine int    `json:"first_line"`
	Detail    string `json:"detail,omitempty"`
	Summary   string `json:"summary"`
	Reason    string `json:"reason"`
}

func writeLossReport(w io.Writer, file string, res convert.Result, to string, losses []*dialect.Loss) error {
	r := lossReport{Input: file, From: res.From, To: to, Lines: res.Lines, Losses: []lossRecord{}}
	for _, l := range losses {
		r.Losses = append(r.Losses, lossRecord{ID: l.ID, Verb: l.Verb, Count: l.Count, FirstLine: l.FirstLine, Detail: l.Detail,
			Summary: fmt.Sprintf("%s %d %s", l.Verb, l.Count, l.Kind), Reason: l.Why})
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// acpConfig collects the --to acp options.
func acpConfig(profile string, meta, transcript bool) (*acp.Config, error) {
	cfg := &acp.Config{Profile: profile, Meta: meta, Transcript: transcript}
	if err := cfg.Validate(); err != nil {
		return nil, usageErr("--acp-profile %q: want stable, unstable or basis%s", profile, didYouMean(profile, acp.Profiles))
	}
	return cfg, nil
}

func noDefaults(to dialect.Dialect) string {
	keys := dialect.DefaultKeysOf(to)
	if len(keys) == 0 {
		return fmt.Sprintf("--to %s takes no defaults: it writes only what the source says", to.Name())
	}
	return fmt.Sprintf("--to %s takes %s", to.Name(), dialect.JoinKeys(keys))
}

// parseDefaults reads --default KEY=VALUE into Defaults: only the keys the
// target reads, so that a mistyped key is an error, not a fact dropped.
func parseDefaults(to dialect.Dialect, list []string) (dialect.Defaults, error) {
	keys := dialect.DefaultKeysOf(to)
	var out dialect.Defaults
	for _, kv := range list {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || !slices.Contains(keys, dialect.DefaultKey(k)) {
			return out, usageErr("--default %q: want KEY=VALUE; %s", kv, noDefaults(to))
		}
		if err := out.Set(dialect.DefaultKey(k), v); err != nil {
			return out, usageErr("--default %q: %v", kv, err)
		}
	}
	return out, nil
}
