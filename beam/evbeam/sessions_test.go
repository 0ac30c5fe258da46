package evbeam

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/evtool/evtool/sessions"
)

// agentsHome lays out the agents' standard locations in a temporary
// home, from the stores' test data and the real on-disk captures beside
// the repository, and points the environment at it.
func agentsHome(t *testing.T) {
	t.Helper()
	repo, shared := repoRoot(), sharedDir()
	home := t.TempDir()
	cp := func(from, to string) {
		t.Helper()
		err := filepath.WalkDir(from, func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(from, p)
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out := filepath.Join(to, rel)
			if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
				return err
			}
			return os.WriteFile(out, data, 0o644)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	claudeA, claudeB := filepath.Join(home, "claude-a"), filepath.Join(home, "claude-b")
	cp(filepath.Join(repo, "adapters/claudetranscript/testdata/store/config-a"), claudeA)
	cp(filepath.Join(repo, "adapters/claudetranscript/testdata/store/config-b"), claudeB)
	for _, id := range []string{"1af7fc5e-8455-4414-9ccd-011d40f70b2a", "5c0375b4-57a5-4f26-b12d-d022ee4e51b7"} {
		cp(filepath.Join(shared, "ondisk/captures/claude-code/claude-code-viewer_"+id+".jsonl"), filepath.Join(claudeA, "projects/-srv-sample-project", id+".jsonl"))
	}
	codex := filepath.Join(home, "codex")
	cp(filepath.Join(repo, "adapters/codexrollout/testdata/store"), codex)
	cp(filepath.Join(shared, "ondisk/captures/codex/vibecodingtracker_codex-0.39.0_01996135.jsonl"),
		filepath.Join(codex, "sessions/2025/09/19/rollout-2025-09-19T10-00-00-01996135-0000-7000-8000-000000000001.jsonl"))
	gemini := filepath.Join(home, "gemini-home")
	chats := filepath.Join(gemini, ".gemini/tmp/0123abcd/chats")
	cp(filepath.Join(shared, "ondisk/captures/gemini-cli/vibecodingtracker_gemini_0ab84937.jsonl"), filepath.Join(chats, "session-2025-10-01T10-00-0ab84937.jsonl"))
	cp(filepath.Join(repo, "adapters/geminichat/testdata/store/legacy-session.json"), filepath.Join(chats, "session-2025-06-01T10-00-1e9ac1e9.json"))
	t.Setenv("HOME", filepath.Join(home, "home"))
	t.Setenv("CLAUDE_CONFIG_DIR", claudeA+","+claudeB)
	t.Setenv("CODEX_HOME", codex)
	t.Setenv("GEMINI_CLI_HOME", gemini)
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, "xdg"))
}

// TestSessionsMatchCLI reads every session the agents' stores find (Claude
// Code transcripts with their subagents' files, Codex rollouts plain and
// zstd, Gemini CLI chats) as `evtool usage` with no FILE reads them, and
// converts each as `evtool convert --to canonical SESSION-ID` does: the
// same bytes.
func TestSessionsMatchCLI(t *testing.T) {
	agentsHome(t)
	var ids []string
	err := sessions.Find(t.Context(), nil, sessions.Filter{}, func(s sessions.Store, r sessions.Ref) error {
		ids = append(ids, r.ID)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) < 8 {
		t.Fatalf("the stores find %d sessions, want 8 or more", len(ids))
	}
	t.Logf("%d sessions", len(ids))
	out := t.TempDir()
	cases := []UsageOptions{
		{By: "day,model", Timezone: "UTC", Format: "json"},
		{By: "session,run", Timezone: "UTC", Format: "text"},
		{By: "block", Timezone: "UTC", Format: "csv"},
		{By: "tool,agent", Timezone: "UTC", Format: "markdown"},
	}
	p, s := beam.NewPipelineWithRoot()
	runs := Sessions(s, nil)
	parts := UsageParts(s, runs, UsageOptions{})
	for i, o := range cases {
		WriteFile(s, UsageReport(s, parts, o), filepath.Join(out, fmt.Sprintf("usage-%d", i)))
	}
	Convert(s, runs, ConvertOptions{To: "canonical", OutDir: filepath.Join(out, "canonical")})
	if err := execute(t, p); err != nil {
		t.Fatal(err)
	}
	for i, o := range cases {
		want, stderr, _ := evtool(o.args()...)
		if len(want) == 0 {
			t.Fatalf("evtool %s: no report\n%s", strings.Join(o.args(), " "), stderr)
		}
		sameFile(t, filepath.Join(out, fmt.Sprintf("usage-%d", i)), want)
	}
	written := 0
	err = sessions.Find(t.Context(), nil, sessions.Filter{}, func(s sessions.Store, r sessions.Ref) error {
		r.Agent = s.Agent()
		ref := filepath.Join(t.TempDir(), "out.jsonl")
		_, stderr, code := evtool("convert", "-q", "--to", "canonical", r.ID, "-o", ref)
		got := filepath.Join(out, "canonical", sessionRel(r))
		want, err := os.ReadFile(ref)
		if err != nil {
			if _, err := os.Stat(got); err == nil {
				t.Errorf("%s: written, while evtool convert (exit %d) wrote nothing: %s", r, code, stderr)
			}
			return nil
		}
		sameFile(t, got, want)
		written++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if written < len(ids)/2 {
		t.Errorf("only %d of %d sessions converted", written, len(ids))
	}
}

// TestNothingInRange: when no run is in the range (all last written
// before --since), the report is the command line's empty one, not none.
func TestNothingInRange(t *testing.T) {
	in := filepath.Join(corpus(t), "gen", "03")
	o := UsageOptions{By: "day,model", Timezone: "UTC", Format: "json", Since: "2999-01-01"}
	out := filepath.Join(t.TempDir(), "usage.json")
	p, s := beam.NewPipelineWithRoot()
	WriteFile(s, Usage(s, Match(s, in), o), out)
	if err := execute(t, p); err != nil {
		t.Fatal(err)
	}
	want, _, _ := evtool(append(o.args(), in)...)
	sameFile(t, out, want)
}
