package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os"

	"github.com/evtool/evtool/fingerprint"
	"github.com/evtool/evtool/validate"
	"github.com/spf13/cobra"
)

func fingerprintCmd() *cobra.Command {
	var (
		dialectName string
		check       string
	)
	cmd := &cobra.Command{
		Use:   "fingerprint FILE|DIR|-...",
		Short: "print each event type with its sorted fields, or check streams against such a snapshot",
		Long: "Prints the vocabulary of streams of one dialect, one line per event type,\n" +
			"sorted: \"TYPE: FIELD, FIELD, …\" (for muse, the format of its upstream drift\n" +
			"fingerprint, with __envelope__ and TYPE::event[KIND] lines).\n\n" +
			"With --check SNAPSHOT, compares the streams with a fingerprint kept in a\n" +
			"repository instead: exit 0 when they match, 1 on drift, with each type and\n" +
			"field added or removed on stdout, 2 on error.",
		ValidArgsFunction: cobra.FixedCompletions(nil, cobra.ShellCompDirectiveDefault),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErr("name at least one FILE or DIR, or - for stdin")
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
			out := cmd.OutOrStdout()
			if snap == nil {
				_, err := fp.WriteTo(out)
				return err
			}
			drift := fingerprint.Diff(snap, fp)
			if len(drift) == 0 {
				fmt.Fprintf(cmd.ErrOrStderr(), "evtool: the streams match %s\n", check)
				return nil
			}
			for _, l := range drift {
				fmt.Fprintln(out, l)
			}
			return problem("the streams drift from %s: %s", check, plural(len(drift), "difference"))
		},
	}
	cmd.Flags().StringVarP(&dialectName, "dialect", "d", "", "the streams' `DIALECT` (default: detected from each first line)")
	cmd.Flags().StringVar(&check, "check", "", "compare with the fingerprint in `SNAPSHOT` instead of printing one")
	completeDialects(cmd, "dialect")
	return cmd
}
