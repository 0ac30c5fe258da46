package cli

import (
	"strings"

	"github.com/evtool/evtool/dialect"
	"github.com/spf13/cobra"
)

func schemaCmd() *cobra.Command {
	return &cobra.Command{
		Use:               "schema DIALECT",
		Short:             "print a dialect's JSON Schema",
		Long:              "Prints the published JSON Schema of one line of DIALECT (e.g. basis or canonical).",
		ValidArgsFunction: cobra.FixedCompletions(dialectNames(), cobra.ShellCompDirectiveNoFileComp),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErr("name one dialect (%s)", strings.Join(dialectNames(), ", "))
			}
			d, err := dialect.Lookup(args[0])
			if err != nil {
				return usageErr("%v", err)
			}
			_, err = cmd.OutOrStdout().Write(d.Schema())
			return err
		},
	}
}
