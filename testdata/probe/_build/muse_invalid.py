"""muse invalid + ambiguous probes: a short valid echo-style turn with exactly one bad record."""
import os, sys
sys.path.insert(0, os.path.dirname(__file__))
from common import *
from muse_build import build, head, linked, life, delta, terminal, toolres, sei, uid

OUT = os.path.join(os.path.dirname(__file__), "..", "muse", "invalid")
AOUT = os.path.join(os.path.dirname(__file__), "..", "muse", "ambiguous")
S = "5174af86-1581-4010-ac39-8cc7a174e4ba"; C = "4df5c2f5-5e4e-4dc1-8310-17d3ffcfb09d"; T = "018f0000-0000-7000-8000-000000002710"
MODEL = '"model_id":"muse-spark-1.2-contributor","display_label":"muse-spark-1.2-contributor","profile_id":"tbh","provider_id":"meta","source":"startup"'
BASE = head(C, '"hi"', model=MODEL) + [
    linked(C, T), life(C, T, "proposed", ',"task_kind":"tool.write_file"'), life(C, T, "accepted"),
    life(C, T, "scheduled", ',"idempotency_key":"tool:call_1"'),
    life(C, T, "side_effect_intent", sei("tool:write_file", "tool:call_1", "allow:policy", "null", "null")),
    life(C, T, "started", ',"span_id":"abc"'), life(C, T, "completed"),
    toolres(C, "call_1", '"wrote 2 bytes"', '{"tool_name":"write_file","outcome":"success"}', '{"added":1,"path":"a.txt","tool_name":"write_file"}'),
    delta(C, '"done"'),
    terminal(C, "completed", '"done"', "null"),
]
LINES = build(BASE, S, C)
IDX = {"accepted": 0, "linked": 1, "model": 2, "user": 3, "started": 4, "tlinked": 5, "proposed": 6, "taccepted": 7,
       "scheduled": 8, "sei": 9, "tstarted": 10, "completed": 11, "result": 12, "delta": 13, "terminal": 14}
expect = []; notes = []

def renumber(lines):
    """re-assign sequence 1..n (and keep id/recorded_at monotonic) after inserting a record"""
    out = []
    for n, l in enumerate(lines, 1):
        l = set_raw(l, "sequence", str(n))
        l = set_raw(l, "recorded_at", str(1780531400000000 + 2 * n))
        l = set_raw(l, "id", '"%s"' % uid(2 * n))
        out.append(l)
    return out

def case(name, which, fn, ptr, reason, out=OUT, exp=expect):
    """Replace record `which` (by IDX name) with fn(original line)."""
    lines = list(LINES); i = IDX[which]
    new = fn(lines[i]); assert new != lines[i], name
    lines[i] = new
    write_case(out, name, lines, i + 1, ptr, reason, exp)
def insert_bad(name, which, fn, ptr, reason, out=OUT, exp=expect):
    """Insert fn(copy of record `which`) just before that record, then renumber sequence/id/recorded_at."""
    lines = list(LINES); i = IDX[which]
    new = fn(lines[i]); assert new != lines[i], name
    lines.insert(i, new)
    write_case(out, name, renumber(lines), i + 1, ptr, reason, exp)
def raw(name, which, text, ptr, reason, out=OUT, exp=expect):
    case(name, which, lambda l: text, ptr, reason, out, exp)
def rep(a, b):
    def f(l):
        assert l.count(a) >= 1, (a, l); return l.replace(a, b, 1)
    return f
def drop(*path): return lambda l: drop_key(l, *path)
def setv(*pv): return lambda l: set_raw(l, *pv)

# framing / syntax
raw("not_an_object", "user", '["schema_version",1]', "", "record is a JSON array")
raw("not_an_object_string", "user", '"run.output.delta"', "", "record is a JSON string")
case("malformed_json_truncated", "user", lambda l: l[:len(l)//2], "", "record cut in the middle")
case("malformed_trailing_comma", "user", lambda l: l[:-2] + ",}}", "", "trailing comma")
case("raw_control_char_in_string", "user", rep('"prompt":"hi"', '"prompt":"h\ni"'.replace("\n", "\u001f")), "", "unescaped U+001F in a string")
case("invalid_utf8", "user", rep('"prompt":"hi"', '"prompt":"h\udcfei"'), "", "byte 0xFE is not UTF-8")
case("lone_surrogate_escape", "user", rep('"prompt":"hi"', '"prompt":"\\udbff"'), "/payload/prompt", "unpaired high surrogate escape")
case("nan_literal_in_any", "result", rep('"added":1', '"added":NaN'), "", "NaN is not JSON (inside edit_facts, any JSON)")

# numbers
case("u32_overflow", "user", rep('"schema_version":1', '"schema_version":4294967296'), "/schema_version", "schema_version is u32; u32 max + 1")
case("u32_overflow_payload_schema_version", "user", rep('"payload_schema_version":1', '"payload_schema_version":4294967297'), "/payload_schema_version", "u32 overflow (wraps to 1)")
case("u64_overflow", "user", setv("recorded_at", "18446744073709551616"), "/recorded_at", "u64 max + 1")
case("u64_fraction", "user", setv("sequence", '14.5'), "/sequence", "fraction in a u64 field")
case("u64_fraction_dot_zero", "user", setv("sequence", '14.0'), "/sequence", "14.0 is a float token")
case("u64_exponent", "user", setv("recorded_at", "1.780531400000024e15"), "/recorded_at", "exponent form is a float token")
case("negative_zero", "user", rep('"payload_schema_version":1', '"payload_schema_version":-0'), "/payload_schema_version", "-0 is float -0.0; not a u32")
case("negative_integer", "user", rep('"schema_version":1', '"schema_version":-1'), "/schema_version", "u32 cannot be negative")
case("wrong_type_string_for_int", "user", setv("sequence", '"14"'), "/sequence", "numeric string in a u64 field")

# duplicate keys (envelope members are typed fields; payload members of a typed payload too)
case("duplicate_key_type", "user", rep('"payload_type":"turn.input.user"', '"payload_type":"turn.input.user","payload_type":"turn.input.user"'), "/payload_type", "duplicate discriminator payload_type")
case("duplicate_key_record_type", "user", rep('"record_type":"status"', '"record_type":"status","record_type":"event"'), "/record_type", "duplicate enum member")
case("duplicate_key_stream_kind", "user", rep('"stream":{"kind":"session"', '"stream":{"kind":"session","kind":"run"'), "/stream/kind", "duplicate member in the envelope StreamRef")

# wrong types
case("wrong_type_stream_string", "user", rep('"stream":{"kind":"session","id":"%s"}' % S, '"stream":"%s"' % S), "/stream", "stream must be a StreamRef object")
case("wrong_type_payload_not_object", "user", setv("payload", '"doi"'), "/payload", "payload of a known type must be an object")
case("wrong_type_number_for_string", "user", rep('"prompt":"hi"', '"prompt":42'), "/payload/prompt", "prompt is a String")
case("wrong_type_client_id_number", "accepted", rep('"client_id":null', '"client_id":7'), "/payload/client_id", "client_id is Option<String>")
case("wrong_type_id_number", "user", setv("id", '50000'), "/id", "record id is a String")
case("wrong_type_correlation_facts_string", "result", setv("payload", "correlation_facts", '"write_file"'), "/payload/correlation_facts", "correlation_facts must be an object")
case("wrong_type_correlation_tool_name_bool", "result", setv("payload", "correlation_facts", "tool_name", 'true'), "/payload/correlation_facts/tool_name", "tool_name is Option<String>")
case("wrong_type_string_for_bool_like", "terminal", setv("payload", "reason", 'false'), "/payload/reason", "reason is Option<String>; a bool is rejected")

# null
case("null_in_non_option", "user", rep('"prompt":"hi"', '"prompt":null'), "/payload/prompt", "turn.input.user prompt is String")
case("null_in_non_option_sequence", "user", setv("sequence", 'null'), "/sequence", "sequence is u64")
case("null_in_non_option_terminal", "terminal", rep('"terminal":"completed"', '"terminal":null'), "/payload/terminal", "terminal is String")

# missing required: envelope
for f in ["schema_version", "id", "stream", "sequence", "recorded_at", "record_type", "durability", "causation_id", "payload_type", "payload_schema_version", "payload"]:
    case(f"missing_required_envelope.{f}", "user", drop(f), "", f"envelope without {f}")
case("missing_required_StreamRef.id", "user", drop("stream", "id"), "/stream", "StreamRef without id")
case("missing_required_StreamRef.kind", "user", drop("payload", "run_stream", "kind"), "/payload/run_stream", "run_stream without kind")
# missing required: payloads
PAY = {
 "accepted": ["kind", "command_id", "command_kind"], "linked": ["run_stream"], "user": ["prompt", "run_stream"],
 "started": ["prompt", "run_stream", "command_id"], "model": ["run_stream", "model_id", "display_label", "provider_id", "source"],
 "delta": ["run_stream", "text", "kind"], "result": ["run_stream", "call_id", "text"], "terminal": ["run_stream", "terminal", "command_id"],
 "tlinked": ["run_stream", "task_id", "task_stream"], "tstarted": ["run_stream", "task_id", "task_stream", "event"],
}
PT = {"accepted": "runtime.command.accepted", "linked": "session.run.linked", "user": "turn.input.user", "started": "run.lifecycle.started",
      "model": "run.model.configured", "delta": "run.output.delta", "result": "tool.result", "terminal": "run.terminal.completed",
      "tlinked": "task.stream.linked", "tstarted": "task.lifecycle.started"}
for w, fs in PAY.items():
    for f in fs:
        if w in ("tlinked", "delta"):
            insert_bad(f"missing_required_{PT[w]}.{f}", w, drop("payload", f), "/payload", f"{PT[w]} payload without {f} (a malformed extra copy just before the valid one)")
            continue
        case(f"missing_required_{PT[w]}.{f}", w, drop("payload", f), "/payload", f"{PT[w]} payload without {f}")
case("missing_required_run.terminal.completed.kind", "terminal", drop("payload", "kind"), "/payload", "run_terminal payload without kind")

# bad enums
case("bad_enum_record_type", "user", rep('"record_type":"status"', '"record_type":"log"'), "/record_type", "RecordType is reconciliation|event|status")
case("bad_enum_durability", "user", rep('"durability":"ephemeral"', '"durability":"persistent"'), "/durability", "Durability is durable|ephemeral")
case("bad_enum_stream_kind", "user", rep('"stream":{"kind":"session"', '"stream":{"kind":"turn"'), "/stream/kind", "StreamKind is session|run|task")
case("bad_enum_run_stream_kind", "user", rep('"run_stream":{"kind":"run"', '"run_stream":{"kind":"Run"'), "/payload/run_stream/kind", "rename_all snake_case: Run is not accepted")
insert_bad("bad_enum_task_stream_kind", "tlinked", rep('"task_stream":{"kind":"task"', '"task_stream":{"kind":"job"'), "/payload/task_stream/kind", "StreamKind is session|run|task")

# stream structure
lines = list(LINES); extra = set_raw(set_raw(lines[IDX["delta"]], "payload", "text", '""'), "id", '"%s"' % uid(25))
lines.insert(IDX["delta"] + 1, extra)
write_case(OUT, "sequence_repeated", lines, IDX["delta"] + 2, "/sequence", "an extra record repeats sequence 14 (must increase by 1)", expect)
case("sequence_not_starting_at_one", "accepted", setv("sequence", "0"), "/sequence", "sequence is 1-based; the first record would need 1 (the next record is 2)")
case("recorded_at_decreasing", "delta", setv("recorded_at", "1780531399999999"), "/recorded_at", "recorded_at goes backwards")
case("lifecycle_before_stream_linked", "tlinked", lambda l: l.replace('"payload_type":"task.stream.linked"', '"payload_type":"task.stream.linked"').replace('"task_id":"%s","task_stream":{"kind":"task","id":"%s"}' % (T, T), '"task_id":"other-task","task_stream":{"kind":"task","id":"other-task"}'),
     "/payload/task_id", "placeholder")
expect.pop(); os.remove(os.path.join(OUT, "lifecycle_before_stream_linked.jsonl"))
insert_bad("lifecycle_before_stream_linked", "taccepted", lambda l: l.replace(T, "018f0000-0000-7000-8000-0000000027ff").replace('"kind":"accepted"', '"kind":"proposed","task_kind":"tool.bash"').replace("task.lifecycle.accepted", "task.lifecycle.proposed"),
    "/payload/task_id", "task.lifecycle.proposed for task ...27ff, which never had a task.stream.linked")
# nesting
case("deep_nesting", "result", setv("payload", "edit_facts", deep_array(100000)), "-", "edit_facts nested 100000 arrays deep")

write_expect(os.path.join(OUT, "..", "EXPECT.tsv"), expect)
print(len(expect), "muse invalid files")

# ---------------- ambiguous ----------------
def amb(name, which, fn, ptr, seeds, ref):
    case(name, which, fn, ptr, seeds + " | reference: " + ref, AOUT, notes)
amb("lifecycle_known_kind_missing_field", "proposed", drop("payload", "event", "task_kind"), "/payload/event",
    "seeds: TaskLifecycleEvent has a #[serde(untagged)] Unknown(Value) fallback, so a malformed known kind deserializes as Unknown (accepted)", "proposed carries task_kind")
amb("lifecycle_known_kind_wrong_type", "sei", setv("payload", "event", "operation", '5'), "/payload/event/operation",
    "seeds: falls back to Unknown(Value) (accepted)", "operation is a string")
amb("lifecycle_event_not_object", "completed", setv("payload", "event", '"completed"'), "/payload/event",
    "seeds: Unknown(Value) accepts any JSON", "event is a LifecycleEvent object tagged on kind")
amb("lifecycle_kind_mismatch_payload_type", "completed", rep('"event":{"kind":"completed"', '"event":{"kind":"failed","reason":"x"'), "/payload/event/kind",
    "seeds: dispatch is on the task.lifecycle. prefix only (accepted)", "payload_type is always task.lifecycle.+event.kind (observed)")
amb("lifecycle_event_task_id_mismatch", "completed", rep('"event":{"kind":"completed","task_id":"%s"' % T, '"event":{"kind":"completed","task_id":"someone-else"'), "/payload/event/task_id",
    "seeds: no cross-check", "event.task_id always equals payload.task_id (observed)")
amb("duplicate_key_inside_payload", "user", rep('"prompt":"hi"', '"prompt":"gone","prompt":"hi"'), "/payload/prompt",
    "seeds: payload is serde_json::Value, whose map keeps the last duplicate silently (accepted)", "not addressed; duplicate keys are generally invalid")
amb("payload_kind_mismatch", "user", rep('"kind":"turn_input_user"', '"kind":"run_terminal"'), "/payload/kind",
    "seeds: payload.kind is a plain String", "payload.kind is the snake_case kind matching payload_type")
amb("causation_id_mismatch", "user", lambda l: l.replace('"causation_id":"%s"' % C, '"causation_id":"00000000-0000-4000-8000-000000000000"'), "/causation_id",
    "seeds: no cross-check", "causation_id equals payload.command_id (observed)")
amb("record_class_mismatch", "user", rep('"record_type":"status","durability":"ephemeral"', '"record_type":"event","durability":"ephemeral"'), "/record_type",
    "seeds: independent enums", "ephemeral only with status (observed)")
amb("schema_version_2", "user", rep('"schema_version":1', '"schema_version":2'), "/schema_version",
    "seeds: any u32", "accept 1, warn (not fail) on anything else")
amb("reason_absent", "terminal", drop("payload", "reason"), "/payload",
    "seeds: reason is Option<String> without default - serde still treats a missing Option as None (accepted)", "reason is s|null, key always present")
amb("client_id_absent", "accepted", drop("payload", "client_id"), "/payload",
    "seeds: Option<String>, missing = None (accepted)", "key always present (observed)")
amb("command_id_absent_in_unknown_type", "delta", lambda l: l.replace('"payload_type":"run.output.delta"', '"payload_type":"run.output.chunked"').replace(',"command_id":"%s"' % C, ''), "/payload",
    "seeds: unknown payload type, preserved as Unknown", "payload always has command_id (observed)")
amb("edit_facts_null", "result", setv("payload", "edit_facts", 'null'), "/payload/edit_facts",
    "seeds: Option<Value> with default: null = None (accepted)", "edit_facts omitted when absent")
amb("sequence_gap", "delta", setv("sequence", '15'), "/sequence",
    "seeds: any u64", "strictly +1 with no gaps (observed); gaps in id are normal")
lines = list(LINES) + [l.replace(C, "9e9e9e9e-0000-4000-8000-000000000002") for l in LINES[:2]] 
# second turn: sequence restarts at 1 per the muse-codes changelog (unverified)
lines += []
write_case(AOUT, "second_turn_sequence_restart_truncated", lines, len(LINES) + 1, "/sequence",
    "seeds: any u64 | reference: sequence restarts at 1 for each turn (changelog, unverified); this second turn is also cut short (no run.terminal)", notes)
raw_payload_unknown = lambda l: l.replace('"payload_type":"run.output.delta"', '"payload_type":"x.custom"')
amb("unknown_type_payload_not_object", "delta", lambda l: set_raw(raw_payload_unknown(l), "payload", '[1,2]'), "/payload",
    "seeds: payload is Value; unknown type keeps it verbatim (accepted)", "payload is an object")
write_case(AOUT, "truncated_no_terminal", LINES[:-1], len(LINES) - 1, "", "n/a | reference: the last record of a turn is run.terminal.*", notes)
write_expect(os.path.join(AOUT, "NOTES.tsv"), notes)
print(len(notes), "muse ambiguous files")
