package view_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// The hostile stream: every string a page shows is one that would run
// code, load something or change the page if it were written as markup —
// in the header's facts, a prompt, the answer's markdown, reasoning, a
// tool's name, title, input, output, error and diff, a permission, a
// task, a subagent, a notice, an unknown line — and a 10 MB output of
// markup and terminal escapes. A page of it must run nothing (the
// sentinel window.__pwned stays undefined, no dialog opens), request
// nothing, and show each string as the text it is.

// hostileStrings would each do harm as markup.
var hostileStrings = []string{
	`<script>window.__pwned=1</script>`,
	`<img src=x onerror="window.__pwned=1;alert(1)">`,
	`<svg onload="window.__pwned=1"><circle r=1 /></svg>`,
	`"><script>window.__pwned=1</script>`,
	`'><img src=x onerror=window.__pwned=1>`,
	`javascript:window.__pwned=1`,
	`<a href="javascript:window.__pwned=1">click</a>`,
	`</style><script>window.__pwned=1</script>`,
	`</title><script>window.__pwned=1</script>`,
	`</script><script>window.__pwned=1</script>`,
	`<!-- --><script>window.__pwned=1</script>`,
	`<![CDATA[</title><script>window.__pwned=1</script>]]>`,
	`<iframe src="https://example.com/"></iframe>`,
	`<link rel=stylesheet href="https://example.com/x.css">`,
	`<meta http-equiv="refresh" content="0;url=https://example.com/">`,
	`<base href="https://example.com/">`,
	`<form action="https://example.com/"><button>go</button></form>`,
	`<style>body{background:url(https://example.com/x.png)}</style>`,
	`<details open ontoggle="window.__pwned=1">x</details>`,
	`{{.}} {{template "x"}} ${window.__pwned=1}`,
	"\x1b[31mred\x1b[0m \x1b]8;;https://example.com/\x07link\x1b]8;;\x07 \x1b[2J\x1b[H",
	"bidi \u202eevil\u202c end",
	"nul \x00 bell \x07 del \x7f c1 \u0085 end",
}

// hostileMarkdown is an answer whose markdown would link, load and run.
const hostileMarkdown = "# <script>window.__pwned=1</script>\n\n" +
	"[click me](javascript:window.__pwned=1) and ![pic](https://example.com/x.png) and <https://example.com/>\n\n" +
	"<img src=x onerror=\"window.__pwned=1\">\n\n" +
	"| a | <b onmouseover=\"window.__pwned=1\">b</b> |\n|---|---|\n| `<script>` | **<i>x</i>** |\n\n" +
	"```html\n<script>window.__pwned=1</script>\n```\n\n" +
	"```diff\n- <script>window.__pwned=1</script>\n+ <img src=x onerror=window.__pwned=1>\n```\n\n" +
	"> <iframe src=\"https://example.com/\"></iframe>\n\n" +
	"- **bold <script>x</script>**\n- _em_ ~~gone~~ `code <a>`\n"

// bigOutputBytes is the size of the hostile run's long output.
const bigOutputBytes = 10 << 20

// writeHostile writes the hostile run as a canonical stream of turns
// turns (each the same hostile turn).
func writeHostile(w io.Writer, turns int) error {
	bw := bufio.NewWriter(w)
	seq := 0
	emit := func(typ string, fields map[string]any) {
		m := map[string]any{"seq": seq, "type": typ}
		for k, v := range fields {
			m[k] = v
		}
		seq++
		b, err := json.Marshal(m)
		if err != nil {
			panic(err)
		}
		bw.Write(b)
		bw.WriteByte('\n')
	}
	all := strings.Join(hostileStrings, "\n")
	h := func(i int) string { return hostileStrings[i%len(hostileStrings)] }
	at := func(s int) string { return fmt.Sprintf("2026-01-02T03:04:%02d.000000Z", s%60) }
	emit("session_started", map[string]any{"schema": 1, "source": map[string]any{"dialect": h(0)},
		"agent": map[string]any{"name": h(1), "version": h(2)}, "session_id": h(3), "workspace": h(8),
		"model": h(9), "provider": h(7), "time": at(0),
		"context_files": []map[string]string{{"path": h(10), "scope": h(11)}},
		"skills":        []map[string]string{{"name": h(12), "description": h(13)}},
		"mcp_servers":   []string{h(14)}})
	var big strings.Builder
	for big.Len() < bigOutputBytes {
		big.WriteString("\x1b[1;31m<b>line</b>\x1b[0m <script>window.__pwned=1</script> <img src=x onerror=window.__pwned=1>\n")
	}
	for t := 1; t <= turns; t++ {
		id := fmt.Sprintf("turn-%d", t)
		call := func(n int) string { return fmt.Sprintf(`call-%d-%d "><script>window.__pwned=1</script>`, t, n) }
		emit("turn_started", map[string]any{"turn_id": id, "prompt": all, "time": at(t)})
		emit("user_message", map[string]any{"turn_id": id, "text": all})
		emit("reasoning", map[string]any{"turn_id": id, "text": all})
		emit("message", map[string]any{"turn_id": id, "text": hostileMarkdown})
		emit("model_configured", map[string]any{"turn_id": id, "model": h(4), "provider": h(5)})
		emit("tool_call", map[string]any{"turn_id": id, "call_id": call(1), "name": h(0), "title": h(1), "kind": "execute",
			"input": map[string]any{"command": all, h(2): h(3)}, "time": at(t)})
		emit("permission_requested", map[string]any{"turn_id": id, "call_id": call(1), "request_id": h(6), "tool": h(7),
			"description": all, "risk": h(8), "preview": map[string]string{h(9): h(10)}})
		emit("permission_resolved", map[string]any{"turn_id": id, "call_id": call(1), "request_id": h(6), "outcome": "denied", "scope": h(11)})
		emit("tool_progress", map[string]any{"turn_id": id, "call_id": call(1), "message": all})
		emit("tool_output", map[string]any{"turn_id": id, "call_id": call(1), "chunk": all})
		out := all
		if t == 1 {
			out = big.String()
		}
		emit("tool_finished", map[string]any{"turn_id": id, "call_id": call(1), "status": "error", "output": out, "error": all,
			"exit_code": 1, "command": h(12), "summary": all, "time": at(t + 1)})
		emit("tool_call", map[string]any{"turn_id": id, "call_id": call(2), "name": "Edit", "kind": "edit",
			"input": map[string]any{"file_path": h(13), "old_string": all, "new_string": strings.ToUpper(all)}})
		emit("tool_finished", map[string]any{"turn_id": id, "call_id": call(2), "status": "success",
			"edit": map[string]any{"changes": []map[string]any{{"path": h(14), "kind": h(15), "diff": "@@ -1 +1 @@\n-" + h(16) + "\n+" + h(17) + "\n"}}},
			"web":  map[string]string{h(18): h(19)}})
		// A subagent, run by a call named with markup.
		emit("tool_call", map[string]any{"turn_id": id, "call_id": call(3), "name": h(20), "kind": "think"})
		emit("user_message", map[string]any{"turn_id": id, "agent_id": call(3), "text": all})
		emit("message", map[string]any{"turn_id": id, "agent_id": call(3), "text": hostileMarkdown})
		emit("tool_finished", map[string]any{"turn_id": id, "call_id": call(3), "status": "success", "output": all})
		emit("task_updated", map[string]any{"turn_id": id, "task_id": h(21), "kind": "subagent", "status": "running", "title": h(0), "detail": all})
		emit("task_updated", map[string]any{"turn_id": id, "task_id": h(22), "kind": "internal", "status": "failed", "title": h(1), "reason": h(2)})
		emit("plan_updated", map[string]any{"turn_id": id, "entries": []map[string]string{{"content": all, "status": "completed"}, {"content": h(3), "status": h(4)}}})
		emit("notice", map[string]any{"turn_id": id, "severity": "warning", "message": all})
		emit("notice", map[string]any{"turn_id": id, "message": all})
		emit("retry", map[string]any{"turn_id": id, "error": all, "attempt": 1})
		emit("error", map[string]any{"turn_id": id, "message": all})
		emit("compaction_finished", map[string]any{"turn_id": id, "summary_preview": all})
		emit("branched", map[string]any{"turn_id": id, "entry_id": h(5)})
		emit("unknown", map[string]any{"turn_id": id, "dialect": h(6), "source_type": h(7), "raw": map[string]string{"x": all}})
		emit("round_finished", map[string]any{"turn_id": id, "stop_reason": "end_turn", "usage": map[string]any{"input_tokens": 10, "output_tokens": 5, "cost_usd": 0.5}, "time": at(t + 2)})
		emit("turn_finished", map[string]any{"turn_id": id, "status": "error", "reason": all, "text": all,
			"usage": map[string]any{"input_tokens": 10, "output_tokens": 5, "cost_usd": 0.5}, "time": at(t + 3)})
	}
	emit("session_finished", map[string]any{"status": "error", "message": all, "errors": []string{all}, "text": hostileMarkdown,
		"reasoning": all, "structured_output": map[string]string{h(0): h(1)}})
	return bw.Flush()
}
