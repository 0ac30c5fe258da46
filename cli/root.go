// Package cli is the evtool command line: one file per command, each a
// cobra command that the list in this file registers.
//
// Commands write their findings and output to cmd.OutOrStdout(), their
// messages to cmd.ErrOrStderr(), and read cmd.InOrStdin(); Run wires these
// to the process's streams, tests to buffers. A command's RunE returns nil
// for exit 0 or an *ExitError; Run turns that into the process's exit code
// and its one stderr line, so no command calls os.Exit.
package cli

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	// Every dialect, registered once.
	_ "github.com/evtool/evtool/adapters"
)

// Exit codes, the same for every command; README.md's table lists them and
// the tests assert it.
const (
	// ExitOK: all is well.
	ExitOK = 0
	// ExitProblem: the input has problems (errors, a line that could not
	// be converted, nothing to convert) or, with --strict, something was
	// lost, unknown or torn.
	ExitProblem = 1
	// ExitUsage: the command line is wrong, or a file cannot be read or
	// written, or the stream's dialect cannot be told.
	ExitUsage = 2
	// ExitInterrupted: SIGINT (Ctrl-C) stopped the command (128+2).
	ExitInterrupted = 130
	// ExitTerminated: SIGTERM stopped the command (128+15).
	ExitTerminated = 143
)

// ExitCodes lists every exit code with its meaning, as README.md's table
// says it (a test holds the two together).
var ExitCodes = []struct {
	Code    int
	Meaning string
}{
	{ExitOK, "success: the streams are valid, or the conversion is written (warnings, a torn last line and counted losses allowed)"},
	{ExitProblem, "the input has problems: a stream has an error, a line could not be converted, the stream is of another dialect than named, there is nothing to convert, or, with `--strict`, something was lost, unknown or torn"},
	{ExitUsage, "usage error (two lines on stderr, the second `see 'evtool CMD --help'`), a file that cannot be read or written, an output that is the input, or a stream whose dialect cannot be told"},
	{ExitInterrupted, "interrupted by SIGINT (Ctrl-C); `-o FILE` left as it was"},
	{ExitTerminated, "terminated by SIGTERM; `-o FILE` left as it was"},
}

// commands are evtool's commands, in the order help lists them. Adding a
// command is one line here and one file beside this one.
var commands = []func() *cobra.Command{
	validateCmd,
	rulesCmd,
	fingerprintCmd,
	convertCmd,
	schemaCmd,
	dialectsCmd,
	acpCmd,
	completionCmd,
}

// version is stamped at build time (make build) with
// -ldflags "-X github.com/evtool/evtool/cli.version=…"; when it is not,
// Version reads the module version from the build information.
var version = ""

// Version returns evtool's version: the stamped one, else the module's
// version (and VCS revision) from the build information, else "(devel)".
func Version() string {
	if version != "" {
		return version
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "(devel)"
	}
	v := info.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = "+dirty"
			}
		}
	}
	if rev != "" && !strings.Contains(v, rev[:min(12, len(rev))]) {
		v += " (" + rev[:min(12, len(rev))] + modified + ")"
	}
	return v
}

// ExitError ends a command with an exit code. Msg, when set, is printed on
// stderr as "evtool: MSG"; a usage error is printed as
// "evtool CMD: MSG" followed by "see 'evtool CMD --help'".
type ExitError struct {
	Code  int
	Msg   string
	usage bool
}

func (e *ExitError) Error() string { return e.Msg }

// usageErr is a usage error: exit 2, a message and a pointer to --help.
func usageErr(format string, args ...any) error {
	return &ExitError{Code: ExitUsage, Msg: fmt.Sprintf(format, args...), usage: true}
}

// ioErr is a file that cannot be read or written: exit 2 with its message.
func ioErr(err error) error {
	return &ExitError{Code: ExitUsage, Msg: err.Error()}
}

// problem is exit 1 with a message (or none, when the findings said it all).
func problem(format string, args ...any) error {
	if format == "" {
		return &ExitError{Code: ExitProblem}
	}
	return &ExitError{Code: ExitProblem, Msg: fmt.Sprintf(format, args...)}
}

// newRoot builds the command tree.
func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:           "evtool",
		Short:         "validate and convert coding-agent event streams",
		Version:       Version(),
		SilenceErrors: true,
		SilenceUsage:  true,
		// evtool alone names no command: a usage error, not help on stdout.
		RunE: func(cmd *cobra.Command, args []string) error {
			return usageErr("name a command (%s)", strings.Join(commandNames(cmd), ", "))
		},
	}
	root.SetVersionTemplate("evtool {{.Version}}\n")
	root.CompletionOptions.DisableDefaultCmd = true
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return usageErr("%v", err)
	})
	for _, c := range commands {
		root.AddCommand(c())
	}
	return root
}

func commandNames(root *cobra.Command) []string {
	var out []string
	for _, c := range root.Commands() {
		if c.IsAvailableCommand() {
			out = append(out, c.Name())
		}
	}
	return out
}

// Run runs evtool with args (args[0] is the program name) and returns its
// exit code.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := newRoot()
	root.SetArgs(args[1:])
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := root.ExecuteC()
	if err == nil {
		return ExitOK
	}
	if cmd == nil {
		cmd = root
	}
	var ee *ExitError
	if !errors.As(err, &ee) {
		if isEPIPE(err) {
			// The reader went away (… | head -1): end quietly.
			return ExitOK
		}
		// cobra's own errors (an unknown command, a missing required
		// flag, a wrong number of operands) are all usage errors.
		ee = &ExitError{Code: ExitUsage, Msg: err.Error(), usage: true}
	}
	switch {
	case ee.usage:
		fmt.Fprintf(stderr, "%s: %s\nsee '%s --help'\n", cmd.CommandPath(), ee.Msg, cmd.CommandPath())
	case ee.Msg != "":
		fmt.Fprintf(stderr, "evtool: %s\n", ee.Msg)
	}
	return ee.Code
}

// isEPIPE reports whether err is a write to a closed pipe.
func isEPIPE(err error) bool { return errors.Is(err, syscall.EPIPE) }

// flagChanged reports whether the user set a flag.
func flagChanged(fs *pflag.FlagSet, name string) bool {
	f := fs.Lookup(name)
	return f != nil && f.Changed
}

// stdinName is how diagnostics name standard input.
const stdinName = "<stdin>"

// openInput opens a named file, or standard input for "-". A directory is
// refused here, so that its read error does not come later and vaguer.
func openInput(cmd *cobra.Command, name string) (io.ReadCloser, string, error) {
	if name == "-" {
		return io.NopCloser(cmd.InOrStdin()), stdinName, nil
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, name, ioErr(err)
	}
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		f.Close()
		return nil, name, ioErr(fmt.Errorf("%s: is a directory, not a stream", name))
	}
	return f, name, nil
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// jobs turns a -j value into stream workers: 0 means one per CPU.
func jobs(n int) int {
	if n <= 0 {
		return runtime.GOMAXPROCS(0)
	}
	return n
}

// lineLimit turns a --max-line-bytes value into stream.Options's: 0 on
// the command line means no limit, which the library spells -1.
func lineLimit(n int64) int {
	switch {
	case n <= 0:
		return -1
	case n > math.MaxInt:
		return math.MaxInt
	}
	return int(n)
}
