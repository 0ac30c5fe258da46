package muse

import (
	"fmt"
	"testing"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
)

// TestForgottenTasksLeaveNoKeys: a tool task scheduled with two provider
// call ids, answered and forgotten, leaves neither id in the state's
// table of tasks by call id (a review found the first one left behind,
// one entry per task for the rest of the stream).
func TestForgottenTasksLeaveNoKeys(t *testing.T) {
	d := Dialect{}.NewDecoder(dialect.DecodeOptions{}).(*Decoder)
	n, seq := 0, 0
	var evs []*event.Event
	rec := func(pt, payload string) {
		n++
		seq++
		line := fmt.Sprintf(`{"schema_version":1,"id":"id-%d","stream":{"kind":"session","id":"s1"},"sequence":%d,"recorded_at":%d,"record_type":"event","durability":"durable","causation_id":"c1","payload_type":%q,"payload_schema_version":1,"payload":%s}`, n, seq, n, pt, payload)
		var err error
		if evs, err = d.Decode(evs[:0], []byte(line), n); err != nil {
			t.Fatalf("line %d: %v", n, err)
		}
	}
	life := func(task, kind, fields string) {
		rec("task.lifecycle."+kind, fmt.Sprintf(`{"kind":"task_lifecycle","command_id":"c1","run_stream":{"kind":"run","id":"c1"},"task_stream":{"kind":"task","id":%q},"task_id":%q,"event":{"kind":%q,"task_id":%q%s}}`, task, task, kind, task, fields))
	}
	rec("runtime.command.accepted", `{"kind":"command_accepted","command_id":"c1","client_id":null,"command_kind":"turn.submit"}`)
	const tasks = 1000
	for i := range tasks {
		id := fmt.Sprintf("task-%d", i)
		life(id, "proposed", `,"task_kind":"tool.bash"`)
		life(id, "scheduled", fmt.Sprintf(`,"idempotency_key":"tool:k1-%d"`, i))
		life(id, "scheduled", fmt.Sprintf(`,"idempotency_key":"tool:k2-%d"`, i))
		life(id, "completed", "")
		rec("tool.result", fmt.Sprintf(`{"kind":"tool_result","command_id":"c1","run_stream":{"kind":"run","id":"c1"},"call_id":"k2-%d","text":"ok"}`, i))
	}
	if len(d.tools) != 0 || len(d.st.callID) != 0 || len(d.st.taskOf) != 0 || len(d.st.moreKeys) != 0 || len(d.st.taskKind) != 0 {
		t.Errorf("after %d answered tasks: %d tools, %d call ids, %d tasks by call id, %d earlier keys, %d kinds; want none",
			tasks, len(d.tools), len(d.st.callID), len(d.st.taskOf), len(d.st.moreKeys), len(d.st.taskKind))
	}
}
