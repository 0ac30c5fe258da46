package cli

import (
	"fmt"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/schema"
	"github.com/spf13/cobra"
)

func dialectsCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "dialects",
		Short: "list the dialects evtool reads and writes",
		Args:  noOperands,
		RunE: func(cmd *cobra.Command, _ []string) error {
			for _, d := range dialect.All() {
				fmt.Fprintf(cmd.OutOrStdout(), "%-10s %s (schema: %s)\n", d.Name(), d.Description(), schema.FileName(d.Name()))
			}
			return nil
		},
	}
}

// noOperands refuses operands as a usage error.
func noOperands(_ *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usageErr("takes no operands, got %q", args[0])
	}
	return nil
}

// lookupDialect returns the dialect a flag names, or nil for none; an
// unknown name is a usage error.
func lookupDialect(flag, name string) (dialect.Dialect, error) {
	if name == "" {
		return nil, nil
	}
	d, err := dialect.Lookup(name)
	if err != nil {
		return nil, usageErr("--%s: %v", flag, err)
	}
	return d, nil
}

// dialectNames returns the registered dialects' names, sorted.
func dialectNames() []string {
	var out []string
	for _, d := range dialect.All() {
		out = append(out, d.Name())
	}
	return out
}

// completeDialects makes the shell complete a flag's value with the
// registered dialects' names.
func completeDialects(cmd *cobra.Command, flag string) {
	_ = cmd.RegisterFlagCompletionFunc(flag, cobra.FixedCompletions(dialectNames(), cobra.ShellCompDirectiveNoFileComp))
}
