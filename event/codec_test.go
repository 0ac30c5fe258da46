package event_test

import (
	"errors"
	"testing"

	"github.com/evtool/evtool/event"
)

func TestParseErrors(t *testing.T) {
	tests := []struct{ line, ptr string }{
		{`{"seq":0}`, "/type"},
		{`{"seq":0,"type":7}`, "/type"},
		{`{"seq":0,"type":"nope"}`, "/type"},
		{`{"seq":-1,"type":"message","text":"x"}`, "/seq"},
		{`{"seq":1,"type":"message","text":"x","turn_id":3}`, "/turn_id"},
		{`{"seq":1,"type":"message","text":"x","synthetic":"yes"}`, "/synthetic"},
		{`{"seq":1,"type":"message","text":"x","ext":[]}`, "/ext"},
		{`{"seq":1,"type":"usage","input_tokens":"12"}`, "/input_tokens"},
		{`{"seq":1,"type":"plan_updated","entries":[{"content":"a","status":"pending","elapsed_secs":-1}]}`, "/entries/0/elapsed_secs"},
		{`[]`, ""},
	}
	for _, tt := range tests {
		_, err := event.Parse([]byte(tt.line))
		var fe *event.FieldError
		if !errors.As(err, &fe) || fe.Pointer != tt.ptr {
			t.Errorf("%s: got %v, want a FieldError at %q", tt.line, err, tt.ptr)
		}
	}
}

func TestAppendRoundTrip(t *testing.T) {
	lines := []string{
		`{"seq":0,"type":"session_started","schema":1,"source":{"dialect":"mermaid","version":1},"context_files":[]}`,
		`{"seq":1,"type":"turn_started","turn_id":"t1","synthetic":true,"prompt":""}`,
		`{"seq":2,"type":"plan_updated","turn_id":"t1","entries":[]}`,
		`{"seq":3,"type":"usage","agent_id":"a","input_tokens":18446744073709551615,"reasoning_tokens":0}`,
		`{"seq":4,"type":"compaction_started","time":"2026-01-02T03:04:05.000006Z"}`,
		`{"seq":5,"type":"unknown","dialect":"basis","source_type":"x","raw":{"seq":5,"type":"x"},"src":{"dialect":"basis","line":6,"type":"x"}}`,
		`{"seq":6,"type":"tool_finished","call_id":"c","status":"error","output":"","exit_code":-1}`,
	}
	for _, l := range lines {
		ev, err := event.Parse([]byte(l))
		if err != nil {
			t.Fatalf("%s: %v", l, err)
		}
		got, err := event.Append(nil, ev)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != l {
			t.Errorf("\n got %s\nwant %s", got, l)
		}
	}
}
