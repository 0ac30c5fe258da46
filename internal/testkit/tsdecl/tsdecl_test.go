// Package tsdecl tests the TypeScript declarations shipped in schema/types:
// that they are what testdata/gen.mjs (json-schema-to-typescript, pinned
// in testdata/package-lock.json) makes of schema/*.schema.json today, that
// they compile under tsc --strict (typescript, pinned in the same lock),
// and that a program reading every line of every test stream narrows each
// dialect's union on its tag and reads a field of each type without a
// cast. `make test` installs the tools with npm ci; the tests are skipped
// only when node is missing.
package tsdecl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	_ "github.com/evtool/evtool/adapters"
	"github.com/evtool/evtool/convert"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/internal/testkit/teststreams"
)

// tools returns node and the directory of the pinned tools.
func tools(t *testing.T) (node, dir string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skipf("node is not installed: %v", err)
	}
	dir, err = filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"json-schema-to-typescript", "typescript"} {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", m)); err != nil {
			t.Fatalf("%s is not installed (make test runs npm ci --prefix internal/testkit/tsdecl/testdata): %v", m, err)
		}
	}
	return node, dir
}

func run(t *testing.T, dir string, name string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s%s", name, strings.Join(args, " "), err, out, stderr.Bytes())
	}
	return out
}

// TestDeclarationsUpToDate regenerates the declarations into a temporary
// directory and compares them with schema/types.
func TestDeclarationsUpToDate(t *testing.T) {
	node, dir := tools(t)
	root := teststreams.Root()
	tmp := t.TempDir()
	run(t, dir, node, "gen.mjs", filepath.Join(root, "schema"), tmp)
	shipped := filepath.Join(root, "schema", "types")
	want, _ := filepath.Glob(filepath.Join(tmp, "*.d.ts"))
	have, _ := filepath.Glob(filepath.Join(shipped, "*.d.ts"))
	want = append(want, filepath.Join(tmp, "package.json"))
	have = append(have, filepath.Join(shipped, "package.json"))
	if len(want) < 14 {
		t.Fatalf("gen.mjs wrote only %d declaration files", len(want))
	}
	base := func(ps []string) []string {
		out := make([]string, len(ps))
		for i, p := range ps {
			out[i] = filepath.Base(p)
		}
		return out
	}
	if !slices.Equal(base(want), base(have)) {
		t.Fatalf("schema/types holds %v, the schemas make %v: run make types", base(have), base(want))
	}
	for _, w := range want {
		a, err := os.ReadFile(w)
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(shipped, filepath.Base(w)))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("schema/types/%s is stale: run make types", filepath.Base(w))
		}
	}
}

// TestNarrowing compiles the declarations and a program over every test
// stream under tsc --strict, and runs it.
func TestNarrowing(t *testing.T) {
	node, dir := tools(t)
	root := teststreams.Root()
	tmp := t.TempDir()

	// The package as a user installs it.
	pkg := filepath.Join(tmp, "node_modules", "@evtool")
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "schema", "types"), filepath.Join(pkg, "schema-types")); err != nil {
		t.Fatal(err)
	}

	var prog strings.Builder
	prog.WriteString(programHead)
	manifest := map[string][]string{}
	var names []string
	for _, d := range dialect.All() {
		name := d.Name()
		if name == "acp" {
			continue // acp.schema.json is ACP's subset, not a union of evtool's
		}
		doc, err := os.ReadFile(filepath.Join(root, "schema", name+".schema.json"))
		if err != nil {
			t.Fatal(err)
		}
		files := streams(t, d, tmp)
		if len(files) == 0 {
			t.Fatalf("%s: no test streams", name)
		}
		manifest[name] = files
		names = append(names, name)
		fn, err := narrower(name, doc, tagValues(t, files))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		prog.WriteString(fn)
	}
	prog.WriteString("const narrowers: Record<string, (line: any) => boolean> = {\n")
	for _, n := range names {
		fmt.Fprintf(&prog, "  %q: narrow_%s,\n", n, ident(n))
	}
	prog.WriteString("};\n" + programTail)

	files := map[string]string{
		"narrow.ts":     prog.String(),
		"node.d.ts":     nodeDecls,
		"package.json":  `{"type": "module"}`,
		"tsconfig.json": tsconfig,
	}
	for n, s := range files {
		if err := os.WriteFile(filepath.Join(tmp, n), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mb, _ := json.Marshal(manifest)
	if err := os.WriteFile(filepath.Join(tmp, "manifest.json"), mb, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, filepath.Join(dir, "node_modules", "typescript", "bin", "tsc"), "-p", tmp)
	cmd.Dir = tmp
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tsc --strict: %v\n%s\nthe program:\n%s", err, out, numbered(prog.String()))
	}
	out := run(t, tmp, node, filepath.Join(tmp, "out", "narrow.js"), filepath.Join(tmp, "manifest.json"))
	var counts map[string]struct{ Lines, Known, Skipped int }
	if err := json.Unmarshal(out, &counts); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for _, n := range names {
		c := counts[n]
		t.Logf("%s: %d lines, %d of a known type (%d not objects, or not JSON)", n, c.Lines, c.Known, c.Skipped)
		if c.Lines == 0 || c.Known == 0 {
			t.Errorf("%s: the program read %d lines, %d of a known type", n, c.Lines, c.Known)
		}
	}
}

// streams returns every test stream of a dialect, and for a dialect with
// none of its own (canonical), every other dialect's valid streams
// converted into it.
func streams(t *testing.T, d dialect.Dialect, tmp string) []string {
	t.Helper()
	name := d.Name()
	files := append(teststreams.Valid(name), teststreams.Invalid(name)...)
	if len(files) > 0 {
		sort.Strings(files)
		return files
	}
	dir := filepath.Join(tmp, "converted", name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, src := range dialect.All() {
		if src.Name() == name || src.Name() == "acp" {
			continue
		}
		for i, f := range teststreams.Valid(src.Name()) {
			in, err := os.Open(f)
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			_, err = convert.Run(in, &b, f, convert.Options{From: src, To: d}, func(*convert.LineError) {})
			in.Close()
			if err != nil || b.Len() == 0 {
				continue
			}
			p := filepath.Join(dir, fmt.Sprintf("%s-%d.jsonl", src.Name(), i))
			if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			files = append(files, p)
		}
	}
	return files
}

// tagValues returns the string values of the tags the streams' lines
// hold, for the tags a pattern, not a list, names (muse's run.terminal.*).
func tagValues(t *testing.T, files []string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range bytes.Split(data, []byte("\n")) {
			var m map[string]any
			if json.Unmarshal(l, &m) != nil {
				continue
			}
			for _, v := range m {
				if s, ok := v.(string); ok && len(s) < 80 {
					out[s] = true
				}
			}
		}
	}
	return out
}

func ident(name string) string { return strings.ReplaceAll(name, "-", "_") }

func numbered(s string) string {
	var b strings.Builder
	for i, l := range strings.Split(s, "\n") {
		fmt.Fprintf(&b, "%4d  %s\n", i+1, l)
	}
	return b.String()
}

const tsconfig = `{
  "compilerOptions": {
    "strict": true,
    "target": "es2022",
    "module": "nodenext",
    "moduleResolution": "nodenext",
    "outDir": "out",
    "rootDir": ".",
    "types": [],
    "skipLibCheck": false,
    "noUnusedLocals": true
  },
  "files": ["narrow.ts", "node.d.ts"]
}
`

// nodeDecls declares the little of Node.js the program uses, so that no
// @types/node is needed.
const nodeDecls = `declare module "node:fs" {
  export function readFileSync(path: string, encoding: "utf8"): string;
}
declare const process: { argv: string[]; stdout: { write(s: string): boolean } };
`

const programHead = `// Generated by internal/testkit/tsdecl: every line of every test stream,
// narrowed on its dialect's tag with a switch; each case reads a field of
// its own type, which only narrowing makes anything but unknown.
import { readFileSync } from "node:fs";
import type * as types from "@evtool/schema-types";

let sink = 0;
// known accepts any value whose type is not unknown: a field read from a
// union that did not narrow would be unknown (through the index
// signatures of the other branches), and fail to compile here.
function known<T>(v: unknown extends T ? never : T): void {
  sink += v === undefined ? 0 : 1;
}

`

const programTail = `
const manifest: Record<string, string[]> = JSON.parse(readFileSync(process.argv[2], "utf8"));
const counts: Record<string, { lines: number; known: number; skipped: number }> = {};
for (const [dialect, files] of Object.entries(manifest)) {
  const c = (counts[dialect] = { lines: 0, known: 0, skipped: 0 });
  for (const file of files) {
    for (const text of readFileSync(file, "utf8").split("\n")) {
      if (text.trim() === "") continue;
      c.lines++;
      let line: unknown;
      try {
        line = JSON.parse(text);
      } catch {
        c.skipped++;
        continue;
      }
      if (typeof line !== "object" || line === null || Array.isArray(line)) {
        c.skipped++;
        continue;
      }
      try {
        if (narrowers[dialect](line)) c.known++;
      } catch {
        // A line the schema rejects may hold null where the types say an
        // object: reading into it throws. It has been counted.
      }
    }
  }
}
process.stdout.write(JSON.stringify(Object.fromEntries(Object.entries(counts).map(([d, c]) => [d, { Lines: c.lines, Known: c.known, Skipped: c.skipped }]))) + "\n");
if (sink < 0) process.stdout.write("");
`
