package cli

import (
	"github.com/spf13/cobra"
)

func completionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "completion bash|zsh|fish",
		Short: "print a shell completion script",
		Long: "Prints the completion script of a shell. To load it:\n" +
			"  bash: source <(evtool completion bash)\n" +
			"  zsh:  evtool completion zsh > \"${fpath[1]}/_evtool\"\n" +
			"  fish: evtool completion fish > ~/.config/fish/completions/evtool.fish",
		ValidArgs: []string{"bash", "zsh", "fish"},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErr("name one shell: bash, zsh or fish")
			}
			root, out := cmd.Root(), cmd.OutOrStdout()
			switch args[0] {
			case "bash":
				return root.GenBashCompletionV2(out, true)
			case "zsh":
				return root.GenZshCompletion(out)
			case "fish":
				return root.GenFishCompletion(out, true)
			}
			return usageErr("unknown shell %q: want bash, zsh or fish", args[0])
		},
	}
}
