// Package geminicli holds what Gemini CLI's two dialects read alike: its
// stream-json (adapters/gemini) and the chats it keeps on disk
// (adapters/geminichat) stamp times the same way and name the same
// built-in tools.
package geminicli

import (
	"strings"
	"time"

	"github.com/evtool/evtool/event"
)

// Gemini CLI stamps lines and records with JavaScript's
// Date.toISOString(): UTC, milliseconds, "Z". The canonical time has
// microseconds.
const (
	JSLayout    = "2006-01-02T15:04:05.000Z"
	CanonLayout = "2006-01-02T15:04:05.000000Z"
)

// CanonTime returns the canonical time of a timestamp and whether it is in
// Gemini CLI's own form, so that it renders back to the same text. A
// timestamp in another RFC 3339 form (another offset, more or fewer
// digits) still gives a time, inexactly; a text that is no time gives
// none.
func CanonTime(ts string) (t string, exact bool) {
	if jsTime(ts) {
		// Gemini CLI's own form, on every line: its canonical time is
		// the same text with three more digits, found without parsing
		// and formatting it (a tenth of validate's time).
		return ts[:len(JSLayout)-1] + "000Z", true
	}
	return parsedTime(ts)
}

// parsedTime is CanonTime by time.Parse and Format, for every form.
func parsedTime(ts string) (t string, exact bool) {
	if len(ts) == len(JSLayout) {
		if tt, err := time.Parse(JSLayout, ts); err == nil && tt.Format(JSLayout) == ts {
			return tt.Format(CanonLayout), true
		}
	}
	tt, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil || tt.UTC().Year() > 9999 || tt.UTC().Year() < 0 {
		return "", false
	}
	return tt.UTC().Format(CanonLayout), false
}

// jsTime reports whether ts is a time in JSLayout that time.Parse reads
// and Format gives back as it is: digits where the layout has them, a
// month, a day of that month, an hour, a minute and a second in range.
func jsTime(ts string) bool {
	if len(ts) != len(JSLayout) {
		return false
	}
	for i := 0; i < len(JSLayout); i++ {
		c, l := ts[i], JSLayout[i]
		if l >= '0' && l <= '9' {
			if c < '0' || c > '9' {
				return false
			}
		} else if c != l {
			return false
		}
	}
	num := func(i, n int) int {
		v := 0
		for _, c := range ts[i : i+n] {
			v = v*10 + int(c-'0')
		}
		return v
	}
	year, month, day := num(0, 4), num(5, 2), num(8, 2)
	if month < 1 || month > 12 || day < 1 || num(11, 2) > 23 || num(14, 2) > 59 || num(17, 2) > 59 {
		return false
	}
	// The last day of the month: the day before the first of the next.
	last := time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day()
	return day <= last
}

// IsISOTime reports whether a timestamp is an RFC 3339 time, as
// Date.toISOString() writes one.
func IsISOTime(ts string) bool {
	_, err := time.Parse(time.RFC3339Nano, ts)
	return err == nil
}

// ToolKind returns what a Gemini CLI tool does, from its name: one of the
// built-in tools both dialects know (the stream's of 0.61, and the older
// names of the same tools), one of more, or a tool of the task tracker;
// any other name (an MCP tool, a subagent, a newer tool) is "other".
func ToolKind(name string, more map[string]event.ToolKind) event.ToolKind {
	if k, ok := toolKinds[name]; ok {
		return k
	}
	if k, ok := more[name]; ok {
		return k
	}
	if strings.HasPrefix(name, "tracker_") {
		return event.KindThink // the task tracker: the agent's own plan
	}
	return event.KindOther
}

var toolKinds = map[string]event.ToolKind{
	"run_shell_command":   event.KindExecute,
	"read_file":           event.KindRead,
	"read_many_files":     event.KindRead,
	"list_directory":      event.KindRead,
	"write_file":          event.KindEdit,
	"replace":             event.KindEdit,
	"glob":                event.KindSearch,
	"grep_search":         event.KindSearch,
	"search_file_content": event.KindSearch, // grep_search's earlier name
	"google_web_search":   event.KindSearch,
	"web_fetch":           event.KindFetch,
	"write_todos":         event.KindThink,
	"enter_plan_mode":     event.KindSwitchMode,
	"exit_plan_mode":      event.KindSwitchMode,
}
