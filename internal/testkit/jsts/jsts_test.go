// Package jsts runs the official JSON Schema Test Suite
// (github.com/json-schema-org/JSON-Schema-Test-Suite) through the code
// path of `evtool validate --schema FILE`: each case's schema is a file
// that validate.CompileSchemaWith compiles, beside the suite's remotes,
// and each instance is a line that validate.Stream checks. Every
// required test of draft 2020-12 and draft-07 must pass; the optional
// ones (formats asserted, as with --assert-format) are only counted.
//
// The suite comes from Debian, which CI reaches: the package
// libtest-json-schema-acceptance-perl (Perl's Test::JSON::Schema::Acceptance)
// ships it whole, tests and remotes, at a pinned commit. The test uses,
// in this order, the directory in $EVTOOL_JSTS, the package where it is
// installed, a copy extracted earlier into the user's cache, or it
// downloads the .deb there with apt-get download and extracts it with
// dpkg-deb (no root needed, nothing installed). Without apt or the
// network it is skipped, saying so, except in CI (CI=true), where it
// fails.
package jsts

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/evtool/evtool/diag"
	"github.com/evtool/evtool/validate"
)

const (
	// debPackage at debVersion (Debian 12) holds the suite at commit
	// 47958f82d0ca44b82f3fb32744a0fb5aead191a6 (2023-04-01).
	debPackage = "libtest-json-schema-acceptance-perl"
	debVersion = "1.019-1"
	// shareDir is where the package puts the suite (tests/, remotes/).
	shareDir = "usr/share/perl5/auto/share/dist/Test-JSON-Schema-Acceptance"
)

// known lists the required tests evtool does not pass, as
// "draft/file.json: group description: test description", each with why.
// It is empty: every required test passes.
var known = map[string]string{}

// suite returns the directory that holds tests/ and remotes/.
func suite(t *testing.T) string {
	t.Helper()
	if d := os.Getenv("EVTOOL_JSTS"); d != "" {
		if !hasSuite(d) {
			t.Fatalf("EVTOOL_JSTS=%s holds no tests/draft2020-12 and remotes/", d)
		}
		return d
	}
	if d := "/" + shareDir; hasSuite(d) {
		return d
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = t.TempDir()
	}
	cached := filepath.Join(cache, "evtool", "jsts", debPackage+"_"+debVersion)
	if hasSuite(cached) {
		return cached
	}
	if err := download(cached); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the JSON Schema Test Suite could not be had from Debian: %v (CI must have it: apt-get update first)", err)
		}
		t.Skipf("the JSON Schema Test Suite is not here and could not be had from Debian (%v); "+
			"install it with apt-get install %s, or name a checkout of it in EVTOOL_JSTS", err, debPackage)
	}
	return cached
}

func hasSuite(d string) bool {
	for _, sub := range []string{"tests/draft2020-12", "tests/draft7", "remotes"} {
		if fi, err := os.Stat(filepath.Join(d, sub)); err != nil || !fi.IsDir() {
			return false
		}
	}
	return true
}

// download fetches the pinned .deb (the newest one when that version is
// gone from the archive) and extracts the suite into dest.
func download(dest string) error {
	for _, tool := range []string{"apt-get", "dpkg-deb"} {
		if _, err := exec.LookPath(tool); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dest), "download-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	run := func(name string, args ...string) error {
		cmd := exec.CommandContext(ctx, name, args...)
		cmd.Dir = tmp
		out, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, bytes.TrimSpace(out))
		}
		return nil
	}
	if err := run("apt-get", "download", debPackage+"="+debVersion); err != nil {
		if err2 := run("apt-get", "download", debPackage); err2 != nil {
			return errors.Join(err, err2)
		}
	}
	debs, _ := filepath.Glob(filepath.Join(tmp, debPackage+"_*.deb"))
	if len(debs) != 1 {
		return fmt.Errorf("apt-get download left %d .deb files", len(debs))
	}
	if err := run("dpkg-deb", "-x", debs[0], "x"); err != nil {
		return err
	}
	src := filepath.Join(tmp, "x", shareDir)
	if !hasSuite(src) {
		return fmt.Errorf("%s holds no suite in /%s", filepath.Base(debs[0]), shareDir)
	}
	// Renamed whole, so that a test running at the same time sees the
	// suite complete or not at all.
	if err := os.Rename(src, dest); err != nil && !hasSuite(dest) {
		return err
	}
	return nil
}

// group is one schema of a test file and the instances it judges.
type group struct {
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"schema"`
	Tests       []struct {
		Description string          `json:"description"`
		Data        json.RawMessage `json:"data"`
		Valid       bool            `json:"valid"`
	} `json:"tests"`
}

// tally counts the tests of one draft.
type tally struct{ passed, failed, skipped int }

func TestSuite(t *testing.T) {
	root := suite(t)
	// The remotes are served from http://localhost:1234/: evtool finds
	// each by the end of its URL's path, in the schema's directory.
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join(root, "remotes"))); err != nil {
		t.Fatal(err)
	}
	for _, draft := range []struct {
		name, metaschema string
		least            int // required tests: 1176 and 861 at the pinned commit
	}{
		{"draft2020-12", "https://json-schema.org/draft/2020-12/schema", 1100},
		{"draft7", "http://json-schema.org/draft-07/schema#", 800},
	} {
		t.Run(draft.name, func(t *testing.T) {
			files := testFiles(t, filepath.Join(root, "tests", draft.name))
			var req, opt tally
			var optFailed []string
			for _, f := range files {
				optional := strings.Contains(f, "optional"+string(filepath.Separator))
				name := draft.name + "/" + filepath.ToSlash(f)
				groups := readGroups(t, filepath.Join(root, "tests", draft.name, f))
				for _, g := range groups {
					where := name + ": " + g.Description
					sch, err := compile(dir, g.Schema, draft.metaschema, optional)
					for _, c := range g.Tests {
						id := where + ": " + c.Description
						var ok bool
						var why string
						if err != nil {
							why = err.Error()
						} else {
							var valid bool
							valid, why = check(sch, c.Data)
							ok = valid == c.Valid
							if why == "" {
								why = fmt.Sprintf("valid: got %v, want %v", valid, c.Valid)
							}
						}
						switch {
						case optional && ok:
							opt.passed++
						case optional:
							opt.failed++
							first, _, _ := strings.Cut(why, "\n")
							optFailed = append(optFailed, id+": "+first)
						case ok:
							req.passed++
							if _, listed := known[id]; listed {
								t.Errorf("%s: passes now; take it off the known list", id)
							}
						case known[id] != "":
							req.skipped++
						default:
							req.failed++
							t.Errorf("%s: %s\n  schema: %s\n  data: %s", id, why, g.Schema, c.Data)
						}
					}
				}
			}
			t.Logf("required: %d passed, %d failed, %d known; optional (formats asserted): %d passed, %d failed",
				req.passed, req.failed, req.skipped, opt.passed, opt.failed)
			if testing.Verbose() {
				for _, s := range optFailed {
					t.Logf("optional: %s", s)
				}
			}
			if req.passed < draft.least {
				t.Errorf("only %d required tests ran: is the suite whole?", req.passed)
			}
		})
	}
}

// testFiles lists the .json files under dir, relative to it, sorted.
func testFiles(t *testing.T, dir string) []string {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".json") {
			rel, _ := filepath.Rel(dir, p)
			files = append(files, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(files)
	return files
}

func readGroups(t *testing.T, path string) []group {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var gs []group
	if err := json.Unmarshal(b, &gs); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return gs
}

// schemaFile is the name of the schema under test among the remotes.
const schemaFile = "schema-under-test.json"

// compile writes a case's schema as a file beside the remotes and
// compiles it as `evtool validate --schema` does; an optional case is
// compiled as with --assert-format. A schema without "$schema" gets the
// draft's, as a user's file of that draft has (the suite's draft-07
// files leave it out; evtool reads such a file as draft 2020-12).
func compile(dir string, schema json.RawMessage, metaschema string, optional bool) (*validate.Schema, error) {
	var obj map[string]json.RawMessage
	if json.Unmarshal(schema, &obj) == nil {
		if _, ok := obj["$schema"]; !ok {
			obj["$schema"], _ = json.Marshal(metaschema)
			var err error
			if schema, err = json.Marshal(obj); err != nil {
				return nil, err
			}
		}
	}
	p := filepath.Join(dir, schemaFile)
	if err := os.WriteFile(p, schema, 0o644); err != nil {
		return nil, err
	}
	return validate.CompileSchemaWith(p, validate.SchemaOptions{AssertFormat: optional})
}

// check runs one instance, as one NDJSON line, through validate.Stream:
// valid when it has no error. why is the first error otherwise.
func check(sch *validate.Schema, data json.RawMessage) (valid bool, why string) {
	var line bytes.Buffer
	if err := json.Compact(&line, data); err != nil {
		return false, err.Error()
	}
	line.WriteByte('\n')
	valid = true
	_, err := validate.Stream(&line, "case.jsonl", validate.Options{Schema: sch}, func(d validate.Diagnostic) {
		if d.Severity == diag.Error {
			if valid {
				why = d.String()
			}
			valid = false
		}
	})
	if err != nil {
		return false, err.Error()
	}
	return valid, ""
}
