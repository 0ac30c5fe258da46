package stats

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/evtool/evtool/internal/idset"
)

// Reports of parts of a history, made apart (on several workers of a
// cluster, say) and merged, give the report of the whole history, the
// same bytes as one report that took every run in order:
//
//   - each run's report is made with its place among the runs as
//     ReportOptions.Order, so that a row lists its models in the order a
//     single report would;
//   - a response or tool call that several runs repeat counts once, in
//     the first run: its keys (UsageKeys) tell the later runs, whose
//     reports are told with Counted before the run is added;
//   - the reports, sent between workers as MarshalBinary writes them,
//     are merged in any order (Merge), and the merged report is finished
//     as any other.
//
// Sums stay exact: token counts are integers, costs decimals.

// rank is where an entry stands among the entries of all the reports
// merged: by its report's Order, then in the order its report took it.
type rank struct {
	order string
	seq   uint64
}

func (a rank) compare(b rank) int {
	return cmp.Or(cmp.Compare(a.order, b.order), cmp.Compare(a.seq, b.seq))
}

// callKey is the key a tool call is counted once by: its agent and id.
//
// id is the digest of the call id (idset.Digest), which a run keeps in
// place of the id.
func callKey(agent string, id uint64) uint64 {
	return idset.Digest("call\x00" + agent + "\x00" + strconv.FormatUint(id, 16))
}

// UsageKeys reads a stream as Read does for a report and returns the keys
// of the responses and tool calls a report counts once over all its runs
// (see Report.Counted), in the order they first appear, each once. A
// stream whose reading ends early returns the error, as such a run is
// left out of a report.
func UsageKeys(r io.Reader, file string, opts Options) ([]uint64, error) {
	run, col, err := read(r, file, opts, true)
	if err != nil {
		return nil, err
	}
	seen := map[uint64]bool{}
	var keys []uint64
	keep := func(k uint64) {
		if k != 0 && !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	for _, rc := range col.recs {
		keep(rc.key)
	}
	agent := cmp.Or(col.agent, run.Dialect)
	for _, k := range col.calls {
		if k.hasID {
			keep(callKey(agent, k.id))
		}
	}
	return keys, nil
}

// Counted tells the report that the responses and tool calls of these
// keys (UsageKeys) are counted in a run of another report that comes
// before the runs this one takes: a run added after this leaves them out,
// as a single report leaves out a response it has counted already.
func (rp *Report) Counted(keys ...uint64) {
	for _, k := range keys {
		rp.seen.add(k)
	}
}

// Merge adds the runs of another report, made with the same dimensions,
// time zone, start of week, block length and range, to rp. Neither may be
// finished (Rows, Total or Finish called). o is left as it was, but for
// the held entries it hands on, which rp now shares.
func (rp *Report) Merge(o *Report) error {
	if err := rp.sameShape(o); err != nil {
		return err
	}
	if rp.done || o.done {
		return errors.New("stats: merging a finished report")
	}
	rp.Runs += o.Runs
	rp.Outside += o.Outside
	// The models o looked up, looked up here: what Priced says, and the
	// note of a model the table lacks, once.
	names := make([]string, 0, len(o.price))
	for m := range o.price {
		names = append(names, m)
	}
	slices.Sort(names)
	for _, m := range names {
		rp.lookup(m)
	}
	for id, r := range o.rows {
		mine, ok := rp.rows[id]
		if !ok {
			mine = &Row{Keys: slices.Clone(r.Keys)}
			rp.rows[id] = mine
		}
		mine.merge(r)
	}
	rp.total.merge(&o.total)
	rp.pending = append(rp.pending, o.pending...)
	return nil
}

// sameShape reports whether two reports group alike.
func (rp *Report) sameShape(o *Report) error {
	a, b := rp.opts, o.opts
	switch {
	case !slices.Equal(a.By, b.By):
		return fmt.Errorf("stats: merging a report by %v into one by %v", b.By, a.By)
	case a.Location.String() != b.Location.String():
		return fmt.Errorf("stats: merging a report in %s into one in %s", b.Location, a.Location)
	case a.StartOfWeek != b.StartOfWeek, a.BlockLength != b.BlockLength, !a.Since.Equal(b.Since), !a.Until.Equal(b.Until):
		return errors.New("stats: merging reports of other weeks, blocks or ranges")
	}
	return nil
}

// merge adds another row's sums to r.
func (r *Row) merge(o *Row) {
	for i, m := range o.Models {
		j := slices.Index(r.Models, m)
		if j < 0 {
			r.Models = append(r.Models, m)
			r.ranks = append(r.ranks, o.ranks[i])
		} else if o.ranks[i].compare(r.ranks[j]) < 0 {
			r.ranks[j] = o.ranks[i]
		}
	}
	for _, m := range o.Unpriced {
		if !slices.Contains(r.Unpriced, m) {
			r.Unpriced = append(r.Unpriced, m)
		}
	}
	r.Entries += o.Entries
	r.Calls = satAdd(r.Calls, o.Calls, nil)
	r.Failed = satAdd(r.Failed, o.Failed, nil)
	for i := range tokens {
		if o.set[i] {
			r.set[i] = true
			r.tok[i] = satAdd(r.tok[i], o.tok[i], &r.sat[i])
		}
		r.sat[i] = r.sat[i] || o.sat[i]
	}
	r.stated.add(&o.stated)
	r.priced.add(&o.priced)
	r.nStated += o.nStated
	r.nPriced += o.nPriced
	r.nUnkn += o.nUnkn
}

// sortModels puts a row's models in the order they first appear.
func (r *Row) sortModels() {
	if len(r.ranks) != len(r.Models) {
		return
	}
	idx := make([]int, len(r.Models))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return r.ranks[a].compare(r.ranks[b]) })
	models, ranks := make([]string, len(idx)), make([]rank, len(idx))
	for i, j := range idx {
		models[i], ranks[i] = r.Models[j], r.ranks[j]
	}
	r.Models, r.ranks = models, ranks
}

// The binary form of a report: JSON, whose integers encoding/json keeps
// exact in uint64 fields, with costs as a decimal's coefficient and
// scale, so that a merged report prints its sums as a single report
// prints them (the scale is part of what is printed).
type wireReport struct {
	Version     int           `json:"v"`
	By          []Dim         `json:"by"`
	Location    string        `json:"location"`
	StartOfWeek time.Weekday  `json:"start_of_week"`
	BlockLength time.Duration `json:"block_length"`
	Since       time.Time     `json:"since"`
	Until       time.Time     `json:"until"`
	Order       string        `json:"order"`
	Seq         uint64        `json:"seq"`
	Runs        uint64        `json:"runs"`
	Outside     uint64        `json:"outside"`
	Looked      []string      `json:"looked_up,omitempty"`
	Rows        []wireRow     `json:"rows"`
	Total       wireRow       `json:"total"`
	RunInfos    [][4]string   `json:"run_infos,omitempty"`
	Pending     []wireEntry   `json:"pending,omitempty"`
}

type wireRow struct {
	Keys     []string   `json:"keys,omitempty"`
	Models   []string   `json:"models,omitempty"`
	Ranks    []wireRank `json:"ranks,omitempty"`
	Unpriced []string   `json:"unpriced,omitempty"`
	Entries  uint64     `json:"entries,omitempty"`
	Calls    uint64     `json:"calls,omitempty"`
	Failed   uint64     `json:"failed,omitempty"`
	Tok      []uint64   `json:"tok"`
	Set      []bool     `json:"set"`
	Sat      []bool     `json:"sat"`
	Stated   wireDec    `json:"stated"`
	Priced   wireDec    `json:"priced"`
	N        [3]int     `json:"n"` // stated, priced, unknown
}

type wireRank struct {
	Order string `json:"o,omitempty"`
	Seq   uint64 `json:"s"`
}

type wireDec struct {
	Coef  string `json:"c"`
	Scale int    `json:"s"`
}

type wireEntry struct {
	When     time.Time `json:"when"`
	HasTime  bool      `json:"has_time,omitempty"`
	Model    string    `json:"model,omitempty"`
	Run      int       `json:"run"`
	Call     bool      `json:"call,omitempty"`
	Tool     string    `json:"tool,omitempty"`
	Failed   bool      `json:"failed,omitempty"`
	Tools    []string  `json:"tools,omitempty"`
	Tok      []uint64  `json:"tok"`
	Set      []bool    `json:"set"`
	Rank     wireRank  `json:"rank"`
	Cost     wireDec   `json:"cost"`
	Source   string    `json:"source,omitempty"`
	Unpriced string    `json:"unpriced,omitempty"`
	Outside  bool      `json:"outside,omitempty"`
}

const wireVersion = 1

func decWire(d *decimal) wireDec { return wireDec{Coef: d.coef.String(), Scale: d.scale} }

func (w wireDec) decimal() (decimal, error) {
	var d decimal
	if w.Coef == "" {
		return d, nil
	}
	if _, ok := d.coef.SetString(w.Coef, 10); !ok {
		return d, fmt.Errorf("stats: a report's cost %q is not an integer", w.Coef)
	}
	if w.Scale > maxExponent || w.Scale < -maxExponent {
		return d, fmt.Errorf("stats: a report's cost scale %d is beyond ±%d", w.Scale, maxExponent)
	}
	d.scale = w.Scale
	return d, nil
}

func rowWire(r *Row) wireRow {
	w := wireRow{Keys: r.Keys, Models: r.Models, Unpriced: r.Unpriced, Entries: r.Entries, Calls: r.Calls, Failed: r.Failed,
		Tok: r.tok[:], Set: r.set[:], Sat: r.sat[:], Stated: decWire(&r.stated), Priced: decWire(&r.priced),
		N: [3]int{r.nStated, r.nPriced, r.nUnkn}}
	for _, k := range r.ranks {
		w.Ranks = append(w.Ranks, wireRank{Order: k.order, Seq: k.seq})
	}
	return w
}

func (w *wireRow) row() (*Row, error) {
	if len(w.Tok) != len(tokens) || len(w.Set) != len(tokens) || len(w.Sat) != len(tokens) || len(w.Ranks) != len(w.Models) {
		return nil, errors.New("stats: a report's row has the wrong number of counts")
	}
	r := &Row{Keys: w.Keys, Models: w.Models, Unpriced: w.Unpriced, Entries: w.Entries, Calls: w.Calls, Failed: w.Failed,
		nStated: w.N[0], nPriced: w.N[1], nUnkn: w.N[2]}
	copy(r.tok[:], w.Tok)
	copy(r.set[:], w.Set)
	copy(r.sat[:], w.Sat)
	for _, k := range w.Ranks {
		r.ranks = append(r.ranks, rank{order: k.Order, seq: k.Seq})
	}
	var err error
	if r.stated, err = w.Stated.decimal(); err != nil {
		return nil, err
	}
	if r.priced, err = w.Priced.decimal(); err != nil {
		return nil, err
	}
	return r, nil
}

// MarshalBinary encodes the report's runs so far (it must not be
// finished), for a report on another worker to merge (UnmarshalBinary,
// then Merge). The prices and the Unpriced function are not encoded: what
// was priced is, with the names of the models looked up. Nor are the keys
// of the responses counted: a report read back is one to merge and
// finish, not one to add more runs to.
func (rp *Report) MarshalBinary() ([]byte, error) {
	if rp.done {
		return nil, errors.New("stats: encoding a finished report")
	}
	o := rp.opts
	w := wireReport{Version: wireVersion, By: o.By, Location: o.Location.String(), StartOfWeek: o.StartOfWeek,
		BlockLength: o.BlockLength, Since: o.Since, Until: o.Until, Order: o.Order, Seq: rp.seq,
		Runs: rp.Runs, Outside: rp.Outside, Rows: make([]wireRow, 0, len(rp.rows)), Total: rowWire(&rp.total)}
	for m := range rp.price {
		w.Looked = append(w.Looked, m)
	}
	slices.Sort(w.Looked)
	ids := make([]string, 0, len(rp.rows))
	for id := range rp.rows {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		w.Rows = append(w.Rows, rowWire(rp.rows[id]))
	}
	infos := map[*runInfo]int{}
	for i := range rp.pending {
		e := &rp.pending[i]
		n, ok := infos[e.run]
		if !ok {
			n = len(w.RunInfos)
			infos[e.run] = n
			w.RunInfos = append(w.RunInfos, [4]string{e.run.file, e.run.session, e.run.project, e.run.agent})
		}
		w.Pending = append(w.Pending, wireEntry{When: e.when, HasTime: e.hasTime, Model: e.model, Run: n, Call: e.call,
			Tool: e.tool, Failed: e.failed, Tools: e.tools, Tok: e.tok[:], Set: e.set[:], Rank: wireRank{Order: e.rank.order, Seq: e.rank.seq},
			Cost: decWire(&e.priced.cost), Source: e.priced.source, Unpriced: e.priced.unpriced, Outside: e.outside})
	}
	return json.Marshal(w)
}

// UnmarshalBinary sets rp to the report MarshalBinary encoded: its
// dimensions, time zone, weeks, blocks, range and sums. rp keeps its own
// Prices and Unpriced (a report made by NewReport), or has none (the zero
// Report): enough to merge into, or to merge into another.
func (rp *Report) UnmarshalBinary(data []byte) error {
	var w wireReport
	if err := json.Unmarshal(data, &w); err != nil {
		return fmt.Errorf("stats: decoding a report: %w", err)
	}
	if w.Version != wireVersion {
		return fmt.Errorf("stats: a report encoded in version %d; this is version %d", w.Version, wireVersion)
	}
	loc, err := time.LoadLocation(w.Location)
	if err != nil {
		return fmt.Errorf("stats: a report's time zone: %w", err)
	}
	opts := ReportOptions{By: w.By, Since: w.Since, Until: w.Until, Location: loc, StartOfWeek: w.StartOfWeek,
		BlockLength: w.BlockLength, Prices: rp.opts.Prices, Unpriced: rp.opts.Unpriced, Order: w.Order}
	n := NewReport(opts)
	n.seq, n.Runs, n.Outside = w.Seq, w.Runs, w.Outside
	for _, m := range w.Looked {
		n.lookup(m)
	}
	for i := range w.Rows {
		r, err := w.Rows[i].row()
		if err != nil {
			return err
		}
		if len(r.Keys) != len(w.By) {
			return errors.New("stats: a report's row has the wrong number of keys")
		}
		n.rows[rowID(r.Keys)] = r
	}
	t, err := w.Total.row()
	if err != nil {
		return err
	}
	n.total = *t
	infos := make([]*runInfo, len(w.RunInfos))
	for i, ri := range w.RunInfos {
		infos[i] = &runInfo{file: ri[0], session: ri[1], project: ri[2], agent: ri[3]}
	}
	for _, we := range w.Pending {
		if we.Run < 0 || we.Run >= len(infos) || len(we.Tok) != len(tokens) || len(we.Set) != len(tokens) {
			return errors.New("stats: a report's held entry is malformed")
		}
		e := entry{when: we.When, hasTime: we.HasTime, model: we.Model, run: infos[we.Run], call: we.Call, tool: we.Tool,
			failed: we.Failed, tools: we.Tools, rank: rank{order: we.Rank.Order, seq: we.Rank.Seq}, outside: we.Outside}
		copy(e.tok[:], we.Tok)
		copy(e.set[:], we.Set)
		if e.priced.cost, err = we.Cost.decimal(); err != nil {
			return err
		}
		e.priced.source, e.priced.unpriced = we.Source, we.Unpriced
		n.pending = append(n.pending, e)
	}
	*rp = *n
	return nil
}

// rowID is the key of a row's group in Report.rows.
func rowID(keys []string) string { return strings.Join(keys, "\x00") }
