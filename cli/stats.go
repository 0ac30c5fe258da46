package cli

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

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

Exit status: 0 when every stream was read; 1 when a line had problems
(reported on stderr and counted, the rest still read) or a stream is of
another dialect than --dialect names; 2 for usage errors, files that cannot
be read and streams whose dialect cannot be told.`

func statsCmd() *cli.Command {
	var (
		dialectName string
		format      string
		workers     int
		maxLine     int64
	)
	return &cli.Command{
		Name:        "stats",
		Usage:       "sum up each run's turns, tool calls, tokens and cost, and their totals",
		ArgsUsage:   "[FILE|DIR|-...]",
		Description: statsLong,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "dialect", Aliases: []string{"d"}, Destination: &dialectName, Usage: "the streams' `DIALECT` (default, or none: detected from each first line)"},
			&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Value: "text", Destination: &format, Usage: "the output's `FORMAT`: " + strings.Join(stats.Formats(), " or ")},
			&cli.IntFlag{Name: "jobs", Aliases: []string{"j"}, HideDefault: true, Destination: &workers, Usage: "check each stream's lines with `N` workers ahead of decoding (0, the default: one per CPU; 1: no workers); the figures are the same"},
			&cli.Int64Flag{Name: "max-line-bytes", Value: stream.DefaultMaxLineBytes, Destination: &maxLine, Usage: "refuse lines longer than `N` bytes: each is reported, counted and skipped (0: no limit)"},
		},
		Metadata: completions(map[string][]string{"dialect": sourceDialects(), "format": stats.Formats()}),
		Action: action(func(_ context.Context, cmd *cli.Command, args []string) error {
			args, err := operandsOrStdin(cmd, args)
			if err != nil {
				return err
			}
			d, err := lookupDialect("dialect", dialectName)
			if err != nil {
				return err
			}
			if !slices.Contains(stats.Formats(), format) {
				return usageErr("--format %q: want %s%s", format, strings.Join(stats.Formats(), " or "), didYouMean(format, stats.Formats()))
			}
			if err := checkCounts(workers, maxLine); err != nil {
				return err
			}
			inputs, err := validate.Inputs(args)
			if err != nil {
				return ioErr(err)
			}
			stderr := cmd.Root().ErrWriter
			opts := stats.Options{
				Stream:    stream.Options{Dialect: d, Workers: jobs(workers), MaxLineBytes: lineLimit(maxLine)},
				LineError: func(le *stream.LineError) { fmt.Fprintln(stderr, le.Error()) },
			}
			var (
				runs           []*stats.Run
				tot            stats.Totals
				usage, problem bool
			)
			for _, in := range inputs {
				name := in.Path
				if name == "" {
					name = "-"
				}
				r, file, err := openInput(cmd, name)
				if err != nil {
					run := &stats.Run{File: in.Name, Err: err}
					runs = append(runs, run)
					tot.Add(run)
					fmt.Fprintf(stderr, "evtool: %v\n", err)
					usage = true
					continue
				}
				run, err := stats.Read(r, file, opts)
				r.Close()
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
				if run.BadLines > 0 {
					fmt.Fprintf(stderr, "evtool: %s: %s with problems (above); the figures count what could be read\n", file, plural(int(run.BadLines), "line"))
					problem = true
				}
			}
			if err := stats.Write(cmd.Root().Writer, format, runs, &tot); err != nil {
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
