package opencodestorage_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/evtool/evtool/adapters/internal/storetest"
	"github.com/evtool/evtool/adapters/opencodestorage"
	"github.com/evtool/evtool/sessions"
	"github.com/tidwall/gjson"
)

func scan(t testing.TB, root string) []sessions.Ref {
	return storetest.Scan(t, opencodestorage.Store{}, root)
}

func open(t testing.TB, ref sessions.Ref) string {
	return storetest.Open(t, opencodestorage.Store{}, ref)
}

func sessionID(stream []byte) string { return gjson.GetBytes(stream, "id").Str }

// TestStoreRegistered: the store is the one of agent opencode, in this
// dialect.
func TestStoreRegistered(t *testing.T) {
	s, ok := sessions.Lookup("opencode")
	if !ok || s.Dialect() != opencodestorage.Name {
		t.Fatalf("sessions.Lookup(opencode) = %v, %v", s, ok)
	}
	t.Setenv("XDG_DATA_HOME", "/data")
	t.Setenv("OPENCODE_DB", "alt.db")
	if got := s.Roots(); len(got) != 2 || got[0] != "/data/opencode" || got[1] != "/data/opencode/alt.db" {
		t.Errorf("Roots() = %q", got)
	}
}

// TestOpenDatabase: every session of a database, opened, gives its
// stream's lines byte for byte; Scan finds them by one query, in order of
// creation, with the session's own time.
func TestOpenDatabase(t *testing.T) {
	dir := t.TempDir()
	db := openWriter(t, filepath.Join(dir, "opencode.db"))
	for _, name := range dbStreams {
		insertStream(t, db, readStream(t, name))
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	refs := scan(t, dir)
	if len(refs) != len(dbStreams) {
		t.Fatalf("Scan found %d sessions, want %d", len(refs), len(dbStreams))
	}
	for i, name := range dbStreams {
		want := readStream(t, name)
		ref := refs[i]
		if ref.ID != sessionID(want) || ref.Path != filepath.Join(dir, "opencode.db") || ref.Agent != "opencode" {
			t.Errorf("ref %d = %+v, want session %s", i, ref, sessionID(want))
		}
		updated := gjson.GetBytes(want, "data.time_updated").Int()
		if !ref.Modified.Equal(time.UnixMilli(updated)) {
			t.Errorf("%s: Modified %v, want the session's time_updated %d", name, ref.Modified, updated)
		}
		if got := open(t, ref); got != string(want) {
			t.Errorf("%s: Open gives\n%s\nwant\n%s", name, got, want)
		}
	}
	// A database named directly.
	if refs := scan(t, filepath.Join(dir, "opencode.db")); len(refs) != len(dbStreams) {
		t.Errorf("Scan of the file found %d sessions", len(refs))
	}
}

// TestOpenStorage: every stream written as the JSON storage comes back
// byte for byte: the ids from the files' paths in the frame, the records
// compacted, without the ids the frame states.
func TestOpenStorage(t *testing.T) {
	names, _ := filepath.Glob(filepath.Join("testdata", "*.jsonl"))
	for _, f := range names {
		name := filepath.Base(f)
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			want := readStream(t, name)
			if strings.Contains(string(want), `"type":"permission"`) {
				t.Skip("a line type opencode does not store")
			}
			writeStorage(t, filepath.Join(dir, "storage"), want)
			refs := scan(t, dir)
			if len(refs) != 1 || refs[0].ID != sessionID(want) {
				t.Fatalf("Scan: %+v", refs)
			}
			if got := open(t, refs[0]); got != string(want) {
				t.Errorf("Open gives\n%s\nwant\n%s", got, want)
			}
			// The session file named directly.
			if r := scan(t, refs[0].Path); len(r) != 1 || r[0].ID != refs[0].ID {
				t.Errorf("Scan of the session file: %+v", r)
			}
		})
	}
}

// TestStoragesAgree: a session both in the database and in the JSON
// storage (opencode 1.2 copies the files and leaves them) is found once,
// in the database, and both give the same lines.
func TestStoragesAgree(t *testing.T) {
	dir := t.TempDir()
	stream := readStream(t, "written_tools_reasoning.jsonl")
	db := openWriter(t, filepath.Join(dir, "opencode.db"))
	insertStream(t, db, stream)
	db.Close()
	writeStorage(t, filepath.Join(dir, "storage"), stream)
	extra := readStream(t, "written_json_storage_1_1.jsonl")
	writeStorage(t, filepath.Join(dir, "storage"), extra)
	refs := scan(t, dir)
	if len(refs) != 2 || refs[0].ID != sessionID(stream) || !strings.HasSuffix(refs[0].Path, "opencode.db") ||
		refs[1].ID != sessionID(extra) || !strings.HasSuffix(refs[1].Path, ".json") {
		t.Fatalf("Scan: %+v", refs)
	}
	fromDB := open(t, refs[0])
	fromJSON := open(t, sessions.Ref{ID: refs[0].ID, Path: filepath.Join(dir, "storage", "session", gjson.GetBytes(stream, "data.project_id").Str, refs[0].ID+".json")})
	if fromDB != fromJSON || fromDB != string(stream) {
		t.Errorf("the storages disagree:\n%s\n%s", fromDB, fromJSON)
	}
}

// TestSessionTokens: `evtool sessions` adds a session's input, output and
// cache tokens, the canonical output holding the reasoning; opencode
// counts reasoning apart from output, so none of it may be left out. The
// one assistant message of this JSON storage session states input 10,
// output 20, reasoning 30, cache read 40, cache write 50: 150 in all.
func TestSessionTokens(t *testing.T) {
	const s = `"sessionID":"ses_old1"`
	stream := `{"type":"session","id":"ses_old1","data":{"id":"ses_old1","version":"1.0.150","projectID":"prj1","directory":"/home/u/old","title":"Old one","time":{"created":1760000000000,"updated":1760000009000}}}
{"type":"message","id":"msg_a",` + s + `,"data":{"role":"user","time":{"created":1760000001000}}}
{"type":"part","id":"prt_a1","messageID":"msg_a",` + s + `,"data":{"type":"text","text":"hello old"}}
{"type":"message","id":"msg_b",` + s + `,"data":{"role":"assistant","time":{"created":1760000002000,"completed":1760000005000},"modelID":"claude-sonnet-4-5","providerID":"anthropic","mode":"build","path":{"cwd":"/home/u/old","root":"/home/u/old"},"cost":0.0123,"tokens":{"input":10,"output":20,"reasoning":30,"cache":{"read":40,"write":50}},"finish":"stop"}}
{"type":"part","id":"prt_b1","messageID":"msg_b",` + s + `,"data":{"type":"text","text":"hi","time":{"start":1760000003000,"end":1760000004000}}}
`
	dir := t.TempDir()
	writeStorage(t, filepath.Join(dir, "storage"), []byte(stream))
	refs := scan(t, dir)
	if len(refs) != 1 {
		t.Fatalf("Scan: %+v", refs)
	}
	sum := sessions.Summarize(opencodestorage.Store{}, refs[0], nil, nil)
	if sum.Err != nil || !sum.TokensStated || sum.Tokens != 150 || sum.CostUSD != "0.0123" {
		t.Errorf("tokens %d (stated %v), cost %q, err %v; want 150 tokens, cost 0.0123", sum.Tokens, sum.TokensStated, sum.CostUSD, sum.Err)
	}
}

// TestScanOthersFile: a file that is not opencode's (another agent's
// session file, named on the command line, where every store is asked)
// holds no opencode session: Scan finds none, and says nothing is wrong,
// so that the search goes on to the store whose file it is.
func TestScanOthersFile(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string]string{
		"claude.jsonl":                 `{"type":"user","sessionId":"aaaa","message":{"role":"user","content":"hi"}}` + "\n",
		"rollout.jsonl":                `{"timestamp":"2025-10-01T00:00:00Z","type":"session_meta","payload":{"id":"x"}}` + "\n",
		"notes.json":                   `{}`,
		"storage/message/ses_1/m.json": `{}`,
		"fake.db":                      "not a database",
	} {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		var refs []sessions.Ref
		err := (opencodestorage.Store{}).Scan(t.Context(), path, func(r sessions.Ref) error {
			refs = append(refs, r)
			return nil
		})
		if err != nil || len(refs) != 0 {
			t.Errorf("Scan(%s) = %v, %v; want no session and no error", name, refs, err)
		}
	}
	// A root that does not exist is still an error (Find skips it only
	// among the stores' own roots).
	if err := (opencodestorage.Store{}).Scan(t.Context(), filepath.Join(dir, "nothing"), func(sessions.Ref) error { return nil }); err == nil {
		t.Error("Scan of a missing path: no error")
	}
}
