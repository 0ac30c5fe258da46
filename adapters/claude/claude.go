// Package claude reads and writes the stream of Claude Code's print mode,
// `claude -p --output-format stream-json --verbose`.
//
// Claude Code writes one JSON object per line, tagged on "type" (and on
// "subtype" for system and result lines). Its set of message types grows
// between versions: a line of a type or subtype this package does not know
// becomes an unknown event, kept whole, and never stops the stream. The
// only version marker is system/init's claude_code_version.
//
// A Claude Code line carries far more than the canonical model has a place
// for (uuids, timings, per-model usage, the API message envelope). The
// decoder keeps that residue in ext.claude as the difference between the
// source line and the line the encoder would write from the canonical
// events alone; the encoder applies it back, so claude → canonical →
// claude gives back the same bytes. See wire.go for the residue's form.
package claude

import (
	"bufio"
	_ "embed"
	"strings"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/tidwall/gjson"
)

// Name is the dialect's name.
const Name = "claude"

func init() { dialect.Register(Dialect{}) }

// Dialect is the Claude Code stream-json dialect.
type Dialect struct{ dialect.Described[Dialect] }

// About implements dialect.Describer.
func (Dialect) About() dialect.About {
	return dialect.About{
		Name:        Name,
		Agent:       "claude-code",
		Description: "Claude Code: claude -p --output-format stream-json --verbose (CLI 2.0.0 to 2.1.333)",
		Schema:      schemaJSON,
		Rules:       &rules,
		Losses:      losses,
		// Defaults names the facts the Claude Code encoder takes from --default
		// (or --session-id) for system/init when the source lacks them, instead of
		// leaving them empty.
		Defaults: []dialect.DefaultKey{dialect.DefaultModel, dialect.DefaultSessionID, dialect.DefaultWorkspace},
	}
}

//go:embed claude.schema.json
var schemaJSON []byte

// Sniff accepts a first line of a Claude Code type with the keys that type
// always has. It keys on Claude Code's own type names and envelope
// (session_id, subtype, message, parent_tool_use_id), never on key order,
// which Claude Code does not keep stable.
func (Dialect) Sniff(line []byte) bool {
	r := jsonobj.View(line) // read in place: a sniffer keeps nothing, and a first line may be huge
	if !r.IsObject() || r.Get("seq").Exists() || r.Get("jsonrpc").Exists() || r.Get("payload_type").Exists() {
		return false
	}
	t := r.Get("type")
	if t.Type != gjson.String {
		return false
	}
	session := r.Get("session_id").Type == gjson.String
	switch t.Str {
	case "system", "result":
		return session && r.Get("subtype").Type == gjson.String
	case "assistant", "user":
		return r.Get("message").IsObject() && (session || r.Get("parent_tool_use_id").Exists())
	case "stream_event":
		return r.Get("event").IsObject() && session
	case "rate_limit_event":
		return r.Get("rate_limit_info").IsObject()
	case "tool_progress":
		return r.Get("tool_use_id").Type == gjson.String && r.Get("tool_name").Type == gjson.String
	case "control_request":
		return r.Get("request_id").Type == gjson.String && r.Get("request").IsObject()
	case "control_response":
		return r.Get("response").IsObject()
	case "keep_alive":
		return true
	case "tool_use_summary", "auth_status", "prompt_suggestion", "conversation_reset", "active_goal":
		return session && r.Get("uuid").Type == gjson.String
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

// envelope are the keys every SDK message may carry besides its own.
var envelope = []string{"type", "uuid", "session_id"}

// subagentKeys are the keys subagent lines add (CLI 2.1.x).
var subagentKeys = []string{"parent_tool_use_id", "agent_id", "subagent_type", "task_description"}

// fields lists, per kind ("type" or "system/<subtype>"), the top-level keys
// the SDK types of 0.3.333 (and the wire, where it carries more) give that
// kind, besides the envelope. A kind missing here is unknown.
var fields = map[string][]string{
	"system/init": {"subtype", "cwd", "tools", "mcp_servers", "model", "permissionMode", "slash_commands", "apiKeySource",
		"claude_code_version", "output_style", "agents", "skills", "plugins", "betas", "terminal_slash_commands", "plugin_errors",
		"fast_mode_state", "fast_mode_disabled_reason", "effort", "view_mode", "capabilities",
		// On the wire of 2.1.178, not in the SDK types.
		"analytics_disabled", "product_feedback_disabled", "memory_paths",
		// On the wire of 2.1.28x (2.1.285 to 2.1.289), not in the SDK types.
		"messaging_socket_path", "per_turn_effort_active", "scratchpad_path", "startup_timing"},
	"assistant": append([]string{"message", "request_id", "error", "timestamp", "aborted", "supersedes", "context_usage",
		"usage_report", "user_message_uuid", "user_message_uuids", "resume_reason", "resumed_from_incomplete_thinking",
		// On the wire of 2.1.28x: the model's own tool inputs, before the CLI normalised them.
		"wire_tool_inputs", "wire_ingest_context"}, subagentKeys...),
	"user": append([]string{"message", "tool_use_result", "timestamp", "isSynthetic", "priority", "origin", "shouldQuery",
		"client_composed", "pasted_content", "inline_pastes", "isReplay", "file_attachments",
		"tool_result_meta"}, subagentKeys...), // the last on the wire of 2.1.28x
	"result": {"subtype", "result", "is_error", "num_turns", "duration_ms", "duration_api_ms", "stop_reason", "total_cost_usd",
		"usage", "modelUsage", "permission_denials", "api_error_status", "ttft_ms", "ttft_stream_ms", "time_to_request_ms",
		"terminal_reason", "structured_output", "deferred_tool_use", "fast_mode_state", "queued_turn_count", "result_index",
		"credential_expires_at", "origin", "errors", "startup_failure_reason", "invalid_config_file",
		// On the wire of 2.1.28x, not in the SDK types (and the *_ms and
		// time_to_request_* timings, see knownField).
		"subagent_stats", "process_turn_index", "turn_start_resume_kind", "input_attachments_detail", "flag_fetch_kick",
		"warm_spare_claimed"},
	"stream_event":                     {"event", "parent_tool_use_id", "ttft_ms", "agent_id", "subagent_type", "task_description", "thinking_display"},
	"rate_limit_event":                 {"rate_limit_info"},
	"tool_progress":                    {"tool_use_id", "tool_name", "parent_tool_use_id", "elapsed_time_seconds", "task_id", "heartbeat", "subagent_type", "subagent_retry", "description"},
	"tool_use_summary":                 {"summary", "preceding_tool_use_ids"},
	"auth_status":                      {"isAuthenticating", "output", "error"},
	"prompt_suggestion":                {"suggestion"},
	"conversation_reset":               {"new_conversation_id", "trigger", "user_message_uuid", "timestamp"},
	"system/thinking_tokens":           {"subtype", "estimated_tokens", "estimated_tokens_delta", "user_message_uuid"},
	"system/compact_boundary":          {"subtype", "compact_metadata"},
	"system/status":                    {"subtype", "status", "permissionMode", "compact_result", "compact_error"},
	"system/api_retry":                 {"subtype", "attempt", "max_retries", "retry_delay_ms", "error_status", "error", "no_response"},
	"system/model_refusal_fallback":    {"subtype", "trigger", "direction", "scope", "original_model", "fallback_model", "request_id", "api_refusal_category", "api_refusal_explanation", "retracted_message_uuids", "refused_user_message_uuid", "content"},
	"system/model_refusal_no_fallback": {"subtype", "trigger", "direction", "scope", "original_model", "request_id", "api_refusal_category", "api_refusal_explanation", "retracted_message_uuids", "refused_user_message_uuid", "content"},
	"system/task_started":              {"subtype", "task_id", "tool_use_id", "description", "subagent_type", "task_type", "prompt", "run_id", "is_backgrounded", "spawn_depth", "parent_task_id", "workflow_name", "skip_transcript", "ambient"},
	"system/task_progress":             {"subtype", "task_id", "tool_use_id", "description", "subagent_type", "usage", "last_tool_name", "summary", "run_id"},
	"system/task_updated":              {"subtype", "task_id", "run_id", "patch"},
	"system/task_notification":         {"subtype", "task_id", "tool_use_id", "status", "reason", "output_file", "summary", "usage", "resource_links", "run_id", "skip_transcript", "ambient"},
	"system/background_tasks_changed":  {"subtype", "tasks"},
	"system/hook_started":              {"subtype", "hook_id", "hook_name", "hook_event"},
	"system/hook_progress":             {"subtype", "hook_id", "hook_name", "hook_event", "stdout", "stderr", "output"},
	"system/hook_response":             {"subtype", "hook_id", "hook_name", "hook_event", "stdout", "stderr", "output", "exit_code", "outcome"},
	"system/permission_denied":         {"subtype", "tool_name", "tool_use_id", "message", "agent_id", "decision_reason_type", "decision_reason"},
	"system/informational":             {"subtype", "content", "level", "tool_use_id", "prevent_continuation", "tag"},
	"system/notification":              {"subtype", "key", "text", "priority", "color", "timeout_ms"},
	"system/local_command_output":      {"subtype", "content"},
	"system/session_state_changed":     {"subtype", "state"},
	"system/control_request_progress":  {"subtype", "request_id", "status", "attempt", "max_retries", "retry_delay_ms"},
	"system/plugin_install":            {"subtype", "status", "name", "error"},
	"system/commands_changed":          {"subtype", "commands"},
	"system/files_persisted":           {"subtype", "files", "failed", "processed_at"},
	"system/memory_recall":             {"subtype", "mode", "memories"},
	"system/elicitation_complete":      {"subtype", "mcp_server_name", "elicitation_id"},
	"system/worker_shutting_down":      {"subtype", "reason"},
	"system/mirror_error":              {"subtype", "error", "key"},
	"system/session_writes_lost":       {"subtype", "error_code", "lost", "transcript_session_ids"},
	"active_goal":                      {"value"},
	// On the wire of 2.1.28x, not in the SDK union.
	"autocompact_state":        {"value"},
	"system/post_turn_summary": {"subtype", "summarizes_uuid", "status_category", "status_detail", "needs_action"},
	"system/task_summary":      {"subtype", "detail"},
	"control_request":          {"request_id", "request"},
	"control_response":         {"response"},
	"control_cancel_request":   {"request_id"},
	"keep_alive":               {"startup_mark"},
}

// kindOf returns a line's kind: its type, or "system/<subtype>" for a
// system line, and whether this package knows it.
func kindOf(r gjson.Result) (string, bool) {
	t := r.Get("type").Str
	if t == "system" {
		t = "system/" + r.Get("subtype").Str
	}
	_, ok := fields[t]
	return t, ok
}

// knownField reports whether k is a key of the kind's lines.
func knownField(kind, k string) bool {
	for _, f := range envelope {
		if f == k {
			return true
		}
	}
	for _, f := range fields[kind] {
		if f == k {
			return true
		}
	}
	// The reference lists "about 15 more optional *_ms timing fields" on
	// result without naming them: any *_ms key is one of them.
	return kind == "result" && (strings.HasSuffix(k, "_ms") || strings.HasPrefix(k, "time_to_request_"))
}

// Kinds returns every known kind, "type" or "system/<subtype>".
func Kinds() []string {
	out := make([]string, 0, len(fields))
	for k := range fields {
		out = append(out, k)
	}
	return out
}

// opensTurn reports whether a line of this kind belongs to a turn and so
// begins one when none is open: the lines of the conversation itself and
// of its API calls (a rate_limit_event answers one). Notices, tasks,
// hooks and protocol lines may come between turns (a background task can
// end after a result) and attach to the open turn, if any.
func opensTurn(kind string) bool {
	switch kind {
	case "assistant", "user", "stream_event", "tool_progress", "tool_use_summary", "result", "rate_limit_event",
		"system/thinking_tokens", "system/api_retry":
		return true
	}
	return false
}
