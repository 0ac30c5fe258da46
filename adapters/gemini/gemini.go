// Package gemini reads and writes the event stream of Gemini CLI in
// headless mode, `gemini -p "<prompt>" --output-format stream-json`.
//
// Gemini CLI writes one compact JSON object per line, tagged on "type",
// with a "timestamp" (ISO 8601 UTC with milliseconds) on every line. Six
// types exist (init, message, tool_use, tool_result, error, result); one
// process is one user turn, and result ends both. The adapter is built
// from the published TypeScript types of @google/gemini-cli-core (0.61.0)
// and the history of their changes since 0.11.0: no public real capture
// of the stream exists, so its tests use streams written from those types.
//
// stdout is not guaranteed clean: start-up banners and warnings can appear
// on it, once glued to the first object. Such a line is not JSON; package
// stream reports it (json/syntax) and reads on, so the lines around it are
// still decoded.
package gemini

import (
	"bufio"
	_ "embed"
	"slices"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/tidwall/gjson"
)

// Name is the dialect's name.
const Name = "gemini"

func init() { dialect.Register(Dialect{}) }

// Dialect is the Gemini CLI stream-json dialect.
type Dialect struct{ dialect.Described[Dialect] }

// About implements dialect.Describer.
func (Dialect) About() dialect.About {
	return dialect.About{
		Name:        Name,
		Agent:       "gemini-cli",
		Description: "Gemini CLI gemini -p … --output-format stream-json (0.11–0.61; from the published types, no real capture)",
		Schema:      schemaJSON,
		Rules:       &rules,
		Losses:      losses,
		// Defaults names the facts the gemini encoder takes from --default (or
		// --session-id) when the source lacks them: init's session_id and model,
		// which Gemini CLI always writes.
		Defaults: []dialect.DefaultKey{dialect.DefaultModel, dialect.DefaultSessionID},
	}
}

//go:embed gemini.schema.json
var schemaJSON []byte

// Sniff accepts an init line, and a user or assistant message line: the
// first JSON line of a stream whose init was glued to a banner (and so is
// not JSON) is the user's message. Lines with seq are another dialect's.
func (Dialect) Sniff(line []byte) bool {
	r := jsonobj.View(line) // read in place: a sniffer keeps nothing, and a first line may be huge
	if !r.IsObject() || r.Get("seq").Exists() {
		return false
	}
	switch r.Get("type").Str {
	case "init":
		return r.Get("session_id").Type == gjson.String || r.Get("model").Type == gjson.String
	case "message":
		role := r.Get("role").Str
		return (role == "user" || role == "assistant") && r.Get("content").Type == gjson.String &&
			r.Get("timestamp").Type == gjson.String
	}
	return false
}

// NewDecoder implements dialect.Dialect.
func (Dialect) NewDecoder(opts dialect.DecodeOptions) dialect.Decoder {
	return &Decoder{opts: opts}
}

// NewEncoder implements dialect.Dialect.
func (Dialect) NewEncoder(w *bufio.Writer, opts dialect.EncodeOptions) dialect.Encoder {
	e := &Encoder{w: w, opts: opts}
	e.l.Spill.W = w // a long text goes straight to the output
	return e
}

// NewChecker implements dialect.Dialect.
func (Dialect) NewChecker(dialect.CheckOptions) dialect.Checker { return newChecker() }

// fields lists the keys of every known type in the order Gemini CLI
// writes them, after the leading "type" (JSON.stringify keeps the order
// in which the runner builds each object).
var fields = map[string][]string{
	"init":        {"timestamp", "session_id", "model"},
	"message":     {"timestamp", "role", "content", "delta"},
	"tool_use":    {"timestamp", "tool_name", "tool_id", "parameters"},
	"tool_result": {"timestamp", "tool_id", "status", "output", "error"},
	"error":       {"timestamp", "severity", "message"},
	"result":      {"timestamp", "status", "error", "stats"},
}

// statsFields are the keys of StreamStats in the producer's order; the
// first five are also the keys of ModelStreamStats.
var statsFields = []string{"total_tokens", "input_tokens", "output_tokens", "cached", "input", "duration_ms", "tool_calls", "models"}

// modelFields are the keys of ModelStreamStats.
var modelFields = statsFields[:5]

// errorFields are the keys of the error object of tool_result and result.
var errorFields = []string{"type", "message"}

// Types returns the six known event types.
func Types() []string {
	return []string{"init", "message", "tool_use", "tool_result", "error", "result"}
}

// Fields returns the keys of a known type in the producer's order, without
// "type", or nil for an unknown type.
func Fields(typ string) []string { return append([]string(nil), fields[typ]...) }

func knownField(t, k string) bool { return k == "type" || slices.Contains(fields[t], k) }
