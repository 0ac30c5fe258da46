// Package schema names evtool's published JSON Schemas.
//
// Each dialect's schema lives in its own folder (adapters/<name>) and is
// embedded from there; the files in this directory are links to them, so
// that tools in other languages find every schema at schema/<name>.schema.json.
// Each file describes one line of one dialect in JSON Schema draft 2020-12
// and has an $id under BaseURL.
package schema

import (
	"fmt"

	"github.com/evtool/evtool/dialect"
)

// BaseURL is the prefix of every schema's $id.
const BaseURL = "https://evtool.github.io/schema/"

// FileName returns the published file name of a dialect's schema.
func FileName(dialectName string) string { return dialectName + ".schema.json" }

// URL returns the $id of a dialect's schema.
func URL(dialectName string) string { return BaseURL + FileName(dialectName) }

// Read returns the schema of the named dialect, e.g. "basis". The dialect
// must be registered (import package adapters).
func Read(dialectName string) ([]byte, error) {
	d, err := dialect.Lookup(dialectName)
	if err != nil {
		return nil, err
	}
	b := d.Schema()
	if len(b) == 0 {
		return nil, fmt.Errorf("dialect %s publishes no schema", dialectName)
	}
	return b, nil
}
