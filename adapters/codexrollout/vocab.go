package codexrollout

import (
	"strings"

	"github.com/evtool/evtool/event"
)

// The words of Codex's rollout types, as far as they are known: the
// union of codex-rs/protocol (RolloutItem, EventMsg, ResponseItem) from
// 0.39 to the 2026 builds that write ordinals, and of what
// codex-rs/rollout/src/policy.rs persists. A type a table lacks (a newer
// producer's) is kept whole as an unknown event and reported by
// codex-rollout/unknown-type.

// envelopeTypes are RolloutItem's tags, the "type" of a rollout line.
var envelopeTypes = map[string]bool{
	"session_meta":                       true,
	"turn_context":                       true,
	"response_item":                      true,
	"event_msg":                          true,
	"compacted":                          true,
	"token_usage_record":                 true,
	"world_state":                        true,
	"inter_agent_communication":          true,
	"inter_agent_communication_metadata": true,
	"retained_context":                   true,
	"security_risk_score":                true,
	"realtime_item":                      true,
}

// envelopeFields are the keys of a rollout line. RolloutLine flattens its
// item beside the timestamp (and, since 2026, the ordinal); newer builds
// put a response item's harness metadata beside its payload.
var envelopeFields = map[string]bool{"timestamp": true, "ordinal": true, "type": true, "payload": true, "metadata": true}

// responseTypes are ResponseItem's tags: a response_item's payload type,
// and the type of a bare item of the mid-2025 format.
var responseTypes = map[string]bool{
	"message":                 true,
	"reasoning":               true,
	"function_call":           true,
	"function_call_output":    true,
	"custom_tool_call":        true,
	"custom_tool_call_output": true,
	"local_shell_call":        true,
	"web_search_call":         true,
	"image_generation_call":   true,
	"tool_search_call":        true,
	"tool_search_output":      true,
	"compaction":              true,
	"compaction_summary":      true, // Compaction's serde alias
	"context_compaction":      true,
	"ghost_snapshot":          true,
	"agent_message":           true,
	"additional_tools":        true,
	"configuration_update":    true,
	"compaction_trigger":      true,
	"other":                   true,
}

// eventTypes are the EventMsg tags rollouts persist (policy.rs, limited
// and extended modes, in every version read), with the aliases serde
// accepts for them.
var eventTypes = map[string]bool{
	"user_message":                 true,
	"agent_message":                true,
	"agent_reasoning":              true,
	"agent_reasoning_raw_content":  true,
	"token_count":                  true,
	"context_compacted":            true,
	"task_started":                 true,
	"turn_started":                 true, // TurnStarted's alias
	"task_complete":                true,
	"turn_complete":                true, // TurnComplete's alias
	"turn_aborted":                 true,
	"thread_rolled_back":           true,
	"undo_completed":               true,
	"entered_review_mode":          true,
	"exited_review_mode":           true,
	"thread_name_updated":          true,
	"thread_goal_updated":          true,
	"item_completed":               true,
	"injected_message":             true,
	"sub_agent_activity":           true,
	"image_generation_end":         true,
	"web_search_end":               true,
	"exec_command_end":             true,
	"patch_apply_end":              true,
	"mcp_tool_call_end":            true,
	"view_image_tool_call":         true,
	"dynamic_tool_call_request":    true,
	"dynamic_tool_call_response":   true,
	"collab_agent_spawn_end":       true,
	"collab_agent_interaction_end": true,
	"collab_waiting_end":           true,
	"collab_close_end":             true,
	"collab_resume_end":            true,
	"guardian_assessment":          true,
	"error":                        true,
	"warning":                      true,
}

// endEvents are the events that report a tool call's end, each with the
// tool name a call gets when no earlier line announced it.
var endEvents = map[string]string{
	"exec_command_end":             "shell",
	"patch_apply_end":              "apply_patch",
	"mcp_tool_call_end":            "", // named from its invocation
	"web_search_end":               "web_search",
	"image_generation_end":         "image_generation",
	"dynamic_tool_call_response":   "", // named from its tool
	"collab_agent_spawn_end":       "spawn_agent",
	"collab_agent_interaction_end": "send_input",
	"collab_waiting_end":           "wait",
	"collab_close_end":             "close_agent",
	"collab_resume_end":            "resume_agent",
}

// usageFields are TokenUsage's counts, in the producer's order. The
// cache-write count came with 2026 builds (serde default 0).
var usageFields = []string{"input_tokens", "cached_input_tokens", "cache_write_input_tokens", "output_tokens", "reasoning_output_tokens", "total_tokens"}

// The ways a kept line is marked, in ext.codex-rollout["@kept"]: why a
// line that evtool reads became an unknown event rather than an event of
// its own.
const (
	keptReplayed   = "replayed"      // a line of the parent's history that a fork or subagent copied
	keptCopy       = "copy"          // a second account of a fact another line gave (see the package doc)
	keptNoTokens   = "no-new-tokens" // a usage total that adds nothing to the one before it
	keptUnmapped   = "unmapped"      // a known line the canonical vocabulary has no event for
	keptUnreadable = "unreadable"    // a line with a known field the producer's types refuse
)

// toolKinds give a tool's kind by the names Codex gives its model tools.
var toolKinds = map[string]event.ToolKind{
	"shell": event.KindExecute, "container.exec": event.KindExecute, "local_shell": event.KindExecute,
	"exec_command": event.KindExecute, "shell_command": event.KindExecute, "write_stdin": event.KindExecute,
	"unified_exec": event.KindExecute, "exec": event.KindExecute, "user_shell": event.KindExecute,
	"apply_patch": event.KindEdit, "write_file": event.KindEdit, "edit_file": event.KindEdit,
	"read_file": event.KindRead, "view_image": event.KindRead, "list_dir": event.KindRead,
	"grep_files": event.KindSearch, "tool_search": event.KindSearch, "web_search": event.KindSearch,
	"update_plan": event.KindThink,
}

// kindOf gives a tool's kind and mutability by its name; a tool Codex
// does not name (an MCP server's, a dynamic tool) is "other".
func kindOf(name string) (event.ToolKind, event.Mutability) {
	k, ok := toolKinds[name]
	if !ok {
		// Codex 0.4x qualifies MCP tools as server__tool.
		if i := strings.LastIndex(name, "__"); i >= 0 {
			k, ok = toolKinds[name[i+2:]]
		}
	}
	if !ok {
		return event.KindOther, event.MutabilityUnknown
	}
	switch k {
	case event.KindRead, event.KindSearch, event.KindThink, event.KindFetch:
		return k, event.ReadOnly
	case event.KindEdit:
		return k, event.Mutating
	}
	return k, event.MutabilityUnknown
}
