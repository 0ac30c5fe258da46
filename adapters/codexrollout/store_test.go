package codexrollout_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/evtool/evtool/adapters/codexrollout"
	"github.com/evtool/evtool/adapters/internal/adaptertest"
	"github.com/evtool/evtool/adapters/internal/storetest"
	"github.com/evtool/evtool/sessions"
	evstream "github.com/evtool/evtool/stream"
)

// The store's test tree, testdata/store, is a CODEX_HOME:
//
//	sessions/2025/11/02/rollout-…-019a4b1c-….jsonl.zst   compressed only (user_shell.jsonl)
//	sessions/2025/10/06/rollout-…-0199a8c2-….jsonl       plain (cli_0.46_tools.jsonl) …
//	sessions/2025/10/06/rollout-…-0199a8c2-….jsonl.zst   … and its compressed sibling, which loses
//	sessions/2025/10/06/notes.txt                        no rollout
//	sessions/2025/10/07/rollout-…-0199b000-….jsonl       empty: a rollout Codex has only begun
//	archived_sessions/rollout-…-3f2b6c1e-….jsonl         the mid-2025 format (legacy_2025.jsonl)

func TestStoreRegistered(t *testing.T) {
	s, ok := sessions.Lookup("codex")
	if !ok {
		t.Fatal("no codex store registered")
	}
	if s.Dialect() != codexrollout.Name || s.Agent() != "codex" {
		t.Errorf("store %s/%s", s.Agent(), s.Dialect())
	}
}

func TestStoreRoots(t *testing.T) {
	t.Setenv("CODEX_HOME", "/somewhere/codex")
	got := codexrollout.Store{}.Roots()
	want := []string{"/somewhere/codex/sessions", "/somewhere/codex/archived_sessions"}
	if !slices.Equal(got, want) {
		t.Errorf("roots with CODEX_HOME: %q, want %q", got, want)
	}
	t.Setenv("CODEX_HOME", "")
	t.Setenv("HOME", "/home/ann")
	got = codexrollout.Store{}.Roots()
	want = []string{"/home/ann/.codex/sessions", "/home/ann/.codex/archived_sessions"}
	if !slices.Equal(got, want) {
		t.Errorf("roots without CODEX_HOME: %q, want %q", got, want)
	}
}

// TestStore scans and opens a CODEX_HOME, as evtool sessions does, and
// requires that no file or directory under it changed: not a byte, not a
// modification time, and nothing was added.
func TestStore(t *testing.T) {
	home := t.TempDir()
	storetest.CopyTree(t, filepath.Join("testdata", "store"), home, 0o444)
	t.Setenv("CODEX_HOME", home)
	// Times in the past, so that a write would show in them.
	past := time.Date(2025, 12, 1, 0, 0, 0, 0, time.UTC)
	_ = filepath.WalkDir(home, func(p string, _ fs.DirEntry, _ error) error { return os.Chtimes(p, past, past) })
	before := storetest.Take(t, home)

	s := codexrollout.Store{}
	var refs []sessions.Ref
	for _, root := range s.Roots() {
		refs = append(refs, storetest.Scan(t, s, root)...)
	}
	type found struct{ id, name string }
	var got []found
	for _, r := range refs {
		got = append(got, found{r.ID, filepath.Base(r.Path)})
		if r.Agent != "codex" || (r.Size == 0) != strings.Contains(r.Path, "0199b000") || !r.Modified.Equal(past) {
			t.Errorf("%s: agent %q, size %d, modified %v", r.Path, r.Agent, r.Size, r.Modified)
		}
	}
	want := []found{
		{"0199a8c2-3b1e-7d40-9c51-2f6e8a7b4c10", "rollout-2025-10-06T14-03-11-0199a8c2-3b1e-7d40-9c51-2f6e8a7b4c10.jsonl"}, // the plain sibling wins
		{"0199b000-0000-7000-8000-000000000000", "rollout-2025-10-07T00-00-00-0199b000-0000-7000-8000-000000000000.jsonl"}, // id from the name
		{"019a4b1c-0000-7000-8000-00000000aa01", "rollout-2025-11-02T08-00-00-019a4b1c-0000-7000-8000-00000000aa01.jsonl.zst"},
		{"3f2b6c1e-8d4a-4b7e-9c2d-1a5e6f7b8c9d", "rollout-2025-07-21T09-14-05-3f2b6c1e-8d4a-4b7e-9c2d-1a5e6f7b8c9d.jsonl"}, // archived, mid-2025 header
	}
	if !slices.Equal(got, want) {
		t.Errorf("found\n%v\nwant\n%v", got, want)
	}

	// Open gives each session's lines, the compressed one decompressed.
	for _, r := range refs {
		b := []byte(storetest.Open(t, s, r))
		var src string
		switch r.ID {
		case "019a4b1c-0000-7000-8000-00000000aa01":
			src = "user_shell.jsonl"
		case "0199a8c2-3b1e-7d40-9c51-2f6e8a7b4c10":
			src = "cli_0.46_tools.jsonl"
		case "3f2b6c1e-8d4a-4b7e-9c2d-1a5e6f7b8c9d":
			src = "legacy_2025.jsonl"
		}
		var want []byte
		if src != "" {
			want = adaptertest.ReadFile(t, filepath.Join("testdata", src))
		}
		if !bytes.Equal(b, want) {
			t.Errorf("%s: Open gives %d bytes, want the %d of %s", r.Path, len(b), len(want), src)
		}
	}

	// A file given by name, compressed or not; CODEX_HOME itself; a
	// root that does not exist.
	zst := filepath.Join(home, "sessions", "2025", "10", "06", "rollout-2025-10-06T14-03-11-0199a8c2-3b1e-7d40-9c51-2f6e8a7b4c10.jsonl.zst")
	var one []sessions.Ref
	collect := func(r sessions.Ref) error { one = append(one, r); return nil }
	if err := s.Scan(context.Background(), zst, collect); err != nil || len(one) != 1 || strings.HasSuffix(one[0].Path, ".zst") {
		t.Errorf("a compressed file whose plain sibling exists: %v %v", one, err)
	}
	one = nil
	if err := s.Scan(context.Background(), filepath.Join(home, "sessions", "2025", "10", "06", "notes.txt"), collect); err != nil || len(one) != 0 {
		t.Errorf("a file that is no rollout: %v %v", one, err)
	}
	one = nil
	if err := s.Scan(context.Background(), home, collect); err != nil || len(one) != 4 {
		t.Errorf("CODEX_HOME itself: %d sessions, %v", len(one), err)
	}
	one = nil
	if err := s.Scan(context.Background(), filepath.Join(home, "nowhere"), collect); err != nil || len(one) != 0 {
		t.Errorf("a root that does not exist: %v %v", one, err)
	}
	// A scan stops at the first error found returns, and when ctx is done.
	stop := io.ErrUnexpectedEOF
	if err := s.Scan(context.Background(), home, func(sessions.Ref) error { return stop }); err != stop {
		t.Errorf("found's error: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.Scan(ctx, home, collect); err == nil {
		t.Error("a cancelled scan returns no error")
	}

	// Open follows a rollout Codex compressed since the scan to its
	// sibling.
	rc, err := s.Open(sessions.Ref{Agent: "codex", ID: refs[2].ID, Path: strings.TrimSuffix(refs[2].Path, ".zst")})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := io.ReadAll(rc); !bytes.HasPrefix(b, []byte(`{"timestamp":"2025-11-02T08:00:00.000Z","type":"session_meta"`)) {
		t.Errorf("the moved rollout opens as %.80q", b)
	}
	rc.Close()

	before.Unchanged(t, home)
}

// TestDamagedRolloutIsAFinding: a compressed rollout cut short is read to
// where it breaks, and the reading reports a finding of rule stream/input
// with the compressed byte it breaks at, as for such a file named on the
// command line (usage took it for a file that cannot be read, exit 2,
// with the path twice and no position).
func TestDamagedRolloutIsAFinding(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sessions", "2025", "11", "02")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	src, err := filepath.Glob(filepath.Join("testdata", "store", "sessions", "2025", "11", "02", "*.jsonl.zst"))
	if err != nil || len(src) != 1 {
		t.Fatalf("the compressed test rollout: %v %v", src, err)
	}
	whole := adaptertest.ReadFile(t, src[0])
	path := filepath.Join(dir, filepath.Base(src[0]))
	if err := os.WriteFile(path, whole[:len(whole)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	rc, err := codexrollout.Store{}.Open(sessions.Ref{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	rd := evstream.NewReader(rc, path, evstream.Options{})
	for err == nil {
		_, err = rd.Next()
	}
	var se *evstream.StreamError
	if !errors.As(err, &se) || se.Usage || se.Diagnostic.Rule != evstream.RuleInput || !strings.Contains(se.Diagnostic.Message, "cannot be decompressed past compressed byte") {
		t.Errorf("got %v, want a stream/input finding of the byte it breaks at", err)
	}
}
