package canonical_test

import (
	"bufio"
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/evtool/evtool/adapters/canonical"
	"github.com/evtool/evtool/dialect"
)

const head = `{"seq":0,"type":"session_started","schema":1,"source":{"dialect":"basis"}}`

func line(seq int, rest string) string { return fmt.Sprintf(`{"seq":%d,%s}`, seq, rest) }

func TestRules(t *testing.T) {
	type want struct {
		line int
		rule string
	}
	fin := func(seq int) string { return line(seq, `"type":"session_finished","status":"ok"`) }
	tests := []struct {
		name  string
		lines []string
		want  []want
	}{
		{"valid", []string{head, line(1, `"type":"tool_call","call_id":"c","name":"x"`), line(2, `"type":"tool_finished","call_id":"c","status":"success"`), fin(3)}, nil},
		{"first line", []string{line(0, `"type":"message","text":"x"`), fin(1)}, []want{{1, canonical.RuleFirstLine}}},
		{"empty", nil, []want{{0, canonical.RuleFirstLine}}},
		{"started twice", []string{head, strings.Replace(head, `"seq":0`, `"seq":1`, 1), fin(2)}, []want{{2, canonical.RuleStartedRepeated}}},
		{"after finish", []string{head, fin(1), line(2, `"type":"message","text":"x"`)}, []want{{3, canonical.RuleAfterFinish}}},
		{"truncated", []string{head, line(1, `"type":"message","text":"x"`)}, []want{{2, canonical.RuleTruncated}}},
		{"seq", []string{head, line(2, `"type":"message","text":"x"`), fin(3)}, []want{{2, canonical.RuleSeqContiguous}}},
		{"tool not called", []string{head, line(1, `"type":"tool_output","call_id":"c","chunk":"x"`), fin(2)}, []want{{2, canonical.RuleToolNotCalled}}},
		{"tool called twice", []string{head, line(1, `"type":"tool_call","call_id":"c","name":"x"`), line(2, `"type":"tool_call","call_id":"c","name":"x"`), line(3, `"type":"tool_finished","call_id":"c","status":"success"`), fin(4)},
			[]want{{3, canonical.RuleToolCalledTwice}}},
		{"tool closed", []string{head, line(1, `"type":"tool_call","call_id":"c","name":"x"`), line(2, `"type":"tool_finished","call_id":"c","status":"success"`), line(3, `"type":"tool_progress","call_id":"c","message":"late"`), fin(4)},
			[]want{{4, canonical.RuleToolClosed}}},
		{"turn not started", []string{head, line(1, `"type":"turn_finished","turn_id":"t","status":"ok"`), fin(2)}, []want{{2, canonical.RuleTurnNotStarted}}},
		{"turn closed", []string{head, line(1, `"type":"turn_started","turn_id":"t"`), line(2, `"type":"turn_finished","turn_id":"t","status":"ok"`), line(3, `"type":"turn_finished","turn_id":"t","status":"ok"`), fin(4)},
			[]want{{4, canonical.RuleTurnClosed}}},
		{"permission not requested", []string{head, line(1, `"type":"permission_resolved","request_id":"r","outcome":"allowed"`), fin(2)}, []want{{2, canonical.RulePermNotRequested}}},
		{"permission resolved twice", []string{head, line(1, `"type":"permission_requested","request_id":"r"`), line(2, `"type":"permission_resolved","request_id":"r","outcome":"allowed"`), line(3, `"type":"permission_resolved","request_id":"r","outcome":"denied"`), fin(4)},
			[]want{{4, canonical.RulePermClosed}}},
		{"unknown field", []string{head, line(1, `"type":"message","text":"x","colour":"red"`), fin(2)}, []want{{2, canonical.RuleUnknownField}}},
		{"value out of range", []string{head, line(1, `"type":"tool_call","call_id":"c","name":"x"`), line(2, `"type":"tool_finished","call_id":"c","status":"error","exit_code":99999999999999999999`), fin(3)},
			[]want{{3, canonical.RuleBadValue}}},
	}
	covered := map[string]bool{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := canonical.Dialect{}.NewChecker(dialect.CheckOptions{})
			var got []dialect.Finding
			for i, l := range tt.lines {
				c.Line([]byte(l), i+1, func(f dialect.Finding) { got = append(got, f) })
			}
			c.End(len(tt.lines), func(f dialect.Finding) { got = append(got, f) })
			if len(got) != len(tt.want) {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
			for i, w := range tt.want {
				if got[i].Line != w.line || got[i].Rule != w.rule {
					t.Errorf("got line %d %s, want line %d %s", got[i].Line, got[i].Rule, w.line, w.rule)
				}
				covered[w.rule] = true
			}
		})
	}
	for _, r := range (canonical.Dialect{}).Rules() {
		if !covered[r.ID] {
			t.Errorf("rule %s has no breaking test", r.ID)
		}
	}
}

// Canonical → canonical renumbers seq and keeps keys a newer model added.
func TestEncodeRenumbersAndKeepsExtra(t *testing.T) {
	in := []string{
		`{"seq":7,"type":"session_started","schema":1,"source":{"dialect":"basis"},"future_key":{"a":[1,2]}}`,
		`{"seq":9,"type":"message","text":"<b>&</b>","ext":{"zeta":{"x":1},"alpha":{}}}`,
	}
	var out bytes.Buffer
	w := bufio.NewWriter(&out)
	enc := canonical.Dialect{}.NewEncoder(w, dialect.EncodeOptions{Losses: &dialect.Losses{}})
	dec := canonical.Dialect{}.NewDecoder(dialect.DecodeOptions{})
	for i, l := range in {
		evs, err := dec.Decode(nil, []byte(l), i+1)
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range evs {
			if err := enc.Encode(ev); err != nil {
				t.Fatal(err)
			}
		}
	}
	w.Flush()
	want := `{"seq":0,"type":"session_started","schema":1,"source":{"dialect":"basis"},"future_key":{"a":[1,2]}}
{"seq":1,"type":"message","text":"<b>&</b>","ext":{"alpha":{},"zeta":{"x":1}}}
`
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}
