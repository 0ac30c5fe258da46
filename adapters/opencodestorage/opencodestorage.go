// Package opencodestorage reads the sessions opencode keeps on disk: the
// SQLite database opencode.db of opencode 1.2 and later (tables session,
// message, part, todo, …, each message and part a JSON document in a data
// column, the database in WAL mode), and the JSON files of the earlier
// storage (storage/{session,message,part,todo}/…json), under
// ${XDG_DATA_HOME:-~/.local/share}/opencode. It finds them (Store) and
// reads them (Dialect); it never writes either.
//
// A session on disk is not a stream of lines, so Store.Open makes one, in
// evtool's own framing of opencode's records: one JSON object a line, the
// session first, then each message in order of creation followed by its
// parts in id order, then the session's todo list. Each line is
//
//	{"type":"session","id":…,"data":{…}}
//	{"type":"message","id":…,"sessionID":…,"data":{…}}
//	{"type":"part","id":…,"messageID":…,"sessionID":…,"data":{…}}
//	{"type":"todo","sessionID":…,"data":[…]}
//
// where data is opencode's record as stored, compacted, with its numbers
// as written: a message or part as the database holds it (opencode moves
// the ids into columns, and so does the frame here). docs/dialects/
// opencode-storage.md describes the framing, the mapping into canonical
// events and what is not read.
package opencodestorage

import (
	_ "embed"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/evtool/evtool/sessions"
	"github.com/tidwall/gjson"
)

// Name is the dialect's name.
const Name = "opencode-storage"

func init() {
	dialect.Register(Dialect{})
	sessions.Register(Store{})
}

// Dialect is the dialect of opencode's stored sessions, as Store.Open
// frames them.
type Dialect struct {
	dialect.DescribedReadOnly[Dialect]
}

// About implements dialect.Describer.
func (Dialect) About() dialect.About {
	return dialect.About{
		Name:        Name,
		Agent:       "opencode",
		Description: "opencode's stored sessions: opencode.db (1.2 and later) or storage/*.json (to 1.1), one record a line (read-only)",
		ReadOnly:    "the records are opencode's own store, which it resumes sessions from, and the line framing is evtool's: nothing evtool wrote would go back into opencode",
		Schema:      schemaJSON,
		Rules:       &rules,
	}
}

//go:embed opencode-storage.schema.json
var schemaJSON []byte

// Sniff accepts the first line Store.Open writes: a session line, whose
// data is an object. The frame's "data" key sets it apart from other
// producers' session headers (pi's, for one, has none).
func (Dialect) Sniff(line []byte) bool {
	r := jsonobj.View(line) // read in place: a sniffer keeps nothing, and a first line may be huge
	return r.IsObject() && r.Get("type").Str == "session" && r.Get("data").IsObject() &&
		r.Get("id").Type == gjson.String && !r.Get("seq").Exists()
}

// NewDecoder implements dialect.Dialect.
func (Dialect) NewDecoder(opts dialect.DecodeOptions) dialect.Decoder { return newDecoder(opts) }

// NewChecker implements dialect.Dialect.
func (Dialect) NewChecker(dialect.CheckOptions) dialect.Checker { return newChecker() }

// The frame's line types, and the part types of opencode's MessageV2.Part
// union (packages/opencode/src/session/message-v2.ts).
var (
	lineTypes = map[string]bool{"session": true, "message": true, "part": true, "todo": true}
	partTypes = map[string]bool{
		"text": true, "reasoning": true, "tool": true, "step-start": true, "step-finish": true,
		"file": true, "agent": true, "subtask": true, "snapshot": true, "patch": true,
		"retry": true, "compaction": true,
	}
)
