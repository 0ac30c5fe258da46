package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/evtool/evtool/fingerprint"
	"github.com/evtool/evtool/validate"
	"github.com/urfave/cli/v3"
)

func fingerprintCmd() *cli.Command {
	var (
		dialectName string
		check       string
	)
	return &cli.Command{
		Name:      "fingerprint",
		Usage:     "print each event type with its sorted fields, or check streams against such a snapshot",
		ArgsUsage: "[FILE|DIR|-...]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "dialect", Aliases: []string{"d"}, Destination: &dialectName, Usage: "the streams' `DIALECT` (default, or none: detected from each first line)"},
			&cli.StringFlag{Name: "check", Destination: &check, TakesFile: true, Usage: "compare with the fingerprint in `SNAPSHOT` instead of printing one"},
		},
		Metadata: completions(map[string][]string{"dialect": sourceDialects()}),
		Description: "Prints the vocabulary of streams of one dialect, one line per event type,\n" +
			"sorted: \"TYPE: FIELD, FIELD, …\" (for muse, the format of its upstream drift\n" +
			"fingerprint, with __envelope__ and TYPE::event[KIND] lines).\n\n" +
			"With --check SNAPSHOT, compares the streams with a fingerprint kept in a\n" +
			"repository instead: exit 0 when they match, 1 on drift, with each type and\n" +
			"field added or removed on stdout, 2 on error. With no operand, standard\n" +
			"input is read when it is not a terminal.",
		Action: action(func(_ context.Context, cmd *cli.Command, args []string) error {
			args, err := operandsOrStdin(cmd, args)
			if err != nil {
				return err
			}
			d, err := lookupDialect("dialect", dialectName)
			if err != nil {
				return err
			}
			var snap *fingerprint.Fingerprint
			if check != "" {
				data, err := os.ReadFile(check)
				if err != nil {
					return ioErr(err)
				}
				if snap, err = fingerprint.Parse(bytes.NewReader(data)); err != nil {
					return ioErr(fmt.Errorf("%s: %w", check, err))
				}
			}
			inputs, err := validate.Inputs(args)
			if err != nil {
				return ioErr(err)
			}
			fp := fingerprint.New()
			for _, in := range inputs {
				name := in.Path
				if name == "" {
					name = "-"
				}
				r, file, err := openInput(cmd, name)
				if err != nil {
					return err
				}
				err = fp.Add(r, file, d)
				r.Close()
				var le *fingerprint.LineError
				if errors.As(err, &le) {
					return ioErr(fmt.Errorf("%w\nevtool: a line that is not JSON has no fields to tell: fix it, or leave the file out", err))
				}
				if err != nil {
					return ioErr(err)
				}
			}
			out := cmd.Root().Writer
			if snap == nil {
				_, err := fp.WriteTo(out)
				return err
			}
			drift := fingerprint.Diff(snap, fp)
			if len(drift) == 0 {
				fmt.Fprintf(cmd.Root().ErrWriter, "evtool: the streams match %s\n", check)
				return nil
			}
			for _, l := range drift {
				if _, err := fmt.Fprintln(out, l); err != nil {
					return err
				}
			}
			return problem("the streams drift from %s: %s", check, plural(len(drift), "difference"))
		}),
	}
}
