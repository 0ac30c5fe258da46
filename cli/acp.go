package cli

import (
	"context"
	"io"
	"os"

	"github.com/evtool/evtool/adapters/acp/replay"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/sessions"
	"github.com/urfave/cli/v3"
)

func acpCmd() *cli.Command {
	return &cli.Command{
		Name:  "acp",
		Usage: "serve recorded runs over the Agent Client Protocol",
		Action: action(func(_ context.Context, cmd *cli.Command, args []string) error {
			if len(args) > 0 {
				return unknownCommand(cmd, args[0])
			}
			return usageErr("name a subcommand (replay, serve)")
		}),
		Commands: []*cli.Command{acpReplayCmd(), acpServeCmd()},
	}
}

func acpReplayCmd() *cli.Command {
	var (
		from      string
		profile   string
		meta      bool
		sessionID string
		rate      int
	)
	return &cli.Command{
		Name:      "replay",
		Usage:     "act as an ACP agent on stdin/stdout that replays FILE's recorded run, one turn per prompt",
		ArgsUsage: "FILE",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "from", Destination: &from, Usage: "FILE's `DIALECT` (default, or none: detected)"},
			&cli.StringFlag{Name: "acp-profile", Value: "stable", Destination: &profile, Usage: "stable, unstable or basis"},
			&cli.BoolFlag{Name: "acp-meta", Destination: &meta, Usage: "carry source residue under _meta"},
			&cli.StringFlag{Name: "session-id", Destination: &sessionID, Usage: "the session `ID` session/new returns (default: the recording's)"},
			&cli.IntFlag{Config: base10, Name: "rate", Value: replay.DefaultRate, Destination: &rate, Usage: "send at most `N` notifications a second (0: as fast as the client reads)"},
		},
		Metadata: completions(map[string][]string{"from": sourceDialects(), "acp-profile": acpProfiles}),
		Action: action(func(ctx context.Context, cmd *cli.Command, args []string) error {
			if len(args) != 1 {
				return usageErr("name one FILE")
			}
			fromD, err := lookupDialect("from", from)
			if err != nil {
				return err
			}
			cfg, err := acpConfig(profile, meta, true)
			if err != nil {
				return err
			}
			if err := nonNegative("--rate", rate, "as fast as the client reads"); err != nil {
				return err
			}
			if rate == 0 {
				rate = -1 // replay.Options: no cap
			}
			name := args[0]
			open := func() (io.ReadCloser, error) { return os.Open(name) }
			if s, ref, ok, err := sessionOperand(ctx, name); err != nil {
				return ioErr(err)
			} else if ok {
				// A past session of an agent: its store reads it.
				open = func() (io.ReadCloser, error) { return sessions.Open(s, ref) }
				if fromD == nil {
					fromD, _ = dialect.Lookup(s.Dialect())
				}
				name = sessionName(ref)
			}
			f, err := open()
			if err != nil {
				return ioErr(err)
			}
			f.Close() // opened only to report a missing file before the handshake
			err = replay.Serve(ctx, cmd.Root().Reader, cmd.Root().Writer, open, replay.Options{From: fromD, Name: name,
				Profile: cfg.Profile, Meta: cfg.Meta, SessionID: sessionID, Rate: rate, Log: cmd.Root().ErrWriter})
			if err != nil {
				return ioErr(err)
			}
			return nil
		}),
	}
}
