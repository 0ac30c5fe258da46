// Package cli is the evtool command line: one file per command, each a
// github.com/urfave/cli/v3 command that the list in this file registers.
//
// Commands write their findings and output to cmd.Root().Writer, their
// messages to cmd.Root().ErrWriter, and read cmd.Root().Reader; Run wires
// these to the process's streams, tests to buffers. A command's action
// returns nil for exit 0 or an *ExitError; Run turns that into the
// process's exit code and its one stderr line, so no command calls
// os.Exit.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/urfave/cli/v3"
	"golang.org/x/term"

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
	// ExitHangup: SIGHUP (the terminal closed) stopped the command (128+1).
	ExitHangup = 129
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
	{ExitOK, "success: the streams are valid, or the conversion is written and its target's validator would accept it (warnings and counted losses allowed)"},
	{ExitProblem, "the input has problems: a stream has an error, a line could not be converted, the stream is of another dialect than named, there is nothing to convert, the stream is cut short (and so the output), what was written fails the target's validator, or, with `--strict`, something was lost, unknown or torn"},
	{ExitUsage, "usage error (two lines on stderr, the second `see 'evtool CMD --help'`), a file that cannot be read or written, an output that is the input, or a stream whose dialect cannot be told"},
	{ExitHangup, "hung up (SIGHUP); the files `-o`, `--loss-report`, `--valid-out` and `--invalid-out` name left as they were"},
	{ExitInterrupted, "interrupted by SIGINT (Ctrl-C); those files left as they were"},
	{ExitTerminated, "terminated by SIGTERM; those files left as they were"},
}

// commands are evtool's commands, in the order help lists them. Adding a
// command is one line here and one file beside this one.
var commands = []func() *cli.Command{
	validateCmd,
	rulesCmd,
	fingerprintCmd,
	convertCmd,
	statsCmd,
	viewCmd,
	pricesCmd,
	sessionsCmd,
	schemaCmd,
	dialectsCmd,
	acpCmd,
	completionCmd,
	helpCmd,
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
	Code    int
	Msg     string
	usage   bool
	cmd     string   // the command a usage error is about, "evtool CMD"
	aliases []string // its other names: the one typed names it (typed)
}

// typed is the command's name as it was typed: "evtool usage" for the
// stats command called by its alias.
func (e *ExitError) typed(argv []string) string {
	if len(e.aliases) == 0 {
		return e.cmd
	}
	head, last := "", e.cmd
	if i := strings.LastIndexByte(e.cmd, ' '); i >= 0 {
		head, last = e.cmd[:i+1], e.cmd[i+1:]
	}
	for _, a := range argv[1:] {
		switch {
		case a == last:
			return e.cmd
		case slices.Contains(e.aliases, a):
			return head + a
		}
	}
	return e.cmd
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

// action adapts a command's function to the library: an error that is not
// an *ExitError (a write that failed) becomes exit 2 with its message, and
// a usage error learns which command it is about. A write to a closed pipe
// is passed on as it is, for Run to end quietly.
func action(fn func(ctx context.Context, cmd *cli.Command, args []string) error) cli.ActionFunc {
	return func(ctx context.Context, cmd *cli.Command) error {
		err := fn(ctx, cmd, cmd.Args().Slice())
		if err == nil || isEPIPE(err) {
			return err
		}
		var ee *ExitError
		if !errors.As(err, &ee) {
			return &ExitError{Code: ExitUsage, Msg: err.Error()}
		}
		if ee.usage && ee.cmd == "" {
			ee.cmd, ee.aliases = cmd.FullName(), cmd.Aliases
		}
		return err
	}
}

// newRoot builds the command tree. args are the operands and flags Run
// was given, for usage errors that quote them as they were typed.
func newRoot(args []string) *cli.Command {
	root := &cli.Command{
		Name:  "evtool",
		Usage: "validate and convert coding-agent event streams",
		// A command's help is shown by --help and by the help command
		// below; the library's own help subcommand would take an operand
		// named "help" (a file) for itself under every command.
		HideHelpCommand:        true,
		UseShortOptionHandling: true,
		EnableShellCompletion:  true,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "version", Aliases: []string{"v"}, Usage: "print evtool's version", Local: true},
		},
		// evtool alone names no command: a usage error, not help on stdout.
		Action: action(func(_ context.Context, cmd *cli.Command, args []string) error {
			if cmd.Bool("version") {
				_, err := fmt.Fprintf(cmd.Root().Writer, "evtool %s\n", Version())
				return err
			}
			if len(args) == 0 {
				return usageErr("name a command (%s)", strings.Join(commandNames(cmd), ", "))
			}
			return unknownCommand(cmd, args[0])
		}),
		// Run reports every error itself; the library must not exit.
		ExitErrHandler: func(context.Context, *cli.Command, error) {},
	}
	for _, c := range commands {
		root.Commands = append(root.Commands, c())
	}
	_ = root.Walk(func(c *cli.Command) error {
		// Repeatable flags are split where it makes sense (splitList):
		// --default KEY=A,B keeps its comma. The setting is each command's.
		c.DisableSliceFlagSeparator = true
		c.OnUsageError = func(_ context.Context, cmd *cli.Command, err error, _ bool) error {
			return &ExitError{Code: ExitUsage, Msg: flagError(cmd, err, args), usage: true, cmd: cmd.FullName(), aliases: cmd.Aliases}
		}
		if c.ShellComplete == nil {
			c.ShellComplete = complete
		}
		return nil
	})
	return root
}

// unknownCommand is the usage error for a word that names no command of
// cmd, with the nearest command's name when one is near.
func unknownCommand(cmd *cli.Command, name string) error {
	return usageErr("unknown command %q for %q%s", name, cmd.FullName(), didYouMean(name, commandNames(cmd)))
}

func commandNames(cmd *cli.Command) []string {
	var out []string
	for _, c := range cmd.VisibleCommands() {
		out = append(out, c.Name)
	}
	return out
}

// Run runs evtool with args (args[0] is the program name) and returns its
// exit code.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	out, errOut := &trackedWriter{w: stdout}, &trackedWriter{w: stderr}
	argv := append([]string{"evtool"}, args[1:]...)
	root := newRoot(argv[1:])
	root.Reader, root.Writer, root.ErrWriter = stdin, out, errOut
	if !completing(argv) {
		argv = append(argv[:1:1], normalizeArgs(root, argv[1:])...)
	}
	code := exitCode(root.Run(context.Background(), argv), argv, errOut)
	// Every write is checked: output that did not reach its reader is a
	// failure even where a command did not look (help, a summary line).
	// A reader that went away (… | head -1) ends the run quietly.
	if code == ExitOK && out.err != nil && !isEPIPE(out.err) {
		fmt.Fprintf(errOut, "evtool: %v\n", out.err)
		code = ExitUsage
	}
	if code == ExitOK && errOut.err != nil && !isEPIPE(errOut.err) {
		code = ExitUsage
	}
	return code
}

// exitCode prints the error a command ended with and returns the exit code.
func exitCode(err error, argv []string, stderr io.Writer) int {
	if err == nil {
		return ExitOK
	}
	var ee *ExitError
	if !errors.As(err, &ee) {
		if isEPIPE(err) {
			// The reader went away (… | head -1): end quietly.
			return ExitOK
		}
		// The library's own errors (a flag it cannot parse) are all usage
		// errors.
		ee = &ExitError{Code: ExitUsage, Msg: err.Error(), usage: true}
	}
	switch {
	case ee.usage:
		name := ee.typed(argv)
		if name == "" {
			name = "evtool"
		}
		fmt.Fprintf(stderr, "%s: %s\nsee '%s --help'\n", name, ee.Msg, name)
	case ee.Msg != "":
		fmt.Fprintf(stderr, "evtool: %s\n", ee.Msg)
	}
	return ee.Code
}

// trackedWriter passes writes on and keeps the first error, so that Run
// can tell whether everything reached stdout and stderr.
type trackedWriter struct {
	w   io.Writer
	err error
}

func (t *trackedWriter) Write(p []byte) (int, error) {
	n, err := t.w.Write(p)
	if err != nil && t.err == nil {
		t.err = err
	}
	return n, err
}

// failedWrite returns the first write to w that failed, when w is a
// writer Run tracks (stdout, stderr), else nil: an output file is not
// replaced after the run could not say what it did (2>/dev/full).
func failedWrite(w io.Writer) error {
	if t, ok := w.(*trackedWriter); ok && t.err != nil {
		return fmt.Errorf("writing the diagnostics: %w", t.err)
	}
	return nil
}

// fileOf returns the *os.File under a writer or reader Run was given, or
// nil: convert compares it with its input, and the progress bar asks
// whether it is a terminal.
func fileOf(v any) *os.File {
	if t, ok := v.(*trackedWriter); ok {
		v = t.w
	}
	f, _ := v.(*os.File)
	return f
}

// stdinIsTerminal reports whether standard input is a terminal; a
// variable for tests.
var stdinIsTerminal = func(r io.Reader) bool {
	f := fileOf(r)
	return f != nil && term.IsTerminal(int(f.Fd()))
}

// operandsOrStdin returns a command's operands, or "-" when there are
// none and standard input is not a terminal: `cat f | evtool validate`
// reads the pipe. On a terminal, nothing is read unasked.
func operandsOrStdin(cmd *cli.Command, args []string) ([]string, error) {
	if len(args) > 0 {
		return args, nil
	}
	if stdinIsTerminal(cmd.Root().Reader) {
		return nil, usageErr("name at least one FILE or DIR, or - for stdin (stdin is a terminal, so it is read only when named)")
	}
	return []string{"-"}, nil
}

// nonNegative refuses a negative count as a usage error.
func nonNegative[T int | int64](flag string, n T, zero string) error {
	if n < 0 {
		return usageErr("%s %d: want 0 (%s) or more", flag, n, zero)
	}
	return nil
}

// flagError rewrites the library's parse errors in evtool's words, with
// the flag as it was typed and the nearest flag when one is near.
func flagError(cmd *cli.Command, err error, args []string) string {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		return unknownFlag(cmd, name, args)
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: "); ok {
		if !strings.HasPrefix(name, "-") {
			name = "-" + name
		}
		return "flag needs an argument: " + name
	}
	if m := invalidValue.FindStringSubmatch(msg); m != nil {
		want := m[3]
		if strings.Contains(want, "strconv.") {
			want = "want a whole number"
		}
		return fmt.Sprintf("invalid value %s for %s: %s", m[1], spelled(m[2]), want)
	}
	return msg
}

var invalidValue = regexp.MustCompile(`^invalid value ("(?:[^"\\]|\\.)*") for flag -(\S+): (.*)$`)

// spelled writes a flag's name with its dashes.
func spelled(name string) string {
	if utf8.RuneCountInString(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// unknownFlag says which flag is unknown. name is what followed the first
// dash: "-frob" or "frob" of --frob, or a group of short flags.
func unknownFlag(cmd *cli.Command, name string, args []string) string {
	var long, short []string
	for _, f := range cmd.VisibleFlags() {
		for _, n := range f.Names() {
			if utf8.RuneCountInString(n) == 1 {
				short = append(short, n)
			} else {
				long = append(long, n)
			}
		}
	}
	if rest, ok := strings.CutPrefix(name, "-"); ok || !slices.Contains(args, "-"+name) && !hasPrefixArg(args, "-"+name+"=") {
		if ok {
			name = rest
		}
		msg := "unknown flag: --" + name
		if s := suggest(name, long); s != "" {
			msg += "; did you mean --" + s + "?"
		}
		return msg
	}
	// A group of short flags (-sqx) or one (-x): name the letter unknown.
	for _, r := range name {
		if slices.Contains(short, string(r)) {
			continue
		}
		msg := fmt.Sprintf("unknown shorthand flag %q in -%s", r, name)
		if r == 'f' && slices.Contains(long, "from") {
			// -f was --from here before it was --format everywhere.
			return msg + "; -f is --format in evtool: name the source dialect with --from"
		}
		return msg
	}
	if s := suggest(name, long); s != "" {
		return fmt.Sprintf("unknown flag: -%s; did you mean --%s?", name, s)
	}
	return "unknown flag: -" + name
}

func hasPrefixArg(args []string, prefix string) bool {
	return slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, prefix) })
}

// completing reports whether the shell asks for completions.
func completing(argv []string) bool {
	return len(argv) > 0 && argv[len(argv)-1] == "--generate-shell-completion"
}

// optionalValue holds the flags that take a value only as --flag=VALUE,
// and what a bare --flag means.
var optionalValue = map[string]string{"progress": "auto"}

// normalizeArgs rewrites the command line in two ways the library does
// not parse: a short flag with its value attached (-tbasis, -sqtbasis,
// -t=basis) is split into the flag and its value, and a bare --progress
// becomes --progress=auto. A word that names no command where a command
// is expected is put behind "--", so that the command (evtool, acp)
// reports it as unknown instead of a flag after it being refused first.
// Everything else is passed on as it was.
func normalizeArgs(root *cli.Command, args []string) []string {
	out := make([]string, 0, len(args)+2)
	cmd := root
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return append(out, args[i:]...)
		case a == "-" || !strings.HasPrefix(a, "-"):
			if sub := cmd.Command(a); sub != nil {
				cmd = sub
			} else if len(cmd.Commands) > 0 {
				return append(append(out, "--"), args[i:]...)
			}
			out = append(out, a)
			continue
		}
		body := strings.TrimLeft(a, "-")
		name, _, hasValue := strings.Cut(body, "=")
		if f := lookupFlag(cmd, name); f != nil || strings.HasPrefix(a, "--") {
			if def, ok := optionalValue[name]; ok && f != nil && !hasValue {
				out = append(out, a+"="+def)
				continue
			}
			out = append(out, a)
			if f != nil && takesValue(f) && !hasValue && i+1 < len(args) {
				out = append(out, args[i+1])
				i++
			}
			continue
		}
		// A group of short flags: bool flags, then at most one that takes
		// a value, with the value after it or in the next word.
		group := a[1:]
		split := false
		for j, r := range group {
			f := lookupFlag(cmd, string(r))
			if f == nil {
				break // left for the library to report
			}
			if !takesValue(f) {
				continue
			}
			end := j + utf8.RuneLen(r)
			if value := strings.TrimPrefix(group[end:], "="); end < len(group) {
				out = append(out, "-"+group[:end], value)
				split = true
			}
			break
		}
		if split {
			continue
		}
		out = append(out, a)
		if last, ok := lastFlag(cmd, group); ok && takesValue(last) && i+1 < len(args) {
			out = append(out, args[i+1])
			i++
		}
	}
	return out
}

// lastFlag returns the flag a group of short flags ends with.
func lastFlag(cmd *cli.Command, group string) (cli.Flag, bool) {
	r, _ := utf8.DecodeLastRuneInString(group)
	f := lookupFlag(cmd, string(r))
	return f, f != nil
}

// lookupFlag returns cmd's flag of that name, or nil.
func lookupFlag(cmd *cli.Command, name string) cli.Flag {
	for _, f := range cmd.Flags {
		if slices.Contains(f.Names(), name) {
			return f
		}
	}
	return nil
}

// takesValue reports whether a flag takes a value.
func takesValue(f cli.Flag) bool {
	_, isBool := f.(*cli.BoolFlag)
	return !isBool
}

// stdinName is how diagnostics name standard input.
const stdinName = "<stdin>"

// openInput opens a named file, or standard input for "-", or a session (a
// session id, or a file a session is kept in that is not a stream: see
// sessionOperand). A directory is refused here, so that its read error
// does not come later and vaguer.
func openInput(cmd *cli.Command, name string) (io.ReadCloser, string, error) {
	if name == "-" {
		return io.NopCloser(cmd.Root().Reader), stdinName, nil
	}
	if s, ref, ok, err := sessionOperand(context.Background(), name); err != nil {
		return nil, name, ioErr(err)
	} else if ok {
		rc, file, err := openSession(s, ref)
		if err != nil {
			return nil, name, ioErr(err)
		}
		return rc, file, nil
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

// isEPIPE reports whether err is a write to a closed pipe.
func isEPIPE(err error) bool { return errors.Is(err, syscall.EPIPE) }

// checkCounts refuses negative -j and --max-line-bytes values, which would
// otherwise quietly mean their defaults.
func checkCounts(workers int, maxLine int64) error {
	if err := checkJobs(workers); err != nil {
		return err
	}
	return nonNegative("--max-line-bytes", maxLine, "no limit")
}

// maxJobs bounds -j: each worker holds its batches of lines (megabytes),
// and a mistyped count of millions would start that many goroutines and
// grow without end before the first line was read.
const maxJobs = 256

// checkJobs refuses a -j below 0 or above maxJobs.
func checkJobs(workers int) error {
	if err := nonNegative("-j/--jobs", workers, "one per CPU"); err != nil {
		return err
	}
	if workers > maxJobs {
		return usageErr("-j/--jobs %d: want at most %d", workers, maxJobs)
	}
	return nil
}

// base10 makes a count flag read decimal only: 0x10, 010 and 1_000 are
// not the whole numbers the usage asks for (Go's base 0 would take them).
var base10 = cli.IntegerConfig{Base: 10}

// namesAFile refuses an empty file name: -o "$OUT" with OUT unset would
// otherwise mean stdout, or no output, without a word.
func namesAFile(name string) error {
	if name == "" {
		return errors.New("want a file name, not an empty one")
	}
	return nil
}
