// Package claudecode holds what Claude Code's two dialects read alike: its
// stream-json (adapters/claude) and the transcripts it keeps on disk
// (adapters/claudetranscript) carry the same API messages, tool calls and
// counts.
package claudecode

import (
	"math/big"
	"strings"
	"unicode/utf8"

	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/exact"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/tidwall/gjson"
)

// StopReasons are the Anthropic API's stop reasons (BetaMessage.stop_reason,
// result.stop_reason). A word missing is a newer API's.
var StopReasons = map[string]event.StopReason{
	"end_turn":                      event.StopEndTurn,
	"stop_sequence":                 event.StopEndTurn,
	"tool_use":                      event.StopToolUse,
	"max_tokens":                    event.StopMaxTokens,
	"model_context_window_exceeded": event.StopMaxTokens,
	"refusal":                       event.StopRefusal,
	"pause_turn":                    event.StopOther,
	"compaction":                    event.StopOther,
}

// StopReason maps an API stop reason; a word of a newer API is "other".
func StopReason(w string) event.StopReason {
	if r, ok := StopReasons[w]; ok {
		return r
	}
	return event.StopOther
}

// InterruptMarker begins the text Claude Code puts into the conversation
// when the user stops a turn: "[Request interrupted by user]", or
// "[Request interrupted by user for tool use]" as a tool_result.
const InterruptMarker = "[Request interrupted by user"

// TitleKeys are the tool input keys that name what a call works on, in
// the order a call's title is taken from them.
var TitleKeys = []string{"description", "command", "file_path", "notebook_path", "path", "pattern", "url", "query", "prompt"}

// toolKinds gives the ACP kind of Claude Code's built-in tools, by every
// name any version used: names drift between versions (Task → Agent,
// TodoWrite → Task*, LS and MultiEdit gone).
var toolKinds = map[string]event.ToolKind{
	"Read": event.KindRead, "NotebookRead": event.KindRead, "LS": event.KindSearch,
	"Write": event.KindEdit, "Edit": event.KindEdit, "MultiEdit": event.KindEdit, "NotebookEdit": event.KindEdit,
	"Glob": event.KindSearch, "Grep": event.KindSearch, "ToolSearch": event.KindSearch,
	"Bash": event.KindExecute, "BashOutput": event.KindExecute, "KillBash": event.KindExecute, "KillShell": event.KindExecute,
	"PowerShell": event.KindExecute, "Monitor": event.KindExecute,
	"WebFetch": event.KindFetch, "WebSearch": event.KindFetch,
	"Task": event.KindThink, "Agent": event.KindThink, "TodoWrite": event.KindThink,
	"TaskCreate": event.KindThink, "TaskGet": event.KindThink, "TaskList": event.KindThink, "TaskUpdate": event.KindThink,
	"TaskOutput": event.KindThink, "TaskStop": event.KindThink, "Skill": event.KindThink,
	"ExitPlanMode": event.KindSwitchMode, "EnterPlanMode": event.KindSwitchMode,
	"EnterWorktree": event.KindSwitchMode, "ExitWorktree": event.KindSwitchMode,
}

// ToolKind returns what a Claude Code tool does, from its name. MCP tools
// ("mcp__<server>__<tool>") and tools of newer versions are "other".
func ToolKind(name string) event.ToolKind {
	if k, ok := toolKinds[name]; ok {
		return k
	}
	return event.KindOther
}

// Plan reads TodoWrite's input.todos as a checklist snapshot; nil when the
// input has no list of todos.
func Plan(in gjson.Result) *event.PlanUpdated {
	todos := in.Get("todos")
	if !todos.IsArray() {
		return nil
	}
	p := &event.PlanUpdated{Entries: []event.PlanEntry{}}
	var done uint64
	jsonobj.ForEach(todos, func(_, t gjson.Result) bool {
		e := event.PlanEntry{ID: t.Get("id").Str, Content: t.Get("content").Str, Status: t.Get("status").Str,
			ActiveForm: t.Get("activeForm").Str, Priority: t.Get("priority").Str}
		if e.Status == "completed" {
			done++
		}
		p.Entries = append(p.Entries, e)
		return true
	})
	total := uint64(len(p.Entries))
	p.Completed, p.Total = &done, &total
	return p
}

// FirstLine is a title: the first line of s, at most 200 bytes, cut at a
// character boundary.
func FirstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 200 {
		// Drop what the cut left of a character: a character that ends
		// at the cut is whole and stays.
		s = s[:200]
		for len(s) > 0 {
			if r, size := utf8.DecodeLastRuneInString(s); r != utf8.RuneError || size > 1 {
				break
			}
			s = s[:len(s)-1]
		}
	}
	return s
}

// Compact returns raw JSON without white space between tokens, as
// canonical writes it.
func Compact(raw string) []byte {
	b := make([]byte, 0, len(raw))
	in := false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if in {
			b = append(b, c)
			if c == '\\' && i+1 < len(raw) {
				i++
				b = append(b, raw[i])
			} else if c == '"' {
				in = false
			}
			continue
		}
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		case '"':
			in = true
		}
		b = append(b, c)
	}
	return b
}

// Count reads a count: a non-negative integer literal within u64, nil for
// anything else (absent, null, a fraction: the checks of numbers report
// what they refuse, and a delay may be fractional).
func Count(v gjson.Result) *uint64 {
	if v.Type != gjson.Number {
		// Absent and null counts are common (the cache counts): not
		// worth the message ParseUint would build for them.
		return nil
	}
	n, msg := jsonobj.ParseUint(v, jsonobj.U64)
	if msg != "" {
		return nil
	}
	return &n
}

// DecimalString writes r as a plain decimal (no exponent) with no more
// fraction digits than it needs. r is a sum or difference of decimals (the
// costs a stream wrote), so its expansion ends; the bound of 400 digits
// only guards against a pathological input.
func DecimalString(r *big.Rat) string {
	ten := big.NewInt(10)
	den := new(big.Int).Set(r.Denom())
	digits := 0
	for q, m := new(big.Int), new(big.Int); den.Cmp(big.NewInt(1)) != 0 && digits < 400; digits++ {
		// den divides 10^k exactly for a decimal; strip a 2 or a 5 per digit.
		if q.DivMod(den, ten, m); m.Sign() == 0 {
			den.Set(q)
		} else if q.DivMod(den, big.NewInt(2), m); m.Sign() == 0 {
			den.Set(q)
		} else if q.DivMod(den, big.NewInt(5), m); m.Sign() == 0 {
			den.Set(q)
		} else {
			break
		}
	}
	return exact.Decimal(r, digits)
}
