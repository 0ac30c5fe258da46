// Package adapters links every dialect into the registry of package
// dialect. Import it for its side effect; a new dialect adds one line here.
package adapters

import (
	_ "github.com/evtool/evtool/adapters/acp"              // Agent Client Protocol v1 (a projection)
	_ "github.com/evtool/evtool/adapters/basis"            // basis spawn --json
	_ "github.com/evtool/evtool/adapters/canonical"        // evtool's own model
	_ "github.com/evtool/evtool/adapters/claude"           // claude -p --output-format stream-json
	_ "github.com/evtool/evtool/adapters/claudetranscript" // Claude Code's session transcripts on disk (~/.claude/projects), read-only
	_ "github.com/evtool/evtool/adapters/codex"            // codex exec --json (OpenAI Codex)
	_ "github.com/evtool/evtool/adapters/codexrollout"     // Codex's rollouts on disk (sessions/…/rollout-*.jsonl[.zst])
	_ "github.com/evtool/evtool/adapters/gemini"           // gemini -p … --output-format stream-json
	_ "github.com/evtool/evtool/adapters/geminichat"       // Gemini CLI's chats on disk (JSONL from 0.39, session-*.json before)
	_ "github.com/evtool/evtool/adapters/mermaid"          // mermaid run --format ndjson
	_ "github.com/evtool/evtool/adapters/muse"             // muse exec --json
	_ "github.com/evtool/evtool/adapters/opencode"         // opencode run --format json (and its server bus)
	_ "github.com/evtool/evtool/adapters/opencodestorage"  // opencode's sessions on disk: opencode.db, or the JSON storage before 1.2
)
