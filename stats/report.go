package stats

import (
	"cmp"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"time"

	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/prices"
)

// Dim is a dimension a usage report groups by.
type Dim string

// The dimensions of a usage report.
const (
	ByDay     Dim = "day"     // the calendar day, in ReportOptions.Location
	ByWeek    Dim = "week"    // the week, named by its first day
	ByMonth   Dim = "month"   // the calendar month
	BySession Dim = "session" // the session id the stream states, else its file
	ByProject Dim = "project" // the workspace session_started states
	ByModel   Dim = "model"   // the model in force (see usage.go)
	ByAgent   Dim = "agent"   // session_started's agent name, else the dialect
	ByTool    Dim = "tool"    // the tool called (see Row.Calls)
	ByBlock   Dim = "block"   // the 5-hour billing block (see blocks)
	ByRun     Dim = "run"     // the stream read (a file, or a session)
)

// Dims lists the dimensions in the order their columns are printed.
func Dims() []Dim {
	return []Dim{ByDay, ByWeek, ByMonth, ByBlock, ByAgent, ByProject, BySession, ByRun, ByModel, ByTool}
}

// Cost sources: where a row's cost comes from.
const (
	CostStated  = "stated"  // the logs' own figures
	CostPriced  = "priced"  // tokens × the price table
	CostMixed   = "mixed"   // some stated, the rest priced
	CostUnknown = "unknown" // a model the table lacks: no cost is shown
)

// ReportOptions configure a Report.
type ReportOptions struct {
	// By lists the dimensions to group by, in the order of the columns.
	By []Dim
	// Since and Until, when not zero, keep the usage and calls whose
	// time is at or after Since and before Until; those without a time
	// are then left out.
	Since, Until time.Time
	// Location is the time zone of days, weeks and months (nil: UTC).
	Location *time.Location
	// StartOfWeek is the first day of a week.
	StartOfWeek time.Weekday
	// BlockLength is the length of a billing block (0: 5 hours).
	BlockLength time.Duration
	// Prices prices the usage whose cost the logs do not state; nil
	// leaves such cost unknown.
	Prices *prices.Table
	// Unpriced is called once for each model that usage needs a price
	// for and the table lacks.
	Unpriced func(model string)
	// Order places this report's runs among the runs of other reports
	// when reports are merged (Merge): a row lists its models in the
	// order they first appear, over the runs of the report of the lowest
	// Order first. Runs added to one report are in the order added.
	Order string
}

// Row is one line of a usage report: the usage and calls of one group.
type Row struct {
	// Keys are the group's values, one per ReportOptions.By; None for a
	// value the logs do not state (a time, a model).
	Keys []string
	// Usage holds the token counts stated, and the cost: the stated
	// figures plus the priced ones, "" when CostSource is unknown or
	// there is no usage to cost.
	Usage Usage
	// CostSource says where the cost comes from (CostStated, …), "" for
	// a row without usage.
	CostSource string
	// Models are the models of the row's usage and calls, in the order
	// they first appear.
	Models []string
	// Unpriced are the models of the row's usage the price table lacks.
	Unpriced []string
	// Entries counts the usage records the row adds up.
	Entries uint64
	// Calls counts the tool calls made in the row (for a tool row: of
	// that tool), Failed those that finished with status error.
	Calls, Failed uint64

	tok                     [len(tokens)]uint64
	set, sat                [len(tokens)]bool
	stated, priced          decimal
	nStated, nPriced, nUnkn int
	ranks                   []rank // of Models: where each first appears
}

// None is the key of a value the logs do not state.
const None = "—"

// Report groups the usage of many runs. Add runs to it by passing it in
// Options.Report to Read; then Rows and Total. It is not safe for
// concurrent use.
type Report struct {
	opts    ReportOptions
	seen    keySet
	rows    map[string]*Row
	total   Row
	pending []entry // kept until Finish when grouping by block
	price   map[string]*prices.Match
	fixed   map[*prices.List]*fixedList // the lists of price, as whole numbers
	seq     uint64                      // entries taken so far: the next one's rank
	// Runs counts the runs added; Outside the usage records and calls
	// left out by Since and Until.
	Runs, Outside uint64
	done          bool
}

// NewReport returns an empty report.
func NewReport(opts ReportOptions) *Report {
	if opts.Location == nil {
		opts.Location = time.UTC
	}
	if opts.BlockLength == 0 {
		opts.BlockLength = 5 * time.Hour
	}
	return &Report{opts: opts, rows: map[string]*Row{}, price: map[string]*prices.Match{}}
}

// Options returns the report's options.
func (rp *Report) Options() ReportOptions { return rp.opts }

// runInfo is what every entry of one run shares.
type runInfo struct {
	file, session, project, agent string
}

// entry is a record or a call, attributed, ready to be grouped.
type entry struct {
	when    time.Time
	hasTime bool
	model   string
	run     *runInfo
	call    bool // a tool call, else usage
	tool    string
	failed  bool
	tools   []string // usage: the tools its round called
	tok     [len(tokens)]uint64
	set     [len(tokens)]bool
	c1h     uint64
	cost    decimal // usage: the stated cost attributed to it
	hasCost bool
	covered bool // its tokens are inside a stated cost
	rank    rank // where it stands among the entries of every report
	priced  pricedAs
	outside bool // outside the range: held only for where blocks begin
}

// pricedAs is an entry's cost as the report reckons it (costOf).
type pricedAs struct {
	cost             decimal
	source, unpriced string
}

// addRun takes a run's records once its stream has ended.
func (rp *Report) addRun(c *collector, run *Run) {
	rp.Runs++
	info := &runInfo{file: run.File, session: cmp.Or(c.session, run.File), project: c.workspace, agent: cmp.Or(c.agent, run.Dialect)}
	c.dedupe(&rp.seen)
	a := c.attribute()
	for _, r := range a.order {
		e := entry{model: r.model, run: info, covered: a.covered(r)}
		e.when, e.hasTime = r.timeIn(c.firstTime)
		for i := range tokens {
			if r.aset[i] {
				e.tok[i], e.set[i] = r.tok[i], true
			}
		}
		if r.aset[costIdx] {
			e.cost.set(r.cost)
			e.hasCost = true
		}
		if r.aset[tokenIndex(CacheWrite)] && r.tok[tokenIndex(CacheWrite)] > 0 {
			e.c1h = min(r.c1h, e.tok[tokenIndex(CacheWrite)])
		}
		for _, k := range r.calls {
			if !slices.Contains(e.tools, k.name) {
				e.tools = append(e.tools, k.name)
			}
		}
		rp.add(e)
	}
	for _, k := range c.calls {
		if k.hasID {
			d := callKey(info.agent, k.id)
			if !rp.seen.add(d) {
				continue
			}
		}
		e := entry{model: k.model, run: info, call: true, tool: k.name, failed: k.status == event.ToolError}
		e.when, e.hasTime = k.timeIn(c.firstTime)
		rp.add(e)
	}
}

// add keeps an entry inside the range: grouped at once, or held until
// Finish when blocks are wanted (a block depends on every entry before).
func (rp *Report) add(e entry) {
	blocks := slices.Contains(rp.opts.By, ByBlock)
	if !rp.opts.Since.IsZero() || !rp.opts.Until.IsZero() {
		if !e.hasTime || (!rp.opts.Since.IsZero() && e.when.Before(rp.opts.Since)) || (!rp.opts.Until.IsZero() && !e.when.Before(rp.opts.Until)) {
			rp.Outside++
			if blocks && e.hasTime && !e.call {
				// Not counted, but where the blocks begin depends on it,
				// as on every record before (ccusage forms blocks over
				// all records, then takes the range).
				e.outside = true
				rp.pending = append(rp.pending, e)
			}
			return
		}
	}
	e.rank = rank{order: rp.opts.Order, seq: rp.seq}
	rp.seq++
	// Priced as it is taken, so that an entry held for blocks carries
	// its cost with it when reports are merged.
	e.priced.cost, e.priced.source, e.priced.unpriced = rp.costOf(&e)
	if blocks {
		rp.pending = append(rp.pending, e)
		return
	}
	rp.group(&e, "")
}

// group adds an entry to its rows and to the total.
func (rp *Report) group(e *entry, block string) {
	cost, source, unpriced := e.priced.cost, e.priced.source, e.priced.unpriced
	tools := []string{e.tool}
	if !e.call {
		tools = e.tools
		if len(tools) == 0 {
			tools = []string{""}
		}
	}
	if !slices.Contains(rp.opts.By, ByTool) {
		tools = tools[:1]
	}
	for _, tool := range tools {
		keys := make([]string, len(rp.opts.By))
		for i, d := range rp.opts.By {
			keys[i] = rp.key(e, d, tool, block)
		}
		id := rowID(keys)
		row, ok := rp.rows[id]
		if !ok {
			row = &Row{Keys: keys}
			rp.rows[id] = row
		}
		row.add(e, cost, source, unpriced)
	}
	rp.total.add(e, cost, source, unpriced)
}

// key is an entry's value of a dimension.
func (rp *Report) key(e *entry, d Dim, tool, block string) string {
	loc := rp.opts.Location
	switch d {
	case ByDay, ByWeek, ByMonth:
		if !e.hasTime {
			return None
		}
		t := e.when.In(loc)
		switch d {
		case ByDay:
			return t.Format(time.DateOnly)
		case ByMonth:
			return t.Format("2006-01")
		}
		back := (int(t.Weekday()) - int(rp.opts.StartOfWeek) + 7) % 7
		return t.AddDate(0, 0, -back).Format(time.DateOnly)
	case ByBlock:
		return cmp.Or(block, None)
	case BySession:
		return cmp.Or(e.run.session, None)
	case ByRun:
		return cmp.Or(e.run.file, None)
	case ByProject:
		return cmp.Or(e.run.project, None)
	case ByAgent:
		return cmp.Or(e.run.agent, None)
	case ByModel:
		return cmp.Or(e.model, None)
	case ByTool:
		return cmp.Or(tool, None)
	}
	return None
}

// costOf prices an entry: its stated cost, else its tokens at its model's
// prices; source is "" for an entry with nothing to cost.
func (rp *Report) costOf(e *entry) (cost decimal, source string, unpriced string) {
	if e.call {
		return cost, "", ""
	}
	if e.hasCost {
		cost.set(&e.cost)
	}
	if e.covered {
		if e.hasCost || e.anyTokens() {
			source = CostStated
		}
		return cost, source, ""
	}
	if !e.anyTokens() {
		if e.hasCost {
			return cost, CostStated, ""
		}
		if e.anySet() && rp.known(e.model) {
			// A response that used no tokens, of a model the table has:
			// it cost 0, which is known (ccusage says $0 too). Of a model
			// the table lacks, nothing is priced, nor reported missing.
			return cost, CostPriced, ""
		}
		return cost, "", ""
	}
	m := rp.lookup(e.model)
	if m == nil {
		return cost, CostUnknown, cmp.Or(e.model, None)
	}
	t := prices.Tokens{
		Input: e.tok[tokenIndex(Input)], Output: e.tok[tokenIndex(Output)], CacheRead: e.tok[tokenIndex(CacheRead)],
		CacheWrite5m: e.tok[tokenIndex(CacheWrite)] - e.c1h, CacheWrite1h: e.c1h, Thoughts: e.tok[tokenIndex(Thoughts)],
	}
	if e.hasTime {
		t.At = e.when // a model's dated prices: those in force then
	}
	p, ok := rp.fixedOf(m.Model.At(t.At)).cost(t)
	if !ok {
		var err error
		if p, err = parseDecimal(ratText(m.Model.Cost(t))); err != nil {
			return cost, CostUnknown, e.model
		}
	}
	cost.add(&p)
	if e.hasCost {
		return cost, CostMixed, ""
	}
	return cost, CostPriced, ""
}

func ratText(r *big.Rat) string { return prices.Decimal(r) }

// lookup finds a model's prices once; a model the table lacks is
// reported once.
func (rp *Report) lookup(model string) *prices.Match {
	if m, ok := rp.price[model]; ok {
		return m
	}
	var found *prices.Match
	if m, ok := rp.opts.Prices.Lookup(model); ok {
		found = &m
	} else if rp.opts.Unpriced != nil {
		rp.opts.Unpriced(cmp.Or(model, None))
	}
	rp.price[model] = found
	return found
}

// known reports whether the table prices a model, without reporting one
// it lacks (lookup does, once, for a model with tokens to price).
func (rp *Report) known(model string) bool {
	if model == "" {
		return false
	}
	if m, ok := rp.price[model]; ok {
		return m != nil
	}
	m, ok := rp.opts.Prices.Lookup(model)
	if ok {
		rp.price[model] = &m // listed with the prices the report used (Priced)
	}
	return ok
}

// Priced maps each model the report priced to the catalogue entry it was
// priced as.
func (rp *Report) Priced() map[string]prices.Match {
	out := map[string]prices.Match{}
	for k, m := range rp.price {
		if m != nil {
			out[k] = *m
		}
	}
	return out
}

// anySet reports whether the entry states any count, 0 or more.
func (e *entry) anySet() bool {
	for i, t := range tokens {
		if e.set[i] && t.name != Total {
			return true
		}
	}
	return false
}

func (e *entry) anyTokens() bool {
	for i, t := range tokens {
		// The stated total repeats the other counts: it is no usage of
		// its own to price.
		if e.set[i] && t.name != Total && e.tok[i] > 0 {
			return true
		}
	}
	return false
}

func (r *Row) add(e *entry, cost decimal, source, unpriced string) {
	if e.model != "" {
		// Entries of merged reports come in any order: a model keeps the
		// rank of its first entry, wherever that entry comes.
		if i := slices.Index(r.Models, e.model); i < 0 {
			r.Models = append(r.Models, e.model)
			r.ranks = append(r.ranks, e.rank)
		} else if e.rank.compare(r.ranks[i]) < 0 {
			r.ranks[i] = e.rank
		}
	}
	if e.call {
		r.Calls = satAdd(r.Calls, 1, nil)
		if e.failed {
			r.Failed = satAdd(r.Failed, 1, nil)
		}
		return
	}
	r.Entries++
	for i := range tokens {
		if e.set[i] {
			r.set[i] = true
			r.tok[i] = satAdd(r.tok[i], e.tok[i], &r.sat[i])
		}
	}
	switch source {
	case CostStated:
		r.nStated++
		r.stated.add(&cost)
	case CostPriced:
		r.nPriced++
		r.priced.add(&cost)
	case CostMixed:
		r.nStated++
		r.nPriced++
		r.priced.add(&cost)
	case CostUnknown:
		r.nUnkn++
		if !slices.Contains(r.Unpriced, unpriced) {
			r.Unpriced = append(r.Unpriced, unpriced)
		}
	}
}

// finish sets the row's exported figures from its sums.
func (r *Row) finish() {
	r.Usage = Usage{Tokens: map[Token]uint64{}}
	for i, t := range tokens {
		if r.set[i] {
			r.Usage.Tokens[t.name] = r.tok[i]
		}
		if r.sat[i] {
			r.Usage.Saturated = append(r.Usage.Saturated, t.name)
		}
	}
	switch {
	case r.nUnkn > 0:
		r.CostSource = CostUnknown
	case r.nStated > 0 && r.nPriced > 0:
		r.CostSource = CostMixed
	case r.nStated > 0:
		r.CostSource = CostStated
	case r.nPriced > 0:
		r.CostSource = CostPriced
	}
	if r.CostSource != "" && r.CostSource != CostUnknown {
		var sum decimal
		sum.add(&r.stated)
		sum.add(&r.priced)
		r.Usage.CostUSD = sum.String()
	}
	slices.Sort(r.Unpriced)
	r.sortModels()
}

// AllTokens is the sum of the disjoint counts (input, output, cache read,
// cache write, thoughts): what a row used in all, as ccusage's
// totalTokens counts it. Reasoning is inside output where stated; the
// stated total is left out, as it repeats the others.
func (r *Row) AllTokens() uint64 {
	var n uint64
	for _, t := range []Token{Input, Output, CacheRead, CacheWrite, Thoughts} {
		n = satAdd(n, r.Usage.Tokens[t], nil)
	}
	return n
}

// Finish groups what was held for blocks and fixes the rows' figures;
// Rows and Total call it.
func (rp *Report) Finish() {
	if rp.done {
		return
	}
	rp.done = true
	if len(rp.pending) > 0 {
		blocks := rp.blocks()
		for i := range rp.pending {
			if !rp.pending[i].outside {
				rp.group(&rp.pending[i], blocks[i])
			}
		}
		rp.pending = nil
	}
	for _, r := range rp.rows {
		r.finish()
	}
	rp.total.finish()
}

// Rows returns the report's rows, sorted by their keys.
func (rp *Report) Rows() []*Row {
	rp.Finish()
	out := make([]*Row, 0, len(rp.rows))
	for _, r := range rp.rows {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b *Row) int { return slices.Compare(a.Keys, b.Keys) })
	return out
}

// Total returns the report's total: every entry once (a round that
// called two tools counts once here, under each tool in a tool row).
func (rp *Report) Total() *Row {
	rp.Finish()
	return &rp.total
}

// blocks assigns the held entries to billing blocks, as ccusage does
// (blocks.rs): entries in time order; a block starts at its first
// entry's time floored to the hour (in UTC, as ccusage floors), and an
// entry more than BlockLength after its block's start, or after the
// entry before it, starts a new block. Each agent has blocks of its own
// (Claude Code's and Codex's limits are separate windows, each opened by
// its own first request; ccusage's blocks are Claude Code's alone).
// Blocks are named by their start, in the report's time zone. A call
// belongs to its agent's block whose span holds its time, else none:
// blocks are made of usage.
func (rp *Report) blocks() []string {
	out := make([]string, len(rp.pending))
	byAgent := map[string][]int{}
	for i, e := range rp.pending {
		if e.hasTime && !e.call {
			a := e.run.agent
			byAgent[a] = append(byAgent[a], i)
		}
	}
	starts := map[string][]time.Time{}
	length := rp.opts.BlockLength
	for a, idx := range byAgent {
		slices.SortStableFunc(idx, func(x, y int) int { return rp.pending[x].when.Compare(rp.pending[y].when) })
		var start, last time.Time
		for n, i := range idx {
			t := rp.pending[i].when
			if n == 0 || t.Sub(start) > length || t.Sub(last) > length {
				start = t.UTC().Truncate(time.Hour)
				starts[a] = append(starts[a], start)
			}
			last = t
			out[i] = rp.blockName(start)
		}
	}
	for i, e := range rp.pending {
		if !e.call || !e.hasTime {
			continue
		}
		ss := starts[e.run.agent]
		j, _ := slices.BinarySearchFunc(ss, e.when, func(s, t time.Time) int { return s.Compare(t) })
		// ss[j-1] is the last block starting at or before the call (j
		// itself when it starts exactly then).
		if j < len(ss) && ss[j].Equal(e.when) {
			out[i] = rp.blockName(ss[j])
		} else if j > 0 && e.when.Before(ss[j-1].Add(length)) {
			out[i] = rp.blockName(ss[j-1])
		}
	}
	return out
}

func (rp *Report) blockName(t time.Time) string {
	return t.In(rp.opts.Location).Format("2006-01-02T15:04Z07:00")
}

// ParseDims reads a comma-separated list of dimensions.
func ParseDims(s string) ([]Dim, error) {
	var out []Dim
	for f := range strings.SplitSeq(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		d := Dim(f)
		if !slices.Contains(Dims(), d) {
			return nil, fmt.Errorf("%q is no dimension: want %s", f, dimList())
		}
		if slices.Contains(out, d) {
			return nil, fmt.Errorf("%q named twice", f)
		}
		out = append(out, d)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("name at least one of %s", dimList())
	}
	return out, nil
}

func dimList() string {
	var s []string
	for _, d := range Dims() {
		s = append(s, string(d))
	}
	return strings.Join(s, ", ")
}
