package cli

import (
	"github.com/evtool/evtool/rules"
	"github.com/spf13/cobra"
)

func rulesCmd() *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "rules [DIALECT]",
		Short: "list the rules a stream is checked against: id, severity, purpose",
		Long: "Lists the rules of the reading, which apply to every stream, and those of\n" +
			"every dialect, or of the DIALECT named. --format json writes one JSON array\n" +
			"of {id, severity, summary, dialect}. docs/rules.md is written from the same\n" +
			"catalogue. Any rule but the reading's own can be silenced with\n" +
			"evtool validate --disable RULE.",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usageErr("name at most one DIALECT")
			}
			return nil
		},
		ValidArgsFunction: cobra.FixedCompletions(dialectNames(), cobra.ShellCompDirectiveNoFileComp),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := ""
			if len(args) == 1 {
				name = args[0]
			}
			rs, err := rules.For(name)
			if err != nil {
				return usageErr("%v", err)
			}
			w := cmd.OutOrStdout()
			switch format {
			case "text":
				return rules.WriteText(w, rs)
			case "json":
				return rules.WriteJSON(w, rs)
			}
			return usageErr("--format %q: want text or json", format)
		},
	}
	cmd.Flags().StringVarP(&format, "format", "f", "text", "`FORMAT` of the list: text or json")
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"text", "json"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}
