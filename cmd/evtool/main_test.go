package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/evtool/evtool/cli"
	"github.com/evtool/evtool/internal/jsonkeys"
	"github.com/evtool/evtool/internal/testkit/golden"
	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"evtool": func() { os.Exit(cli.Run(os.Args, os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// TestScripts runs the end-to-end CLI scripts in testdata/script. $STREAMS
// is the repository's bundled test streams, $CORPUS the muse captures.
func TestScripts(t *testing.T) {
	streams, err := filepath.Abs("../../testdata/streams")
	if err != nil {
		t.Fatal(err)
	}
	corpus, err := filepath.Abs("../../../shared/corpus/muse")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("STREAMS", streams)
			env.Setenv("CORPUS", corpus)
			return nil
		},
		Condition: scriptCondition,
		// -update rewrites the expected output in the archives; review
		// the diff before committing, as for every golden file.
		UpdateScripts: golden.Updating(),
		Cmds: withHarmCmds(withPipeCmds(map[string]func(ts *testscript.TestScript, neg bool, args []string){
			// reorder sorted|reversed IN OUT rewrites the key order of every
			// object of every line, as jq -S -c . would.
			"reorder": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 3 || (args[0] != "sorted" && args[0] != "reversed") {
					ts.Fatalf("usage: reorder sorted|reversed IN OUT")
				}
				order := jsonkeys.Sorted
				if args[0] == "reversed" {
					order = jsonkeys.Reversed
				}
				var out []byte
				for _, l := range strings.Split(strings.TrimSuffix(ts.ReadFile(args[1]), "\n"), "\n") {
					out = append(append(out, jsonkeys.Reorder([]byte(l), order)...), '\n')
				}
				ts.Check(os.WriteFile(ts.MkAbs(args[2]), out, 0o666))
			},
			// nest N FILE replaces @DEEP@ in FILE with arrays nested N deep.
			"nest": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 2 {
					ts.Fatalf("usage: nest N FILE")
				}
				n, err := strconv.Atoi(args[0])
				ts.Check(err)
				deep := strings.Repeat("[", n) + strings.Repeat("]", n)
				ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(strings.ReplaceAll(ts.ReadFile(args[1]), "@DEEP@", deep)), 0o666))
			},
			// samediags A B requires the line diagnostics (syntax, schema,
			// decoding) in files A and B to be the same, and not none.
			"samediags": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 2 {
					ts.Fatalf("usage: samediags A B")
				}
				a, b := lineDiags(ts.ReadFile(args[0])), lineDiags(ts.ReadFile(args[1]))
				same := slices.Equal(a, b) && len(a) > 0
				if same == neg {
					ts.Fatalf("line diagnostics differ or are none:\n%s\n---\n%s", strings.Join(a, "\n"), strings.Join(b, "\n"))
				}
			},
			// exitcode N CMD ARGS... runs CMD and requires exit status N.
			"exitcode": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) < 2 {
					ts.Fatalf("usage: exitcode N command [args...]")
				}
				want, err := strconv.Atoi(args[0])
				if err != nil {
					ts.Fatalf("exitcode: %v", err)
				}
				err = ts.Exec(args[1], args[2:]...)
				got := 0
				var ee *exec.ExitError
				if errors.As(err, &ee) {
					got = ee.ExitCode()
				} else if err != nil {
					ts.Fatalf("exitcode: %v", err)
				}
				if got != want {
					ts.Fatalf("%s exited %d, want %d", args[1], got, want)
				}
			},
		})),
	})
}

// lineDiags returns, sorted, the diagnostics in a command's output that
// are about a line itself (syntax, schema, decoding, the dialect), which
// validate and convert must report alike; stream rules are validate's own.
func lineDiags(out string) []string {
	var ds []string
	for _, l := range strings.Split(out, "\n") {
		i := strings.LastIndex(l, " [")
		if i < 0 || !strings.HasSuffix(l, "]") {
			continue
		}
		rule := l[i+2 : len(l)-1]
		if strings.HasPrefix(rule, "json/") || strings.HasPrefix(rule, "stream/") ||
			strings.HasSuffix(rule, "/schema") || strings.HasSuffix(rule, "/decode") {
			ds = append(ds, l)
		}
	}
	slices.Sort(ds)
	return ds
}
