// Package codex reads and writes the event stream of OpenAI Codex's
// `codex exec --json` (also `--experimental-json`), the thread/turn/item
// format Codex has written since 0.44.
//
// Every line is a flat object tagged on "type": thread.started, turn.*,
// item.{started,updated,completed} with the item flattened under "item"
// (its own "type" beside its "id"), error, and the older item.plan.delta
// and request_user_input. The reader accepts the union of what the Rust
// types in codex-rs/exec (exec_events.rs) and the TypeScript SDK
// (@openai/codex-sdk) describe: keys in any order, unknown keys kept in
// ext.codex, unknown event and item types kept whole as unknown events,
// Option fields absent or null, integers within their Rust type.
//
// Writing follows the same derivation in both directions: the encoder
// derives each line from the canonical events and the lines written
// before it, and the decoder derives the same line from the events it
// made and stores only the difference to the real line in ext.codex
// (see residue.go). So codex → canonical → codex gives back every line as
// the same JSON, byte for byte where the line is in the producer's form.
package codex

import (
	"bufio"
	_ "embed"
	"slices"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/tidwall/gjson"
)

// Name is the dialect's name.
const Name = "codex"

func init() { dialect.Register(Dialect{}) }

// Dialect is the codex dialect.
type Dialect struct{ dialect.Described[Dialect] }

// About implements dialect.Describer.
func (Dialect) About() dialect.About {
	return dialect.About{
		Name:        Name,
		Agent:       "codex",
		Description: "OpenAI Codex `codex exec --json` thread/turn/item events (CLI 0.44 and later; Rust exec_events.rs and SDK 0.163 types)",
		Schema:      schemaJSON,
		Rules:       &rules,
		Losses:      losses,
		// Defaults names the facts the codex encoder takes from --default (or
		// --session-id) when the source lacks them.
		Defaults: []dialect.DefaultKey{dialect.DefaultSessionID},
	}
}

// DecodeError is a known codex field with a value the producer's types
// refuse (an integer written as 1.0, say).
type DecodeError = jsonobj.FieldError

// DuplicateKeys implements dialect.DuplicateKeyer: Codex's Rust types
// flatten a web search's own id next to the item's, so a web_search item
// can carry "id" twice (the item's first, the search's second).
func (Dialect) DuplicateKeys() []string { return []string{"/item/id"} }

//go:embed codex.schema.json
var schemaJSON []byte

// Sniff accepts a line of one of Codex's dotted event types (thread.*,
// turn.*, item.*), which no other dialect uses; an item event must carry
// its item. The generic "error" and the legacy {"id","msg"} envelope of
// Codex before 0.44 are not taken.
func (Dialect) Sniff(line []byte) bool {
	r := jsonobj.View(line) // read in place: a sniffer keeps nothing, and a first line may be huge
	if !r.IsObject() || r.Get("seq").Exists() || r.Get("jsonrpc").Exists() || r.Get("payload_type").Exists() {
		return false
	}
	t := r.Get("type")
	if t.Type != gjson.String {
		return false
	}
	switch t.Str {
	case "thread.started":
		return r.Get("thread_id").Type == gjson.String
	case "turn.started", "turn.completed", "turn.failed":
		return true
	case "item.started", "item.updated", "item.completed":
		return r.Get("item").IsObject()
	case "item.plan.delta":
		return r.Get("item_id").Exists()
	}
	return false
}

// NewDecoder implements dialect.Dialect.
func (Dialect) NewDecoder(opts dialect.DecodeOptions) dialect.Decoder { return newDecoder(opts) }

// NewEncoder implements dialect.Dialect.
func (Dialect) NewEncoder(w *bufio.Writer, opts dialect.EncodeOptions) dialect.Encoder {
	return newEncoder(w, opts)
}

// NewChecker implements dialect.Dialect.
func (Dialect) NewChecker(dialect.CheckOptions) dialect.Checker { return newChecker() }

// fields lists the keys of every known top-level type in the producer's
// order, after the leading "type".
var fields = map[string][]string{
	"thread.started":     {"thread_id", "timestamp"},
	"turn.started":       {},
	"turn.completed":     {"usage"},
	"turn.failed":        {"error"},
	"item.started":       {"item"},
	"item.updated":       {"item"},
	"item.completed":     {"item"},
	"item.plan.delta":    {"item_id", "delta"},
	"request_user_input": {"id", "call_id", "questions"},
	"error":              {"message"},
}

// itemFields lists the payload keys of every known item type in the
// producer's order, after the leading "id" and "type". web_search's own
// "id" (the raw search id, a second "id" key on the wire) is written
// after "type".
var itemFields = map[string][]string{
	"agent_message":     {"text"},
	"reasoning":         {"text"},
	"plan":              {"text"},
	"command_execution": {"command", "aggregated_output", "exit_code", "status"},
	"file_change":       {"changes", "status"},
	"mcp_tool_call":     {"server", "tool", "arguments", "result", "error", "status"},
	"web_search":        {"query", "action", "results"},
	"todo_list":         {"items"},
	"error":             {"message"},
	"collab_tool_call":  {"tool", "sender_thread_id", "receiver_thread_ids", "prompt", "agents_states", "status"},
}

// usageFields are the keys of turn.completed's usage, in the producer's
// order. The first three are always written; the last two came with SDK
// 0.125 and 0.145.
var usageFields = []string{"input_tokens", "cached_input_tokens", "output_tokens", "reasoning_output_tokens", "cache_write_input_tokens"}

// nestedFields lists the keys of the nested object types, for the
// unknown-field rule.
var nestedFields = map[string][]string{
	"usage":       usageFields,
	"error":       {"message"},
	"change":      {"path", "kind", "diff"},
	"todo":        {"text", "completed"},
	"result":      {"content", "structured_content", "_meta"},
	"action":      {"type", "query", "queries", "url", "pattern"},
	"agent_state": {"status", "message"},
	"question":    {"id", "header", "question", "isOther", "isSecret", "options"},
	"option":      {"label", "description"},
}

// Types returns the known top-level event types.
func Types() []string {
	out := make([]string, 0, len(fields))
	for t := range fields {
		out = append(out, t)
	}
	return out
}

// ItemTypes returns the known item types.
func ItemTypes() []string {
	out := make([]string, 0, len(itemFields))
	for t := range itemFields {
		out = append(out, t)
	}
	return out
}

func knownField(t, k string) bool { return k == "type" || slices.Contains(fields[t], k) }

func knownItemField(t, k string) bool {
	return k == "id" || k == "type" || slices.Contains(itemFields[t], k)
}
