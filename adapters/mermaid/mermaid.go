// Package mermaid reads and writes the run-event stream of
// `mermaid run --format ndjson`.
//
// mermaid writes one flat JSON object per line tagged on "type", with no
// sequence numbers or timestamps. Several absent optionals are written as
// null; the decoder does not turn a null into a fact, and the encoder writes
// the nulls back (and leaves out keys that an older recording lacked), so
// mermaid → canonical → mermaid gives back the same JSON.
package mermaid

import (
	"bufio"
	_ "embed"
	"slices"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/internal/jsonobj"
)

// Name is the dialect's name.
const Name = "mermaid"

// ProtocolVersion is the only mermaid run-event protocol version.
const ProtocolVersion = 1

func init() { dialect.Register(Dialect{}) }

// Dialect is the mermaid dialect.
type Dialect struct{ dialect.Described[Dialect] }

// About implements dialect.Describer.
func (Dialect) About() dialect.About {
	return dialect.About{
		Name:        Name,
		Description: "mermaid run --format ndjson (protocol 1)",
		Schema:      schemaJSON,
		Rules:       &rules,
		Losses:      losses,
		// Defaults names the facts the mermaid encoder takes from --default (or
		// --session-id) when the source lacks them, instead of leaving them empty.
		Defaults: []dialect.DefaultKey{dialect.DefaultCLIVersion, dialect.DefaultModel, dialect.DefaultSessionID},
	}
}

//go:embed mermaid.schema.json
var schemaJSON []byte

// Sniff accepts a session_started line with a protocol_version, or any line
// of a mermaid-only type without seq.
func (Dialect) Sniff(line []byte) bool {
	r := jsonobj.View(line) // read in place: a sniffer keeps nothing, and a first line may be huge
	if r.Get("seq").Exists() || r.Get("payload_type").Exists() {
		return false
	}
	t := r.Get("type").Str
	return (t == "session_started" && r.Get("protocol_version").Exists()) ||
		t == "text" || t == "tool_finished" || t == "tasks_updated" || t == "turn_done" || t == "approval_required"
}

// NewDecoder implements dialect.Dialect.
func (Dialect) NewDecoder(opts dialect.DecodeOptions) dialect.Decoder {
	return &Decoder{opts: opts}
}

// NewEncoder implements dialect.Dialect.
func (Dialect) NewEncoder(w *bufio.Writer, opts dialect.EncodeOptions) dialect.Encoder {
	return &Encoder{w: w, opts: opts}
}

// NewChecker implements dialect.Dialect.
func (Dialect) NewChecker(dialect.CheckOptions) dialect.Checker { return newChecker() }

// fields lists the keys of every known type in mermaid's declared order,
// after the leading "type".
var fields = map[string][]string{
	"session_started":   {"protocol_version", "cli_version", "model", "task_id", "session_id"},
	"text":              {"delta"},
	"reasoning":         {"delta"},
	"tool_started":      {"call_id"},
	"tool_finished":     {"call_id", "name", "status", "summary", "error", "plan", "web", "fuzzy"},
	"approval_required": {"call_id", "tool", "risk", "prompt"},
	"tasks_updated":     {"tasks", "completed", "total"},
	"error":             {"message"},
	"turn_done":         {"total_tokens", "stop_reason"},
	"result":            {"response", "reasoning", "total_tokens", "errors", "session_id", "structured_output"},
}

// Fields returns the keys of a known type in declared order, without
// "type", or nil for an unknown type.
func Fields(typ string) []string { return append([]string(nil), fields[typ]...) }

// Types returns the ten known mermaid event types.
func Types() []string {
	out := make([]string, 0, len(fields))
	for t := range fields {
		out = append(out, t)
	}
	return out
}

func knownField(t, k string) bool { return k == "type" || slices.Contains(fields[t], k) }
