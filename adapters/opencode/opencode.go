// Package opencode reads and writes the event stream of
// `opencode run --format json`, and reads and writes back the server's
// `GET /event` bus that `run` filters.
//
// `run --format json` writes one flat JSON object per line: an envelope of
// type, timestamp (epoch milliseconds, when the line was written) and
// sessionID, then a payload, mostly one finished "part" of the session
// (step_start, reasoning, text, tool_use, step_finish) or an error. There
// is no session start, no user message and, in the 1.18 releases, no
// terminal line: a run is one turn, each step a model round, and the end
// of the run is read from the last line (a step_finish that did not stop
// to call tools, an error, or the `done` line newer sources add).
//
// The server bus (`{"id":"evt_…","type":"message.part.updated",
// "properties":{…}}`) is the second shape of the dialect, told apart by its
// envelope. Its finished parts mean what the same parts mean in run json;
// its deltas, errors, idle signal and the user's prompt have canonical
// events of their own; its many other lines (session and message
// snapshots, statuses, diffs) have no place in the canonical vocabulary
// and ride whole, in order, on the next event's ext.opencode.before.
package opencode

import (
	"bufio"
	_ "embed"
	"slices"
	"strings"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/tidwall/gjson"
)

// Name is the dialect's name.
const Name = "opencode"

func init() { dialect.Register(Dialect{}) }

// Dialect is the opencode dialect.
type Dialect struct{ dialect.Described[Dialect] }

// About implements dialect.Describer.
func (Dialect) About() dialect.About {
	return dialect.About{
		Name:        Name,
		Agent:       "opencode",
		Description: "opencode run --format json (1.x, through 1.18.33 and the done line of later sources); also the server's /event bus",
		Schema:      schemaJSON,
		Rules:       &rules,
		Losses:      losses,
		// Defaults names the facts the opencode encoder takes from --default
		// (or --session-id) when the source lacks them: every line of run json
		// names its session.
		Defaults: []dialect.DefaultKey{dialect.DefaultSessionID},
	}
}

//go:embed opencode.schema.json
var schemaJSON []byte

// Sniff accepts a run json line (a type, a numeric timestamp and a
// sessionID, the envelope every run line has) or a server bus line (a
// dotted type and a properties object).
func (Dialect) Sniff(line []byte) bool {
	r := jsonobj.View(line) // read in place: a sniffer keeps nothing, and a first line may be huge
	if !r.IsObject() || r.Get("seq").Exists() {
		return false
	}
	return isRun(r) || isBus(r)
}

// isRun reports whether a line has the envelope of run json.
func isRun(r gjson.Result) bool {
	return r.Get("type").Type == gjson.String && r.Get("timestamp").Type == gjson.Number &&
		r.Get("sessionID").Type == gjson.String
}

// isBus reports whether a line has the envelope of the server bus.
func isBus(r gjson.Result) bool {
	t := r.Get("type")
	return t.Type == gjson.String && strings.Contains(t.Str, ".") && r.Get("properties").IsObject() &&
		!r.Get("timestamp").Exists() && !r.Get("part").Exists()
}

// NewDecoder implements dialect.Decoder.
func (Dialect) NewDecoder(opts dialect.DecodeOptions) dialect.Decoder { return newDecoder(opts) }

// NewEncoder implements dialect.Dialect.
func (Dialect) NewEncoder(w *bufio.Writer, opts dialect.EncodeOptions) dialect.Encoder {
	return newEncoder(w, opts)
}

// NewChecker implements dialect.Dialect.
func (Dialect) NewChecker(dialect.CheckOptions) dialect.Checker { return newChecker() }

// runFields lists the top-level keys of every known run json type in the
// order `run` writes them, after the leading "type".
var runFields = map[string][]string{
	"step_start":  {"timestamp", "sessionID", "part"},
	"reasoning":   {"timestamp", "sessionID", "part"},
	"text":        {"timestamp", "sessionID", "part"},
	"tool_use":    {"timestamp", "sessionID", "part"},
	"step_finish": {"timestamp", "sessionID", "part"},
	"error":       {"timestamp", "sessionID", "error"},
	"done":        {"timestamp", "sessionID", "reason", "rejected"},
}

// partType is the part type each run json part line carries.
var partType = map[string]string{
	"step_start":  "step-start",
	"reasoning":   "reasoning",
	"text":        "text",
	"tool_use":    "tool",
	"step_finish": "step-finish",
}

// partFields lists the keys of each part type in the order opencode writes
// them (@opencode-ai/sdk part types).
var partFields = map[string][]string{
	"step-start":  {"id", "sessionID", "messageID", "type", "snapshot"},
	"step-finish": {"id", "sessionID", "messageID", "type", "reason", "snapshot", "cost", "tokens"},
	"text":        {"id", "sessionID", "messageID", "type", "text", "synthetic", "ignored", "time", "metadata"},
	"reasoning":   {"id", "sessionID", "messageID", "type", "text", "metadata", "time"},
	"tool":        {"id", "sessionID", "messageID", "type", "callID", "tool", "state", "metadata"},
}

// busTypes lists the server bus types the dialect reads or knows to carry:
// the 89 types of the @opencode-ai/sdk 1.19.3 event union (among them the
// session.next family, which run 1.18.33 does not use), and those of older
// servers that the union no longer lists. A type outside it is a newer
// server's and is kept as an unknown event.
var busTypes = map[string]bool{
	// @opencode-ai/sdk 1.19.3
	"models-dev.refreshed": true, "integration.updated": true, "integration.connection.updated": true,
	"catalog.updated": true, "session.created": true, "session.updated": true, "session.deleted": true,
	"message.updated": true, "message.removed": true, "message.part.updated": true,
	"message.part.removed": true, "session.next.agent.switched": true, "session.next.model.switched": true,
	"session.next.moved": true, "session.next.prompted": true, "session.next.prompt.admitted": true,
	"session.next.context.updated": true, "session.next.synthetic": true, "session.next.shell.started": true,
	"session.next.shell.ended": true, "session.next.step.started": true, "session.next.step.ended": true,
	"session.next.step.failed": true, "session.next.text.started": true, "session.next.text.delta": true,
	"session.next.text.ended": true, "session.next.reasoning.started": true, "session.next.reasoning.delta": true,
	"session.next.reasoning.ended": true, "session.next.tool.input.started": true,
	"session.next.tool.input.delta": true, "session.next.tool.input.ended": true,
	"session.next.tool.called": true, "session.next.tool.progress": true, "session.next.tool.success": true,
	"session.next.tool.failed": true, "session.next.retried": true, "session.next.compaction.started": true,
	"session.next.compaction.delta": true, "session.next.compaction.ended": true,
	"session.next.revert.staged": true, "session.next.revert.cleared": true,
	"session.next.revert.committed": true, "message.part.delta": true, "session.diff": true,
	"session.error": true, "installation.updated": true, "installation.update-available": true,
	"file.edited": true, "reference.updated": true, "permission.v2.asked": true,
	"permission.v2.replied": true, "plugin.added": true, "project.directories.updated": true,
	"file.watcher.updated": true, "pty.created": true, "pty.updated": true, "pty.exited": true,
	"pty.deleted": true, "question.v2.asked": true, "question.v2.replied": true,
	"question.v2.rejected": true, "todo.updated": true, "lsp.updated": true, "permission.asked": true,
	"permission.replied": true, "tui.prompt.append": true, "tui.command.execute": true,
	"tui.toast.show": true, "tui.session.select": true, "mcp.tools.changed": true,
	"mcp.browser.open.failed": true, "command.executed": true, "project.updated": true,
	"session.status": true, "session.idle": true, "question.asked": true, "question.replied": true,
	"question.rejected": true, "session.compacted": true, "vcs.branch.updated": true,
	"workspace.ready": true, "workspace.failed": true, "workspace.status": true, "worktree.ready": true,
	"worktree.failed": true, "server.connected": true, "global.disposed": true,
	"server.instance.disposed": true,
	// older servers
	"server.heartbeat": true, "lsp.client.diagnostics": true, "permission.updated": true,
}

// RunTypes returns the seven known run json line types.
func RunTypes() []string {
	out := make([]string, 0, len(runFields))
	for t := range runFields {
		out = append(out, t)
	}
	return out
}

func knownRunField(t, k string) bool { return k == "type" || slices.Contains(runFields[t], k) }
