package stats

import (
	"math"
	"slices"
	"strings"
	"time"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/idset"
	"github.com/tidwall/gjson"
)

// # Usage by time, model and the rest: attribution
//
// A Run says what a stream used in all. A Report (report.go) splits usage
// by day, model, session and the rest, so each figure must be tied to one
// moment and one model: the collector below keeps every usage-bearing
// event of a run (session_finished, turn_finished, round_finished and
// usage events) with its time, model, turn and agent, and when the stream
// ends attributes the run's figures to them.
//
// Levels. The per-run rule takes, for the whole run, the most aggregated
// level stated. For a report the finest level must carry the figures (a
// session_finished has one time; the rounds inside it have theirs), yet
// the sum must stay what the most aggregated level states, since that is
// the producer's own total and may include what no finer event states
// (Claude Code's modelUsage counts subagents on other models; a stream
// cut short has rounds no turn_finished sums). So, count by count (each
// token count and the cost on its own):
//
//  1. L is the most aggregated level that states the count: session,
//     else turns, else rounds (round_finished where any states usage,
//     else usage events, as the per-run rule has it).
//  2. When L is rounds, each round carries its own figure.
//  3. When L is turns, each turn_finished stating the count is matched
//     with the rounds of its turn (same turn_id). If they add up to no
//     more than the turn's figure, each round keeps its own and the
//     difference, if any, is the turn's own remainder, at the
//     turn_finished's time and model. If they add up to more, the rounds
//     contradict the turn: the turn's figure alone counts, at its event.
//     Rounds of turns that state no figure are left out, as the per-run
//     rule leaves them out.
//  4. When L is session, the same again one level up: what the turns
//     (as in 3) and the rounds outside any turn stating the count add up
//     to is compared with the session's figure; the difference is the
//     session's remainder, at session_finished, or the session's figure
//     alone counts when they say more.
//
// So a report's totals are, count by count, the per-run figures; a count
// the per-run rule leaves out because the level it takes does not state
// it (a session that states tokens but no cost, while its turns state
// their cost) is, in a report, taken from the level that states it.
//
// Time. Each record has the time of its event; an event without one has
// the time of the last event before it that had one (in stream order),
// and events before the first time the run states have that first time.
// A run that states no time at all has none: its figures go to the row
// "—" of a time grouping, and a --since or --until range leaves them out.
//
// Model. The model in force for the event's agent: the residue's "model"
// of the usage-bearing event itself (an API response names its model),
// else the last model_configured of that agent (agent_id), else the last
// one of the main agent, else session_started's model.
//
// Duplicates. A round whose residue names its API response (message_id
// and requestId, or message_id and the round's time where no requestId is
// written, as Claude Code's transcripts do) is counted once in a report: a resumed
// session's file repeats the responses it continues, and ccusage, too,
// counts each response once over all files. The copy read second is
// taken out of its run, and out of the turn and session figures that
// include it, before the attribution above. A tool call is counted once
// by its agent and call id for the same reason (the producers' call ids
// are unique: toolu_…, call_…).

// responseKey is what names a round's API response in its residue x: the
// message id and the requestId, as ccusage keys a response; without a
// requestId (a gateway writes none, and may give every response one
// message id: ccusage #1635) the message id and the round's time, which
// a resumed session's copy keeps (ccusage #1661).
func responseKey(x event.ExtEntry, id, time string) uint64 {
	k := x.Dialect + "\x00" + id + "\x00"
	if req := gjson.GetBytes(x.Raw, "requestId"); req.Type == gjson.String && req.Str != "" {
		k += "request\x00" + req.Str
	} else {
		k += "time\x00" + time
	}
	return idset.Digest(k)
}

// nvals is the number of values a record carries: the token counts and
// the cost (at costIdx).
const (
	nvals   = len(tokens) + 1
	costIdx = len(tokens)
)

// rec is one usage-bearing event of a run.
//
// A run keeps one for each response until it ends (a transcript of 700
// MB has 160,000), so its fields are packed: the time parsed (no string
// of its own), small integers and flags side by side.
type rec struct {
	*recCtx // its turn, agent and model, shared
	stamp   // the event's time
	tok     [len(tokens)]uint64
	cost    *decimal // when set[costIdx] (or attributed one); nil for none
	c1h     uint64   // of the cache write, the 1-hour part its residue states
	key     uint64   // digest of the API response it counts; 0: none
	calls   []*callRec
	idx     int32 // position among the run's records
	set     [nvals]bool
	level   uint8
	dropped bool
	part    bool // one model's part of a session's usage (split.go)

	// Once attributed, tok and cost hold the record's share of the run's
	// figures (token counts as a report reads them, saturated), and aset
	// says which of them it carries: each count is attributed on its own,
	// reading the records' own values of that count before it writes
	// their shares. Kept in the record rather than in maps of decimals
	// beside it: a run of 160,000 responses took 60 MB more at its end.
	aset [nvals]bool
	attr bool // in attribution.order
}

// val returns a record's value of count c as a decimal.
func (r *rec) val(c int) decimal {
	if c == costIdx {
		var d decimal
		if r.cost != nil {
			d.set(r.cost)
		}
		return d
	}
	return uintDecimal(r.tok[c])
}

// callRec is one tool call of a run. A run keeps one for each call until
// it ends (a transcript of 700 MB has 58,000), so it is small: what it
// shares with other calls is one interned callKind, its id a digest.
type callRec struct {
	*callKind
	id    uint64 // idset.Digest of the call id, when hasID
	stamp        // the call's time
	hasID bool
}

// recCtx is what records have in common: a turn, an agent and a model.
type recCtx struct {
	turn, agentID, model string
}

// callKind is what calls have in common: a tool, a model, an agent and
// a status. A call's name and status change as its events come; it then
// takes another kind (collector.kind).
type callKind struct {
	name, model, agentID string
	status               event.ToolStatus
}

// collector gathers a run's records while the stream is read.
type collector struct {
	firstTime, lastTime string
	models              map[string]string // agent id → its model in force
	session, workspace  string
	agent               string
	recs                []*rec
	calls               []*callRec
	open                map[string]*callRec
	pendingRounds       map[string][]*callRec // calls since the agent's last round_finished
	pendingUsage        map[string][]*callRec // calls since the agent's last usage event
	roundsStated        bool                  // a round_finished states usage
	strs                map[string]string     // one copy of each name kept (intern)
	kinds               map[callKind]*callKind
	ctxs                map[recCtx]*recCtx
}

func newCollector() *collector {
	return &collector{models: map[string]string{}, open: map[string]*callRec{}, strs: map[string]string{}, kinds: map[callKind]*callKind{}, ctxs: map[recCtx]*recCtx{},
		pendingRounds: map[string][]*callRec{}, pendingUsage: map[string][]*callRec{}}
}

// add takes one event, in stream order.
func (c *collector) add(ev *event.Event) {
	t := ev.Time
	if t != "" {
		if c.firstTime == "" {
			c.firstTime = strings.Clone(t) // kept: not a slice of the line
		}
		c.lastTime = t
	} else {
		t = c.lastTime
	}
	switch b := ev.Body.(type) {
	case *event.SessionStarted:
		if c.session == "" && c.workspace == "" {
			c.session, c.workspace = c.intern(b.SessionID), c.intern(b.Workspace)
			if b.Agent != nil && b.Agent.Name != "" {
				c.agent = c.intern(b.Agent.Name)
			} else if d, err := dialect.Lookup(b.Source.Dialect); err == nil {
				c.agent = dialect.AgentOf(d) // the agent that writes the dialect
			} else {
				c.agent = c.intern(b.Source.Dialect)
			}
		}
		if b.Model != "" {
			c.models[c.intern(ev.AgentID)] = c.intern(b.Model)
		}
	case *event.ModelConfigured:
		if b.Model != "" {
			c.models[c.intern(ev.AgentID)] = c.intern(b.Model)
		}
	case *event.SessionFinished:
		c.record(ev, atSession, t, b.Usage, nil)
	case *event.TurnFinished:
		c.record(ev, atTurns, t, b.Usage, nil)
	case *event.RoundFinished:
		calls := c.pendingRounds[ev.AgentID]
		delete(c.pendingRounds, ev.AgentID)
		if r := c.record(ev, atRounds, t, b.Usage, calls); r != nil {
			c.roundsStated = true
		}
	case *event.Usage:
		calls := c.pendingUsage[ev.AgentID]
		delete(c.pendingUsage, ev.AgentID)
		c.record(ev, atUsageEvents, t, b, calls)
	case *event.ToolCall:
		if k, ok := c.open[b.CallID]; ok {
			if k.name == "" {
				c.rename(k, b.Name)
			}
			return
		}
		c.call(ev, b.CallID, b.Name, t)
	case *event.ToolStarted:
		c.touch(ev, b.CallID, b.Name, t)
	case *event.ToolProgress:
		c.touch(ev, b.CallID, b.Name, t)
	case *event.ToolOutput:
		c.touch(ev, b.CallID, b.Name, t)
	case *event.ToolFinished:
		k, ok := c.open[b.CallID]
		if ok {
			delete(c.open, b.CallID)
		} else {
			k = c.call(ev, b.CallID, b.Name, t)
			delete(c.open, b.CallID)
		}
		kind := *k.callKind
		if kind.name == "" {
			kind.name = c.intern(b.Name)
		}
		kind.status = b.Status
		k.callKind = c.kind(kind)
	}
}

// touch makes a call known that an event names before any tool_call did.
func (c *collector) touch(ev *event.Event, id, name, t string) {
	if k, ok := c.open[id]; ok {
		if k.name == "" {
			c.rename(k, name)
		}
		return
	}
	c.call(ev, id, name, t)
}

func (c *collector) call(ev *event.Event, id, name, t string) *callRec {
	k := &callRec{callKind: c.kind(callKind{name: c.intern(name), model: c.intern(c.modelOf(ev)), agentID: c.intern(ev.AgentID)})}
	if id != "" {
		k.id, k.hasID = idset.Digest(id), true
	}
	k.setTime(t)
	c.calls = append(c.calls, k)
	c.open[strings.Clone(id)] = k // the id may be cut from a line
	c.pendingRounds[k.agentID] = append(c.pendingRounds[k.agentID], k)
	c.pendingUsage[k.agentID] = append(c.pendingUsage[k.agentID], k)
	return k
}

// ctx returns the run's one copy of x, its strings interned.
func (c *collector) ctx(x recCtx) *recCtx {
	x = recCtx{turn: c.intern(x.turn), agentID: c.intern(x.agentID), model: c.intern(x.model)}
	if p, ok := c.ctxs[x]; ok {
		return p
	}
	p := &x
	c.ctxs[x] = p
	return p
}

// kind returns the run's one copy of k.
func (c *collector) kind(k callKind) *callKind {
	if p, ok := c.kinds[k]; ok {
		return p
	}
	p := &k
	c.kinds[k] = p
	return p
}

// rename gives a call its tool's name, which an earlier event lacked.
func (c *collector) rename(k *callRec, name string) {
	kind := *k.callKind
	kind.name = c.intern(name)
	k.callKind = c.kind(kind)
}

// intern returns s, one copy of it for the run. The records outlive the
// lines their strings come from, and a decoder's string may be a slice of
// its line (gjson's are): a model's name kept as it came would keep the
// whole line, 500 KB of a chat's answer for the 20 bytes of its model.
func (c *collector) intern(s string) string {
	if s == "" {
		return ""
	}
	if k, ok := c.strs[s]; ok {
		return k
	}
	k := strings.Clone(s)
	c.strs[k] = k
	return k
}

// modelOf is the model in force for an event (see the top of this file).
func (c *collector) modelOf(ev *event.Event) string {
	for _, x := range ev.Ext {
		if m := gjson.GetBytes(x.Raw, ResidueModel); m.Type == gjson.String && m.Str != "" {
			return m.Str
		}
	}
	if m, ok := c.models[ev.AgentID]; ok {
		return m
	}
	return c.models[""]
}

// record keeps a usage-bearing event; nil when its usage states nothing.
func (c *collector) record(ev *event.Event, level int, t string, u *event.Usage, calls []*callRec) *rec {
	if u == nil {
		return nil
	}
	r := &rec{level: uint8(level), recCtx: c.ctx(recCtx{turn: ev.TurnID, agentID: ev.AgentID, model: c.modelOf(ev)}), calls: calls}
	r.setTime(t)
	stated := false
	for i, tk := range tokens {
		if p := tk.get(u); p != nil {
			r.tok[i], r.set[i], stated = *p, true, true
		}
	}
	if u.CostUSD != "" {
		if d, err := parseDecimal(string(u.CostUSD)); err == nil {
			r.cost, r.set[costIdx], stated = &d, true, true
		}
	}
	if !stated {
		return nil
	}
	for _, x := range ev.Ext {
		if level == atRounds || level == atUsageEvents {
			if id := gjson.GetBytes(x.Raw, ResidueMessageID); id.Type == gjson.String && id.Str != "" {
				r.key = responseKey(x, id.Str, ev.Time)
			}
		}
		// Anthropic's usage splits the cache write by lifetime; the
		// canonical count is their sum, the split rides in the residue.
		for _, p := range ResidueCacheWrite1h {
			if v := gjson.GetBytes(x.Raw, p); v.Type == gjson.Number {
				if n := v.Uint(); n <= r.tok[tokenIndex(CacheWrite)] {
					r.c1h = n
				}
				break
			}
		}
	}
	r.idx = int32(len(c.recs))
	c.recs = append(c.recs, r)
	if level == atSession {
		if parts := modelSplit(ev); parts != nil {
			c.splitByModel(r, parts)
		}
	}
	return r
}

// piece is a value of one count attributed to a record: its own, or a
// remainder a coarser record carries.
type piece struct {
	r *rec
	c int
	v decimal
}

// attribution is what a run's records carry once attributed.
type attribution struct {
	order   []*rec          // the records that carry a share (rec.aset)
	covered func(*rec) bool // whether the record's tokens are inside a stated cost
}

// dedupe takes out of the run the rounds whose API response seen already
// counted (in an earlier run of the report, or earlier in this one), and
// their figures out of the turn and session records that include them.
func (c *collector) dedupe(seen *keySet) {
	// The records a dropped round's figures come out of: the session's,
	// and its turn's. Indexed once, so that a resumed file that repeats
	// thousands of responses costs a lookup each, not a pass over the run.
	var sessionRecs []*rec
	var turnRecs map[string][]*rec
	indexed := false
	for _, r := range c.recs {
		if r.key == 0 {
			continue
		}
		if seen.add(r.key) {
			continue
		}
		r.dropped = true
		if !indexed {
			indexed = true
			turnRecs = map[string][]*rec{}
			for _, o := range c.recs {
				switch o.level {
				case atSession:
					sessionRecs = append(sessionRecs, o)
				case atTurns:
					turnRecs[o.turn] = append(turnRecs[o.turn], o)
				}
			}
		}
		for _, o := range sessionRecs {
			o.takeOut(r)
		}
		for _, o := range turnRecs[r.turn] {
			o.takeOut(r)
		}
	}
}

// takeOut subtracts a dropped round's figures from a record that includes
// them, none going below zero.
func (o *rec) takeOut(r *rec) {
	if o.dropped {
		return
	}
	for i := range tokens {
		if r.set[i] && o.set[i] {
			o.tok[i] -= min(o.tok[i], r.tok[i])
		}
	}
	if r.set[costIdx] && o.set[costIdx] {
		o.cost.sub(r.cost)
		if o.cost.sign() < 0 {
			*o.cost = decimal{}
		}
	}
}

// attribute spreads the run's figures over its records (see the top of
// this file).
func (c *collector) attribute() *attribution {
	a := &attribution{}
	fine := atUsageEvents
	if c.roundsStated {
		fine = atRounds
	}
	var costLevel = -1
	var costTurns map[string]bool
	for ci := range nvals {
		var byLevel [4][]*rec
		for _, r := range c.recs {
			if !r.dropped && r.set[ci] {
				byLevel[r.level] = append(byLevel[r.level], r)
			}
		}
		var pieces []piece
		own := func(rs []*rec) {
			for _, r := range rs {
				pieces = append(pieces, piece{r, ci, r.val(ci)})
			}
		}
		// turnPieces matches the turns' figures with their rounds (3.);
		// it returns the pieces and the rounds outside any stating turn.
		turnPieces := func() ([]piece, []*rec) {
			stating := map[string][]*rec{}
			for _, t := range byLevel[atTurns] {
				stating[t.turn] = append(stating[t.turn], t)
			}
			inTurn := map[string][]*rec{}
			var outside []*rec
			for _, r := range byLevel[fine] {
				if _, ok := stating[r.turn]; ok {
					inTurn[r.turn] = append(inTurn[r.turn], r)
				} else {
					outside = append(outside, r)
				}
			}
			var out []piece
			for _, t := range byLevel[atTurns] {
				ts := stating[t.turn]
				if ts[len(ts)-1] != t {
					continue // one turn, stated twice: handled at its last
				}
				var want decimal
				for _, x := range ts {
					v := x.val(ci)
					want.add(&v)
				}
				out = append(out, reconcile(ci, inTurn[t.turn], want, t)...)
			}
			return out, outside
		}
		level := -1
		switch {
		case len(byLevel[atSession]) > 0:
			level = atSession
			var sub []piece
			var outside []*rec
			if len(byLevel[atTurns]) > 0 {
				sub, outside = turnPieces()
			} else {
				outside = byLevel[fine]
			}
			for _, r := range outside {
				sub = append(sub, piece{r, ci, r.val(ci)})
			}
			if len(sub) == 0 {
				// Nothing finer: each session record carries its own
				// figure, at its own time and model (several processes of
				// one stream, a session's usage split by model), rather
				// than the sum at the last. As a remainder, a figure of 0
				// (a resumed copy whose responses were all counted
				// already) carries nothing; a model's part of a split is
				// the figure the session states for it, 0 included.
				for _, r := range byLevel[atSession] {
					if v := r.val(ci); v.sign() > 0 || r.part {
						pieces = append(pieces, piece{r, ci, v})
					}
				}
				break
			}
			var want decimal
			for _, s := range byLevel[atSession] {
				v := s.val(ci)
				want.add(&v)
			}
			last := byLevel[atSession][len(byLevel[atSession])-1]
			pieces = reconcilePieces(sub, want, last, ci)
		case len(byLevel[atTurns]) > 0:
			level = atTurns
			pieces, _ = turnPieces()
		case len(byLevel[fine]) > 0:
			level = fine
			own(byLevel[fine])
		}
		if ci == costIdx && level >= 0 {
			costLevel = level
			if level == atTurns {
				costTurns = map[string]bool{}
				for _, t := range byLevel[atTurns] {
					costTurns[t.turn] = true
				}
			}
		}
		for _, p := range pieces {
			r := p.r
			if !r.attr {
				r.attr = true
				a.order = append(a.order, r)
			}
			if p.c == costIdx {
				if r.cost == nil {
					r.cost = new(decimal)
				}
				r.cost.set(&p.v)
			} else {
				r.tok[p.c] = p.v.uint64()
			}
			r.aset[p.c] = true
		}
	}
	a.covered = func(r *rec) bool {
		switch costLevel {
		case atSession:
			return true
		case atTurns:
			return costTurns[r.turn]
		case -1:
			return false
		}
		return r.aset[costIdx]
	}
	// Records in stream order, so that a report lists the same run the same
	// way every time.
	slices.SortFunc(a.order, func(x, y *rec) int { return int(x.idx - y.idx) })
	return a
}

// maxCount is the most a token count holds: a sum that stops there.
var maxCount = uintDecimal(math.MaxUint64)

// reconcile matches the rounds inside a coarser record with its figure
// want: the rounds' own values and the remainder at the coarse record,
// or the coarse figure alone when the rounds say more.
func reconcile(ci int, rounds []*rec, want decimal, coarse *rec) []piece {
	ps := make([]piece, 0, len(rounds)+1)
	for _, r := range rounds {
		ps = append(ps, piece{r, ci, r.val(ci)})
	}
	return reconcilePieces(ps, want, coarse, ci)
}

func reconcilePieces(ps []piece, want decimal, coarse *rec, ci int) []piece {
	if ci != costIdx && want.cmp(&maxCount) >= 0 {
		// The coarse count is capped at 2^64-1 (a producer's sum that
		// stops there, as the transcript decoder's does): it says only
		// that the rounds used at least that much, so the rounds' own
		// figures stand, each at its time, model and price.
		return ps
	}
	var got decimal
	for i := range ps {
		got.add(&ps[i].v)
	}
	if got.cmp(&want) > 0 {
		return []piece{{coarse, ci, want}}
	}
	var rest decimal
	rest.set(&want)
	rest.sub(&got)
	if rest.sign() > 0 {
		ps = append(ps, piece{coarse, ci, rest})
	}
	return ps
}

// parseTime reads an event's time; ok is false for none.
// stamp is a record's time, parsed as it is kept: a string of its own
// for each of a run's records took 32 bytes more.
type stamp struct {
	sec    int64 // when timeOf is timeParsed: the instant, as time.Unix takes it
	nsec   int32
	timeOf uint8 // timeNone, timeParsed or timeBad
}

// What a stamp knows of its time.
const (
	timeNone   = iota // the event had none, nor any event before it
	timeParsed        // in when
	timeBad           // a time that does not parse
)

// setTime keeps t, an event's time ("" for none), parsed.
func (s *stamp) setTime(t string) {
	switch w, ok := parseTime(t); {
	case ok:
		s.sec, s.nsec, s.timeOf = w.Unix(), int32(w.Nanosecond()), timeParsed
	case t != "":
		s.timeOf = timeBad
	}
}

// timeIn returns the time, the run's first (first) for a record with
// none, as a report groups it.
func (s *stamp) timeIn(first string) (time.Time, bool) {
	switch s.timeOf {
	case timeParsed:
		// Canonical times are UTC (package event writes them so).
		return time.Unix(s.sec, int64(s.nsec)).UTC(), true
	case timeBad:
		return time.Time{}, false
	}
	return parseTime(first)
}

func parseTime(s string) (time.Time, bool) {
	if s == "" {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	return t, err == nil
}
