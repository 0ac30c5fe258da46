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
	"fmt"
	"slices"

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
type Dialect struct{ dialect.Described[Dialect] }

// About implements dialect.Describer.
func (Dialect) About() dialect.About {
	return dialect.About{
		Name:        Name,
		Description: "Agent Client Protocol v1 session/update JSON-RPC (profiles: stable, unstable, basis)",
		Schema:      schemaJSON,
		Rules:       &rules,
		Losses:      losses,
		// Defaults names the facts the acp encoder takes from --default (or
		// --session-id) when the source lacks them, instead of leaving them empty.
		Defaults: []dialect.DefaultKey{dialect.DefaultSessionID},
	}
}

//go:embed acp.schema.json
var schemaJSON []byte

// Sniff accepts a JSON-RPC 2.0 message.
func (Dialect) Sniff(line []byte) bool { return gjson.GetBytes(line, "jsonrpc").Str == "2.0" }

// NewDecoder implements dialect.Dialect.
func (Dialect) NewDecoder(opts dialect.DecodeOptions) dialect.Decoder { return newDecoder(opts) }

// Config is what the acp encoder writes: its settings as a target
// (dialect.Configurable).
type Config struct {
	// Profile is the projection: Stable (the default), Unstable or Basis.
	Profile string
	// Meta keeps every event whole under _meta, so nothing is lost.
	Meta bool
	// Transcript writes both sides of the conversation: the client's
	// session/prompt requests as well as the agent's updates.
	Transcript bool
}

// Profiles lists the profiles Config.Profile takes.
var Profiles = []string{Stable, Unstable, Basis}

// Validate implements dialect.Config. A nil *Config is the default.
func (c *Config) Validate() error {
	if c == nil {
		return nil
	}
	if !slices.Contains(Profiles, c.Profile) {
		return fmt.Errorf("profile %q: want stable, unstable or basis", c.Profile)
	}
	return nil
}

// DefaultConfig implements dialect.Configurable: the stable profile, no
// _meta, the agent's side only.
func (Dialect) DefaultConfig() dialect.Config { return &Config{Profile: Stable} }

// NewEncoder implements dialect.Dialect. opts.Config is a *Config (nil: the
// default); the session id falls back to opts.Defaults.SessionID, then to
// DefaultSessionID.
func (Dialect) NewEncoder(w *bufio.Writer, opts dialect.EncodeOptions) dialect.Encoder {
	return newEncoder(w, opts)
}

// OpenEnded implements dialect.OpenEnded: an ACP session stays open for
// the next prompt, and the encoder closes the tool calls a recording cut
// short leaves open.
func (Dialect) OpenEnded() {}

// NewChecker implements dialect.Dialect.
func (Dialect) NewChecker(dialect.CheckOptions) dialect.Checker { return newChecker() }
