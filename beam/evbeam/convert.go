package evbeam

import (
	"context"
	"errors"
	"fmt"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/evtool/evtool/adapters/acp"
	"github.com/evtool/evtool/convert"
	"github.com/evtool/evtool/dialect"
)

// ConvertOptions are `evtool convert`'s flags that apply to one run.
type ConvertOptions struct {
	// To is the target dialect (required).
	To string
	// From is the source dialect ("": detected from each first line).
	From string
	// OutDir is the directory, in any Beam filesystem, that each run is
	// written to, as OutDir/Run.Rel (required).
	OutDir string
	// OnError says what becomes of a line with problems: keep (the
	// default), skip or fail (the run is not written).
	OnError string
	// Provenance records each event's source line (with To canonical, or
	// acp with ACPMeta).
	Provenance bool
	// ACPProfile, ACPMeta and Transcript are the acp target's settings.
	ACPProfile   string
	ACPMeta      bool
	Transcript   bool
	MaxLineBytes int64
	Workers      int
}

// Converted is what converting one run did.
type Converted struct {
	Key, Name string
	// Output is the file written; "" when the run was not converted
	// (Err says why).
	Output string
	From   string
	Lines  int
	// Errors counts the lines with problems (BadLines their numbers);
	// Torn is the number of a torn last line, 0 when it is whole.
	Errors   int
	BadLines []int `json:",omitempty"`
	Torn     int   `json:",omitempty"`
	// Problems are the lines' diagnostics, as `evtool convert` prints
	// them on stderr.
	Problems []string `json:",omitempty"`
	// Losses are what the target could not carry.
	Losses []Loss `json:",omitempty"`
	// Err says why the run was not converted, as the command line says
	// it (no output is written then).
	Err string `json:",omitempty"`
}

// Loss is one kind of fact the target could not carry, as --loss-report
// writes it.
type Loss struct {
	ID, Verb  string
	Count     int
	FirstLine int
	Detail    string `json:",omitempty"`
	Summary   string
	Reason    string
}

// Convert converts each run on its own worker, as `evtool convert --to
// TO RUN -o OUT` does, into opts.OutDir/Run.Rel: the same bytes. An
// output is written under a temporary name and renamed to its own once
// whole (in place on object stores, whose uploads appear whole), so a
// bundle the runner retries replaces what its failed attempt wrote; once
// every run is converted, the temporary files of attempts killed before
// their rename are removed. A run that cannot be converted (the command
// line would exit 1 or 2 without writing -o) writes nothing and says why
// in its Converted.
func Convert(s beam.Scope, runs beam.PCollection, opts ConvertOptions) beam.PCollection {
	s = s.Scope("evbeam.Convert")
	if _, err := opts.options(); err != nil {
		panic(fmt.Sprintf("evbeam.Convert: %v", err))
	}
	if opts.OutDir == "" {
		panic("evbeam.Convert: no OutDir")
	}
	filesystem.ValidateScheme(opts.OutDir)
	out := beam.ParDo(s, &convertFn{Opts: opts}, runs)
	// Once every run is written (a side input is whole before it is read).
	beam.ParDo0(s, &cleanFn{Dir: opts.OutDir}, beam.Impulse(s), beam.SideInput{Input: out})
	return out
}

func (opts ConvertOptions) options() (convert.Options, error) {
	if opts.To == "" {
		return convert.Options{}, errors.New("no target dialect (To)")
	}
	to, err := dialect.Lookup(opts.To)
	if err != nil {
		return convert.Options{}, err
	}
	if _, ro := to.(dialect.ReadOnly); ro {
		return convert.Options{}, fmt.Errorf("%s is read, never written", opts.To)
	}
	from, err := lookupDialect(opts.From)
	if err != nil {
		return convert.Options{}, err
	}
	onError := convert.Keep
	if opts.OnError != "" {
		var ok bool
		if onError, ok = convert.OnErrors[opts.OnError]; !ok {
			return convert.Options{}, fmt.Errorf("on error %q: want keep, skip or fail", opts.OnError)
		}
	}
	var cfg dialect.Config
	if to.Name() == acp.Name {
		c := &acp.Config{Profile: opts.ACPProfile, Meta: opts.ACPMeta, Transcript: opts.Transcript}
		if c.Profile == "" {
			c.Profile = acp.Stable
		}
		if err := c.Validate(); err != nil {
			return convert.Options{}, err
		}
		cfg = c
	} else if opts.ACPProfile != "" || opts.ACPMeta || opts.Transcript {
		return convert.Options{}, fmt.Errorf("the acp settings apply only with To acp, not %s", to.Name())
	}
	if opts.Provenance && to.Name() != "canonical" && !(to.Name() == acp.Name && opts.ACPMeta) {
		return convert.Options{}, fmt.Errorf("provenance applies only with To canonical (or acp with ACPMeta), not %s", to.Name())
	}
	return convert.Options{From: from, To: to, Provenance: opts.Provenance, Config: cfg, OnError: onError,
		Workers: opts.Workers, MaxLineBytes: lineLimit(opts.MaxLineBytes)}, nil
}

type convertFn struct {
	Opts ConvertOptions
	co   convert.Options
	o    opener
}

func (f *convertFn) Setup() error {
	var err error
	f.co, err = f.Opts.options()
	return err
}

func (f *convertFn) ProcessElement(ctx context.Context, r Run, emit func(Converted)) error {
	c, err := f.convert(ctx, r)
	if err != nil {
		return err
	}
	if c.Err != "" {
		notConverted.Inc(ctx, 1)
	} else {
		converted.Inc(ctx, 1)
	}
	emit(c)
	return nil
}

// convert converts one run; its error is one of the output, which fails
// the bundle (the runner retries it), while a run that cannot be
// converted says so in its Converted.
func (f *convertFn) convert(ctx context.Context, r Run) (Converted, error) {
	c := Converted{Key: r.Key, Name: r.Name}
	in, err := f.o.open(ctx, r)
	if err != nil {
		c.Err = err.Error()
		return c, nil
	}
	defer in.Close()
	name := joinPath(f.Opts.OutDir, r.Rel)
	out, err := f.o.create(ctx, name)
	if err != nil {
		return c, err
	}
	res, err := convert.Run(in, errWriter{out}, r.Name, f.co, func(le *convert.LineError) { c.Problems = append(c.Problems, le.Error()) })
	c.From, c.Lines, c.Errors, c.BadLines, c.Torn = res.From, res.Lines, res.Errors, res.BadLines, res.Torn
	if res.Losses != nil {
		for _, l := range res.Losses.List() {
			c.Losses = append(c.Losses, Loss{ID: l.ID, Verb: l.Verb, Count: l.Count, FirstLine: l.FirstLine, Detail: l.Detail,
				Summary: fmt.Sprintf("%s %d %s", l.Verb, l.Count, l.Kind), Reason: l.Why})
		}
	}
	if err != nil {
		out.abort(ctx)
		var wr *writeError
		if errors.As(err, &wr) {
			return c, err
		}
		c.Err = err.Error()
		return c, nil
	}
	if testHook != nil {
		testHook("written", r)
	}
	if err := out.commit(ctx); err != nil {
		return c, err
	}
	if testHook != nil {
		testHook("committed", r)
	}
	c.Output = name
	return c, nil
}

func (f *convertFn) Teardown() { f.o.close() }

// testHook, set by tests, is called where a worker may die: "written"
// (the temporary file is whole, not yet renamed) and "committed" (renamed,
// its Converted not yet emitted).
var testHook func(point string, r Run)

// errWriter marks the errors of writing the output, which convert.Run
// returns as they are.
type errWriter struct{ o *output }

func (w errWriter) Write(p []byte) (int, error) {
	n, err := w.o.Write(p)
	if err != nil {
		err = &writeError{err}
	}
	return n, err
}

// writeError is a failure to write an output, not a problem of the run.
type writeError struct{ err error }

func (e *writeError) Error() string { return e.err.Error() }
func (e *writeError) Unwrap() error { return e.err }

var (
	converted    = beam.NewCounter("evtool", "converted")
	notConverted = beam.NewCounter("evtool", "not_converted")
)

type cleanFn struct {
	Dir string
}

func (f *cleanFn) ProcessElement(_ []byte, outs func(*Converted) bool) error {
	var c Converted
	for outs(&c) {
	}
	return removeTemps(f.Dir)
}
