// Command evtool-beam runs evtool's validate, convert and usage over many
// runs as an Apache Beam pipeline: on Prism, Beam's embedded runner, by
// default (no cluster: the workers are goroutines of this process), or on
// any runner the standard Beam flags name (--runner=dataflow, flink,
// spark, universal).
//
//	evtool-beam validate -f sarif -o report.sarif 'runs/*.jsonl.gz'
//	evtool-beam convert --to canonical --out-dir out/ runs/
//	evtool-beam usage --by day,model -z UTC -f json -o usage.json 'gs://bucket/runs/*/*.jsonl.zst'
//	evtool-beam usage --by month,agent --sessions            # every agent's sessions on this machine
//
// The Beam flags come before the command: evtool-beam --runner=dataflow
// --project=P --region=R --staging_location=gs://B/staging validate ….
// docs/scale.md shows the commands for Dataflow and Flink.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/gcs"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/s3"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"
	"github.com/evtool/evtool/beam/evbeam"
	"github.com/evtool/evtool/report"
	"github.com/evtool/evtool/stats"
)

const usage = `usage: evtool-beam [BEAM FLAGS] COMMAND [FLAGS] PATTERN...

Commands (each as the evtool command of the same name, on many workers):
  validate   check runs; one report in any of evtool's formats
  convert    convert each run into --out-dir, one file per run
  usage      usage and cost report grouped --by day, model, …

PATTERN is a file, a directory (its *.jsonl and *.ndjson at any depth,
plain, .gz or .zst) or a glob, in any Beam filesystem: local paths,
gs://bucket/…, s3://bucket/…. The runner is Prism, in this process,
unless --runner names another. 'evtool-beam COMMAND -h' lists a
command's flags.`

func main() {
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, usage)
		fmt.Fprintln(os.Stderr, "\nBeam flags:")
		flag.PrintDefaults()
	}
	flag.Parse()
	// On a runner's worker, Init runs the worker and does not return.
	beam.Init()
	os.Exit(run(context.Background(), flag.Args(), os.Stdout, os.Stderr))
}

// list is a repeatable, comma-separated flag.
type list []string

func (l *list) String() string { return strings.Join(*l, ",") }

func (l *list) Set(v string) error {
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			*l = append(*l, p)
		}
	}
	return nil
}

// repeated is a repeatable flag whose values keep their commas.
type repeated []string

func (r *repeated) String() string     { return strings.Join(*r, " ") }
func (r *repeated) Set(v string) error { *r = append(*r, v); return nil }

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, usage)
		return 2
	}
	cmd, args := args[0], args[1:]
	fs := flag.NewFlagSet("evtool-beam "+cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		dialectName string
		maxLine     int64
		jobs        int
		format      string
		output      string
	)
	fs.StringVar(&dialectName, "dialect", "", "the runs' `DIALECT` (default: detected from each first line)")
	fs.Int64Var(&maxLine, "max-line-bytes", 0, "refuse lines longer than `N` bytes (0: evtool's default, 256 MiB; -1: no limit)")
	fs.IntVar(&jobs, "jobs", 0, "check a run's lines with `N` goroutines ahead of decoding (0: one per CPU)")

	p, s := beam.NewPipelineWithRoot()
	var build func(runs beam.PCollection) error
	switch cmd {
	case "validate":
		var o evbeam.ValidateOptions
		var disable list
		var toolVersion string
		fs.BoolVar(&o.Strict, "strict", false, "treat unknown types and fields as errors")
		fs.Var(&disable, "disable", "silence a `RULE` (repeatable, or comma-separated)")
		fs.StringVar(&format, "f", "text", "the report's `FORMAT`: "+strings.Join(report.IDs(), ", "))
		fs.StringVar(&output, "o", "-", "write the report to `FILE` (any Beam filesystem; - : stdout, with Prism only)")
		fs.StringVar(&toolVersion, "tool-version", "", "the evtool `VERSION` a json, junit or sarif report names (default: this build's)")
		build = func(runs beam.PCollection) error {
			o.Dialect, o.Disable, o.MaxLineBytes, o.Workers = dialectName, disable, maxLine, jobs
			if _, err := report.Lookup(format); err != nil {
				return err
			}
			tool := evbeam.CLITool()
			if toolVersion != "" {
				tool.Version = toolVersion
			}
			res := evbeam.Validate(s, runs, o)
			evbeam.WriteFile(s, evbeam.Report(s, res, format, evbeam.ReportOptions{Tool: tool}), output)
			return nil
		}
	case "convert":
		var o evbeam.ConvertOptions
		fs.StringVar(&o.To, "to", "", "the target `DIALECT` (required)")
		fs.StringVar(&o.From, "from", "", "the source `DIALECT` (default: detected)")
		fs.StringVar(&o.OutDir, "out-dir", "", "write each run to `DIR`/NAME: its path below the pattern's directory (required; any Beam filesystem)")
		fs.StringVar(&o.OnError, "on-error", "keep", "what becomes of a line with problems: `keep`, skip or fail (the run is not written)")
		fs.BoolVar(&o.Provenance, "provenance", false, "with --to canonical (or acp --acp-meta): record each event's source line")
		fs.StringVar(&o.ACPProfile, "acp-profile", "", "with --to acp: stable (the default), unstable or basis")
		fs.BoolVar(&o.ACPMeta, "acp-meta", false, "with --to acp: carry every canonical event under _meta")
		fs.BoolVar(&o.Transcript, "transcript", false, "with --to acp: write both sides of the conversation")
		build = func(runs beam.PCollection) error {
			o.MaxLineBytes, o.Workers = maxLine, jobs
			if o.To == "" || o.OutDir == "" {
				return errors.New("--to and --out-dir are required")
			}
			evbeam.Convert(s, runs, o)
			return nil
		}
	case "usage":
		var o evbeam.UsageOptions
		var priceFiles repeated
		fs.StringVar(&o.By, "by", "", "group by `DIMS`, comma-separated: day, week, month, block, agent, project, session, run, model, tool (required)")
		fs.StringVar(&o.Since, "since", "", "only usage at or after `WHEN` (a date, or an RFC 3339 time)")
		fs.StringVar(&o.Until, "until", "", "only usage at or before `WHEN`")
		fs.StringVar(&o.Timezone, "z", "", "the IANA time `ZONE` of days, weeks and months (default: local; name one on a cluster)")
		fs.StringVar(&o.StartOfWeek, "w", "sunday", "the `DAY` a week begins")
		fs.Var(&priceFiles, "prices", "prices from `FILE` (LiteLLM's or models.dev's JSON, read here) before the embedded table's (repeatable)")
		fs.StringVar(&format, "f", "text", "the report's `FORMAT`: "+strings.Join(stats.ReportFormats(), ", "))
		fs.StringVar(&output, "o", "-", "write the report to `FILE` (any Beam filesystem; - : stdout, with Prism only)")
		build = func(runs beam.PCollection) error {
			o.Dialect, o.MaxLineBytes, o.Workers, o.Format = dialectName, maxLine, jobs, format
			if o.By == "" {
				return errors.New("--by is required")
			}
			for _, f := range priceFiles {
				data, err := os.ReadFile(f)
				if err != nil {
					return err
				}
				o.Prices = append(o.Prices, evbeam.PriceFile{Name: f, Data: data})
			}
			evbeam.WriteFile(s, evbeam.Usage(s, runs, o), output)
			return nil
		}
	default:
		fmt.Fprintf(stderr, "evtool-beam: unknown command %q\n%s\n", cmd, usage)
		return 2
	}
	var fromStores bool
	var agents list
	fs.BoolVar(&fromStores, "sessions", false, "PATTERNs are the agents' session stores (none: every agent's standard locations), each session a run")
	fs.Var(&agents, "agent", "with --sessions: only the sessions of `AGENT` (repeatable)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	patterns := fs.Args()
	if len(patterns) == 0 && !fromStores {
		fmt.Fprintln(stderr, "evtool-beam: name the runs: a file, directory or glob")
		return 2
	}

	// A report on stdout is written by the workers to a file, printed
	// here once the pipeline is done: Prism's workers are this process.
	stdoutFile := ""
	if output == "-" {
		if r := *runners.Runner; r != "" && r != "prism" && r != "PrismRunner" {
			fmt.Fprintf(stderr, "evtool-beam: -o FILE is needed with --runner=%s (its workers cannot write to this stdout)\n", r)
			return 2
		}
		dir, err := os.MkdirTemp("", "evtool-beam-")
		if err != nil {
			fmt.Fprintf(stderr, "evtool-beam: %v\n", err)
			return 2
		}
		defer os.RemoveAll(dir)
		stdoutFile = filepath.Join(dir, "report")
		output = stdoutFile
	}

	var runs beam.PCollection
	if fromStores {
		runs = evbeam.Sessions(s, patterns, agents...)
	} else {
		for _, p := range patterns {
			if isLocal(p) {
				if _, err := os.Stat(base(p)); err != nil {
					fmt.Fprintf(stderr, "evtool-beam: %v\n", err)
					return 2
				}
			}
		}
		runs = evbeam.Match(s, patterns...)
	}
	if err := construct(build, runs); err != nil {
		fmt.Fprintf(stderr, "evtool-beam: %v\n", err)
		return 2
	}
	res, err := beamx.RunWithMetrics(ctx, p)
	if err != nil {
		fmt.Fprintf(stderr, "evtool-beam: %v\n", err)
		return 1
	}
	if stdoutFile != "" {
		b, err := os.ReadFile(stdoutFile)
		if err != nil {
			fmt.Fprintf(stderr, "evtool-beam: %v\n", err)
			return 1
		}
		stdout.Write(b)
	}
	return summarize(res, cmd, stderr)
}

// construct builds the pipeline; the transforms refuse options they
// cannot run with by panicking, as Beam's own do, which is a usage error
// here.
func construct(build func(beam.PCollection) error, runs beam.PCollection) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	return build(runs)
}

// summarize prints the pipeline's counters as the command line's summary
// and returns the command line's exit status: 1 when a run has an error
// or a line has problems, 2 when a run could not be read.
func summarize(res beam.PipelineResult, cmd string, stderr io.Writer) int {
	if res == nil {
		return 0
	}
	got := map[string]int64{}
	for _, c := range res.Metrics().AllMetrics().Counters() {
		if c.Namespace() == "evtool" {
			got[c.Name()] += c.Result()
		}
	}
	names := make([]string, 0, len(got))
	for n := range got {
		names = append(names, n)
	}
	sort.Strings(names)
	var parts []string
	for _, n := range names {
		parts = append(parts, fmt.Sprintf("%d %s", got[n], strings.ReplaceAll(n, "_", " ")))
	}
	if len(parts) > 0 {
		fmt.Fprintf(stderr, "evtool-beam %s: %s\n", cmd, strings.Join(parts, ", "))
	}
	switch {
	case got["not_checked"] > 0, got["runs_not_read"] > 0:
		return 2
	case got["errors"] > 0, got["not_converted"] > 0, got["bad_lines"] > 0:
		return 1
	}
	return 0
}

func isLocal(p string) bool { return !strings.Contains(p, "://") }

// base is the fixed directory of a local pattern, which must exist.
func base(p string) string {
	if i := strings.IndexAny(p, `*?[`); i >= 0 {
		p = filepath.Dir(p[:i] + "x")
	}
	return p
}
