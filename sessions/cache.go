package sessions

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"
)

// A Cache keeps the summaries of sessions already read, so that a listing
// reads again only the sessions that changed since: a history of
// gigabytes is read once, and listed again in the time it takes to look
// at its files. It lives in evtool's own cache directory, never in an
// agent's.
//
// A summary is used again only when everything it was made from is as it
// was: the same files of the session (path, size, modification time and
// file identity of the main file and every part), the same store and
// dialect, and the same Salt, which names the reading (evtool's build)
// and the prices the cost was reckoned at. Anything else, and the session
// is read again. A cache that cannot be read (missing, corrupt, of another
// version) is an empty one; a cache that cannot be written is left as it
// was, and the listing is not the worse for it.
type Cache struct {
	// Path is the cache file.
	Path string
	// Salt names what a summary depends on besides the session's files.
	Salt string

	mu      sync.Mutex
	entries map[string]cacheEntry // by the session's key
	used    map[string]bool
	dirty   bool
}

// cacheVersion changes when the file's shape does; a file of another
// version is ignored.
const cacheVersion = 2 // 2: title

type cacheFile struct {
	Version int                   `json:"version"`
	Salt    string                `json:"salt"`
	Entries map[string]cacheEntry `json:"entries"`
}

// cacheEntry is one session's summary as the cache keeps it: exact
// figures as text or integers, never floats.
type cacheEntry struct {
	Path       string   `json:"path"`  // the session's main file
	Stamp      string   `json:"stamp"` // the files' identities (stamp)
	ID         string   `json:"id,omitempty"`
	Project    string   `json:"project,omitempty"`
	Title      string   `json:"title,omitempty"`
	Start      string   `json:"start,omitempty"`
	End        string   `json:"end,omitempty"`
	Turns      *uint64  `json:"turns,omitempty"`
	Tokens     uint64   `json:"tokens,omitempty"`
	Stated     bool     `json:"tokens_stated,omitempty"`
	CostUSD    string   `json:"cost_usd,omitempty"`
	CostSource string   `json:"cost_source,omitempty"`
	Lines      uint64   `json:"lines,omitempty"`
	BadLines   uint64   `json:"bad_lines,omitempty"`
	Unpriced   []string `json:"unpriced,omitempty"`
}

// DefaultCachePath returns the cache file in the user's cache directory
// ($XDG_CACHE_HOME, else ~/.cache, on Linux).
// It is an error when the directory above the cache directory does not
// exist (a HOME that is not there): evtool makes its own folder in a cache
// directory, never a home.
func DefaultCachePath() (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(filepath.Dir(dir)); err != nil {
		return "", fmt.Errorf("no cache directory: %w", err)
	}
	return filepath.Join(dir, "evtool", "sessions.json"), nil
}

// BuildSalt names the running evtool's reading: its version and the
// identity of its executable, so that a rebuilt binary (even of the same
// version, from a changed tree) reads every session again. extra names
// anything else a summary depends on (the price files' contents).
func BuildSalt(version string, extra ...[]byte) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00", version)
	if exe, err := os.Executable(); err == nil {
		if st, err := os.Stat(exe); err == nil {
			fmt.Fprintf(h, "%s\x00%d\x00%d\x00%s\x00", exe, st.Size(), st.ModTime().UnixNano(), fileID(st))
		}
	}
	for _, b := range extra {
		fmt.Fprintf(h, "%d\x00", len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// load reads the cache file once; any failure leaves the cache empty.
func (c *Cache) load() {
	if c.entries != nil {
		return
	}
	c.entries, c.used = map[string]cacheEntry{}, map[string]bool{}
	if !regularOrAbsent(c.Path) {
		return // a FIFO there would hang the listing; Save leaves it be
	}
	b, err := os.ReadFile(c.Path)
	if err != nil {
		return
	}
	var f cacheFile
	if json.Unmarshal(b, &f) != nil || f.Version != cacheVersion || f.Salt != c.Salt || f.Entries == nil {
		c.dirty = true // rewritten for this salt, or of this version
		return
	}
	c.entries = f.Entries
}

// key names a session in the cache: its store's agent and dialect, and
// its files.
func key(s Store, r Ref) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00", s.Agent(), s.Dialect(), r.ID, r.Path)
	for _, p := range r.Parts {
		fmt.Fprintf(h, "%s\x00", p)
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// stamp describes the state of a session's files: each one's size,
// modification time and identity, and the time its store gives the
// session (a database row's own). "" when a file cannot be looked at: such
// a session is always read.
func stamp(r Ref) string {
	var b bytes.Buffer
	for _, p := range append([]string{r.Path}, r.Parts...) {
		st, err := os.Stat(p)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && p != r.Path {
				b.WriteString("-\x00") // a part gone (a WAL checkpointed away)
				continue
			}
			return ""
		}
		b.WriteString(strconv.FormatInt(st.Size(), 10) + "\x00" + strconv.FormatInt(st.ModTime().UnixNano(), 10) + "\x00" + fileID(st) + "\x00")
	}
	b.WriteString(strconv.FormatInt(r.Modified.UnixNano(), 10))
	return b.String()
}

// get returns the cached summary of a session, if its files are as they
// were when it was made.
func (c *Cache) get(s Store, r Ref) (*Summary, []string, bool) {
	st := stamp(r)
	if st == "" {
		return nil, nil, false
	}
	k := key(s, r)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.load()
	e, ok := c.entries[k]
	if !ok || e.Stamp != st {
		return nil, nil, false
	}
	c.used[k] = true
	sum := &Summary{Ref: r, Project: e.Project, Title: e.Title, Start: e.Start, End: e.End, Turns: e.Turns, Tokens: e.Tokens,
		TokensStated: e.Stated, CostUSD: e.CostUSD, CostSource: e.CostSource, Lines: e.Lines, BadLines: e.BadLines}
	if sum.ID == "" {
		sum.ID = e.ID
	}
	return sum, e.Unpriced, true
}

// put keeps a summary just made, under the stamp its files had before it
// was read: a session that changed while it was read is read again next
// time, never taken for what it was.
func (c *Cache) put(s Store, r Ref, before string, sum *Summary, unpriced []string) {
	// A session that could not be read to its end is read again next
	// time: what stopped it (a file it had no permission to read, a
	// device that failed) may have passed without the file changing.
	if sum.Err != nil || before == "" || before != stamp(r) {
		return
	}
	e := cacheEntry{Path: r.Path, Stamp: before, ID: sum.ID, Project: sum.Project, Title: sum.Title, Start: sum.Start, End: sum.End, Turns: sum.Turns,
		Tokens: sum.Tokens, Stated: sum.TokensStated, CostUSD: sum.CostUSD, CostSource: sum.CostSource,
		Lines: sum.Lines, BadLines: sum.BadLines, Unpriced: unpriced}
	k := key(s, r)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.load()
	c.entries[k], c.used[k], c.dirty = e, true, true
}

// Save writes the cache back if a listing changed it, atomically: to a
// temporary file beside it, then renamed over it. Sessions whose main
// file is gone are dropped from it. A listing does not fail for a cache
// it cannot write: the caller may say so and go on.
func (c *Cache) Save() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil || !c.dirty {
		return nil
	}
	for k, e := range c.entries {
		if c.used[k] {
			continue
		}
		if _, err := os.Stat(e.Path); errors.Is(err, fs.ErrNotExist) {
			delete(c.entries, k)
		}
	}
	if !regularOrAbsent(c.Path) {
		return fmt.Errorf("%s is not a regular file", c.Path)
	}
	b, err := json.Marshal(cacheFile{Version: cacheVersion, Salt: c.Salt, Entries: c.entries})
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(c.Path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(c.Path), ".sessions-*.tmp")
	if err != nil {
		return err
	}
	_, err = tmp.Write(b)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), c.Path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return err
	}
	c.dirty = false
	return nil
}

// regularOrAbsent reports whether path is a regular file (by its own
// name, not a link's target) or nothing: the only cache file evtool reads
// or replaces.
func regularOrAbsent(path string) bool {
	fi, err := os.Lstat(path)
	return errors.Is(err, fs.ErrNotExist) || err == nil && fi.Mode().IsRegular()
}

// summarizeCached is Summarize through the cache, when there is one.
func summarizeCached(c *Cache, s Store, r Ref, opts ListOptions, unpriced func(string)) *Summary {
	if c == nil {
		return Summarize(s, r, opts.Prices, unpriced)
	}
	if sum, models, ok := c.get(s, r); ok {
		if unpriced != nil {
			for _, m := range models {
				unpriced(m)
			}
		}
		return sum
	}
	before := stamp(r)
	var models []string
	var mu sync.Mutex
	sum := Summarize(s, r, opts.Prices, func(m string) {
		mu.Lock()
		models = append(models, m)
		mu.Unlock()
		if unpriced != nil {
			unpriced(m)
		}
	})
	c.put(s, r, before, sum, models)
	return sum
}
