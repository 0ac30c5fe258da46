package sessions

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/prices"
	"github.com/evtool/evtool/stats"
	"github.com/evtool/evtool/stream"
)

// A Summary is one line of `evtool sessions`: a session found and what
// reading it once told.
type Summary struct {
	Ref
	// Project is the working directory the session states (the real cwd,
	// not the agent's lossy directory name), "" when it states none.
	Project string
	// Title is the first line of the user's first prompt, clipped
	// (stats.Run.Prompt); "" when the session has none.
	Title string
	// Start and End are the earliest and latest times its events state.
	Start, End string
	// Turns counts the user's turns; nil when the session has none.
	Turns *uint64
	// Tokens are its tokens, input (cached or not), output and thoughts
	// (see Tokens), and TokensStated whether it states any.
	Tokens       uint64
	TokensStated bool
	// CostUSD is its cost, as exact decimal text: the cost it states, and
	// its other usage at the prices of the table Summarize was given
	// (stats' reckoning, as in `evtool usage`); "" when unknown.
	CostUSD string
	// CostSource says where the cost comes from: stats.CostStated,
	// CostPriced, CostMixed, or CostUnknown when some usage has no price;
	// "" when the session has no usage.
	CostSource string
	// Lines and BadLines count the lines read and those with problems.
	Lines, BadLines uint64
	// Err is what stopped the reading, nil when it read to the end.
	Err error
}

// Tokens adds the counts of a usage that are disjoint in the canonical
// model: input, cache read, cache creation, output and thoughts (gemini
// counts them apart from output). Reasoning tokens are not added: the
// producers that state them count them inside output.
func Tokens(u stats.Usage) (n uint64, stated bool) {
	for _, k := range []stats.Token{stats.Input, stats.CacheRead, stats.CacheWrite, stats.Output, stats.Thoughts} {
		if v, ok := u.Tokens[k]; ok {
			stated = true
			if n+v < n {
				return ^uint64(0), true // saturate, as stats does
			}
			n += v
		}
	}
	return n, stated
}

// Filter selects sessions. The zero value selects all.
type Filter struct {
	// Agents, when set, keeps only these agents' sessions.
	Agents []string
	// Since and Until, when set, keep the sessions that have an event at
	// or after Since and at or before Until.
	Since, Until time.Time
	// Project, when set, keeps the sessions whose project is this path, or
	// whose project's last element is this name.
	Project string
	// Unsearched, when set, is told of an agent's standard location that
	// cannot be searched (an opencode database that is no database), and
	// the search goes on with the others: one broken store does not hide
	// every agent's sessions; unset, or for a location named in paths,
	// such an error stops the search. It is told too of what a store
	// passed over unread inside a location (Unreadable), named or not.
	Unsearched func(error)
}

// before reports whether a session last modified at mod can have no event
// at or after Since: a file holds no event later than its last write, so
// it need not be read.
func (f Filter) before(mod time.Time) bool {
	return !f.Since.IsZero() && !mod.IsZero() && mod.Before(f.Since)
}

func (f Filter) agent(a string) bool { return len(f.Agents) == 0 || slices.Contains(f.Agents, a) }

// keeps reports whether a summary passes the filter.
func (f Filter) keeps(s *Summary) bool {
	if f.Project != "" && s.Project != f.Project && filepath.Base(s.Project) != f.Project {
		return false
	}
	if !f.Since.IsZero() {
		end, ok := parseTime(cmp.Or(s.End, s.Start))
		if !ok || end.Before(f.Since) {
			return false
		}
	}
	if !f.Until.IsZero() {
		start, ok := parseTime(cmp.Or(s.Start, s.End))
		if !ok || start.After(f.Until) {
			return false
		}
	}
	return true
}

// parseTime reads an event's time (RFC 3339).
func parseTime(s string) (time.Time, bool) {
	t, err := time.Parse(time.RFC3339Nano, s)
	return t, err == nil
}

// Find calls found for every session under paths, by every store whose
// agent the filter keeps; no paths means each store's Roots. A root that
// does not exist is skipped; any other error stops the search. found is
// called from one goroutine at a time.
func Find(ctx context.Context, paths []string, f Filter, found func(Store, Ref) error) error {
	// A session reached twice (~/.config/claude a link to ~/.claude, a
	// folder named twice, a root inside another) is found once: by its
	// agent, id and main file's identity.
	seen := map[string]bool{}
	once := func(s Store) func(Ref) error {
		return func(r Ref) error {
			k := s.Agent() + "\x00" + r.ID + "\x00" + identity(r.Path)
			if seen[k] {
				return nil
			}
			seen[k] = true
			return found(s, r)
		}
	}
	for _, s := range Stores() {
		if !f.agent(s.Agent()) {
			continue
		}
		roots := paths
		if len(roots) == 0 {
			roots = s.Roots()
		}
		for _, root := range roots {
			if _, err := os.Stat(root); errors.Is(err, os.ErrNotExist) && len(paths) == 0 {
				continue
			}
			sctx := ctx
			if f.Unsearched != nil {
				sctx = context.WithValue(ctx, unreadableKey{}, f.Unsearched)
			}
			if err := s.Scan(sctx, root, once(s)); err != nil {
				err = fmt.Errorf("%s sessions in %s: %w", s.Agent(), root, err)
				if len(paths) > 0 || f.Unsearched == nil || ctx.Err() != nil {
					return err
				}
				f.Unsearched(fmt.Errorf("%w (not searched; the other locations are)", err))
			}
		}
	}
	return nil
}

// unreadableKey carries, in a Scan's context, where a store reports what it
// passed over unread (Unreadable).
type unreadableKey struct{}

// Unreadable tells the search that a store's Scan passed over path, which
// could not be read (a directory without permission, say): a session may
// be in it. Find passes it on to Filter.Unsearched, when set; otherwise it
// is passed over in silence, as before there was anyone to tell.
func Unreadable(ctx context.Context, path string, err error) {
	if f, ok := ctx.Value(unreadableKey{}).(func(error)); ok {
		var pe *fs.PathError
		if !errors.As(err, &pe) { // a PathError names its path itself
			err = fmt.Errorf("%s: %w", path, err)
		}
		f(fmt.Errorf("%w: passed over, its sessions not listed", err))
	}
}

// identity names the file at path by its device and inode where the
// system says them, else by its absolute path with links resolved.
func identity(path string) string {
	if st, err := os.Stat(path); err == nil {
		if id := fileID(st); id != "" {
			return id
		}
	}
	if p, err := filepath.EvalSymlinks(path); err == nil {
		path = p
	}
	if p, err := filepath.Abs(path); err == nil {
		return p
	}
	return path
}

// Summarize reads one session once and sums it up. Usage whose cost the
// session does not state is priced at p (nil: left unknown); unpriced,
// when set, is called with each model p lacks.
func Summarize(s Store, r Ref, p *prices.Table, unpriced func(model string)) *Summary {
	sum := &Summary{Ref: r}
	d, err := dialect.Lookup(s.Dialect())
	if err != nil {
		sum.Err = err
		return sum
	}
	rc, err := Open(s, r)
	if err != nil {
		sum.Err = err
		return sum
	}
	defer rc.Close()
	rp := stats.NewReport(stats.ReportOptions{Prices: p, Unpriced: unpriced})
	// A summary reads no text of the events: the decoder need not copy them.
	run, err := stats.Read(rc, r.Path, stats.Options{Stream: stream.Options{Dialect: d, Summary: true}, Report: rp})
	sum.Err = err
	sum.Project, sum.Title, sum.Start, sum.End, sum.Turns = run.Workspace, run.Prompt, run.Start, run.End, run.Turns
	sum.Tokens, sum.TokensStated = Tokens(run.Usage)
	if err == nil {
		t := rp.Total()
		sum.CostUSD, sum.CostSource = t.Usage.CostUSD, t.CostSource
	} else {
		// A run read only in part is not in the report (stats leaves it
		// out of totals); what it states of its cost is all there is.
		sum.CostUSD = run.Usage.CostUSD
	}
	sum.Lines, sum.BadLines = run.Lines, run.BadLines
	if sum.ID == "" {
		sum.ID = run.SessionID
	}
	return sum
}

// ListOptions configure List.
type ListOptions struct {
	// Filter selects the sessions.
	Filter Filter
	// Workers is how many sessions are read at once (0: one per CPU).
	Workers int
	// Prices prices the usage whose cost a session does not state; nil
	// leaves its cost unknown.
	Prices *prices.Table
	// Unpriced, when set, is called once for each model Prices lacks,
	// from one goroutine at a time.
	Unpriced func(model string)
	// Cache, when set, gives the summaries of sessions unchanged since
	// they were read, and takes those read now; call its Save after.
	Cache *Cache
}

// List finds the sessions under paths (see Find) and summarizes each the
// filter may keep, reading each once, and returns those it keeps, sorted
// by start, then agent and id.
func List(ctx context.Context, paths []string, opts ListOptions) ([]*Summary, error) {
	f, workers := opts.Filter, opts.Workers
	var unpriced func(string)
	if opts.Unpriced != nil {
		var mu sync.Mutex
		told := map[string]bool{}
		unpriced = func(model string) {
			mu.Lock()
			defer mu.Unlock()
			if !told[model] {
				told[model] = true
				opts.Unpriced(model)
			}
		}
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	type job struct {
		s Store
		r Ref
	}
	jobs := make(chan job, workers)
	var (
		mu  sync.Mutex
		out []*Summary
		wg  sync.WaitGroup
	)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				sum := summarizeCached(opts.Cache, j.s, j.r, opts, unpriced)
				if f.keeps(sum) {
					mu.Lock()
					out = append(out, sum)
					mu.Unlock()
				}
			}
		}()
	}
	err := Find(ctx, paths, f, func(s Store, r Ref) error {
		if f.before(r.Modified) {
			return nil
		}
		select {
		case jobs <- job{s, r}:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	})
	close(jobs)
	wg.Wait()
	slices.SortFunc(out, func(a, b *Summary) int {
		return cmp.Or(strings.Compare(a.Start, b.Start), strings.Compare(a.Agent, b.Agent), strings.Compare(a.ID, b.ID), strings.Compare(a.Path, b.Path))
	})
	return out, err
}

// Resolve finds the session an id names under paths (no paths: every
// store's Roots): the session of that id, or the one session whose id
// begins with it.
func Resolve(ctx context.Context, paths []string, id string) (Store, Ref, error) {
	var (
		hits  []Ref
		store []Store
	)
	err := Find(ctx, paths, Filter{}, func(s Store, r Ref) error {
		if r.ID == id || strings.HasPrefix(r.ID, id) {
			hits, store = append(hits, r), append(store, s)
		}
		return nil
	})
	if err != nil {
		return nil, Ref{}, err
	}
	for i, r := range hits {
		if r.ID == id {
			return store[i], r, nil
		}
	}
	switch len(hits) {
	case 0:
		return nil, Ref{}, fmt.Errorf("no session %q found", id)
	case 1:
		return store[0], hits[0], nil
	}
	ids := make([]string, 0, len(hits))
	for _, r := range hits {
		ids = append(ids, r.Agent+" "+r.ID)
	}
	return nil, Ref{}, fmt.Errorf("%d sessions begin with %q: %s", len(hits), id, strings.Join(ids, ", "))
}
