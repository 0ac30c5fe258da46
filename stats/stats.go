// Package stats sums up what coding-agent runs used: per stream, its
// dialect, models, turns, model rounds, tool calls by kind and by status,
// token counts and cost, where the producer states them; and totals over
// many streams.
//
// It works on canonical events only, read through package stream, so it
// knows no dialect: whatever an adapter reads into canonical events is
// counted the same way.
//
// # Usage without double counting
//
// A stream may state its token usage at several levels at once: per model
// round (usage events, round_finished.usage), per turn
// (turn_finished.usage) and per session (session_finished.usage). Adding
// them all would count the same tokens two or three times. A Run takes the
// most aggregated level the stream states and only that one:
//
//  1. the usage of session_finished (LevelSession);
//  2. else the sum of the turns' usage (LevelTurns);
//  3. else the sum of round_finished usage (LevelRounds);
//  4. else the sum of usage events (LevelUsageEvents).
//
// The usage of round_finished and usage events are two ways of saying the
// same round; where a stream has both, the rounds win. A level is stated when at
// least one of its events carries a usage with at least one count or a
// cost. Within the level chosen, each count is the sum of the values
// stated: a count no event of the level states is absent, not 0.
//
// Counts are uint64 and a sum that would exceed 2^64-1 stops there: the
// Run (or Totals) says which counts saturated. Costs are added as exact
// decimals, never through float64.
package stats

import (
	"cmp"
	"errors"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/openset"
	"github.com/evtool/evtool/stream"
)

// Level names the events a Run's token counts and cost come from.
type Level string

// The levels of usage, most aggregated first.
const (
	LevelSession     Level = "session"      // session_finished.usage
	LevelTurns       Level = "turns"        // the sum of turn_finished.usage
	LevelRounds      Level = "rounds"       // the sum of round_finished.usage
	LevelUsageEvents Level = "usage_events" // the sum of usage events
)

// Levels lists the levels in the order a Run prefers them.
func Levels() []Level { return []Level{LevelSession, LevelTurns, LevelRounds, LevelUsageEvents} }

// Tool call statuses beyond event.ToolStatus.
const (
	// Unfinished is the status of a call the stream never finished.
	Unfinished = "unfinished"
	// Unstated is the kind of a call whose kind the stream never states.
	Unstated = "unstated"
)

// Token names one token count, as the JSON document spells it.
type Token string

// The token counts, in the order they are printed.
const (
	Input      Token = "input"       // input_tokens: uncached input
	Output     Token = "output"      // output_tokens
	CacheRead  Token = "cache_read"  // cache_read_tokens
	CacheWrite Token = "cache_write" // cache_creation_tokens
	Reasoning  Token = "reasoning"   // reasoning_tokens
	Thoughts   Token = "thoughts"    // thoughts_tokens
	Total      Token = "total"       // total_tokens, as the producer states it
)

// tokens are the token counts with where each comes from in a usage.
var tokens = [...]struct {
	name Token
	get  func(*event.Usage) *uint64
}{
	{Input, func(u *event.Usage) *uint64 { return u.InputTokens }},
	{Output, func(u *event.Usage) *uint64 { return u.OutputTokens }},
	{CacheRead, func(u *event.Usage) *uint64 { return u.CacheReadTokens }},
	{CacheWrite, func(u *event.Usage) *uint64 { return u.CacheCreationTokens }},
	{Reasoning, func(u *event.Usage) *uint64 { return u.ReasoningTokens }},
	{Thoughts, func(u *event.Usage) *uint64 { return u.ThoughtsTokens }},
	{Total, func(u *event.Usage) *uint64 { return u.TotalTokens }},
}

// Tokens lists the token counts in the order they are printed.
func Tokens() []Token {
	out := make([]Token, len(tokens))
	for i, t := range tokens {
		out[i] = t.name
	}
	return out
}

// Usage is token counts and a cost. A count or cost that is not stated is
// absent from the maps (or ""), never 0.
type Usage struct {
	// Tokens holds the stated counts.
	Tokens map[Token]uint64
	// CostUSD is the cost in US dollars as an exact decimal text, "" when
	// not stated.
	CostUSD string
	// Saturated lists the counts whose sum exceeded 2^64-1 and stopped
	// there, in the order of Tokens().
	Saturated []Token
}

// ToolCalls counts tool calls.
type ToolCalls struct {
	Total uint64
	// ByKind counts calls by event.ToolKind, or Unstated.
	ByKind map[string]uint64
	// ByStatus counts calls by event.ToolStatus, or Unfinished.
	ByStatus map[string]uint64
}

func (t *ToolCalls) count(kind event.ToolKind, status string) {
	k := string(kind)
	if k == "" {
		k = Unstated
	}
	if status == "" {
		status = Unstated
	}
	if t.ByKind == nil {
		t.ByKind, t.ByStatus = map[string]uint64{}, map[string]uint64{}
	}
	t.Total = satAdd(t.Total, 1, nil)
	// A new key is copied: a kind or status a decoder passed through is
	// a slice of its line, which the map would keep alive.
	if _, ok := t.ByKind[k]; !ok {
		k = strings.Clone(k)
	}
	if _, ok := t.ByStatus[status]; !ok {
		status = strings.Clone(status)
	}
	t.ByKind[k] = satAdd(t.ByKind[k], 1, nil)
	t.ByStatus[status] = satAdd(t.ByStatus[status], 1, nil)
}

func (t *ToolCalls) add(x ToolCalls) {
	if x.ByKind == nil {
		return
	}
	if t.ByKind == nil {
		t.ByKind, t.ByStatus = map[string]uint64{}, map[string]uint64{}
	}
	t.Total = satAdd(t.Total, x.Total, nil)
	for k, n := range x.ByKind {
		t.ByKind[k] = satAdd(t.ByKind[k], n, nil)
	}
	for k, n := range x.ByStatus {
		t.ByStatus[k] = satAdd(t.ByStatus[k], n, nil)
	}
}

// Run is what one stream used.
type Run struct {
	// File names the stream.
	File string
	// Dialect is the dialect the stream was read as ("" when it could not
	// be told).
	Dialect string
	// SourceDialect is session_started.source.dialect when it differs from
	// Dialect: the dialect a canonical stream was read from.
	SourceDialect string
	// SessionID and Workspace are the first session_started's.
	SessionID, Workspace string
	// Prompt is the first line of the user's first prompt (a subagent's is
	// its parent's, not the user's), clipped to 120 characters: what a
	// listing titles the session with; "" when the stream has none.
	Prompt string
	// Start and End are the earliest and latest times the events state
	// (RFC 3339 UTC, as package event writes them), "" when none does.
	Start, End string
	// Models are the models session_started and model_configured name, in
	// the order they first appear.
	Models []string
	// Status is session_finished.status; "" when the stream has no
	// session_finished (it was cut short).
	Status event.Status
	// Lines is the number of non-blank lines read; BadLines those with
	// problems (each reported as a *stream.LineError), but for a torn last
	// line (Torn), which is reported and not counted there.
	Lines, BadLines uint64
	// Torn is the number of the last line when it is torn (no newline at
	// the end, not JSON: a live session's line being written, or a
	// producer stopped mid-line), 0 otherwise. As convert takes it, it is
	// no problem of the stream's by itself.
	Torn int
	// Turns counts user turns: turn_started or turn_finished events,
	// whichever are more; nil when the stream has neither.
	Turns *uint64
	// Rounds counts round_finished events; nil when there are none.
	Rounds *uint64
	// ToolCalls counts the calls, each once, by the kind its tool_call
	// (else its tool_finished) states and the status its tool_finished
	// states, or Unfinished.
	ToolCalls ToolCalls
	// UsageFrom is the level Usage comes from; "" when the stream states
	// no usage.
	UsageFrom Level
	// Usage is the stream's tokens and cost, from UsageFrom alone.
	Usage Usage
	// Notes say what a reader of the figures must know: a cost that could
	// not be added, say.
	Notes []string
	// Err is the error that ended the reading early: the stream's dialect
	// could not be told, or a read failed. The figures are those of the
	// lines before it.
	Err error
}

// Options configure Read.
type Options struct {
	// Stream configures the reading (the dialect, workers, line limit).
	Stream stream.Options
	// LineError, when set, is called with each line that has problems;
	// the reading goes on after it.
	LineError func(*stream.LineError)
	// Report, when set, also takes the run's usage and tool calls, each
	// at its own time and model (see usage.go), unless the reading ended
	// early (Run.Err), as Totals leaves such a run out.
	Report *Report
}

// Read reads a stream to its end and returns what it used. A line with
// problems is counted in BadLines and passed to opts.LineError; what could
// be read of it still counts. An error that ends the reading (the dialect
// cannot be told, a read fails) is returned and kept in Run.Err, beside
// the figures of the lines before it.
func Read(r io.Reader, file string, opts Options) (*Run, error) {
	run, col, err := read(r, file, opts, opts.Report != nil)
	if col != nil && err == nil {
		opts.Report.addRun(col, run)
	}
	return run, err
}

// read reads a stream to its end, into a Run and, when usage is wanted,
// a collector of its usage records.
func read(r io.Reader, file string, opts Options, usage bool) (*Run, *collector, error) {
	sopts := opts.Stream
	sopts.Summary = true // stats sums events up: it reads none of their texts
	rd := stream.NewReader(r, file, sopts)
	defer rd.Close()
	c := NewCounter()
	var col *collector
	if usage {
		col = newCollector()
	}
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
				torn = le.Line
			} else {
				bad++
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
		if col != nil {
			col.add(ev)
		}
	}
	if err == nil {
		err = rd.Empty() // nothing to tell a dialect from: not a run
	}
	run := c.Run()
	run.File, run.Err = file, err
	if d := rd.Dialect(); d != nil {
		run.Dialect = d.Name()
	}
	if run.SourceDialect == run.Dialect {
		run.SourceDialect = ""
	}
	run.Lines, run.BadLines, run.Torn = uint64(rd.Lines()), bad, torn
	return run, col, err
}

// Counter adds up canonical events, in stream order, into a Run.
type Counter struct {
	source        string
	session       string
	workspace     string
	prompt        string // Run.Prompt: the first turn's prompt
	said          string // else the first user message's text
	start, end    string
	models        []string
	status        event.Status
	turnsStarted  uint64
	turnsFinished uint64
	rounds        uint64
	calls         ToolCalls   // the finished calls
	open          openset.Set // calls begun and not finished, by call_id, with their kind
	levels        [4]sum      // by Levels() order
	notes         []string
	badCostNoted  bool
}

// Indexes of Counter.levels, in the order of Levels().
const (
	atSession = iota
	atTurns
	atRounds
	atUsageEvents
)

// NewCounter returns an empty Counter.
func NewCounter() *Counter {
	return &Counter{}
}

// Add counts one event.
func (c *Counter) Add(ev *event.Event) {
	if t := ev.Time; t != "" {
		// event.Time has one fixed layout (UTC, microseconds): the
		// strings order as the times do.
		if c.start == "" || t < c.start {
			c.start = t
		}
		if t > c.end {
			c.end = t
		}
	}
	switch b := ev.Body.(type) {
	case *event.SessionStarted:
		if c.source == "" {
			c.source = b.Source.Dialect
			c.session, c.workspace = b.SessionID, b.Workspace
		}
		c.model(b.Model)
	case *event.ModelConfigured:
		c.model(b.Model)
	case *event.SessionFinished:
		c.status = b.Status
		c.usage(atSession, b.Usage)
	case *event.TurnStarted:
		c.turnsStarted++
		if b.Prompt != nil && ev.AgentID == "" {
			c.title(&c.prompt, *b.Prompt)
		}
	case *event.UserMessage:
		if ev.AgentID == "" {
			c.title(&c.said, b.Text)
		}
	case *event.TurnFinished:
		c.turnsFinished++
		c.usage(atTurns, b.Usage)
	case *event.RoundFinished:
		c.rounds++
		c.usage(atRounds, b.Usage)
	case *event.Usage:
		c.usage(atUsageEvents, b)
	case *event.ToolCall:
		if e, ok := c.open.Get(b.CallID); ok {
			// The same call made known again: its kind, if it had none.
			if e.Name == "" && b.Kind != "" {
				c.open.Delete(b.CallID)
				c.open.Add(b.CallID, 0, string(b.Kind))
			}
			return
		}
		c.open.Add(b.CallID, 0, string(b.Kind)) // a copy: nothing of the line is kept
	case *event.ToolStarted:
		c.touch(b.CallID)
	case *event.ToolProgress:
		c.touch(b.CallID)
	case *event.ToolOutput:
		c.touch(b.CallID)
	case *event.ToolFinished:
		e, _ := c.open.Delete(b.CallID)
		k := event.ToolKind(e.Name)
		// A call that was never made known, or finished before, is
		// still a call that ended: count it.
		if k == "" {
			k = b.Kind
		}
		c.calls.count(k, string(b.Status))
	}
}

// touch opens a call that an event names before any tool_call did.
func (c *Counter) touch(id string) {
	if !c.open.Has(id) {
		c.open.Add(id, 0, "")
	}
}

func (c *Counter) model(m string) {
	if m != "" && !slices.Contains(c.models, m) {
		c.models = append(c.models, strings.Clone(m))
	}
}

func (c *Counter) usage(level int, u *event.Usage) {
	if u == nil {
		return
	}
	if err := c.levels[level].add(u); err != nil && !c.badCostNoted {
		c.badCostNoted = true
		c.notes = append(c.notes, "a cost_usd that cannot be added exactly was left out: "+err.Error())
	}
}

// maxPrompt bounds Run.Prompt, in characters.
const maxPrompt = 120

// title keeps in *to the first prompt that has words, as a title. A
// turn's prompt is preferred to a user message's text: a Claude Code
// transcript may begin with a message that is no prompt (the caveat
// before a local command's output), which its reading says no turn of.
func (c *Counter) title(to *string, prompt string) {
	if *to != "" {
		return
	}
	t, _, _ := strings.Cut(strings.TrimSpace(promptText(prompt)), "\n")
	t = strings.TrimSpace(t)
	if n := 0; t != "" {
		for i := range t {
			if n == maxPrompt {
				t = t[:i] + "…"
				break
			}
			n++
		}
		*to = strings.Clone(t)
	}
}

// promptText is what the user asked in a prompt an agent wrapped: Claude
// Code writes a slash command as <command-message>, <command-name> and
// <command-args> elements (the name and its arguments are what was
// typed); Codex's IDE extension puts "# Context from my IDE setup:" before
// the request, which follows "## My request for Codex:". Any other prompt
// is as it is.
func promptText(p string) string {
	if name, ok := element(p, "command-name"); ok {
		if args, _ := element(p, "command-args"); args != "" {
			return name + " " + args
		}
		return name
	}
	if strings.HasPrefix(p, "# Context from my IDE setup:") {
		if _, req, ok := strings.Cut(p, "## My request for Codex:"); ok {
			return req
		}
	}
	return p
}

// element returns the text of the first <name>…</name> in s.
func element(s, name string) (string, bool) {
	_, rest, ok := strings.Cut(s, "<"+name+">")
	if !ok {
		return "", false
	}
	text, _, ok := strings.Cut(rest, "</"+name+">")
	return strings.TrimSpace(text), ok
}

// Run returns the figures of the events added so far. Calls still open
// count as Unfinished.
func (c *Counter) Run() *Run {
	// A string of an event may be cut from the line it was read from
	// (where the decoder has no reason to copy it): a run kept for a
	// report must not keep that line alive.
	r := &Run{SourceDialect: strings.Clone(c.source), SessionID: strings.Clone(c.session), Workspace: strings.Clone(c.workspace),
		Prompt: cmp.Or(c.prompt, c.said), Start: strings.Clone(c.start), End: strings.Clone(c.end), Models: slices.Clone(c.models), Status: event.Status(strings.Clone(string(c.status))), Notes: slices.Clone(c.notes)}
	if n := max(c.turnsStarted, c.turnsFinished); n > 0 {
		r.Turns = &n
	}
	if c.rounds > 0 {
		n := c.rounds
		r.Rounds = &n
	}
	r.ToolCalls.add(c.calls)
	for _, e := range c.open.All {
		r.ToolCalls.count(event.ToolKind(e.Name), Unfinished)
	}
	for i, l := range Levels() {
		if c.levels[i].n > 0 {
			r.UsageFrom = l
			r.Usage = c.levels[i].usage()
			break
		}
	}
	return r
}

// sum adds usages of one level.
type sum struct {
	n     int // usages with at least one count or a cost
	v     [len(tokens)]uint64
	set   [len(tokens)]bool
	sat   [len(tokens)]bool
	cost  decimal
	costs int
}

// add adds u; a cost that is not an exact decimal within reach is left
// out and returned as the error.
func (s *sum) add(u *event.Usage) error {
	stated := false
	for i, t := range tokens {
		if p := t.get(u); p != nil {
			stated = true
			s.set[i] = true
			s.v[i] = satAdd(s.v[i], *p, &s.sat[i])
		}
	}
	var err error
	if u.CostUSD != "" {
		var d decimal
		if d, err = parseDecimal(string(u.CostUSD)); err == nil {
			stated = true
			s.cost.add(&d)
			s.costs++
		}
	}
	if stated {
		s.n++
	}
	return err
}

func (s *sum) usage() Usage {
	u := Usage{Tokens: map[Token]uint64{}}
	for i, t := range tokens {
		if s.set[i] {
			u.Tokens[t.name] = s.v[i]
		}
		if s.sat[i] {
			u.Saturated = append(u.Saturated, t.name)
		}
	}
	if s.costs > 0 {
		u.CostUSD = s.cost.String()
	}
	return u
}

// satAdd returns a+b, or 2^64-1 when that is more, and then sets *sat.
func satAdd(a, b uint64, sat *bool) uint64 {
	if a > math.MaxUint64-b {
		if sat != nil {
			*sat = true
		}
		return math.MaxUint64
	}
	return a + b
}
