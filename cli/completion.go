package cli

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/urfave/cli/v3"
)

// shells are the shells evtool writes a completion script for, each with
// the name the library knows it by.
var shells = map[string]string{"bash": "bash", "zsh": "zsh", "fish": "fish", "powershell": "pwsh", "pwsh": "pwsh"}

func completionCmd() *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print a shell completion script (bash, zsh, fish, powershell)",
		ArgsUsage: "bash|zsh|fish|powershell",
		Description: "Prints the completion script of a shell. The script asks evtool what to\n" +
			"complete as you type: commands, flags, dialect names after --from, --to\n" +
			"and --dialect, formats, rules; file names where a FILE goes. To load it:\n" +
			"  bash:       source <(evtool completion bash)\n" +
			"  zsh:        evtool completion zsh > \"${fpath[1]}/_evtool\"\n" +
			"  fish:       evtool completion fish > ~/.config/fish/completions/evtool.fish\n" +
			"  powershell: evtool completion powershell > evtool.ps1; . ./evtool.ps1 (e.g. in $PROFILE)",
		Metadata: completions(map[string][]string{operandsKey: {"bash", "zsh", "fish", "powershell"}}),
		Action: action(func(_ context.Context, cmd *cli.Command, args []string) error {
			if len(args) != 1 {
				return usageErr("name one shell: bash, zsh, fish or powershell")
			}
			shell, ok := shells[args[0]]
			if !ok {
				return usageErr("unknown shell %q: want bash, zsh, fish or powershell%s", args[0], didYouMean(args[0], []string{"bash", "zsh", "fish", "powershell"}))
			}
			script, err := completionScript(shell)
			if err != nil {
				return err
			}
			_, err = cmd.Root().Writer.Write(script)
			return err
		}),
	}
}

// completionScript returns the library's completion script for a shell,
// written for a program named evtool, with two changes: fish completes
// file names too (the library's script completes only what evtool
// prints, and most operands are files), and PowerShell registers the
// completer for evtool rather than for the name of the script file.
func completionScript(shell string) ([]byte, error) {
	var out, errOut bytes.Buffer
	gen := &cli.Command{
		Name:                  "evtool",
		EnableShellCompletion: true,
		Writer:                &out,
		ErrWriter:             &errOut,
		ExitErrHandler:        func(context.Context, *cli.Command, error) {},
	}
	if err := gen.Run(context.Background(), []string{"evtool", "completion", shell}); err != nil || out.Len() == 0 {
		return nil, fmt.Errorf("cannot write the %s completion script: %v %s", shell, err, strings.TrimSpace(errOut.String()))
	}
	script := out.Bytes()
	switch shell {
	case "fish":
		script = bytes.Replace(script, []byte("complete -c evtool -f -a"), []byte("complete -c evtool -a"), 1)
	case "pwsh":
		script = psName.ReplaceAll(script, []byte("$$name = 'evtool'\n"))
	}
	return script, nil
}

// psName is how the library's PowerShell script takes the command's name
// from its own file name.
var psName = regexp.MustCompile(`(?s)^\$fn = .*?\n\$name = [^\n]*\n`)

func helpCmd() *cli.Command {
	return &cli.Command{
		Name:      "help",
		Usage:     "show a command's help, or evtool's",
		ArgsUsage: "[COMMAND...]",
		Action: action(func(ctx context.Context, cmd *cli.Command, args []string) error {
			parent := cmd.Root()
			if len(args) == 0 {
				return cli.ShowRootCommandHelp(parent)
			}
			for i, name := range args {
				sub := parent.Command(name)
				if sub == nil || sub.Hidden {
					return unknownCommand(parent, name)
				}
				if i == len(args)-1 {
					if len(sub.Commands) > 0 {
						return cli.ShowSubcommandHelp(sub)
					}
					return cli.ShowCommandHelp(ctx, parent, name)
				}
				parent = sub
			}
			return nil
		}),
	}
}
