// Package toolkind finds the canonical kind of a tool call from the tool's
// name, for dialects that name tools by what they do but state no kind.
package toolkind

import (
	"strings"

	"github.com/evtool/evtool/event"
)

// ByName returns the kind table gives the tool name, matched without case;
// an MCP tool, "<server>/<tool>", is known by its last part. A name the
// table lacks is event.KindOther.
func ByName(table map[string]event.ToolKind, name string) event.ToolKind {
	n := strings.ToLower(name)
	if i := strings.LastIndexByte(n, '/'); i >= 0 {
		n = n[i+1:]
	}
	if k, ok := table[n]; ok {
		return k
	}
	return event.KindOther
}
