package codexrollout

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/evtool/evtool/adapters/internal/dialectstore"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/evtool/evtool/sessions"
	"github.com/evtool/evtool/stream"
	"github.com/tidwall/gjson"
)

// Store finds the rollouts Codex keeps and opens each as the lines of a
// codex-rollout stream. It reads, and never writes or moves, a file.
//
// Codex resolves its home as $CODEX_HOME, else ~/.codex, and writes
// sessions/YYYY/MM/DD/rollout-<YYYY-MM-DDThh-mm-ss>-<thread id>.jsonl;
// archiving moves a rollout to archived_sessions/. Newer builds compress
// a rollout to rollout-….jsonl.zst; where both files exist the plain one
// is the rollout (it is the one Codex appends to), as Codex's own reader
// has it (codex-rs/rollout/src/compression.rs).
type Store struct{ dialectstore.Of[Dialect] }

// Roots implements sessions.Store: $CODEX_HOME/sessions and
// $CODEX_HOME/archived_sessions, with ~/.codex for an unset or empty
// CODEX_HOME.
func (Store) Roots() []string {
	home := os.Getenv("CODEX_HOME")
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return nil
		}
		home = filepath.Join(h, ".codex")
	}
	return []string{filepath.Join(home, "sessions"), filepath.Join(home, "archived_sessions")}
}

// zstdSuffix is what a compressed rollout's name adds to the plain one's.
const zstdSuffix = ".zst"

// isRolloutName reports whether a file name is a rollout's, plain or
// compressed.
func isRolloutName(name string) bool {
	name = strings.TrimSuffix(name, zstdSuffix)
	return strings.HasPrefix(name, "rollout-") && strings.HasSuffix(name, ".jsonl")
}

// Scan implements sessions.Store. root is a directory searched at any
// depth for rollout-*.jsonl and rollout-*.jsonl.zst (a compressed file
// whose plain sibling exists is skipped) and for other *.jsonl(.zst)
// files whose first line is a rollout's header, or one file, taken when its
// name is a rollout's or its first line is a rollout's header. A root
// that does not exist holds no session. Each session's id is read from
// its first line only.
func (Store) Scan(ctx context.Context, root string, found func(sessions.Ref) error) error {
	fi, err := os.Stat(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		path := root
		if plain := strings.TrimSuffix(root, zstdSuffix); plain != root && isRolloutName(filepath.Base(root)) {
			if _, err := os.Stat(plain); err == nil {
				path = plain // the plain sibling is the rollout
			}
		}
		ref, ok := refOf(path, isRolloutName(filepath.Base(path)))
		if !ok {
			return nil
		}
		return found(ref)
	}
	return filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		if err != nil {
			if path == root {
				return err
			}
			sessions.Unreadable(ctx, path, err) // it holds nothing readable, but may hold rollouts
			return nil
		}
		if e.IsDir() || !e.Type().IsRegular() {
			return nil
		}
		named := isRolloutName(e.Name())
		// Outside Codex's own layout rollouts go by other names (a
		// directory of collected or renamed files): any .jsonl whose
		// first line is a rollout's header is one.
		if !named && !strings.HasSuffix(strings.TrimSuffix(e.Name(), zstdSuffix), ".jsonl") {
			return nil
		}
		if plain := strings.TrimSuffix(path, zstdSuffix); plain != path {
			if _, err := os.Stat(plain); err == nil {
				return nil // the plain sibling wins
			}
		}
		ref, ok := refOf(path, named)
		if !ok {
			return nil
		}
		return found(ref)
	})
}

// refOf makes the Ref of one file. named says its name is a rollout's:
// such a file is a session even when its first line cannot be read (a
// rollout Codex has only begun), its id then taken from its name; any
// other file is one only when its first line is a rollout's header.
func refOf(path string, named bool) (sessions.Ref, bool) {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return sessions.Ref{}, false
	}
	id, ok := headID(path)
	if !ok {
		if !named {
			return sessions.Ref{}, false
		}
		id = nameID(filepath.Base(path))
	}
	return sessions.Ref{Agent: "codex", ID: id, Path: path, Size: fi.Size(), Modified: fi.ModTime()}, true
}

// maxHead bounds what Scan reads of a first line: session_meta carries
// the session's base instructions (tens of KB) and, in newer builds, its
// tool definitions. The id comes first in the payload, so a longer line
// still yields it.
const maxHead = 16 << 20

// headID reads the session id from a rollout's first line: session_meta's
// payload.id, or the mid-2025 header's id.
func headID(path string) (string, bool) {
	rc, err := openRollout(path)
	if err != nil {
		return "", false
	}
	defer rc.Close()
	br := bufio.NewReaderSize(rc, 64<<10)
	var head []byte
	for len(head) < maxHead {
		chunk, err := br.ReadSlice('\n')
		head = append(head, chunk...)
		if err != bufio.ErrBufferFull {
			break
		}
	}
	v := read(jsonobj.View(bytes.TrimSpace(head)))
	if !v.isSessionMeta() {
		return "", false
	}
	id := v.payload.Get("id")
	if id.Type != gjson.String || id.Str == "" {
		return "", false
	}
	return strings.Clone(id.Str), true
}

// uuidTail matches the thread id a rollout's name ends with.
var uuidTail = regexp.MustCompile(`[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// nameID returns the thread id in a rollout's name, for a file whose
// first line says none; else the name without its extensions.
func nameID(name string) string {
	base := strings.TrimSuffix(strings.TrimSuffix(name, zstdSuffix), ".jsonl")
	if m := uuidTail.FindString(base); m != "" {
		return m
	}
	return base
}

// Open implements sessions.Store: the rollout's lines, decompressed when
// the file is zstd. The file is the ref's, or its sibling when Codex
// compressed or restored it since the scan (the plain one first).
func (Store) Open(ref sessions.Ref) (io.ReadCloser, error) {
	path := ref.Path
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) && isRolloutName(filepath.Base(path)) {
		plain := strings.TrimSuffix(path, zstdSuffix)
		for _, p := range []string{plain, plain + zstdSuffix} {
			if _, err := os.Stat(p); err == nil {
				path = p
				break
			}
		}
	}
	return openRollout(path)
}

// zstdMagic begins every zstd frame.
var zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}

// openRollout opens a file read-only, decompressing it when its first
// bytes are a zstd frame's, as the stream reader would (stream.Unzstd):
// damage is then a finding with its place, not a bare read error.
func openRollout(path string) (io.ReadCloser, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	br := bufio.NewReaderSize(f, 64<<10)
	magic, _ := br.Peek(len(zstdMagic))
	if !bytes.Equal(magic, zstdMagic) {
		return &readCloser{Reader: br, close: f.Close}, nil
	}
	zr, err := stream.Unzstd(br)
	if err != nil {
		f.Close()
		return nil, err
	}
	return &readCloser{Reader: zr, close: func() error { zr.Close(); return f.Close() }}, nil
}

// readCloser is a reader with what closing it takes.
type readCloser struct {
	io.Reader
	close func() error
}

// Close closes the decompressor, if any, and the file.
func (r *readCloser) Close() error { return r.close() }

// Homes implements sessions.Homer: $CODEX_HOME (~/.codex: config, auth, the prompt history), of which sessions is one folder.
func (s Store) Homes() []string { return sessions.Parents(s.Roots()) }
