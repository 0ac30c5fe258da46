package claudetranscript_test

import (
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/evtool/evtool/adapters/claudetranscript"
	"github.com/evtool/evtool/adapters/internal/storetest"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/sessions"
)

// The directory fixture testdata/store holds two config directories:
// config-a with a 1.0 session (subagents inline) and a 2.0 session (its
// agents' files beside it, one ending without a newline; an agent file of
// another session, whose file is gone; a file of metadata only), config-b
// with a 2.1 session (subagents/ with a sidecar, and a nested workflow
// agent) and a resumed session's file, named by the new session, that
// begins with the old one's lines. The 2.0 and 2.1 sessions are the streams
// v2_0_agent_files.jsonl and v2_1_subagents.jsonl cut into their files.

// TestStore scans and opens the 1.0, 2.0 and 2.1 layouts from
// CLAUDE_CONFIG_DIR, and checks that nothing in the tree changed.
func TestStore(t *testing.T) {
	dir := t.TempDir()
	storetest.CopyTree(t, filepath.Join("testdata", "store"), dir, 0o644)
	times := storetest.SpreadTimes(t, dir)
	before := storetest.Take(t, dir)
	a, b := filepath.Join(dir, "config-a"), filepath.Join(dir, "config-b")
	t.Setenv("CLAUDE_CONFIG_DIR", a+", "+b+",")

	s, ok := sessions.Lookup("claude-code")
	if !ok {
		t.Fatal("no store registered for claude")
	}
	if s.Dialect() != claudetranscript.Name || s.Agent() != "claude-code" {
		t.Fatalf("store %s/%s", s.Agent(), s.Dialect())
	}
	if got, want := s.Roots(), []string{filepath.Join(a, "projects"), filepath.Join(b, "projects")}; !slices.Equal(got, want) {
		t.Fatalf("Roots() = %q, want %q", got, want)
	}

	var refs []sessions.Ref
	for _, root := range s.Roots() {
		refs = append(refs, storetest.Scan(t, s, root)...)
	}
	shop := filepath.Join(a, "projects", "-home-dev-shop")
	api := filepath.Join(b, "projects", "-home-dev-api")
	sub := filepath.Join(api, "0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f", "subagents")
	want := []sessions.Ref{
		{Agent: "claude-code", ID: "3f2a9c1e-5b7d-4e8a-9c0f-1a2b3c4d5e6f",
			Path: filepath.Join(a, "projects", "-home-dev-parser", "3f2a9c1e-5b7d-4e8a-9c0f-1a2b3c4d5e6f.jsonl")},
		{Agent: "claude-code", ID: "7a7a7a7a-2020-4000-8000-0000000000aa", Path: filepath.Join(shop, "7a7a7a7a-2020-4000-8000-0000000000aa.jsonl"),
			Parts: []string{filepath.Join(shop, "agent-a1b2c3d4.jsonl"), filepath.Join(shop, "agent-feedbeef.jsonl")}},
		// The agent file of a session whose file is gone: what is left of
		// that session, named by the session its lines name.
		{Agent: "claude-code", ID: "99999999-0000-4000-8000-000000000099", Path: filepath.Join(shop, "agent-0badc0de.jsonl")},
		{Agent: "claude-code", ID: "0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f", Path: filepath.Join(api, "0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f.jsonl"),
			Parts: []string{filepath.Join(sub, "agent-a0ad4f44468bdf20d.jsonl"), filepath.Join(sub, "workflows", "run-1", "agent-b5b5b5b5b5b5b5b5b.jsonl")}},
		// Its id is its file's name, which claude --resume takes, not
		// that of its first lines (the session it resumes).
		{Agent: "claude-code", ID: "b2b2b2b2-0000-4000-8000-000000000002", Path: filepath.Join(api, "b2b2b2b2-0000-4000-8000-000000000002.jsonl")},
	}
	if len(refs) != len(want) {
		t.Fatalf("found %d sessions, want %d: %v", len(refs), len(want), refs)
	}
	for i, r := range refs {
		w := want[i]
		if r.Agent != w.Agent || r.ID != w.ID || r.Path != w.Path || !slices.Equal(r.Parts, w.Parts) {
			t.Errorf("session %d:\n got %+v\nwant %+v", i, r, w)
		}
		var size int64
		var mod time.Time
		for _, f := range append([]string{w.Path}, w.Parts...) {
			st, err := os.Stat(f)
			if err != nil {
				t.Fatal(err)
			}
			size += st.Size()
			if times[f].After(mod) {
				mod = times[f]
			}
		}
		if r.Size != size || !r.Modified.Equal(mod) {
			t.Errorf("session %s: size %d, modified %v; want %d, %v", r.ID, r.Size, r.Modified, size, mod)
		}
	}

	// Open gives the session's files one after the other: the 2.0
	// session reads back as the stream it was cut from (a newline put
	// after the part that lacks one), and decodes with its subagents
	// linked to their Task calls.
	for _, c := range []struct {
		ref    sessions.Ref
		stream string
	}{{refs[0], "v1_0_inline_sidechain.jsonl"}, {refs[1], "v2_0_agent_files.jsonl"}, {refs[4], "resume_duplicates.jsonl"}} {
		wantBytes, err := os.ReadFile(filepath.Join("testdata", c.stream))
		if err != nil {
			t.Fatal(err)
		}
		if got := storetest.Open(t, s, c.ref); got != string(wantBytes) {
			t.Errorf("Open(%s) is not %s:\n%s", c.ref.ID, c.stream, got)
		}
	}
	got := storetest.Open(t, s, refs[3])
	v21, err := os.ReadFile(filepath.Join("testdata", "v2_1_subagents.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(got, string(v21)) {
		t.Errorf("Open(2.1) does not begin with v2_1_subagents.jsonl, the session's and its subagent's lines")
	}
	evs := decodeAll(t, got)
	var tasks []string
	for _, ev := range evs {
		if tu, ok := ev.Body.(*event.TaskUpdated); ok {
			tasks = append(tasks, tu.TaskID+" "+string(tu.Status)+" "+tu.ParentTaskID)
		}
	}
	if w := []string{"toolu_01zUNbn0tPF7ZDzFXzN3H4oH running ", "b5b5b5b5b5b5b5b5b running ", "toolu_01zUNbn0tPF7ZDzFXzN3H4oH completed "}; !slices.Equal(tasks, w) {
		t.Errorf("2.1 tasks:\n got %q\nwant %q", tasks, w)
	}

	// The other ways to name a root: a config directory, a project
	// directory, one file; and a root that does not exist.
	if n := len(storetest.Scan(t, s, a)); n != 3 {
		t.Errorf("Scan(config dir) found %d sessions, want 3", n)
	}
	if n := len(storetest.Scan(t, s, shop)); n != 2 {
		t.Errorf("Scan(project dir) found %d sessions, want 2", n)
	}
	if r := storetest.Scan(t, s, want[3].Path); len(r) != 1 || len(r[0].Parts) != 2 {
		t.Errorf("Scan(session file) = %+v", r)
	}
	if r := storetest.Scan(t, s, filepath.Join(dir, "nowhere")); len(r) != 0 {
		t.Errorf("Scan(missing root) = %+v", r)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.Scan(ctx, a, func(sessions.Ref) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("Scan with a cancelled context: %v", err)
	}

	before.Unchanged(t, dir)
}

// TestRoots: without CLAUDE_CONFIG_DIR, ~/.claude and the XDG config
// directory's claude.
func TestRoots(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	t.Setenv("XDG_CONFIG_HOME", "")
	s := claudetranscript.Store{}
	if got, want := s.Roots(), []string{filepath.Join(home, ".claude", "projects"), filepath.Join(home, ".config", "claude", "projects")}; !slices.Equal(got, want) {
		t.Errorf("Roots() = %q, want %q", got, want)
	}
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "xdg"))
	if got, want := s.Roots(), []string{filepath.Join(home, ".claude", "projects"), filepath.Join(home, "xdg", "claude", "projects")}; !slices.Equal(got, want) {
		t.Errorf("Roots() = %q, want %q", got, want)
	}
}

// TestStoreFindsEverySession: no transcript is passed over because of what
// it begins with or because its session's file is gone. A 1.0 file that
// begins with many summary lines, and one whose first line is a prompt of
// 17 MiB, are found; a resumed session's file is named by its own name
// (the id claude --resume takes), not by the session its first lines
// continue; the 2.0 agent files and the 2.1 subagents' directory of a
// session whose file was deleted are a session of their own. A file of
// summaries only is still no session.
func TestStoreFindsEverySession(t *testing.T) {
	const (
		summaries = "5e550000-0000-4000-8000-000000000070"
		long      = "5e550000-0000-4000-8000-000000000017"
		resumed   = "b0b0b0b0-0000-4000-8000-00000000000b"
		old       = "a0a0a0a0-0000-4000-8000-00000000000a"
		gone20    = "dddddddd-0000-4000-8000-0000000000dd"
		gone21    = "eeeeeeee-0000-4000-8000-0000000000ee"
		only      = "0e0e0e0e-0000-4000-8000-00000000000e"
	)
	dir := t.TempDir()
	proj := filepath.Join(dir, "projects", "-home-dev-proj")
	line := func(sid, typ, uuid, content string, extra string) string {
		return `{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/proj","sessionId":"` + sid +
			`","version":"1.0.98","gitBranch":"main",` + extra + `"type":"` + typ + `","message":{"role":"` + typ + `","content":"` + content +
			`"},"uuid":"` + uuid + `","timestamp":"2025-09-01T10:00:00.000Z"}` + "\n"
	}
	write := func(path string, parts ...string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(strings.Join(parts, "")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	summary := `{"type":"summary","summary":"An earlier leaf","leafUuid":"5d5d5d5d-0000-4000-8000-00000000005d"}` + "\n"
	write(filepath.Join(proj, summaries+".jsonl"), strings.Repeat(summary, 70), line(summaries, "user", "u1", "hello", ""))
	write(filepath.Join(proj, long+".jsonl"), line(long, "user", "u2", "Here is the log: "+strings.Repeat("x", 17<<20), ""), line(long, "assistant", "a2", "long", ""))
	write(filepath.Join(proj, resumed+".jsonl"), line(old, "user", "u3", "first", ""), line(resumed, "user", "u4", "again", ""))
	write(filepath.Join(proj, "agent-0rphan00.jsonl"), line(gone20, "user", "u5", "Search", `"agentId":"0rphan00",`))
	write(filepath.Join(proj, gone21, "subagents", "agent-a1.jsonl"), line(gone21, "user", "u6", "Explore", `"agentId":"a1",`))
	write(filepath.Join(proj, gone21, "subagents", "agent-a1.meta.json"), `{"agentType":"Explore"}`)
	write(filepath.Join(proj, only+".jsonl"), summary, summary)

	s := claudetranscript.Store{}
	got := map[string]string{}
	for _, r := range storetest.Scan(t, s, dir) {
		rel, _ := filepath.Rel(proj, r.Path)
		for _, p := range r.Parts {
			q, _ := filepath.Rel(proj, p)
			rel += " + " + q
		}
		got[r.ID] = rel
	}
	want := map[string]string{
		summaries: summaries + ".jsonl",
		long:      long + ".jsonl",
		resumed:   resumed + ".jsonl",
		gone20:    "agent-0rphan00.jsonl",
		gone21:    filepath.Join(gone21, "subagents", "agent-a1.jsonl"),
	}
	if !maps.Equal(got, want) {
		t.Errorf("sessions:\n got %q\nwant %q", got, want)
	}
}
