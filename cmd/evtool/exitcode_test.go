package main

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/evtool/evtool/cli"
)

// TestExitCodeTable holds README.md's table of exit codes to the codes
// package cli defines, word for word, and runs a case of each: 0, 1 and 2
// here, 130 and 143 (signals) in testdata/script/pipes.txtar.
func TestExitCodeTable(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n## Exit codes\n")
	if !ok {
		t.Fatal("README.md has no ## Exit codes section")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	row := regexp.MustCompile(`(?m)^\| (\d+) \| (.*) \|$`)
	var got []string
	for _, m := range row.FindAllStringSubmatch(section, -1) {
		got = append(got, m[1]+" "+m[2])
	}
	var want []string
	for _, c := range cli.ExitCodes {
		want = append(want, strconv.Itoa(c.Code)+" "+c.Meaning)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("README.md's exit codes:\n%s\nwant (cli.ExitCodes):\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	good, err := os.ReadFile("../../testdata/streams/basis/schema1.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	bad := append(append([]byte(nil), good...), "{\"seq\":99,\n"...)
	for _, c := range []struct {
		code  int
		stdin []byte
		args  []string
	}{
		{cli.ExitOK, good, []string{"convert", "--to", "canonical"}},
		{cli.ExitOK, good, []string{"validate", "-"}},
		{cli.ExitProblem, bad, []string{"convert", "--to", "canonical"}},
		{cli.ExitProblem, nil, []string{"convert", "--to", "canonical"}},
		{cli.ExitProblem, bad, []string{"validate", "-"}},
		{cli.ExitUsage, good, []string{"convert", "--to", "klingon"}},
		{cli.ExitUsage, good, []string{"validate", "--no-such-flag", "-"}},
		{cli.ExitUsage, nil, []string{"convert", "--to", "basis", "no-such-file.jsonl"}},
	} {
		_, stderr, code := evtool(t, c.stdin, c.args...)
		if code != c.code {
			t.Errorf("evtool %s exited %d, want %d:\n%s", strings.Join(c.args, " "), code, c.code, stderr)
		}
	}
	script, err := os.ReadFile("testdata/script/pipes.txtar")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"\ninterrupt INT " + strconv.Itoa(cli.ExitInterrupted) + " ", "\ninterrupt TERM " + strconv.Itoa(cli.ExitTerminated) + " "} {
		if !strings.Contains(string(script), want) {
			t.Errorf("pipes.txtar does not assert %q", strings.TrimSpace(want))
		}
	}
}
