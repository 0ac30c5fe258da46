package cli

import (
	"context"

	"github.com/evtool/evtool/rules"
	"github.com/urfave/cli/v3"
)

func rulesCmd() *cli.Command {
	var format string
	formats := []string{"text", "json"}
	return &cli.Command{
		Name:      "rules",
		Usage:     "list the rules a stream is checked against: id, severity, purpose",
		ArgsUsage: "[DIALECT]",
		Description: "Lists the rules of the reading, which apply to every stream, and those of\n" +
			"every dialect, or of the DIALECT named. --format json writes one JSON array\n" +
			"of {id, severity, summary, dialect}. docs/rules.md is written from the same\n" +
			"catalogue. Any rule but the reading's own can be silenced with\n" +
			"evtool validate --disable RULE.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Value: "text", Destination: &format, Usage: "`FORMAT` of the list: text or json"},
		},
		Metadata: completions(map[string][]string{"format": formats, operandsKey: dialectNames()}),
		Action: action(func(_ context.Context, cmd *cli.Command, args []string) error {
			if len(args) > 1 {
				return usageErr("name at most one DIALECT")
			}
			name := ""
			if len(args) == 1 {
				name = args[0]
			}
			rs, err := rules.For(name)
			if err != nil {
				return usageErr("%v%s", err, didYouMean(name, dialectNames()))
			}
			w := cmd.Root().Writer
			switch format {
			case "text":
				return rules.WriteText(w, rs)
			case "json":
				return rules.WriteJSON(w, rs)
			}
			return usageErr("--format %q: want text or json%s", format, didYouMean(format, formats))
		}),
	}
}
