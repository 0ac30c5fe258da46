// Package claudetranscript reads the session transcripts Claude Code keeps
// on disk, <config>/projects/<encoded-cwd>/<session>.jsonl (config is
// $CLAUDE_CONFIG_DIR, ~/.claude or ~/.config/claude), as written by the CLI
// from 1.0 to 2.1, and finds them (Store).
//
// A transcript is the agent's own record: one JSON object per line, the
// conversation (user, assistant, system, progress and attachment lines,
// linked into a tree by uuid and parentUuid) and session metadata (titles,
// tags, file-history snapshots, queue operations, modes). Subagents write
// their lines inline with isSidechain (1.0), into agent-*.jsonl beside the
// session (2.0), or into <session>/subagents/ (2.1). evtool reads the
// dialect and never writes it (dialect.ReadOnly): a line evtool wrote
// would pass for one Claude Code wrote.
//
// The decoder reads in file order, streaming, in memory bounded whatever
// the file's size: it keeps sets of ids (internal/idset) and a bounded
// number of open subagents and calls, never a line. docs/dialects/
// claude-transcript.md describes the mapping and the producer's pitfalls.
package claudetranscript

import (
	_ "embed"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/evtool/evtool/sessions"
	"github.com/tidwall/gjson"
)

// Name is the dialect's name.
const Name = "claude-transcript"

func init() {
	dialect.Register(Dialect{})
	sessions.Register(Store{})
}

// Dialect is the dialect of Claude Code's session transcripts.
type Dialect struct {
	dialect.DescribedReadOnly[Dialect]
}

// About implements dialect.Describer.
func (Dialect) About() dialect.About {
	return dialect.About{
		Name:        Name,
		Agent:       "claude-code",
		Description: "Claude Code session transcripts: <config>/projects/<cwd>/<session>.jsonl (CLI 1.0 to 2.1; read-only)",
		ReadOnly:    "a transcript is Claude Code's own record of a session, which it resumes from: a line evtool wrote would pass for one Claude Code wrote",
		Schema:      schemaJSON,
		Rules:       &rules,
	}
}

//go:embed claude-transcript.schema.json
var schemaJSON []byte

// Sniff accepts a first line of a transcript. Transcript lines name their
// session in camel case (sessionId), where the stream-json dialect writes
// session_id, and conversation lines carry a uuid and a timestamp; a file
// may also begin with a metadata line, which has its own keys (a summary
// and file-history snapshots name no session at all).
func (Dialect) Sniff(line []byte) bool {
	r := jsonobj.View(line) // read in place: a sniffer keeps nothing, and a first line may be huge
	if !r.IsObject() {
		return false
	}
	t := r.Get("type")
	if t.Type != gjson.String {
		return false
	}
	session := r.Get("sessionId").Type == gjson.String
	switch {
	case conversation[t.Str]:
		return session && r.Get("uuid").Type == gjson.String && r.Get("timestamp").Type == gjson.String
	case t.Str == "summary":
		return r.Get("summary").Type == gjson.String && r.Get("leafUuid").Type == gjson.String
	case t.Str == "file-history-snapshot":
		return r.Get("messageId").Type == gjson.String && r.Get("snapshot").IsObject()
	case metadata[t.Str] != "":
		return session && r.Get(metadata[t.Str]).Exists()
	}
	return false
}

// NewDecoder implements dialect.Dialect.
func (Dialect) NewDecoder(opts dialect.DecodeOptions) dialect.Decoder { return newDecoder(opts) }

// NewChecker implements dialect.Dialect.
func (Dialect) NewChecker(dialect.CheckOptions) dialect.Checker { return newChecker() }
