package event_test

import (
	"encoding/json"
	"testing"

	"github.com/evtool/evtool/event"
)

func TestExtSet(t *testing.T) {
	tests := []struct {
		name string
		sets [][2]string // dialect, raw, in order
		want string      // the wire's ext object
	}{
		{"one", [][2]string{{"basis", `{"seq":1}`}}, `{"basis":{"seq":1}}`},
		{"sorted whatever the order", [][2]string{{"muse", `{"a":1}`}, {"basis", `{"b":2}`}, {"codex", `{}`}}, `{"basis":{"b":2},"codex":{},"muse":{"a":1}}`},
		{"a second Set replaces", [][2]string{{"basis", `{"seq":1}`}, {"acp", `{"x":1}`}, {"basis", `{"seq":2}`}}, `{"acp":{"x":1},"basis":{"seq":2}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var x event.Ext
			for _, s := range tt.sets {
				x.Set(s[0], json.RawMessage(s[1]))
			}
			ev := &event.Event{Ext: x, Body: &event.Notice{Message: "m"}}
			line, err := event.Append(nil, ev)
			if err != nil {
				t.Fatal(err)
			}
			back, err := event.Parse(line)
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.Marshal(back.Ext)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("ext after a round trip = %s, want %s (line %s)", got, tt.want, line)
			}
			var un event.Ext
			if err := json.Unmarshal(got, &un); err != nil || len(un) != len(x) {
				t.Fatalf("json.Unmarshal: %v, %d entries, want %d", err, len(un), len(x))
			}
			for i := range un {
				if un[i].Dialect != back.Ext[i].Dialect || string(un[i].Raw) != string(back.Ext[i].Raw) {
					t.Errorf("entry %d: %s=%s, want %s=%s", i, un[i].Dialect, un[i].Raw, back.Ext[i].Dialect, back.Ext[i].Raw)
				}
			}
		})
	}
}

func TestExtLookup(t *testing.T) {
	var x event.Ext
	if raw, ok := x.Lookup("basis"); ok || raw != nil || x.Get("basis") != nil {
		t.Fatalf("a nil Ext has basis: %s %v", raw, ok)
	}
	x = event.ExtOf("basis", json.RawMessage(`{}`))
	if raw, ok := x.Lookup("basis"); !ok || string(raw) != `{}` {
		t.Errorf("Lookup(basis) = %s, %v", raw, ok)
	}
	if _, ok := x.Lookup("muse"); ok {
		t.Error("Lookup(muse) found an entry never set")
	}
}
