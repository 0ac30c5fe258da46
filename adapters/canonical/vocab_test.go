package canonical_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/evtool/evtool/adapters/canonical"
	"github.com/evtool/evtool/event"
)

// TestVocabularyMatchesSchema keeps the closed vocabularies of package
// event and the published canonical schema in step.
func TestVocabularyMatchesSchema(t *testing.T) {
	var doc struct {
		Defs map[string]struct {
			Enum       []string `json:"enum"`
			Properties map[string]struct {
				Enum []string `json:"enum"`
				Ref  string   `json:"$ref"`
			} `json:"properties"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(canonical.Dialect{}.Schema(), &doc); err != nil {
		t.Fatal(err)
	}
	enum := func(def, prop string) []string {
		p := doc.Defs[def].Properties[prop]
		if p.Ref != "" {
			return doc.Defs[p.Ref[len("#/$defs/"):]].Enum
		}
		return p.Enum
	}
	strs := func(vs ...string) []string { return vs }
	tests := []struct {
		def, prop string
		want      []string
		valid     func(string) bool
	}{
		{"tool_call", "kind", toStrings(event.ToolKinds()), func(s string) bool { return event.ToolKind(s).Valid() }},
		{"tool_finished", "kind", toStrings(event.ToolKinds()), func(s string) bool { return event.ToolKind(s).Valid() }},
		{"tool_finished", "status", strs("success", "error", "cancelled", "rejected"), func(s string) bool { return event.ToolStatus(s).Valid() }},
		{"turn_finished", "stop_reason", toStrings(event.StopReasons()), func(s string) bool { return event.StopReason(s).Valid() }},
		{"turn_finished", "status", strs("ok", "error", "cancelled"), func(s string) bool { return event.Status(s).Valid() }},
		{"task_updated", "kind", strs("subagent", "background_task", "teammate", "internal"), func(s string) bool { return event.TaskKind(s).Valid() }},
		{"task_updated", "status", strs("pending", "running", "completed", "failed", "cancelled"), func(s string) bool { return event.TaskStatus(s).Valid() }},
	}
	for _, tt := range tests {
		got := enum(tt.def, tt.prop)
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s.%s: schema enum %v, want %v", tt.def, tt.prop, got, tt.want)
		}
		for _, w := range got {
			if !tt.valid(w) {
				t.Errorf("%s.%s: %q is in the schema but not valid in package event", tt.def, tt.prop, w)
			}
		}
		if tt.valid("martian") {
			t.Errorf("%s.%s: a word outside the vocabulary is valid", tt.def, tt.prop)
		}
	}
}

func toStrings[T ~string](vs []T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}
