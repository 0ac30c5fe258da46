// Command evtool validates coding-agent event streams and converts them
// between dialects.
//
// Exit status: 0 when all is well; 1 when a stream has errors, a line could
// not be converted, or (with --strict) something was lost or unknown; 2 for
// usage errors and for files that cannot be read or written.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	_ "github.com/evtool/evtool/adapters"
	"github.com/evtool/evtool/adapters/acp"
	"github.com/evtool/evtool/adapters/acp/replay"
	"github.com/evtool/evtool/convert"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/schema"
	"github.com/evtool/evtool/stream"
	"github.com/evtool/evtool/validate"
	"github.com/urfave/cli/v2"
)

// Exit codes.
const (
	exitOK      = 0
	exitProblem = 1
	exitUsage   = 2
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

func main() { os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr)) }

// exitError carries an exit code and a message for stderr.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

func usageErr(format string, args ...any) error {
	return &exitError{code: exitUsage, msg: fmt.Sprintf(format, args...)}
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	app := &cli.App{
		Name:      "evtool",
		Usage:     "validate and convert coding-agent event streams",
		Version:   version,
		Reader:    stdin,
		Writer:    stdout,
		ErrWriter: stderr,
		// Exit codes are ours: cli must not call os.Exit.
		ExitErrHandler: func(*cli.Context, error) {},
		OnUsageError: func(_ *cli.Context, err error, _ bool) error {
			return usageErr("%v", err)
		},
		Commands: []*cli.Command{validateCmd(), convertCmd(), schemaCmd(), dialectsCmd(), acpCmd()},
		CommandNotFound: func(c *cli.Context, name string) {
			fmt.Fprintf(stderr, "evtool: unknown command %q (see evtool --help)\n", name)
		},
	}
	err := app.Run(args)
	if err == nil {
		if len(args) > 1 && app.Command(args[1]) == nil && !strings.HasPrefix(args[1], "-") {
			return exitUsage
		}
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.msg != "" {
			fmt.Fprintf(stderr, "evtool: %s\n", ee.msg)
		}
		return ee.code
	}
	fmt.Fprintf(stderr, "evtool: %v\n", err)
	return exitUsage
}

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

// openInput opens a named file, or stdin for "-".
func openInput(c *cli.Context, name string) (io.ReadCloser, string, error) {
	if name == "-" {
		return io.NopCloser(c.App.Reader), "<stdin>", nil
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, name, &exitError{code: exitUsage, msg: err.Error()}
	}
	return f, name, nil
}

func validateCmd() *cli.Command {
	return &cli.Command{
		Name:      "validate",
		Usage:     "check streams against their dialect's schema and stream rules",
		ArgsUsage: "FILE... (- for stdin)",
		Description: "Every problem is printed to stdout, one per line:\n" +
			"FILE:LINE[:COL]: error|warning: MESSAGE [RULE]\n" +
			"Exit 0 when no file has an error, 1 when one has, 2 for usage or I/O errors.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "dialect", Aliases: []string{"d"}, Usage: "the streams' dialect (default: detected from each first line)"},
			&cli.BoolFlag{Name: "strict", Usage: "treat unknown types and fields as errors"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "print no summary on stderr"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return usageErr("validate: name at least one FILE, or - for stdin")
			}
			d, err := lookupDialect("dialect", c.String("dialect"))
			if err != nil {
				return err
			}
			opts := validate.Options{Dialect: d, Strict: c.Bool("strict")}
			out, stderr := c.App.Writer, c.App.ErrWriter
			failed, broken := false, false
			for _, name := range c.Args().Slice() {
				in, file, err := openInput(c, name)
				if err != nil {
					fmt.Fprintf(stderr, "evtool: %v\n", err)
					broken = true
					continue
				}
				sum, err := validate.Stream(in, file, opts, func(d validate.Diagnostic) {
					fmt.Fprintln(out, d.String())
				})
				in.Close()
				var se *stream.StreamError
				if errors.As(err, &se) && !se.Usage {
					// The stream is not of the dialect named: a finding.
					fmt.Fprintln(out, se.Diagnostic.String())
					failed = true
					continue
				}
				if err != nil {
					fmt.Fprintf(stderr, "evtool: %v\n", err)
					broken = true
					continue
				}
				if sum.Errors > 0 {
					failed = true
				}
				if !c.Bool("quiet") {
					fmt.Fprintf(stderr, "evtool: %s: %s, %s in %s (%s)\n", file,
						plural(sum.Errors, "error"), plural(sum.Warnings, "warning"), plural(sum.Lines, "line"), sum.Dialect)
				}
			}
			switch {
			case broken:
				return &exitError{code: exitUsage}
			case failed:
				return &exitError{code: exitProblem}
			}
			return nil
		},
	}
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

func convertCmd() *cli.Command {
	return &cli.Command{
		Name:      "convert",
		Usage:     "convert a stream from one dialect to another",
		ArgsUsage: "[FILE] (default or -: stdin)",
		Description: "Reads FILE, writes the converted stream to stdout or -o FILE. Lines that\n" +
			"cannot be converted are reported on stderr and skipped. What the target\n" +
			"cannot carry is counted and summarised on stderr, one line per kind.\n" +
			"Exit 0 on success, 1 when a line could not be converted (or, with\n" +
			"--strict, anything was lost), 2 for usage or I/O errors.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "from", Aliases: []string{"f"}, Usage: "the source dialect (default: detected from the first line)"},
			&cli.StringFlag{Name: "to", Aliases: []string{"t"}, Usage: "the target dialect", Required: true},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write to `FILE` instead of stdout"},
			&cli.BoolFlag{Name: "provenance", Usage: "record each canonical event's source line in src"},
			&cli.BoolFlag{Name: "strict", Usage: "exit 1 when anything was lost"},
			&cli.StringFlag{Name: "session-id", Usage: "the session id to write when the source has none"},
			&cli.StringSliceFlag{Name: "default", Usage: "a `KEY=VALUE` fact to write when the source lacks it (repeatable; keys: " + strings.Join(defaultKeys, ", ") + ")"},
			&cli.StringFlag{Name: "acp-profile", Value: "stable", Usage: "with --to acp: stable, unstable or basis"},
			&cli.BoolFlag{Name: "acp-meta", Usage: "with --to acp: carry each event's source residue under _meta[\"evtool/source\"]"},
			&cli.BoolFlag{Name: "transcript", Usage: "with --to acp: write both sides of the conversation (prompts, permission answers, prompt responses)"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 1 {
				return usageErr("convert: takes at most one FILE")
			}
			from, err := lookupDialect("from", c.String("from"))
			if err != nil {
				return err
			}
			to, err := lookupDialect("to", c.String("to"))
			if err != nil {
				return err
			}
			name := "-"
			if c.NArg() == 1 {
				name = c.Args().First()
			}
			in, file, err := openInput(c, name)
			if err != nil {
				return err
			}
			defer in.Close()
			var out io.Writer = c.App.Writer
			var outFile *os.File
			if o := c.String("output"); o != "" && o != "-" {
				if outFile, err = os.Create(o); err != nil {
					return &exitError{code: exitUsage, msg: err.Error()}
				}
				out = outFile
			}
			defaults, err := parseDefaults(c.StringSlice("default"))
			if err != nil {
				return err
			}
			if id := c.String("session-id"); id != "" {
				defaults["session_id"] = id
			}
			params, err := acpParams(c)
			if err != nil {
				return err
			}
			stderr := c.App.ErrWriter
			res, err := convert.Run(in, out, file, convert.Options{From: from, To: to, Provenance: c.Bool("provenance"), Defaults: defaults, Params: params},
				func(le *convert.LineError) { fmt.Fprintln(stderr, le.Error()) })
			if outFile != nil {
				if cerr := outFile.Close(); err == nil && cerr != nil {
					err = cerr
				}
			}
			var se *stream.StreamError
			if errors.As(err, &se) && !se.Usage {
				fmt.Fprintln(stderr, se.Diagnostic.String())
				return &exitError{code: exitProblem, msg: fmt.Sprintf("%s: not converted", file)}
			}
			if err != nil {
				return &exitError{code: exitUsage, msg: err.Error()}
			}
			for _, l := range res.Losses.List() {
				fmt.Fprintf(stderr, "evtool: %s\n", l)
			}
			switch {
			case res.Errors > 0:
				return &exitError{code: exitProblem, msg: fmt.Sprintf("%s: %s with problems (see above); what could be read of them was converted", file, plural(res.Errors, "line"))}
			case c.Bool("strict") && !res.Losses.Empty():
				return &exitError{code: exitProblem, msg: "--strict: the conversion lost information (see above)"}
			}
			return nil
		},
	}
}

// acpParams collects the --to acp options.
func acpParams(c *cli.Context) (map[string]string, error) {
	p := c.String("acp-profile")
	switch p {
	case acp.Stable, acp.Unstable, acp.Basis:
	default:
		return nil, usageErr("--acp-profile %q: want stable, unstable or basis", p)
	}
	return map[string]string{"profile": p, "meta": strconv.FormatBool(c.Bool("acp-meta")), "transcript": strconv.FormatBool(c.Bool("transcript"))}, nil
}

// defaultKeys are the facts --default can supply.
var defaultKeys = []string{"session_id", "model", "provider", "workspace", "basis_version", "cli_version"}

func parseDefaults(list []string) (map[string]string, error) {
	out := map[string]string{}
	for _, kv := range list {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || !slices.Contains(defaultKeys, k) {
			return nil, usageErr("--default %q: want KEY=VALUE with KEY one of %s", kv, strings.Join(defaultKeys, ", "))
		}
		out[k] = v
	}
	return out, nil
}

func schemaCmd() *cli.Command {
	return &cli.Command{
		Name:      "schema",
		Usage:     "print a dialect's JSON Schema",
		ArgsUsage: "NAME (a dialect, e.g. basis or canonical)",
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageErr("schema: name one dialect (%s)", strings.Join(dialectNames(), ", "))
			}
			d, err := dialect.Lookup(c.Args().First())
			if err != nil {
				return usageErr("schema: %v", err)
			}
			_, err = c.App.Writer.Write(d.Schema())
			return err
		},
	}
}

func dialectsCmd() *cli.Command {
	return &cli.Command{
		Name:  "dialects",
		Usage: "list the dialects evtool reads and writes",
		Action: func(c *cli.Context) error {
			for _, d := range dialect.All() {
				fmt.Fprintf(c.App.Writer, "%-10s %s (schema: %s)\n", d.Name(), d.Description(), schema.FileName(d.Name()))
			}
			return nil
		},
	}
}

func dialectNames() []string {
	var out []string
	for _, d := range dialect.All() {
		out = append(out, d.Name())
	}
	sort.Strings(out)
	return out
}

func acpCmd() *cli.Command {
	return &cli.Command{
		Name:  "acp",
		Usage: "serve recorded runs over the Agent Client Protocol",
		Subcommands: []*cli.Command{{
			Name:      "replay",
			Usage:     "act as an ACP agent on stdin/stdout that replays FILE's recorded run, one turn per prompt",
			ArgsUsage: "FILE",
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "from", Aliases: []string{"f"}, Usage: "FILE's dialect (default: detected)"},
				&cli.StringFlag{Name: "acp-profile", Value: "stable", Usage: "stable, unstable or basis"},
				&cli.BoolFlag{Name: "acp-meta", Usage: "carry source residue under _meta"},
				&cli.StringFlag{Name: "session-id", Usage: "the session id session/new returns (default: the recording's)"},
			},
			Action: func(c *cli.Context) error {
				if c.NArg() != 1 {
					return usageErr("acp replay: name one FILE")
				}
				from, err := lookupDialect("from", c.String("from"))
				if err != nil {
					return err
				}
				params, err := acpParams(c)
				if err != nil {
					return err
				}
				name := c.Args().First()
				f, err := os.Open(name)
				if err != nil {
					return &exitError{code: exitUsage, msg: err.Error()}
				}
				f.Close()
				open := func() (io.ReadCloser, error) { return os.Open(name) }
				err = replay.Serve(c.Context, c.App.Reader, c.App.Writer, open, replay.Options{From: from, Name: name,
					Profile: params["profile"], Meta: params["meta"] == "true", SessionID: c.String("session-id"), Log: c.App.ErrWriter})
				if err != nil {
					return &exitError{code: exitUsage, msg: err.Error()}
				}
				return nil
			},
		}},
	}
}
