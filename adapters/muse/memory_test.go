package muse_test

import (
	"fmt"
	"runtime"
	"strconv"
	"testing"

	"github.com/evtool/evtool/adapters/muse"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/internal/ruletest"
)

// TestCheckerMemory feeds the checker 135,000 records: 40,000 tasks in 40
// turns, each task linked, proposed and ended (one in eight as a tool task
// scheduled for a call, cancelled, and joined by a tool.result). It checks
// that what the checker keeps afterwards is a few bytes per record:
// muse/duplicate-id remembers every record id, as a digest, and nothing
// else of an ended task or turn is kept but a digest and a value. It then
// checks that ended tasks and turns, and record ids, are still known.
func TestCheckerMemory(t *testing.T) {
	const tasks = 40_000
	ch := muse.Dialect{}.NewChecker(dialect.CheckOptions{})
	var findings []dialect.Finding
	report := func(f dialect.Finding) { findings = append(findings, f) }
	n, seq := 0, 0
	var buf []byte
	turn := ""
	// record feeds one record of the current turn; payload is the inside
	// of the payload object after its command_id.
	record := func(pt string, payload ...string) {
		n++
		seq++
		buf = append(buf[:0], `{"schema_version":1,"id":"rec-`...)
		buf = strconv.AppendInt(buf, int64(n), 10)
		buf = append(buf, `","stream":{"kind":"session","id":"6fbeab95-439f-4d74-878c-debcd879c148"},"sequence":`...)
		buf = strconv.AppendInt(buf, int64(seq), 10)
		buf = append(buf, `,"recorded_at":`...)
		buf = strconv.AppendInt(buf, 1780531400000000+int64(n), 10)
		buf = append(buf, `,"record_type":"event","durability":"durable","causation_id":"`...)
		buf = append(buf, turn...)
		buf = append(buf, `","payload_type":"`...)
		buf = append(buf, pt...)
		buf = append(buf, `","payload_schema_version":1,"payload":{"command_id":"`...)
		buf = append(buf, turn...)
		buf = append(buf, '"')
		for _, p := range payload {
			buf = append(buf, p...)
		}
		buf = append(buf, `}}`...)
		ch.Line(buf, n, report)
	}
	lifecycle := func(task, kind, event string) {
		record("task.lifecycle."+kind, `,"kind":"task_lifecycle","run_stream":{"id":"r","kind":"run"},"task_id":"`, task,
			`","task_stream":{"id":"`, task, `","kind":"task"},"event":{"kind":"`, kind, `","task_id":"`, task, `"`, event, `}`)
	}
	begin := func(i int) {
		turn, seq = fmt.Sprintf("turn-%04d", i), 0
		record("runtime.command.accepted", `,"client_id":null,"command_kind":"turn.submit","kind":"command_accepted"`)
	}
	end := func() {
		record("run.terminal.completed", `,"kind":"run_terminal","reason":null,"run_stream":{"id":"r","kind":"run"},"terminal":"completed","text":"done"`)
	}

	begin(0)
	before := ruletest.LiveHeap()
	for i := range tasks {
		if i > 0 && i%1000 == 0 {
			end()
			begin(i / 1000)
		}
		task := fmt.Sprintf("task-%07d", i)
		record("task.stream.linked", `,"kind":"task_stream_linked","run_stream":{"id":"r","kind":"run"},"task_id":"`, task, `","task_stream":{"id":"`, task, `","kind":"task"}`)
		if i%8 == 0 {
			call := fmt.Sprintf("call-%07d", i)
			lifecycle(task, "proposed", `,"task_kind":"tool.bash"`)
			lifecycle(task, "accepted", "")
			lifecycle(task, "scheduled", `,"idempotency_key":"tool:`+call+`"`)
			lifecycle(task, "cancelled", `,"reason":"done elsewhere"`)
			record("tool.result", `,"kind":"tool_result","run_stream":{"id":"r","kind":"run"},"call_id":"`, call, `","text":"ok"`)
			continue
		}
		lifecycle(task, "proposed", `,"task_kind":"model.response"`)
		lifecycle(task, "rejected", `,"reason":"no"`)
	}
	records := n
	kept := ruletest.LiveHeap() - min(before, ruletest.LiveHeap())
	runtime.KeepAlive(ch)
	if len(findings) != 0 {
		t.Fatalf("a valid stream has findings, the first: %v", findings[0])
	}
	t.Logf("kept %.1f MiB for %d tasks in %d records: %.0f bytes a record", float64(kept)/(1<<20), tasks, records, float64(kept)/float64(records))
	if kept > 16<<20 {
		t.Errorf("the checker keeps %d bytes after %d records, want < 16 MiB", kept, records)
	}

	// Ended tasks and turns, and record ids, are still known.
	lifecycle("task-0000001", "accepted", "")
	n-- // the same record id as the line before
	record("run.output.delta", `,"kind":"run_output_delta","run_stream":{"id":"r","kind":"run"},"text":"x"`)
	turn, seq = "turn-0000", 3377 // ended on line 3377, its last sequence: no gap follows
	record("run.output.delta", `,"kind":"run_output_delta","run_stream":{"id":"r","kind":"run"},"text":"x"`)
	want := []string{
		muse.RuleTransition + `: accepted after the task already ended (rejected)`,
		fmt.Sprintf(`%s: record id "rec-%d" repeats line %d in the same stream`, muse.RuleDuplicateID, records+1, records+1),
		muse.RuleAfterTerminal + `: run.output.delta after the turn's run.terminal on line 3377`,
	}
	if len(findings) != len(want) {
		t.Fatalf("got %d findings, want %d: %v", len(findings), len(want), findings)
	}
	for i, f := range findings {
		if s := f.Rule + ": " + f.Message; s != want[i] {
			t.Errorf("finding %d:\ngot  %s\nwant %s", i, s, want[i])
		}
	}
}
