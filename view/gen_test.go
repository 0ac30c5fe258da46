package view_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
)

// genRun writes a canonical stream of a long run: turns turns, each a
// prompt, reasoning, a markdown answer, a shell command with some twenty
// lines of output, an edit with its old and new text, three model rounds
// with usage and cost, and a turn end; every event has a time.
func genRun(w io.Writer, turns int) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	seq := 0
	t := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	q := func(s string) string {
		b, _ := json.Marshal(s)
		return string(b)
	}
	line := func(typ, turn, rest string) {
		t = t.Add(time.Duration(700+seq%2300) * time.Millisecond)
		fmt.Fprintf(bw, `{"seq":%d,"type":%q,"time":%q`, seq, typ, t.Format("2006-01-02T15:04:05.000000Z"))
		if turn != "" {
			fmt.Fprintf(bw, `,"turn_id":%q`, turn)
		}
		if rest != "" {
			bw.WriteString("," + rest)
		}
		bw.WriteString("}\n")
		seq++
	}
	line("session_started", "", `"schema":1,"source":{"dialect":"bench"},"agent":{"name":"bench-agent","version":"1.0"},"session_id":"bench-10k","workspace":"/home/dev/project","model":"model-x","provider":"acme"`)
	var out strings.Builder
	for i := 1; i <= turns; i++ {
		id := fmt.Sprintf("turn-%d", i)
		prompt := fmt.Sprintf("Turn %d: the test in pkg/mod%d fails with a nil map write; find why and fix it, then run the tests again.", i, i%97)
		line("turn_started", id, `"prompt":`+q(prompt))
		line("user_message", id, `"text":`+q(prompt))
		line("reasoning", id, `"text":`+q("The failure is a write to a map that was never made. The constructor returns a struct literal without the map; every caller that writes first panics. I should check the constructor, then add the make call and a test that writes on a new value."))
		line("message", id, `"text":`+q(fmt.Sprintf("Looking at `pkg/mod%d`:\n\n- the constructor `New` returns `&T{}` without the map;\n- `Add` writes `t.m[k] = v` first.\n\nI will make the map in `New` and run the tests:\n\n```go\nfunc New() *T { return &T{m: map[string]int{}} }\n```", i%97)))
		line("tool_call", id, fmt.Sprintf(`"call_id":"c%d-1","name":"Bash","kind":"execute","input":{"command":"go test ./pkg/mod%d/..."}`, i, i%97))
		line("tool_started", id, fmt.Sprintf(`"call_id":"c%d-1","name":"Bash"`, i))
		out.Reset()
		for k := 0; k < 20; k++ {
			fmt.Fprintf(&out, "=== RUN   TestCase%02d\n--- PASS: TestCase%02d (0.00s)\n", k, k)
		}
		fmt.Fprintf(&out, "ok  \texample.com/pkg/mod%d\t0.%03ds", i%97, i%1000)
		line("tool_finished", id, fmt.Sprintf(`"call_id":"c%d-1","name":"Bash","status":"success","output":%s,"exit_code":0`, i, q(out.String())))
		line("round_finished", id, `"stop_reason":"tool_use","usage":{"input_tokens":1200,"output_tokens":180,"cache_read_tokens":24000,"cost_usd":0.0123}`)
		line("tool_call", id, fmt.Sprintf(`"call_id":"c%d-2","name":"Edit","kind":"edit","input":{"file_path":"pkg/mod%d/t.go","old_string":"func New() *T {\n\treturn &T{}\n}","new_string":"func New() *T {\n\treturn &T{m: map[string]int{}}\n}"}`, i, i%97))
		line("tool_started", id, fmt.Sprintf(`"call_id":"c%d-2","name":"Edit"`, i))
		line("tool_finished", id, fmt.Sprintf(`"call_id":"c%d-2","name":"Edit","status":"success","output":"The file pkg/mod%d/t.go has been updated."`, i, i%97))
		line("round_finished", id, `"stop_reason":"tool_use","usage":{"input_tokens":300,"output_tokens":90,"cache_read_tokens":25000,"cost_usd":0.0061}`)
		line("message", id, `"text":`+q("Fixed: `New` makes the map, and the tests pass."))
		line("round_finished", id, `"stop_reason":"end_turn","usage":{"input_tokens":200,"output_tokens":40,"cache_read_tokens":25400,"cost_usd":0.0042}`)
		line("turn_finished", id, `"status":"ok","stop_reason":"end_turn","usage":{"input_tokens":1700,"output_tokens":310,"cache_read_tokens":74400,"cost_usd":0.0226}`)
	}
	line("session_finished", "", fmt.Sprintf(`"status":"ok","usage":{"input_tokens":%d,"output_tokens":%d,"cache_read_tokens":%d,"cost_usd":%.4f}`, 1700*turns, 310*turns, 74400*turns, 0.0226*float64(turns)))
	return bw.Flush()
}

// genWide writes a canonical stream of one turn of calls tool calls, as
// a mermaid run is: every call in the run's one turn.
func genWide(w io.Writer, calls int) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, `{"seq":0,"type":"session_started","schema":1,"source":{"dialect":"bench"}}`)
	fmt.Fprintln(bw, `{"seq":1,"type":"turn_started","turn_id":"t1","prompt":"count the files, one call each"}`)
	seq := 2
	for i := 1; i <= calls; i++ {
		fmt.Fprintf(bw, `{"seq":%d,"type":"tool_call","turn_id":"t1","call_id":"c%d","name":"read_file","kind":"read","input":{"path":"src/file%d.go"}}`+"\n", seq, i, i)
		fmt.Fprintf(bw, `{"seq":%d,"type":"tool_finished","turn_id":"t1","call_id":"c%d","name":"read_file","status":"success","output":"package main\n\n// file %d\nfunc f%d() {}\n"}`+"\n", seq+1, i, i, i)
		seq += 2
	}
	fmt.Fprintf(bw, `{"seq":%d,"type":"message","turn_id":"t1","text":"%d files."}`+"\n", seq, calls)
	fmt.Fprintf(bw, `{"seq":%d,"type":"turn_finished","turn_id":"t1","status":"ok"}`+"\n", seq+1)
	fmt.Fprintf(bw, `{"seq":%d,"type":"session_finished","status":"ok"}`+"\n", seq+2)
	return bw.Flush()
}
