#!/usr/bin/env python3
"""Builds the gemini probe streams beside this folder.

The lines are WRITTEN BY HAND from the published TypeScript types of
@google/gemini-cli-core 0.61.0 (JsonStreamEvent, StreamStats) and from
shared/dialects-next/gemini.md; no real capture of Gemini CLI's
stream-json exists. This script only puts them together: each invalid
stream is a short valid run with exactly one bad line, and EXPECT.tsv names
that line and the JSON pointer of the offending value ("" for the whole
line, or a required member missing from the top-level object; the object's
pointer for a member missing from a nested object; "-" for the deep-nesting
file). Run from this folder: python3 build.py
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

INIT = '{"type":"init","timestamp":"2026-10-01T09:00:00.000Z","session_id":"0b6f2c1e-5d4a-4c3b-9a8f-7e6d5c4b3a21","model":"auto"}'
USER = '{"type":"message","timestamp":"2026-10-01T09:00:00.004Z","role":"user","content":"List the files"}'
DELTA = '{"type":"message","timestamp":"2026-10-01T09:00:02.310Z","role":"assistant","content":"I\'ll list them.","delta":true}'
USE = '{"type":"tool_use","timestamp":"2026-10-01T09:00:02.512Z","tool_name":"run_shell_command","tool_id":"run_shell_command__9c1d2e3f","parameters":{"command":"ls"}}'
RESULT = '{"type":"tool_result","timestamp":"2026-10-01T09:00:02.590Z","tool_id":"run_shell_command__9c1d2e3f","status":"success","output":"README.md\\nsrc"}'
ANSWER = '{"type":"message","timestamp":"2026-10-01T09:00:04.000Z","role":"assistant","content":"Two entries.","delta":true}'
STATS = '{"total_tokens":9120,"input_tokens":8900,"output_tokens":60,"cached":4096,"input":4804,"duration_ms":4100,"tool_calls":1,"models":{"gemini-3.5-flash":{"total_tokens":9120,"input_tokens":8900,"output_tokens":60,"cached":4096,"input":4804}}}'
END = '{"type":"result","timestamp":"2026-10-01T09:00:04.100Z","status":"success","stats":' + STATS + '}'
BASE = [INIT, USER, DELTA, USE, RESULT, ANSWER, END]
T = '"timestamp":"2026-10-01T09:00:03.000Z"'


def at(line_no, bad, replace=False, base=BASE):
    """The base stream with bad as physical line line_no (inserted before
    the line there, or replacing it)."""
    out = list(base)
    if replace:
        out[line_no - 1] = bad
    else:
        out.insert(line_no - 1, bad)
    return out


def stats_with(s):
    return '{"type":"result","timestamp":"2026-10-01T09:00:04.100Z","status":"success","stats":' + s + '}'


INVALID = [
    # name, lines, bad line, pointer, reason
    ("banner_before_init", at(1, "Loaded cached credentials."), 1, "", "a banner on stdout is not JSON (reported; the stream reads on)"),
    ("banner_glued_to_init", at(1, "MCP issues detected. Run /mcp list for status." + INIT, True), 1, "", "a banner glued to the init object: the line is not JSON"),
    ("banner_mid_stream", at(4, "Warning: TERM is not set; colours are disabled."), 4, "", "a warning on stdout between two events is not JSON"),
    ("first_line_not_init", BASE[1:], 1, "/type", "line 1 must be init"),
    ("init_repeated", at(3, INIT), 3, "/type", "init only as the first line"),
    ("result_not_last", BASE + [ANSWER], 8, "/type", "nothing follows result"),
    ("last_line_not_result", BASE[:-1], 6, "", "a killed process writes no result: the run is incomplete"),
    ("tool_result_unknown_call", at(5, RESULT.replace("run_shell_command__9c1d2e3f", "read_file__ghost")), 5, "/tool_id", "tool_result names no announced call"),
    ("tool_result_twice", at(6, RESULT), 6, "/tool_id", "a call has one tool_result"),
    ("tool_id_reused", at(5, USE), 5, "/tool_id", "a tool_id is announced once"),
    ("missing_required_type", at(3, '{' + T + ',"role":"assistant","content":"x","delta":true}'), 3, "", "type is required"),
    ("missing_required_init.timestamp", at(1, INIT.replace('"timestamp":"2026-10-01T09:00:00.000Z",', ''), True), 1, "", "every event has a timestamp"),
    ("missing_required_init.session_id", at(1, INIT.replace(',"session_id":"0b6f2c1e-5d4a-4c3b-9a8f-7e6d5c4b3a21"', ''), True), 1, "", "InitEvent.session_id"),
    ("missing_required_init.model", at(1, INIT.replace(',"model":"auto"', ''), True), 1, "", "InitEvent.model"),
    ("missing_required_message.role", at(3, '{"type":"message",' + T + ',"content":"x","delta":true}'), 3, "", "MessageEvent.role"),
    ("missing_required_message.content", at(3, '{"type":"message",' + T + ',"role":"assistant","delta":true}'), 3, "", "MessageEvent.content"),
    ("missing_required_tool_use.tool_name", at(4, USE.replace('"tool_name":"run_shell_command",', ''), True), 4, "", "ToolUseEvent.tool_name"),
    ("missing_required_tool_use.tool_id", at(4, USE.replace('"tool_id":"run_shell_command__9c1d2e3f",', '').replace('run_shell_command__9c1d2e3f', 'x'), True), 4, "", "ToolUseEvent.tool_id"),
    ("missing_required_tool_use.parameters", at(4, USE.replace(',"parameters":{"command":"ls"}', ''), True), 4, "", "ToolUseEvent.parameters"),
    ("missing_required_tool_result.status", at(5, RESULT.replace('"status":"success",', ''), True), 5, "", "ToolResultEvent.status"),
    ("missing_required_tool_result.error.message", at(5, RESULT.replace('"status":"success","output":"README.md\\nsrc"', '"status":"error","error":{"type":"file_not_found"}'), True), 5, "/error", "the error object has type and message"),
    ("missing_required_error.severity", at(6, '{"type":"error",' + T + ',"message":"Loop detected, stopping execution"}'), 6, "", "ErrorEvent.severity"),
    ("missing_required_error.message", at(6, '{"type":"error",' + T + ',"severity":"warning"}'), 6, "", "ErrorEvent.message"),
    ("missing_required_result.status", at(7, END.replace('"status":"success",', ''), True), 7, "", "ResultEvent.status"),
    ("missing_required_stats.total_tokens", at(7, stats_with(STATS.replace('"total_tokens":9120,', '', 1)), True), 7, "/stats", "StreamStats.total_tokens"),
    ("missing_required_model_stats.input", at(7, stats_with(STATS.replace(',"input":4804}}}', '}}}')), True), 7, "/stats/models/gemini-3.5-flash", "ModelStreamStats.input"),
    ("bad_enum_role", at(3, DELTA.replace('"assistant"', '"system"'), True), 3, "/role", "role is user or assistant"),
    ("bad_enum_tool_status", at(5, RESULT.replace('"success"', '"ok"'), True), 5, "/status", "tool_result status is success or error"),
    ("bad_enum_severity", at(6, '{"type":"error",' + T + ',"severity":"info","message":"m"}'), 6, "/severity", "severity is warning or error"),
    ("bad_enum_result_status", at(7, END.replace('"status":"success"', '"status":"done"'), True), 7, "/status", "result status is success or error"),
    ("wrong_type_delta_string", at(3, DELTA.replace('"delta":true', '"delta":"true"'), True), 3, "/delta", "delta is a boolean"),
    ("wrong_type_content_null", at(3, DELTA.replace('"content":"I\'ll list them."', '"content":null'), True), 3, "/content", "content is a string"),
    ("wrong_type_parameters_array", at(4, USE.replace('{"command":"ls"}', '["ls"]'), True), 4, "/parameters", "parameters is an object (Record<string, unknown>)"),
    ("wrong_type_output_number", at(5, RESULT.replace('"README.md\\nsrc"', '404'), True), 5, "/output", "output is a string"),
    ("wrong_type_error_string", at(5, RESULT.replace('"status":"success","output":"README.md\\nsrc"', '"status":"error","error":"boom"'), True), 5, "/error", "error is an object"),
    ("wrong_type_timestamp_number", at(2, USER.replace('"2026-10-01T09:00:00.004Z"', '1790000000004'), True), 2, "/timestamp", "timestamp is a string"),
    ("wrong_type_type_tag_number", at(3, '{"type":6,' + T + '}'), 3, "/type", "type is a string"),
    ("wrong_type_stats_string", at(7, stats_with('"none"'), True), 7, "/stats", "stats is an object"),
    ("wrong_type_models_array", at(7, stats_with(STATS.replace('"models":{"gemini-3.5-flash":{"total_tokens":9120,"input_tokens":8900,"output_tokens":60,"cached":4096,"input":4804}}', '"models":[]')), True), 7, "/stats/models", "models is a map"),
    ("wrong_type_session_id_number", at(1, INIT.replace('"0b6f2c1e-5d4a-4c3b-9a8f-7e6d5c4b3a21"', '7'), True), 1, "/session_id", "session_id is a string"),
    ("count_fraction", at(7, stats_with(STATS.replace('"total_tokens":9120', '"total_tokens":9120.5', 1)), True), 7, "/stats/total_tokens", "a count is an integer"),
    ("count_fraction_dot_zero", at(7, stats_with(STATS.replace('"duration_ms":4100', '"duration_ms":4100.0')), True), 7, "/stats/duration_ms", "a count is an integer literal"),
    ("count_exponent", at(7, stats_with(STATS.replace('"tool_calls":1', '"tool_calls":1e0')), True), 7, "/stats/tool_calls", "a count is an integer literal"),
    ("count_negative", at(7, stats_with(STATS.replace('"cached":4096', '"cached":-4096', 1)), True), 7, "/stats/cached", "a count is not negative"),
    ("count_negative_zero", at(7, stats_with(STATS.replace('"output_tokens":60', '"output_tokens":-0', 1)), True), 7, "/stats/output_tokens", "-0 is no integer literal"),
    ("count_u64_overflow", at(7, stats_with(STATS.replace('"input_tokens":8900', '"input_tokens":18446744073709551616', 1)), True), 7, "/stats/input_tokens", "a count fits in 64 bits"),
    ("count_model_fraction", at(7, stats_with(STATS.replace('"cached":4096,"input":4804}}', '"cached":4096.0,"input":4804}}')), True), 7, "/stats/models/gemini-3.5-flash/cached", "a model's count is an integer literal"),
    ("duplicate_key_content", at(3, DELTA.replace('"delta":true', '"content":"again","delta":true'), True), 3, "/content", "duplicate member"),
    ("duplicate_key_type", at(3, DELTA.replace('"delta":true', '"delta":true,"type":"message"'), True), 3, "/type", "duplicate tag"),
    ("duplicate_key_nested_error", at(5, RESULT.replace('"status":"success","output":"README.md\\nsrc"', '"status":"error","error":{"type":"a","message":"b","type":"c"}'), True), 5, "/error/type", "duplicate member inside the error object"),
    ("malformed_json_truncated", at(4, USE[:-20], True), 4, "", "the line ends inside the object"),
    ("malformed_trailing_comma", at(3, DELTA[:-1] + ',}', True), 3, "", "a trailing comma"),
    ("malformed_two_objects_one_line", at(3, DELTA + DELTA, True), 3, "", "two values on one line"),
    ("not_an_object", at(3, '["message","x"]'), 3, "", "an event is an object"),
    ("not_an_object_string", at(3, '"Loaded cached credentials."'), 3, "", "a JSON string is no event"),
    ("nonjson_nan", at(7, stats_with(STATS.replace('"duration_ms":4100', '"duration_ms":NaN')), True), 7, "", "NaN is not JSON"),
    ("raw_control_char_in_string", at(3, DELTA.replace("I'll list them.", "I'll\x01list them."), True), 3, "", "a raw control character in a string"),
]


def write(path, lines, raw=None):
    with open(path, "wb") as f:
        if raw is not None:
            f.write(raw)
            return
        for l in lines:
            f.write(l.encode("utf-8") + b"\n")


rows = []
for name, lines, line, ptr, why in INVALID:
    write(os.path.join(ROOT, "invalid", name + ".jsonl"), lines)
    rows.append("%s.jsonl\t%d\t%s\t%s" % (name, line, ptr, why))

# invalid UTF-8 and deep nesting are built as bytes.
raw = b"\n".join(l.encode() for l in BASE[:2]) + b"\n" + DELTA.encode().replace(b"list", b"l\xffst") + b"\n" + b"\n".join(l.encode() for l in BASE[3:]) + b"\n"
write(os.path.join(ROOT, "invalid", "invalid_utf8.jsonl"), None, raw)
rows.append("invalid_utf8.jsonl\t3\t\tbyte 0xFF is not UTF-8")
deep = USE.replace('{"command":"ls"}', '{"command":' + "[" * 100000 + "]" * 100000 + '}')
write(os.path.join(ROOT, "invalid", "deep_nesting.jsonl"), at(4, deep, True))
rows.append("deep_nesting.jsonl\t4\t-\tparameters nested 100000 arrays deep")
with open(os.path.join(ROOT, "EXPECT.tsv"), "w") as f:
    f.write("\n".join(sorted(rows)) + "\n")

# Valid probes: what a reader must accept beyond the producer's own form.
SORTED = [
    '{"model":"auto","session_id":"0b6f2c1e-5d4a-4c3b-9a8f-7e6d5c4b3a21","timestamp":"2026-10-01T09:00:00.000Z","type":"init"}',
    '{"content":"List the files","role":"user","timestamp":"2026-10-01T09:00:00.004Z","type":"message"}',
    '{"content":"I\'ll list them.","delta":true,"role":"assistant","timestamp":"2026-10-01T09:00:02.310Z","type":"message"}',
    '{"parameters":{"command":"ls"},"timestamp":"2026-10-01T09:00:02.512Z","tool_id":"run_shell_command__9c1d2e3f","tool_name":"run_shell_command","type":"tool_use"}',
    '{"error":{"message":"Command exited with code 2","type":"shell_execute_error"},"output":"boom","status":"error","timestamp":"2026-10-01T09:00:02.590Z","tool_id":"run_shell_command__9c1d2e3f","type":"tool_result"}',
    '{"message":"Loop detected, stopping execution","severity":"warning","timestamp":"2026-10-01T09:00:03.000Z","type":"error"}',
    '{"stats":{"cached":4096,"duration_ms":4100,"input":4804,"input_tokens":8900,"models":{"gemini-3.5-flash":{"cached":4096,"input":4804,"input_tokens":8900,"output_tokens":60,"total_tokens":9120}},"output_tokens":60,"tool_calls":1,"total_tokens":9120},"status":"success","timestamp":"2026-10-01T09:00:04.100Z","type":"result"}',
]
write(os.path.join(ROOT, "valid", "sorted_keys.jsonl"), SORTED)

SPACED = [
    '{ "type" : "init", "timestamp" : "2026-10-01T09:00:00.000Z", "session_id" : "s", "model" : "gemini-3.5-flash" }',
    '{"type":"message",\t"timestamp":"2026-10-01T09:00:00.004Z","role":"user","content":"t\\u0061b\\tand \\/slash \\ud83d\\ude00 \\u2028"}',
    '{"t\\u0079pe":"message","timestamp":"2026-10-01T09:00:01.000Z","role":"assistant","content":"escaped key","delta":true}',
    '{"type":"mess\\u0061ge","timestamp":"2026-10-01T09:00:01.100Z","role":"assistant","content":" and tag","delta":true}',
    '{"type":"tool_use","timestamp":"2026-10-01T09:00:01.200Z","tool_name":"web_fetch","tool_id":"web_fetch__1","parameters":{ "prompt" : "x", "n" : [ 1.5e3, -0, 18446744073709551616 ] }}',
    '{"type":"tool_result","timestamp":"2026-10-01T09:00:01.300Z","tool_id":"web_fetch__1","status":"success","output":""}',
    '{"type":"result" , "timestamp":"2026-10-01T09:00:01.400Z","status":"success","stats":{ "total_tokens" : 10, "input_tokens" : 8, "output_tokens" : 1, "cached" : 0, "input" : 8, "duration_ms" : 1400, "tool_calls" : 1, "models" : { "m" : { "total_tokens" : 10, "input_tokens" : 8, "output_tokens" : 1, "cached" : 0, "input" : 8 } } }}',
]
write(os.path.join(ROOT, "valid", "whitespace_and_escapes.jsonl"), SPACED)

EDGES = [
    INIT,
    USER,
    '{"type":"result","timestamp":"2026-10-01T09:00:04.100Z","status":"success","stats":{"total_tokens":18446744073709551615,"input_tokens":9007199254740993,"output_tokens":9007199254740992,"cached":18446744073709551615,"input":0,"duration_ms":18446744073709551615,"tool_calls":4294967296,"models":{"a":{"total_tokens":18446744073709551615,"input_tokens":9007199254740993,"output_tokens":9007199254740992,"cached":18446744073709551615,"input":0}}}}',
]
write(os.path.join(ROOT, "valid", "integer_edges.jsonl"), EDGES)
