// Package ccusagediff compares evtool's usage report with ccusage's, run
// offline on the same files: the shared on-disk captures and histories
// this package generates (Claude Code transcripts, Codex rollouts and
// Gemini CLI chats with the producers' pitfalls: streamed partial lines,
// resumed sessions' repeated lines, re-emitted token counts, re-appended
// messages, several models over several days).
//
// The test runs the ccusage release pinned in package.json (20.0.24, its
// native binary), installed by `npm install` in this folder, which
// follows package-lock.json (`npm ci` refuses the lock: it holds only the
// Linux x64 binary, the one platform package the registry has of
// 20.0.24); make test runs that install, and without it the test fails
// and says how to install it. docs/usage.md keeps
// the table of the differences that remain and which side is right.
package ccusagediff

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// History is what Generate wrote.
type History struct {
	Files []string
}

// GenOptions size a generated history.
type GenOptions struct {
	Seed    uint64
	Claude  int // Claude Code sessions
	Codex   int // Codex rollouts
	Gemini  int // Gemini CLI chats
	Days    int // spread over this many days, from Start
	Start   time.Time
	Resumes int // of the Claude sessions, how many are resumed into a second file
}

// claudeModels are the models the generated transcripts use: each has a
// price in both ccusage's table and evtool's.
var claudeModels = []string{"claude-sonnet-4-20250514", "claude-opus-4-1-20250805", "claude-3-5-haiku-20241022", "claude-sonnet-4-5-20250929"}

// Generate writes a history under home, in each agent's standard layout
// there: home/.claude/projects/…, home/.codex/sessions/YYYY/MM/DD/…,
// home/.gemini/tmp/<project>/chats/….
func Generate(home string, o GenOptions) (*History, error) {
	g := &gen{r: rand.New(rand.NewPCG(o.Seed, o.Seed^0x9e3779b97f4a7c15)), o: o, h: &History{}}
	for i := range o.Claude {
		if err := g.claude(home, i, i < o.Resumes); err != nil {
			return nil, err
		}
	}
	for i := range o.Codex {
		if err := g.codex(home, i); err != nil {
			return nil, err
		}
	}
	for i := range o.Gemini {
		if err := g.gemini(home, i); err != nil {
			return nil, err
		}
	}
	return g.h, nil
}

type gen struct {
	r *rand.Rand
	o GenOptions
	h *History
	n int // ids handed out
}

func (g *gen) id(prefix string) string {
	g.n++
	return fmt.Sprintf("%s%08x%04x", prefix, g.r.Uint32(), g.n)
}

func (g *gen) uuid() string {
	return fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", g.r.Uint32(), g.r.Uint32()&0xffff, g.r.Uint32()&0xfff, g.r.Uint32()&0xfff, g.r.Uint64()&0xffffffffffff)
}

// when is a time on one of the days, at a random minute: some near
// midnight UTC, so that a time zone moves them to another day.
func (g *gen) when(day int) time.Time {
	minute := g.r.IntN(24 * 60)
	if g.r.IntN(5) == 0 {
		minute = 23*60 + 30 + g.r.IntN(30)
	}
	return g.o.Start.AddDate(0, 0, day).Add(time.Duration(minute) * time.Minute).Add(time.Duration(g.r.IntN(60_000)) * time.Millisecond)
}

func ts(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

func writeLines(path string, lines []any) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	var b strings.Builder
	for _, l := range lines {
		j, err := json.Marshal(l)
		if err != nil {
			return err
		}
		b.Write(j)
		b.WriteByte('\n')
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

type obj = map[string]any

// claude writes one Claude Code session: user prompts and API responses,
// each response written as one line per content block with the usage as
// it stood (output_tokens growing; the last line sometimes missing its
// final count), tool calls and their results. A resumed session's second
// file starts by repeating the first file's lines under its own
// sessionId, then goes on.
func (g *gen) claude(home string, i int, resumed bool) error {
	cwd := fmt.Sprintf("/work/project-%d", i%3)
	enc := strings.NewReplacer("/", "-", ".", "-").Replace(cwd)
	dir := filepath.Join(home, ".claude", "projects", enc)
	day := g.r.IntN(max(g.o.Days, 1))
	t := g.when(day)
	sid := g.uuid()
	model := claudeModels[g.r.IntN(len(claudeModels))]
	var lines []any
	parent := any(nil)
	env := func(typ string, extra obj) obj {
		u := g.uuid()
		o := obj{"parentUuid": parent, "isSidechain": false, "userType": "external", "cwd": cwd, "sessionId": sid,
			"version": "2.0.14", "gitBranch": "main", "type": typ, "uuid": u, "timestamp": ts(t)}
		for k, v := range extra {
			o[k] = v
		}
		parent = u
		t = t.Add(time.Duration(500+g.r.IntN(4000)) * time.Millisecond)
		return o
	}
	turns := 2 + g.r.IntN(4)
	for turn := range turns {
		lines = append(lines, env("user", obj{"message": obj{"role": "user", "content": fmt.Sprintf("task %d of session %d", turn, i)}}))
		rounds := 1 + g.r.IntN(3)
		if g.r.IntN(4) == 0 {
			model = claudeModels[g.r.IntN(len(claudeModels))] // /model mid-session
		}
		for round := range rounds {
			msg, req := g.id("msg_01"), g.id("req_011C")
			in := uint64(1 + g.r.IntN(20))
			cr := uint64(g.r.IntN(60_000))
			c5 := uint64(g.r.IntN(8_000))
			c1 := uint64(0)
			if g.r.IntN(3) == 0 {
				c1 = uint64(g.r.IntN(4_000))
			}
			if g.r.IntN(25) == 0 {
				cr = 200_000 + uint64(g.r.IntN(100_000)) // a long context: past the 200k tier
			}
			out := uint64(20 + g.r.IntN(900))
			tool := round < rounds-1
			blocks := []obj{{"type": "text", "text": "working"}}
			if g.r.IntN(2) == 0 {
				blocks = append([]obj{{"type": "thinking", "thinking": "hmm", "signature": "sig"}}, blocks...)
			}
			var callID string
			if tool {
				callID = g.id("toolu_01")
				blocks = append(blocks, obj{"type": "tool_use", "id": callID, "name": []string{"Bash", "Read", "Edit", "Grep"}[g.r.IntN(4)], "input": obj{"x": round}})
			}
			stop := "end_turn"
			if tool {
				stop = "tool_use"
			}
			// The lines of one response: the early ones with a small
			// output count, the last with the final one, unless it was
			// never written (a partial response).
			partial := g.r.IntN(10) == 0
			for bi, b := range blocks {
				last := bi == len(blocks)-1
				o := out
				sr := any(nil)
				if !last || partial {
					o = min(out, uint64(1+g.r.IntN(30)))
				} else {
					sr = stop
				}
				usage := obj{"input_tokens": in, "cache_creation_input_tokens": c5 + c1, "cache_read_input_tokens": cr,
					"cache_creation": obj{"ephemeral_5m_input_tokens": c5, "ephemeral_1h_input_tokens": c1},
					"output_tokens":  o, "service_tier": "standard"}
				lines = append(lines, env("assistant", obj{"requestId": req, "message": obj{"id": msg, "type": "message", "role": "assistant",
					"model": model, "content": []obj{b}, "stop_reason": sr, "stop_sequence": nil, "usage": usage}}))
			}
			if tool {
				isErr := g.r.IntN(6) == 0
				lines = append(lines, env("user", obj{"message": obj{"role": "user", "content": []obj{{"type": "tool_result", "tool_use_id": callID,
					"content": "ok", "is_error": isErr}}}, "toolUseResult": obj{"stdout": "ok"}}))
			}
		}
		t = t.Add(time.Duration(g.r.IntN(90)) * time.Minute)
	}
	first := filepath.Join(dir, sid+".jsonl")
	if err := writeLines(first, lines); err != nil {
		return err
	}
	g.h.Files = append(g.h.Files, first)
	if !resumed {
		return nil
	}
	// claude --resume: a new file whose lines begin with the old ones,
	// replayed under the new session id, then a new turn.
	sid2 := g.uuid()
	var replay []any
	for _, l := range lines {
		o := obj{}
		for k, v := range l.(obj) {
			o[k] = v
		}
		o["sessionId"] = sid2
		replay = append(replay, o)
	}
	sid = sid2
	t = t.Add(time.Duration(1+g.r.IntN(10)) * time.Hour)
	replay = append(replay, env("user", obj{"message": obj{"role": "user", "content": "continue"}}))
	msg, req := g.id("msg_01"), g.id("req_011C")
	replay = append(replay, env("assistant", obj{"requestId": req, "message": obj{"id": msg, "type": "message", "role": "assistant",
		"model": model, "content": []obj{{"type": "text", "text": "done"}}, "stop_reason": "end_turn", "stop_sequence": nil,
		"usage": obj{"input_tokens": 4, "cache_creation_input_tokens": 100, "cache_read_input_tokens": 5000, "output_tokens": 77,
			"cache_creation": obj{"ephemeral_5m_input_tokens": 100, "ephemeral_1h_input_tokens": 0}}}}))
	second := filepath.Join(dir, sid2+".jsonl")
	g.h.Files = append(g.h.Files, second)
	return writeLines(second, replay)
}

// codex writes one Codex rollout: session_meta, turn_context with the
// model, and token_count events whose total_token_usage is cumulative,
// some of them re-emitted with an unchanged total (rate-limit refreshes)
// and some with info null.
func (g *gen) codex(home string, i int) error {
	day := g.r.IntN(max(g.o.Days, 1))
	t := g.when(day)
	id := g.uuid()
	model := []string{"gpt-5", "gpt-5-codex", "gpt-5.1-codex"}[g.r.IntN(3)]
	stamp := t.UTC().Format("2006-01-02T15-04-05")
	path := filepath.Join(home, ".codex", "sessions", t.UTC().Format("2006/01/02"), "rollout-"+stamp+"-"+id+".jsonl")
	var lines []any
	line := func(typ string, payload obj) {
		lines = append(lines, obj{"timestamp": t.UTC().Format("2006-01-02T15:04:05.000Z"), "type": typ, "payload": payload})
		t = t.Add(time.Duration(200+g.r.IntN(3000)) * time.Millisecond)
	}
	line("session_meta", obj{"id": id, "timestamp": ts(t), "cwd": fmt.Sprintf("/work/codex-%d", i%2), "originator": "codex_cli_rs", "cli_version": "0.46.0", "instructions": nil, "source": "cli", "model_provider": "openai"})
	var tot [5]uint64 // input, cached, output, reasoning, total
	turns := 1 + g.r.IntN(3)
	for turn := range turns {
		line("turn_context", obj{"cwd": "/work", "approval_policy": "on-request", "sandbox_policy": obj{"mode": "workspace-write"}, "model": model, "effort": "medium", "summary": "auto"})
		line("event_msg", obj{"type": "user_message", "message": fmt.Sprintf("task %d", turn), "images": []any{}})
		for range 1 + g.r.IntN(3) {
			in := uint64(2000 + g.r.IntN(20000))
			cached := uint64(g.r.IntN(int(in)))
			out := uint64(50 + g.r.IntN(2000))
			reason := uint64(g.r.IntN(int(out)))
			last := [5]uint64{in, cached, out, reason, in + out}
			for k := range tot {
				tot[k] += last[k]
			}
			usage := func(u [5]uint64) obj {
				return obj{"input_tokens": u[0], "cached_input_tokens": u[1], "output_tokens": u[2], "reasoning_output_tokens": u[3], "total_tokens": u[4]}
			}
			callID := g.id("call_")
			line("response_item", obj{"type": "function_call", "name": "shell", "arguments": `{"command":["ls"]}`, "call_id": callID})
			line("response_item", obj{"type": "function_call_output", "call_id": callID, "output": `{"output":"ok","metadata":{"exit_code":0}}`})
			line("event_msg", obj{"type": "token_count", "info": obj{"total_token_usage": usage(tot), "last_token_usage": usage(last), "model_context_window": 272000}, "rate_limits": nil})
			if g.r.IntN(3) == 0 {
				// Re-emitted with an unchanged total.
				line("event_msg", obj{"type": "token_count", "info": obj{"total_token_usage": usage(tot), "last_token_usage": usage(last), "model_context_window": 272000}, "rate_limits": obj{"primary": nil}})
			}
			if g.r.IntN(4) == 0 {
				line("event_msg", obj{"type": "token_count", "info": nil, "rate_limits": obj{"primary": nil}})
			}
		}
		line("event_msg", obj{"type": "agent_message", "message": "done"})
	}
	g.h.Files = append(g.h.Files, path)
	return writeLines(path, lines)
}

// gemini writes one Gemini CLI chat in the JSONL layout of 0.39+: a
// metadata line, then message records; each gemini message is written
// twice (re-appended when updated: the last record of an id wins).
func (g *gen) gemini(home string, i int) error {
	day := g.r.IntN(max(g.o.Days, 1))
	t := g.when(day)
	sid := g.uuid()
	model := []string{"gemini-2.5-pro", "gemini-2.5-flash"}[g.r.IntN(2)]
	path := filepath.Join(home, ".gemini", "tmp", fmt.Sprintf("project-%d", i%2), "chats", "session-"+t.UTC().Format("2006-01-02T15-04")+"-"+sid[:8]+".jsonl")
	lines := []any{obj{"sessionId": sid, "projectHash": fmt.Sprintf("%064x", i), "startTime": ts(t), "lastUpdated": ts(t.Add(time.Hour)), "kind": "main"}}
	for turn := range 1 + g.r.IntN(4) {
		lines = append(lines, obj{"id": g.uuid(), "timestamp": ts(t), "type": "user", "content": []obj{{"text": fmt.Sprintf("task %d", turn)}}})
		t = t.Add(time.Duration(1+g.r.IntN(20)) * time.Second)
		mid := g.uuid()
		in := uint64(1000 + g.r.IntN(30000))
		cached := uint64(g.r.IntN(int(in)))
		out := uint64(10 + g.r.IntN(1500))
		th := uint64(g.r.IntN(800))
		tool := uint64(0)
		tokens := obj{"input": in, "output": out, "cached": cached, "thoughts": th, "tool": tool, "total": in + out + th + tool}
		draft := obj{"id": mid, "timestamp": ts(t), "type": "gemini", "content": "", "model": model,
			"tokens": obj{"input": in, "output": 0, "cached": cached, "thoughts": 0, "tool": 0, "total": in}}
		final := obj{"id": mid, "timestamp": ts(t), "type": "gemini", "content": "done", "model": model, "tokens": tokens, "thoughts": []any{}}
		lines = append(lines, draft, final)
		t = t.Add(time.Duration(g.r.IntN(30)) * time.Minute)
	}
	g.h.Files = append(g.h.Files, path)
	return writeLines(path, lines)
}
