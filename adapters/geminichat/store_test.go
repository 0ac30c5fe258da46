package geminichat_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evtool/evtool/adapters/geminichat"
	"github.com/evtool/evtool/adapters/internal/adaptertest"
	"github.com/evtool/evtool/adapters/internal/storetest"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/dialecttest"
	"github.com/evtool/evtool/sessions"
	"github.com/evtool/evtool/stats"
	"github.com/evtool/evtool/stream"
)

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func readFile(t *testing.T, p string) []byte { return adaptertest.ReadFile(t, p) }

func write(t *testing.T, p string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Session ids of the chats in the tree.
const (
	idApp    = "3e4f5a6b-3333-4d5e-8f90-a1b2c3d4e5f6" // testdata/subagent.jsonl, with its subagent
	idAgent  = "6f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9"
	idLegacy = "5e6f7a8b-7777-4f60-b1c2-d3e4f5a6b7c8" // testdata/store/legacy-session.json
	idLib    = "7d3c2a10-5b4e-4f6a-9c8d-1e2f3a4b5c6d" // testdata/turns.jsonl
	idOther  = "0b9e8d7c-2222-4c3b-9d4e-5f6a7b8c9d0e" // testdata/rewind.jsonl
	idOne    = "5e6f7a8b-5555-4f60-b1c2-d3e4f5a6b7c8" // testdata/legacy_oneline.jsonl, as a .json
	idMoved  = "9a8b7c6d-4444-4e5f-a0b1-c2d3e4f5a6b7" // testdata/history.jsonl, beside a .json it replaced
	idOrphan = "d0d0d0d0-0000-4000-8000-00000000000f"
)

// tree lays out a Gemini CLI home under a temporary directory: a slug
// project and two hash projects (one registered, one not, from before
// 0.29), one registered by its .project_root marker only, legacy and
// JSONL chats, subagents, and files that are no chats. It returns the
// home (for GEMINI_CLI_HOME).
func tree(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	g := filepath.Join(home, ".gemini")
	write(t, filepath.Join(g, "projects.json"), []byte(`{
  "projects": {
    "/home/dev/app": "app",
    "/home/dev/lib": "lib"
  }
}`))
	tmp := filepath.Join(g, "tmp")
	// The subagent stream is the app's chat, then its subagent's chat.
	sub := string(readFile(t, filepath.Join("testdata", "subagent.jsonl")))
	i := strings.Index(sub, `{"sessionId":"`+idAgent)
	app := filepath.Join(tmp, "app", "chats")
	write(t, filepath.Join(app, "session-2026-05-04T08-30-3e4f5a6b.jsonl"), []byte(sub[:i]))
	write(t, filepath.Join(app, idApp, idAgent+".jsonl"), []byte(sub[i:]))
	// A legacy chat that 0.39 resumed: the .jsonl goes on from it.
	hist := readFile(t, filepath.Join("testdata", "history.jsonl"))
	write(t, filepath.Join(app, "session-2026-05-05T11-00-9a8b7c6d.json"), []byte(`{"sessionId":"`+idMoved+`","projectHash":"x","messages":[]}`))
	write(t, filepath.Join(app, "session-2026-05-05T11-00-9a8b7c6d.jsonl"), hist)
	// Files that are no chats.
	write(t, filepath.Join(app, "session-2026-05-05T11-00-9a8b7c6d.jsonl.tmp-4242"), []byte("{}\n"))
	write(t, filepath.Join(app, "notes.txt"), []byte("hello\n"))
	write(t, filepath.Join(app, "empty.jsonl"), nil)
	write(t, filepath.Join(app, "torn.jsonl"), []byte(`{"id":"x","type":"user"}`+"\n"))
	// A subagent whose parent's chat is gone.
	write(t, filepath.Join(app, "deadbeef", idOrphan+".jsonl"), []byte(strings.Replace(sub[i:], idAgent, idOrphan, 1)))

	// A project named by its hash before 0.29, never registered: its
	// directory cannot be told. A legacy chat, pretty-printed.
	old := filepath.Join(tmp, sha("/home/dev/old"), "chats")
	write(t, filepath.Join(old, "session-2025-11-20T10-00-5e6f7a8b.json"), readFile(t, filepath.Join("testdata", "store", "legacy-session.json")))
	// A legacy chat written compactly, on one line.
	write(t, filepath.Join(old, "session-2025-11-20T10-00-5e6f7a8c.json"), bytes.TrimSpace(readFile(t, filepath.Join("testdata", "legacy_oneline.jsonl"))))

	// A project named by its hash that the registry knows by its path.
	lib := filepath.Join(tmp, sha("/home/dev/lib"), "chats")
	turns := strings.Replace(string(readFile(t, filepath.Join("testdata", "turns.jsonl"))), "2c7e4f0c9a1b8d3e5f60718293a4b5c6d7e8f90112233445566778899aabbccd", sha("/home/dev/lib"), 1)
	write(t, filepath.Join(lib, "session-2026-05-02T09-14-7d3c2a10.jsonl"), []byte(turns))

	// A slug the registry lacks, with its ownership marker.
	other := filepath.Join(tmp, "other")
	write(t, filepath.Join(other, ".project_root"), []byte("/home/dev/other\n"))
	write(t, filepath.Join(other, "chats", "session-2026-05-03T16-00-0b9e8d7c.jsonl"), readFile(t, filepath.Join("testdata", "rewind.jsonl")))
	write(t, filepath.Join(tmp, "bin", "rg"), []byte("binary"))
	return home
}

func scanAll(t *testing.T, root string) map[string]sessions.Ref {
	t.Helper()
	refs := map[string]sessions.Ref{}
	for _, r := range storetest.Scan(t, geminichat.Store{}, root) {
		if _, dup := refs[r.ID]; dup {
			t.Errorf("session %s found twice", r.ID)
		}
		refs[r.ID] = r
	}
	return refs
}

func open(t *testing.T, r sessions.Ref) string { return storetest.Open(t, geminichat.Store{}, r) }

// TestStore finds and opens every session of a Gemini CLI home, and
// changes no file: no byte, no time, no new file.
func TestStore(t *testing.T) {
	home := tree(t)
	t.Setenv("GEMINI_CLI_HOME", home)
	before := storetest.Take(t, home)
	s := geminichat.Store{}
	roots := s.Roots()
	if want := filepath.Join(home, ".gemini", "tmp"); len(roots) != 1 || roots[0] != want {
		t.Fatalf("roots %v, want [%s]: GEMINI_CLI_HOME stands for the home, .gemini is under it", roots, want)
	}
	if s.Agent() != "gemini-cli" || s.Dialect() != geminichat.Name {
		t.Errorf("agent %q dialect %q", s.Agent(), s.Dialect())
	}
	if st, ok := sessions.Lookup("gemini-cli"); !ok || st.Dialect() != geminichat.Name {
		t.Error("the store is not registered")
	}
	refs := scanAll(t, roots[0])
	want := []string{idApp, idMoved, idOrphan, idLegacy, idOne, idLib, idOther}
	if len(refs) != len(want) {
		t.Errorf("%d sessions, want %d: %v", len(refs), len(want), refs)
	}
	for _, id := range want {
		if _, ok := refs[id]; !ok {
			t.Errorf("session %s not found", id)
		}
	}
	app := refs[idApp]
	if len(app.Parts) != 1 || filepath.Base(app.Parts[0]) != idAgent+".jsonl" {
		t.Errorf("app parts %v, want its subagent's chat", app.Parts)
	}
	main, part := readFile(t, app.Path), readFile(t, app.Parts[0])
	if app.Size != int64(len(main)+len(part)) || app.Modified.IsZero() {
		t.Errorf("app size %d modified %v", app.Size, app.Modified)
	}
	if got := refs[idMoved].Path; !strings.HasSuffix(got, ".jsonl") {
		t.Errorf("a legacy chat and its .jsonl continuation: %s, want the .jsonl", got)
	}

	// Open: the lines as they are, the session's metadata naming its
	// project's directory when the registry does.
	for _, c := range []struct{ id, root, stream string }{
		{idApp, "/home/dev/app", "subagent.jsonl"},   // by the slug
		{idLib, "/home/dev/lib", ""},                 // by the hash of its path
		{idOther, "/home/dev/other", "rewind.jsonl"}, // by the marker
		{idLegacy, "", "legacy_lines.jsonl"},         // unknown: none made up
		{idOne, "", "legacy_oneline_lines"},          // compact legacy document
		{idOrphan, "", ""},
	} {
		got := open(t, refs[c.id])
		first, rest, _ := strings.Cut(got, "\n")
		member := `,"$evtool":{"projectRoot":"` + c.root + `"}}`
		switch {
		case c.root == "" && strings.Contains(first, "$evtool"):
			t.Errorf("%s: a project root made up: %s", c.id, first)
		case c.root != "" && !strings.HasSuffix(first, member):
			t.Errorf("%s: metadata %s, want it to end with %s", c.id, first, member)
		}
		switch c.stream {
		case "":
		case "legacy_oneline_lines":
			want := `{"sessionId":"` + idOne + `","projectHash":"2c7e4f0c9a1b8d3e5f60718293a4b5c6d7e8f90112233445566778899aabbccd","startTime":"2025-11-20T10:00:00.000Z","lastUpdated":"2025-11-20T10:00:09.000Z","summary":"Greeting"}`
			if first != want || len(dialecttest.Lines(rest)) != 2 {
				t.Errorf("compact legacy chat:\n%s", got)
			}
		default:
			want := string(readFile(t, filepath.Join("testdata", c.stream)))
			if c.root != "" {
				want = strings.Replace(want, "}\n", member+"\n", 1) // the first line's closing brace
			}
			if got != want {
				t.Errorf("%s: Open gives\n%s\nwant\n%s", c.id, got, want)
			}
		}
		// Every session reads without a bad line.
		run, err := stats.Read(strings.NewReader(got), c.id, stats.Options{Stream: stream.Options{Dialect: geminichat.Dialect{}}})
		if err != nil || run.BadLines != 0 || run.SessionID != c.id || run.Workspace != c.root {
			t.Errorf("%s: read %d bad lines, session %q, workspace %q, err %v", c.id, run.BadLines, run.SessionID, run.Workspace, err)
		}
	}

	// Every form of root finds the same sessions.
	for _, root := range []string{
		filepath.Join(home, ".gemini"),
		filepath.Join(roots[0], "app"),
		filepath.Join(roots[0], "app", "chats"),
	} {
		got := scanAll(t, root)
		if _, ok := got[idApp]; !ok || len(got[idApp].Parts) != 1 {
			t.Errorf("%s: %v", root, got)
		}
	}
	one := scanAll(t, app.Path)
	if len(one) != 1 || len(one[idApp].Parts) != 1 {
		t.Errorf("a chat file as root: %v, want its session with its subagent", one)
	}
	if got := scanAll(t, filepath.Join(roots[0], "app", "chats", "notes.txt")); len(got) != 0 {
		t.Errorf("a file that is no chat: %v", got)
	}
	if err := s.Scan(context.Background(), filepath.Join(home, "nowhere"), func(sessions.Ref) error { return nil }); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a root that does not exist: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.Scan(ctx, roots[0], func(sessions.Ref) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled scan: %v", err)
	}
	stop := errors.New("stop")
	if err := s.Scan(context.Background(), roots[0], func(sessions.Ref) error { return stop }); !errors.Is(err, stop) {
		t.Errorf("found's error: %v", err)
	}
	if _, err := s.Open(sessions.Ref{Path: filepath.Join(home, "gone.jsonl")}); err == nil {
		t.Error("opened a file that does not exist")
	}

	before.Unchanged(t, home)
}

// TestStoreClose: closing a session before reading it all stops the
// reading.
func TestStoreClose(t *testing.T) {
	home := tree(t)
	t.Setenv("GEMINI_CLI_HOME", home)
	refs := scanAll(t, geminichat.Store{}.Roots()[0])
	rc, err := geminichat.Store{}.Open(refs[idLegacy])
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 10)
	if _, err := io.ReadFull(rc, buf); err != nil {
		t.Fatal(err)
	}
	if err := rc.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestRootsWithoutEnv: without GEMINI_CLI_HOME, the user's home.
func TestRootsWithoutEnv(t *testing.T) {
	t.Setenv("GEMINI_CLI_HOME", "")
	home := t.TempDir()
	t.Setenv("HOME", home)
	if got := (geminichat.Store{}).Roots(); len(got) != 1 || got[0] != filepath.Join(home, ".gemini", "tmp") {
		t.Errorf("roots %v", got)
	}
}

// TestLegacyLinesRead: the lines Open makes of a legacy chat are a chat
// of the dialect, which sniffs as it.
func TestLegacyLinesRead(t *testing.T) {
	lines := dialecttest.ReadLines(t, filepath.Join("testdata", "legacy_lines.jsonl"))
	if d, ok := dialect.Detect([]byte(lines[0])); !ok || d.Name() != geminichat.Name {
		t.Errorf("the metadata line is detected as %v", d)
	}
	dialecttest.Accepted(t, geminichat.Dialect{}, strings.Join(lines, "\n")+"\n")
}
