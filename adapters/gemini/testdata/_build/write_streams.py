#!/usr/bin/env python3
"""Writes the hand-made Gemini CLI test streams of this folder.

Every line here is WRITTEN from the published TypeScript types of
@google/gemini-cli-core 0.61.0 (JsonStreamEvent, StreamStats) and the wire
reference (shared/dialects-next/gemini.md); none is a capture. The lines are
serialised as JSON.stringify does: compact, keys in the order the runner
builds each object, non-ASCII text raw, control characters escaped.
Run from this folder: python3 write_streams.py
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.dirname(HERE)


def js(obj):
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


class Clock:
    def __init__(self, start):
        self.h, self.m, self.s, self.ms = start

    def tick(self, ms):
        t = ((self.h * 60 + self.m) * 60 + self.s) * 1000 + self.ms + ms
        self.ms = t % 1000
        t //= 1000
        self.s = t % 60
        t //= 60
        self.m = t % 60
        self.h = t // 60
        return "2026-10-%02dT%02d:%02d:%02d.%03dZ" % (self.day, self.h, self.m, self.s, self.ms)


def clock(day, h, m, s, ms=0):
    c = Clock((h, m, s, ms))
    c.day = day
    return c


def ev(c, ms, typ, **fields):
    o = {"type": typ, "timestamp": c.tick(ms)}
    o.update(fields)
    return o


def model(total, inp, out, cached):
    return {"total_tokens": total, "input_tokens": inp, "output_tokens": out, "cached": cached, "input": max(inp - cached, 0)}


def stats(models, duration, tools):
    s = {k: 0 for k in ["total_tokens", "input_tokens", "output_tokens", "cached", "input"]}
    for m in models.values():
        for k in s:
            s[k] += m[k]
    s.update(duration_ms=duration, tool_calls=tools, models=models)
    return s


def write(name, lines, folder=OUT):
    with open(os.path.join(folder, name), "w", encoding="utf-8", newline="\n") as f:
        for l in lines:
            f.write(l if isinstance(l, str) else js(l))
            f.write("\n")


SID = "0b6f2c1e-5d4a-4c3b-9a8f-7e6d5c4b3a21"

# 1. A plain answer: the configured model is the alias auto; a routing call
# on a lite model beside the answering model.
c = clock(1, 9, 0, 0)
write("written_plain_answer.jsonl", [
    ev(c, 0, "init", session_id=SID, model="auto"),
    ev(c, 4, "message", role="user", content="What does this repository do?"),
    ev(c, 2306, "message", role="assistant", content="It is a command-line tool that ", delta=True),
    ev(c, 41, "message", role="assistant", content="converts agent event streams\n", delta=True),
    ev(c, 38, "message", role="assistant", content="between formats.", delta=True),
    ev(c, 95, "result", status="success", stats=stats({
        "gemini-3.1-flash-lite": model(812, 790, 6, 0),
        "gemini-3.5-flash": model(9120, 8900, 60, 4096),
    }, 2484, 0)),
])

# 2. A shell tool: preamble, tool_use, tool_result, the final answer.
c = clock(1, 9, 10, 0)
write("written_shell_tool.jsonl", [
    ev(c, 0, "init", session_id="5f0e8d7c-6b5a-4948-8372-61504f3e2d1c", model="gemini-3.5-flash"),
    ev(c, 3, "message", role="user", content="List the files in this directory"),
    ev(c, 2307, "message", role="assistant", content="I'll list them.", delta=True),
    ev(c, 202, "tool_use", tool_name="run_shell_command", tool_id="run_shell_command__9c1d2e3f",
       parameters={"command": "ls", "description": "List files in the current directory"}),
    ev(c, 78, "tool_result", tool_id="run_shell_command__9c1d2e3f", status="success", output="README.md\nsrc"),
    ev(c, 1900, "message", role="assistant", content="There are two entries: ", delta=True),
    ev(c, 30, "message", role="assistant", content="`README.md` and `src/`.", delta=True),
    ev(c, 120, "result", status="success", stats=stats({
        "gemini-3.5-flash": model(23632, 22915, 74, 16384),
    }, 4640, 1)),
])

# 3. Tools that fail: three calls in one response, results in request
# order; a not-found error without output, a shell error with both output
# and error, an edit whose display is not a string (no output), an error
# without an error object; then a loop warning and a second round.
c = clock(2, 14, 0, 0)
write("written_tool_errors.jsonl", [
    ev(c, 0, "init", session_id="a1b2c3d4-0000-4000-8000-000000000003", model="gemini-3.5-pro"),
    ev(c, 2, "message", role="user", content="Fix the typo in notes.txt and run the tests"),
    ev(c, 1800, "tool_use", tool_name="read_file", tool_id="read_file__4a5b6c7d", parameters={"absolute_path": "/work/notes.txt"}),
    ev(c, 1, "tool_use", tool_name="replace", tool_id="replace__77aa01", parameters={
        "file_path": "/work/README.md", "old_string": "teh", "new_string": "the", "expected_replacements": 1}),
    ev(c, 1, "tool_use", tool_name="run_shell_command", tool_id="run_shell_command__5e6f", parameters={"command": "make test", "directory": "."}),
    ev(c, 1, "tool_use", tool_name="grep_search", tool_id="grep_search__0", parameters={"pattern": "teh", "include": "*.md"}),
    ev(c, 40, "tool_result", tool_id="read_file__4a5b6c7d", status="error",
       error={"type": "file_not_found", "message": "File not found: /work/notes.txt"}),
    ev(c, 12, "tool_result", tool_id="replace__77aa01", status="success"),
    ev(c, 3021, "tool_result", tool_id="run_shell_command__5e6f", status="error", output="FAIL: TestParse (0.00s)\nexit status 2",
       error={"type": "shell_execute_error", "message": "Command exited with code 2"}),
    ev(c, 9, "tool_result", tool_id="grep_search__0", status="error"),
    ev(c, 2200, "message", role="assistant", content="The tests still fail; let me look at the parser.", delta=True),
    ev(c, 150, "tool_use", tool_name="read_file", tool_id="read_file__8b9c", parameters={"absolute_path": "/work/parse.go", "offset": 0, "limit": 200}),
    ev(c, 20, "tool_result", tool_id="read_file__8b9c", status="error",
       error={"type": "permission_denied", "message": "Permission denied: /work/parse.go"}),
    ev(c, 900, "error", severity="warning", message="Loop detected, stopping execution"),
    ev(c, 60, "result", status="success", stats=stats({
        "gemini-3.1-flash-lite": model(700, 690, 4, 0),
        "gemini-3.5-pro": model(41000, 38000, 410, 20480),
    }, 8217, 5)),
])

# 4. A quota error: fatal, so result carries error and duration_ms is 0;
# the per-model map is empty.
c = clock(3, 8, 30, 0)
zero = {"total_tokens": 0, "input_tokens": 0, "output_tokens": 0, "cached": 0, "input": 0, "duration_ms": 0, "tool_calls": 0, "models": {}}
write("written_quota_error.jsonl", [
    ev(c, 0, "init", session_id="c0ffee00-1111-4222-8333-444455556666", model="gemini-3.5-pro"),
    ev(c, 5, "message", role="user", content="Summarise the changelog"),
    ev(c, 1195, "result", status="error", error={"type": "TerminalQuotaError", "message": "Quota exceeded for quota metric 'Gemini 3.5 Pro Requests' and limit 'requests per day'"}, stats=zero),
])

# 5. An invalid model stream: an error line, then result error without an
# error object; the text streamed before it stays.
c = clock(3, 9, 0, 0)
write("written_invalid_model_stream.jsonl", [
    ev(c, 0, "init", session_id="d00d0000-aaaa-4bbb-8ccc-dddddddddddd", model="auto"),
    ev(c, 3, "message", role="user", content="Write a limerick about NDJSON"),
    ev(c, 2900, "message", role="assistant", content="There once was a line ", delta=True),
    ev(c, 60, "error", severity="error", message="Model stream ended with an invalid chunk or missing finish reason."),
    ev(c, 10, "result", status="error", stats=stats({"gemini-3.5-flash": model(1530, 1480, 12, 0)}, 2973, 0)),
])

# 6. Cancelled by the user (exit 130): a tool call that never got its result.
c = clock(4, 17, 45, 12)
write("written_cancelled.jsonl", [
    ev(c, 0, "init", session_id="e1e1e1e1-2222-4333-8444-555555555555", model="gemini-3.5-flash"),
    ev(c, 4, "message", role="user", content="Run the full benchmark suite"),
    ev(c, 1500, "message", role="assistant", content="Starting the benchmarks.", delta=True),
    ev(c, 100, "tool_use", tool_name="run_shell_command", tool_id="run_shell_command_1790000000000_0", parameters={"command": "make bench"}),
    ev(c, 30000, "result", status="error", error={"type": "FatalCancellationError", "message": "Operation cancelled."},
       stats=stats({"gemini-3.5-flash": model(5200, 5100, 35, 2048)}, 0, 1)),
])

# 7. The turn limit: the non-fatal "Maximum session turns exceeded" error
# line, then the fatal FatalTurnLimitedError result; the agent-session
# runner's warning for an API problem; web tools and a subagent.
c = clock(5, 11, 0, 0)
write("written_turn_limit.jsonl", [
    ev(c, 0, "init", session_id="f2f2f2f2-3333-4444-8555-666666666666", model="gemini-3.5-flash"),
    ev(c, 2, "message", role="user", content="Research the latest NDJSON tooling and write a summary"),
    ev(c, 1400, "tool_use", tool_name="google_web_search", tool_id="google_web_search__a1", parameters={"query": "ndjson validator"}),
    ev(c, 900, "tool_result", tool_id="google_web_search__a1", status="success", output="Search results for \"ndjson validator\" returned."),
    ev(c, 1300, "tool_use", tool_name="web_fetch", tool_id="web_fetch__b2", parameters={"prompt": "Summarise https://example.org/ndjson"}),
    ev(c, 2100, "tool_result", tool_id="web_fetch__b2", status="success", output="Content processed from prompt."),
    ev(c, 1100, "tool_use", tool_name="invoke_agent", tool_id="invoke_agent__c3", parameters={"agent_name": "codebase_investigator", "objective": "Find the NDJSON readers"}),
    ev(c, 9000, "tool_result", tool_id="invoke_agent__c3", status="success", output="Subagent codebase_investigator finished."),
    ev(c, 40, "error", severity="warning", message="API warning: the model is overloaded; retrying"),
    ev(c, 800, "error", severity="error", message="Maximum session turns exceeded"),
    ev(c, 5, "result", status="error", error={"type": "FatalTurnLimitedError", "message": "Reached max session turns for this session. Increase the number of turns by specifying maxSessionTurns in settings.json."},
       stats=stats({"gemini-3.5-flash": model(30000, 29000, 300, 8192)}, 0, 3)),
])

# 8. The 0.11 shape: stats without cached, input and models; the late-2025
# tool_id format.
c = clock(6, 10, 0, 0)
write("written_v0_11_stats.jsonl", [
    ev(c, 0, "init", session_id="11111111-2222-4333-8444-555555555555", model="gemini-2.5-pro"),
    ev(c, 3, "message", role="user", content="How many Go files are there?"),
    ev(c, 2000, "tool_use", tool_name="glob", tool_id="glob-1761000000000-3f2a1b", parameters={"pattern": "**/*.go"}),
    ev(c, 30, "tool_result", tool_id="glob-1761000000000-3f2a1b", status="success", output="Found 57 file(s) matching \"**/*.go\""),
    ev(c, 1500, "message", role="assistant", content="There are 57 Go files.", delta=True),
    ev(c, 40, "result", status="success", stats={"total_tokens": 10400, "input_tokens": 10200, "output_tokens": 30, "duration_ms": 3573, "tool_calls": 1}),
])

# 9. The 0.22 shape: cached and input, no models; the early-2026 tool_id
# format; list_directory and read_many_files.
c = clock(6, 11, 0, 0)
write("written_v0_22_stats.jsonl", [
    ev(c, 0, "init", session_id="22222222-3333-4444-8555-666666666666", model="gemini-2.5-flash"),
    ev(c, 3, "message", role="user", content="Read the docs folder"),
    ev(c, 1200, "tool_use", tool_name="list_directory", tool_id="list_directory_1767000000000_0", parameters={"path": "/work/docs"}),
    ev(c, 10, "tool_result", tool_id="list_directory_1767000000000_0", status="success", output="Listed 3 item(s)."),
    ev(c, 900, "tool_use", tool_name="read_many_files", tool_id="read_many_files_1767000002110_1", parameters={"paths": ["docs/*.md"]}),
    ev(c, 25, "tool_result", tool_id="read_many_files_1767000002110_1", status="success", output="Read 3 file(s)."),
    ev(c, 2000, "message", role="assistant", content="The docs describe the model, the rules and performance.", delta=True),
    ev(c, 50, "result", status="success", stats={"total_tokens": 18000, "input_tokens": 17500, "output_tokens": 90, "cached": 12000, "input": 5500, "duration_ms": 4188, "tool_calls": 2}),
])

# 10. Forward compatibility: unknown event types (the proposed thought),
# unknown fields at the top level and inside error objects, stats and a
# model's stats; plan, todo, tracker, skill, topic, ask-user and MCP tools.
c = clock(7, 16, 0, 0)
write("written_unknown_types_and_fields.jsonl", [
    ev(c, 0, "init", session_id="33333333-4444-4555-8666-777777777777", model="gemini-3.5-flash", approval_mode="yolo"),
    ev(c, 2, "message", role="user", content="Plan the release"),
    ev(c, 900, "thought", subject="Planning", description="I should draft a plan first."),
    ev(c, 600, "tool_use", tool_name="enter_plan_mode", tool_id="enter_plan_mode__1", parameters={}),
    ev(c, 5, "tool_result", tool_id="enter_plan_mode__1", status="success", output="Entered plan mode."),
    ev(c, 700, "tool_use", tool_name="write_todos", tool_id="write_todos__2", parameters={"todos": [{"description": "Tag v1.2", "status": "pending"}, {"description": "Write notes", "status": "in_progress"}]}),
    ev(c, 4, "tool_result", tool_id="write_todos__2", status="success", output="Updated the todo list."),
    ev(c, 500, "tool_use", tool_name="tracker_create_task", tool_id="tracker_create_task__3", parameters={"title": "Release"}),
    ev(c, 4, "tool_result", tool_id="tracker_create_task__3", status="success", output="Created task 1."),
    ev(c, 500, "tool_use", tool_name="activate_skill", tool_id="activate_skill__4", parameters={"name": "release-notes"}),
    ev(c, 4, "tool_result", tool_id="activate_skill__4", status="success", output="Skill activated."),
    ev(c, 400, "tool_use", tool_name="update_topic", tool_id="update_topic__update_topic_1780000000000_0", parameters={"topic": "Release"}),
    ev(c, 3, "tool_result", tool_id="update_topic__update_topic_1780000000000_0", status="success", output="Topic updated."),
    ev(c, 400, "tool_use", tool_name="github__create_release", tool_id="github__create_release__5", parameters={"tag": "v1.2"}, server="github"),
    ev(c, 800, "tool_result", tool_id="github__create_release__5", status="error", error={"type": "mcp_tool_error", "message": "403 Forbidden", "code": 403}, retryable=False),
    ev(c, 300, "tool_use", tool_name="ask_user", tool_id="ask_user__6", parameters={"question": "Proceed without the release?"}),
    ev(c, 4000, "tool_result", tool_id="ask_user__6", status="error", error={"type": "policy_violation", "message": "ask_user is not available in non-interactive mode"}),
    ev(c, 500, "tool_use", tool_name="exit_plan_mode", tool_id="exit_plan_mode__7", parameters={"plan_path": "plans/release.md"}),
    ev(c, 5, "tool_result", tool_id="exit_plan_mode__7", status="success", output="Plan approved."),
    ev(c, 200, "message", role="assistant", content="The plan is ready.", delta=True, chunk=1),
    ev(c, 100, "checkpoint", id="cp-1"),
    ev(c, 50, "result", status="success", stats={**stats({"gemini-3.5-flash": {**model(52000, 50000, 500, 30000), "thoughts": 1300}}, 9478, 7), "api_requests": 8}, exit_code=0),
])

# 11. Strings and numbers: escapes, raw U+2028/U+2029, ANSI escapes (with
# --raw-output), empty strings where the type is a plain string, an assistant
# message without delta and one with delta false, timestamps the CLI would
# not write (no milliseconds, an offset), and counts at 2^53+1 and u64 max.
c = clock(8, 22, 0, 0, 990)
big = 18446744073709551615
write("written_strings_and_numbers.jsonl", [
    ev(c, 0, "init", session_id="", model=""),
    {"type": "message", "timestamp": "2026-10-08T22:00:00Z", "role": "user", "content": "Quote \"this\" \\ and\ttab\u0000 😀 𝄞 \u2028\u2029 é"},
    ev(c, 5, "message", role="assistant", content="", delta=True),
    ev(c, 5, "message", role="assistant", content="\u001b[1mbold\u001b[0m \u007f", delta=True),
    ev(c, 5, "message", role="assistant", content="A complete message."),
    ev(c, 5, "message", role="assistant", content="Another one.", delta=False),
    ev(c, 5, "tool_use", tool_name="", tool_id="", parameters={"n": -0.0, "big": 1e300, "neg": -9223372036854775808, "nested": {"a": [None, True, 1.5]}}),
    ev(c, 5, "tool_result", tool_id="", status="success", output=""),
    {"type": "error", "timestamp": "2026-10-08T23:00:01.021+01:00", "severity": "warning", "message": ""},
    ev(c, 5, "result", status="success", stats={"total_tokens": big, "input_tokens": 9007199254740993, "output_tokens": 0, "cached": 9007199254740993, "input": 0,
       "duration_ms": big, "tool_calls": 4294967296, "models": {"": {"total_tokens": big, "input_tokens": 9007199254740993, "output_tokens": 0, "cached": 9007199254740993, "input": 0}}}),
])

# 12. Cached input: Gemini's input_tokens includes cached, so the disjoint
# input is input_tokens - cached (20525 - 7559 = 12966 over the run;
# 1580 - 0 and 18945 - 7559 = 11386 per model). A routing call on a lite
# model beside the answering model, one tool call.
c = clock(10, 10, 0, 0)
write("written_cached_usage.jsonl", [
    ev(c, 0, "init", session_id="5e0f3a1c-2b4d-4e6f-8a9b-0c1d2e3f4a5b", model="auto"),
    ev(c, 3, "message", role="user", content="Summarise README.md"),
    ev(c, 1197, "message", role="assistant", content="Reading it.", delta=True),
    ev(c, 150, "tool_use", tool_name="read_file", tool_id="read_file__7f3e2d1c", parameters={"absolute_path": "/w/README.md"}),
    ev(c, 70, "tool_result", tool_id="read_file__7f3e2d1c", status="success", output=""),
    ev(c, 2480, "message", role="assistant", content="It describes evtool.", delta=True),
    ev(c, 110, "result", status="success", stats=stats({
        "gemini-3.1-flash-lite": model(1620, 1580, 40, 0),
        "gemini-3.5-flash": model(19487, 18945, 272, 7559),
    }, 4010, 1)),
])

# 13. An API error (the model is not found): fatal, so result carries the
# error, whose message parseAndFormatApiError wrote, and duration_ms is 0.
# The runner wraps an error that is no Error instance in a plain Error.
c = clock(10, 11, 0, 0)
write("written_api_error.jsonl", [
    ev(c, 0, "init", session_id="6a7b8c9d-0e1f-4a2b-8c3d-4e5f6a7b8c9d", model="gemini-9-pro"),
    ev(c, 4, "message", role="user", content="hello"),
    ev(c, 640, "result", status="error", error={"type": "Error", "message": "[API Error: Requested entity was not found.]"}, stats=zero),
])

# 14. Line separators: JSON.stringify writes U+2028 and U+2029 raw. They
# stand raw in text, output and parameters, and escaped (as another writer
# might have left them) inside parameters and an error object, which are
# kept as written, so the whole stream comes back byte for byte.
c = clock(10, 12, 0, 0)
lines = [
    ev(c, 0, "init", session_id="7b8c9d0e-1f2a-4b3c-8d4e-5f6a7b8c9d0e", model="gemini-3.5-flash"),
    ev(c, 3, "message", role="user", content="Split on \u2028 and \u2029: a\u2028b\u2029c"),
    ev(c, 900, "message", role="assistant", content="Line one\u2028line two\u2029end.", delta=True),
    ev(c, 100, "tool_use", tool_name="run_shell_command", tool_id="run_shell_command__2028", parameters={"command": "printf 'a\u2028b'"}),
    ev(c, 1, "tool_use", tool_name="read_file", tool_id="read_file__2029", parameters={"absolute_path": "/w/a\u2029b"}),
    ev(c, 60, "tool_result", tool_id="run_shell_command__2028", status="success", output="a\u2028b\u2029"),
    ev(c, 5, "tool_result", tool_id="read_file__2029", status="error", error={"type": "file_not_found", "message": "File not found: /w/a\u2029b"}),
    ev(c, 700, "message", role="assistant", content="Done.", delta=True),
    ev(c, 40, "result", status="success", stats=stats({"gemini-3.5-flash": model(2100, 2000, 20, 0)}, 1809, 2)),
]
lines = [js(l) for l in lines]
# The escaped forms: a second parameter, and the error object's message.
lines[3] = lines[3][:-2] + ',"description":"x\\u2028y\\u2029z"}}'
lines[6] = lines[6].replace("/w/a\u2029b", "/w/a\\u2029b")
write("written_line_separators.jsonl", lines)

# Noisy stdout: banners and warnings that are not JSON, read with
# diagnostics while the lines around them are kept.
c = clock(9, 12, 0, 0)
write("written_banner_lines.jsonl", [
    "Loaded cached credentials.",
    ev(c, 0, "init", session_id="44444444-5555-4666-8777-888888888888", model="auto"),
    ev(c, 3, "message", role="user", content="hello"),
    "Warning: TERM is not set; colours are disabled.",
    ev(c, 1500, "message", role="assistant", content="Hello! How can I help?", delta=True),
    "Skill \"release-notes\" from the workspace overrides the user skill.",
    ev(c, 30, "result", status="success", stats=stats({"gemini-3.5-flash": model(3000, 2950, 9, 0)}, 1533, 0)),
], os.path.join(OUT, "noisy"))

c = clock(9, 12, 5, 0)
lines = [
    ev(c, 0, "init", session_id="55555555-6666-4777-8888-999999999999", model="gemini-3.5-flash"),
    ev(c, 3, "message", role="user", content="hello"),
    ev(c, 1500, "message", role="assistant", content="Hi.", delta=True),
    ev(c, 30, "result", status="success", stats=stats({"gemini-3.5-flash": model(2000, 1990, 2, 0)}, 1533, 0)),
]
lines[0] = "MCP issues detected. Run /mcp list for status." + js(lines[0])
write("written_banner_glued.jsonl", lines, os.path.join(OUT, "noisy"))
