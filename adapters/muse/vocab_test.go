package muse_test

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evtool/evtool/event"
	"github.com/tidwall/gjson"
)

// Every capture reads into the canonical vocabulary only, and a task's
// source words (its task_kind and lifecycle kind) stay in ext.muse.
func TestCapturesReadIntoTheVocabulary(t *testing.T) {
	rejected := 0
	for _, f := range captures(t) {
		for _, ev := range events(t, toCanonical(t, read(t, f))) {
			x := string(ev.Ext.Get("muse"))
			switch b := ev.Body.(type) {
			case *event.TurnFinished:
				if !b.Status.Valid() {
					t.Errorf("%s: turn status %q", f, b.Status)
				}
			case *event.ToolCall:
				if !b.Kind.Valid() || b.Kind == event.KindOther {
					t.Errorf("%s: tool %s has kind %q", f, b.Name, b.Kind)
				}
			case *event.ToolFinished:
				if !b.Status.Valid() {
					t.Errorf("%s: tool status %q", f, b.Status)
				}
			case *event.PermissionResolved:
				if b.Outcome != event.Allowed {
					t.Errorf("%s: outcome %q", f, b.Outcome)
				}
			case *event.TaskUpdated:
				if b.Kind != event.TaskInternal || !b.Status.Valid() {
					t.Errorf("%s: task %s is %q %q", f, b.TaskID, b.Kind, b.Status)
				}
				if b.Status == event.TaskPending && !ev.Synthetic && !strings.Contains(x, "task.lifecycle.") &&
					!gjson.Get(x, "task_kind").Exists() && !gjson.Get(x, "p.event.task_kind").Exists() {
					t.Errorf("%s: the muse task_kind of %s is not kept: %s", f, b.TaskID, x)
				}
				if gjson.Get(x, "env.payload_type").Str == "task.lifecycle.rejected" {
					rejected++
					if b.Status != event.TaskFailed || b.Reason == "" {
						t.Errorf("%s: rejected task %s read as %q (%q)", f, b.TaskID, b.Status, b.Reason)
					}
				}
			}
		}
	}
	if rejected != 3 {
		t.Errorf("%d rejected tasks, the corpus has 3", rejected)
	}
}

// A subagent's task reads as a subagent and round-trips.
func TestSubagentTask(t *testing.T) {
	in := bytes.ReplaceAll(read(t, filepath.Join(corpus, "echo_basic.jsonl")), []byte(`"task_kind":"model.unknown.response"`), []byte(`"task_kind":"subagent.explorer"`))
	canon := toCanonical(t, in)
	n := 0
	for _, ev := range events(t, canon) {
		if b, ok := ev.Body.(*event.TaskUpdated); ok && b.Kind == event.TaskSubagent {
			n++
		}
	}
	if n == 0 {
		t.Error("no subagent task read")
	}
	if back, _ := fromCanonical(t, canon); !bytes.Equal(back, in) {
		t.Errorf("not byte for byte:\n%s", back)
	}
}

// Tasks of another dialect are written from their canonical kind and
// status, and read back as the same.
func TestForeignTasksKeepKindAndStatus(t *testing.T) {
	lines := []string{
		`{"seq":0,"type":"session_started","schema":1,"source":{"dialect":"basis"},"session_id":"s1"}`,
		`{"seq":1,"type":"turn_started","turn_id":"t1"}`,
		`{"seq":2,"type":"task_updated","turn_id":"t1","task_id":"a","kind":"subagent","status":"pending"}`,
		`{"seq":3,"type":"task_updated","turn_id":"t1","task_id":"a","kind":"subagent","status":"running"}`,
		`{"seq":4,"type":"task_updated","turn_id":"t1","task_id":"a","kind":"subagent","status":"running","detail":"halfway"}`,
		`{"seq":5,"type":"task_updated","turn_id":"t1","task_id":"b","kind":"background_task","status":"running"}`,
		`{"seq":6,"type":"task_updated","turn_id":"t1","task_id":"b","kind":"background_task","status":"failed","reason":"oom"}`,
		`{"seq":7,"type":"task_updated","turn_id":"t1","task_id":"c","kind":"teammate","status":"cancelled","reason":"stop"}`,
		`{"seq":8,"type":"task_updated","turn_id":"t1","task_id":"a","kind":"subagent","status":"completed"}`,
		`{"seq":9,"type":"turn_finished","turn_id":"t1","status":"cancelled"}`,
		`{"seq":10,"type":"session_finished","status":"cancelled"}`,
	}
	out, _ := fromCanonical(t, []byte(strings.Join(lines, "\n")+"\n"))
	if sum, diags := validateAs(t, out, "muse"); sum.Errors+sum.Warnings != 0 {
		t.Fatalf("muse written for tasks does not validate: %v\n%s", diags, out)
	}
	type state struct {
		Kind   event.TaskKind
		Status event.TaskStatus
		Detail string
		Reason string
	}
	var got []string
	for _, ev := range events(t, toCanonical(t, out)) {
		switch b := ev.Body.(type) {
		case *event.TaskUpdated:
			s, _ := json.Marshal(state{b.Kind, b.Status, b.Detail, b.Reason})
			got = append(got, b.TaskID+string(s))
		case *event.TurnFinished:
			got = append(got, "turn:"+string(b.Status))
		}
	}
	want := []string{
		`a{"Kind":"subagent","Status":"pending","Detail":"","Reason":""}`,
		`a{"Kind":"subagent","Status":"pending","Detail":"","Reason":""}`, // accepted
		`a{"Kind":"subagent","Status":"running","Detail":"","Reason":""}`,
		`a{"Kind":"subagent","Status":"running","Detail":"halfway","Reason":""}`,
		`b{"Kind":"background_task","Status":"pending","Detail":"","Reason":""}`,
		`b{"Kind":"background_task","Status":"pending","Detail":"","Reason":""}`,
		`b{"Kind":"background_task","Status":"running","Detail":"","Reason":""}`,
		`b{"Kind":"background_task","Status":"failed","Detail":"","Reason":"oom"}`,
		`c{"Kind":"teammate","Status":"pending","Detail":"","Reason":""}`,
		`c{"Kind":"teammate","Status":"cancelled","Detail":"","Reason":"stop"}`,
		`a{"Kind":"subagent","Status":"completed","Detail":"","Reason":""}`,
		`turn:cancelled`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("read back:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
