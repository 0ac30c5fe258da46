package sessions_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/internal/testkit/teststreams"
	"github.com/evtool/evtool/prices"
	"github.com/evtool/evtool/sessions"
)

// TestMixedDirectory lists a directory that is no agent's layout, holding
// the shared on-disk captures of three agents side by side under other
// names than the agents give them. Each file must be found by its own
// agent's store alone: a Gemini chat's header names a sessionId, as a
// Claude transcript's lines do, and must not pass for one; a rollout
// renamed by a collector is still a rollout.
func TestMixedDirectory(t *testing.T) {
	captures := filepath.Join(teststreams.Root(), "..", "shared", "ondisk", "captures")
	if _, err := os.Stat(captures); err != nil {
		t.Skipf("shared captures not found: %v", err)
	}
	dir := t.TempDir()
	for _, sub := range []string{"claude-code", "codex", "gemini-cli"} {
		ms, _ := filepath.Glob(filepath.Join(captures, sub, "*.jsonl"))
		for _, m := range ms {
			b, err := os.ReadFile(m)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, filepath.Base(m)), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	table, err := prices.Default()
	if err != nil {
		t.Fatal(err)
	}
	var unpriced []string
	list, err := sessions.List(context.Background(), []string{dir}, sessions.ListOptions{
		Filter:   sessions.Filter{Agents: []string{"claude-code", "codex", "gemini-cli", "opencode"}},
		Prices:   table,
		Unpriced: func(m string) { unpriced = append(unpriced, m) },
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{ // session id → agent
		"1af7fc5e-8455-4414-9ccd-011d40f70b2a": "claude-code",
		"5c0375b4-57a5-4f26-b12d-d022ee4e51b7": "claude-code",
		"01996135-afde-7911-97f0-d863511eca56": "codex",
		"0ab84937-9fe7-4284-986a-33c832af0b6a": "gemini-cli",
	}
	if len(list) != len(want) {
		for _, s := range list {
			t.Logf("found %s %s %s", s.Agent, s.ID, s.Path)
		}
		t.Fatalf("found %d sessions, want %d", len(list), len(want))
	}
	for _, s := range list {
		if want[s.ID] != s.Agent {
			t.Errorf("session %s found by %q, want %q", s.ID, s.Agent, want[s.ID])
		}
		if s.Err != nil {
			t.Errorf("session %s: %v", s.ID, s.Err)
		}
	}
	// The Claude sessions state no cost: it is their tokens at the
	// embedded table's prices, as `evtool usage` reckons them (0.42430815
	// for both, the shared capture's figure in usage_report's tests).
	costs := map[string]string{}
	for _, s := range list {
		costs[s.ID] = s.CostUSD + " " + s.CostSource
	}
	if got := costs["1af7fc5e-8455-4414-9ccd-011d40f70b2a"]; got != "0.0931572 priced" {
		t.Errorf("cost of 1af7fc5e = %q, want 0.0931572 priced", got)
	}
	if got := costs["5c0375b4-57a5-4f26-b12d-d022ee4e51b7"]; got != "0.33115095 priced" {
		t.Errorf("cost of 5c0375b4 = %q, want 0.33115095 priced", got)
	}
	// Gemini 3's models lack prices in some tables: each is named once,
	// though several sessions and workers meet it.
	seen := map[string]bool{}
	for _, m := range unpriced {
		if seen[m] {
			t.Errorf("model %q reported unpriced more than once", m)
		}
		seen[m] = true
	}
}

// TestAgentNames: an agent is named by its store's name or that name's
// first word, and the usage report names it the same (dialect.AgentOf).
func TestAgentNames(t *testing.T) {
	for in, want := range map[string]string{"claude": "claude-code", "claude-code": "claude-code", "gemini": "gemini-cli", "codex": "codex", "opencode": "opencode"} {
		if got, err := sessions.Agent(in); err != nil || got != want {
			t.Errorf("Agent(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "c", "claude-", "cli", "klingon"} {
		if got, err := sessions.Agent(in); err == nil {
			t.Errorf("Agent(%q) = %q, want an error", in, got)
		}
	}
	for _, s := range sessions.Stores() {
		d, err := dialect.Lookup(s.Dialect())
		if err != nil {
			t.Fatal(err)
		}
		if s.Agent() != "fake" && s.Agent() != "counting" && dialect.AgentOf(d) != s.Agent() {
			t.Errorf("store %s reads %s, whose agent is %s: a session's agent must be one name everywhere", s.Agent(), d.Name(), dialect.AgentOf(d))
		}
	}
}
