package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/evtool/evtool/diag"
	"github.com/evtool/evtool/internal/outfile"
	"github.com/evtool/evtool/sessions"
	"github.com/evtool/evtool/stats"
	"github.com/evtool/evtool/stream"
	"github.com/evtool/evtool/validate"
	"github.com/evtool/evtool/view"
	"github.com/urfave/cli/v3"
	"golang.org/x/term"
)

const viewLong = `Reads every stream named (a file, each *.jsonl and *.ndjson file under a
directory, a session id or session file, or - for standard input, which is
also read when no operand is named and stdin is not a terminal), in any
dialect, and writes what each run did as a web page: one HTML file with
its style sheet and script inside, that needs no network and opens from
file:// or as a CI artefact.

A run's view has a header (agent, dialect, model, project, times, status,
and the turns, tool calls, tokens and cost evtool stats counts), a
timeline of the turns, rounds and tool calls, the tokens and cost added up
over the run, and the turns: the user's prompt, the assistant's messages
(markdown), its reasoning folded, each tool call as a card (input, output,
exit code, diffs, permissions, errors) with the subagent it ran nested in
it. Where a stream states no time or no usage, the page says so.

One stream gives a page of its run. Several give one page with an index
(agent, project, start, duration, turns, tool calls, tokens, cost, status;
sortable and filterable) leading to each run's view in the same file; with
-o DIR (an existing directory, or a path ending in /) the index is
DIR/index.html and each run has its own page beside it.

Every string of the input is shown as text; the page's content security
policy forbids any request and any script but its own. Long texts are cut
(64 KiB of one text, 32 MiB of a run's; each cut is stated where it is
made) and a page shows at most 150,000 items of a run: docs/view.md has
the figures.

The page goes to -o, replaced only once it is whole, and never to an
input; without -o, to stdout unless stdout is a terminal.

Exit status: 0 when every stream was read; 1 when a line had problems
(reported on stderr and counted, the rest still shown; a torn last line,
as a live session's line being written, is reported and does not count)
or a stream is of
another dialect than --dialect names; 2 for usage errors, files that cannot
be read or written and streams whose dialect cannot be told (shown in the
index as not read). Nothing is written when no stream could be read.`

func viewCmd() *cli.Command {
	var (
		dialectName string
		output      string
		title       string
		workers     int
		maxLine     int64
	)
	return &cli.Command{
		Name:        "view",
		Usage:       "write each run as a self-contained web page, or many behind an index",
		ArgsUsage:   "[FILE|DIR|SESSION|-...]",
		Description: viewLong,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "output", Validator: namesAFile, Aliases: []string{"o"}, Destination: &output, TakesFile: true, Usage: "write the page to `FILE`, or a folder of pages to DIR/ (default: stdout)"},
			&cli.StringFlag{Name: "dialect", Aliases: []string{"d"}, Destination: &dialectName, Usage: "the streams' `DIALECT` (default, or none: detected from each first line)"},
			&cli.StringFlag{Name: "title", Destination: &title, Usage: "the page's `TITLE` (default: the file's name, or evtool view)"},
			&cli.IntFlag{Config: base10, Name: "jobs", Aliases: []string{"j"}, HideDefault: true, Destination: &workers, Usage: "check each stream's lines with `N` workers ahead of decoding (0, the default: one per CPU; 1: no workers); the page is the same"},
			&cli.Int64Flag{Config: base10, Name: "max-line-bytes", Value: stream.DefaultMaxLineBytes, Destination: &maxLine, Usage: "refuse lines longer than `N` bytes: each is reported, counted and skipped (0: no limit)"},
		},
		Metadata: completions(map[string][]string{"dialect": sourceDialects()}),
		Action: action(func(_ context.Context, cmd *cli.Command, args []string) error {
			d, err := lookupDialect("dialect", dialectName)
			if err != nil {
				return err
			}
			if err := checkCounts(workers, maxLine); err != nil {
				return err
			}
			if args, err = operandsOrStdin(cmd, args); err != nil {
				return err
			}
			inputs, err := validate.Inputs(args)
			if err != nil {
				return ioErr(err)
			}
			v := &viewRun{cmd: cmd, inputs: inputs, title: title, output: output}
			if output == "" || output == "-" {
				v.output = ""
				if stdoutIsTerminal(cmd.Root().Writer) {
					return usageErr("the page is HTML: name -o FILE (or -o DIR/ for a folder of pages), or redirect stdout")
				}
			}
			v.opts = view.Options{
				Stream:    stream.Options{Dialect: d, Workers: jobs(workers), MaxLineBytes: lineLimit(maxLine)},
				LineError: func(le *stream.LineError) { fmt.Fprintln(cmd.Root().ErrWriter, le.Error()) },
			}
			return v.run()
		}),
	}
}

// stdoutIsTerminal reports whether stdout is a terminal, where a page of
// HTML is of no use; a variable for tests.
var stdoutIsTerminal = func(w io.Writer) bool {
	f := fileOf(w)
	return f != nil && term.IsTerminal(int(f.Fd()))
}

// viewRun is one run of evtool view.
type viewRun struct {
	cmd            *cli.Command
	inputs         []validate.Input
	title, output  string
	opts           view.Options
	usage, problem bool

	// Where the pages go: one file (a run's page or an index of many) or
	// a folder. sink is made when the first stream has been read, so
	// that nothing is written when none can be.
	sink    viewSink
	pending []*view.Run
}

// viewSink takes the runs, in order, and finishes the page or pages.
type viewSink interface {
	add(run *view.Run) error
	close() error
	abort()
}

func (v *viewRun) run() error {
	stderr := v.cmd.Root().ErrWriter
	for _, in := range v.inputs {
		name := in.Path
		if name == "" {
			name = "-"
		}
		r, file, err := openInput(v.cmd, name)
		var run *view.Run
		if err != nil {
			fmt.Fprintf(stderr, "evtool: %v\n", err)
			v.usage = true
			run = &view.Run{Stats: &stats.Run{File: in.Name, Err: err}, Err: err}
		} else {
			run, err = view.Read(r, file, v.opts)
			r.Close()
			var se *stream.StreamError
			switch {
			case err == nil:
			case errors.As(err, &se) && !se.Usage:
				fmt.Fprintln(stderr, se.Diagnostic.String())
				v.problem = true
			default:
				fmt.Fprintf(stderr, "evtool: %v\n", err)
				v.usage = true
			}
			if run.Stats.Torn > 0 {
				fmt.Fprintf(stderr, "evtool: %s: the last line (%d) is torn (still being written, or its producer stopped mid-line); the page shows the lines before it\n", diag.Escape(file), run.Stats.Torn)
			}
			if run.Stats.BadLines > 0 {
				fmt.Fprintf(stderr, "evtool: %s: %s with problems (above); the page shows what could be read\n", diag.Escape(file), plural(int(run.Stats.BadLines), "line"))
				v.problem = true
			}
		}
		if err := v.add(run); err != nil {
			if v.sink != nil {
				v.sink.abort()
			}
			return err
		}
	}
	if v.sink == nil {
		code := ExitProblem
		if v.usage {
			code = ExitUsage
		}
		return &ExitError{Code: code, Msg: "no stream could be read: nothing written"}
	}
	if err := v.sink.close(); err != nil {
		return err
	}
	switch {
	case v.usage:
		return &ExitError{Code: ExitUsage}
	case v.problem:
		return &ExitError{Code: ExitProblem}
	}
	return nil
}

// add hands a run to the sink, making it on the first run read; runs
// that could not be read before it wait for it, so that nothing is
// written when no stream can be read.
func (v *viewRun) add(run *view.Run) error {
	if v.sink == nil {
		if run.Err != nil {
			v.pending = append(v.pending, run)
			return nil
		}
		sink, err := v.open()
		if err != nil {
			return err
		}
		v.sink = sink
		for _, p := range v.pending {
			if err := sink.add(p); err != nil {
				return err
			}
		}
		v.pending = nil
	}
	return v.sink.add(run)
}

// declare declares to set what the run reads and writes itself.
func (v *viewRun) declare(set *outfile.Set) {
	for _, in := range v.inputs {
		if in.Path == "" {
			set.InputFile(stdinName, fileOf(v.cmd.Root().Reader))
		} else {
			set.Input(in.Path)
		}
	}
	set.Stream("stderr", fileOf(v.cmd.Root().ErrWriter))
	protectAgents(set)
	var paths []string
	for _, in := range v.inputs {
		if in.Path != "" {
			paths = append(paths, in.Path)
		}
	}
	protectAgentFiles(set, paths)
}

// openErr turns outfile's refusal into evtool's error.
func openErr(err error) error {
	var oe *outfile.Error
	if errors.As(err, &oe) && oe.Usage {
		return usageErr("%v", err)
	}
	return ioErr(err)
}

func (v *viewRun) generator() string { return "evtool " + Version() }

// open makes the sink the command line asks for.
func (v *viewRun) open() (viewSink, error) {
	if v.output != "" && (strings.HasSuffix(v.output, "/") || strings.HasSuffix(v.output, string(filepath.Separator)) || isDir(v.output)) {
		return v.openDir()
	}
	set := outfile.NewSet()
	v.declare(set)
	var w io.Writer = v.cmd.Root().Writer
	out := set.Add("-o", v.output)
	if out == nil {
		set.Stream("stdout", fileOf(v.cmd.Root().Writer))
	} else {
		w = out
	}
	if err := set.Open(); err != nil {
		set.AbortAll()
		return nil, openErr(err)
	}
	s := &fileSink{set: set, w: w, opts: view.PageOptions{Title: v.title, Generator: v.generator()}}
	if len(v.inputs) > 1 {
		x, err := view.NewIndex(w, s.opts)
		if err != nil {
			set.AbortAll()
			return nil, ioErr(err)
		}
		s.index = x
	}
	return s, nil
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// fileSink writes one file: a run's page, or an index of many.
type fileSink struct {
	set   *outfile.Set
	w     io.Writer
	opts  view.PageOptions
	index *view.Index
	run   *view.Run
}

func (s *fileSink) add(run *view.Run) error {
	if s.index == nil {
		s.run = run
		return nil
	}
	if err := s.index.Add(run); err != nil {
		return writeErr(err)
	}
	return nil
}

func (s *fileSink) close() error {
	var err error
	if s.index != nil {
		err = s.index.Close()
	} else {
		err = view.WriteRun(s.w, s.run, s.opts)
	}
	if err != nil {
		s.set.AbortAll()
		return writeErr(err)
	}
	if err := s.set.CommitAll(); err != nil {
		return ioErr(err)
	}
	return nil
}

func (s *fileSink) abort() { s.set.AbortAll() }

// writeErr passes a write to a closed pipe on as it is.
func writeErr(err error) error {
	if isEPIPE(err) {
		return err
	}
	return ioErr(err)
}

// dirSink writes a folder: a page per run, each replaced when written,
// and index.html last.
type dirSink struct {
	v     *viewRun
	dir   string
	index *view.Index
	set   *outfile.Set
	n     int
	names map[string]bool

	// What an interruption takes back (onSignal): the pages this run
	// added (not those it replaced: their old text is gone), and the
	// folder when this run made it.
	mu       sync.Mutex
	made     bool
	created  []string
	replaced int
}

func (v *viewRun) openDir() (viewSink, error) {
	dir := filepath.Clean(v.output)
	made := false
	if !isDir(dir) {
		if what := inAgents(dir); what != "" {
			return nil, usageErr("-o %s: is in %s, which evtool never writes", v.output, what)
		}
		if err := os.Mkdir(dir, 0o777); err != nil {
			return nil, ioErr(err)
		}
		made = true
	}
	s := &dirSink{v: v, dir: dir, names: map[string]bool{"index.html": true}, made: made}
	// The index's file is opened first, so that a refusal comes before
	// any page is written.
	s.set = outfile.NewSet()
	v.declare(s.set)
	s.set.OnSignal = s.onSignal
	out := s.set.Add("-o", filepath.Join(dir, "index.html"))
	if err := s.set.Open(); err != nil {
		s.set.AbortAll()
		return nil, openErr(err)
	}
	title := v.title
	if title == "" {
		title = "evtool view"
	}
	x, err := view.NewIndex(out, view.PageOptions{Title: title, Generator: v.generator()})
	if err != nil {
		s.set.AbortAll()
		return nil, ioErr(err)
	}
	s.index = x
	return s, nil
}

// inAgents names the agent's own directory p would be in, "" for
// none: the folder is made only where outfile would let its pages be.
func inAgents(p string) string {
	abs, err := filepath.Abs(filepath.Dir(p))
	if err != nil {
		return ""
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		abs = r
	}
	for _, s := range sessions.Stores() {
		for _, root := range sessions.Homes(s) {
			rr, err := filepath.Abs(root)
			if err != nil {
				continue
			}
			if r, err := filepath.EvalSymlinks(rr); err == nil {
				rr = r
			}
			if rel, err := filepath.Rel(rr, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				return s.Agent() + "'s own directory (" + root + ")"
			}
		}
	}
	return ""
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// pageName is a run's page's file name: its number and its file's name,
// in characters safe in any file system and any address.
func (s *dirSink) pageName(run *view.Run) string {
	base := filepath.Base(run.Stats.File)
	for _, ext := range []string{".gz", ".zst", ".jsonl", ".ndjson", ".json"} {
		base = strings.TrimSuffix(base, ext)
	}
	base = strings.Trim(unsafeName.ReplaceAllString(base, "-"), "-.")
	if len(base) > 60 {
		base = base[:60]
	}
	if base == "" {
		base = "run"
	}
	name := fmt.Sprintf("%03d-%s.html", s.n, base)
	for s.names[name] {
		name = strings.TrimSuffix(name, ".html") + "-1.html"
	}
	s.names[name] = true
	return name
}

func (s *dirSink) add(run *view.Run) error {
	s.n++
	name := s.pageName(run)
	set := outfile.NewSet()
	defer set.AbortAll()
	s.v.declare(set)
	path := filepath.Join(s.dir, name)
	_, statErr := os.Lstat(path)
	out := set.Add("-o", path)
	if err := set.Open(); err != nil {
		return openErr(err)
	}
	if err := view.WriteRun(out, run, view.PageOptions{Generator: s.v.generator(), Back: "index.html"}); err != nil {
		return writeErr(err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := set.CommitAll(); err != nil {
		return ioErr(err)
	}
	if errors.Is(statErr, fs.ErrNotExist) {
		s.created = append(s.created, path)
	} else {
		s.replaced++
	}
	return s.index.Link(run, name)
}

// onSignal takes back what the interrupted run added to the folder (its
// index not yet written): the pages it added, and the folder if it made
// it, so that no half-made folder is left; a page it replaced stays
// replaced, and is said so.
func (s *dirSink) onSignal(os.Signal) {
	s.mu.Lock()
	defer s.mu.Unlock()
	stderr := s.v.cmd.Root().ErrWriter
	for _, p := range s.created {
		os.Remove(p)
	}
	replaced := s.replaced
	if s.made {
		os.Remove(s.dir) // only if empty
	}
	msg := fmt.Sprintf("evtool: -o %s: interrupted before its index was written; the %s this run added removed", s.v.output, plural(len(s.created), "page"))
	if replaced > 0 {
		msg += fmt.Sprintf(", the %s it replaced left new", plural(replaced, "page"))
	}
	fmt.Fprintln(stderr, msg)
}

func (s *dirSink) close() error {
	if err := s.index.Close(); err != nil {
		s.set.AbortAll()
		return writeErr(err)
	}
	if err := s.set.CommitAll(); err != nil {
		return ioErr(err)
	}
	return nil
}

func (s *dirSink) abort() { s.set.AbortAll() }
