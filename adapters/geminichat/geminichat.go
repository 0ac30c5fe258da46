// Package geminichat reads the chats Gemini CLI keeps on disk, under
// ~/.gemini/tmp/<project>/chats/, into canonical events. evtool reads the
// dialect and never writes it (dialect.ReadOnly): a line evtool wrote would
// pass for Gemini CLI's own record of a conversation.
//
// Since 0.39 a chat is JSON Lines: a metadata line ({sessionId,
// projectHash, startTime, lastUpdated, kind}), then message records
// ({id, timestamp, type, content, …}), {"$set":{…}} updates of the
// metadata and {"$rewindTo":id} truncations. A record whose id was written
// before replaces the earlier one (Gemini CLI re-appends its last message
// as it learns the response's tokens and tool calls). Up to 0.38 a chat was
// one JSON document, session-<time>-<id8>.json, possibly pretty-printed;
// the Store (see Store.Open) turns such a file into the same lines, so one
// decoder reads both.
//
// The decoder holds the last record until a later line shows it is final
// (another record, a $rewindTo, a subagent's chat, or the end), so that a
// re-appended record is read once, in its last form; it never retracts an
// event: a $rewindTo becomes a branched event. docs/dialects/gemini-chat.md
// gives the mapping and its reasons.
package geminichat

import (
	_ "embed"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/evtool/evtool/sessions"
	"github.com/tidwall/gjson"
)

// Name is the dialect's name.
const Name = "gemini-chat"

func init() {
	dialect.Register(Dialect{})
	sessions.Register(Store{})
}

// Dialect is the dialect of Gemini CLI's on-disk chats.
type Dialect struct {
	dialect.DescribedReadOnly[Dialect]
}

// About implements dialect.Describer.
func (Dialect) About() dialect.About {
	return dialect.About{
		Name:        Name,
		Agent:       "gemini-cli",
		Description: "Gemini CLI chats on disk, ~/.gemini/tmp/<project>/chats/ (JSONL of 0.39+, and session-*.json of 0.1–0.38 through evtool sessions); read-only",
		ReadOnly:    "a Gemini CLI chat is the agent's own record of a conversation, which it reads back to resume it; evtool reads it and never writes one",
		Schema:      schemaJSON,
		Rules:       &rules,
	}
}

//go:embed gemini-chat.schema.json
var schemaJSON []byte

// Sniff accepts the lines a chat can begin with: its metadata line (a
// legacy chat on one line too), and, for a chat read from the middle, a
// message record, a $set or a $rewindTo line. It is strict, for the
// sniffers are tried on every stream: a record must have Gemini CLI's
// vocabulary of types and none of the keys other agents' records have.
func (Dialect) Sniff(line []byte) bool {
	r := jsonobj.View(line) // read in place: a sniffer keeps nothing, and a first line may be huge
	switch classify(r) {
	case lineMeta:
		return jsonobj.Lookup(r, "startTime").Type == gjson.String && !jsonobj.Lookup(r, "type").Exists()
	case lineRecord:
		if !recordTypes[jsonobj.Lookup(r, "type").Str] || jsonobj.Lookup(r, "timestamp").Type != gjson.String ||
			!jsonobj.Lookup(r, "content").Exists() {
			return false
		}
		foreign := false
		jsonobj.ForEach(r, func(k, _ gjson.Result) bool {
			foreign = foreignKeys[k.Str]
			return !foreign
		})
		return !foreign
	case lineSet, lineRewind:
		n := 0
		jsonobj.ForEach(r, func(_, _ gjson.Result) bool { n++; return true })
		return n == 1
	}
	return false
}

// foreignKeys are top-level keys of other agents' records that a Gemini
// CLI message record never has: a record with one is not Gemini's.
var foreignKeys = map[string]bool{
	"uuid": true, "parentUuid": true, "sessionId": true, "session_id": true, "message": true,
	"payload": true, "seq": true, "role": true, "sessionID": true, "properties": true,
}

// NewDecoder implements dialect.Dialect.
func (Dialect) NewDecoder(opts dialect.DecodeOptions) dialect.Decoder { return newDecoder(opts) }

// NewChecker implements dialect.Dialect.
func (Dialect) NewChecker(dialect.CheckOptions) dialect.Checker { return newChecker() }

// lineKind is what a line of a chat is, told as Gemini CLI's own reader
// tells it (loadConversationRecord): by the first of these that fits.
type lineKind int

const (
	lineOther  lineKind = iota // none of the below: kept as unknown
	lineRewind                 // {"$rewindTo": id}
	lineRecord                 // a message record: a string id
	lineSet                    // {"$set": {…}}
	lineMeta                   // the metadata: string sessionId and projectHash
)

// classify tells what a line is, in the order Gemini CLI's reader asks.
func classify(r gjson.Result) lineKind {
	if !r.IsObject() {
		return lineOther
	}
	switch {
	case jsonobj.Lookup(r, "$rewindTo").Type == gjson.String:
		return lineRewind
	case jsonobj.Lookup(r, "id").Type == gjson.String:
		return lineRecord
	case jsonobj.Lookup(r, "$set").IsObject():
		return lineSet
	case jsonobj.Lookup(r, "sessionId").Type == gjson.String && jsonobj.Lookup(r, "projectHash").Type == gjson.String:
		return lineMeta
	}
	return lineOther
}
