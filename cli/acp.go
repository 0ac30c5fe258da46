package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os"

	"github.com/evtool/evtool/adapters/acp"
	"github.com/evtool/evtool/convert"
	"github.com/evtool/evtool/dialect"
	"github.com/spf13/cobra"
)

func acpCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "acp",
		Short: "serve recorded runs over the Agent Client Protocol",
		Args:  noOperands,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return usageErr("name a subcommand (replay)")
		},
	}
	cmd.AddCommand(acpReplayCmd())
	return cmd
}

func acpReplayCmd() *cobra.Command {
	var (
		from      string
		profile   string
		meta      bool
		sessionID string
	)
	cmd := &cobra.Command{
		Use:   "replay FILE",
		Short: "act as an ACP agent on stdin/stdout that replays FILE's recorded run, one turn per prompt",
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErr("name one FILE")
			}
			fromD, err := lookupDialect("from", from)
			if err != nil {
				return err
			}
			params, err := acpParams(profile, meta, true)
			if err != nil {
				return err
			}
			f, err := os.Open(args[0])
			if err != nil {
				return ioErr(err)
			}
			defer f.Close()
			to, _ := dialect.Lookup(acp.Name)
			defaults := map[string]string{}
			if sessionID != "" {
				defaults["session_id"] = sessionID
			}
			var transcript bytes.Buffer
			res, err := convert.Run(f, &transcript, args[0], convert.Options{From: fromD, To: to, Params: params, Defaults: defaults},
				func(le *convert.LineError) { fmt.Fprintln(cmd.ErrOrStderr(), le.Error()) })
			var empty *convert.EmptyError
			if errors.As(err, &empty) {
				return problem("%v", err)
			}
			if err != nil {
				return ioErr(err)
			}
			if res.Errors > 0 {
				return problem("the recording has lines that could not be read")
			}
			script, err := acp.NewScript(transcript.Bytes())
			if err != nil {
				return ioErr(err)
			}
			sid := acp.SessionOf(transcript.Bytes())
			if err := script.Replay(cmd.InOrStdin(), cmd.OutOrStdout(), sid); err != nil {
				return ioErr(err)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVarP(&from, "from", "f", "", "FILE's `DIALECT` (default: detected)")
	f.StringVar(&profile, "acp-profile", "stable", "stable, unstable or basis")
	f.BoolVar(&meta, "acp-meta", false, "carry source residue under _meta")
	f.StringVar(&sessionID, "session-id", "", "the session `ID` session/new returns (default: the recording's)")
	completeDialects(cmd, "from")
	return cmd
}
