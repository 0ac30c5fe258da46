package cli

import (
	"bytes"
	"io"
	"slices"
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
	defer func(f func(io.Reader) bool) { stdinIsTerminal = f }(stdinIsTerminal)
	stdinIsTerminal = func(io.Reader) bool { return true }
	for _, args := range [][]string{
		{},
		{"nope"},
		{"convert"},
		{"convert", "--to", "basis", "--frob"},
		{"convert", "--to", "basis", "--on-error", "ignore"},
		{"convert", "--to", "basis", "--transcript"},
		{"validate"},
		{"stats"},
		{"fingerprint"},
		{"validate", "-x", "f"},
		{"validate", "-j", "-1", "f"},
		{"convert", "-f", "basis", "--to", "canonical"},
		{"convert", "--to", "none"},
		{"acp", "replay", "--rate", "-1", "f"},
		{"acp", "nope"},
		{"help", "nope"},
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

// TestStdinTerminal: with no operand, validate, stats and fingerprint read
// a stdin that is not a terminal, and refuse to wait on one that is.
func TestStdinTerminal(t *testing.T) {
	defer func(f func(io.Reader) bool) { stdinIsTerminal = f }(stdinIsTerminal)
	line := `{"seq":0,"type":"run_started","schema":2,"basis":"0.6.2","session_id":"s","workspace":"/r","model":"m","provider":"p","context_files":[]}` + "\n"
	for _, cmd := range []string{"validate", "stats", "fingerprint"} {
		stdinIsTerminal = func(io.Reader) bool { return true }
		var out, errb bytes.Buffer
		code := Run([]string{"evtool", cmd}, strings.NewReader(line), &out, &errb)
		if code != ExitUsage || !strings.Contains(errb.String(), "name at least one FILE or DIR, or - for stdin (stdin is a terminal") {
			t.Errorf("%s on a terminal: exit %d, stderr %q", cmd, code, errb.String())
		}
		stdinIsTerminal = func(io.Reader) bool { return false }
		out.Reset()
		errb.Reset()
		code = Run([]string{"evtool", cmd}, strings.NewReader(line), &out, &errb)
		if code == ExitUsage || strings.Contains(errb.String(), "name at least one") {
			t.Errorf("%s on a pipe: exit %d, stderr %q", cmd, code, errb.String())
		}
	}
}

// TestNormalizeArgs: attached short-flag values and a bare --progress,
// which the library does not parse, are rewritten; nothing else is.
func TestNormalizeArgs(t *testing.T) {
	for _, c := range []struct{ in, want []string }{
		{[]string{"convert", "-tbasis", "-sq", "--", "f"}, []string{"convert", "-t", "basis", "-sq", "--", "f"}},
		{[]string{"convert", "-sqtbasis", "f"}, []string{"convert", "-sqt", "basis", "f"}},
		{[]string{"convert", "-t=basis", "f"}, []string{"convert", "-t=basis", "f"}}, // the library parses it
		{[]string{"convert", "-sqt", "basis", "f"}, []string{"convert", "-sqt", "basis", "f"}},
		{[]string{"convert", "-o", "-tbasis", "f"}, []string{"convert", "-o", "-tbasis", "f"}},
		{[]string{"convert", "--progress", "f"}, []string{"convert", "--progress=auto", "f"}},
		{[]string{"convert", "--progress=always", "f"}, []string{"convert", "--progress=always", "f"}},
		{[]string{"convert", "--", "-tbasis"}, []string{"convert", "--", "-tbasis"}},
		{[]string{"validate", "-j", "-1", "-"}, []string{"validate", "-j", "-1", "-"}},
		{[]string{"conver", "--to", "x"}, []string{"--", "conver", "--to", "x"}},
		{[]string{"acp", "replai", "-f", "x"}, []string{"acp", "--", "replai", "-f", "x"}},
		{[]string{"acp", "replay", "--from", "basis", "f"}, []string{"acp", "replay", "--from", "basis", "f"}},
	} {
		if got := normalizeArgs(newRoot(c.in), c.in); !slices.Equal(got, c.want) {
			t.Errorf("normalizeArgs(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestSuggest(t *testing.T) {
	names := []string{"acp", "basis", "canonical", "claude", "codex", "gemini", "mermaid", "muse", "opencode", "none"}
	for word, want := range map[string]string{
		"musse": "muse", "Basis": "basis", "canonicl": "canonical", "mermiad": "mermaid",
		"klingon": "", "x": "", "cod": "codex", "gemni": "gemini", "open": "opencode",
	} {
		if got := suggest(word, names); got != want {
			t.Errorf("suggest(%q) = %q, want %q", word, got, want)
		}
	}
}
