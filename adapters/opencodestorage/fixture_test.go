package opencodestorage_test

// Fixtures made from the producer's types: no real opencode database or
// storage directory was available, so the tests build both from the
// test streams, as opencode would hold them.
//
// The database schema is opencode's: the tables of its first migration
// (packages/opencode/migration/20260127222353_familiar_lady_ursula, the
// one 1.2.0 shipped), then the session columns later migrations added
// with ALTER TABLE (workspace_id, path, agent, model, cost, tokens_*), and
// the indexes opencode queries messages and parts by. That is the column
// order a database migrated from 1.2.0 has.

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
	_ "modernc.org/sqlite"
)

const schemaDDL = "CREATE TABLE `project` (`id` text PRIMARY KEY, `worktree` text NOT NULL, `vcs` text, `name` text, `icon_url` text, `icon_color` text, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `time_initialized` integer, `sandboxes` text NOT NULL);\n" +
	"CREATE TABLE `message` (`id` text PRIMARY KEY, `session_id` text NOT NULL, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `data` text NOT NULL, CONSTRAINT `fk_message_session_id_session_id_fk` FOREIGN KEY (`session_id`) REFERENCES `session`(`id`) ON DELETE CASCADE);\n" +
	"CREATE TABLE `part` (`id` text PRIMARY KEY, `message_id` text NOT NULL, `session_id` text NOT NULL, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `data` text NOT NULL, CONSTRAINT `fk_part_message_id_message_id_fk` FOREIGN KEY (`message_id`) REFERENCES `message`(`id`) ON DELETE CASCADE);\n" +
	"CREATE TABLE `permission` (`project_id` text PRIMARY KEY, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `data` text NOT NULL);\n" +
	"CREATE TABLE `session` (`id` text PRIMARY KEY, `project_id` text NOT NULL, `parent_id` text, `slug` text NOT NULL, `directory` text NOT NULL, `title` text NOT NULL, `version` text NOT NULL, `share_url` text, `summary_additions` integer, `summary_deletions` integer, `summary_files` integer, `summary_diffs` text, `revert` text, `permission` text, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `time_compacting` integer, `time_archived` integer, CONSTRAINT `fk_session_project_id_project_id_fk` FOREIGN KEY (`project_id`) REFERENCES `project`(`id`) ON DELETE CASCADE);\n" +
	"CREATE TABLE `todo` (`session_id` text NOT NULL, `content` text NOT NULL, `status` text NOT NULL, `priority` text NOT NULL, `position` integer NOT NULL, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, CONSTRAINT `todo_pk` PRIMARY KEY(`session_id`, `position`));\n" +
	"CREATE TABLE `session_share` (`session_id` text PRIMARY KEY, `id` text NOT NULL, `secret` text NOT NULL, `url` text NOT NULL, `time_created` integer NOT NULL, `time_updated` integer NOT NULL);\n" +
	"CREATE INDEX `session_project_idx` ON `session` (`project_id`);\n" +
	"CREATE INDEX `session_parent_idx` ON `session` (`parent_id`);\n" +
	"CREATE INDEX `todo_session_idx` ON `todo` (`session_id`);\n" +
	"ALTER TABLE `session` ADD `workspace_id` text;\n" +
	"ALTER TABLE `session` ADD `path` text;\n" +
	"ALTER TABLE `session` ADD `agent` text;\n" +
	"ALTER TABLE `session` ADD `model` text;\n" +
	"ALTER TABLE `session` ADD `cost` real DEFAULT 0 NOT NULL;\n" +
	"ALTER TABLE `session` ADD `tokens_input` integer DEFAULT 0 NOT NULL;\n" +
	"ALTER TABLE `session` ADD `tokens_output` integer DEFAULT 0 NOT NULL;\n" +
	"ALTER TABLE `session` ADD `tokens_reasoning` integer DEFAULT 0 NOT NULL;\n" +
	"ALTER TABLE `session` ADD `tokens_cache_read` integer DEFAULT 0 NOT NULL;\n" +
	"ALTER TABLE `session` ADD `tokens_cache_write` integer DEFAULT 0 NOT NULL;\n" +
	"CREATE INDEX `message_session_time_created_id_idx` ON `message` (`session_id`,`time_created`,`id`);\n" +
	"CREATE INDEX `part_message_id_id_idx` ON `part` (`message_id`,`id`);\n" +
	"CREATE INDEX `part_session_idx` ON `part` (`session_id`);\n"

// dbStreams are the test streams in the database's form whose every value
// a database holds as written (written_forward_compat.jsonl has a session
// column beyond an i64, which SQLite cannot hold as an integer).
var dbStreams = []string{
	"written_tools_reasoning.jsonl", "written_tool_states_aborted.jsonl", "written_errors_retry.jsonl",
	"written_compaction_subtask.jsonl", "invalid/written_unfinished.jsonl",
}

func readStream(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func streamLines(b []byte) []string {
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// openWriter opens a database read-write in WAL mode, as opencode does,
// creating opencode's schema if the file is new.
func openWriter(t testing.TB, path string, pragmas ...string) *sql.DB {
	t.Helper()
	dsn := "file:" + path + "?_pragma=journal_mode(WAL)&_pragma=busy_timeout(5000)&_pragma=synchronous(NORMAL)"
	for _, p := range pragmas {
		dsn += "&_pragma=" + p
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	var n int
	if err := db.QueryRow("SELECT count(*) FROM sqlite_master WHERE name = 'session'").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		if _, err := db.Exec(schemaDDL); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

// insertStream stores the records of a stream in the database, as
// opencode's tables hold them: the session as its row (a JSON object or
// array value in a JSON text column), messages and parts with their ids
// in columns and their data as JSON text, the todo list as rows.
func insertStream(t testing.TB, db *sql.DB, stream []byte) {
	t.Helper()
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range streamLines(stream) {
		r := gjson.Parse(l)
		data := r.Get("data")
		switch r.Get("type").Str {
		case "session":
			var cols, marks []string
			var vals []any
			data.ForEach(func(k, v gjson.Result) bool {
				cols = append(cols, "`"+k.Str+"`")
				marks = append(marks, "?")
				vals = append(vals, sqlValue(v))
				return true
			})
			if _, err := tx.Exec("INSERT INTO session ("+strings.Join(cols, ",")+") VALUES ("+strings.Join(marks, ",")+")", vals...); err != nil {
				t.Fatal(err)
			}
		case "message":
			created := data.Get("time.created").Int()
			updated := created
			if c := data.Get("time.completed"); c.Exists() {
				updated = c.Int()
			}
			if _, err := tx.Exec("INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)",
				r.Get("id").Str, r.Get("sessionID").Str, created, updated, data.Raw); err != nil {
				t.Fatal(err)
			}
		case "part":
			if _, err := tx.Exec("INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)",
				r.Get("id").Str, r.Get("messageID").Str, r.Get("sessionID").Str, 1767000000000, 1767000000000, data.Raw); err != nil {
				t.Fatal(err)
			}
		case "todo":
			for i, e := range data.Array() {
				if _, err := tx.Exec("INSERT INTO todo (session_id, content, status, priority, position, time_created, time_updated) VALUES (?, ?, ?, ?, ?, 0, 0)",
					r.Get("sessionID").Str, e.Get("content").Str, e.Get("status").Str, e.Get("priority").Str, i); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// sqlValue is a session column's value: JSON values as their text, an
// integer as int64, another number as float64.
func sqlValue(v gjson.Result) any {
	switch v.Type {
	case gjson.Null:
		return nil
	case gjson.String:
		return v.Str
	case gjson.Number:
		if strings.ContainsAny(v.Raw, ".eE") {
			return v.Num
		}
		return v.Int()
	case gjson.True, gjson.False:
		return v.Bool()
	}
	return v.Raw
}

// writeStorage writes the records of a stream as opencode's JSON storage
// (1.1 and before) lays them out, each file indented as opencode writes
// them, with the ids the database keeps in columns back in the records.
func writeStorage(t testing.TB, storage string, stream []byte) {
	t.Helper()
	write := func(path string, ids [][2]string, data gjson.Result) {
		var b bytes.Buffer
		if len(ids) > 0 {
			b.WriteByte('{')
			for _, kv := range ids {
				k, _ := json.Marshal(kv[0])
				v, _ := json.Marshal(kv[1])
				b.Write(k)
				b.WriteByte(':')
				b.Write(v)
				b.WriteByte(',')
			}
			b.WriteString(strings.TrimPrefix(data.Raw, "{"))
		} else {
			b.WriteString(data.Raw)
		}
		var out bytes.Buffer
		if err := json.Indent(&out, b.Bytes(), "", "  "); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, l := range streamLines(stream) {
		r := gjson.Parse(l)
		data := r.Get("data")
		id, sid, mid := r.Get("id").Str, r.Get("sessionID").Str, r.Get("messageID").Str
		switch r.Get("type").Str {
		case "session":
			project := data.Get("projectID").Str
			if project == "" {
				project = data.Get("project_id").Str
			}
			write(filepath.Join(storage, "session", project, id+".json"), nil, data)
		case "message":
			write(filepath.Join(storage, "message", sid, id+".json"), [][2]string{{"id", id}, {"sessionID", sid}}, data)
		case "part":
			write(filepath.Join(storage, "part", mid, id+".json"), [][2]string{{"id", id}, {"sessionID", sid}, {"messageID", mid}}, data)
		case "todo":
			write(filepath.Join(storage, "todo", sid+".json"), nil, data)
		}
	}
}
