package event

import "strings"

// ToolKind returns the ACP ToolKind for a tool name that says what it does,
// as mermaid's and Muse's tool names do, or "other". (basis's own rule,
// which also weighs mutability and spawn's input, is basis.ToolKind.)
func ToolKind(name string) string {
	n := strings.ToLower(name)
	if i := strings.LastIndexByte(n, '/'); i >= 0 {
		n = n[i+1:] // an MCP tool, "<server>/<tool>"
	}
	switch n {
	case "read_file", "read", "view", "cat", "list_files", "ls", "list_directory":
		return "read"
	case "write_file", "write", "edit", "edit_file", "apply_patch", "patch", "create_directory", "mkdir":
		return "edit"
	case "delete_file", "delete", "remove", "rm":
		return "delete"
	case "move", "move_file", "rename":
		return "move"
	case "search", "grep", "glob", "find", "web_search", "search_files":
		return "search"
	case "execute_command", "bash", "shell", "command", "exec", "run", "background_command", "computer_use":
		return "execute"
	case "web_fetch", "fetch", "http":
		return "fetch"
	case "think", "load_skill":
		return "think"
	case "exit_plan_mode", "enter_plan_mode":
		return "switch_mode"
	}
	return "other"
}
