package sessions_test

import (
	"context"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	_ "github.com/evtool/evtool/adapters"
	"github.com/evtool/evtool/sessions"
)

// fakeStore keeps canonical streams as sessions: each *.jsonl file of a
// root is one session, named by its file.
type fakeStore struct{ roots []string }

func (fakeStore) Agent() string     { return "fake" }
func (fakeStore) Dialect() string   { return "canonical" }
func (f fakeStore) Roots() []string { return f.roots }
func (fakeStore) Scan(ctx context.Context, root string, found func(sessions.Ref) error) error {
	if _, err := os.Stat(filepath.Join(root, "LOCKED")); err == nil {
		// As a store's walk meets a directory it may not read.
		sessions.Unreadable(ctx, filepath.Join(root, "locked"), fs.ErrPermission)
	}
	ms, _ := filepath.Glob(filepath.Join(root, "*.jsonl"))
	for _, m := range ms {
		fi, err := os.Stat(m)
		if err != nil {
			return err
		}
		id := strings.TrimSuffix(filepath.Base(m), ".jsonl")
		if err := found(sessions.Ref{Agent: "fake", ID: id, Path: m, Size: fi.Size(), Modified: fi.ModTime()}); err != nil {
			return err
		}
	}
	return ctx.Err()
}
func (fakeStore) Open(r sessions.Ref) (io.ReadCloser, error) { return os.Open(r.Path) }

var fake = &fakeStore{}

func init() { sessions.Register(fake) }

func session(id, cwd, t1, t2 string, in, out uint64) string {
	return `{"seq":0,"time":"` + t1 + `","type":"session_started","schema":1,"source":{"dialect":"canonical"},"session_id":"` + id + `","workspace":"` + cwd + `"}
{"seq":1,"time":"` + t1 + `","type":"turn_started","turn_id":"t1","prompt":"hi"}
{"seq":2,"time":"` + t2 + `","type":"turn_finished","turn_id":"t1","status":"ok","usage":{"input_tokens":` + itoa(in) + `,"output_tokens":` + itoa(out) + `,"cost_usd":0.10}}
`
}

func itoa(n uint64) string { return strconv.FormatUint(n, 10) }

func TestList(t *testing.T) {
	dir := t.TempDir()
	fake.roots = []string{dir, filepath.Join(dir, "missing")}
	os.WriteFile(filepath.Join(dir, "a.jsonl"), []byte(session("sa", "/w/alpha", "2026-01-02T10:00:00.000000Z", "2026-01-02T11:00:00.000000Z", 100, 20)), 0o644)
	os.WriteFile(filepath.Join(dir, "b.jsonl"), []byte(session("sb", "/w/beta", "2026-03-01T10:00:00.000000Z", "2026-03-01T10:30:00.000000Z", 5, 1)), 0o644)
	ctx := context.Background()
	all, err := sessions.List(ctx, nil, sessions.ListOptions{Filter: sessions.Filter{Agents: []string{"fake"}}, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 2 || all[0].ID != "a" || all[1].ID != "b" {
		t.Fatalf("List = %v", all)
	}
	a := all[0]
	if a.Project != "/w/alpha" || a.Start != "2026-01-02T10:00:00.000000Z" || a.End != "2026-01-02T11:00:00.000000Z" ||
		a.Turns == nil || *a.Turns != 1 || !a.TokensStated || a.Tokens != 120 || a.CostUSD != "0.1" || a.Err != nil {
		t.Errorf("summary of a: project %q %s..%s turns %v tokens %d/%v cost %q err %v", a.Project, a.Start, a.End, a.Turns, a.Tokens, a.TokensStated, a.CostUSD, a.Err)
	}
	since := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		f    sessions.Filter
		want string
	}{
		{sessions.Filter{Agents: []string{"fake"}, Since: since}, "b"},
		{sessions.Filter{Agents: []string{"fake"}, Until: since}, "a"},
		{sessions.Filter{Agents: []string{"fake"}, Project: "beta"}, "b"},
		{sessions.Filter{Agents: []string{"fake"}, Project: "/w/alpha"}, "a"},
		{sessions.Filter{Agents: []string{"fake"}, Project: "gamma"}, ""},
		{sessions.Filter{Agents: []string{"nobody"}}, ""},
	} {
		got, err := sessions.List(ctx, nil, sessions.ListOptions{Filter: c.f, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, s := range got {
			ids = append(ids, s.ID)
		}
		if strings.Join(ids, ",") != c.want {
			t.Errorf("%+v: %v, want %s", c.f, ids, c.want)
		}
	}
	// A file last written before --since is not read: its summary would
	// say it is older.
	old := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	os.Chtimes(filepath.Join(dir, "b.jsonl"), old, old)
	if got, _ := sessions.List(ctx, nil, sessions.ListOptions{Filter: sessions.Filter{Agents: []string{"fake"}, Since: since}, Workers: 1}); len(got) != 0 {
		t.Errorf("a file written before --since was listed: %v", got)
	}

	if _, ref, err := sessions.Resolve(ctx, nil, "b"); err != nil || ref.Path != filepath.Join(dir, "b.jsonl") {
		t.Errorf("Resolve(b) = %v, %v", ref, err)
	}
	if _, _, err := sessions.Resolve(ctx, nil, "zzz"); err == nil || !strings.Contains(err.Error(), `no session "zzz"`) {
		t.Errorf("Resolve(zzz) = %v", err)
	}
	os.WriteFile(filepath.Join(dir, "ab.jsonl"), []byte(session("x", "/", "2026-01-01T00:00:00.000000Z", "2026-01-01T00:00:00.000000Z", 1, 1)), 0o644)
	if _, ref, err := sessions.Resolve(ctx, nil, "a"); err != nil || ref.ID != "a" {
		t.Errorf("an exact id must win over a prefix: %v, %v", ref, err)
	}
	os.WriteFile(filepath.Join(dir, "cx.jsonl"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(dir, "cy.jsonl"), []byte("x"), 0o644)
	if _, _, err := sessions.Resolve(ctx, nil, "c"); err == nil || !strings.Contains(err.Error(), "2 sessions begin with") {
		t.Errorf("an ambiguous prefix: %v", err)
	}
}

// TestFindOnce: a session reached by two roots (~/.config/claude a link to
// ~/.claude, a folder named twice) is found, listed and resolved once; it
// was listed twice, and an id prefix was "ambiguous" between it and
// itself (hunt-usage2).
func TestFindOnce(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	os.Mkdir(real, 0o755)
	link := filepath.Join(dir, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	os.WriteFile(filepath.Join(real, "a.jsonl"), []byte(session("sa", "/w/alpha", "2026-01-02T10:00:00.000000Z", "2026-01-02T11:00:00.000000Z", 100, 20)), 0o644)
	fake.roots = []string{real, link, real + "/"}
	ctx := context.Background()
	all, err := sessions.List(ctx, nil, sessions.ListOptions{Filter: sessions.Filter{Agents: []string{"fake"}}, Workers: 2})
	if err != nil || len(all) != 1 {
		t.Fatalf("listed %d sessions (%v), want 1", len(all), err)
	}
	if _, r, err := sessions.Resolve(ctx, []string{real, link}, "a"); err != nil || r.ID != "a" {
		t.Fatalf("resolve: %v, %v", r, err)
	}
}

// TestUnreadableIsTold: what a store passes over unread (a directory it
// may not read) is told to Filter.Unsearched, and the search goes on; with
// no one to tell, it is passed over as before.
func TestUnreadableIsTold(t *testing.T) {
	dir := t.TempDir()
	fake.roots = []string{dir}
	os.WriteFile(filepath.Join(dir, "a.jsonl"), []byte(session("sa", "/w/alpha", "2026-01-02T10:00:00.000000Z", "2026-01-02T11:00:00.000000Z", 1, 1)), 0o644)
	os.WriteFile(filepath.Join(dir, "LOCKED"), nil, 0o644)
	var told []error
	found := 0
	f := sessions.Filter{Agents: []string{"fake"}, Unsearched: func(err error) { told = append(told, err) }}
	if err := sessions.Find(context.Background(), nil, f, func(sessions.Store, sessions.Ref) error { found++; return nil }); err != nil {
		t.Fatal(err)
	}
	if found != 1 || len(told) != 1 || !strings.Contains(told[0].Error(), "locked: permission denied: passed over") {
		t.Errorf("found %d sessions, told %v; want 1 and the locked directory", found, told)
	}
	f.Unsearched = nil
	if err := sessions.Find(context.Background(), nil, f, func(sessions.Store, sessions.Ref) error { return nil }); err != nil {
		t.Errorf("with no one to tell: %v", err)
	}
}
