package cli

import (
	"io"
	"os"

	"github.com/evtool/evtool/adapters/acp/replay"
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
			name := args[0]
			f, err := os.Open(name)
			if err != nil {
				return ioErr(err)
			}
			f.Close() // opened only to report a missing file before the handshake
			open := func() (io.ReadCloser, error) { return os.Open(name) }
			err = replay.Serve(cmd.Context(), cmd.InOrStdin(), cmd.OutOrStdout(), open, replay.Options{From: fromD, Name: name,
				Profile: params["profile"], Meta: params["meta"] == "true", SessionID: sessionID, Log: cmd.ErrOrStderr()})
			if err != nil {
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
