package opencode_test

import (
	"strings"
	"testing"

	"github.com/evtool/evtool/adapters/opencode"
)

// TestRunWithoutTurn: a run that began no turn and wrote nothing before
// it finished (a prompt never answered: the ACP projection of a failed run
// reads back so) still ends in a stream opencode's validator accepts, and
// its outcome is not lost: a failed run gets its error line, another an
// empty step, each line counted as synthesised. Before, nothing was
// written (exit 0, an empty stream, and a failure lost without a count).
func TestRunWithoutTurn(t *testing.T) {
	head := `{"seq":0,"type":"session_started","schema":1,"source":{"dialect":"acp"},"session_id":"s1"}
{"seq":1,"type":"user_message","text":"Summarise the changelog"}
`
	for _, c := range []struct {
		name, end string
		want      []string
		lost      string
	}{
		{"failed", `{"seq":2,"type":"session_finished","status":"error","message":"quota"}`,
			[]string{`{"type":"error",`, `"message":"quota"`}, "opencode/synthesized-error"},
		{"ok", `{"seq":2,"type":"session_finished","status":"ok"}`,
			[]string{`{"type":"step_start",`, `{"type":"step_finish",`, `"reason":"stop"`}, "opencode/synthesized-step-finish"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, losses := conv(t, []byte(head+c.end+"\n"), "canonical", opencode.Name)
			if out == "" {
				t.Fatal("nothing was written")
			}
			if sum := check(t, out); sum.Errors != 0 {
				t.Errorf("output does not validate:\n%s", out)
			}
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %s:\n%s", w, out)
				}
			}
			found := false
			for _, l := range losses.List() {
				found = found || l.ID == c.lost
			}
			if !found {
				t.Errorf("%s not counted: %v", c.lost, losses.List())
			}
		})
	}
}

// TestSyntheticTimes: the session start, turn start and ends opencode
// never writes take the times of the stream's first and last lines (they
// had none, and Gemini CLI's init and result were written at 1970-01-01
// with a duration of 0: hunt-gemop D8).
func TestSyntheticTimes(t *testing.T) {
	in := `{"type":"step_start","timestamp":1767036059338,"sessionID":"ses_t1","part":{"id":"prt_1","sessionID":"ses_t1","messageID":"msg_1","type":"step-start"}}
{"type":"step_finish","timestamp":1767036061205,"sessionID":"ses_t1","part":{"id":"prt_2","sessionID":"ses_t1","messageID":"msg_1","type":"step-finish","reason":"stop","cost":0,"tokens":{"input":1000,"output":10,"reasoning":0,"cache":{"read":0,"write":0}}}}
`
	out, _ := conv(t, []byte(in), opencode.Name, "canonical")
	for _, w := range []string{
		`"type":"session_started","time":"2025-12-29T19:20:59.338000Z"`,
		`"type":"turn_started","time":"2025-12-29T19:21:01.205000Z"`,
		`"type":"turn_finished","time":"2025-12-29T19:21:01.205000Z"`,
		`"type":"session_finished","time":"2025-12-29T19:21:01.205000Z"`,
	} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %s:\n%s", w, out)
		}
	}
}
