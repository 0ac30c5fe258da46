"""muse probes. Payload texts are written by hand (bex-co producer key order);
this script only wraps them in envelopes (sequence, counter id, recorded_at) and,
for the sorted-keys file, re-sorts keys."""
import os, sys, json
sys.path.insert(0, os.path.dirname(__file__))
from common import *
HERE = os.path.dirname(__file__)
VAL = os.path.join(HERE, "..", "muse", "valid")

def uid(n):
    return "018f0000-0000-7000-8000-%012x" % (0xc350 + n)

def envelope(seq, idn, rec, rtype, dur, cause, ptype, payload, stream_id, order="wire", extra=None, ws=False, psv=1, sv=1):
    stream = '{"kind":"session","id":"%s"}' % stream_id
    parts = [("schema_version", str(sv)), ("id", json.dumps(uid(idn))), ("stream", stream), ("sequence", str(seq)),
             ("recorded_at", str(rec)), ("record_type", json.dumps(rtype)), ("durability", json.dumps(dur)),
             ("causation_id", json.dumps(cause)), ("payload_type", json.dumps(ptype)), ("payload_schema_version", str(psv)),
             ("payload", payload)]
    if extra:
        parts.insert(extra[0], (extra[1], extra[2]))
    if order == "sorted":
        parts.sort()
        parts = [(k, sort_text(v)) for k, v in parts]
    sep_kv, sep = (": ", ", ") if ws else (":", ",")
    return "{" + sep.join(json.dumps(k) + sep_kv + v for k, v in parts) + "}"

def sort_text(v):
    if v.startswith("{"):
        return dumps(_sorted(json.loads(v, object_pairs_hook=O)))
    return v

def _sorted(n):
    if isinstance(n, O):
        return O(sorted(((k, _sorted(v)) for k, v in n), key=lambda kv: kv[0]))
    if isinstance(n, list):
        return [_sorted(x) for x in n]
    return n

CLASS = {"runtime.command.accepted": ("reconciliation", "durable"), "turn.input.user": ("status", "ephemeral"),
         "run.output.delta": ("status", "ephemeral")}

def build(records, stream_id, cause, order="wire", ws=False, rec_values=None, extras=None, psv=None, sv=None):
    out = []; idn = 0
    for i, (ptype, payload) in enumerate(records):
        rtype, dur = CLASS.get(ptype, ("event", "durable"))
        rec = rec_values[i] if rec_values else 1780531400000000 + idn
        out.append(envelope(i + 1, idn, rec, rtype, dur, cause, ptype, payload, stream_id, order,
                            (extras or {}).get(i + 1), ws, (psv or {}).get(i + 1, 1), (sv or {}).get(i + 1, 1)))
        idn += 1 if i < 2 else 2
    return out

def run(C): return '{"kind":"run","id":"%s"}' % C
def task(T): return '{"kind":"task","id":"%s"}' % T
def linked(C, T): return ("task.stream.linked", '{"kind":"task_stream_linked","command_id":"%s","run_stream":%s,"task_id":"%s","task_stream":%s}' % (C, run(C), T, task(T)))
def life(C, T, kind, ev_fields="", extra_payload=""):
    ev = '{"kind":"%s","task_id":"%s"%s}' % (kind, T, ev_fields)
    return ("task.lifecycle." + kind, '{"kind":"task_lifecycle","command_id":"%s","run_stream":%s,"task_stream":%s,"task_id":"%s","event":%s%s}' % (C, run(C), task(T), T, ev, extra_payload))
def head(C, prompt, client='null', model=None):
    r = [("runtime.command.accepted", '{"kind":"command_accepted","command_id":"%s","client_id":%s,"command_kind":"turn.submit"}' % (C, client)),
         ("session.run.linked", '{"kind":"session_run_linked","command_id":"%s","run_stream":%s}' % (C, run(C)))]
    if model:
        r.append(("run.model.configured", '{"kind":"run_model_configured","command_id":"%s","run_stream":%s,%s}' % (C, run(C), model)))
    r += [("turn.input.user", '{"kind":"turn_input_user","command_id":"%s","run_stream":%s,"prompt":%s}' % (C, run(C), prompt)),
          ("run.lifecycle.started", '{"kind":"run_started","command_id":"%s","run_stream":%s,"prompt":%s}' % (C, run(C), prompt))]
    return r
def delta(C, text): return ("run.output.delta", '{"kind":"run_output_delta","command_id":"%s","run_stream":%s,"text":%s}' % (C, run(C), text))
def terminal(C, state, text, reason):
    t = ',"text":%s' % text if text is not None else ""
    return ("run.terminal." + state, '{"kind":"run_terminal","command_id":"%s","run_stream":%s,"terminal":"%s"%s,"reason":%s}' % (C, run(C), state, t, reason))
def toolres(C, call, text, facts=None, edit=None):
    f = ',"correlation_facts":%s' % facts if facts else ""
    e = ',"edit_facts":%s' % edit if edit else ""
    return ("tool.result", '{"kind":"tool_result","command_id":"%s","run_stream":%s,"call_id":"%s","text":%s%s%s}' % (C, run(C), call, text, f, e))
def sei(op, key, policy, handle, parent):
    return ',"operation":"%s","idempotency_key":"%s","policy_decision":"%s","cancellation_handle":%s,"parent_task_id":%s' % (op, key, policy, handle, parent)

def write(name, lines):
    with open(os.path.join(VAL, name), "w", encoding="utf-8", newline="") as f:
        f.write("\n".join(lines) + "\n")

# ---------------- 1: echo run, bex-co producer order ----------------
S1 = "5f0c1d2e-1111-4a00-8000-000000000001"; C = "c0ffee00-1111-4a00-8000-00000000000a"
T1, T2, T3 = "018f0000-0000-7000-8000-000000002710", "018f0000-0000-7000-8000-000000002711", "018f0000-0000-7000-8000-000000002712"
R = head(C, '"fixture one"') + [
    linked(C, T1), life(C, T1, "proposed", ',"task_kind":"reminder.agent.plugin:tbh-reminders:skill-reminder"'),
    life(C, T1, "accepted"), life(C, T1, "started"),
    linked(C, T2), life(C, T2, "proposed", ',"task_kind":"model.unknown.response"'), life(C, T2, "accepted"),
    life(C, T2, "scheduled", ',"idempotency_key":"model:%s:%s"' % (C, T2)),
    life(C, T2, "side_effect_intent", sei("model.unknown.response", "model:%s:%s" % (C, T2), "not_applicable", "null", "null")),
    life(C, T2, "started"), delta(C, '"echo: "'), delta(C, '"fixture one"'), life(C, T2, "completed"),
    linked(C, T3), life(C, T3, "proposed", ',"task_kind":"reminder.agent.plugin:tbh-reminders:goal-reminder"'),
    life(C, T3, "rejected", ',"reason":"skip_if_running"'),
    life(C, T1, "failed", ',"reason":"invalid run configuration: provider does not support base instructions"'),
    terminal(C, "completed", '"echo: fixture one"', "null"),
]
write("echo_producer_order.jsonl", build(R, S1, C))

# ---------------- 2: live tool run, every key sorted (envelope, payload, nested) ----------------
S2 = "4129220b-2222-4b00-8000-000000000002"; C = "63a61abc-2222-4b00-8000-00000000000b"
M, W, B, RD, RM = ("11908b53-2222-4000-8000-000000000001", "1d48dee1-2222-4000-8000-000000000002", "2e59eff2-2222-4000-8000-000000000003",
                   "3f6af003-2222-4000-8000-000000000004", "51fc745c-2222-4000-8000-000000000005")
DET = '{"phase":"opening_stream","facets":[{"kind":"external_attempt","attempt":1,"max_attempts":10,"operation":"model.response","system":"meta"},{"kind":"producer","detail":{"kind":"provider","provider":"meta","model":"muse-spark-1.2","request_id":"req-1","response_id":"resp-1","stream":{"events":3}}}]}'
DET2 = '{"phase":"retrying","facets":[{"kind":"external_attempt","attempt":2,"max_attempts":10,"operation":"model.response","system":"meta","error_kind":"timeout"}]}'
CMD = json.dumps(json.dumps({"chunk_id": "exec-12-1", "command": "printf ok; exit 1", "description": "Print a value", "exit_code": 1,
                             "terminal_status": "completed", "output": "ok", "original_output_bytes": 2, "original_output_tokens": 1,
                             "truncated": False, "provider_extension": True}, separators=(",", ":")))
R = head(C, '"write hello.txt, run a command, read it back"', client='"cli-42"',
         model='"model_id":"muse-spark-1.2-contributor","display_label":"Muse Spark 1.2","profile_id":"tbh","provider_id":"meta","source":"startup"') + [
    linked(C, RM), life(C, RM, "proposed", ',"task_kind":"reminder.agent.plugin:tbh-reminders:verify-reminder"'), life(C, RM, "accepted"), life(C, RM, "started"),
    linked(C, M), life(C, M, "proposed", ',"task_kind":"model.meta.response"'), life(C, M, "accepted"),
    life(C, M, "scheduled", ',"idempotency_key":"model:%s:%s"' % (C, M)),
    life(C, M, "side_effect_intent", sei("model.meta.response", "model:%s:%s" % (C, M), "not_applicable", "null", "null")),
    life(C, M, "started", ',"span_id":"56113d86f6c2c1e6"'),
    life(C, M, "status", ',"message":"opening meta model stream attempt 1/10","details":%s' % DET),
    linked(C, W), life(C, W, "proposed", ',"task_kind":"tool.write_file"'), life(C, W, "accepted"),
    life(C, W, "scheduled", ',"idempotency_key":"tool:call_w1"'),
    life(C, W, "side_effect_intent", sei("tool:write_file", "tool:call_w1", "allow:policy", '{"kind":"token","id":"h-1"}', '"%s"' % M)),
    life(C, W, "started", ',"span_id":"a1b2c3d4e5f60718"'), life(C, W, "output", ',"chunk":"wrote 6 bytes to hello.txt"'), life(C, W, "completed"),
    toolres(C, "call_w1", '"wrote 6 bytes to hello.txt"', '{"tool_name":"write_file","outcome":"success"}', '{"added":1,"path":"hello.txt","tool_name":"write_file"}'),
    linked(C, B), life(C, B, "proposed", ',"task_kind":"tool.bash"'), life(C, B, "accepted"),
    life(C, B, "scheduled", ',"idempotency_key":"tool:call_b1"'),
    life(C, B, "side_effect_intent", sei("tool:bash", "tool:call_b1", "allow:policy", "null", '"%s"' % M)),
    life(C, B, "started"), life(C, B, "output", ',"chunk":%s' % CMD), life(C, B, "failed", ',"reason":"command exited with status 1"'),
    toolres(C, "call_b1", CMD, '{"tool_name":"bash","outcome":"failure"}'),
    linked(C, RD), life(C, RD, "proposed", ',"task_kind":"tool.read_file"'), life(C, RD, "accepted"),
    life(C, RD, "scheduled", ',"idempotency_key":"tool:call_r1"'),
    life(C, RD, "side_effect_intent", sei("tool:read_file", "tool:call_r1", "allow:policy", "null", "null")),
    life(C, RD, "started"), life(C, RD, "completed"),
    toolres(C, "call_r1", '"{\\"items\\":5,\\"ok\\":true,\\"revision\\":4}"'),
    life(C, M, "status", ',"message":"retrying meta model stream attempt 2/10","details":%s' % DET2),
    delta(C, '"Created hello.txt; "'), delta(C, '"the command failed."'),
    life(C, M, "completed"),
    life(C, RM, "cancelled", ',"reason":"main run completed"'),
    terminal(C, "completed", '"Created hello.txt; the command failed."', "null"),
]
write("live_tools_all_keys_sorted.jsonl", build(R, S2, C, order="sorted"))

# ---------------- 3: unknown payload types, unknown lifecycle kinds, unknown keys ----------------
S3 = "7a7a7a7a-3333-4c00-8000-000000000003"; C = "0ddba11a-3333-4c00-8000-00000000000c"
U1, U2 = "aaaa0001-3333-4000-8000-000000000001", "aaaa0002-3333-4000-8000-000000000002"
R = head(C, '"delegate"', model='"model_id":"m","display_label":"","profile_id":"","provider_id":"meta","source":"user_override","x_context_window":200000') + [
    ("subagent.lifecycle.spawned", '{"kind":"subagent_spawned","command_id":"%s","run_stream":%s,"subagent_id":"sub-1","parent":{"task":"%s"}}' % (C, run(C), U1)),
    ("approval.requested", '{"kind":"approval_requested","command_id":"%s","tool":"bash","risk":"exec"}' % C),
    ("edit.applied", '{"kind":"edit_applied","path":"a.txt"}'),
    linked(C, U1)[0:1] + ('{"kind":"task_stream_linked","command_id":"%s","run_stream":{"kind":"run","id":"%s","x_epoch":1},"task_id":"%s","task_stream":{"kind":"task","id":"%s"},"x_link_reason":"spawn"}' % (C, C, U1, U1),),
    life(C, U1, "proposed", ',"task_kind":"subagent.explorer","x_priority":3', ',"x_payload_extra":{"nested":[null]}'),
    life(C, U1, "accepted"),
    life(C, U1, "paused", ',"until":"approval","x_extra":true'),
    life(C, U1, "resumed"),
    life(C, U1, "started", ',"span_id":""'),
    life(C, U1, "status", ',"message":"details as an array","details":["any",1,null]'),
    life(C, U1, "status", ',"message":"details as null","details":null'),
    life(C, U1, "completed"),
    toolres(C, "call_x", '"free text"', '{"tool_name":"command","outcome":"success","x_duration_ms":12,"x_exit":0}', '["edit facts may be any JSON"]'),
    toolres(C, "call_y", '""', '{}', '"a string"'),
    toolres(C, "call_z", '"only outcome"', '{"outcome":"failure"}'),
    linked(C, U2), life(C, U2, "proposed", ',"task_kind":"tool.read_file"'), life(C, U2, "cancelled", ',"reason":""'),
    terminal(C, "failed", None, '"provider error: 503"'),
]
lines = build(R, S3, C, extras={1: (3, "x_trace_id", '"trace-1"'), 6: (11, "x_shard", '{"n":1,"of":[2]}')})
# an unknown key inside the envelope stream ref
lines[1] = lines[1].replace('"stream":{"kind":"session","id":"%s"}' % S3, '"stream":{"kind":"session","id":"%s","x_partition":0}' % S3)
write("unknown_types_and_keys.jsonl", lines)

# ---------------- 4: strings, escapes, whitespace ----------------
S4 = "\\u00e9\\ud83d\\ude00-session"; C = "cmd-\\u2603"
CU = "cmd-\u2603"
R = head("cmd-\u2603", '"\\u00e9t\\u00e9 \\ud83d\\ude00 \\/path \\"q\\" \\\\ \\b\\f\\n\\r\\t \\u0000 \\u2028\\u2029"') + [
    delta(CU, '""'), delta(CU, '"NUL:\\u0000|emoji:😀=\\ud83d\\ude00|clef:\\uD834\\uDD1E|zh:你好|"'), delta(CU, '"sl:\\/|bs:\\\\|q:\\"|nl:\\n|esc:\\u001b[0m"'),
    linked(CU, "t-\u2603"), life(CU, "t-\u2603", "proposed", ',"task_kind":""'), life(CU, "t-\u2603", "accepted"),
    life(CU, "t-\u2603", "started"), life(CU, "t-\u2603", "output", ',"chunk":""'),
    life(CU, "t-\u2603", "status", ',"message":"","details":{}'),
    life(CU, "t-\u2603", "failed", ',"reason":"\\u5931\\u8d25 \\ud83d\\udca5"'),
    terminal(CU, "completed", '"NUL:\\u0000|emoji:😀=😀|clef:𝄞|zh:你好|sl:/|bs:\\\\|q:\\"|nl:\\n|esc:\\u001b[0m"', '""'),
]
lines = build(R, "\u00e9\U0001F600-session", CU, ws=True)
lines = [l.replace('"stream": {"kind":"session"', '"stream": { "kind" : "session" ').replace('"\u00e9\U0001F600-session"}', '"\\u00e9\\ud83d\\ude00-session" }') for l in lines]
lines[0] = lines[0].replace(", ", " ,\t")
write("strings_escapes_whitespace.jsonl", lines)

# ---------------- 5: integer edges ----------------
S5 = "99999999-5555-4e00-8000-000000000005"; C = "77777777-5555-4e00-8000-00000000000e"
T = "88888888-5555-4000-8000-000000000001"
BIG = json.dumps(json.dumps({"chunk_id": "exec-0", "command": "true", "description": "", "exit_code": -2147483648, "terminal_status": "completed",
                             "output": "", "original_output_bytes": 18446744073709551615, "original_output_tokens": 0, "truncated": True}, separators=(",", ":")))
BIG2 = json.dumps(json.dumps({"chunk_id": "exec-1", "command": "true", "description": "d", "exit_code": 2147483647, "terminal_status": "timed_out",
                              "output": "x", "original_output_bytes": 9007199254740993, "original_output_tokens": 18446744073709551615, "truncated": False}, separators=(",", ":")))
R = head(C, '"numbers"') + [
    linked(C, T), life(C, T, "proposed", ',"task_kind":"tool.bash"'), life(C, T, "accepted"),
    life(C, T, "scheduled", ',"idempotency_key":"tool:call_n"'),
    life(C, T, "side_effect_intent", sei("tool:bash", "tool:call_n", "allow:policy", '{"handle":18446744073709551615,"f":-0.0,"e":1e300}', "null")),
    life(C, T, "started"), life(C, T, "completed"),
    toolres(C, "call_n", BIG, '{"tool_name":"bash","outcome":"success"}'),
    toolres(C, "call_n2", BIG2, '{"tool_name":"bash","outcome":"success"}'),
    life(C, T, "status", ',"message":"m","details":{"attempt":18446744073709551615,"neg":-9223372036854775808}'),
    terminal(C, "completed", '""', "null"),
]
n = len(R)
rec = [0, 0, 1, 9007199254740992, 9007199254740993, 9007199254740993] + [18446744073709551614] * (n - 7) + [18446744073709551615]
write("integer_edges.jsonl", build(R, S5, C, rec_values=rec, psv={3: 4294967295, 4: 0}, sv={5: 4294967295, 6: 0}))
print("muse valid written")
