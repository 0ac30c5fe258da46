package view

import (
	"errors"
	"io"
	"strconv"

	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/stats"
	"github.com/evtool/evtool/stream"
)

// Options configure Read.
type Options struct {
	// Stream configures the reading (the dialect, workers, line limit).
	Stream stream.Options
	// LineError, when set, is called with each line that has problems;
	// the reading goes on after it.
	LineError func(*stream.LineError)
	// Limits bound what the page keeps; zero fields take DefaultLimits'.
	Limits Limits
}

// Run is one stream read for its page: the figures evtool stats gives for
// it, what the page's header names, and the page's content.
type Run struct {
	// Stats are the stream's figures, counted by stats.Counter from the
	// same events the page shows: the page's turns, tool calls, tokens
	// and cost are evtool stats'.
	Stats *stats.Run
	// Agent and AgentVersion name the producing program, Provider the
	// model's provider, as the first session_started states them.
	Agent, AgentVersion, Provider string
	// Err is the error that ended the reading early (as Stats.Err).
	Err error

	m *model
}

// Complete reports whether the page shows the whole run: no item was left
// out for Limits.Items. (Texts may still be cut; the page says where.)
func (r *Run) Complete() bool { return r.m == nil || r.m.dropped == 0 }

// maxLineErrors is how many lines with problems the page quotes.
const maxLineErrors = 20

// Read reads a stream once, through package stream's Reader, and returns
// its Run: stats.Counter counts every event as evtool stats does, and the
// page's model takes the same events. A line with problems is counted in
// Stats.BadLines, quoted on the page and passed to opts.LineError; what
// could be read of it still counts. An error that ends the reading (the
// dialect cannot be told, a read fails) is returned and kept in Run.Err,
// beside the figures and the page of the lines before it.
func Read(r io.Reader, file string, opts Options) (*Run, error) {
	rd := stream.NewReader(r, file, opts.Stream)
	defer rd.Close()
	c := stats.NewCounter()
	m := newModel(opts.Limits.orDefault())
	var bad uint64
	var torn int
	var err error
	for {
		var ev *event.Event
		ev, err = rd.Next()
		if err == io.EOF {
			err = nil
			break
		}
		var le *stream.LineError
		if errors.As(err, &le) {
			if le.Torn {
				torn = le.Line // quoted, not counted: as stats.Read takes it
			} else {
				bad++
			}
			if len(m.lineErrors) < maxLineErrors {
				m.lineErrors = append(m.lineErrors, le.Error())
			}
			if opts.LineError != nil {
				opts.LineError(le)
			}
			continue
		}
		if err != nil {
			break
		}
		c.Add(ev)
		m.add(ev)
	}
	if err == nil {
		err = rd.Empty() // nothing to tell a dialect from: not a run
	}
	// As stats.Read finishes its Run, so that the figures are the same.
	st := c.Run()
	st.File, st.Err = file, err
	if d := rd.Dialect(); d != nil {
		st.Dialect = d.Name()
	}
	if st.SourceDialect == st.Dialect {
		st.SourceDialect = ""
	}
	st.Lines, st.BadLines, st.Torn = uint64(rd.Lines()), bad, torn
	run := &Run{Stats: st, Err: err, m: m}
	if s := m.session; s != nil {
		if s.Agent != nil {
			run.Agent, run.AgentVersion = s.Agent.Name, s.Agent.Version
		}
		run.Provider = s.Provider
	}
	return run, err
}

// model is a run's page while the stream is read.
type model struct {
	lim     Limits
	bud     budget
	items   int // items made
	dropped int // events whose items were left out past Limits.Items
	ids     int // the last anchor number handed out

	session *event.SessionStarted // the first, its lists bounded
	pre     block                 // before the first turn
	turns   []*turn
	byID    map[string]*turn
	started int // turn_started events, as stats.Counter counts them
	ended   int // turn_finished events

	calls  map[string]*call // the latest card of each call id
	cards  []*call          // every card, in order, for the timeline
	agents map[string]*agent
	tasks  map[string]*task
	perms  []*perm // asked and not yet answered

	rounds    []span // for the timeline
	lastRound map[*turn]map[string]string
	usage     [4][]point // by stats.Levels() order
	times     int        // events that state a time

	fin        *event.SessionFinished
	finText    *text
	finReason  *text
	finErrors  []*text
	finOut     *text
	finTime    string
	lineErrors []string
	finMessage *text
	anyText    bool
}

// span is a round on the timeline: from the previous round's end (or its
// turn's start) to its round_finished.
type span struct {
	turn       *turn
	start, end string
	label      string
}

// point is one usage on the cumulative chart.
type point struct {
	time    string
	tokens  uint64
	stated  bool // a token count is stated
	cost    float64
	hasCost bool
}

func newModel(lim Limits) *model {
	return &model{
		lim: lim, bud: budget{lim: lim, left: lim.Run},
		byID: map[string]*turn{}, calls: map[string]*call{}, agents: map[string]*agent{}, tasks: map[string]*task{},
		lastRound: map[*turn]map[string]string{},
	}
}

// room reports whether one more item may be shown, and counts what is
// left out.
func (m *model) room() bool {
	if m.items >= m.lim.Items {
		m.dropped++
		return false
	}
	m.items++
	return true
}

func (m *model) keep(s string) *text {
	t := m.bud.keep(s)
	return &t
}

// add takes one event into the page: its time into its turn's span, its
// body to the method of its type.
func (m *model) add(ev *event.Event) {
	if ev.Time != "" {
		m.times++
		if t := m.turnOf(ev); t != nil {
			if t.start == "" || ev.Time < t.start {
				t.start = ev.Time
			}
			if ev.Time > t.end {
				t.end = ev.Time
			}
		}
	}
	switch b := ev.Body.(type) {
	case *event.SessionStarted:
		m.sessionStarted(ev, b)
	case *event.SessionFinished:
		m.finish(ev, b)
	case *event.TurnStarted:
		m.turnStarted(ev, b)
	case *event.TurnFinished:
		m.turnFinished(ev, b)
	case *event.RoundFinished:
		m.roundFinished(ev, b)
	case *event.Usage:
		m.point(3, ev, b)
	case *event.ModelConfigured:
		m.modelConfigured(ev, b)
	case *event.UserMessage:
		m.userMessage(ev, b)
	case *event.MessageDelta:
		m.delta(ev, msgAssistant, b.Text, b.MessageID)
	case *event.Message:
		m.assembled(ev, msgAssistant, b.Text, b.MessageID)
	case *event.ReasoningDelta:
		m.delta(ev, msgReasoning, b.Text, "")
	case *event.Reasoning:
		m.assembled(ev, msgReasoning, b.Text, "")
	case *event.ToolCall:
		m.toolCall(ev, b)
	case *event.ToolStarted:
		m.card(ev, b.CallID, b.Name, false)
	case *event.ToolProgress:
		m.toolProgress(ev, b)
	case *event.ToolOutput:
		m.toolOutput(ev, b)
	case *event.ToolFinished:
		m.toolFinished(ev, b)
	case *event.PermissionRequested:
		m.permRequested(ev, b)
	case *event.PermissionResolved:
		m.permResolved(ev, b)
	case *event.PlanUpdated:
		m.planUpdated(ev, b)
	case *event.TaskUpdated:
		m.taskUpdated(ev, b)
	default:
		m.housekeepingEvent(ev)
	}
}

// housekeepingEvent takes the events that are notes beside the
// conversation: compaction, elisions, memory, branches, notices, retries,
// errors and unknown lines.
func (m *model) housekeepingEvent(ev *event.Event) {
	switch b := ev.Body.(type) {
	case *event.CompactionStarted:
		m.note(ev, "info", "compacting the context", "", "")
	case *event.CompactionFinished:
		m.compactionFinished(ev, b)
	case *event.ContextElided:
		m.contextElided(ev, b)
	case *event.MemoryUpdated:
		s := "memory updated"
		if b.StoredRecords != nil {
			s += ": " + strconv.FormatUint(*b.StoredRecords, 10) + " records stored"
		}
		m.housekeeping(ev, "info", "memory", s, "")
	case *event.Branched:
		s := "returned to entry " + b.EntryID
		if b.AbandonedEntries != nil {
			s += ", " + strconv.FormatUint(*b.AbandonedEntries, 10) + " entries abandoned"
		}
		m.note(ev, "warn", "branched", s, "")
	case *event.Notice:
		m.notice(ev, b)
	case *event.Retry:
		m.retry(ev, b)
	case *event.Error:
		label := "error"
		if b.Recoverable != nil && *b.Recoverable {
			label = "error (recoverable)"
		}
		m.note(ev, "err", label, b.Message, "")
	case *event.Unknown:
		m.housekeeping(ev, "info", "unknown line", b.Dialect+" "+b.SourceType, string(b.Raw))
	}
}

func (m *model) sessionStarted(ev *event.Event, b *event.SessionStarted) {
	if m.session == nil {
		s := *b
		m.session = &s
		return
	}
	m.note(ev, "info", "session started again", b.SessionID, "")
}

func (m *model) modelConfigured(ev *event.Event, b *event.ModelConfigured) {
	label := "model " + b.Model
	if b.Provider != "" {
		label += " (" + b.Provider + ")"
	}
	m.housekeeping(ev, "info", "model configured", label, "")
}

// toolCall fills a call's card with what the call states and the card
// lacks: a card may have been opened by an earlier event of the call.
func (m *model) toolCall(ev *event.Event, b *event.ToolCall) {
	c := m.card(ev, b.CallID, b.Name, false)
	if c == nil {
		return
	}
	if c.name == "" {
		c.name = b.Name
	}
	if c.title == "" {
		c.title = b.Title
	}
	if c.kind == "" {
		c.kind = b.Kind
	}
	if c.mut == "" {
		c.mut = b.Mutability
	}
	if len(b.Input) > 0 && c.input == nil {
		m.input(c, b.Input)
	}
}

func (m *model) toolProgress(ev *event.Event, b *event.ToolProgress) {
	if c := m.card(ev, b.CallID, b.Name, false); c != nil {
		if c.progress == nil {
			c.progress = &text{}
		} else {
			m.bud.add(c.progress, "\n")
		}
		m.bud.add(c.progress, b.Message)
	}
}

func (m *model) toolOutput(ev *event.Event, b *event.ToolOutput) {
	if c := m.card(ev, b.CallID, b.Name, false); c != nil {
		if c.out == nil {
			c.out = &text{}
		}
		m.bud.add(c.out, b.Chunk)
	}
}

// planUpdated shows a plan's first 100 entries, each within the budget.
func (m *model) planUpdated(ev *event.Event, b *event.PlanUpdated) {
	if !m.room() {
		return
	}
	p := &plan{entries: b.Entries}
	if len(p.entries) > 100 {
		p.more = len(p.entries) - 100
		p.entries = p.entries[:100:100]
	}
	for i := range p.entries {
		e := p.entries[i]
		e.Content = m.keep(e.Content).String()
		e.ActiveForm = ""
		p.entries[i] = e
	}
	m.blockOf(ev).add(p)
}

func (m *model) compactionFinished(ev *event.Event, b *event.CompactionFinished) {
	s := "context compacted"
	if b.ReplacedItems != nil {
		s += ": " + strconv.FormatUint(*b.ReplacedItems, 10) + " items replaced"
	}
	if b.PreservedItems != nil {
		s += ", " + strconv.FormatUint(*b.PreservedItems, 10) + " kept"
	}
	more := ""
	if b.SummaryPreview != nil {
		more = *b.SummaryPreview
	}
	m.note(ev, "info", "compaction", s, more)
}

func (m *model) contextElided(ev *event.Event, b *event.ContextElided) {
	s := strconv.Itoa(len(b.Results)) + " tool results shortened in a request"
	if b.OriginalBytes != nil && b.ProjectedBytes != nil {
		s += " (" + bytesText(int64(*b.OriginalBytes)) + " → " + bytesText(int64(*b.ProjectedBytes)) + ")"
	}
	m.housekeeping(ev, "info", "context elided", s, "")
}

func (m *model) notice(ev *event.Event, b *event.Notice) {
	switch b.Severity {
	case event.SeverityWarning:
		m.note(ev, "warn", "warning", b.Message, "")
	case event.SeverityError:
		m.note(ev, "err", "error", b.Message, "")
	default:
		m.housekeeping(ev, "info", "notice", b.Message, "")
	}
}

func (m *model) retry(ev *event.Event, b *event.Retry) {
	s := "retry"
	if b.Attempt != nil {
		s += " " + strconv.FormatUint(*b.Attempt, 10)
		if b.MaxAttempts != nil {
			s += " of " + strconv.FormatUint(*b.MaxAttempts, 10)
		}
	}
	if b.NextDelayMS != nil {
		s += " in " + durText(float64(*b.NextDelayMS)/1000)
	}
	m.note(ev, "warn", s, b.Error, "")
}

// turnOf returns the turn an event belongs to: the turn its turn_id
// names, else the latest; nil before the first turn.
func (m *model) turnOf(ev *event.Event) *turn {
	if ev.TurnID != "" {
		if t := m.byID[ev.TurnID]; t != nil {
			return t
		}
	}
	if len(m.turns) > 0 {
		return m.turns[len(m.turns)-1]
	}
	return nil
}

// blockOf returns the block an event's item goes into: its subagent's,
// else its turn's, else the run's opening block.
func (m *model) blockOf(ev *event.Event) *block {
	if ev.AgentID != "" {
		return &m.agentOf(ev).b
	}
	if t := m.turnOf(ev); t != nil {
		return &t.b
	}
	return &m.pre
}

// agentOf returns the subagent of an event, placing it on first use:
// inside the tool call that ran it (Claude Code names a subagent by its
// Task call's id), else inside its task, else in its turn.
func (m *model) agentOf(ev *event.Event) *agent {
	a := m.agents[ev.AgentID]
	if a == nil {
		a = &agent{id: ev.AgentID}
		m.agents[ev.AgentID] = a
	}
	if !a.placed {
		a.placed = true
		switch c, t := m.calls[a.id], m.tasks[a.id]; {
		case c != nil && c.sub == nil:
			c.sub = a
		case t != nil && t.sub == nil:
			t.sub = a
		default:
			if tn := m.turnOf(ev); tn != nil {
				tn.b.add(a)
			} else {
				m.pre.add(a)
			}
		}
	}
	return a
}

// turnStarted opens a turn. The sections pair with turn_started and
// turn_finished events in order, as stats.Counter counts turns (the more
// of the two), so that the page shows as many turns as evtool stats.
func (m *model) turnStarted(ev *event.Event, b *event.TurnStarted) {
	var t *turn
	if m.started < len(m.turns) {
		t = m.turns[m.started] // a turn whose end came first
	} else {
		t = m.newTurn(ev)
	}
	m.started++
	if t == nil {
		return
	}
	if ev.TurnID != "" {
		t.id = ev.TurnID
		m.byID[ev.TurnID] = t
	}
	if b.Prompt != nil && t.prompt == nil {
		t.prompt = m.keep(*b.Prompt)
	}
	t.command = b.CommandID
	if ev.Time != "" && (t.start == "" || ev.Time < t.start) {
		t.start = ev.Time
	}
}

func (m *model) newTurn(ev *event.Event) *turn {
	if !m.room() {
		return nil
	}
	t := &turn{n: len(m.turns) + 1, id: ev.TurnID, start: ev.Time, end: ev.Time}
	m.turns = append(m.turns, t)
	if ev.TurnID != "" {
		m.byID[ev.TurnID] = t
	}
	return t
}

func (m *model) turnFinished(ev *event.Event, b *event.TurnFinished) {
	var t *turn
	if m.ended < len(m.turns) {
		t = m.turns[m.ended]
	} else if len(m.turns) >= m.lim.Items {
		m.dropped++
	} else {
		t = m.newTurn(ev)
	}
	m.ended++
	if t == nil {
		return
	}
	f := *b
	f.Text = nil
	t.fin, t.finished, t.finishTime = &f, true, ev.Time
	if b.Text != nil && *b.Text != "" {
		t.finText = m.keep(*b.Text)
	}
	if ev.Time != "" && ev.Time > t.end {
		t.end = ev.Time
	}
	m.point(1, ev, b.Usage)
}

func (m *model) roundFinished(ev *event.Event, b *event.RoundFinished) {
	m.point(2, ev, b.Usage)
	t := m.turnOf(ev)
	if t == nil {
		return
	}
	t.rounds++
	if ev.Time != "" {
		last := m.lastRound[t]
		if last == nil {
			last = map[string]string{}
			m.lastRound[t] = last
		}
		start := last[ev.AgentID]
		if start == "" {
			start = t.start
		}
		if start != "" && len(m.rounds) < m.lim.Items {
			label := "round " + strconv.Itoa(t.rounds) + " of turn " + strconv.Itoa(t.n)
			if ev.AgentID != "" {
				label += " (subagent)"
			}
			if b.StopReason != "" {
				label += ", " + string(b.StopReason)
			}
			m.rounds = append(m.rounds, span{turn: t, start: start, end: ev.Time, label: label})
		}
		last[ev.AgentID] = ev.Time
	}
	if !m.room() {
		return
	}
	r := &round{n: t.rounds, stop: b.StopReason, time: ev.Time}
	if b.Usage != nil {
		r.tokens, r.stated = usageTokens(b.Usage)
	}
	m.blockOf(ev).add(r)
}

// point adds a usage to the cumulative chart's series of its level.
func (m *model) point(level int, ev *event.Event, u *event.Usage) {
	if u == nil || len(m.usage[level]) >= m.lim.Items {
		return
	}
	p := point{time: ev.Time}
	p.tokens, p.stated = usageTokens(u)
	if u.CostUSD != "" {
		if f, err := strconv.ParseFloat(string(u.CostUSD), 64); err == nil {
			p.cost, p.hasCost = f, true
		}
	}
	if p.stated || p.hasCost {
		m.usage[level] = append(m.usage[level], p)
	}
}

// usageTokens is what a usage counts in all: input, output, cache read,
// cache write and thoughts, the disjoint counts (as stats.Row.AllTokens
// adds them); or the stated total when it states none of them.
func usageTokens(u *event.Usage) (uint64, bool) {
	var n uint64
	stated := false
	for _, p := range []*uint64{u.InputTokens, u.OutputTokens, u.CacheReadTokens, u.CacheCreationTokens, u.ThoughtsTokens} {
		if p != nil {
			stated = true
			n = satAdd(n, *p)
		}
	}
	if !stated && u.TotalTokens != nil {
		return *u.TotalTokens, true
	}
	return n, stated
}

func satAdd(a, b uint64) uint64 {
	if a+b < a {
		return ^uint64(0)
	}
	return a + b
}

func (m *model) userMessage(ev *event.Event, b *event.UserMessage) {
	if ev.AgentID == "" {
		t := m.turnOf(ev)
		if t != nil && (t.prompt == nil || (t.prompt.String() == b.Text && !t.prompt.cut())) {
			if t.prompt == nil {
				t.prompt = m.keep(b.Text)
			}
			if b.ImageCount != nil {
				t.images += *b.ImageCount
			}
			return
		}
	}
	if !m.room() {
		return
	}
	mm := &msg{kind: msgUser, t: m.bud.keep(b.Text)}
	if b.ImageCount != nil {
		mm.images = *b.ImageCount
	}
	m.blockOf(ev).add(mm)
}

// delta adds a streamed chunk to the message it continues, or begins one.
func (m *model) delta(ev *event.Event, kind msgKind, s, id string) {
	if kind == msgAssistant {
		m.markText(ev)
	}
	b := m.blockOf(ev)
	if n := len(b.items); n > 0 {
		if last, ok := b.items[n-1].(*msg); ok && last.kind == kind && last.deltas && (id == "" || last.id == "" || id == last.id) {
			m.bud.add(&last.t, s)
			return
		}
	}
	if !m.room() {
		return
	}
	b.add(&msg{kind: kind, t: m.bud.keep(s), id: id, deltas: true})
}

// assembled takes an assembled message: it replaces the deltas it
// repeats, or is a message of its own.
func (m *model) assembled(ev *event.Event, kind msgKind, s, id string) {
	if kind == msgAssistant {
		m.markText(ev)
	}
	b := m.blockOf(ev)
	for i := len(b.items) - 1; i >= 0 && i >= len(b.items)-8; i-- {
		last, ok := b.items[i].(*msg)
		if !ok {
			if _, isRound := b.items[i].(*round); isRound {
				continue
			}
			break
		}
		if last.kind == kind && last.deltas && (id == "" || last.id == "" || id == last.id) {
			last.t, last.deltas, last.id = m.bud.keep(s), false, id
			return
		}
		if last.kind != kind {
			continue
		}
		break
	}
	if s == "" {
		return // an empty block (a redacted thought) shows nothing
	}
	if !m.room() {
		return
	}
	b.add(&msg{kind: kind, t: m.bud.keep(s), id: id})
}

func (m *model) markText(ev *event.Event) {
	m.anyText = true
	if ev.AgentID == "" {
		if t := m.turnOf(ev); t != nil {
			t.hasText = true
		}
	}
}

// note adds a note line.
func (m *model) note(ev *event.Event, class, label, s, more string) {
	if !m.room() {
		return
	}
	m.blockOf(ev).add(m.newNote(class, label, s, more))
}

func (m *model) newNote(class, label, s, more string) *note {
	n := &note{class: class, label: label}
	if s != "" {
		n.t = m.keep(s)
	}
	if more != "" {
		n.more = m.keep(more)
	}
	return n
}

// maxHK is how many events a housekeeping line lists; the rest are
// counted.
const maxHK = 200

// housekeeping adds a note to the folded housekeeping line at the end of
// the block, or starts one.
func (m *model) housekeeping(ev *event.Event, class, label, s, more string) {
	if h := m.hkOf(ev); h != nil {
		h.notes = append(h.notes, m.newNote(class, label, s, more))
	}
}

// hkOf returns the housekeeping line at the end of the event's block,
// starting one if need be, or nil when the line is full (the event is
// then only counted) or the page has no room.
func (m *model) hkOf(ev *event.Event) *hk {
	b := m.blockOf(ev)
	var h *hk
	if k := len(b.items); k > 0 {
		h, _ = b.items[k-1].(*hk)
	}
	if h == nil {
		if !m.room() {
			return nil
		}
		h = &hk{}
		b.add(h)
	}
	if len(h.notes) >= maxHK {
		h.more++
		return nil
	}
	return h
}

func (m *model) finish(ev *event.Event, b *event.SessionFinished) {
	f := *b
	f.Text, f.Reasoning, f.Errors, f.StructuredOutput, f.Message = nil, nil, nil, nil, ""
	m.fin, m.finTime = &f, ev.Time
	if b.Text != nil && *b.Text != "" {
		m.finText = m.keep(*b.Text)
	}
	if b.Reasoning != nil && *b.Reasoning != "" {
		m.finReason = m.keep(*b.Reasoning)
	}
	if b.Message != "" {
		m.finMessage = m.keep(b.Message)
	}
	if b.Errors != nil {
		for i, e := range *b.Errors {
			if i == 100 {
				break
			}
			m.finErrors = append(m.finErrors, m.keep(e))
		}
	}
	if len(b.StructuredOutput) > 0 {
		m.finOut = m.keep(string(b.StructuredOutput))
	}
	m.point(0, ev, b.Usage)
}
