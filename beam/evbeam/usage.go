package evbeam

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/log"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/prices"
	"github.com/evtool/evtool/stats"
	"github.com/evtool/evtool/stream"
)

// UsageOptions are `evtool usage`'s flags (evtool stats --by).
type UsageOptions struct {
	// By lists the dimensions, comma-separated: day, week, month, block,
	// agent, project, session, run, model, tool (required).
	By string
	// Since and Until keep a range: a date (2026-03-01, 20260301; a
	// whole day in Timezone) or an RFC 3339 time.
	Since, Until string
	// Timezone is the IANA zone of days, weeks, months and dates ("":
	// the local zone, as the command line's default; on a cluster, name
	// one).
	Timezone string
	// StartOfWeek is the first day of a week ("": sunday).
	StartOfWeek string
	// Prices are price files (LiteLLM's or models.dev's shape) whose
	// entries come before the embedded table's, the first named first.
	Prices []PriceFile
	// Format is the report's: text (the default), json, csv or markdown.
	Format string
	// Dialect is the runs' dialect ("": detected from each first line).
	Dialect      string
	MaxLineBytes int64
	Workers      int
}

// PriceFile is a price file's name and content, read where the pipeline
// is built.
type PriceFile struct {
	Name string
	Data []byte
}

// Usage reports usage over the runs as `evtool usage --by BY` does on
// the same runs: one element, the report's bytes. Each run is read on its
// own worker (the decompressing, the schema, the decoding: the whole
// cost of a run), which hands on what the report needs of it: its
// usage-bearing events, in canonical form, without their text (a few per
// cent of its bytes, zstd-compressed), and the keys of the API responses
// and tool calls it counts. See UsageReport for how they are added up.
func Usage(s beam.Scope, runs beam.PCollection, opts UsageOptions) beam.PCollection {
	s = s.Scope("evbeam.Usage")
	return UsageReport(s, UsageParts(s, runs, opts), opts)
}

// UsageParts reads each run on its own worker and returns what a usage
// report needs of it, one Part a run (none for a run left out: last
// written before opts.Since, or not read to its end). Several reports of
// different dimensions and formats may be made of the same parts
// (UsageReport), with the same Since, Dialect and line limit.
func UsageParts(s beam.Scope, runs beam.PCollection, opts UsageOptions) beam.PCollection {
	s = s.Scope("evbeam.UsageParts")
	if _, err := opts.since(); err != nil {
		panic(fmt.Sprintf("evbeam.UsageParts: %v", err))
	}
	if _, err := lookupDialect(opts.Dialect); err != nil {
		panic(fmt.Sprintf("evbeam.UsageParts: %v", err))
	}
	return beam.ParDo(s, &usageReadFn{Opts: opts}, runs)
}

// UsageReport makes the report of opts of the parts: one element, its
// bytes in opts.Format. The parts are added up where they are, and only
// sums travel:
//
//  1. a response or tool call that several runs repeat (a resumed
//     session's file repeats the responses it continues) counts in the
//     first run, by the runs' order, as on the command line: the keys of
//     all parts are grouped by key, and each later run that has a key is
//     told to leave it out;
//  2. each run's part, with the keys it leaves out, is made into a report
//     of its own (stats.Report, placed among the others by its run's key:
//     ReportOptions.Order), on the worker that holds it;
//  3. the reports are merged by a combine (stats.Report.Merge), in any
//     order, across workers: token counts are integers and costs exact
//     decimals, so the sums do not depend on that order;
//  4. one worker finishes the merged report and writes it (a report is
//     written when no run is left in the range too).
//
// What is held in one place at the end is the report's rows, and, for a
// report by block, its usage records (a block depends on every record
// before it): about a hundred bytes a response.
func UsageReport(s beam.Scope, parts beam.PCollection, opts UsageOptions) beam.PCollection {
	s = s.Scope("evbeam.UsageReport")
	if _, err := opts.reportOptions(); err != nil {
		panic(fmt.Sprintf("evbeam.UsageReport: %v", err))
	}
	if !slices.Contains(stats.ReportFormats(), opts.format()) {
		panic(fmt.Sprintf("evbeam.UsageReport: format %q: want %s", opts.Format, strings.Join(stats.ReportFormats(), " or ")))
	}
	keys := beam.ParDo(s, partKeys, parts)
	later := beam.ParDo(s, laterRuns, beam.GroupByKey(s, keys))
	byRun := beam.ParDo(s, partByRun, parts)
	reports := beam.ParDo(s, &usagePartialFn{Opts: opts}, beam.CoGroupByKey(s, byRun, later))
	merged := beam.Combine(s, &usageMergeFn{}, reports)
	return beam.ParDo(s, &usageReportFn{Opts: opts}, beam.Impulse(s), beam.SideInput{Input: merged})
}

func (opts UsageOptions) format() string {
	if opts.Format == "" {
		return "text"
	}
	return opts.Format
}

// Part is what the report needs of one run: its usage-bearing events,
// canonical, zstd-compressed, and the keys of the responses and tool
// calls a report counts once over all runs (stats.UsageKeys).
type Part struct {
	Key, Name string
	Data      []byte
	Keys      []uint64
}

// reportOptions are the command line's report options (cli's newReport).
func (opts UsageOptions) reportOptions() (stats.ReportOptions, error) {
	dims, err := stats.ParseDims(opts.By)
	if err != nil {
		return stats.ReportOptions{}, fmt.Errorf("by: %v", err)
	}
	loc := time.Local
	if opts.Timezone != "" {
		if loc, err = time.LoadLocation(opts.Timezone); err != nil {
			return stats.ReportOptions{}, fmt.Errorf("time zone %q: want an IANA time zone (UTC, Europe/Paris, America/New_York)", opts.Timezone)
		}
	}
	ro := stats.ReportOptions{By: dims, Location: loc}
	if ro.Since, err = reportWhen("since", opts.Since, loc, false); err != nil {
		return ro, err
	}
	if ro.Until, err = reportWhen("until", opts.Until, loc, true); err != nil {
		return ro, err
	}
	if !ro.Since.IsZero() && !ro.Until.IsZero() && !ro.Since.Before(ro.Until) {
		return ro, fmt.Errorf("until %s is before since %s", opts.Until, opts.Since)
	}
	week := strings.ToLower(opts.StartOfWeek)
	if week == "" {
		week = "sunday"
	}
	wd := slices.Index(weekdays, week)
	if wd < 0 {
		return ro, fmt.Errorf("start of week %q: want %s", opts.StartOfWeek, strings.Join(weekdays, ", "))
	}
	ro.StartOfWeek = time.Weekday(wd)
	if ro.Prices, err = prices.Default(); err != nil {
		return ro, err
	}
	for i := len(opts.Prices) - 1; i >= 0; i-- {
		// The first file named takes precedence: it is read last, on top.
		p := opts.Prices[i]
		if ro.Prices, err = prices.Read(bytes.NewReader(p.Data), p.Name, ro.Prices); err != nil {
			return ro, fmt.Errorf("prices %v", err)
		}
	}
	return ro, nil
}

// since is the start of the range, which the reading of runs needs: a
// run last written before it is not read.
func (opts UsageOptions) since() (time.Time, error) {
	loc := time.Local
	if opts.Timezone != "" {
		var err error
		if loc, err = time.LoadLocation(opts.Timezone); err != nil {
			return time.Time{}, fmt.Errorf("time zone %q: want an IANA time zone (UTC, Europe/Paris, America/New_York)", opts.Timezone)
		}
	}
	return reportWhen("since", opts.Since, loc, false)
}

var weekdays = []string{"sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"}

// reportWhen reads Since or Until as the command line reads them: a date
// is its day's start in loc (for Until, the next day's start, the range's
// end being exclusive); an RFC 3339 time is itself (for Until, inclusive).
func reportWhen(what, v string, loc *time.Location, end bool) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		if end {
			t = t.Add(time.Nanosecond)
		}
		return t, nil
	}
	for _, layout := range []string{"2006-01-02", "20060102"} {
		if t, err := time.ParseInLocation(layout, v, loc); err == nil {
			if end {
				t = t.AddDate(0, 0, 1)
			}
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%s %q: want a date (2026-01-02 or 20260102) or an RFC 3339 time", what, v)
}

type usageReadFn struct {
	Opts  UsageOptions
	since time.Time
	d     dialect.Dialect
	o     opener
}

func (f *usageReadFn) Setup() error {
	var err error
	if f.since, err = f.Opts.since(); err != nil {
		return err
	}
	f.d, err = lookupDialect(f.Opts.Dialect)
	return err
}

func (f *usageReadFn) ProcessElement(ctx context.Context, r Run, emit func(Part)) error {
	if f.before(ctx, r) {
		// Last written before Since: it holds no later line, and the
		// command line does not open it.
		return nil
	}
	so := stream.Options{Dialect: f.d, Workers: f.Opts.Workers, MaxLineBytes: lineLimit(f.Opts.MaxLineBytes)}
	if r.Store {
		var err error
		if so.Dialect, err = storeDialect(r); err != nil {
			return err
		}
	}
	// Files and sessions are whole: read looking ahead, as the command
	// line reads them (see opener.open).
	so.Lookahead = true
	rc, err := f.o.open(ctx, r, true)
	if err != nil {
		// The command line reports it and leaves it out of the report.
		log.Warnf(ctx, "evtool: %v", err)
		notRead.Inc(ctx, 1)
		return nil
	}
	defer rc.Close()
	data, bad, err := reduce(rc, r.Name, so)
	if bad > 0 {
		badLines.Inc(ctx, int64(bad))
	}
	var fail *writeError
	switch {
	case errors.As(err, &fail):
		return err
	case err != nil:
		// A run whose reading ended early is left out, as Totals leaves it out.
		log.Warnf(ctx, "evtool: %v", err)
		notRead.Inc(ctx, 1)
		return nil
	}
	keys, err := partKeysOf(data, r.Name)
	if err != nil {
		return err
	}
	partBytes.Inc(ctx, int64(len(data)))
	emit(Part{Key: r.Key, Name: r.Name, Data: data, Keys: keys})
	return nil
}

// before reports whether a run was last written before Since, as the
// command line tells it: a regular file's modification time, a session's
// own.
func (f *usageReadFn) before(ctx context.Context, r Run) bool {
	if f.since.IsZero() {
		return false
	}
	switch {
	case r.Store:
		return !r.Session.Modified.IsZero() && r.Session.Modified.Before(f.since)
	case r.Session != nil:
		fi, err := os.Stat(r.Session.Path)
		return err == nil && fi.Mode().IsRegular() && fi.ModTime().Before(f.since)
	case isLocal(r.Path):
		fi, err := os.Stat(r.Path)
		return err == nil && fi.Mode().IsRegular() && fi.ModTime().Before(f.since)
	}
	fsys, err := f.o.fs(ctx, r.Path)
	if err != nil {
		return false
	}
	lm, ok := fsys.(filesystem.LastModifiedGetter)
	if !ok {
		return false
	}
	t, err := lm.LastModified(ctx, r.Path)
	return err == nil && !t.IsZero() && t.Before(f.since)
}

func (f *usageReadFn) Teardown() { f.o.close() }

var (
	notRead   = beam.NewCounter("evtool", "runs_not_read")
	partBytes = beam.NewCounter("evtool", "usage_part_bytes")
	badLines  = beam.NewCounter("evtool", "bad_lines")
)

// partKeysOf reads a part back for the keys of what it counts.
func partKeysOf(data []byte, name string) ([]uint64, error) {
	d, err := partDialect()
	if err != nil {
		return nil, err
	}
	keys, err := stats.UsageKeys(bytes.NewReader(data), name, partReadOptions(d))
	if err != nil {
		return nil, fmt.Errorf("evbeam: reading back the usage of %s: %w", name, err)
	}
	return keys, nil
}

// partReadOptions read a part as it was written: canonical lines, every
// one of them well formed.
func partReadOptions(d dialect.Dialect) stats.Options {
	return stats.Options{Stream: stream.Options{Dialect: d, Workers: 1, MaxLineBytes: -1}}
}

// partKeys pairs each key of a part with its run.
func partKeys(p Part, emit func(uint64, string)) {
	for _, k := range p.Keys {
		emit(k, p.Key)
	}
}

// laterRuns tells every run but the first that has a key to leave it out.
func laterRuns(key uint64, runs func(*string) bool, emit func(string, uint64)) {
	var all []string
	var r string
	for runs(&r) {
		all = append(all, r)
	}
	if len(all) < 2 {
		return
	}
	slices.Sort(all)
	all = slices.Compact(all)
	for _, later := range all[1:] {
		emit(later, key)
	}
}

// partByRun keys a part by its run.
func partByRun(p Part) (string, Part) { return p.Key, p }

// usagePartialFn makes the report of one run, leaving out what an earlier
// run counts, and hands it on encoded.
type usagePartialFn struct {
	Opts UsageOptions
	ro   stats.ReportOptions
	d    dialect.Dialect
}

func (f *usagePartialFn) Setup() error {
	var err error
	if f.ro, err = f.Opts.reportOptions(); err != nil {
		return err
	}
	// A model the table lacks is noted once, where the report is
	// finished.
	f.ro.Unpriced = nil
	f.d, err = partDialect()
	return err
}

func (f *usagePartialFn) ProcessElement(key string, parts func(*Part) bool, later func(*uint64) bool, emit func([]byte)) error {
	ro := f.ro
	ro.Order = key
	rp := stats.NewReport(ro)
	var k uint64
	for later(&k) {
		rp.Counted(k)
	}
	var p Part
	n := 0
	for parts(&p) {
		n++
		if n > 1 {
			return fmt.Errorf("evbeam: two runs have the key %q", key)
		}
		opts := partReadOptions(f.d)
		opts.Report = rp
		run, err := stats.Read(bytes.NewReader(p.Data), p.Name, opts)
		if err == nil && run.BadLines > 0 {
			err = fmt.Errorf("%d lines with problems", run.BadLines)
		}
		if err != nil {
			return fmt.Errorf("evbeam: reading back the usage of %s: %w", p.Name, err)
		}
		p = Part{}
	}
	b, err := rp.MarshalBinary()
	if err != nil {
		return err
	}
	emit(b)
	return nil
}

// usageAcc is the accumulator of usageMergeFn: the reports merged so
// far (nil: none yet).
type usageAcc struct{ R *stats.Report }

// usageMergeFn merges the runs' reports, in any order, on any worker.
type usageMergeFn struct{}

func (usageMergeFn) CreateAccumulator() usageAcc { return usageAcc{} }

func (usageMergeFn) AddInput(a usageAcc, b []byte) (usageAcc, error) {
	var rp stats.Report
	if err := rp.UnmarshalBinary(b); err != nil {
		return a, err
	}
	return usageMergeFn{}.MergeAccumulators(a, usageAcc{&rp})
}

func (usageMergeFn) MergeAccumulators(a, b usageAcc) (usageAcc, error) {
	switch {
	case a.R == nil:
		return b, nil
	case b.R == nil:
		return a, nil
	}
	return a, a.R.Merge(b.R)
}

func (usageMergeFn) ExtractOutput(a usageAcc) ([]byte, error) {
	if a.R == nil {
		return nil, nil
	}
	return a.R.MarshalBinary()
}

// usageReportFn finishes the merged report and writes it.
type usageReportFn struct {
	Opts UsageOptions
}

func (f *usageReportFn) ProcessElement(ctx context.Context, _ []byte, merged func(*[]byte) bool, emit func([]byte)) error {
	ro, err := f.Opts.reportOptions()
	if err != nil {
		return err
	}
	ro.Unpriced = func(model string) {
		if model == stats.None {
			log.Warnf(ctx, "evtool: usage that names no model cannot be priced: its cost is shown as unknown")
			return
		}
		log.Warnf(ctx, "evtool: no price for model %q in the price table: its cost is shown as unknown", model)
	}
	rp := stats.NewReport(ro)
	var b []byte
	for merged(&b) {
		if len(b) == 0 {
			continue
		}
		var all stats.Report
		if err := all.UnmarshalBinary(b); err != nil {
			return err
		}
		if err := rp.Merge(&all); err != nil {
			return err
		}
		log.Infof(ctx, "evtool: usage of %d runs merged (%d bytes)", all.Runs, len(b))
	}
	var out bytes.Buffer
	if err := stats.WriteReport(&out, f.Opts.format(), rp); err != nil {
		return err
	}
	emit(out.Bytes())
	return nil
}
