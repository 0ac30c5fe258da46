package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/evtool/evtool/diag"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/prices"
	"github.com/evtool/evtool/sessions"
	"github.com/evtool/evtool/stats"
	"github.com/evtool/evtool/stream"
	"github.com/evtool/evtool/validate"
	"github.com/urfave/cli/v3"
)

const statsLong = `Reads every stream named (a file, each *.jsonl and *.ndjson file under a
directory, or - for standard input, which is also read when no operand is
named and stdin is not a terminal), in any dialect, and prints per run:
its dialect, models, status, turns, model rounds, tool calls by kind and
by status (calls never finished counted as unfinished), token counts
(input, output, cache read, cache write, reasoning, thoughts, total) and
cost in US dollars, where the producer states them; then the totals.
A figure a stream does not state is shown as — (absent in JSON), never 0.

Tokens are never counted twice: of the usage a stream states per session
(session_finished), per turn (turn_finished), per round (round_finished)
or as usage events, only the most aggregated level stated is used, in that
order; --format json names it in usage_from. Sums stop at 2^64-1 and say
so; costs are added as exact decimals.

With --by, prints instead one usage report over every stream read: token
counts and cost grouped by day, week, month, block (5-hour billing
windows), agent, project, session, run, model or tool, or several at once
(--by day,model), as an aligned table or as json, csv or markdown. Each
figure is tied to the time and model of its own event (a round, a turn, a
session's total: the finest level the stream states completely; see
docs/usage.md); --since and --until keep a range, in --timezone. The cost
is the log's own figure where it states one, else tokens × the price
table evtool embeds (evtool prices prints it; --prices FILE adds or
overrides prices, in LiteLLM's, models.dev's or genai-prices' shape); a model missing
from the table is named on stderr once and its cost shown as unknown. The
cost source column says which: stated, priced, mixed or unknown. Responses
that several files repeat (a resumed session) count once. With --by and
no FILE, every session the agents keep in their standard locations is
read (as evtool sessions finds them; --agent picks agents).

Exit status: 0 when every stream was read; 1 when a line had problems
(reported on stderr and counted, the rest still read; a torn last line, as
a live session's line being written, is reported and does not count) or a
stream is of
another dialect than --dialect names; 2 for usage errors, files that cannot
be read and streams whose dialect cannot be told.`

func statsCmd() *cli.Command {
	var (
		dialectName string
		format      string
		workers     int
		maxLine     int64
		by          string
		since       string
		until       string
		timezone    string
		startOfWeek string
		priceFiles  []string
		agents      []string
	)
	return &cli.Command{
		Name: "stats",
		// "usage" is what people look for (ccusage, "what did I spend"):
		// the same command, not a second one that overlaps.
		Aliases:     []string{"usage"},
		Usage:       "sum up each run's turns, tool calls, tokens and cost, or report usage by day, model, session, …",
		ArgsUsage:   "[FILE|DIR|SESSION|-...]",
		Description: statsLong,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "dialect", Aliases: []string{"d"}, Destination: &dialectName, Usage: "the streams' `DIALECT` (default, or none: detected from each first line)"},
			&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Value: "text", Destination: &format, Usage: "the output's `FORMAT`: " + strings.Join(stats.Formats(), " or ") + "; with --by also csv or markdown"},
			&cli.IntFlag{Config: base10, Name: "jobs", Aliases: []string{"j"}, HideDefault: true, Destination: &workers, Usage: "check each stream's lines with `N` workers ahead of decoding (0, the default: one per CPU; 1: no workers); the figures are the same"},
			&cli.Int64Flag{Config: base10, Name: "max-line-bytes", Value: stream.DefaultMaxLineBytes, Destination: &maxLine, Usage: "refuse lines longer than `N` bytes: each is reported, counted and skipped (0: no limit)"},
			&cli.StringFlag{Name: "by", Aliases: []string{"b"}, Destination: &by, Usage: "report usage grouped by `DIMS`, comma-separated: " + dimNames()},
			&cli.StringFlag{Name: "since", Aliases: []string{"s"}, Destination: &since, Usage: "with --by: only usage at or after `WHEN` (a date, 2026-01-02 or 20260102, in --timezone; or an RFC 3339 time)"},
			&cli.StringFlag{Name: "until", Aliases: []string{"u"}, Destination: &until, Usage: "with --by: only usage at or before `WHEN` (a date: its whole day)"},
			&cli.StringFlag{Name: "timezone", Aliases: []string{"z"}, Destination: &timezone, Usage: "with --by: the IANA time `ZONE` of days, weeks, months and dates (default: local)"},
			&cli.StringFlag{Name: "start-of-week", Aliases: []string{"w"}, Value: "sunday", Destination: &startOfWeek, Usage: "with --by week: the `DAY` a week begins"},
			&cli.StringSliceFlag{Name: "prices", Destination: &priceFiles, Usage: "with --by: prices from `FILE` (LiteLLM's, models.dev's or genai-prices' JSON) before the embedded table's (repeatable)"},
			&cli.StringSliceFlag{Name: "agent", Aliases: []string{"a"}, Destination: &agents, Usage: "with --by and no FILE: only the sessions of `AGENT` (repeatable: " + strings.Join(agentNames(), ", ") + ")"},
		},
		Metadata: completions(map[string][]string{"dialect": sourceDialects(), "format": stats.ReportFormats(), "agent": agentNames(),
			"start-of-week": weekdays(), "by": dimList()}),
		Action: action(func(ctx context.Context, cmd *cli.Command, args []string) error {
			d, err := lookupDialect("dialect", dialectName)
			if err != nil {
				return err
			}
			if err := checkCounts(workers, maxLine); err != nil {
				return err
			}
			var rp *stats.Report
			if by != "" {
				rp, err = newReport(by, since, until, timezone, startOfWeek, priceFiles, cmd.Root().ErrWriter)
				if err != nil {
					return err
				}
				if !slices.Contains(stats.ReportFormats(), format) {
					return usageErr("--format %q: want %s%s", format, strings.Join(stats.ReportFormats(), " or "), didYouMean(format, stats.ReportFormats()))
				}
			} else {
				for flag, v := range map[string]bool{"--since": since != "", "--until": until != "", "--timezone": timezone != "",
					"--prices": len(priceFiles) > 0, "--agent": len(agents) > 0, "--start-of-week": cmd.IsSet("start-of-week")} {
					if v {
						return usageErr("%s works on the usage report: add --by (%s)", flag, dimNames())
					}
				}
				if !slices.Contains(stats.Formats(), format) {
					hint := didYouMean(format, stats.Formats())
					if slices.Contains(stats.ReportFormats(), format) {
						hint = " (" + format + " is for the usage report: add --by)"
					}
					return usageErr("--format %q: want %s%s", format, strings.Join(stats.Formats(), " or "), hint)
				}
			}
			stderr := cmd.Root().ErrWriter
			opts := stats.Options{
				Stream:    stream.Options{Dialect: d, Workers: jobs(workers), MaxLineBytes: lineLimit(maxLine)},
				LineError: func(le *stream.LineError) { fmt.Fprintln(stderr, le.Error()) },
				Report:    rp,
			}
			var (
				runs           []*stats.Run
				tot            stats.Totals
				usage, problem bool
				took           func(run *stats.Run, err error, file, name string)
			)
			// Several streams are read at once, one per worker, each
			// without workers of its own; one stream alone keeps them.
			// Either way the runs are taken, and what is said of them
			// printed, in the order of the streams.
			ahead := &stats.Ahead{N: 1}
			several := func(n int, o *stats.Options) {
				if n > 1 && o.Stream.Workers > 1 {
					ahead.N, o.Stream.Workers = o.Stream.Workers, 1
				}
			}
			// read reads one stream; a nil r is one that could not be
			// opened (err).
			read := func(r io.ReadCloser, file, name string, err error, opts stats.Options) {
				ahead.Add(r, err, file, opts, func(run *stats.Run, err error) { took(run, err, file, name) })
			}
			took = func(run *stats.Run, err error, file, name string) {
				if run == nil {
					run := &stats.Run{File: name, Err: err}
					runs = append(runs, run)
					tot.Add(run)
					fmt.Fprintf(stderr, "evtool: %v\n", err)
					usage = true
					return
				}
				runs = append(runs, run)
				tot.Add(run)
				var se *stream.StreamError
				switch {
				case err == nil:
				case errors.As(err, &se) && !se.Usage:
					fmt.Fprintln(stderr, se.Diagnostic.String())
					problem = true
				default:
					fmt.Fprintf(stderr, "evtool: %v\n", err)
					usage = true
				}
				if run.Torn > 0 {
					fmt.Fprintf(stderr, "evtool: %s: the last line (%d) is torn (still being written, or its producer stopped mid-line); the figures count the lines before it\n", diag.Escape(file), run.Torn)
				}
				if run.BadLines > 0 {
					fmt.Fprintf(stderr, "evtool: %s: %s with problems (above); the figures count what could be read\n", diag.Escape(file), plural(int(run.BadLines), "line"))
					problem = true
				}
			}
			if rp != nil && len(args) == 0 {
				// ccusage's way: every session the agents keep.
				unsearched := func(err error) {
					fmt.Fprintf(stderr, "evtool: %v\n", err)
					problem = true
				}
				if err := readSessions(ctx, rp, agents, opts, several, read, unsearched); err != nil {
					return err
				}
			} else {
				if rp == nil {
					if args, err = operandsOrStdin(cmd, args); err != nil {
						return err
					}
				}
				inputs, err := validate.Inputs(args)
				if err != nil {
					return ioErr(err)
				}
				several(len(inputs), &opts)
				for _, in := range inputs {
					name := in.Path
					if name == "" {
						name = "-"
					}
					if rp != nil && before(name, skipSince(rp.Options())) {
						continue
					}
					r, file, err := openInput(cmd, name)
					read(r, file, in.Name, err, opts)
				}
			}
			ahead.Wait()
			if rp != nil {
				err = stats.WriteReport(cmd.Root().Writer, format, rp)
			} else {
				err = stats.Write(cmd.Root().Writer, format, runs, &tot)
			}
			if err != nil {
				if isEPIPE(err) {
					return err
				}
				return ioErr(err)
			}
			switch {
			case usage:
				return &ExitError{Code: ExitUsage}
			case problem:
				return &ExitError{Code: ExitProblem}
			}
			return nil
		}),
	}
}

// newReport reads the report's flags.
func newReport(by, since, until, timezone, startOfWeek string, priceFiles []string, stderr io.Writer) (*stats.Report, error) {
	dims, err := stats.ParseDims(by)
	if err != nil {
		return nil, usageErr("--by: %v", err)
	}
	loc := time.Local
	if timezone != "" {
		if loc, err = time.LoadLocation(timezone); err != nil {
			return nil, usageErr("--timezone %q: want an IANA time zone (UTC, Europe/Paris, America/New_York)", timezone)
		}
	}
	opts := stats.ReportOptions{By: dims, Location: loc}
	if opts.Since, err = reportWhen("--since", since, loc, false); err != nil {
		return nil, err
	}
	if opts.Until, err = reportWhen("--until", until, loc, true); err != nil {
		return nil, err
	}
	if !opts.Since.IsZero() && !opts.Until.IsZero() && !opts.Since.Before(opts.Until) {
		return nil, usageErr("--until %s is before --since %s", until, since)
	}
	wd := slices.Index(weekdays(), strings.ToLower(startOfWeek))
	if wd < 0 {
		return nil, usageErr("--start-of-week %q: want %s%s", startOfWeek, strings.Join(weekdays(), ", "), didYouMean(strings.ToLower(startOfWeek), weekdays()))
	}
	opts.StartOfWeek = time.Weekday(wd)
	if opts.Prices, err = priceTable(priceFiles); err != nil {
		return nil, err
	}
	opts.Unpriced = unpricedNote(stderr)
	return stats.NewReport(opts), nil
}

// unpricedNote returns the callback that names, on stderr, a model the
// price table lacks (usage reports and the sessions listing say it alike).
func unpricedNote(stderr io.Writer) func(model string) {
	return func(model string) {
		if model == stats.None {
			fmt.Fprintln(stderr, "evtool: usage that names no model cannot be priced: its cost is shown as unknown")
			return
		}
		fmt.Fprintf(stderr, "evtool: no price for model %q in the price table: its cost is shown as unknown (--prices FILE adds prices)\n", model)
	}
}

// priceTable is the embedded table with the files' prices before it.
func priceTable(files []string) (*prices.Table, error) {
	t, err := prices.Default()
	if err != nil {
		return nil, err
	}
	for i := len(files) - 1; i >= 0; i-- {
		// The first file named takes precedence: it is read last, on top.
		f, err := os.Open(files[i])
		if err != nil {
			return nil, ioErr(err)
		}
		t, err = prices.Read(f, files[i], t)
		f.Close()
		if err != nil {
			return nil, usageErr("--prices %v", err)
		}
	}
	return t, nil
}

// reportWhen reads --since or --until as an instant: a date is its day's
// start in loc (for --until, the next day's start, the range's end being
// exclusive); an RFC 3339 time is itself (for --until, inclusive).
func reportWhen(flag, v string, loc *time.Location, end bool) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		if end {
			t = t.Add(time.Nanosecond)
		}
		return t, nil
	}
	for _, layout := range []string{"2006-01-02", "20060102"} {
		if t, err := time.ParseInLocation(layout, v, loc); err == nil {
			if end {
				t = t.AddDate(0, 0, 1)
			}
			return t, nil
		}
	}
	return time.Time{}, usageErr("%s %q: want a date (2026-01-02 or 20260102) or an RFC 3339 time", flag, v)
}

// before reports whether a file was last written before since: it holds
// no line of a later time, and is not read at all.
//
// Not so with blocks (skipSince): where a block that reaches into the
// range begins depends on every record before, back to a gap of five
// hours, in files of any time.
func before(name string, since time.Time) bool {
	if since.IsZero() || name == "-" {
		return false
	}
	fi, err := os.Stat(name)
	return err == nil && fi.Mode().IsRegular() && fi.ModTime().Before(since)
}

// skipSince is the time before which a file or session last written is
// not read: --since, or none when the report has blocks (see before).
func skipSince(o stats.ReportOptions) time.Time {
	if slices.Contains(o.By, stats.ByBlock) {
		return time.Time{}
	}
	return o.Since
}

// readSessions reads every session the agents' stores find in their
// standard locations, skipping those last written before --since.
// They are found first, so that several can set the reading of them at
// once, knowing how many there are, before the first is read.
func readSessions(ctx context.Context, rp *stats.Report, agents []string, opts stats.Options, several func(int, *stats.Options), read func(io.ReadCloser, string, string, error, stats.Options), unsearched func(error)) error {
	f := sessions.Filter{Unsearched: unsearched}
	var err error
	if f.Agents, err = agentFlag(agents); err != nil {
		return err
	}
	since := skipSince(rp.Options())
	type found struct {
		s   sessions.Store
		ref sessions.Ref
	}
	var all []found
	err = sessions.Find(ctx, nil, f, func(s sessions.Store, ref sessions.Ref) error {
		if !since.IsZero() && !ref.Modified.IsZero() && ref.Modified.Before(since) {
			return nil
		}
		all = append(all, found{s, ref})
		return nil
	})
	if err != nil {
		return ioErr(err)
	}
	several(len(all), &opts)
	for _, x := range all {
		o := opts
		d, err := dialect.Lookup(x.s.Dialect())
		if err != nil {
			read(nil, "", sessionName(x.ref), err, o)
			continue
		}
		o.Stream.Dialect = d
		r, file, err := openSession(x.s, x.ref)
		read(r, file, sessionName(x.ref), err, o)
	}
	return nil
}

func dimList() []string {
	var out []string
	for _, d := range stats.Dims() {
		out = append(out, string(d))
	}
	return out
}

func dimNames() string { return strings.Join(dimList(), ", ") }

func weekdays() []string {
	return []string{"sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"}
}
