package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/schema"
	"github.com/urfave/cli/v3"
)

func dialectsCmd() *cli.Command {
	return &cli.Command{
		Name:  "dialects",
		Usage: "list the dialects evtool reads and writes",
		Action: action(func(_ context.Context, cmd *cli.Command, args []string) error {
			if err := noOperands(args); err != nil {
				return err
			}
			width := 0
			for _, d := range dialect.All() {
				width = max(width, len(d.Name()))
			}
			for _, d := range dialect.All() {
				ro := ""
				if !dialect.Writable(d) {
					ro = ", read-only"
				}
				if _, err := fmt.Fprintf(cmd.Root().Writer, "%-*s %s (schema: %s%s)\n", width, d.Name(), d.Description(), schema.FileName(d.Name()), ro); err != nil {
					return err
				}
			}
			return nil
		}),
	}
}

// noOperands refuses operands as a usage error.
func noOperands(args []string) error {
	if len(args) > 0 {
		return usageErr("takes no operands, got %q", args[0])
	}
	return nil
}

// detect is the dialect name that asks for detection, as the
// dialect-mismatch hint spells it ("name none to detect it").
const detect = "none"

// lookupDialect returns the dialect a flag names, or nil for none (or
// "none": detect it); an unknown name is a usage error that says which
// name is nearest.
func lookupDialect(flag, name string) (dialect.Dialect, error) {
	if name == "" || name == detect {
		return nil, nil
	}
	d, err := dialect.Lookup(name)
	if err != nil {
		return nil, usageErr("--%s: %v%s", flag, err, didYouMean(name, append(dialectNames(), detect)))
	}
	return d, nil
}

// lookupTarget returns the dialect --to names: one must be named, and
// "none" is no target.
func lookupTarget(name string) (dialect.Dialect, error) {
	if name == "" {
		return nil, usageErr("required flag(s) \"to\" not set")
	}
	if name == detect {
		return nil, usageErr("--to none: name the target dialect (%s)", strings.Join(targetNames(), ", "))
	}
	d, err := dialect.Lookup(name)
	if err != nil {
		return nil, usageErr("--to: %v%s", err, didYouMean(name, targetNames()))
	}
	if ro, ok := d.(dialect.ReadOnly); ok {
		return nil, usageErr("--to %s: evtool reads %s but does not write it (%s); targets: %s", name, name, ro.ReadOnly(), strings.Join(targetNames(), ", "))
	}
	return d, nil
}

// targetNames returns the names of the dialects evtool writes, sorted.
func targetNames() []string {
	var out []string
	for _, d := range dialect.All() {
		if dialect.Writable(d) {
			out = append(out, d.Name())
		}
	}
	return out
}

// dialectNames returns the registered dialects' names, sorted.
func dialectNames() []string {
	var out []string
	for _, d := range dialect.All() {
		out = append(out, d.Name())
	}
	return out
}

// completions holds what the shell completes a command's flag values and
// operands with, in the command's Metadata: flag name → values, and
// operandsKey → the operands'.
func completions(values map[string][]string) map[string]any {
	return map[string]any{completeKey: values}
}

const (
	completeKey = "evtool/complete"
	operandsKey = "" // no flag has an empty name
)

// sourceDialects are the values of --from and --dialect.
func sourceDialects() []string { return append(dialectNames(), detect) }

// complete answers the shell's completion request for cmd: the values of
// the flag just typed (dialect names for --from, --to and --dialect), the
// flags that begin with the dash-word being typed, or the subcommands and
// known operands. A word not starting with a dash is not passed by the
// scripts: the shell filters what is printed here by it.
func complete(_ context.Context, cmd *cli.Command) {
	w := cmd.Root().Writer
	values, _ := cmd.Metadata[completeKey].(map[string][]string)
	args := cmd.Args().Slice()
	last := ""
	if len(args) > 0 {
		last = args[len(args)-1]
	}
	if strings.HasPrefix(last, "-") && last != "-" {
		if f := lookupFlag(cmd, strings.TrimLeft(last, "-")); f != nil && takesValue(f) {
			for _, v := range values[f.Names()[0]] {
				fmt.Fprintln(w, v)
			}
			return
		}
		for _, f := range cmd.VisibleFlags() {
			usage := ""
			if u, ok := f.(interface{ GetUsage() string }); ok {
				usage = ":" + firstLine(u.GetUsage())
			}
			for _, n := range f.Names() {
				if s := spelled(n); strings.HasPrefix(s, last) && s != last {
					fmt.Fprintln(w, s+usage)
				}
			}
		}
		return
	}
	for _, c := range cmd.VisibleCommands() {
		fmt.Fprintf(w, "%s:%s\n", c.Name, c.Usage)
	}
	for _, v := range values[operandsKey] {
		fmt.Fprintln(w, v)
	}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return strings.ReplaceAll(s, "`", "")
}
