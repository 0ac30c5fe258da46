// Package streamgen writes deterministic, realistic event streams of any dialect
// evtool can write, for benchmarks and the comparison in bench/compare.sh.
//
// It builds canonical events in Go — a session start, turns with user
// prompts, streamed message and reasoning deltas with unicode text, tool
// calls through their whole lifecycle (call, start, progress, output in
// chunks, finish with success or error; whole files of tens of KB as the
// input of write_file), permission requests and answers,
// usage with counts beyond 2^53 and 2^63, tool outputs of tens of KB and,
// now and then, fields no version of the model knows — and writes them with
// the dialect's own encoder from the registry, so the output is a stream
// that dialect's reader and `evtool validate` accept.
//
// Options.Shape picks the kind of lines: large ones (the default: whole
// files in tool calls), small ones of every event type, or the real
// captures beside the repository replicated (captures.go).
//
// Write streams: it keeps one event and the encoder's buffer in memory,
// whatever the size of the stream (the captures shape keeps the captures).
// The same Options give the same bytes.
package streamgen

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	_ "github.com/evtool/evtool/adapters" // registers every dialect
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/jsonenc"
	"github.com/evtool/evtool/internal/testkit/teststreams"
)

// Options say what to generate. The stream ends, with a complete session,
// at the first turn boundary after Bytes bytes were written or Calls tool
// calls were made, whichever comes first; zero sets no limit on that count,
// and both zero mean Bytes = 1 MiB.
type Options struct {
	// Seed makes the stream: the same seed gives the same bytes.
	Seed int64
	// Bytes is the approximate size of the output, in the target dialect.
	Bytes int64
	// Calls is the number of tool calls after which the stream ends.
	Calls int
	// Lean makes one turn of nothing but short tool calls (a small input,
	// start, a line of output, finish), to measure the state a reader
	// keeps per call on runs of millions of calls.
	Lean bool
	// Shape is the kind of lines: ShapeLarge (also ""), ShapeSmall or
	// ShapeCaptures. Lean overrides the first two; ShapeCaptures ignores
	// Seed, Calls and Lean.
	Shape string
}

// The shapes of a generated stream.
const (
	// ShapeLarge is the default: turns whose tool calls carry whole files
	// of 8–48 KB as input and outputs up to 60 KB, in chunks of 8 KB.
	ShapeLarge = "large"
	// ShapeSmall is short lines of every event type the canonical model
	// has (but unknown): text deltas of about 100 bytes, tool events of
	// about 150, plans, tasks, compaction, elided context, memory,
	// branches, notices, retries and errors; about 130 bytes a line on
	// average in basis.
	ShapeSmall = "small"
)

// Shapes lists the shapes Write can make.
func Shapes() []string { return []string{ShapeLarge, ShapeSmall, ShapeCaptures} }

// Dialects lists the dialects the benchmarks of other packages loop over.
// Write writes every dialect evtool writes (dialect.Targets), and with
// ShapeCaptures the read-only ones too.
func Dialects() []string { return []string{"acp", "basis", "canonical", "mermaid", "muse"} }

// Write writes one stream of the named dialect to w.
func Write(w io.Writer, dialectName string, opts Options) error {
	if opts.Shape == ShapeCaptures {
		cs, err := LoadCaptures(dialectName, SharedCaptures(teststreams.Root(), dialectName))
		if err != nil {
			return err
		}
		return cs.ReplicateCaptures(w, opts.Bytes)
	}
	d, err := dialect.Lookup(dialectName)
	if err != nil {
		return err
	}
	if opts.Bytes <= 0 && opts.Calls <= 0 {
		opts.Bytes = 1 << 20
	}
	turn := (*generator).turn
	switch opts.Shape {
	case "", ShapeLarge:
	case ShapeSmall:
		turn = (*generator).smallTurn
	default:
		return fmt.Errorf("gen: unknown shape %q (want %s)", opts.Shape, strings.Join(Shapes(), " or "))
	}
	cw := &countWriter{w: w}
	bw := bufio.NewWriterSize(cw, 64<<10)
	enc := d.NewEncoder(bw, dialect.EncodeOptions{Losses: &dialect.Losses{}})
	g := &generator{
		rng:     rand.New(rand.NewPCG(uint64(opts.Seed), 0x9e3779b97f4a7c15)),
		dialect: dialectName,
		enc:     enc,
		start:   time.Date(2026, 11, 30, 9, 15, 0, 0, time.UTC),
	}
	if err := g.emit(g.sessionStarted()); err != nil {
		return err
	}
	for n := 1; ; n++ {
		var err error
		if opts.Lean {
			err = g.leanCall()
		} else {
			err = turn(g, n)
		}
		if err != nil {
			return err
		}
		written := cw.n + int64(bw.Buffered())
		if (opts.Bytes > 0 && written >= opts.Bytes) || (opts.Calls > 0 && g.calls >= opts.Calls) {
			break
		}
	}
	if err := g.emit(g.sessionFinished()); err != nil {
		return err
	}
	if err := enc.Close(); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return cw.err
}

type countWriter struct {
	w   io.Writer
	n   int64
	err error
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	if err != nil && c.err == nil {
		c.err = err
	}
	return n, err
}

type generator struct {
	rng     *rand.Rand
	dialect string
	enc     dialect.Encoder
	start   time.Time
	seq     uint64
	turnID  string
	calls   int
	perms   int
	tasks   int
	total   event.Usage
	rounds  uint64
	last    string // the last assembled message, for session_finished
	scratch strings.Builder
}

func (g *generator) emit(ev *event.Event) error {
	ev.Seq = g.seq
	// A microsecond clock that moves 1–40 ms per event.
	g.start = g.start.Add(time.Duration(1000+g.rng.IntN(39000)) * time.Microsecond)
	ev.Time = g.start.Format("2006-01-02T15:04:05.000000Z")
	if _, ok := ev.Body.(*event.SessionStarted); !ok {
		if _, ok := ev.Body.(*event.SessionFinished); !ok {
			ev.TurnID = g.turnID
		}
	}
	g.seq++
	if err := g.enc.Encode(ev); err != nil {
		return fmt.Errorf("gen: encoding %s as %s: %w", ev.Type(), g.dialect, err)
	}
	return nil
}

// unknownField adds, on about one line in 40, a field no version of the
// model knows, the way a newer producer would: a top-level key of a
// canonical line, residue of basis and mermaid lines (which their writers
// put back as fields). The muse writer derives its records from canonical
// facts and acp has no such place, so their lines carry none.
func (g *generator) unknownField(ev *event.Event) *event.Event {
	if g.rng.IntN(40) != 0 {
		return ev
	}
	val := jsonenc.String(nil, g.words(3))
	switch g.dialect {
	case "canonical":
		ev.Extra = append(ev.Extra, event.RawField{Key: "x_trace", Value: val})
	case "basis", "mermaid":
		ev.Ext = event.ExtOf(g.dialect, []byte(`{"x_trace":`+string(val)+`}`))
	}
	return ev
}

func (g *generator) sessionStarted() *event.Event {
	files := []event.ContextFile{{Path: "/srv/repo/AGENTS.md", Scope: "project"}, {Path: "/home/dev/.config/agent/AGENTS.md", Scope: "user"}}
	return &event.Event{Body: &event.SessionStarted{
		Schema:       event.SchemaVersion,
		Source:       event.SourceInfo{Dialect: "canonical"},
		Agent:        &event.Agent{Name: "evtool-gen", Version: "1.0.0"},
		SessionID:    fmt.Sprintf("sess-%016x", g.rng.Uint64()),
		Workspace:    "/srv/repo",
		Model:        "claude-sonnet-4",
		Provider:     "anthropic",
		ContextFiles: &files,
	}}
}

func (g *generator) sessionFinished() *event.Event {
	u := g.total
	rounds := g.rounds
	u.ModelResponses = &rounds
	text := g.last
	return &event.Event{Body: &event.SessionFinished{Status: event.StatusOK, Usage: &u, Text: &text}}
}

// turn writes one turn: a prompt, some rounds of reasoning, text and tool
// calls, an assembled message, and the turn's end.
func (g *generator) turn(n int) error {
	g.turnID = "turn-" + strconv.Itoa(n)
	prompt := g.sentence(8 + g.rng.IntN(30))
	evs := []*event.Event{
		{Body: &event.TurnStarted{Prompt: &prompt, CommandID: g.turnID}},
		{Body: &event.UserMessage{Text: prompt}},
		{Body: &event.ModelConfigured{Model: "claude-sonnet-4", Provider: "anthropic", Profile: "default", Source: "config"}},
	}
	for _, ev := range evs {
		if err := g.emit(ev); err != nil {
			return err
		}
	}
	var turnUsage event.Usage
	rounds := 1 + g.rng.IntN(3)
	var text strings.Builder
	for r := 0; r < rounds; r++ {
		for i, k := 0, g.rng.IntN(6); i < k; i++ {
			if err := g.emit(g.unknownField(&event.Event{Body: &event.ReasoningDelta{Text: g.sentence(4 + g.rng.IntN(20))}})); err != nil {
				return err
			}
		}
		msg := ""
		for i, k := 0, 2+g.rng.IntN(12); i < k; i++ {
			chunk := g.sentence(2+g.rng.IntN(14)) + " "
			msg += chunk
			if err := g.emit(g.unknownField(&event.Event{Body: &event.MessageDelta{Text: chunk}})); err != nil {
				return err
			}
		}
		text.WriteString(msg)
		u := g.usage()
		add(&turnUsage, u)
		add(&g.total, u)
		g.rounds++
		if err := g.emit(&event.Event{Body: u}); err != nil {
			return err
		}
		if r < rounds-1 || g.rng.IntN(2) == 0 {
			for i, k := 0, g.rng.IntN(5); i < k; i++ {
				if err := g.toolCall(); err != nil {
					return err
				}
			}
		}
	}
	g.last = text.String()
	if err := g.emit(&event.Event{Body: &event.Message{Text: g.last}}); err != nil {
		return err
	}
	if g.rng.IntN(8) == 0 {
		if err := g.emit(&event.Event{Body: &event.Notice{Severity: event.SeverityWarning, Message: "context is " + strconv.Itoa(50+g.rng.IntN(45)) + "% full"}}); err != nil {
			return err
		}
	}
	rs := uint64(rounds)
	turnUsage.ModelResponses = &rs
	return g.emit(&event.Event{Body: &event.TurnFinished{Status: event.StatusOK, StopReason: event.StopEndTurn, Usage: &turnUsage}})
}

type tool struct {
	name  string
	kind  event.ToolKind
	mut   event.Mutability
	input func(g *generator) string
}

var tools = []tool{
	{"read_file", event.KindRead, event.ReadOnly, func(g *generator) string {
		return `{"path":` + string(jsonenc.String(nil, g.path())) + `,"offset":` + strconv.Itoa(g.rng.IntN(400)) + `,"limit":200}`
	}},
	{"bash", event.KindExecute, event.Mutating, func(g *generator) string {
		cmds := []string{"go test ./...", "make build", "git status --short", "rg -n 'TODO' --type go", "ls -la internal/"}
		return `{"command":` + string(jsonenc.String(nil, cmds[g.rng.IntN(len(cmds))])) + `,"timeout_ms":120000}`
	}},
	{"edit_file", event.KindEdit, event.Mutating, func(g *generator) string {
		return `{"path":` + string(jsonenc.String(nil, g.path())) + `,"old":` + string(jsonenc.String(nil, g.sentence(6))) + `,"new":` + string(jsonenc.String(nil, g.sentence(7))) + `}`
	}},
	{"grep", event.KindSearch, event.ReadOnly, func(g *generator) string {
		return `{"pattern":"func (\\w+)\\(","glob":"**/*.go","context":2}`
	}},
	{"write_file", event.KindEdit, event.Mutating, func(g *generator) string {
		// A whole file: tens of KB in one tool input, the long lines of a
		// basis stream, which carries no tool output.
		return `{"path":` + string(jsonenc.String(nil, g.path())) + `,"content":` + string(jsonenc.String(nil, g.output(8<<10+g.rng.IntN(40<<10)))) + `}`
	}},
	{"web_fetch", event.KindFetch, event.ReadOnly, func(g *generator) string {
		return `{"url":"https://example.org/docs/` + strconv.Itoa(g.rng.IntN(1000)) + `","max_bytes":65536}`
	}},
}

// toolCall writes one call's lifecycle, with a permission request for
// mutating tools.
func (g *generator) toolCall() error {
	g.calls++
	t := tools[g.rng.IntN(len(tools))]
	id := fmt.Sprintf("call_%06d_%04x", g.calls, g.rng.IntN(1<<16))
	if err := g.emit(g.unknownField(&event.Event{Body: &event.ToolCall{
		CallID: id, Name: t.name, Title: t.name + " " + g.words(2), Kind: t.kind, Mutability: t.mut, Input: []byte(t.input(g)),
	}})); err != nil {
		return err
	}
	if t.mut == event.Mutating && g.rng.IntN(2) == 0 {
		g.perms++
		req := fmt.Sprintf("perm_%06d", g.perms)
		if err := g.emit(&event.Event{Body: &event.PermissionRequested{
			RequestID: req, CallID: id, Tool: t.name, Description: "Allow " + t.name + "? " + g.sentence(5), Risk: "medium",
			Preview: []byte(`{"summary":` + string(jsonenc.String(nil, g.sentence(6))) + `}`),
		}}); err != nil {
			return err
		}
		outcome := event.Allowed
		if g.rng.IntN(6) == 0 {
			outcome = event.Denied
		}
		if err := g.emit(&event.Event{Body: &event.PermissionResolved{RequestID: req, CallID: id, Tool: t.name, Outcome: outcome, Scope: "session"}}); err != nil {
			return err
		}
		if outcome == event.Denied {
			return g.emit(&event.Event{Body: &event.ToolFinished{CallID: id, Name: t.name, Status: event.ToolError, Error: "the user denied permission"}})
		}
	}
	if err := g.emit(&event.Event{Body: &event.ToolStarted{CallID: id, Name: t.name}}); err != nil {
		return err
	}
	for i, k := 0, g.rng.IntN(3); i < k; i++ {
		if err := g.emit(&event.Event{Body: &event.ToolProgress{CallID: id, Name: t.name, Message: g.sentence(3 + g.rng.IntN(6))}}); err != nil {
			return err
		}
	}
	// Most outputs are short; one call in five prints tens of KB.
	size := 200 + g.rng.IntN(3000)
	if g.rng.IntN(5) == 0 {
		size = 10<<10 + g.rng.IntN(50<<10)
	}
	out := g.output(size)
	for off := 0; off < len(out); {
		end := min(off+8<<10, len(out))
		for end < len(out) && !isBoundary(out[end]) { // never split a character
			end++
		}
		if err := g.emit(&event.Event{Body: &event.ToolOutput{CallID: id, Name: t.name, Chunk: out[off:end]}}); err != nil {
			return err
		}
		off = end
	}
	fin := &event.ToolFinished{CallID: id, Name: t.name, Status: event.ToolSuccess, Output: &out}
	if g.rng.IntN(7) == 0 {
		fin.Status, fin.Error = event.ToolError, "exit status "+strconv.Itoa(1+g.rng.IntN(2))
	}
	summary := g.words(4)
	fin.Summary = &summary
	if t.name == "bash" {
		code := int64(0)
		if fin.Status == event.ToolError {
			code = 1
		}
		fin.ExitCode, fin.Command = &code, "bash"
	}
	return g.emit(&event.Event{Body: fin})
}

// leanCall is one short tool call, in a turn begun by the first.
func (g *generator) leanCall() error {
	if g.calls == 0 {
		g.turnID = "turn-1"
		prompt := "run the checks"
		for _, ev := range []*event.Event{
			{Body: &event.TurnStarted{Prompt: &prompt, CommandID: g.turnID}},
			{Body: &event.UserMessage{Text: prompt}},
		} {
			if err := g.emit(ev); err != nil {
				return err
			}
		}
	}
	g.calls++
	id := "call_" + strconv.Itoa(g.calls)
	out := "ok " + strconv.Itoa(g.calls)
	for _, ev := range []*event.Event{
		{Body: &event.ToolCall{CallID: id, Name: "read_file", Kind: event.KindRead, Mutability: event.ReadOnly, Input: []byte(`{"path":"/srv/repo/a.go"}`)}},
		{Body: &event.ToolStarted{CallID: id, Name: "read_file"}},
		{Body: &event.ToolOutput{CallID: id, Name: "read_file", Chunk: out}},
		{Body: &event.ToolFinished{CallID: id, Name: "read_file", Status: event.ToolSuccess, Output: &out}},
	} {
		if err := g.emit(ev); err != nil {
			return err
		}
	}
	return nil
}

func isBoundary(b byte) bool { return b&0xC0 != 0x80 }

// usage is one model round, with counts that need 64 bits now and then.
func (g *generator) usage() *event.Usage {
	n := func(max int) *uint64 { v := uint64(g.rng.IntN(max)); return &v }
	u := &event.Usage{InputTokens: n(200000), OutputTokens: n(8000), CacheReadTokens: n(150000), CacheCreationTokens: n(20000)}
	switch g.rng.IntN(20) {
	case 0: // beyond a double's exact integers
		v := uint64(1)<<53 + g.rng.Uint64N(1<<40)
		u.InputTokens = &v
	case 1: // beyond an i64
		v := uint64(math.MaxInt64) + g.rng.Uint64N(1<<20)
		u.CacheReadTokens = &v
	}
	return u
}

// add sums usage, saturating at the largest u64.
func add(to, u *event.Usage) {
	sum := func(a **uint64, b *uint64) {
		if b == nil {
			return
		}
		if *a == nil {
			*a = new(uint64)
		}
		if **a > math.MaxUint64-*b {
			**a = math.MaxUint64
		} else {
			**a += *b
		}
	}
	sum(&to.InputTokens, u.InputTokens)
	sum(&to.OutputTokens, u.OutputTokens)
	sum(&to.CacheReadTokens, u.CacheReadTokens)
	sum(&to.CacheCreationTokens, u.CacheCreationTokens)
}

var vocabulary = strings.Fields(`the a test build function module stream line event parser schema decoder
encoder buffer value field error fixes refactor because then and it this that file package check
naïve café résumé Zürich straße façade 日本語 テスト 中文 한국어 Ελληνικά кириллица עברית العربية
emoji 🚀 ✅ 🔧 📦 — … “quoted” ‘single’ 1.5× µs ≤ ≥ → ∑ π`)

// Pieces that need escaping in JSON.
var awkward = []string{`"quoted"`, `back\slash`, "tab\there", "new\nline", `C:\Users\dev`, "<html>&amp;</html>", "\u2028sep"}

func (g *generator) words(n int) string {
	g.scratch.Reset()
	for i := 0; i < n; i++ {
		if i > 0 {
			g.scratch.WriteByte(' ')
		}
		g.scratch.WriteString(vocabulary[g.rng.IntN(len(vocabulary))])
	}
	return g.scratch.String()
}

func (g *generator) sentence(n int) string {
	s := g.words(n)
	if g.rng.IntN(6) == 0 {
		s += " " + awkward[g.rng.IntN(len(awkward))]
	}
	return s + "."
}

func (g *generator) path() string {
	dirs := []string{"internal/parser", "cmd/app", "pkg/ストリーム", "docs", "src/lib"}
	return fmt.Sprintf("%s/file_%d.go", dirs[g.rng.IntN(len(dirs))], g.rng.IntN(100))
}

// output is tool output of about size bytes: numbered source-like lines.
func (g *generator) output(size int) string {
	var b strings.Builder
	b.Grow(size + 128)
	for ln := 1; b.Len() < size; ln++ {
		fmt.Fprintf(&b, "%5d\t", ln)
		b.WriteString(g.words(3 + g.rng.IntN(10)))
		if g.rng.IntN(25) == 0 {
			b.WriteString(` "` + awkward[g.rng.IntN(len(awkward))] + `"`)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// Bytes returns one stream of the named dialect, for benchmarks that want
// it in memory.
func Bytes(dialectName string, opts Options) ([]byte, error) {
	var b bytes.Buffer
	if opts.Bytes > 0 {
		b.Grow(int(opts.Bytes) + 256<<10)
	}
	err := Write(&b, dialectName, opts)
	return b.Bytes(), err
}
