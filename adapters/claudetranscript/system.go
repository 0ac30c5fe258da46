package claudetranscript

import (
	"strings"

	"github.com/evtool/evtool/adapters/internal/claudecode"
	"github.com/evtool/evtool/event"
	"github.com/tidwall/gjson"
)

// System and progress lines: compaction, API retries, Claude Code's own
// notices; hook and tool progress. A microcompact_boundary (old tool
// results cleared from the context) is kept whole: context_elided's policy
// and byte counts are another producer's, and the boundary states neither.

func (l *line) system() {
	r := l.r
	switch l.kind {
	case "system/compact_boundary":
		// Claude Code compacted the context: the boundary, then a user
		// line with isCompactSummary (compaction_finished) follow.
		l.own(&event.CompactionStarted{})
		l.extra("compactMetadata")
	case "system/api_error":
		e := &event.Retry{Error: apiErrorText(r), Attempt: claudecode.Count(r.Get("retryAttempt")),
			MaxAttempts: claudecode.Count(r.Get("maxRetries")), NextDelayMS: claudecode.Count(r.Get("retryInMs"))}
		l.own(e)
		// What the event does not hold stays in the residue as written: the
		// error itself, and a delay that is not a whole number of ms.
		l.extra("error")
		l.extra("cause")
		if e.NextDelayMS == nil {
			l.extra("retryInMs")
		}
	case "system", "system/informational", "system/local_command":
		sev, ok := levels[str(r, "level")]
		if !ok {
			sev = event.SeverityInfo
		}
		l.own(&event.Notice{Severity: sev, Message: str(r, "content")})
	default:
		l.keep()
	}
}

// apiErrorText is the message of an API error: the error's own message
// where the line has one, else its content.
func apiErrorText(r getter) string {
	for _, p := range []string{"error.error.error.message", "error.error.message", "error.message", "error", "cause.message", "content"} {
		if v := r.Get(p); v.Type == gjson.String && v.Str != "" {
			return v.Str
		}
	}
	return ""
}

// progress keeps a progress line whole (hook output, a running command's
// output, a subagent's messages: 2.1 writes a running subagent's
// messages both here and in its own file, which is read for them). An
// agent_progress line names the Task call that runs an agent: the link
// its subagent's file does not carry.
func (l *line) progress() {
	data := l.r.Get("data")
	if data.Get("type").Str == "agent_progress" {
		if a, call := data.Get("agentId"), l.r.Get("parentToolUseID"); a.Type == gjson.String && call.Type == gjson.String {
			if _, ok := l.d.agentCalls.Get(a.Str); !ok {
				l.d.agentCalls.Put(a.Str, strings.Clone(call.Str))
			}
		}
	}
	l.keep()
}

// extra keeps a field of the line in its residue as written.
func (l *line) extra(k string) {
	if v := l.r.Get(k); v.Exists() {
		l.extras = append(l.extras, field{k, claudecode.Compact(v.Raw)})
	}
}

// field is a key and its raw value.
type field struct {
	k string
	v []byte
}
