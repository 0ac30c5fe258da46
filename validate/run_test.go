package validate_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/evtool/evtool/validate"
)

// tree writes files under a temporary directory and returns it.
func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func names(ins []validate.Input) []string {
	var out []string
	for _, in := range ins {
		out = append(out, in.Name)
	}
	return out
}

func TestInputs(t *testing.T) {
	dir := tree(t, map[string]string{
		"b/z.jsonl": "", "b/a.ndjson": "", "b/deep/er/c.JSONL": "", "b/notes.txt": "", "b/x.json": "",
		"one.txt": "", "empty/readme.md": "",
	})
	t.Chdir(dir)
	got, err := validate.Inputs([]string{"one.txt", "b", "-", "b/z.jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"<stdin>", "b/a.ndjson", "b/deep/er/c.JSONL", "b/z.jsonl", "one.txt"}
	if fmt.Sprint(names(got)) != fmt.Sprint(want) {
		t.Errorf("got %v, want %v", names(got), want)
	}
	if got[0].Path != "" || got[1].Path != "b/a.ndjson" {
		t.Errorf("paths: %+v", got)
	}
	// A directory without streams fails in its place, the others read.
	if ins, err := validate.Inputs([]string{"empty", "one.txt"}); err != nil || len(ins) != 2 || ins[0].Open == nil {
		t.Errorf("a directory without streams: %v, %+v", err, ins)
	} else if _, err := ins[0].Open(); err == nil || !strings.Contains(err.Error(), "empty: a directory without *.jsonl") {
		t.Errorf("a directory without streams opens: %v", err)
	}
	// A missing file is an input, which fails when it is read.
	ins, err := validate.Inputs([]string{"missing.jsonl"})
	if err != nil || len(ins) != 1 {
		t.Fatalf("missing file: %v %v", ins, err)
	}
	validate.Run(ins, validate.RunOptions{}, func(r *validate.Result) {
		if r.Err == nil || !strings.Contains(r.Err.Error(), "no such file") {
			t.Errorf("missing file: %+v", r)
		}
	})
}

// A directory holding a stream and a compressed copy of it (Codex
// compresses a rollout to .jsonl.zst and keeps appending to the plain one
// while both exist) stands for the plain file alone, as the session store
// reads it: the copy would count every line twice. A compressed file
// without its plain sibling is read, and one named is itself.
func TestInputsPlainSiblingWins(t *testing.T) {
	dir := tree(t, map[string]string{
		"s/r.jsonl": "", "s/r.jsonl.zst": "", "s/g.ndjson": "", "s/g.ndjson.gz": "",
		"s/only.jsonl.zst": "", "s/UP.JSONL": "", "s/UP.JSONL.GZ": "",
	})
	t.Chdir(dir)
	got, err := validate.Inputs([]string{"s", "s/r.jsonl.zst"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"s/UP.JSONL", "s/g.ndjson", "s/only.jsonl.zst", "s/r.jsonl", "s/r.jsonl.zst"}
	if fmt.Sprint(names(got)) != fmt.Sprint(want) {
		t.Errorf("got %v, want %v", names(got), want)
	}
	got, err = validate.Inputs([]string{"s"})
	if err != nil {
		t.Fatal(err)
	}
	want = []string{"s/UP.JSONL", "s/g.ndjson", "s/only.jsonl.zst", "s/r.jsonl"}
	if fmt.Sprint(names(got)) != fmt.Sprint(want) {
		t.Errorf("the directory alone: got %v, want %v", names(got), want)
	}
}

// many writes n broken streams and returns their inputs.
func many(t *testing.T, n int) []validate.Input {
	t.Helper()
	files := map[string]string{}
	for i := range n {
		body := brokenBasis
		if i%3 == 1 {
			body = head + "\n" + `{"seq":1,"type":"run_finished","status":"ok"}` + "\n"
		}
		if i%5 == 4 {
			body = `{"hello":"world"}` + "\n"
		}
		files[fmt.Sprintf("s%02d.jsonl", i)] = body
	}
	ins, err := validate.Inputs([]string{tree(t, files)})
	if err != nil {
		t.Fatal(err)
	}
	return ins
}

func render(t *testing.T, ins []validate.Input, opts validate.RunOptions) (string, validate.Totals, int) {
	t.Helper()
	var b strings.Builder
	var tot validate.Totals
	n, err := validate.Run(ins, opts, func(r *validate.Result) {
		tot.Add(r)
		fmt.Fprintf(&b, "== %s %+v err=%v\n", filepath.Base(r.File), r.Summary, r.Err)
		for _, d := range r.Diagnostics {
			b.WriteString(strings.TrimPrefix(d.String(), filepath.Dir(r.File)) + "\n")
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String(), tot, n
}

// The same inputs give the same output whatever the number of workers,
// and two runs side by side give the same bytes.
func TestRunDeterministic(t *testing.T) {
	ins := many(t, 20)
	want, tot, n := render(t, ins, validate.RunOptions{Workers: 1})
	if n != 20 || tot.Files != 20 || tot.Failed != 4 || tot.Errors == 0 {
		t.Fatalf("n=%d totals %+v", n, tot)
	}
	var wg sync.WaitGroup
	outs := make([]string, 4)
	for i := range outs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i], _, _ = render(t, ins, validate.RunOptions{Workers: 2 + i})
		}()
	}
	wg.Wait()
	for i, got := range outs {
		if got != want {
			t.Errorf("run %d differs:\n%s\nwant\n%s", i, got, want)
		}
	}
	if !strings.Contains(want, "== s04.jsonl") || !strings.Contains(want, "cannot tell the dialect") {
		t.Errorf("an undetected stream must be a result with its error:\n%s", want)
	}
	if s := tot.String(); s != fmt.Sprintf("20 files, %d lines, %d errors, %d warnings, 4 not checked", tot.Lines, tot.Errors, tot.Warnings) {
		t.Errorf("totals %q", s)
	}
	one := validate.Totals{Files: 1, Lines: 1, Errors: 1, Warnings: 1}
	if one.String() != "1 file, 1 line, 1 error, 1 warning" {
		t.Errorf("totals %q", one.String())
	}
}

// MaxErrors counts across inputs, in their order, whatever the workers.
func TestRunMaxErrors(t *testing.T) {
	ins := many(t, 20)
	for _, max := range []int{1, 2, 3, 5, 7} {
		var first string
		for _, w := range []int{1, 4} {
			out, tot, n := render(t, ins, validate.RunOptions{Workers: w, Options: validate.Options{MaxErrors: max}})
			if tot.Errors != max || n >= 20 {
				t.Errorf("max %d workers %d: %d errors in %d files", max, w, tot.Errors, n)
			}
			if first == "" {
				first = out
			} else if out != first {
				t.Errorf("max %d: workers change the output:\n%s\n%s", max, out, first)
			}
		}
	}
}

// Valid and invalid lines of several inputs come out in the inputs'
// order, as one input after the other would give them.
func TestRunTriage(t *testing.T) {
	ins := many(t, 9)
	var v1, i1 bytes.Buffer
	render(t, ins, validate.RunOptions{Workers: 1, Options: validate.Options{Valid: &v1, Invalid: &i1}})
	spool := t.TempDir()
	var v4, i4 bytes.Buffer
	render(t, ins, validate.RunOptions{Workers: 4, SpoolDir: spool, Options: validate.Options{Valid: &v4, Invalid: &i4}})
	if v1.String() != v4.String() || i1.String() != i4.String() {
		t.Errorf("parallel triage differs")
	}
	if v1.Len() == 0 || i1.Len() == 0 {
		t.Errorf("valid %d bytes, invalid %d", v1.Len(), i1.Len())
	}
	if left, _ := os.ReadDir(spool); len(left) != 0 {
		t.Errorf("spools left behind: %v", left)
	}
	if _, err := validate.Run(ins, validate.RunOptions{Options: validate.Options{Valid: &v1, MaxErrors: 1}}, func(*validate.Result) {}); err == nil {
		t.Error("MaxErrors with triage must be refused")
	}
}

func TestRunStdin(t *testing.T) {
	out, tot, _ := render(t, []validate.Input{{Name: validate.StdinName}}, validate.RunOptions{Stdin: strings.NewReader(brokenBasis)})
	if tot.Errors == 0 || !strings.Contains(out, "<stdin>:2:") {
		t.Errorf("%s", out)
	}
}

// One file named by two spellings (./a and a, a hard link, a symbolic
// link) is one input, the first name of it kept: read twice, its figures
// would count twice.
func TestInputsSameFileOnce(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.jsonl")
	if err := os.WriteFile(a, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(a, filepath.Join(dir, "hard.jsonl")); err != nil {
		t.Skip("no hard links here:", err)
	}
	if err := os.Symlink(a, filepath.Join(dir, "soft.jsonl")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	other := filepath.Join(dir, "other.jsonl")
	if err := os.WriteFile(other, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dotted := dir + string(filepath.Separator) + "." + string(filepath.Separator) + "a.jsonl"
	in, err := validate.Inputs([]string{dir, dotted, a})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, x := range in {
		names = append(names, filepath.Base(x.Name))
	}
	if len(in) != 2 || !slices.Contains(names, "other.jsonl") {
		t.Errorf("inputs %v, want the one file once and other.jsonl", names)
	}
}

// A folder below a directory operand that cannot be read fails in its
// place; the other files are still inputs.
func TestInputsUnreadableFolder(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads every folder")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.jsonl"), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o000); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(sub, 0o755)
	in, err := validate.Inputs([]string{dir})
	if err != nil {
		t.Fatalf("one unreadable folder failed the whole run: %v", err)
	}
	if len(in) != 2 {
		t.Errorf("inputs %v, want a.jsonl and the folder that fails in its place", in)
	}
}
