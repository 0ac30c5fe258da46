// Package muse reads and writes the journal of Muse Code's
// `muse exec --json`.
//
// Each line is an envelope (schema_version, id, stream, sequence,
// recorded_at, record_type, durability, causation_id, payload_type,
// payload_schema_version, payload). The envelope is typed; the payload is
// kept raw and lifted on demand into its typed kind (Record.Lift). Reading
// follows Muse's own serde types exactly: keys in any order, unknown keys
// ignored by Muse and kept by evtool, Option fields absent or null,
// integers as integer literals within their Rust type. Unknown payload
// types (whatever the payload holds) and lifecycle events that fit no known
// kind pass through as unknown events.
//
// muse → canonical → muse reproduces every line byte for byte, whatever its
// key order and white space: each canonical event's ext.muse holds only what the
// record the encoder would derive from the event gets wrong, and the
// decoder checks every line by rebuilding it, keeping the whole line in
// ext.muse in the rare case derivation cannot rebuild it.
package muse

import (
	"bufio"
	_ "embed"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/tidwall/gjson"
)

// Name is the dialect's name.
const Name = "muse"

func init() { dialect.Register(Dialect{}) }

// Dialect is the muse dialect.
type Dialect struct{ dialect.Described[Dialect] }

// About implements dialect.Describer.
func (Dialect) About() dialect.About {
	return dialect.About{
		Name:        Name,
		Description: "muse exec --json journal records (schema_version 1)",
		Schema:      schemaJSON,
		Rules:       &rules,
		Losses:      losses,
		// Defaults names the facts the muse encoder takes from --default (or
		// --session-id) when the source lacks them, instead of leaving them empty.
		Defaults: []dialect.DefaultKey{dialect.DefaultSessionID},
	}
}

// DecodeError is a muse value that cannot be read.
type DecodeError = jsonobj.FieldError

//go:embed muse.schema.json
var schemaJSON []byte

// Sniff accepts a line with payload_type and schema_version.
func (Dialect) Sniff(line []byte) bool {
	r := jsonobj.View(line) // read in place: a sniffer keeps nothing, and a first line may be huge
	return r.Get("payload_type").Type == gjson.String && r.Get("schema_version").Exists()
}

// NewDecoder implements dialect.Dialect.
func (Dialect) NewDecoder(opts dialect.DecodeOptions) dialect.Decoder { return &Decoder{opts: opts} }

// NewEncoder implements dialect.Dialect.
func (Dialect) NewEncoder(w *bufio.Writer, opts dialect.EncodeOptions) dialect.Encoder {
	return newEncoder(w, opts)
}

// NewChecker implements dialect.Dialect.
func (Dialect) NewChecker(dialect.CheckOptions) dialect.Checker { return newChecker() }
