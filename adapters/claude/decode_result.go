package claude

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/evtool/evtool/adapters/internal/claudecode"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/tidwall/gjson"
)

// result reads a result line: the end of a turn, with its status, stop
// reason, text and usage; the rounds still open end before it.
func (l *line) result() {
	d := l.d
	for _, t := range slices.Clone(d.order) {
		l.pre = append(l.pre, d.closeRound(t))
	}
	l.beginTurn(nil)
	b := &event.TurnFinished{Status: event.StatusOK}
	sub := l.str("subtype")
	if sub != "success" || l.r.Get("is_error").Type == gjson.True {
		b.Status = event.StatusError
	}
	if tr := l.str("terminal_reason"); tr == "aborted_streaming" || tr == "aborted_tools" {
		b.Status = event.StatusCancelled
	} else if d.interrupted && tr == "" && b.Status == event.StatusError && sub == "error_during_execution" {
		// A CLI without terminal_reason: the user's interrupt shows only as
		// the marker Claude Code writes into the conversation.
		b.Status = event.StatusCancelled
	}
	d.interrupted = false
	if s := l.r.Get("stop_reason"); s.Type == gjson.String {
		b.StopReason = claudecode.StopReason(s.Str)
	} else if sub == "error_max_turns" {
		b.StopReason = event.StopMaxTurnRequests
	} else if b.Status == event.StatusCancelled {
		b.StopReason = event.StopCancelled
	}
	if v := l.r.Get("result"); v.Type == gjson.String {
		s := v.Str
		b.Text = &s
	}
	var errs []string
	if v := l.r.Get("errors"); v.IsArray() {
		errs = []string{}
		jsonobj.ForEach(v, func(_, e gjson.Result) bool {
			errs = append(errs, e.Str)
			return true
		})
		b.Reason = strings.Join(errs, "; ")
	}
	u := l.r.Get("usage")
	b.Usage = &event.Usage{
		InputTokens:         claudecode.Count(u.Get("input_tokens")),
		OutputTokens:        claudecode.Count(u.Get("output_tokens")),
		CacheReadTokens:     claudecode.Count(u.Get("cache_read_input_tokens")),
		CacheCreationTokens: claudecode.Count(u.Get("cache_creation_input_tokens")),
	}
	if c := l.r.Get("total_cost_usd"); c.Type == gjson.Number && !unstatedCost(l.r) {
		// A running total for the process: the turn's own cost is what it
		// adds to the previous result's (cost.go).
		b.Usage.CostUSD = json.Number(turnCost(c.Raw, d.st.cost))
	}
	if all := d.modelUsage(l.r); all != nil && covers(all, b.Usage) {
		// result.usage counts the main thread; the turn's tokens are
		// those of every model it ran, as its cost is: the subagents'
		// (and Claude Code's own calls on a small model) besides.
		b.Usage.InputTokens, b.Usage.OutputTokens = all.InputTokens, all.OutputTokens
		b.Usage.CacheReadTokens, b.Usage.CacheCreationTokens = all.CacheReadTokens, all.CacheCreationTokens
	}
	if *b.Usage == (event.Usage{}) {
		b.Usage = nil
	}
	ev := &event.Event{TurnID: d.turn, Body: b}
	l.group = append(l.group, ev)
	d.results++
	d.last, d.lastErr = b, errs
	d.lastOut = nil
	if v := l.r.Get("structured_output"); v.Exists() && v.Type != gjson.Null {
		d.lastOut = compact(v.Raw)
	}
	d.turn = ""
}
