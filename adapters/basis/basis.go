// Package basis reads and writes the event stream of `basis spawn --json`.
//
// basis writes one flat JSON object per line: "seq", "type", then the
// event's fields in declaration order. Schema 1 and schema 2 streams both
// decode; unknown types become canonical "unknown" events and unknown fields
// ride in ext.basis, so basis → canonical → basis gives back the same JSON,
// byte for byte when the input was in basis's own key order.
package basis

import (
	"bufio"
	_ "embed"
	"slices"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/tidwall/gjson"
)

// Name is the dialect's name.
const Name = "basis"

func init() { dialect.Register(Dialect{}) }

// Dialect is the basis dialect.
type Dialect struct{ dialect.Described[Dialect] }

// About implements dialect.Describer.
func (Dialect) About() dialect.About {
	return dialect.About{
		Name:        Name,
		Description: "basis spawn --json (schema 1 and 2)",
		Schema:      schemaJSON,
		Rules:       &rules,
		Losses:      losses,
		// Defaults names the facts the basis encoder takes from --default (or
		// --session-id) when the source lacks them, instead of leaving them empty.
		Defaults: []dialect.DefaultKey{dialect.DefaultBasisVersion, dialect.DefaultModel, dialect.DefaultProvider, dialect.DefaultSessionID, dialect.DefaultWorkspace},
	}
}

//go:embed basis.schema.json
var schemaJSON []byte

// Sniff accepts a line with an integer "seq" and a string "type" and no
// canonical "source" object.
func (Dialect) Sniff(line []byte) bool {
	r := jsonobj.View(line) // read in place: a sniffer keeps nothing, and a first line may be huge
	return r.Get("seq").Type == gjson.Number && r.Get("type").Type == gjson.String &&
		!r.Get("source").Exists() && !r.Get("payload_type").Exists()
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

// fields lists the keys of every known type in basis's declared order,
// without the leading "seq" and "type".
var fields = map[string][]string{
	"run_started":                 {"schema", "basis", "session_id", "workspace", "model", "provider", "context_files", "skills_dirs", "skills", "templates_dirs", "templates", "mcp_files", "mcp_servers", "a2a_files", "a2a_agents"},
	"user_message":                {"text", "image_count"},
	"assistant_delta":             {"text"},
	"assistant_reasoning_delta":   {"text"},
	"assistant_message":           {"text"},
	"tool_queued":                 {"tool_call_id", "tool_name", "summary", "mutability", "input"},
	"tool_started":                {"tool_call_id", "tool_name"},
	"tool_progress":               {"tool_call_id", "tool_name", "progress"},
	"tool_completed":              {"tool_call_id", "tool_name", "summary", "is_error"},
	"permission_requested":        {"request_id", "tool_call_id", "tool_name", "description", "preview"},
	"permission_resolved":         {"request_id", "tool_call_id", "tool_name", "outcome", "rule_scope"},
	"task_updated":                {"task_id", "kind", "status", "title", "detail"},
	"compaction_started":          {"agent_id"},
	"compaction_completed":        {"agent_id", "replaced_items", "preserved_items", "transcript_len", "extracted_facts", "summary_preview"},
	"request_tool_results_elided": {"agent_id", "policy", "canonical_tool_result_content_bytes", "projected_tool_result_content_bytes", "results"},
	"memory_updated":              {"agent_id", "stored_records"},
	"usage":                       {"agent_id", "input_tokens", "output_tokens", "cache_read_tokens", "cache_creation_tokens", "reasoning_tokens", "thoughts_tokens"},
	"notice":                      {"severity", "message"},
	"retry":                       {"agent_id", "error", "attempt", "max_attempts", "next_delay_ms"},
	"error":                       {"message", "recoverable"},
	"branched":                    {"entry_id", "abandoned_entries"},
	"run_finished":                {"status", "message", "stopped_by", "usage"},
}

// Types returns the 22 known basis event types.
func Types() []string {
	out := make([]string, 0, len(fields))
	for t := range fields {
		out = append(out, t)
	}
	return out
}

// knownField reports whether k is a field of a type whose fields are
// known (an entry of fields, looked up once per line, not once per key).
func knownField(known []string, k string) bool {
	return k == "seq" || k == "type" || slices.Contains(known, k)
}

// schema2Only lists the types that exist only from schema 2 on.
var schema2Only = map[string]bool{"request_tool_results_elided": true}

// Fields returns the keys of a known basis type in declared order, without
// "seq" and "type", or nil for an unknown type.
func Fields(typ string) []string { return append([]string(nil), fields[typ]...) }

// optional lists, per type, the fields basis may leave out (Options and
// lists it skips when empty); every other field of fields it always
// writes.
var optional = map[string][]string{
	"run_started":         {"skills_dirs", "skills", "templates_dirs", "templates", "mcp_files", "mcp_servers", "a2a_files", "a2a_agents"},
	"user_message":        {"image_count"},
	"permission_resolved": {"rule_scope"},
	"task_updated":        {"detail"},
	"usage":               {"reasoning_tokens", "thoughts_tokens"},
	"notice":              {"severity"},
	"run_finished":        {"message", "stopped_by", "usage"},
}

// required lists the fields basis always writes, per type, in declared
// order: fields without the optional ones.
var required = func() map[string][]string {
	out := make(map[string][]string, len(fields))
	for typ, fs := range fields {
		out[typ] = slices.DeleteFunc(slices.Clone(fs), func(f string) bool { return slices.Contains(optional[typ], f) })
	}
	return out
}()

// Required returns the fields basis always writes for a type.
func Required(typ string) []string { return append([]string(nil), required[typ]...) }
