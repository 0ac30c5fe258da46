// Package dialect defines what every evtool dialect provides and keeps the
// registry of them.
//
// A dialect reads its own lines into canonical events (Decoder), writes
// canonical events as its own lines (Encoder), publishes a JSON Schema for a
// single line, and checks the rules of a whole stream that a schema cannot
// say (Checker). Each adapter registers itself from an init function; the
// command imports them all through package adapters.
package dialect

import (
	"bufio"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/evtool/evtool/diag"

	"github.com/evtool/evtool/event"
)

// Dialect is one wire format.
type Dialect interface {
	// Name is the dialect's name on the command line, e.g. "basis".
	Name() string
	// Description is a one-line summary for `evtool dialects`.
	Description() string
	// Sniff reports whether a first line looks like this dialect.
	Sniff(line []byte) bool
	// NewDecoder returns a decoder for one stream.
	NewDecoder(opts DecodeOptions) Decoder
	// NewEncoder returns an encoder that writes one stream to w.
	NewEncoder(w *bufio.Writer, opts EncodeOptions) Encoder
	// Schema returns the dialect's published JSON Schema for one line
	// (draft 2020-12, $id under schema.BaseURL), embedded from the
	// dialect's own folder.
	Schema() []byte
	// NewChecker returns a checker of the dialect's stream rules.
	NewChecker(opts CheckOptions) Checker
}

// DecodeOptions configure a Decoder.
type DecodeOptions struct {
	// Provenance makes every event carry its source line in Src.
	Provenance bool
	// Lookahead says the input is a whole file, not a live pipe: a decoder
	// may hold events back (within a bound) until a later line tells it a
	// fact they need, such as the name of a tool a producer names last.
	Lookahead bool
}

// Decoder turns the lines of one stream into canonical events.
type Decoder interface {
	// Decode appends the events of one line to out. The line is valid JSON.
	// n is its 1-based physical line number. An error leaves the decoder
	// ready for the next line.
	Decode(out []*event.Event, line []byte, n int) ([]*event.Event, error)
	// End appends whatever the end of the stream implies.
	End(out []*event.Event) []*event.Event
}

// EncodeOptions configure an Encoder.
type EncodeOptions struct {
	// Losses counts what the target cannot carry. It is never nil.
	Losses *Losses
	// Defaults supply facts a target needs and a source may lack; a
	// target reads the fields its DefaultKeys name.
	Defaults Defaults
	// Config is the target's own settings (see Configurable), nil for its
	// defaults. Callers check it with CheckConfig first: an encoder takes
	// it to be of its own type.
	Config Config
}

// Encoder writes canonical events as the lines of one stream.
type Encoder interface {
	// Encode writes the lines for one event.
	Encode(e *event.Event) error
	// Close writes whatever the end of the stream implies. It does not
	// flush or close the underlying writer.
	Close() error
}

// CheckOptions configure a Checker.
type CheckOptions struct{}

// Checker checks the stream rules of one stream, line by line.
type Checker interface {
	// Line checks one line that is valid JSON.
	Line(line []byte, n int, report func(Finding))
	// End checks what only the end of the stream can tell.
	End(lastLine int, report func(Finding))
}

// ReadOnly is implemented by dialects evtool reads and never writes: the
// session files an agent keeps for itself, where a line evtool wrote would
// pass for the agent's own record. Their NewEncoder returns an encoder
// that fails (ReadOnlyEncoder); `evtool convert --to` refuses them before
// reading anything, and the dialect kit skips the checks of writing.
type ReadOnly interface {
	// ReadOnly says why the dialect is not written.
	ReadOnly() string
}

// Writable reports whether evtool writes the dialect.
func Writable(d Dialect) bool {
	_, ro := d.(ReadOnly)
	return !ro
}

// OpenEnded is implemented by dialects whose streams may stop anywhere: a
// session cut short is still a well-formed stream of them (ACP, where a
// session stays open for the next prompt and the encoder closes what is
// left open). Convert fails the conversion of a stream cut short into any
// other target, whose validator calls the output truncated, but not into
// these.
type OpenEnded interface {
	OpenEnded()
}

// Producer is implemented by dialects that one agent writes, whether it
// prints them or keeps them on disk: Agent names that agent as evtool
// names agents everywhere (usage --by agent, evtool sessions, --agent),
// so that a run reads as the same agent's whichever of its dialects it
// came in: "claude-code" for Claude Code's stream-json and transcripts,
// "gemini-cli" for Gemini CLI's stream and chats. Described implements
// it, with the dialect's own name for a dialect no one agent writes.
type Producer interface {
	Agent() string
}

// AgentOf returns the agent that writes a dialect: its Producer name,
// else the dialect's own name.
func AgentOf(d Dialect) string {
	if p, ok := d.(Producer); ok {
		return p.Agent()
	}
	return d.Name()
}

// ErrReadOnly is the error of writing a read-only dialect.
var ErrReadOnly = errors.New("evtool reads this dialect but does not write it")

// ReadOnlyEncoder returns the encoder of a read-only dialect: every
// Encode fails with ErrReadOnly.
func ReadOnlyEncoder(name string) Encoder { return readOnlyEncoder(name) }

type readOnlyEncoder string

func (e readOnlyEncoder) Encode(*event.Event) error {
	return fmt.Errorf("%s: %w", string(e), ErrReadOnly)
}
func (readOnlyEncoder) Close() error { return nil }

// Severity ranks a finding; see package diag.
type Severity = diag.Severity

// Severities of findings.
const (
	Error   = diag.Error
	Warning = diag.Warning
)

// Finding is one problem a Checker found: a diag.Diagnostic whose File
// and Col the caller fills in.
type Finding = diag.Diagnostic

var (
	mu       sync.RWMutex
	registry = map[string]Dialect{}
	order    []string
)

// Register adds a dialect. It panics on a duplicate name, or on a
// dialect whose About says why it is read-only while it is written (it
// embeds Described, not DescribedReadOnly): programming errors.
func Register(d Dialect) {
	if a, ok := d.(Describer); ok && a.About().ReadOnly != "" && Writable(d) {
		panic("dialect: " + d.Name() + " states why it is read-only, but is written: embed DescribedReadOnly")
	}
	mu.Lock()
	defer mu.Unlock()
	if _, dup := registry[d.Name()]; dup {
		panic("dialect: Register called twice for " + d.Name())
	}
	registry[d.Name()] = d
	order = append(order, d.Name())
}

// Lookup returns the dialect of that name.
func Lookup(name string) (Dialect, error) {
	mu.RLock()
	defer mu.RUnlock()
	if d, ok := registry[name]; ok {
		return d, nil
	}
	return nil, fmt.Errorf("unknown dialect %q (known: %s)", name, strings.Join(namesLocked(), ", "))
}

// All returns the registered dialects sorted by name.
func All() []Dialect {
	mu.RLock()
	defer mu.RUnlock()
	var out []Dialect
	for _, n := range namesLocked() {
		out = append(out, registry[n])
	}
	return out
}

func namesLocked() []string {
	names := append([]string(nil), order...)
	sort.Strings(names)
	return names
}

// Targets returns the registered dialects evtool writes (all but the
// ReadOnly ones), sorted by name.
func Targets() []Dialect {
	var out []Dialect
	for _, d := range All() {
		if Writable(d) {
			out = append(out, d)
		}
	}
	return out
}

// Detect returns the dialect whose Sniff accepts the line, trying them in
// name order.
func Detect(line []byte) (Dialect, bool) {
	for _, d := range All() {
		if d.Sniff(line) {
			return d, true
		}
	}
	return nil, false
}

// Rule describes one stream rule, for documentation and for tests that
// prove every rule is exercised.
type Rule = diag.Rule

// RuleLister is implemented by dialects that publish their rule catalogue.
type RuleLister interface {
	Rules() []Rule
}

// ErrorRule describes a rule whose findings are errors.
func ErrorRule(id, summary string) Rule { return Rule{ID: id, Severity: Error, Summary: summary} }

// WarningRule describes a rule whose findings are warnings.
func WarningRule(id, summary string) Rule { return Rule{ID: id, Severity: Warning, Summary: summary} }

// Reporter reports findings about one line. Checkers make one per line.
type Reporter struct {
	Line   int
	Report func(Finding)
}

// Errorf reports an error at the value ptr names.
func (r Reporter) Errorf(ptr, rule, format string, args ...any) {
	r.Report(Finding{Line: r.Line, Pointer: ptr, Severity: Error, Rule: rule, Message: fmt.Sprintf(format, args...)})
}

// Warnf reports a warning at the value ptr names.
func (r Reporter) Warnf(ptr, rule, format string, args ...any) {
	r.Report(Finding{Line: r.Line, Pointer: ptr, Severity: Warning, Rule: rule, Message: fmt.Sprintf(format, args...)})
}

// Unknownf reports an unknown type or field: a warning, an error when
// validation is strict.
func (r Reporter) Unknownf(ptr, rule, format string, args ...any) {
	r.Report(Finding{Line: r.Line, Pointer: ptr, Severity: Warning, Rule: rule, Message: fmt.Sprintf(format, args...), Unknown: true})
}

// DuplicateKeyer is implemented by a dialect whose producer is known to
// write one key twice in one object at some places (Codex flattens a
// web search's own id next to the item's id). The reading lets a repeated
// key pass at exactly those JSON pointers, and refuses it everywhere else.
type DuplicateKeyer interface {
	// DuplicateKeys lists the pointers of the second values, such as
	// "/item/id".
	DuplicateKeys() []string
}
