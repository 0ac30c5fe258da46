// Package acp projects canonical events onto the Agent Client Protocol
// (ACP, protocol version 1), reads ACP logs back, and replays a recorded
// run to an ACP client.
//
// The output is JSON-RPC 2.0, one message per line: session/update
// notifications and session/request_permission requests, and with the
// transcript option both sides of the conversation (the client's
// session/prompt, the recorded permission answers, and each prompt's
// response). The invariants clients rely on hold by construction: a
// tool_call comes before anything else for its id and only once, every
// open call is closed at the end, updates carry full collections, and
// extensions ride only under a namespaced _meta key.
package acp

import (
	"bufio"
	_ "embed"

	"github.com/evtool/evtool/dialect"
	"github.com/tidwall/gjson"
)

// Name is the dialect's name.
const Name = "acp"

// DefaultSessionID is the session id written when neither a flag nor the
// source names one.
const DefaultSessionID = "evtool-session"

// Profiles of the projection.
const (
	Stable   = "stable"   // stable ACP v1 only (the default)
	Unstable = "unstable" // adds unstable variants where the source has the facts
	Basis    = "basis"    // basis's own mapping (basis-acp update.rs), exactly
)

func init() { dialect.Register(Dialect{}) }

// Dialect is the ACP dialect.
type Dialect struct{}

// Name implements dialect.Dialect.
func (Dialect) Name() string { return Name }

// Description implements dialect.Dialect.
func (Dialect) Description() string {
	return "Agent Client Protocol v1 session/update JSON-RPC (profiles: stable, unstable, basis)"
}

// Schema implements dialect.Dialect: the published schema of one line,
// embedded from this folder.
func (Dialect) Schema() []byte { return schemaJSON }

//go:embed acp.schema.json
var schemaJSON []byte

// Sniff accepts a JSON-RPC 2.0 message.
func (Dialect) Sniff(line []byte) bool { return gjson.GetBytes(line, "jsonrpc").Str == "2.0" }

// NewDecoder implements dialect.Dialect.
func (Dialect) NewDecoder(opts dialect.DecodeOptions) dialect.Decoder { return newDecoder(opts) }

// NewEncoder implements dialect.Dialect. Params: "profile" (stable,
// unstable, basis), "meta" ("true": residue under _meta), "transcript"
// ("true": both sides of the conversation). Defaults: "session_id".
func (Dialect) NewEncoder(w *bufio.Writer, opts dialect.EncodeOptions) dialect.Encoder {
	return newEncoder(w, opts)
}

// NewChecker implements dialect.Dialect.
func (Dialect) NewChecker(dialect.CheckOptions) dialect.Checker { return newChecker() }
