package validate_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/evtool/evtool/validate"
)

// writeFiles lays out files (name → content) in a new directory.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// check returns "pointer keyword" for each diagnostic of each line.
func checkLines(t *testing.T, s *validate.Schema, lines ...string) []string {
	t.Helper()
	var got []string
	_, err := validate.Stream(strings.NewReader(strings.Join(lines, "\n")+"\n"), "in.jsonl", validate.Options{Schema: s},
		func(d validate.Diagnostic) { got = append(got, d.Pointer+" "+d.Keyword) })
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// A file beside the schema is found by its $id and by its name: also a
// file whose $id is not the URL it is referred to by (the JSON Schema
// Test Suite's refRemote "remote HTTP ref with different $id" and
// "different URN $id", issue 28), a file below the directory by the end
// of the URL's path, and a file by a URN $id.
func TestUserSchemaSiblings(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"main.schema.json": `{
			"$id": "http://localhost:1234/main.schema.json",
			"properties": {
				"differentId": {"$ref": "http://localhost:1234/different-id-ref-string.json"},
				"urnId": {"$ref": "http://localhost:1234/urn-ref-string.json"},
				"byUrn": {"$ref": "urn:uuid:feebdaed-ffff-0000-ffff-0000deadbeef"},
				"below": {"$ref": "http://localhost:1234/draft2020-12/nested/string.json"},
				"relative": {"$ref": "nested/string.json"},
				"byId": {"$ref": "https://elsewhere.example/money#/$defs/amount"}
			}
		}`,
		"different-id-ref-string.json": `{"$id": "http://localhost:1234/real-id-ref-string.json", "$defs": {"bar": {"type": "string"}}, "$ref": "#/$defs/bar"}`,
		"urn-ref-string.json":          `{"$id": "urn:uuid:feebdaed-ffff-0000-ffff-0000deadbeef", "$defs": {"bar": {"type": "string"}}, "$ref": "#/$defs/bar"}`,
		"nested/string.json":           `{"type": "string"}`,
		"money.json":                   `{"$id": "https://elsewhere.example/money", "$defs": {"amount": {"type": "string", "pattern": "^[0-9]+$"}}}`,
		"notes.json":                   `not JSON: a sibling that is no schema is skipped`,
	})
	s, err := validate.CompileSchema(filepath.Join(dir, "main.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	got := checkLines(t, s,
		`{"differentId":"a","urnId":"b","byUrn":"c","below":"d","relative":"e","byId":"12"}`,
		`{"differentId":1,"urnId":2,"byUrn":3,"below":4,"relative":5,"byId":"x"}`)
	want := "/differentId type|/urnId type|/byUrn type|/below type|/relative type|/byId pattern"
	if strings.Join(got, "|") != want {
		t.Errorf("got  %q\nwant %q", strings.Join(got, "|"), want)
	}
}

// A URL that is neither an $id nor the path of a file there is refused,
// and so is a URN no file there has as its $id: never the network.
func TestUserSchemaSiblingMissing(t *testing.T) {
	for ref, msg := range map[string]string{
		"http://localhost:1234/nowhere.json":            "never fetches schemas from the network",
		"urn:uuid:00000000-0000-0000-0000-000000000000": "only local files are read",
		"http://localhost:1234/../../etc/passwd":        "never fetches schemas from the network",
	} {
		dir := writeFiles(t, map[string]string{"main.json": `{"$ref": "` + ref + `"}`})
		_, err := validate.CompileSchema(filepath.Join(dir, "main.json"))
		if err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: got %v", ref, err)
		}
	}
}

// A file the schema refers to without a "$schema" of its own is read in
// the schema's draft: draft-07 asserts "format", 2020-12 only annotates
// it, in the sibling file too.
func TestUserSchemaSiblingDraft(t *testing.T) {
	for draft, want := range map[string]string{
		`"$schema": "http://json-schema.org/draft-07/schema#",`:      "/who format",
		`"$schema": "https://json-schema.org/draft/2020-12/schema",`: "",
		``: "",
	} {
		dir := writeFiles(t, map[string]string{
			"main.json":  `{` + draft + ` "properties": {"who": {"$ref": "email.json"}}}`,
			"email.json": `{"type": "string", "format": "email"}`,
		})
		s, err := validate.CompileSchema(filepath.Join(dir, "main.json"))
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(checkLines(t, s, `{"who":"nobody"}`, `{"who":"ada@example.org"}`), "|"); got != want {
			t.Errorf("%s: got %q, want %q", draft, got, want)
		}
	}
}

// A reference names a file beside the schema or below it, and no other:
// "../x.json" and an absolute file URL reached anywhere, and a named pipe
// beside the schema blocked the $id scan for good (hunt-hostile D14).
func TestUserSchemaConfined(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"parent.json":        `{"type":"object"}`,
		"d/sub/inner.json":   `{"type":"object","required":["a"]}`,
		"d/down.schema.json": `{"$ref":"sub/inner.json"}`,
		"d/up.schema.json":   `{"$ref":"../parent.json"}`,
	})
	abs := filepath.Join(dir, "d", "abs.schema.json")
	if err := os.WriteFile(abs, []byte(`{"$ref":"file://`+filepath.ToSlash(filepath.Join(dir, "parent.json"))+`"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := validate.CompileSchema(filepath.Join(dir, "d", "down.schema.json")); err != nil {
		t.Errorf("below the schema: %v", err)
	}
	for _, name := range []string{"up", "abs"} {
		_, err := validate.CompileSchema(filepath.Join(dir, "d", name+".schema.json"))
		if err == nil || !strings.Contains(err.Error(), "outside the schema's directory") {
			t.Errorf("%s: %v, want it refused as outside the schema's directory", name, err)
		}
	}
	fifo := filepath.Join(dir, "d", "fifo.json")
	if err := mkfifo(fifo); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	net := filepath.Join(dir, "d", "net.schema.json")
	if err := os.WriteFile(net, []byte(`{"$ref":"https://example.com/x.json"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := validate.CompileSchema(net)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "never fetches") {
			t.Errorf("net: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the $id scan blocks on a named pipe beside the schema")
	}
}
