package codex_test

import (
	"testing"

	"github.com/evtool/evtool/adapters/acp"
	"github.com/evtool/evtool/adapters/codex"
	"github.com/evtool/evtool/convert"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/dialecttest"
	"github.com/tidwall/gjson"
)

// TestACPProjection projects a codex stream onto ACP: each item type
// shows as the tool kind its vocabulary gives, and the prompt response
// carries the turn's usage (unstable profile).
func TestACPProjection(t *testing.T) {
	to, _ := dialect.Lookup(acp.Name)
	out, _ := convertFile(t, "testdata/written_rust_all_items.jsonl", codex.Dialect{}, to,
		&acp.Config{Profile: acp.Unstable, Transcript: true}, func(le *convert.LineError) { t.Error(le) })
	kinds := map[string]string{}
	var usage string
	for _, l := range dialecttest.Lines(string(out)) {
		u := gjson.Get(l, "params.update")
		if u.Get("sessionUpdate").Str == "tool_call" {
			kinds[u.Get("toolCallId").Str] = u.Get("kind").Str
		}
		if r := gjson.Get(l, "result.usage"); r.Exists() {
			usage = r.Raw
		}
	}
	for id, want := range map[string]string{
		"item_4":  "execute", // command_execution
		"item_5":  "edit",    // file_change
		"item_6":  "search",  // MCP search_docs
		"item_7":  "read",    // MCP get_issue
		"item_8":  "read",    // MCP read_file
		"item_9":  "execute", // a declined command
		"item_10": "other",   // collab spawn_agent
	} {
		if kinds[id] != want {
			t.Errorf("%s shows as %q, want %q", id, kinds[id], want)
		}
	}
	want := `{"totalTokens":86542,"inputTokens":14265,"outputTokens":1621,"cachedReadTokens":69632,"cachedWriteTokens":1024}`
	if usage != want {
		t.Errorf("prompt response usage\n got %s\nwant %s", usage, want)
	}
}
