"""basis invalid probes: each file = a short valid stream with exactly one bad line."""
import os, sys
sys.path.insert(0, os.path.dirname(__file__))
from common import *

OUT = os.path.join(os.path.dirname(__file__), "..", "basis", "invalid")
HEAD = '{"seq":0,"type":"run_started","schema":2,"basis":"0.6.0","session_id":"s-inv","workspace":"/r","model":"gpt-5","provider":"openai","context_files":[{"path":"/r/AGENTS.md","scope":"workspace"}]}'
# body lines; {seq} is filled in order
BODY = [
    '{"seq":{seq},"type":"user_message","text":"hi"}',
    '{"seq":{seq},"type":"tool_queued","tool_call_id":"c1","tool_name":"shell","summary":"ls","mutability":"read_only","input":{"command":"ls"}}',
    '{"seq":{seq},"type":"tool_started","tool_call_id":"c1","tool_name":"shell"}',
    '{"seq":{seq},"type":"tool_completed","tool_call_id":"c1","tool_name":"shell","summary":"ok","is_error":false}',
    '{"seq":{seq},"type":"assistant_message","text":"done"}',
]
TAIL = '{"seq":{seq},"type":"run_finished","status":"ok"}'

# One hand-written, fully populated sample per event (producer key order), used for
# "missing field" / "bad enum" / "wrong type" variants. Tool/permission samples name c1,
# which is between queueing and completion at the insertion point (after tool_started).
SAMPLE = {
 "user_message": '{"seq":{seq},"type":"user_message","text":"look","image_count":1}',
 "assistant_delta": '{"seq":{seq},"type":"assistant_delta","text":"x"}',
 "assistant_reasoning_delta": '{"seq":{seq},"type":"assistant_reasoning_delta","text":"x"}',
 "assistant_message": '{"seq":{seq},"type":"assistant_message","text":"x"}',
 "tool_queued": '{"seq":{seq},"type":"tool_queued","tool_call_id":"c2","tool_name":"grep","summary":"find","mutability":"read_only","input":{"pattern":"x"}}',
 "tool_progress": '{"seq":{seq},"type":"tool_progress","tool_call_id":"c1","tool_name":"shell","progress":"half"}',
 "permission_requested": '{"seq":{seq},"type":"permission_requested","request_id":"p1","tool_call_id":"c1","tool_name":"shell","description":"run ls","preview":{"command":"ls"}}',
 "permission_resolved": '{"seq":{seq},"type":"permission_resolved","request_id":"p1","tool_call_id":"c1","tool_name":"shell","outcome":"allowed","rule_scope":"session"}',
 "task_updated": '{"seq":{seq},"type":"task_updated","task_id":"t1","kind":"subagent","status":"running","title":"work","detail":"d"}',
 "compaction_started": '{"seq":{seq},"type":"compaction_started","agent_id":"a"}',
 "compaction_completed": '{"seq":{seq},"type":"compaction_completed","agent_id":"a","replaced_items":1,"preserved_items":2,"transcript_len":3,"extracted_facts":4,"summary_preview":"s"}',
 "request_tool_results_elided": '{"seq":{seq},"type":"request_tool_results_elided","agent_id":"a","policy":{"kind":"byte_budget","configured_max_bytes":4096,"configured_prioritize_recent_results":2,"configured_max_preview_bytes":512},"canonical_tool_result_content_bytes":8192,"projected_tool_result_content_bytes":4096,"results":[{"tool_call_id":"c1","tool_name":"shell","is_error":false,"canonical_content_kind":"text","action":"preview","canonical_content_bytes":8192,"projected_content_bytes":4096}]}',
 "memory_updated": '{"seq":{seq},"type":"memory_updated","agent_id":"a","stored_records":5}',
 "usage": '{"seq":{seq},"type":"usage","agent_id":"a","input_tokens":10,"output_tokens":5,"cache_read_tokens":1,"cache_creation_tokens":0,"reasoning_tokens":2,"thoughts_tokens":0}',
 "notice": '{"seq":{seq},"type":"notice","severity":"info","message":"m"}',
 "retry": '{"seq":{seq},"type":"retry","agent_id":"a","error":"e","attempt":1,"max_attempts":3,"next_delay_ms":100}',
 "error": '{"seq":{seq},"type":"error","message":"m","recoverable":true}',
 "branched": '{"seq":{seq},"type":"branched","entry_id":"e1","abandoned_entries":2}',
}
HEAD_FULL = '{"seq":0,"type":"run_started","schema":2,"basis":"0.6.0","session_id":"s-inv","workspace":"/r","model":"gpt-5","provider":"openai","context_files":[{"path":"/r/AGENTS.md","scope":"workspace"}],"skills_dirs":["/r/.basis/skills"],"skills":[{"name":"review","description":"d"}],"templates_dirs":["/r/.basis/templates"],"templates":[{"name":"fix","description":"d","argument_hint":"<n>"}],"mcp_files":[{"path":"/r/.mcp.json","scope":"workspace"}],"mcp_servers":["github"],"a2a_files":[{"path":"/r/.basis/a2a.json","scope":"workspace"}],"a2a_agents":["reviewer"]}'
FIN_ERR = '{"seq":{seq},"type":"run_finished","status":"error","message":"boom","stopped_by":"deadline","usage":{"input_tokens":1,"output_tokens":1,"cache_read_tokens":0,"cache_creation_tokens":0,"reasoning_tokens":0,"thoughts_tokens":0,"model_responses":1}}'

expect = []

def fill(lines):
    out = []; n = 0
    for l in lines:
        if "{seq}" in l:
            l = l.replace("{seq}", str(n))
        out.append(l); n += 1
    return out

def insert(name, bad, ptr, reason, at=3):
    """Insert `bad` after body line `at` (default: after tool_started, while c1 is running)."""
    body = BODY[:at] + [bad] + BODY[at:]
    lines = fill([HEAD] + body + [TAIL])
    write_case(OUT, name, lines, at + 2, ptr, reason, expect)

def replace_head(name, bad, ptr, reason):
    lines = fill([bad] + BODY + [TAIL])
    write_case(OUT, name, lines, 1, ptr, reason, expect)

def replace_tail(name, bad, ptr, reason):
    lines = fill([HEAD] + BODY + [bad])
    write_case(OUT, name, lines, len(lines), ptr, reason, expect)

def raw_stream(name, lines, bad, ptr, reason):
    write_case(OUT, name, lines, bad, ptr, reason, expect)

# ---- framing / JSON syntax ----
insert("not_an_object", '["seq",4,"type","notice","message","m"]', "", "line is a JSON array, not an object")
insert("not_an_object_null", 'null', "", "line is JSON null, not an object")
insert("not_an_object_string", '"{\\"seq\\":4,\\"type\\":\\"notice\\"}"', "", "line is a JSON string containing an object")
insert("malformed_json_truncated", '{"seq":{seq},"type":"notice","severity":"info","message":"cut', "", "unterminated string / object")
insert("malformed_trailing_comma", '{"seq":{seq},"type":"notice","severity":"info","message":"m",}', "", "trailing comma in object")
insert("malformed_single_quotes", "{'seq':{seq},'type':'notice','message':'m'}", "", "single-quoted strings are not JSON")
insert("malformed_two_objects_one_line", '{"seq":{seq},"type":"notice","message":"a"} {"seq":99,"type":"notice","message":"b"}', "", "two JSON values on one line")
insert("raw_control_char_in_string", '{"seq":{seq},"type":"notice","severity":"info","message":"bell\u0007here"}', "", "unescaped U+0007 inside a string")
insert("invalid_utf8", '{"seq":{seq},"type":"notice","severity":"info","message":"bad\udcffbyte"}', "", "byte 0xFF is not UTF-8")
insert("lone_surrogate_escape", '{"seq":{seq},"type":"notice","severity":"info","message":"half \\ud83d pair"}', "/message", "\\ud83d without its low surrogate is not a Unicode scalar (serde_json rejects)")
insert("nan_literal_in_any", '{"seq":{seq},"type":"permission_requested","request_id":"p1","tool_call_id":"c1","tool_name":"shell","description":"d","preview":{"ratio":NaN}}', "", "NaN is not JSON (even inside an arbitrary-JSON field)")
insert("leading_zero_number", '{"seq":0{seq},"type":"notice","severity":"info","message":"m"}', "", "leading zero in a number is not JSON")
insert("plus_sign_number", '{"seq":+{seq},"type":"notice","severity":"info","message":"m"}', "", "leading + in a number is not JSON")

# ---- numbers ----
insert("u32_overflow", '{"seq":{seq},"type":"retry","agent_id":"a","error":"e","attempt":4294967296,"max_attempts":4294967296,"next_delay_ms":100}', "/attempt", "attempt is u32; 4294967296 = u32 max + 1 (max_attempts is bad too, first bad member reported)")
replace_head("u32_overflow_schema", HEAD.replace('"schema":2', '"schema":4294967298'), "/schema", "schema is u32; 4294967298 overflows u32 (and truncates to 2 if wrapped)")
insert("u64_overflow", SAMPLE["usage"].replace('"input_tokens":10', '"input_tokens":18446744073709551616'), "/input_tokens", "u64 max + 1")
insert("usize_overflow", SAMPLE["memory_updated"].replace('"stored_records":5', '"stored_records":18446744073709551616'), "/stored_records", "usize (64-bit) max + 1")
insert("u64_huge", SAMPLE["compaction_completed"].replace('"transcript_len":3', '"transcript_len":100000000000000000000000000000000000000000'), "/transcript_len", "integer far beyond u64")
insert("u64_fraction", SAMPLE["usage"].replace('"output_tokens":5', '"output_tokens":1.5'), "/output_tokens", "fraction in a u64 field")
insert("u64_fraction_dot_zero", SAMPLE["retry"].replace('"next_delay_ms":100', '"next_delay_ms":100.0'), "/next_delay_ms", "100.0 is a float token; serde rejects it for u64")
insert("u64_exponent", SAMPLE["usage"].replace('"cache_read_tokens":1', '"cache_read_tokens":1e3'), "/cache_read_tokens", "exponent form is a float token; serde rejects it for u64")
insert("u64_exponent_capital", SAMPLE["branched"].replace('"abandoned_entries":2', '"abandoned_entries":2E0'), "/abandoned_entries", "2E0 is a float token")
insert("negative_zero", SAMPLE["branched"].replace('"abandoned_entries":2', '"abandoned_entries":-0'), "/abandoned_entries", "-0 parses as float -0.0 in serde_json; not a u64")
insert("negative_integer", SAMPLE["user_message"].replace('"image_count":1', '"image_count":-1'), "/image_count", "negative value in a usize field")
insert("seq_negative", '{"seq":-1,"type":"notice","severity":"info","message":"m"}', "/seq", "seq is u64")
insert("wrong_type_string_for_int", SAMPLE["retry"].replace('"attempt":1', '"attempt":"1"'), "/attempt", "numeric string in a u32 field")
insert("wrong_type_string_for_seq", '{"seq":"{seq}","type":"notice","severity":"info","message":"m"}', "/seq", "seq as a string")
insert("wrong_type_bool_for_int", SAMPLE["memory_updated"].replace('"stored_records":5', '"stored_records":true'), "/stored_records", "bool in a usize field")

# ---- duplicate keys ----
insert("duplicate_key_type", '{"seq":{seq},"type":"assistant_delta","type":"assistant_message","text":"x"}', "/type", "duplicate member type (the tag)")
insert("duplicate_key_bool", '{"seq":{seq},"type":"error","message":"m","recoverable":false,"recoverable":true}', "/recoverable", "duplicate bool member")
insert("duplicate_key_seq", '{"seq":{seq},"seq":{seq},"type":"notice","severity":"info","message":"m"}', "/seq", "duplicate seq with the same value")
insert("duplicate_key_string", '{"seq":{seq},"type":"notice","severity":"info","message":"a","message":"b"}', "/message", "duplicate string member")
replace_head("duplicate_key_nested", HEAD.replace('"scope":"workspace"', '"scope":"workspace","scope":"global"'), "/context_files/0/scope", "duplicate member inside a ContextFile")

# ---- wrong JSON types ----
insert("wrong_type_string_for_bool", SAMPLE["error"].replace('"recoverable":true', '"recoverable":"true"'), "/recoverable", "string \"true\" in a bool field")
insert("wrong_type_int_for_bool", '{"seq":{seq},"type":"tool_completed","tool_call_id":"c1","tool_name":"shell","summary":"ok","is_error":0}', "/is_error", "0 in a bool field")
insert("wrong_type_number_for_string", SAMPLE["task_updated"].replace('"title":"work"', '"title":7'), "/title", "number in a String field")
insert("wrong_type_type_tag_number", '{"seq":{seq},"type":7,"message":"m"}', "/type", "the tag must be a string")
insert("wrong_type_object_for_string", SAMPLE["assistant_delta"].replace('"text":"x"', '"text":{"value":"x"}'), "/text", "object in a String field")
replace_head("wrong_type_context_files_object", HEAD.replace('"context_files":[{"path":"/r/AGENTS.md","scope":"workspace"}]', '"context_files":{"path":"/r/AGENTS.md","scope":"workspace"}'), "/context_files", "context_files must be an array")
replace_head("wrong_type_skill_as_string", HEAD_FULL.replace('"skills":[{"name":"review","description":"d"}]', '"skills":["review"]'), "/skills/0", "SkillSummary must be an object")
replace_head("wrong_type_mcp_server_object", HEAD_FULL.replace('"mcp_servers":["github"]', '"mcp_servers":[{"name":"github"}]'), "/mcp_servers/0", "mcp_servers elements are strings")
insert("wrong_type_results_object", SAMPLE["request_tool_results_elided"].replace('"results":[', '"results":').replace('}]}', '}}'), "/results", "results must be an array")

# ---- null ----
insert("null_in_non_option", SAMPLE["task_updated"].replace('"title":"work"', '"title":null'), "/title", "title is String, not Option")
replace_head("null_in_default_vec", HEAD_FULL.replace('"skills_dirs":["/r/.basis/skills"]', '"skills_dirs":null'), "/skills_dirs", "skills_dirs is Vec with serde(default): absent is fine, null is not")
insert("null_in_defaulted_severity", SAMPLE["notice"].replace('"severity":"info"', '"severity":null'), "/severity", "severity defaults when absent but is not Option; null is rejected")
insert("null_in_u64", SAMPLE["usage"].replace('"output_tokens":5', '"output_tokens":null'), "/output_tokens", "u64 field cannot be null")
insert("null_in_any_required_missing_vs_null_seq", '{"seq":null,"type":"notice","severity":"info","message":"m"}', "/seq", "seq cannot be null")

# ---- missing required fields (one per required member of every type) ----
REQ = {
 "user_message": ["text"], "assistant_delta": ["text"], "assistant_reasoning_delta": ["text"], "assistant_message": ["text"],
 "tool_queued": ["tool_call_id", "tool_name", "summary", "mutability", "input"],
 "tool_progress": ["tool_call_id", "tool_name", "progress"],
 "permission_requested": ["request_id", "tool_call_id", "tool_name", "description", "preview"],
 "permission_resolved": ["request_id", "tool_call_id", "tool_name", "outcome"],
 "task_updated": ["task_id", "kind", "status", "title"],
 "compaction_started": ["agent_id"],
 "compaction_completed": ["agent_id", "replaced_items", "preserved_items", "transcript_len", "extracted_facts", "summary_preview"],
 "request_tool_results_elided": ["agent_id", "policy", "canonical_tool_result_content_bytes", "projected_tool_result_content_bytes", "results"],
 "memory_updated": ["agent_id", "stored_records"],
 "usage": ["agent_id", "input_tokens", "output_tokens", "cache_read_tokens", "cache_creation_tokens"],
 "notice": ["message"],
 "retry": ["agent_id", "error", "attempt", "max_attempts", "next_delay_ms"],
 "error": ["message", "recoverable"],
 "branched": ["entry_id", "abandoned_entries"],
}
for t, fields in REQ.items():
    for f in fields:
        insert(f"missing_required_{t}.{f}", drop_key(SAMPLE[t], f), "", f"{t} without required {f}")
for t in ["tool_started", "tool_completed"]:
    pass  # covered below in the base stream positions
# tool_started / tool_completed: the bad line is an extra, malformed copy inserted
# right before the real (valid) one, so the call's lifecycle stays complete.
for f in ["tool_call_id", "tool_name"]:
    insert(f"missing_required_tool_started.{f}", drop_key(BODY[2], f), "", f"tool_started without required {f}", at=2)
for f in ["tool_call_id", "tool_name", "summary", "is_error"]:
    insert(f"missing_required_tool_completed.{f}", drop_key(BODY[3], f), "", f"tool_completed without required {f}", at=3)
for f in ["schema", "basis", "session_id", "workspace", "model", "provider", "context_files"]:
    replace_head(f"missing_required_run_started.{f}", drop_key(HEAD, f), "", f"run_started without required {f}")
for f in ["seq", "type"]:
    insert(f"missing_required_{f}", drop_key(SAMPLE["notice"].replace("{seq}", "4"), f).replace('"seq":4', '"seq":{seq}'), "", f"line without {f}")
replace_tail("missing_required_run_finished.status", '{"seq":{seq},"type":"run_finished"}', "", "run_finished without status (RunOutcome tag)")
replace_tail("missing_required_run_finished.message", '{"seq":{seq},"type":"run_finished","status":"error"}', "", "status error requires message")
# nested
replace_head("missing_required_ContextFile.path", HEAD_FULL.replace('{"path":"/r/AGENTS.md","scope":"workspace"}', '{"scope":"workspace"}'), "/context_files/0", "ContextFile without path")
replace_head("missing_required_ContextFile.scope", HEAD_FULL.replace('{"path":"/r/.mcp.json","scope":"workspace"}', '{"path":"/r/.mcp.json"}'), "/mcp_files/0", "ContextFile (mcp_files) without scope")
replace_head("missing_required_ContextFile.scope_a2a", HEAD_FULL.replace('{"path":"/r/.basis/a2a.json","scope":"workspace"}', '{"path":"/r/.basis/a2a.json"}'), "/a2a_files/0", "ContextFile (a2a_files) without scope")
replace_head("missing_required_SkillSummary.name", HEAD_FULL.replace('{"name":"review","description":"d"}', '{"description":"d"}'), "/skills/0", "SkillSummary without name")
replace_head("missing_required_SkillSummary.description", HEAD_FULL.replace('{"name":"review","description":"d"}', '{"name":"review"}'), "/skills/0", "SkillSummary without description")
replace_head("missing_required_TemplateSummary.name", HEAD_FULL.replace('{"name":"fix","description":"d","argument_hint":"<n>"}', '{"description":"d","argument_hint":"<n>"}'), "/templates/0", "TemplateSummary without name")
replace_head("missing_required_TemplateSummary.description", HEAD_FULL.replace('{"name":"fix","description":"d","argument_hint":"<n>"}', '{"name":"fix","argument_hint":"<n>"}'), "/templates/0", "TemplateSummary without description")
R = SAMPLE["request_tool_results_elided"]
insert("missing_required_ElisionPolicy.kind", drop_key(R, "policy", "kind"), "/policy", "policy without its kind tag")
insert("missing_required_ElisionPolicy.configured_max_bytes", drop_key(R, "policy", "configured_max_bytes"), "/policy", "byte_budget policy without configured_max_bytes")
insert("missing_required_ElisionPolicy.configured_prioritize_recent_results", drop_key(R, "policy", "configured_prioritize_recent_results"), "/policy", "byte_budget policy without configured_prioritize_recent_results")
insert("missing_required_ElisionPolicy.configured_max_preview_bytes", drop_key(R, "policy", "configured_max_preview_bytes"), "/policy", "byte_budget policy without configured_max_preview_bytes")
insert("missing_required_ElisionPolicy.configured_keep_recent_tool_results", R.replace('{"kind":"byte_budget","configured_max_bytes":4096,"configured_prioritize_recent_results":2,"configured_max_preview_bytes":512}', '{"kind":"keep_recent"}'), "/policy", "keep_recent policy without configured_keep_recent_tool_results")
for f in ["tool_call_id", "is_error", "canonical_content_kind", "action", "canonical_content_bytes", "projected_content_bytes"]:
    insert(f"missing_required_ElidedToolResult.{f}", drop_key(R, "results", 0, f), "/results/0", f"ElidedToolResult without {f}")
for f in ["input_tokens", "output_tokens", "cache_read_tokens", "cache_creation_tokens"]:
    replace_tail(f"missing_required_RunUsage.{f}", drop_key(FIN_ERR, "usage", f), "/usage", f"run_finished.usage without {f}")

# ---- bad enum values ----
insert("bad_enum_mutability", SAMPLE["tool_queued"].replace('"read_only"', '"readonly"'), "/mutability", "Mutability is read_only|mutating|unknown")
insert("bad_enum_mutability_case", SAMPLE["tool_queued"].replace('"read_only"', '"ReadOnly"'), "/mutability", "rename_all snake_case: ReadOnly is not accepted")
insert("bad_enum_outcome", SAMPLE["permission_resolved"].replace('"allowed"', '"approved"'), "/outcome", "PermissionOutcome is allowed|denied")
insert("bad_enum_rule_scope", SAMPLE["permission_resolved"].replace('"session"', '"user"'), "/rule_scope", "RuleScope is session|project|global")
insert("bad_enum_task_kind", SAMPLE["task_updated"].replace('"subagent"', '"agent"'), "/kind", "TaskKind is subagent|background_task|teammate")
insert("bad_enum_task_status", SAMPLE["task_updated"].replace('"running"', '"done"'), "/status", "TaskStatus is spawned|running|finished|failed")
insert("bad_enum_severity", SAMPLE["notice"].replace('"info"', '"error"'), "/severity", "NoticeSeverity is info|warning")
insert("bad_enum_policy_kind", R.replace('"kind":"byte_budget"', '"kind":"lru"'), "/policy/kind", "ElisionPolicy kind is keep_recent|byte_budget")
insert("bad_enum_canonical_content_kind", R.replace('"canonical_content_kind":"text"', '"canonical_content_kind":"binary"'), "/results/0/canonical_content_kind", "text|structured")
insert("bad_enum_action", R.replace('"action":"preview"', '"action":"truncated"'), "/results/0/action", "preview|marker|omitted")
replace_tail("bad_enum_run_status", '{"seq":{seq},"type":"run_finished","status":"cancelled"}', "/status", "RunOutcome status is ok|error")
replace_tail("bad_enum_stopped_by", '{"seq":{seq},"type":"run_finished","status":"ok","stopped_by":"time_budget"}', "/stopped_by", "Bound is deadline|tool_budget|token_budget")
replace_head("bad_schema_version", HEAD.replace('"schema":2', '"schema":3'), "/schema", "schema must be 1 or 2 (strict)")
replace_head("bad_schema_version_zero", HEAD.replace('"schema":2', '"schema":0'), "/schema", "schema must be 1 or 2 (strict)")

# ---- stream structure ----
replace_head("first_line_not_run_started", '{"seq":0,"type":"user_message","text":"hi"}', "/type", "line 1 must be run_started")
insert("run_started_not_first", HEAD.replace('"seq":0', '"seq":{seq}'), "/type", "run_started may only be line 1")
insert("run_finished_not_last", '{"seq":{seq},"type":"run_finished","status":"ok"}', "/type", "run_finished may only be the last line", at=4)
replace_tail("last_line_not_run_finished", '{"seq":{seq},"type":"assistant_message","text":"more"}', "/type", "last line must be run_finished")
write_case(OUT, "seq_header_not_zero", [HEAD.replace('"seq":0', '"seq":1')] + [l.replace("{seq}", str(i + 2)) for i, l in enumerate(BODY + [TAIL])], 1, "/seq", "header seq must be 0", expect)
lines = fill([HEAD] + BODY + [TAIL]); lines[3] = lines[3].replace('"seq":3', '"seq":2')
lines = [l if i < 4 else l.replace(f'"seq":{i}', f'"seq":{i}') for i, l in enumerate(lines)]
write_case(OUT, "seq_repeated", lines, 4, "/seq", "seq must be strictly increasing (2 repeats)", expect)
lines = fill([HEAD] + BODY + [TAIL]); lines[3] = lines[3].replace('"seq":3', '"seq":1')
write_case(OUT, "seq_decreasing", lines, 4, "/seq", "seq goes back from 2 to 1", expect)
insert("tool_started_unannounced", '{"seq":{seq},"type":"tool_started","tool_call_id":"c9","tool_name":"shell"}', "/tool_call_id", "tool_started for a call never queued")
insert("tool_completed_twice", '{"seq":{seq},"type":"tool_completed","tool_call_id":"c1","tool_name":"shell","summary":"again","is_error":false}', "/tool_call_id", "second tool_completed for c1", at=4)
insert("tool_progress_after_completed", '{"seq":{seq},"type":"tool_progress","tool_call_id":"c1","tool_name":"shell","progress":"late"}', "/tool_call_id", "tool_progress after c1 completed", at=4)
insert("tool_queued_twice", '{"seq":{seq},"type":"tool_queued","tool_call_id":"c1","tool_name":"shell","summary":"ls","mutability":"read_only","input":{"command":"ls"}}', "/tool_call_id", "tool_call_id c1 queued a second time")

# ---- nesting ----
insert("deep_nesting", '{"seq":{seq},"type":"tool_queued","tool_call_id":"c2","tool_name":"deep","summary":"deep","mutability":"unknown","input":' + deep_array(100000) + '}', "-", "tool input nested 100000 arrays deep")
insert("deep_nesting_objects", '{"seq":{seq},"type":"permission_requested","request_id":"p1","tool_call_id":"c1","tool_name":"shell","description":"d","preview":' + '{"a":' * 100000 + '0' + '}' * 100000 + '}', "-", "preview nested 100000 objects deep")

write_expect(os.path.join(OUT, "..", "EXPECT.tsv"), expect)
print(len(expect), "basis invalid files")

# ======================================================================
# ambiguous/: the seeds (serde types) and the wire reference (or strict vs
# lenient reading) disagree. NOTES.tsv: file, line, pointer, seeds, reference.
# ======================================================================
AOUT = os.path.join(os.path.dirname(__file__), "..", "basis", "ambiguous")
notes = []
def amb(name, lines, ln, ptr, seeds, ref):
    write_case(AOUT, name, lines, ln, ptr, seeds + " | reference: " + ref, notes)
def amb_insert(name, bad, ptr, seeds, ref, at=3):
    body = BODY[:at] + [bad] + BODY[at:]
    amb(name, fill([HEAD] + body + [TAIL]), at + 2, ptr, seeds, ref)

amb_insert("null_in_option_rule_scope", SAMPLE["permission_resolved"].replace('"session"', 'null'), "/rule_scope",
    "seeds: Option<RuleScope> deserializes null as None (accepted)", "basis never writes null; strict rejects, lenient treats as absent")
amb_insert("null_in_option_detail", SAMPLE["task_updated"].replace('"d"', 'null'), "/detail",
    "seeds: Option<String> accepts null", "never null; strict rejects, lenient absent")
amb("null_in_option_stopped_by_and_usage", fill([HEAD] + BODY + ['{"seq":{seq},"type":"run_finished","status":"ok","stopped_by":null,"usage":null}']), 7, "/stopped_by",
    "seeds: Option<Bound>/Option<RunUsage> accept null", "'Absent, not null'; strict rejects, lenient absent")
amb_insert("null_as_tool_input", '{"seq":{seq},"type":"tool_queued","tool_call_id":"c2","tool_name":"noop","summary":"","mutability":"read_only","input":null}', "/input",
    "seeds: input is serde_json::Value, null is a Value (accepted)", "producer writes parsed JSON of the tool text, so text 'null' gives null; but 'basis never writes null' (section 3)")
amb_insert("empty_array_for_omitted_field", '{"seq":{seq},"type":"notice","severity":"info","message":"m"}', "", "n/a", "n/a")  # placeholder replaced below
os.remove(os.path.join(AOUT, "empty_array_for_omitted_field.jsonl")); notes.pop()
amb("empty_array_for_omitted_field", fill([HEAD.replace('"context_files":[{"path":"/r/AGENTS.md","scope":"workspace"}]', '"context_files":[],"skills_dirs":[],"skills":[],"mcp_servers":[]')] + BODY + [TAIL]), 1, "/skills_dirs",
    "seeds: Vec with default accepts []", "producer omits empty arrays (skip_serializing_if Vec::is_empty); a byte-faithful reader would not see []")
amb_insert("image_count_zero_written", SAMPLE["user_message"].replace('"image_count":1', '"image_count":0'), "/image_count",
    "seeds: usize accepts 0", "omitted when 0; never written as 0 by the producer")
amb("ok_with_message", fill([HEAD] + BODY + ['{"seq":{seq},"type":"run_finished","status":"ok","message":"extra"}']), 7, "/message",
    "seeds: unit variant Ok ignores the extra key", "message is absent when status is ok")
amb("schema1_with_elided_event", fill([HEAD.replace('"schema":2', '"schema":1')] + BODY[:3] + [SAMPLE["request_tool_results_elided"]] + BODY[3:] + [TAIL]), 5, "/type",
    "schema-1 event.rs has no such variant (unknown type)", "inconsistent: flag it, but it can still be read")
amb("schema1_notice_without_severity", fill([HEAD.replace('"schema":2', '"schema":1')] + BODY[:3] + ['{"seq":{seq},"type":"notice","message":"m"}'] + BODY[3:] + [TAIL]), 5, "",
    "schema-1 event.rs: severity is required (no default); newer docs: defaulted on read", "one reader handles both; default info")
lines = fill([HEAD] + BODY + [TAIL]); lines[-1] = lines[-1].replace('"seq":6', '"seq":18446744073709551615')
amb("seq_gap_to_u64_max", lines, 7, "/seq", "seeds: seq is u64, any value", "strictly increasing; a gap is a warning, not an error")
amb("truncated_no_run_finished", fill([HEAD] + BODY), 6, "", "n/a (per-line types fine)", "no run_finished = truncated stream (producer killed), report as truncated")
amb("tool_completed_without_started", fill([HEAD] + [BODY[0], BODY[1], BODY[3], BODY[4], TAIL]), 4, "/tool_call_id",
    "n/a", "lifecycle is queued -> started -> completed; whether basis skips started (e.g. after a denial) is not stated")
amb_insert("elided_result_with_content_key", R.replace('"projected_content_bytes":4096}', '"projected_content_bytes":4096,"content":"secret body"}'), "/results/0/content",
    "seeds/serde ignore the unknown key", "ElidedToolResult never has a content key")
amb("skill_with_path_key", fill([HEAD_FULL.replace('{"name":"review","description":"d"}', '{"name":"review","description":"d","path":"/r/.basis/skills/review"}')] + BODY + [TAIL]), 1, "/skills/0/path",
    "serde ignores the unknown key", "a test asserts skills never carry a path")
crlf = fill([HEAD] + BODY + [TAIL])
amb("crlf_line_endings", [l + "\r" for l in crlf], 1, "", "serde_json treats trailing \\r as whitespace", "NDJSON lines are \\n terminated")
b = fill([HEAD] + BODY + [TAIL]); b.insert(3, "")
amb("blank_line_between_records", b, 4, "", "n/a: an empty line is not a JSON value", "not addressed; many NDJSON readers skip blank lines")
b = fill([HEAD] + BODY + [TAIL]); b[0] = "\ufeff" + b[0]
amb("utf8_bom_first_line", b, 1, "", "serde_json rejects a BOM", "UTF-8 NDJSON; BOM not addressed")
amb_insert("unknown_type_strict", '{"seq":{seq},"type":"session_paused","reason":"user"}', "/type",
    "seeds: internally tagged enum rejects an unknown tag (non_exhaustive upstream)", "tolerant reader keeps it opaque, strict validator flags it (valid/ treats it as valid)")
write_expect(os.path.join(AOUT, "NOTES.tsv"), notes)
print(len(notes), "basis ambiguous files")
