package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/evtool/evtool/adapters/acp"
	"github.com/evtool/evtool/convert"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/stream"
	"github.com/spf13/cobra"
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

What the target cannot carry is counted, one line per kind on stderr
(silenced by -q), and written as JSON by --loss-report FILE.

Exit status: 0 on success; 1 when a line had problems, the input had no
line, or, with --strict, anything was lost or the last line was torn;
2 for usage errors and files that cannot be read or written; 130 and 143
when interrupted (SIGINT, SIGTERM).`

func convertCmd() *cobra.Command {
	var fl convertFlags
	cmd := &cobra.Command{
		Use:   "convert --to DIALECT [FILE|-]",
		Short: "convert a stream from one dialect to another",
		Long:  convertLong,
		RunE:  func(cmd *cobra.Command, args []string) error { return runConvert(cmd, args, &fl) },
	}
	f := cmd.Flags()
	f.StringVarP(&fl.from, "from", "f", "", "the source `DIALECT` (default: detected from the first line)")
	f.StringVarP(&fl.to, "to", "t", "", "the target `DIALECT` (required)")
	f.StringVarP(&fl.output, "output", "o", "", "write to `FILE` instead of stdout, replacing it only on success")
	f.BoolVar(&fl.provenance, "provenance", false, "with --to canonical (or acp --acp-meta): record each event's source line in src")
	f.BoolVarP(&fl.strict, "strict", "s", false, "exit 1 when anything was lost or the last line was torn (the output is still written)")
	f.BoolVarP(&fl.quiet, "quiet", "q", false, "print no loss summary on stderr")
	f.StringVar(&fl.onError, "on-error", "keep", "what becomes of a line with problems: `keep`, skip or fail")
	f.StringVar(&fl.lossReport, "loss-report", "", "write the losses as JSON to `FILE`")
	f.IntVarP(&fl.jobs, "jobs", "j", 0, "check lines with `N` workers ahead of decoding, which stays in order (default: one per CPU; 1: no workers); the output is the same")
	f.Int64Var(&fl.maxLine, "max-line-bytes", stream.DefaultMaxLineBytes, "refuse lines longer than `N` bytes: each is reported and handled as --on-error says (0: no limit)")
	f.StringVar(&fl.progress, "progress", "never", "show a progress bar on stderr: auto (a bare --progress: only on a terminal, for a file), always or `never`")
	f.Lookup("progress").NoOptDefVal = "auto"
	f.StringVar(&fl.sessionID, "session-id", "", "the session `ID` to write when the source has none")
	f.StringArrayVar(&fl.defaults, "default", nil, "a `KEY=VALUE` fact to write when the source lacks it (repeatable; the keys the target takes)")
	f.StringVar(&fl.acpProfile, "acp-profile", acp.Stable, "with --to acp: stable, unstable or basis")
	f.BoolVar(&fl.acpMeta, "acp-meta", false, "with --to acp: carry every canonical event under _meta[\"evtool/source\"], so that --from acp gives it back whole")
	f.BoolVar(&fl.transcript, "transcript", false, "with --to acp: write both sides of the conversation (prompts, permission answers, prompt responses)")
	_ = cmd.MarkFlagRequired("to")
	completeDialects(cmd, "from")
	completeDialects(cmd, "to")
	_ = cmd.RegisterFlagCompletionFunc("acp-profile", cobra.FixedCompletions([]string{acp.Stable, acp.Unstable, acp.Basis}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("on-error", cobra.FixedCompletions([]string{"keep", "skip", "fail"}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("progress", cobra.FixedCompletions([]string{"auto", "always", "never"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// convertPlan is a checked command line.
type convertPlan struct {
	from, to dialect.Dialect
	opts     convert.Options
}

// planConvert checks the command line before any file is touched: every
// flag must apply to the target chosen.
func planConvert(cmd *cobra.Command, args []string, fl *convertFlags) (*convertPlan, error) {
	if len(args) > 1 {
		return nil, usageErr("takes at most one FILE, got %d: %s", len(args), strings.Join(args, " "))
	}
	from, err := lookupDialect("from", fl.from)
	if err != nil {
		return nil, err
	}
	to, err := lookupDialect("to", fl.to)
	if err != nil {
		return nil, err
	}
	fs := cmd.Flags()
	if to.Name() != acp.Name {
		for _, name := range []string{"acp-profile", "acp-meta", "transcript"} {
			if flagChanged(fs, name) {
				return nil, usageErr("--%s applies only with --to acp, not --to %s", name, to.Name())
			}
		}
	}
	if fl.provenance && to.Name() != "canonical" && !(to.Name() == acp.Name && fl.acpMeta) {
		return nil, usageErr("--provenance applies only with --to canonical (or --to acp --acp-meta), not --to %s", to.Name())
	}
	onError, ok := convert.OnErrors[fl.onError]
	if !ok {
		return nil, usageErr("--on-error %q: want keep, skip or fail", fl.onError)
	}
	switch fl.progress {
	case "auto", "always", "never":
	default:
		return nil, usageErr("--progress=%q: want auto, always or never", fl.progress)
	}
	if fl.lossReport == "-" {
		return nil, usageErr("--loss-report takes a FILE; stdout carries the stream")
	}
	defaults, err := parseDefaults(to, fl.defaults)
	if err != nil {
		return nil, err
	}
	if flagChanged(fs, "session-id") {
		if !slices.Contains(defaultKeysOf(to), "session_id") {
			return nil, usageErr("--session-id: %s", noDefaults(to))
		}
		defaults["session_id"] = fl.sessionID
	}
	var params map[string]string
	if to.Name() == acp.Name {
		if params, err = acpParams(fl.acpProfile, fl.acpMeta, fl.transcript); err != nil {
			return nil, err
		}
	}
	return &convertPlan{from: from, to: to, opts: convert.Options{From: from, To: to, Provenance: fl.provenance,
		Defaults: defaults, Params: params, OnError: onError, Workers: jobs(fl.jobs), MaxLineBytes: lineLimit(fl.maxLine)}}, nil
}

// exitProcess ends the process from the signal handler; a variable for
// tests.
var exitProcess = os.Exit

func runConvert(cmd *cobra.Command, args []string, fl *convertFlags) error {
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
		inInfo = statOf(cmd.InOrStdin())
	}

	// An output that is the input would be truncated before it is read:
	// refuse it before anything is opened for writing.
	writeTo := fl.output
	if writeTo == "-" {
		writeTo = ""
	}
	for _, o := range []struct{ flag, name string }{{"-o", writeTo}, {"--loss-report", fl.lossReport}} {
		if o.name == "" {
			continue
		}
		if fi, err := os.Stat(o.name); err == nil && sameFile(inInfo, fi) {
			return usageErr("%s %s is the input %s; write to another file", o.flag, o.name, file)
		}
	}
	if writeTo == "" && sameFile(inInfo, statOf(cmd.OutOrStdout())) {
		return usageErr("stdout is the input %s; write to another file with -o", file)
	}
	if writeTo != "" && fl.lossReport != "" {
		a, errA := os.Stat(writeTo)
		b, errB := os.Stat(fl.lossReport)
		if writeTo == fl.lossReport || errA == nil && errB == nil && os.SameFile(a, b) {
			return usageErr("-o and --loss-report name the same file")
		}
	}

	stderr := cmd.ErrOrStderr()
	out := &output{w: cmd.OutOrStdout()}
	if writeTo != "" {
		if out, err = createOutput(writeTo); err != nil {
			return ioErr(err)
		}
	}
	defer out.abort()

	// SIGINT and SIGTERM remove the temporary output and say how far the
	// run got; a blocked read of a live pipe cannot be interrupted
	// otherwise.
	var lines atomic.Int64
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	finished := make(chan struct{})
	defer close(finished)
	go func() {
		select {
		case s := <-sigs:
			code, sig := ExitInterrupted, "SIGINT"
			if s == syscall.SIGTERM {
				code, sig = ExitTerminated, "SIGTERM"
			}
			what := "the output on stdout is incomplete"
			if out.abort() && out.name != "" {
				what = out.name + " was left as it was"
			}
			fmt.Fprintf(stderr, "evtool: interrupted by %s after %s of %s; %s\n", sig, plural(int(lines.Load()), "line"), file, what)
			exitProcess(code)
		case <-finished:
		}
	}()

	bar := newProgress(fl.progress, stderr, inInfo)
	plan.opts.Progress = func(n int, bytes int64) {
		lines.Store(int64(n))
		bar.update(n, bytes)
	}
	res, err := convert.Run(in, out.w, file, plan.opts, func(le *convert.LineError) {
		if bar != nil {
			bar.bar.Clear()
		}
		fmt.Fprintln(stderr, le.Error())
	})
	bar.finish()
	if err != nil {
		return convertFailed(stderr, file, out, err)
	}
	if err := out.commit(); err != nil {
		return ioErr(err)
	}

	losses := res.Losses.List()
	if !fl.quiet {
		for _, l := range losses {
			fmt.Fprintf(stderr, "evtool: %s [%s]\n", l, l.ID)
		}
	}
	if fl.lossReport != "" {
		if err := writeLossReport(fl.lossReport, file, res, plan.to.Name(), losses); err != nil {
			return ioErr(err)
		}
	}
	if res.Torn > 0 {
		fmt.Fprintf(stderr, "evtool: %s: the last line (%d) is torn; %s\n", file, res.Torn, fate(plan.opts.OnError, 1))
	}
	switch {
	case res.Errors > 0:
		return problem("%s: %s with problems (%s); %s, and the other lines converted", file,
			plural(res.Errors, "line"), lineList(res.BadLines), fate(plan.opts.OnError, res.Errors))
	case fl.strict && len(losses) > 0:
		return problem("--strict: the conversion lost information (see above)")
	case fl.strict && res.Torn > 0:
		return problem("--strict: the last line is torn")
	}
	return nil
}

// convertFailed reports a conversion that did not run to the end; -o
// FILE is left as it was.
func convertFailed(stderr io.Writer, file string, out *output, err error) error {
	kept := ""
	if out.abort() && out.name != "" {
		kept = "; " + out.name + " was left as it was"
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

func writeLossReport(name, file string, res convert.Result, to string, losses []*dialect.Loss) error {
	r := lossReport{Input: file, From: res.From, To: to, Lines: res.Lines, Losses: []lossRecord{}}
	for _, l := range losses {
		r.Losses = append(r.Losses, lossRecord{ID: l.ID, Verb: l.Verb, Count: l.Count, FirstLine: l.FirstLine, Detail: l.Detail,
			Summary: fmt.Sprintf("%s %d %s", l.Verb, l.Count, l.Kind), Reason: l.Why})
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	o, err := createOutput(name)
	if err != nil {
		return err
	}
	if _, err := o.w.Write(append(b, '\n')); err != nil {
		o.abort()
		return err
	}
	return o.commit()
}

// acpParams collects the --to acp options.
func acpParams(profile string, meta, transcript bool) (map[string]string, error) {
	switch profile {
	case acp.Stable, acp.Unstable, acp.Basis:
	default:
		return nil, usageErr("--acp-profile %q: want stable, unstable or basis", profile)
	}
	return map[string]string{"profile": profile, "meta": strconv.FormatBool(meta), "transcript": strconv.FormatBool(transcript)}, nil
}

// defaultKeysOf returns the facts a target takes from --default: the keys
// its dialect names (DefaultKeys), none for a dialect that names none.
func defaultKeysOf(d dialect.Dialect) []string {
	if dk, ok := d.(interface{ DefaultKeys() []string }); ok {
		return dk.DefaultKeys()
	}
	return nil
}

func noDefaults(to dialect.Dialect) string {
	keys := defaultKeysOf(to)
	if len(keys) == 0 {
		return fmt.Sprintf("--to %s takes no defaults: it writes only what the source says", to.Name())
	}
	return fmt.Sprintf("--to %s takes %s", to.Name(), strings.Join(keys, ", "))
}

func parseDefaults(to dialect.Dialect, list []string) (map[string]string, error) {
	keys := defaultKeysOf(to)
	out := map[string]string{}
	for _, kv := range list {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || !slices.Contains(keys, k) {
			return nil, usageErr("--default %q: want KEY=VALUE; %s", kv, noDefaults(to))
		}
		out[k] = v
	}
	return out, nil
}
