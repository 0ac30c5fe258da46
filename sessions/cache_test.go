package sessions_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/evtool/evtool/sessions"
)

// countingStore is fakeStore that counts the sessions it opens.
type countingStore struct {
	fakeStore
	opens atomic.Int64
}

func (*countingStore) Agent() string { return "counting" }
func (c *countingStore) Scan(ctx context.Context, root string, found func(sessions.Ref) error) error {
	return c.fakeStore.Scan(ctx, root, func(r sessions.Ref) error {
		r.Agent = "counting"
		return found(r)
	})
}
func (c *countingStore) Open(r sessions.Ref) (io.ReadCloser, error) {
	c.opens.Add(1)
	return os.Open(r.Path)
}

var counting = &countingStore{}

func init() { sessions.Register(counting) }

func TestCache(t *testing.T) {
	dir, cacheDir := t.TempDir(), t.TempDir()
	write := func(name, id string, out uint64) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(session(id, "/w/"+id, "2026-01-02T10:00:00.000000Z", "2026-01-02T11:00:00.000000Z", 100, out)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.jsonl", "a", 20)
	write("b.jsonl", "b", 30)
	cachePath := filepath.Join(cacheDir, "evtool", "sessions.json")
	list := func(salt string) []*sessions.Summary {
		t.Helper()
		c := &sessions.Cache{Path: cachePath, Salt: salt}
		got, err := sessions.List(context.Background(), []string{dir}, sessions.ListOptions{
			Filter: sessions.Filter{Agents: []string{"counting"}}, Workers: 2, Cache: c})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Save(); err != nil {
			t.Fatal(err)
		}
		return got
	}
	tokens := func(got []*sessions.Summary) string {
		var b strings.Builder
		for _, s := range got {
			b.WriteString(s.ID + "=" + itoa(s.Tokens) + " ")
		}
		return b.String()
	}
	opened := func(want int64, what string) {
		t.Helper()
		if n := counting.opens.Swap(0); n != want {
			t.Errorf("%s: %d sessions read, want %d", what, n, want)
		}
	}

	first := list("s1")
	opened(2, "first listing")
	if got := tokens(first); got != "a=120 b=130 " {
		t.Fatalf("first listing: %s", got)
	}
	second := list("s1")
	opened(0, "unchanged files")
	if tokens(second) != tokens(first) || second[0].Project != "/w/a" || second[0].CostUSD != "0.1" || *second[0].Turns != 1 {
		t.Errorf("cached summaries differ: %+v", second[0])
	}

	// A changed file is read again, the other is not.
	write("b.jsonl", "b", 31)
	later := time.Now().Add(time.Minute)
	os.Chtimes(filepath.Join(dir, "b.jsonl"), later, later)
	if got := tokens(list("s1")); got != "a=120 b=131 " {
		t.Errorf("after b changed: %s", got)
	}
	opened(1, "one file changed")

	// A file replaced by another of the same size and time is another
	// file (its identity differs).
	st, _ := os.Stat(filepath.Join(dir, "a.jsonl"))
	write("a.new", "a", 29) // same length: 20 and 29 have two digits
	os.Chtimes(filepath.Join(dir, "a.new"), st.ModTime(), st.ModTime())
	os.Rename(filepath.Join(dir, "a.new"), filepath.Join(dir, "a.jsonl"))
	if got := tokens(list("s1")); got != "a=129 b=131 " {
		t.Errorf("after a was replaced: %s", got)
	}
	opened(1, "one file replaced")

	// Another salt (another build, other prices) reads everything.
	list("s2")
	opened(2, "another salt")

	// A corrupt cache is an empty one, and is written anew.
	os.WriteFile(cachePath, []byte("{not json"), 0o600)
	list("s2")
	opened(2, "corrupt cache")
	list("s2")
	opened(0, "cache written anew")

	// No temporary files are left beside it.
	ents, _ := os.ReadDir(filepath.Dir(cachePath))
	if len(ents) != 1 {
		t.Errorf("cache directory holds %d files, want 1", len(ents))
	}

	// A line with problems is a verdict, kept with the summary.
	os.WriteFile(filepath.Join(dir, "c.jsonl"), []byte("{\"seq\":0,\"type\":\n"), 0o644)
	list("s2")
	opened(1, "a bad line, first")
	if got := list("s2"); len(got) != 3 || byID(got, "c") == nil || byID(got, "c").BadLines != 1 {
		t.Errorf("a bad line's verdict was not kept: %+v", got)
	}
	opened(0, "a bad line, again")

	// A session that could not be read to its end (here: a directory
	// where a file was expected, which fails to read) is not kept: what
	// stopped it may pass without its files changing.
	os.Mkdir(filepath.Join(dir, "d.jsonl"), 0o755)
	list("s2")
	opened(1, "an unreadable session, first")
	got := list("s2")
	opened(1, "an unreadable session is read each time")
	if len(got) != 4 || byID(got, "d") == nil || byID(got, "d").Err == nil {
		t.Errorf("the unreadable session: %+v", got)
	}
}

func TestDefaultCachePathNeedsAHome(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("HOME", filepath.Join(t.TempDir(), "no-such-home"))
	if p, err := sessions.DefaultCachePath(); err == nil {
		t.Errorf("DefaultCachePath = %s, want an error: no home to make .cache in", p)
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	if p, err := sessions.DefaultCachePath(); err != nil || p != filepath.Join(home, ".cache", "evtool", "sessions.json") {
		t.Errorf("DefaultCachePath = %s, %v", p, err)
	}
}

func byID(list []*sessions.Summary, id string) *sessions.Summary {
	for _, s := range list {
		if s.ID == id {
			return s
		}
	}
	return nil
}

// A FIFO (or anything but a regular file) where the cache would be is
// neither read, which would hang the listing, nor replaced.
func TestCacheIsARegularFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.jsonl"), []byte(session("a", "/w/a", "2026-01-02T10:00:00.000000Z", "2026-01-02T11:00:00.000000Z", 100, 20)), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(t.TempDir(), "sessions.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFO here:", err)
	}
	c := &sessions.Cache{Path: fifo, Salt: "s"}
	done := make(chan error, 1)
	go func() {
		_, err := sessions.List(context.Background(), []string{dir}, sessions.ListOptions{
			Filter: sessions.Filter{Agents: []string{"counting"}}, Workers: 1, Cache: c})
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the listing hangs on a FIFO at the cache's path")
	}
	if err := c.Save(); err == nil {
		t.Error("Save replaced a FIFO")
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO is gone: %v %v", fi, err)
	}
}
