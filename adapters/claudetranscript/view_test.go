package claudetranscript

import (
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

// The shortcut for Claude Code's own timestamps gives what parsing does.
func TestCanonicalTimeShortcut(t *testing.T) {
	for _, ts := range []string{"2025-09-03T00:47:19.293Z", "2025-12-31T23:59:59.999Z", "2024-02-29T12:00:00.000Z"} {
		if !claudeTime(ts) {
			t.Fatalf("%s: not taken for Claude Code's shape", ts)
		}
		p, err := time.Parse(time.RFC3339Nano, ts)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := canonicalTime(ts), p.UTC().Format("2006-01-02T15:04:05.000000Z"); got != want {
			t.Errorf("canonicalTime(%s) = %s, want %s", ts, got, want)
		}
	}
	for _, ts := range []string{"2025-09-03T00:47:19.29Z", "2025-09-03T00:47:19.293+00:00", "2025-09-03 00:47:19.293Z", "2025-09-03T00:47:19,293Z"} {
		if claudeTime(ts) {
			t.Errorf("%s: taken", ts)
		}
	}
}

// fields finds what gjson's Get finds: the first of a repeated key,
// escaped keys and values, nested paths, and nothing on a line of none.
func TestFieldsAgreeWithGjson(t *testing.T) {
	line := `{"type":"assistant","a\"b":1,"type":"user","message":{"id":"m","content":[{"type":"text","text":"x\n\u00e9"}],"usage":{"output_tokens":7}},"n":1.50,"t":true,"x":null,"toolUseResult":{"agentId":"ag"}}`
	r := gjson.Parse(line)
	var f fields
	f.reset(r)
	for _, p := range []string{"type", `a"b`, "message", "message.id", "message.content", "message.usage", "message.usage.output_tokens", "n", "t", "x", "missing", "toolUseResult.agentId", "message.missing"} {
		got, want := f.Get(p), r.Get(p)
		if p == `a"b` {
			want = r.Get(`a"b`)
		}
		if got.Type != want.Type || got.Str != want.Str || got.Raw != want.Raw || got.Num != want.Num {
			t.Errorf("Get(%q) = %+v, want %+v", p, got, want)
		}
	}
	var none *fields
	if none.Get("type").Exists() || none.Get("message.id").Exists() {
		t.Error("a nil fields has members")
	}
	var texts []string
	eachBlock(f.Get("message.content"), func(b *fields) bool {
		texts = append(texts, b.Get("text").Str)
		return true
	})
	if len(texts) != 1 || texts[0] != "x\né" {
		t.Errorf("eachBlock: %q", texts)
	}
}
