"""mermaid invalid + ambiguous probes: each file = a short valid stream with exactly one bad line."""
import os, sys
sys.path.insert(0, os.path.dirname(__file__))
from common import *

OUT = os.path.join(os.path.dirname(__file__), "..", "mermaid", "invalid")
AOUT = os.path.join(os.path.dirname(__file__), "..", "mermaid", "ambiguous")
HEAD = '{"type":"session_started","protocol_version":1,"cli_version":"9.9.9","model":"anthropic/claude-x","task_id":null,"session_id":"s-inv"}'
BODY = [
    '{"type":"text","delta":"hi"}',
    '{"type":"tool_started","call_id":"tool#1"}',
    '{"type":"tool_finished","call_id":"tool#1","name":"read_file","status":"success","summary":"read","error":null}',
    '{"type":"turn_done","total_tokens":10,"stop_reason":"stop"}',
]
TAIL = '{"type":"result","response":"hi","reasoning":null,"total_tokens":10,"errors":[],"session_id":"s-inv"}'
SAMPLE = {
 "text": '{"type":"text","delta":""}',
 "reasoning": '{"type":"reasoning","delta":""}',
 "tool_started": '{"type":"tool_started","call_id":"tool#2"}',
 "tool_finished": '{"type":"tool_finished","call_id":"tool#1","name":"read_file","status":"success","summary":"read","error":null}',
 "approval_required": '{"type":"approval_required","call_id":"tool#1","tool":"read_file","risk":"read","prompt":"Read it?"}',
 "tasks_updated": '{"type":"tasks_updated","tasks":[{"id":1,"subject":"s","status":"pending","active_form":"a","elapsed_secs":null,"tokens_spent":null,"origin":"model"}],"completed":0,"total":1}',
 "error": '{"type":"error","message":"m"}',
 "turn_done": '{"type":"turn_done","total_tokens":1,"stop_reason":"stop"}',
}
PLANF = '{"type":"tool_finished","call_id":"tool#1","name":"exit_plan_mode","status":"success","summary":"approved","error":null,"plan":{"path":"p.md","start":true,"fresh":false,"fork":false}}'
expect = []; notes = []

def lines_with(bad, at):
    return [HEAD] + BODY[:at] + [bad] + BODY[at:] + [TAIL]
def insert(name, bad, ptr, reason, at=2, out=OUT, exp=expect):
    """default position: after tool_started tool#1 and before its tool_finished"""
    write_case(out, name, lines_with(bad, at), at + 2, ptr, reason, exp)
def finish_insert(name, bad, ptr, reason, out=OUT, exp=expect):
    """a malformed tool_finished for tool#1, inserted just before the real one"""
    insert(name, bad, ptr, reason, at=2, out=out, exp=exp)
def replace_head(name, bad, ptr, reason, out=OUT, exp=expect):
    write_case(out, name, [bad] + BODY + [TAIL], 1, ptr, reason, exp)
def replace_tail(name, bad, ptr, reason, out=OUT, exp=expect):
    l = [HEAD] + BODY + [bad]
    write_case(out, name, l, len(l), ptr, reason, exp)

# framing / syntax
insert("not_an_object", '["type","text","delta","x"]', "", "line is a JSON array")
insert("not_an_object_null", 'null', "", "line is JSON null")
insert("not_an_object_number", '42', "", "line is a JSON number")
insert("malformed_json_truncated", '{"type":"text","delta":"cut', "", "unterminated string")
insert("malformed_trailing_comma", '{"type":"text","delta":"x",}', "", "trailing comma")
insert("malformed_two_objects_one_line", '{"type":"text","delta":"a"}{"type":"text","delta":"b"}', "", "two JSON values on one line")
insert("raw_control_char_in_string", '{"type":"text","delta":"tab\there"}', "", "unescaped U+0009 inside a string")
insert("invalid_utf8", '{"type":"text","delta":"bad\udcffbyte"}', "", "byte 0xFF is not UTF-8")
insert("lone_surrogate_escape", '{"type":"text","delta":"low \\udc00 only"}', "/delta", "unpaired low surrogate escape")
insert("nonjson_infinity_literal", '{"type":"turn_done","total_tokens":Infinity,"stop_reason":"stop"}', "", "Infinity is not JSON")

# numbers
insert("u32_overflow", SAMPLE["tasks_updated"].replace('"id":1', '"id":4294967296'), "/tasks/0/id", "TaskLine.id is u32; u32 max + 1")
insert("u32_overflow_total", SAMPLE["tasks_updated"].replace('"total":1', '"total":4294967296'), "/total", "total is u32")
replace_head("u32_overflow_protocol_version", HEAD.replace('"protocol_version":1', '"protocol_version":4294967297'), "/protocol_version", "protocol_version is u32 (4294967297 wraps to 1)")
replace_tail("u64_overflow", TAIL.replace('"total_tokens":10', '"total_tokens":18446744073709551616'), "/total_tokens", "u64 max + 1")
insert("u64_overflow_elapsed", SAMPLE["tasks_updated"].replace('"elapsed_secs":null', '"elapsed_secs":18446744073709551616'), "/tasks/0/elapsed_secs", "Option<u64> overflow")
insert("u64_fraction", SAMPLE["turn_done"].replace('"total_tokens":1', '"total_tokens":12.5'), "/total_tokens", "fraction in Option<u64>")
insert("u64_fraction_dot_zero", SAMPLE["tasks_updated"].replace('"tokens_spent":null', '"tokens_spent":8400.0'), "/tasks/0/tokens_spent", "8400.0 is a float token")
insert("u64_exponent", SAMPLE["turn_done"].replace('"total_tokens":1', '"total_tokens":1e3'), "/total_tokens", "exponent is a float token")
insert("negative_zero", SAMPLE["tasks_updated"].replace('"tokens_spent":null', '"tokens_spent":-0'), "/tasks/0/tokens_spent", "-0 is float -0.0 in serde_json")
insert("negative_integer", SAMPLE["tasks_updated"].replace('"completed":0', '"completed":-1'), "/completed", "u32 cannot be negative")
insert("wrong_type_string_for_int", SAMPLE["turn_done"].replace('"total_tokens":1', '"total_tokens":"1"'), "/total_tokens", "numeric string")

# duplicate keys
insert("duplicate_key_type", '{"type":"text","type":"reasoning","delta":"x"}', "/type", "duplicate tag")
finish_insert("duplicate_key_bool", PLANF.replace('"start":true', '"start":true,"start":false'), "/plan/start", "duplicate bool member in PlanApproved")
insert("duplicate_key_string", '{"type":"text","delta":"a","delta":"b"}', "/delta", "duplicate string member")
insert("duplicate_key_nested_tasks", SAMPLE["tasks_updated"].replace('"subject":"s"', '"subject":"s","subject":"t"'), "/tasks/0/subject", "duplicate member inside a TaskLine")

# wrong types
finish_insert("wrong_type_string_for_bool", PLANF.replace('"fresh":false', '"fresh":"false"'), "/plan/fresh", "string in a bool field")
finish_insert("wrong_type_int_for_bool", PLANF.replace('"fork":false', '"fork":0'), "/plan/fork", "0 in a bool field")
finish_insert("wrong_type_bool_for_string", SAMPLE["tool_finished"].replace('"status":"success"', '"status":true'), "/status", "status is a String")
insert("wrong_type_number_for_string", SAMPLE["tasks_updated"].replace('"origin":"model"', '"origin":1'), "/tasks/0/origin", "Option<String> given a number")
insert("wrong_type_tasks_object", SAMPLE["tasks_updated"].replace('"tasks":[', '"tasks":').replace('}],', '},'), "/tasks", "tasks must be an array")
replace_tail("wrong_type_errors_element", TAIL.replace('"errors":[]', '"errors":[{"message":"x"}]'), "/errors/0", "errors elements are strings")
finish_insert("wrong_type_plan_string", SAMPLE["tool_finished"].replace('"error":null', '"error":null,"plan":"p.md"'), "/plan", "plan must be a PlanApproved object")
insert("wrong_type_type_tag_number", '{"type":1,"delta":"x"}', "/type", "tag must be a string")

# null
replace_head("null_in_non_option", HEAD.replace('"session_id":"s-inv"', '"session_id":null'), "/session_id", "session_id is String with default: absent ok, null not")
replace_tail("null_in_non_option_errors", TAIL.replace('"errors":[]', '"errors":null'), "/errors", "errors is Vec<String>")
replace_tail("null_in_non_option_total_tokens", TAIL.replace('"total_tokens":10', '"total_tokens":null'), "/total_tokens", "result.total_tokens is u64, not Option")
insert("null_in_non_option_subject", SAMPLE["tasks_updated"].replace('"subject":"s"', '"subject":null'), "/tasks/0/subject", "TaskLine.subject is String")
finish_insert("null_in_plan_bool", PLANF.replace('"start":true', '"start":null'), "/plan/start", "bool with default: null is rejected")
finish_insert("null_in_non_option_status", SAMPLE["tool_finished"].replace('"status":"success"', '"status":null'), "/status", "status is String")

# missing required
REQ = {"text": ["delta"], "reasoning": ["delta"], "approval_required": ["call_id", "tool", "risk", "prompt"],
       "tasks_updated": ["tasks", "completed", "total"], "error": ["message"]}
for t, fs in REQ.items():
    for f in fs:
        insert(f"missing_required_{t}.{f}", drop_key(SAMPLE[t], f), "", f"{t} without {f}")
insert("missing_required_tool_started.call_id", '{"type":"tool_started"}', "", "tool_started without call_id")
for f in ["call_id", "name", "status", "summary"]:
    finish_insert(f"missing_required_tool_finished.{f}", drop_key(SAMPLE["tool_finished"], f), "", f"tool_finished without {f}")
for f in ["id", "subject", "status", "active_form"]:
    insert(f"missing_required_TaskLine.{f}", drop_key(SAMPLE["tasks_updated"], "tasks", 0, f), "/tasks/0", f"TaskLine without {f}")
finish_insert("missing_required_PlanApproved.path", drop_key(PLANF, "plan", "path"), "/plan", "PlanApproved without path")
for f in ["protocol_version", "cli_version", "model"]:
    replace_head(f"missing_required_session_started.{f}", drop_key(HEAD, f), "", f"session_started without {f}")
for f in ["response", "total_tokens", "errors"]:
    replace_tail(f"missing_required_result.{f}", drop_key(TAIL, f), "", f"result without {f}")
insert("missing_required_type", '{"delta":"x"}', "", "line without type")

# values
replace_head("bad_protocol_version", HEAD.replace('"protocol_version":1', '"protocol_version":2'), "/protocol_version", "reader refuses protocol_version != 1 (strict)")
replace_head("bad_protocol_version_zero", HEAD.replace('"protocol_version":1', '"protocol_version":0'), "/protocol_version", "protocol_version must be 1")

# stream structure
replace_head("first_line_not_session_started", '{"type":"text","delta":"hi"}', "/type", "line 1 must be session_started")
insert("session_started_not_first", HEAD, "/type", "session_started only on line 1", at=1)
insert("result_not_last", TAIL, "/type", "result only as the last line", at=4)
replace_tail("last_line_not_result", '{"type":"text","delta":"more"}', "/type", "last line must be result")
insert("tool_finished_without_started", '{"type":"tool_finished","call_id":"tool#9","name":"read_file","status":"success","summary":"s","error":null}', "/call_id", "tool#9 never started")
insert("tool_finished_twice", SAMPLE["tool_finished"], "/call_id", "tool#1 finished a second time", at=3)
insert("tool_started_call_id_reused", '{"type":"tool_started","call_id":"tool#1"}', "/call_id", "call_id is unique within a run", at=3)

# nesting
replace_tail("deep_nesting", TAIL[:-1] + ',"structured_output":' + deep_array(100000) + '}', "-", "structured_output nested 100000 arrays deep")

write_expect(os.path.join(OUT, "..", "EXPECT.tsv"), expect)
print(len(expect), "mermaid invalid files")

# ---------------- ambiguous ----------------
def amb_insert(name, bad, ptr, seeds, ref, at=2):
    insert(name, bad, ptr, seeds + " | reference: " + ref, at=at, out=AOUT, exp=notes)
amb_insert("tool_status_unknown_value", SAMPLE["tool_finished"].replace('"success"', '"skipped"'), "/status",
    "seeds: status is a plain String (any value accepted); from_msg only produces success|error|cancelled", "values listed as success|error|cancelled")
amb_insert("plan_null", SAMPLE["tool_finished"].replace('"error":null', '"error":null,"plan":null'), "/plan",
    "seeds: Option<PlanApproved> with default accepts null", "omitted when None, never null")
amb_insert("fuzzy_false_written", SAMPLE["tool_finished"].replace('"error":null', '"error":null,"fuzzy":false'), "/fuzzy",
    "seeds: no fuzzy field, unknown key ignored", "fuzzy omitted when false")
amb_insert("fuzzy_wrong_type", SAMPLE["tool_finished"].replace('"error":null', '"error":null,"fuzzy":"yes"'), "/fuzzy",
    "seeds: no fuzzy field, unknown key ignored", "fuzzy is bool (newer versions); validate known keys' types")
amb_insert("web_wrong_type", SAMPLE["tool_finished"].replace('"error":null', '"error":null,"web":{"status":"200","failed_count":0}'), "/web/status",
    "seeds: no web field, ignored", "web.status is an int; validate known keys' types")
amb_insert("web_without_failed_count", SAMPLE["tool_finished"].replace('"error":null', '"error":null,"web":{"backend":"x"}'), "/web",
    "seeds: no web field", "failed_count is 'always written'")
amb_insert("tasks_counts_inconsistent_u32_max", SAMPLE["tasks_updated"].replace('"completed":0,"total":1', '"completed":4294967295,"total":4294967295'), "/total",
    "seeds: u32, max value accepted", "total counts the visible tasks (1 here); completed <= total")
amb_insert("unknown_type_strict", '{"type":"usage","input_tokens":1}', "/type",
    "seeds: internally tagged enum rejects unknown variant", "v1 reader must tolerate unknown types (valid/ treats them as valid); strict validator may warn")
write_case(AOUT, "approval_after_finish", [HEAD] + BODY + ['{"type":"approval_required","call_id":"tool#1","tool":"read_file","risk":"read","prompt":"late?"}'] + [TAIL], 6, "/call_id",
    "n/a | reference: approval position relative to tool_started unspecified; after tool_finished is odd", notes)
write_case(AOUT, "truncated_no_result", [HEAD] + BODY, 5, "", "n/a | reference: no result = truncated stream", notes)
write_case(AOUT, "response_differs_from_text_deltas", [HEAD] + BODY + [TAIL.replace('"response":"hi"', '"response":"hello"')], 6, "/response",
    "n/a | reference: deltas expected to concatenate to response, not asserted upstream", notes)
write_case(AOUT, "errors_do_not_match_error_lines", [HEAD] + BODY + [TAIL.replace('"errors":[]', '"errors":["never reported"]')], 6, "/errors",
    "n/a | reference: errors collects earlier error lines", notes)
write_expect(os.path.join(AOUT, "NOTES.tsv"), notes)
print(len(notes), "mermaid ambiguous files")
