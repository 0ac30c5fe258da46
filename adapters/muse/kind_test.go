package muse

import (
	"testing"

	"github.com/evtool/evtool/event"
)

func TestMuseWords(t *testing.T) {
	for name, want := range map[string]event.ToolKind{
		"read_file": event.KindRead, "write_file": event.KindEdit, "edit_file": event.KindEdit,
		"bash": event.KindExecute, "command": event.KindExecute, "github/search_files": event.KindSearch,
		"Read": event.KindOther, "": event.KindOther, "mystery": event.KindOther,
	} {
		if got := toolKind(name); got != want {
			t.Errorf("toolKind(%q) = %q, want %q", name, got, want)
		}
	}
	for k, want := range map[string]event.TaskKind{
		"subagent": event.TaskSubagent, "subagent.explorer": event.TaskSubagent, "agent.subagent.review": event.TaskSubagent,
		"model.meta.response": event.TaskInternal, "reminder.agent.plugin:tbh-reminders:goal-reminder": event.TaskInternal,
		"background_task": event.TaskBackground, "teammate": event.TaskTeammate, "": event.TaskInternal, "task": event.TaskInternal,
	} {
		if got := taskKind(k); got != want {
			t.Errorf("taskKind(%q) = %q, want %q", k, got, want)
		}
	}
	for _, k := range []event.TaskKind{event.TaskSubagent, event.TaskBackground, event.TaskTeammate, event.TaskInternal} {
		if got := taskKind(museTaskKind(k)); got != k {
			t.Errorf("task kind %q is written as %q and read as %q", k, museTaskKind(k), got)
		}
	}
	for _, k := range LifecycleKinds {
		s := taskStatus(k)
		if !s.Valid() {
			t.Errorf("lifecycle %q reads as %q", k, s)
		}
		if back := lifecycleKind(s); taskStatus(back) != s {
			t.Errorf("status %q is written as %q", s, back)
		}
	}
}
