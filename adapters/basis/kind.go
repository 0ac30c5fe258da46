package basis

import (
	"strings"

	"github.com/evtool/evtool/event"

	"github.com/tidwall/gjson"
)

// ToolKind returns the ACP ToolKind basis's own ACP mapping gives a tool
// call: by name first, with `spawn` decided by its input, and by mutability
// for any other name.
func ToolKind(name string, mutability event.Mutability, input []byte) event.ToolKind {
	switch name {
	case "spawn":
		v := gjson.GetBytes(input, "input")
		if v.Type != gjson.String {
			return "execute"
		}
		s := strings.TrimSpace(v.Str)
		switch {
		case strings.HasPrefix(s, "!!"):
			return "other"
		case strings.HasPrefix(s, "!"):
			return "execute"
		default:
			return "other"
		}
	case "shell", "bash", "command", "background_command":
		return "execute"
	case "files", "read", "read_file":
		if mutability == event.ReadOnly {
			return "read"
		}
		return "edit"
	case "write", "write_file", "edit", "edit_file", "apply_patch":
		return "edit"
	case "delete", "remove":
		return "delete"
	case "move", "rename":
		return "move"
	case "search", "grep", "glob", "find":
		return "search"
	case "fetch", "web_fetch", "http":
		return "fetch"
	case "think", "load_skill":
		return "think"
	}
	switch mutability {
	case event.ReadOnly:
		return event.KindRead
	case event.Mutating:
		return event.KindEdit
	}
	return event.KindOther
}
