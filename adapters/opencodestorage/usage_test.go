package opencodestorage_test

import (
	"strings"
	"testing"

	"github.com/evtool/evtool/adapters/opencodestorage"
	"github.com/evtool/evtool/dialecttest"
	"github.com/evtool/evtool/event"
)

// TestUsageByHand: a session's usage is the sum of its assistant
// messages' tokens and costs, and only those: the step-finish parts,
// which state tokens per step (here deliberately other figures), are
// never added. opencode's output excludes reasoning, the canonical output
// includes it: a message's canonical output is its output + reasoning.
// The figures are worked out by hand below.
func TestUsageByHand(t *testing.T) {
	const s = `"sessionID":"ses_u"`
	msg := func(id, role, rest string) string {
		return `{"type":"message","id":"` + id + `",` + s + `,"data":{"role":"` + role + `",` + rest + `}}`
	}
	part := func(id, mid, data string) string {
		return `{"type":"part","id":"` + id + `","messageID":"` + mid + `",` + s + `,"data":` + data + `}`
	}
	in := []string{
		`{"type":"session","id":"ses_u","data":{"id":"ses_u","directory":"/w","title":"u","version":"1.2.6","time_created":1,"time_updated":2}}`,
		msg("msg_1", "user", `"time":{"created":10}`),
		part("prt_1", "msg_1", `{"type":"text","text":"one"}`),
		// message A: input 1200, output 300, reasoning 40, cache read 8000, cache write 500, cost 0.0123
		msg("msg_2", "assistant", `"time":{"created":11,"completed":12},"modelID":"m","providerID":"p","cost":0.0123,"tokens":{"input":1200,"output":300,"reasoning":40,"cache":{"read":8000,"write":500}},"finish":"tool-calls"`),
		part("prt_2", "msg_2", `{"type":"step-finish","reason":"tool-calls","cost":5,"tokens":{"input":999999,"output":999999,"reasoning":0,"cache":{"read":0,"write":0}}}`),
		// message B: input 70, output 25, reasoning 0, cache read 9500, cache write 0, cost 0.00045
		msg("msg_3", "assistant", `"time":{"created":13,"completed":14},"modelID":"m","providerID":"p","cost":0.00045,"tokens":{"input":70,"output":25,"reasoning":0,"cache":{"read":9500,"write":0}},"finish":"stop"`),
		part("prt_3", "msg_3", `{"type":"step-finish","reason":"stop","cost":5,"tokens":{"input":999999,"output":999999,"reasoning":0,"cache":{"read":0,"write":0}}}`),
		msg("msg_4", "user", `"time":{"created":20}`),
		part("prt_4", "msg_4", `{"type":"text","text":"two"}`),
		// message C: input 5, output 1, reasoning 0, cache read 0, cache write 3, cost 1e-5
		msg("msg_5", "assistant", `"time":{"created":21,"completed":22},"modelID":"m","providerID":"p","cost":1e-5,"tokens":{"input":5,"output":1,"reasoning":0,"cache":{"read":0,"write":3}},"finish":"stop"`),
	}
	evs := dialecttest.DecodeStream(t, opencodestorage.Dialect{}, in...)
	var turns []*event.Usage
	var session *event.Usage
	rounds := 0
	for _, ev := range evs {
		switch b := ev.Body.(type) {
		case *event.TurnFinished:
			turns = append(turns, b.Usage)
		case *event.SessionFinished:
			session = b.Usage
		case *event.RoundFinished:
			rounds++
		}
	}
	check := func(what string, u *event.Usage, in, out, reason, read, write uint64, cost string) {
		t.Helper()
		if u == nil {
			t.Fatalf("%s: no usage", what)
		}
		got := [5]uint64{*u.InputTokens, *u.OutputTokens, *u.ReasoningTokens, *u.CacheReadTokens, *u.CacheCreationTokens}
		if want := [5]uint64{in, out, reason, read, write}; got != want || string(u.CostUSD) != cost {
			t.Errorf("%s: tokens %v cost %s, want %v cost %s", what, got, u.CostUSD, want, cost)
		}
	}
	if rounds != 3 || len(turns) != 2 {
		t.Fatalf("%d rounds, %d turns", rounds, len(turns))
	}
	// turn 1 = A + B: 1200+70 = 1270, (300+40)+(25+0) = 365, 40+0 = 40,
	// 8000+9500 = 17500, 500+0 = 500, 0.0123+0.00045 = 0.01275
	check("turn 1", turns[0], 1270, 365, 40, 17500, 500, "0.01275")
	// turn 2 = C: 5, 1+0, 0, 0, 3, 0.00001
	check("turn 2", turns[1], 5, 1, 0, 0, 3, "0.00001")
	// session = A + B + C: 1275, 366, 40, 17500, 503, 0.01276
	check("session", session, 1275, 366, 40, 17500, 503, "0.01276")
}

// TestOutputSaturated: an output and reasoning whose sum is beyond a u64
// give the largest u64 as the canonical output (a saturated count), and
// the message's tokens are kept whole in the residue, as written.
func TestOutputSaturated(t *testing.T) {
	const tokens = `{"input":1,"output":18446744073709551615,"reasoning":2,"cache":{"read":0,"write":0}}`
	evs := dialecttest.DecodeStream(t, opencodestorage.Dialect{},
		`{"type":"session","id":"ses_s","data":{"id":"ses_s","directory":"/w","title":"s","version":"1.2.6","time_created":1,"time_updated":2}}`,
		`{"type":"message","id":"msg_1","sessionID":"ses_s","data":{"role":"assistant","time":{"created":11,"completed":12},"modelID":"m","providerID":"p","cost":0,"tokens":`+tokens+`,"finish":"stop"}}`,
	)
	for _, ev := range evs {
		if r, ok := ev.Body.(*event.RoundFinished); ok {
			if *r.Usage.OutputTokens != 18446744073709551615 || *r.Usage.ReasoningTokens != 2 {
				t.Errorf("output %d, reasoning %d", *r.Usage.OutputTokens, *r.Usage.ReasoningTokens)
			}
			if !strings.Contains(string(ev.Ext.Get(opencodestorage.Name)), `"tokens":`+tokens) {
				t.Errorf("the tokens are not kept whole: %s", ev.Ext.Get(opencodestorage.Name))
			}
			return
		}
	}
	t.Fatal("no round_finished")
}
