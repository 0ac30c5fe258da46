// Package opencodewire holds what opencode's two dialects read alike: the
// stream of `opencode run` (adapters/opencode) and the sessions opencode
// stores (adapters/opencodestorage) carry the same parts, epoch
// milliseconds and tool names, and both keep the lines that have no
// canonical event of their own in the residue of the next event.
package opencodewire

import (
	"math"
	"strings"
	"time"

	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/tidwall/gjson"
)

// KeyBefore is the residue key that holds, in order, the whole source lines
// that came before an event and have no canonical event of their own (in
// run json step_start, a part republished after it ended, the bus's
// snapshots and statuses; in the store step-start, step-finish, snapshot,
// patch and file parts).
const KeyBefore = "before"

// WithBefore adds the held-back lines to the residue of an event, in the
// ext of the named dialect.
func WithBefore(ev *event.Event, dialect string, lines [][]byte) {
	arr := []byte{'['}
	for i, l := range lines {
		if i > 0 {
			arr = append(arr, ',')
		}
		arr = append(arr, l...)
	}
	arr = append(arr, ']')
	var res jsonobj.Residue
	if prev := ev.Ext.Get(dialect); len(prev) > 0 {
		jsonobj.ForEach(gjson.ParseBytes(prev), func(k, v gjson.Result) bool {
			res.Add(k.Str, []byte(v.Raw))
			return true
		})
	}
	res.Add(KeyBefore, arr)
	ev.Ext.Set(dialect, res.Bytes())
}

// KeepOthers adds to a residue the members of the object v that the
// canonical event does not carry.
func KeepOthers(res *jsonobj.Residue, v gjson.Result, carried map[string]bool) {
	jsonobj.ForEach(v, func(k, e gjson.Result) bool {
		if !carried[k.Str] {
			res.Add(k.Str, []byte(e.Raw))
		}
		return true
	})
}

// OutputTokens returns the canonical output count of opencode's output
// and reasoning counts. opencode counts them apart (its total is input +
// output + reasoning + cache read + cache write); the canonical output
// includes the reasoning, as the producers that state reasoning inside
// output count it. An output opencode does not state stays unstated. exact
// is false when the sum is beyond a u64: the output is then the largest
// u64, a saturated count.
func OutputTokens(output, reasoning *uint64) (out *uint64, exact bool) {
	if output == nil || reasoning == nil {
		return output, true
	}
	n := *output + *reasoning
	if n < *output {
		n = math.MaxUint64
		return &n, false
	}
	return &n, true
}

// maxMillis is the last millisecond of year 9999, the last an RFC 3339
// time can name.
const maxMillis = 253402300799999

// Millis reads an epoch-milliseconds integer as a canonical time, or says
// why it cannot.
func Millis(v gjson.Result) (t, msg string) {
	n, msg := jsonobj.ParseUint(v, jsonobj.IntType{Name: "epoch milliseconds", Max: maxMillis})
	if msg != "" {
		return "", msg
	}
	return time.UnixMilli(int64(n)).UTC().Format("2006-01-02T15:04:05.000000Z"), ""
}

// ToolKind returns what an opencode tool does, from its name, in any
// case: one of opencode's built-in tools (packages/opencode/src/tool), one
// of more, or "other".
func ToolKind(name string, more map[string]event.ToolKind) event.ToolKind {
	name = strings.ToLower(name)
	if k, ok := toolKinds[name]; ok {
		return k
	}
	if k, ok := more[name]; ok {
		return k
	}
	return event.KindOther
}

// toolKinds maps opencode's built-in tools to ACP tool kinds.
var toolKinds = map[string]event.ToolKind{
	"bash":       event.KindExecute,
	"read":       event.KindRead,
	"list":       event.KindRead,
	"lsp":        event.KindRead,
	"edit":       event.KindEdit,
	"multiedit":  event.KindEdit,
	"write":      event.KindEdit,
	"patch":      event.KindEdit,
	"glob":       event.KindSearch,
	"grep":       event.KindSearch,
	"codesearch": event.KindSearch,
	"websearch":  event.KindSearch,
	"webfetch":   event.KindFetch,
	"todowrite":  event.KindThink,
	"todoread":   event.KindThink,
	"task":       event.KindThink,
	"skill":      event.KindThink,
	"question":   event.KindOther,
	"plan_enter": event.KindSwitchMode,
	"plan_exit":  event.KindSwitchMode,
	"invalid":    event.KindOther,
}

// BashExit returns the exit code bash states in a tool state's metadata,
// nil for another tool or no integer code.
func BashExit(state gjson.Result, tool string) *int64 {
	if x := state.Get("metadata.exit"); x.Type == gjson.Number && tool == "bash" {
		if n, msg := jsonobj.ParseInt(x, jsonobj.I64); msg == "" {
			return &n
		}
	}
	return nil
}
