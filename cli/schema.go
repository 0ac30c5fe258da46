package cli

import (
	"context"
	"strings"

	"github.com/evtool/evtool/dialect"
	"github.com/urfave/cli/v3"
)

func schemaCmd() *cli.Command {
	return &cli.Command{
		Name:        "schema",
		Usage:       "print a dialect's JSON Schema",
		ArgsUsage:   "DIALECT",
		Description: "Prints the published JSON Schema of one line of DIALECT (e.g. basis or canonical).",
		Metadata:    completions(map[string][]string{operandsKey: dialectNames()}),
		Action: action(func(_ context.Context, cmd *cli.Command, args []string) error {
			if len(args) != 1 {
				return usageErr("name one dialect (%s)", strings.Join(dialectNames(), ", "))
			}
			d, err := dialect.Lookup(args[0])
			if err != nil {
				return usageErr("%v%s", err, didYouMean(args[0], dialectNames()))
			}
			_, err = cmd.Root().Writer.Write(d.Schema())
			return err
		}),
	}
}
