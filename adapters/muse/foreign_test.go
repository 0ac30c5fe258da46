package muse_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/evtool/evtool/adapters/canonical"
	"github.com/evtool/evtool/adapters/muse"
	"github.com/evtool/evtool/convert"
	"github.com/evtool/evtool/diag"
	"github.com/evtool/evtool/event"
)

// TestRunWithoutTurn: a valid canonical stream with no turn (a session
// that failed, or ended, before its first prompt) is written as one
// synthesised turn ended with the session's outcome, each synthesised
// record counted, so that muse's validator accepts the journal and it
// reads back with the same outcome. Before, the writer wrote nothing and
// the conversion exited 0 with a journal muse refuses as empty.
func TestRunWithoutTurn(t *testing.T) {
	head := `{"seq":0,"type":"session_started","schema":1,"source":{"dialect":"x"},"session_id":"s1"}` + "\n"
	for _, c := range []struct {
		name, body string
		status     event.Status
		reason     string
	}{
		{"error", `{"seq":1,"type":"error","message":"quota"}` + "\n" +
			`{"seq":2,"type":"session_finished","status":"error","message":"quota"}` + "\n", event.StatusError, "quota"},
		{"ok", `{"seq":1,"type":"session_finished","status":"ok"}` + "\n", event.StatusOK, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := []byte(head + c.body)
			if sum, diags := validateAs(t, in, "canonical"); sum.Errors != 0 {
				t.Fatalf("the source is not a valid canonical stream: %v", diags)
			}
			var out bytes.Buffer
			res, err := convert.Run(bytes.NewReader(in), &out, "in", convert.Options{From: canonical.Dialect{}, To: muse.Dialect{}},
				func(le *convert.LineError) {
					if le.Severity == diag.Error {
						t.Error(le)
					}
				})
			if err != nil {
				t.Fatal(err)
			}
			if out.Len() == 0 {
				t.Fatal("no muse record was written")
			}
			if sum, diags := validateAs(t, out.Bytes(), "muse"); sum.Errors != 0 {
				t.Errorf("muse's validator rejects the output: %v\n%s", diags, out.String())
			}
			var ids []string
			for _, l := range res.Losses.List() {
				ids = append(ids, l.ID)
			}
			for _, id := range []string{"muse/synthesized-command-accepted", "muse/synthesized-run-linked", "muse/synthesized-run-terminal"} {
				if !strings.Contains(strings.Join(ids, " "), id) {
					t.Errorf("losses %v lack %s", ids, id)
				}
			}
			var fin *event.SessionFinished
			for _, ev := range events(t, toCanonical(t, out.Bytes())) {
				if b, ok := ev.Body.(*event.SessionFinished); ok {
					fin = b
				}
			}
			if fin == nil || fin.Status != c.status || fin.Message != c.reason {
				t.Errorf("read back as %+v, want status %q and message %q", fin, c.status, c.reason)
			}
		})
	}
}
