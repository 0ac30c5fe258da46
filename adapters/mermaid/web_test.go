package mermaid

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/stream"
)

// TestForeignWebDetails: another dialect's web details are written only
// when mermaid's schema accepts them; the rest are dropped and counted,
// so that convert never writes a line evtool's validator refuses (Claude
// Code's web search results are an array of results).
func TestForeignWebDetails(t *testing.T) {
	for _, tc := range []struct {
		web   string
		fits  bool
		lines int
	}{
		{`{"backend":"x","requested_url":"https://a","status":200,"partial":false,"failures":[],"extra":{"any":1}}`, true, 0},
		{`[{"type":"web_search_result","url":"https://a"}]`, false, 0},
		{`{"status":"200"}`, false, 0},
		{`{"status":-1}`, false, 0},
		{`{"status":2.5}`, false, 0},
		{`{"requested_url":7}`, false, 0},
		{`{"truncated":"yes"}`, false, 0},
		{`"a string"`, false, 0},
	} {
		var out bytes.Buffer
		w := bufio.NewWriter(&out)
		losses := &dialect.Losses{}
		e := Dialect{}.NewEncoder(w, dialect.EncodeOptions{Losses: losses})
		for _, b := range []event.Body{
			&event.SessionStarted{Schema: event.SchemaVersion},
			&event.ToolCall{CallID: "c1", Name: "web_search"},
			&event.ToolFinished{CallID: "c1", Status: event.ToolSuccess, Web: json.RawMessage(tc.web)},
			&event.SessionFinished{Status: event.StatusOK},
		} {
			if err := e.Encode(&event.Event{Body: b}); err != nil {
				t.Fatal(err)
			}
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		w.Flush()
		written := strings.Contains(out.String(), `"web":`)
		if written != tc.fits {
			t.Errorf("web %s: written %v, want %v", tc.web, written, tc.fits)
		}
		counted := false
		for _, l := range losses.List() {
			counted = counted || l.ID == lossToolWeb.ID
		}
		if counted == tc.fits {
			t.Errorf("web %s: loss counted %v, want %v", tc.web, counted, !tc.fits)
		}
		rd := stream.NewReader(&out, "out.jsonl", stream.Options{Dialect: Dialect{}})
		for {
			l, err := rd.ReadLine()
			if err != nil {
				break
			}
			if !l.OK() {
				t.Errorf("web %s: line %d refused: %v", tc.web, l.N, l.Diags)
			}
		}
	}
}
