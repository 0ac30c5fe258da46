package validate

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/evtool/evtool/diag"
	"github.com/evtool/evtool/stream"
)

// StdinName is how diagnostics name standard input.
const StdinName = "<stdin>"

// Input is one stream to validate.
type Input struct {
	Name string // as diagnostics name it: the path as given, or StdinName
	Path string // the file to read; "" for standard input or Open
	// Open, when set, opens the input instead of Path: a session an
	// agent keeps on disk, read as the lines its store makes of it.
	Open func() (io.ReadCloser, error)
	// Files are the files Open reads, which no output may be.
	Files []string
}

// Inputs expands command-line arguments into inputs: a file is itself
// (whatever its name), a directory stands for its *.jsonl and *.ndjson
// files at any depth (plain, .gz or .zst, but not a compressed copy whose
// plain sibling exists: see compressedCopy), and "-" for standard input;
// a name that is not a directory stands for a file, so a missing one
// fails when it is read, as its Result's Err. The inputs are sorted by
// name, as diagnostics are, and each file appears once, by any spelling
// (the first name of it kept). A directory without such a file is an
// input that fails in its place when opened: it would pass without a
// line being checked. So is a folder below that cannot be read.
func Inputs(args []string) ([]Input, error) {
	var out []Input
	for _, a := range args {
		if a == "-" {
			out = append(out, Input{Name: StdinName})
			continue
		}
		fi, err := os.Stat(a)
		if err != nil || !fi.IsDir() {
			// A file that cannot be opened is the input's error, reported
			// in its place while the others are checked.
			out = append(out, Input{Name: a, Path: a})
			continue
		}
		n := len(out)
		err = filepath.WalkDir(a, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				// A folder that cannot be read is an input of its own that
				// fails in its place: the others are still checked.
				out = append(out, Input{Name: p, Path: p})
				if e != nil && e.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			if e.IsDir() || !isStream(p) || compressedCopy(p) {
				return nil
			}
			if !e.Type().IsRegular() {
				// A link is followed if it leads to a file.
				if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() {
					return nil
				}
			}
			out = append(out, Input{Name: p, Path: p})
			return nil
		})
		if err != nil {
			return nil, err
		}
		if len(out) == n {
			// It would pass without a line being checked: an input that
			// fails in its place, while the others are read.
			empty := fmt.Errorf("%s: a directory without *.jsonl or *.ndjson files", a)
			out = append(out, Input{Name: a, Path: a, Open: func() (io.ReadCloser, error) { return nil, empty }})
		}
	}
	slices.SortStableFunc(out, func(a, b Input) int { return strings.Compare(a.Name, b.Name) })
	out = slices.CompactFunc(out, func(a, b Input) bool { return a.Name == b.Name && a.Path == b.Path })
	return sameFilesOnce(out), nil
}

// sameFilesOnce keeps the first of the inputs that name one file by
// different spellings (./a and a, a link, a hard link): read twice, its
// figures would count twice.
func sameFilesOnce(in []Input) []Input {
	type stamp struct {
		size int64
		mod  int64
	}
	seen := map[stamp][]os.FileInfo{}
	out := in[:0]
	for _, x := range in {
		if x.Path == "" || x.Open != nil {
			out = append(out, x)
			continue
		}
		fi, err := os.Stat(x.Path)
		if err != nil || !fi.Mode().IsRegular() {
			out = append(out, x) // its error is its own, in its place
			continue
		}
		k := stamp{fi.Size(), fi.ModTime().UnixNano()}
		if slices.ContainsFunc(seen[k], func(o os.FileInfo) bool { return os.SameFile(o, fi) }) {
			continue
		}
		seen[k] = append(seen[k], fi)
		out = append(out, x)
	}
	return out
}

// isStream reports whether a file in a directory is a stream: *.jsonl
// and *.ndjson, plain or compressed as producers write them (gzip, zstd:
// the reading decompresses them).
func isStream(p string) bool {
	p = strings.ToLower(p)
	for _, z := range []string{".gz", ".zst"} {
		p = strings.TrimSuffix(p, z)
	}
	ext := filepath.Ext(p)
	return ext == ".jsonl" || ext == ".ndjson"
}

// compressedCopy reports whether a stream found in a directory is a
// compressed copy of a plain sibling that exists: x.jsonl.zst (or .gz)
// beside x.jsonl. The plain file is the stream and the copy is left out,
// else every line would be read twice: Codex compresses a rollout to
// .jsonl.zst while it may still append to the plain one, and its own
// reader, as evtool's session store (adapters/codexrollout Store.Scan),
// takes the plain one where both exist. A compressed file named as an
// operand is read all the same.
func compressedCopy(p string) bool {
	lower := strings.ToLower(p)
	for _, z := range []string{".gz", ".zst"} {
		if !strings.HasSuffix(lower, z) {
			continue
		}
		plain := p[:len(p)-len(z)]
		fi, err := os.Stat(plain) // a link to a file counts, as in Inputs
		return err == nil && fi.Mode().IsRegular()
	}
	return false
}

// Result is what validating one input found.
type Result struct {
	File string
	Summary
	// Diagnostics are sorted by file, line, column, rule, pointer and
	// message (diag.Compare). With RunOptions.Report they went there
	// instead, and only those an input that could not be checked had not
	// passed on yet are here.
	Diagnostics []Diagnostic
	// Err is set when the input could not be checked for a reason that is
	// no finding about its lines: it cannot be opened or read, or its
	// dialect cannot be told. It is a usage or I/O error.
	Err error
}

// Totals count what a whole run found.
type Totals struct {
	Files    int // inputs validated
	Lines    int
	Errors   int
	Warnings int
	Failed   int // inputs that could not be checked (Result.Err)
}

// Add counts one result.
func (t *Totals) Add(r *Result) {
	t.Files++
	t.Lines += r.Lines
	t.Errors += r.Errors
	t.Warnings += r.Warnings
	if r.Err != nil {
		t.Failed++
	}
}

// String renders the totals as the summary line evtool prints:
// "3 files, 12034 lines, 2 errors, 5 warnings", and how many files could
// not be checked when some could not.
func (t Totals) String() string {
	s := fmt.Sprintf("%s, %s, %s, %s", plural(t.Files, "file"), plural(t.Lines, "line"), plural(t.Errors, "error"), plural(t.Warnings, "warning"))
	if t.Failed > 0 {
		s += fmt.Sprintf(", %d not checked", t.Failed)
	}
	return s
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// RunOptions configure Run.
type RunOptions struct {
	// Options apply to every input. MaxErrors counts the errors of all
	// inputs together; Valid and Invalid receive the lines of every input,
	// in the inputs' order.
	Options
	// Workers is how many goroutines check lines: inputs are validated
	// that many at once, and the workers left over when there are fewer
	// inputs check the lines of each input ahead of its decoding
	// (Options.Workers, when that is not set). 0 means GOMAXPROCS.
	Workers int
	// Stdin is read for the input without a Path.
	Stdin io.Reader
	// SpoolDir is where the valid and invalid lines of an input wait for
	// those of the inputs before it, and diagnostics that wait beyond a few
	// megabytes; "" means os.TempDir().
	SpoolDir string
	// Report, when set, receives every diagnostic as soon as it is final,
	// in the order of the report: the inputs in order, the diagnostics of
	// each as Result.Diagnostics would list them (as Stream passes them
	// on), and those of an input before its Result is passed to done.
	// Result.Diagnostics then holds only what an input that could not be
	// checked (Result.Err) had found and not yet passed on, so that its
	// failure can be told first. Diagnostics that wait (an input's for
	// the inputs before it, a line's for the end of its stream) are held
	// in bounded memory, spilled to SpoolDir beyond a few megabytes: the
	// memory of a run is the same for ten diagnostics or ten million.
	// Report is called from Run's goroutines, one call at a time.
	Report func(Diagnostic)
}

// Run validates inputs, several at a time, and calls done with each
// result in the inputs' order, so that the output is the same bytes
// however the work was shared. With MaxErrors, it stops once that many
// errors are reported: the input that reaches the limit is cut there, and
// done is not called for the inputs after it. Run returns the number of
// results it passed to done; its error is a failure to write the valid or
// invalid lines, which ends the run.
func Run(inputs []Input, opts RunOptions, done func(*Result)) (int, error) {
	triage := opts.Valid != nil || opts.Invalid != nil
	if opts.MaxErrors > 0 && triage {
		return 0, errors.New("a run stopped after MaxErrors errors cannot sort every line into valid and invalid ones")
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if opts.Options.Workers == 0 && len(inputs) > 0 && len(inputs) < workers {
		opts.Options.Workers = workers / len(inputs)
	}
	// One input writes its lines straight through; several wait in spools.
	spool := triage && len(inputs) > 1 && workers > 1
	if !spool && triage {
		workers = 1
	}

	type job struct {
		res            *Result
		valid, invalid *os.File
		err            error // a spool could not be made or written
		ready          chan struct{}
		out            *outbox // its diagnostics, with Report
	}
	var stop atomic.Bool
	var cut cutter // with Report: MaxErrors over the diagnostics passed on
	cut.max, cut.stop = opts.MaxErrors, &stop
	jobs := make([]*job, len(inputs))
	for i := range jobs {
		jobs[i] = &job{ready: make(chan struct{})}
		if opts.Report != nil {
			jobs[i].out = &outbox{dir: opts.SpoolDir, deliver: cut.pass(opts.Report)}
		}
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				j := jobs[i]
				o := opts.Options
				if spool {
					j.valid, j.invalid, j.err = spools(opts)
					if j.err == nil {
						o.Valid, o.Invalid = writerOr(j.valid, opts.Valid), writerOr(j.invalid, opts.Invalid)
					}
				}
				if j.err == nil && !stop.Load() {
					j.res, j.err = one(inputs[i], o, opts.Stdin, opts.SpoolDir, j.out)
				}
				close(j.ready)
			}
		}()
	}
	go func() {
		defer close(next)
		for i := range inputs {
			if stop.Load() {
				// Later jobs are released unrun.
				for _, j := range jobs[i:] {
					close(j.ready)
				}
				return
			}
			next <- i
		}
	}()
	cleanup := func(j *job) {
		for _, f := range []*os.File{j.valid, j.invalid} {
			if f != nil {
				f.Close()
				os.Remove(f.Name())
			}
		}
	}
	delivered, errorsSoFar := 0, 0
	var runErr error
	for _, j := range jobs {
		// With Report, the input whose turn it is passes its diagnostics
		// on as they are found, those found so far first; it is passed to
		// done even when MaxErrors is reached among them.
		live := j.out != nil && !stop.Load() && runErr == nil
		if live {
			cut.start()
			j.out.open()
		}
		<-j.ready
		if j.out != nil {
			j.out.close()
		}
		if !live && (stop.Load() || runErr != nil) {
			cleanup(j)
			continue
		}
		if j.err == nil && spool {
			j.err = drain(j.valid, opts.Valid)
			if j.err == nil {
				j.err = drain(j.invalid, opts.Invalid)
			}
		}
		cleanup(j)
		if j.err != nil {
			runErr = j.err
			stop.Store(true)
			continue
		}
		r := j.res
		if j.out != nil {
			cut.end(r)
		} else if opts.MaxErrors > 0 && errorsSoFar+r.Errors >= opts.MaxErrors {
			cutAt(r, opts.MaxErrors-errorsSoFar)
			stop.Store(true)
		}
		errorsSoFar += r.Errors
		done(r)
		delivered++
	}
	wg.Wait()
	return delivered, runErr
}

// one validates one input. Its error is a failure to write the valid or
// invalid lines. With out, its diagnostics go there as they are found.
func one(in Input, opts Options, stdin io.Reader, dir string, out *outbox) (*Result, error) {
	r := &Result{File: in.Name}
	var src io.Reader = stdin
	if in.Open != nil {
		rc, err := in.Open()
		if err != nil {
			r.Err = err
			return r, nil
		}
		defer rc.Close()
		src = rc
	} else if in.Path != "" {
		f, err := os.Open(in.Path)
		if err != nil {
			r.Err = err
			return r, nil
		}
		defer f.Close()
		src = f
	} else if stdin == nil {
		r.Err = errors.New("standard input is not available")
		return r, nil
	}
	// Buffered writers: the lines are written two calls each.
	bv, bi := buffered(opts.Valid), buffered(opts.Invalid)
	if bv != nil {
		opts.Valid = bv
	}
	if bi != nil {
		opts.Invalid = bi
	}
	report := func(d Diagnostic) { r.Diagnostics = append(r.Diagnostics, d) }
	if out != nil {
		report = out.put
	}
	sum, rest, err := check(src, in.Name, opts, report, dir, true)
	r.Summary = sum
	var se *stream.StreamError
	if errors.As(err, &se) && !se.Usage {
		err = nil // a finding, reported and counted
	}
	if err != nil {
		r.Err = err
		r.Stopped = true
		r.Diagnostics = append(r.Diagnostics, rest...)
	}
	if !slices.IsSortedFunc(r.Diagnostics, diag.Compare) {
		slices.SortStableFunc(r.Diagnostics, diag.Compare)
	}
	for _, b := range []*bufio.Writer{bv, bi} {
		if b != nil {
			if ferr := b.Flush(); ferr != nil {
				return r, ferr
			}
		}
	}
	return r, nil
}

// cutter applies MaxErrors, as cutAt does to a whole result, to the
// diagnostics passed on to Report as they go: after the last error allowed,
// nothing more of any input is passed on, and the run stops.
type cutter struct {
	max  int
	stop *atomic.Bool
	errs int  // errors passed on, of every input
	full bool // the last error allowed was passed on
	// Of the input whose turn it is: what was passed on, and whether the
	// limit was reached in it.
	inErrs, inWarns int
	here            bool
}

// pass returns the Report of the input whose turn it is.
func (c *cutter) pass(report func(Diagnostic)) func(Diagnostic) {
	return func(d Diagnostic) {
		if c.count(d) {
			report(d)
		}
	}
}

// count counts a diagnostic to be passed on, unless the limit was reached.
func (c *cutter) count(d Diagnostic) bool {
	if c.full {
		return false
	}
	if d.Severity == diag.Error {
		c.errs++
		c.inErrs++
	} else {
		c.inWarns++
	}
	if c.max > 0 && c.errs == c.max {
		c.full, c.here = true, true
		c.stop.Store(true)
	}
	return true
}

// start begins the turn of an input.
func (c *cutter) start() { c.inErrs, c.inWarns, c.here = 0, 0, false }

// end settles the result of the input whose turn it was: what it still
// holds (Result.Diagnostics of an input that could not be checked) is cut
// the same way, and when the limit was reached in it, its counts become
// those of what was passed on, as cutAt makes them.
func (c *cutter) end(r *Result) {
	for i, d := range r.Diagnostics {
		if !c.count(d) {
			r.Diagnostics = r.Diagnostics[:i]
			break
		}
	}
	if !c.here {
		return
	}
	if r.Errors > c.inErrs {
		r.Stopped = true
	}
	r.Errors, r.Warnings = c.inErrs, c.inWarns
}

// cutAt keeps a result's diagnostics up to its n-th error.
func cutAt(r *Result, n int) {
	errs, warns := 0, 0
	for i, d := range r.Diagnostics {
		if d.Severity == diag.Error {
			errs++
		} else {
			warns++
		}
		if errs == n {
			r.Diagnostics = r.Diagnostics[:i+1]
			break
		}
	}
	if errs < r.Errors || r.Errors > n {
		r.Stopped = true
	}
	r.Errors, r.Warnings = errs, warns
}

func buffered(w io.Writer) *bufio.Writer {
	if w == nil {
		return nil
	}
	return bufio.NewWriterSize(w, 64<<10)
}

func writerOr(f *os.File, w io.Writer) io.Writer {
	if w == nil || f == nil {
		return nil
	}
	return f
}

// spools makes the temporary files an input's lines wait in.
func spools(opts RunOptions) (valid, invalid *os.File, err error) {
	mk := func(w io.Writer) (*os.File, error) {
		if w == nil {
			return nil, nil
		}
		return os.CreateTemp(opts.SpoolDir, ".evtool-spool-*")
	}
	if valid, err = mk(opts.Valid); err != nil {
		return nil, nil, err
	}
	if invalid, err = mk(opts.Invalid); err != nil {
		if valid != nil {
			valid.Close()
			os.Remove(valid.Name())
		}
		return nil, nil, err
	}
	return valid, invalid, nil
}

// drain copies a spool to its writer.
func drain(f *os.File, w io.Writer) error {
	if f == nil {
		return nil
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	_, err := io.Copy(w, f)
	return err
}
