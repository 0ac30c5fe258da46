// Package codexrollout reads the session files OpenAI Codex keeps for
// itself, its rollouts: $CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl,
// archived_sessions/, and the .jsonl.zst files newer builds compress them
// into. It is the dialect "codex-rollout", read and never written: a line
// evtool wrote there would pass for the agent's own record.
//
// A rollout line is {timestamp, [ordinal], type, payload, [metadata]}: the
// session's header (session_meta), the settings of each model request
// (turn_context), the model's history items (response_item), the events
// Codex persists (event_msg), compaction markers (compacted) and, in newer
// builds, per-response usage (token_usage_record) and other records. The
// mid-2025 format before it had a bare header line, {"record_type":"state"}
// markers and bare history items without timestamps; both are read.
//
// Codex writes most facts twice: a message as a history item and as an
// event, a tool call's result as an output item and as an end event, its
// usage as running totals that it writes again unchanged. The decoder
// reads each fact once and keeps the other copy whole as an unknown event
// marked with why it was kept (ext.codex-rollout["@kept"]): nothing is
// dropped, and nothing is counted twice. docs/dialects/codex-rollout.md
// states every choice.
package codexrollout

import (
	_ "embed"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/evtool/evtool/sessions"
	"github.com/tidwall/gjson"
)

// Name is the dialect's name.
const Name = "codex-rollout"

func init() {
	dialect.Register(Dialect{})
	sessions.Register(Store{})
}

// Dialect is the codex-rollout dialect.
type Dialect struct {
	dialect.DescribedReadOnly[Dialect]
}

// About implements dialect.Describer.
func (Dialect) About() dialect.About {
	return dialect.About{
		Name:        Name,
		Agent:       "codex",
		Description: "OpenAI Codex session files (rollout-*.jsonl, .jsonl.zst): session_meta/turn_context/response_item/event_msg lines of CLI 0.3x and later, and the mid-2025 bare format (read only)",
		ReadOnly:    "a rollout is Codex's own record of a session, which it resumes from; evtool reads it and never writes one",
		Schema:      schemaJSON,
		Rules:       &rules,
	}
}

//go:embed codex-rollout.schema.json
var schemaJSON []byte

// NewDecoder implements dialect.Dialect.
func (Dialect) NewDecoder(opts dialect.DecodeOptions) dialect.Decoder { return newDecoder(opts) }

// NewChecker implements dialect.Dialect.
func (Dialect) NewChecker(dialect.CheckOptions) dialect.Checker { return newChecker() }

// Sniff accepts the first line of a rollout: a rollout line
// {timestamp, type, payload} whose type is one of the rollout item types
// (session_meta first, but a file cut at its head starts elsewhere), or
// the bare header of the mid-2025 format, {id, timestamp, instructions,
// git, …}. Other dialects' lines carry no payload object beside a
// rollout item type (codex exec's {"type":"thread.started"} has none),
// and no bare {id, timestamp} without a type.
func (Dialect) Sniff(line []byte) bool {
	r := jsonobj.View(line) // read in place: a sniffer keeps nothing, and a first line may be huge
	if !r.IsObject() {
		return false
	}
	for _, k := range []string{"seq", "jsonrpc", "payload_type", "schema_version", "sessionId", "uuid", "record_type"} {
		if r.Get(k).Exists() {
			return false
		}
	}
	t := r.Get("type")
	if t.Exists() {
		return t.Type == gjson.String && envelopeTypes[t.Str] && r.Get("payload").IsObject() && r.Get("timestamp").Type == gjson.String
	}
	return isLegacyHeader(r)
}

// isLegacyHeader reports whether an object is the bare header of the
// mid-2025 format: an id and a timestamp, and one of the fields only that
// header has beside them (instructions, git, or the CLI's originator and
// version).
func isLegacyHeader(r gjson.Result) bool {
	if r.Get("type").Exists() || r.Get("payload").Exists() || r.Get("record_type").Exists() {
		return false
	}
	if r.Get("id").Type != gjson.String || r.Get("timestamp").Type != gjson.String {
		return false
	}
	if r.Get("instructions").Exists() || r.Get("git").IsObject() {
		return true
	}
	return r.Get("originator").Type == gjson.String && r.Get("cli_version").Type == gjson.String
}
