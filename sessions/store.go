// Package sessions finds the sessions coding agents keep on disk (Claude
// Code transcripts, Codex rollouts, Gemini CLI chats, opencode's storage)
// and opens each as a stream of its dialect's lines, which every evtool
// command reads as it reads a stream an agent printed.
//
// Each agent's on-disk dialect registers a Store beside it. A Store knows
// where its agent keeps sessions (environment variables honoured), finds
// them cheaply, and opens one: the lines of one session, gathered from
// every file it spans (a transcript and its subagents' files) or read from
// a database, in the order its dialect's decoder expects.
//
// Nothing here writes: stores open files and databases read-only, and
// never open the network.
package sessions

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// A Store is where one agent keeps its sessions.
type Store interface {
	// Agent names the agent, as `evtool sessions --agent` takes it:
	// "claude", "codex", "gemini", "opencode".
	Agent() string
	// Dialect names the dialect of the lines Open returns.
	Dialect() string
	// Roots returns the agent's standard locations on this machine, as the
	// agent itself resolves them (environment variables first), whether or
	// not they exist.
	Roots() []string
	// Scan finds the sessions under root (a directory of the agent's
	// layout, a session file, or a database), calling found for each. It
	// reads no more of a file than it needs to tell a session and its id;
	// it stops at the first error found returns, or when ctx is done.
	Scan(ctx context.Context, root string, found func(Ref) error) error
	// Open returns the session's lines in its dialect, one JSON value a
	// line, gathered from every file the session spans.
	Open(ref Ref) (io.ReadCloser, error)
}

// Open opens the session ref names with its store. The reader says it is
// Whole (stream.Whole): a session is read from what its store keeps on
// disk, not from a live pipe, though a store's reader is no *os.File, so
// its decoder may look ahead as a file's does (a Gemini CLI chat names its
// model in its first response, a mid-2025 Codex rollout its directory
// after its header).
func Open(s Store, ref Ref) (io.ReadCloser, error) {
	rc, err := s.Open(ref)
	if err != nil {
		return nil, err
	}
	return whole{rc}, nil
}

// whole is a session's reader, whole on disk.
type whole struct{ io.ReadCloser }

// Whole implements stream.Whole.
func (whole) Whole() bool { return true }

// A Homer is a Store whose agent keeps more than its sessions in its own
// directories (settings, a prompt history, credentials): Homes returns
// them. evtool writes into none of them.
type Homer interface {
	Homes() []string
}

// Homes returns the directories a store's agent keeps its own files in:
// its Homes, else its Roots.
func Homes(s Store) []string {
	if h, ok := s.(Homer); ok {
		return h.Homes()
	}
	return s.Roots()
}

// Parents is Homes for a store whose roots are folders of its agent's own
// directories: the directory each root is in (~/.codex of
// ~/.codex/sessions), each once.
func Parents(roots []string) []string {
	var out []string
	for _, r := range roots {
		if d := filepath.Dir(r); !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

// A Ref names one session a Store found.
type Ref struct {
	// Agent is the store's Agent.
	Agent string
	// ID is the agent's id of the session.
	ID string
	// Path is the session's main file, or the database that holds it.
	Path string
	// Parts are the other files the session spans (subagents' files, a
	// database's WAL), in the order Open reads them.
	Parts []string
	// Size is the bytes of Path and Parts together.
	Size int64
	// Modified is when the session last changed, as far as its store can
	// tell cheaply: the latest modification time of Path and Parts, or,
	// for a session in a database, its row's own update time (the file's
	// is every session's). A session has no event after it, which is why
	// a listing with --since need not open one modified before.
	Modified time.Time
}

func (r Ref) String() string { return fmt.Sprintf("%s session %s (%s)", r.Agent, r.ID, r.Path) }

var (
	mu     sync.RWMutex
	stores = map[string]Store{}
)

// Register adds a store. It panics on a second store of one agent, a
// programming error.
func Register(s Store) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := stores[s.Agent()]; dup {
		panic("sessions: Register called twice for " + s.Agent())
	}
	stores[s.Agent()] = s
}

// Stores returns the registered stores sorted by agent.
func Stores() []Store {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]Store, 0, len(stores))
	for _, s := range stores {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Agent() < out[j].Agent() })
	return out
}

// Agent resolves an agent's name as a user gives it: a store's agent
// ("claude-code"), or the first word of one when only one store's agent
// begins with it ("claude", "gemini").
func Agent(name string) (string, error) {
	var hits []string
	for _, s := range Stores() {
		switch a := s.Agent(); {
		case a == name:
			return a, nil
		case strings.HasPrefix(a, name+"-"):
			hits = append(hits, a)
		}
	}
	switch len(hits) {
	case 1:
		return hits[0], nil
	case 0:
		return "", fmt.Errorf("no agent %q", name)
	}
	return "", fmt.Errorf("agent %q is ambiguous: %s", name, strings.Join(hits, ", "))
}

// Lookup returns the store of an agent.
func Lookup(agent string) (Store, bool) {
	mu.RLock()
	defer mu.RUnlock()
	s, ok := stores[agent]
	return s, ok
}
