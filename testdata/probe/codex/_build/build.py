#!/usr/bin/env python3
"""Writes the codex probe streams: each invalid one is a short valid stream
with ONE bad line, and EXPECT.tsv names its line and the pointer of the bad
value. The lines are written by hand from the Rust types of codex-rs/exec
(exec_events.rs) and the wire reference ../../../../shared/dialects-next/codex.md;
this script only puts them together. Run it from this folder."""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..")

HEAD = [
    '{"type":"thread.started","thread_id":"0199f0aa-1111-7222-8333-444455556666"}',
    '{"type":"turn.started"}',
    '{"type":"item.started","item":{"id":"item_0","type":"command_execution","command":"/bin/bash -lc ls","aggregated_output":"","exit_code":null,"status":"in_progress"}}',
    '{"type":"item.completed","item":{"id":"item_0","type":"command_execution","command":"/bin/bash -lc ls","aggregated_output":"src\\n","exit_code":0,"status":"completed"}}',
]
TAIL = [
    '{"type":"item.completed","item":{"id":"item_1","type":"agent_message","text":"done"}}',
    '{"type":"turn.completed","usage":{"input_tokens":120,"cached_input_tokens":64,"output_tokens":9}}',
]
BASE = HEAD + TAIL

CMD_DONE = '{"type":"item.completed","item":{"id":"item_9","type":"command_execution","command":"true","aggregated_output":"","exit_code":%s,"status":"completed"}}'
USAGE = '{"type":"turn.completed","usage":{"input_tokens":%s,"cached_input_tokens":64,"output_tokens":9}}'

# name: (lines, bad line number, pointer, reason). A bad line inserted at
# line 5 goes before the closing agent message and turn.completed.
def at5(line):
    return HEAD + [line] + TAIL

def last(line):
    return HEAD + TAIL[:1] + [line]

invalid = {
    "first_line_not_thread_started": (BASE[1:], 1, "/type", "the first line must be thread.started"),
    "thread_started_inside_turn": (at5(BASE[0]), 5, "/type", "a new process (thread.started) while a turn is open: the process before it ended without turn.completed/turn.failed"),
    "thread_started_other_thread": (BASE + ['{"type":"thread.started","thread_id":"0199f0aa-9999-7222-8333-444455556666"}', BASE[1], TAIL[0], USAGE % "300"], 7, "/thread_id", "a resumed process continues the same thread: thread_id must not change"),
    "two_turns_one_process": (BASE + [BASE[1], '{"type":"item.completed","item":{"id":"item_2","type":"agent_message","text":"again"}}', USAGE % "300"], 7, "/type", "a codex exec process runs one turn; the next turn is a new process with its own thread.started"),
    "turn_started_twice": (at5(BASE[1]), 5, "/type", "turn.started while a turn is open"),
    "turn_completed_without_start": (BASE[:1] + BASE[4:], 3, "/type", "turn.completed with no open turn"),
    "truncated_no_turn_completed": (BASE[:-1], 5, "-", "interrupted run: no turn.completed/turn.failed before EOF"),
    "item_completed_twice": (at5(BASE[3]), 5, "/item/id", "item_0 completes twice"),
    "item_started_twice": (HEAD[:3] + [HEAD[2]] + HEAD[3:] + TAIL, 4, "/item/id", "item_0 starts twice"),
    "item_type_changed": (HEAD[:3] + ['{"type":"item.completed","item":{"id":"item_0","type":"mcp_tool_call","server":"s","tool":"t","status":"completed"}}'] + TAIL, 4, "/item/type", "item_0 changes type"),
    "missing_required_thread_started.thread_id": (['{"type":"thread.started"}'] + BASE[1:], 1, "", "ThreadStartedEvent without thread_id"),
    "wrong_type_thread_id_number": (['{"type":"thread.started","thread_id":7}'] + BASE[1:], 1, "/thread_id", "thread_id is a String"),
    "wrong_type_timestamp_number": (['{"type":"thread.started","thread_id":"t","timestamp":1767225600}'] + BASE[1:], 1, "/timestamp", "timestamp is an Option<String>"),
    "missing_required_type": (at5('{"item":{"id":"item_9","type":"agent_message","text":"x"}}'), 5, "", "every line is tagged on type"),
    "wrong_type_type_tag_number": (at5('{"type":5}'), 5, "/type", "the tag is a string"),
    "not_an_object": (at5('["item.completed"]'), 5, "", "a line is an object"),
    "not_an_object_null": (at5('null'), 5, "", "a line is an object"),
    "malformed_trailing_comma": (at5('{"type":"error","message":"x",}'), 5, "", "trailing comma"),
    "malformed_json_truncated": (at5('{"type":"item.completed","item":{"id":"item_9","type":"agent_message","text":"cut'), 5, "", "a half-written last line of a killed process"),
    "malformed_two_objects_one_line": (at5('{"type":"error","message":"a"}{"type":"error","message":"b"}'), 5, "", "two JSON values on one line"),
    "nonjson_stderr_line": (at5('Reading additional input from stdin...'), 5, "", "stderr text merged into stdout is not JSON"),
    "nonjson_infinity_literal": (at5('{"type":"turn.completed","usage":{"input_tokens":Infinity,"cached_input_tokens":0,"output_tokens":0}}'), 5, "", "Infinity is not JSON"),
    "raw_control_char_in_string": (at5('{"type":"error","message":"a\tb"}'), 5, "", "raw TAB inside a string"),
    "invalid_utf8": (at5(b'{"type":"error","message":"\xff"}'), 5, "", "byte 0xFF is not UTF-8"),
    "lone_surrogate_escape": (at5('{"type":"item.completed","item":{"id":"item_9","type":"agent_message","text":"\\udc00"}}'), 5, "/item/text", "serde_json refuses a lone surrogate in a String"),
    "duplicate_key_type": (at5('{"type":"error","type":"error","message":"x"}'), 5, "/type", "duplicate tag"),
    "duplicate_key_usage_member": (last('{"type":"turn.completed","usage":{"input_tokens":1,"input_tokens":2,"cached_input_tokens":0,"output_tokens":0}}'), 6, "/usage/input_tokens", "duplicate usage member"),
    "missing_required_turn.completed.usage": (last('{"type":"turn.completed"}'), 6, "", "TurnCompletedEvent without usage"),
    "wrong_type_usage_string": (last('{"type":"turn.completed","usage":"lots"}'), 6, "/usage", "usage is an object"),
    "missing_required_usage.cached_input_tokens": (last('{"type":"turn.completed","usage":{"input_tokens":120,"output_tokens":9}}'), 6, "/usage", "Usage without cached_input_tokens"),
    "missing_required_usage.output_tokens": (last('{"type":"turn.completed","usage":{"input_tokens":120,"cached_input_tokens":64}}'), 6, "/usage", "Usage without output_tokens"),
    "i64_overflow_input_tokens": (last(USAGE % "9223372036854775808"), 6, "/usage/input_tokens", "input_tokens is an i64"),
    "i64_underflow_input_tokens": (last(USAGE % "-9223372036854775809"), 6, "/usage/input_tokens", "input_tokens is an i64"),
    "i64_fraction_input_tokens": (last(USAGE % "120.0"), 6, "/usage/input_tokens", "serde_json reads 120.0 as a float"),
    "i64_exponent_input_tokens": (last(USAGE % "1.2e2"), 6, "/usage/input_tokens", "serde_json reads 1.2e2 as a float"),
    "i64_negative_zero_input_tokens": (last(USAGE % "-0"), 6, "/usage/input_tokens", "serde_json reads -0 as a float"),
    "wrong_type_input_tokens_string": (last(USAGE % '"120"'), 6, "/usage/input_tokens", "input_tokens is an integer"),
    "wrong_type_reasoning_tokens_null": (last('{"type":"turn.completed","usage":{"input_tokens":120,"cached_input_tokens":64,"output_tokens":9,"reasoning_output_tokens":null}}'), 6, "/usage/reasoning_output_tokens", "reasoning_output_tokens is an i64, not an Option"),
    "missing_required_turn.failed.error": (last('{"type":"turn.failed"}'), 6, "", "TurnFailedEvent without error"),
    "wrong_type_turn_failed_error_string": (last('{"type":"turn.failed","error":"boom"}'), 6, "/error", "error is a ThreadErrorEvent object"),
    "missing_required_turn_failed_error.message": (last('{"type":"turn.failed","error":{}}'), 6, "/error", "ThreadErrorEvent without message"),
    "missing_required_error.message": (at5('{"type":"error"}'), 5, "", "ThreadErrorEvent without message"),
    "wrong_type_error_message_null": (at5('{"type":"error","message":null}'), 5, "/message", "message is a String"),
    "missing_required_item.plan.delta.delta": (at5('{"type":"item.plan.delta","item_id":"item_9"}'), 5, "", "PlanDeltaEvent without delta"),
    "missing_required_request_user_input.call_id": (at5('{"type":"request_user_input","id":"turn-1","questions":[]}'), 5, "", "RequestUserInputEvent without call_id"),
    "wrong_type_questions_object": (at5('{"type":"request_user_input","id":"turn-1","call_id":"c","questions":{}}'), 5, "/questions", "questions is a Vec"),
    "missing_required_question.header": (at5('{"type":"request_user_input","id":"turn-1","call_id":"c","questions":[{"id":"q","question":"?"}]}'), 5, "/questions/0", "RequestUserInputQuestion without header"),
    "wrong_type_question_isSecret_string": (at5('{"type":"request_user_input","id":"turn-1","call_id":"c","questions":[{"id":"q","header":"h","question":"?","isSecret":"no"}]}'), 5, "/questions/0/isSecret", "isSecret is a bool"),
    "missing_required_item": (at5('{"type":"item.started"}'), 5, "", "ItemStartedEvent without item"),
    "wrong_type_item_string": (at5('{"type":"item.completed","item":"agent_message"}'), 5, "/item", "item is an object"),
    "missing_required_item.id": (at5('{"type":"item.completed","item":{"type":"agent_message","text":"x"}}'), 5, "/item", "ThreadItem without id"),
    "wrong_type_item_id_number": (at5('{"type":"item.completed","item":{"id":9,"type":"agent_message","text":"x"}}'), 5, "/item/id", "id is a String"),
    "missing_required_item.type": (at5('{"type":"item.completed","item":{"id":"item_9","text":"x"}}'), 5, "/item", "ThreadItem without its type tag"),
    "missing_required_agent_message.text": (at5('{"type":"item.completed","item":{"id":"item_9","type":"agent_message"}}'), 5, "/item", "AgentMessageItem without text"),
    "wrong_type_agent_message_text_null": (at5('{"type":"item.completed","item":{"id":"item_9","type":"agent_message","text":null}}'), 5, "/item/text", "text is a String"),
    "missing_required_reasoning.text": (at5('{"type":"item.completed","item":{"id":"item_9","type":"reasoning"}}'), 5, "/item", "ReasoningItem without text"),
    "missing_required_error_item.message": (at5('{"type":"item.completed","item":{"id":"item_9","type":"error"}}'), 5, "/item", "ErrorItem without message"),
    "missing_required_command.aggregated_output": (at5('{"type":"item.started","item":{"id":"item_9","type":"command_execution","command":"ls","exit_code":null,"status":"in_progress"}}'), 5, "/item", "CommandExecutionItem without aggregated_output"),
    "missing_required_command.status": (at5('{"type":"item.started","item":{"id":"item_9","type":"command_execution","command":"ls","aggregated_output":""}}'), 5, "/item", "CommandExecutionItem without status"),
    "i32_overflow_exit_code": (at5(CMD_DONE % "2147483648"), 5, "/item/exit_code", "exit_code is an Option<i32>"),
    "i32_underflow_exit_code": (at5(CMD_DONE % "-2147483649"), 5, "/item/exit_code", "exit_code is an Option<i32>"),
    "i32_fraction_exit_code": (at5(CMD_DONE % "0.0"), 5, "/item/exit_code", "serde_json reads 0.0 as a float"),
    "i32_exponent_exit_code": (at5(CMD_DONE % "1e0"), 5, "/item/exit_code", "serde_json reads 1e0 as a float"),
    "wrong_type_exit_code_string": (at5(CMD_DONE % '"0"'), 5, "/item/exit_code", "exit_code is an integer or null"),
    "missing_required_file_change.changes": (at5('{"type":"item.completed","item":{"id":"item_9","type":"file_change","status":"completed"}}'), 5, "/item", "FileChangeItem without changes"),
    "wrong_type_file_change_changes_object": (at5('{"type":"item.completed","item":{"id":"item_9","type":"file_change","changes":{"path":"a","kind":"add"},"status":"completed"}}'), 5, "/item/changes", "changes is a Vec"),
    "missing_required_change.kind": (at5('{"type":"item.completed","item":{"id":"item_9","type":"file_change","changes":[{"path":"a"}],"status":"completed"}}'), 5, "/item/changes/0", "FileUpdateChange without kind"),
    "wrong_type_change_kind_object": (at5('{"type":"item.completed","item":{"id":"item_9","type":"file_change","changes":[{"path":"a","kind":{"type":"update"}}],"status":"completed"}}'), 5, "/item/changes/0/kind", "the app-server shape (kind as an object) is not exec's"),
    "missing_required_mcp.server": (at5('{"type":"item.started","item":{"id":"item_9","type":"mcp_tool_call","tool":"t","arguments":{},"result":null,"error":null,"status":"in_progress"}}'), 5, "/item", "McpToolCallItem without server"),
    "wrong_type_mcp_result_string": (at5('{"type":"item.completed","item":{"id":"item_9","type":"mcp_tool_call","server":"s","tool":"t","arguments":{},"result":"ok","error":null,"status":"completed"}}'), 5, "/item/result", "result is an Option<McpToolCallItemResult>"),
    "missing_required_mcp_result.content": (at5('{"type":"item.completed","item":{"id":"item_9","type":"mcp_tool_call","server":"s","tool":"t","arguments":{},"result":{"structured_content":null},"error":null,"status":"completed"}}'), 5, "/item/result", "McpToolCallItemResult without content"),
    "missing_required_mcp_error.message": (at5('{"type":"item.completed","item":{"id":"item_9","type":"mcp_tool_call","server":"s","tool":"t","arguments":{},"result":null,"error":{},"status":"failed"}}'), 5, "/item/error", "McpToolCallItemError without message"),
    "missing_required_web_search.query": (at5('{"type":"item.completed","item":{"id":"item_9","type":"web_search"}}'), 5, "/item", "WebSearchItem without query"),
    "wrong_type_web_search_query_null": (at5('{"type":"item.completed","item":{"id":"item_9","type":"web_search","query":null}}'), 5, "/item/query", "query is a String"),
    "missing_required_web_action.type": (at5('{"type":"item.completed","item":{"id":"item_9","type":"web_search","query":"q","action":{"query":"q"}}}'), 5, "/item/action", "WebSearchAction is tagged on type"),
    "missing_required_todo_list.items": (at5('{"type":"item.started","item":{"id":"item_9","type":"todo_list"}}'), 5, "/item", "TodoListItem without items"),
    "missing_required_todo.completed": (at5('{"type":"item.started","item":{"id":"item_9","type":"todo_list","items":[{"text":"a"}]}}'), 5, "/item/items/0", "TodoItem without completed"),
    "wrong_type_todo_completed_string": (at5('{"type":"item.started","item":{"id":"item_9","type":"todo_list","items":[{"text":"a","completed":"no"}]}}'), 5, "/item/items/0/completed", "completed is a bool"),
    "missing_required_collab.sender_thread_id": (at5('{"type":"item.started","item":{"id":"item_9","type":"collab_tool_call","tool":"wait","receiver_thread_ids":[],"prompt":null,"agents_states":{},"status":"in_progress"}}'), 5, "/item", "CollabToolCallItem without sender_thread_id"),
    "wrong_type_receiver_thread_ids_element": (at5('{"type":"item.started","item":{"id":"item_9","type":"collab_tool_call","tool":"wait","sender_thread_id":"a","receiver_thread_ids":[7],"prompt":null,"agents_states":{},"status":"in_progress"}}'), 5, "/item/receiver_thread_ids/0", "receiver_thread_ids is a Vec<String>"),
}


# Words outside the known sets of Codex's enums. The Rust types refuse them
# (serde enums), but the sets grow between minor versions (declined,
# in_progress on a patch and interrupted came that way), and the reference
# says a reader accepts the union and keeps anything else: evtool reads
# them, and codex/unknown-value warns (an error under --strict).
words = {
    "bad_enum_command_status": (at5(CMD_DONE.replace('"completed"}', '"done"}') % "0"), 5, "/item/status", "CommandExecutionStatus has no done"),
    "bad_enum_command_status_case": (at5(CMD_DONE.replace('"completed"}', '"Completed"}') % "0"), 5, "/item/status", "statuses are snake_case"),
    "bad_enum_change_kind": (at5('{"type":"item.completed","item":{"id":"item_9","type":"file_change","changes":[{"path":"a","kind":"modify"}],"status":"completed"}}'), 5, "/item/changes/0/kind", "PatchChangeKind is add, delete or update"),
    "bad_enum_file_change_status_declined": (at5('{"type":"item.completed","item":{"id":"item_9","type":"file_change","changes":[],"status":"declined"}}'), 5, "/item/status", "PatchApplyStatus has no declined (a refused patch is failed)"),
    "bad_enum_mcp_status_declined": (at5('{"type":"item.completed","item":{"id":"item_9","type":"mcp_tool_call","server":"s","tool":"t","arguments":{},"result":null,"error":null,"status":"declined"}}'), 5, "/item/status", "McpToolCallStatus has no declined"),
    "bad_enum_collab_tool": (at5('{"type":"item.started","item":{"id":"item_9","type":"collab_tool_call","tool":"fork_agent","sender_thread_id":"a","receiver_thread_ids":[],"prompt":null,"agents_states":{},"status":"in_progress"}}'), 5, "/item/tool", "CollabTool is spawn_agent, send_input, wait or close_agent"),
    "bad_enum_agent_status": (at5('{"type":"item.started","item":{"id":"item_9","type":"collab_tool_call","tool":"wait","sender_thread_id":"a","receiver_thread_ids":["b"],"prompt":null,"agents_states":{"b":{"status":"sleeping","message":null}},"status":"in_progress"}}'), 5, "/item/agents_states/b/status", "CollabAgentStatus has no sleeping"),
}

def write(path, lines):
    with open(path, "wb") as f:
        for l in lines:
            f.write(l if isinstance(l, bytes) else l.encode("utf-8"))
            f.write(b"\n")

def main():
    rows = []
    for name in sorted(invalid):
        lines, n, ptr, why = invalid[name]
        write(os.path.join(OUT, "invalid", name + ".jsonl"), lines)
        rows.append("%s.jsonl\t%d\t%s\t%s" % (name, n, ptr, why))
    deep = '{"type":"item.completed","item":{"id":"item_9","type":"mcp_tool_call","server":"s","tool":"t","arguments":' + "[" * 100000 + "]" * 100000 + ',"result":null,"error":null,"status":"completed"}}'
    write(os.path.join(OUT, "invalid", "deep_nesting.jsonl"), at5(deep))
    rows.append("deep_nesting.jsonl\t5\t-\targuments nested 100000 arrays deep")
    rows.sort()
    with open(os.path.join(OUT, "EXPECT.tsv"), "w") as f:
        f.write("\n".join(rows) + "\n")
    notes_path = os.path.join(OUT, "ambiguous", "NOTES.tsv")
    with open(notes_path) as f:
        notes = [r for r in f.read().split("\n") if r and r.split("\t")[0][:-len(".jsonl")] not in words]
    for name in sorted(words):
        lines, n, ptr, why = words[name]
        write(os.path.join(OUT, "ambiguous", name + ".jsonl"), lines)
        notes.append("%s.jsonl\t%d\t%s\t%s (the Rust enum refuses it) | a newer Codex's word: codex/unknown-value warns, an error under --strict; the decoder keeps the word in ext.codex" % (name, n, ptr, why))
    with open(notes_path, "w") as f:
        f.write("\n".join(notes) + "\n")

main()
