package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLineList(t *testing.T) {
	for _, c := range []struct {
		in   []int
		want string
	}{
		{[]int{3}, "line 3"},
		{[]int{3, 6}, "lines 3, 6"},
		{[]int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, "lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 and 2 more"},
	} {
		if got := lineList(c.in); got != c.want {
			t.Errorf("lineList(%v) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestPlural(t *testing.T) {
	for n, want := range map[int]string{0: "0 lines", 1: "1 line", 2: "2 lines"} {
		if got := plural(n, "line"); got != want {
			t.Errorf("plural(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestUsageErrors requires every usage error to be two lines on stderr,
// the second pointing at the command's help, exit 2, nothing on stdout.
func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"nope"},
		{"convert"},
		{"convert", "--to", "basis", "--frob"},
		{"convert", "--to", "basis", "--on-error", "ignore"},
		{"convert", "--to", "basis", "--transcript"},
		{"validate"},
		{"validate", "-x", "f"},
		{"schema"},
		{"dialects", "x"},
		{"acp"},
		{"acp", "replay"},
		{"completion", "csh"},
	} {
		var out, errb bytes.Buffer
		code := Run(append([]string{"evtool"}, args...), strings.NewReader(""), &out, &errb)
		lines := strings.Split(strings.TrimSuffix(errb.String(), "\n"), "\n")
		if code != ExitUsage || out.Len() > 0 || len(lines) != 2 || !strings.HasPrefix(lines[1], "see 'evtool") || !strings.HasSuffix(lines[1], " --help'") {
			t.Errorf("evtool %s: exit %d, stdout %q, stderr %q", strings.Join(args, " "), code, out.String(), errb.String())
		}
	}
}

// TestOutput writes through the temporary file: commit replaces the
// target, abort leaves it as it was, and neither leaves a temporary file.
func TestOutput(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "out.jsonl")
	if err := os.WriteFile(target, []byte("before\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	o, err := createOutput(target)
	if err != nil {
		t.Fatal(err)
	}
	o.w.Write([]byte("half"))
	if !o.abort() {
		t.Error("abort: no target")
	}
	if b, _ := os.ReadFile(target); string(b) != "before\n" {
		t.Errorf("after abort: %q", b)
	}
	o, err = createOutput(target)
	if err != nil {
		t.Fatal(err)
	}
	o.w.Write([]byte("after\n"))
	if err := o.commit(); err != nil {
		t.Fatal(err)
	}
	o.abort() // after commit, a no-op
	if b, _ := os.ReadFile(target); string(b) != "after\n" {
		t.Errorf("after commit: %q", b)
	}
	if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want the target's 0600", fi.Mode().Perm())
	}
	if m, _ := filepath.Glob(filepath.Join(dir, ".*")); len(m) > 0 {
		t.Errorf("temporary files left: %v", m)
	}
	if _, err := createOutput(dir); err == nil {
		t.Error("a directory as output was accepted")
	}
}

func TestVersion(t *testing.T) {
	if Version() == "" {
		t.Error("no version")
	}
	defer func(v string) { version = v }(version)
	version = "v1.2.3"
	var out bytes.Buffer
	if code := Run([]string{"evtool", "--version"}, nil, &out, &out); code != 0 || out.String() != "evtool v1.2.3\n" {
		t.Errorf("--version: exit %d, %q", code, out.String())
	}
}
