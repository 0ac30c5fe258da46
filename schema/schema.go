// Package schema embeds evtool's published JSON Schemas.
//
// Each file describes one line of one dialect in JSON Schema draft 2020-12
// and has an $id under BaseURL. The files are products in their own right:
// tools in other languages load them as they are.
package schema

import (
	"embed"
	"io/fs"
)

// BaseURL is the prefix of every schema's $id.
const BaseURL = "https://evtool.github.io/schema/"

//go:embed *.schema.json
var files embed.FS

// FS returns the schema files.
func FS() fs.FS { return files }

// Read returns the schema file of that name, e.g. "basis.schema.json".
func Read(name string) ([]byte, error) { return files.ReadFile(name) }

// Names lists the schema files.
func Names() []string {
	ents, _ := files.ReadDir(".")
	out := make([]string, 0, len(ents))
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}
