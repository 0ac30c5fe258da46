package dialecttest_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/evtool/evtool/adapters"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/dialecttest"
	"github.com/evtool/evtool/internal/testkit/teststreams"
)

// TestTable prints which of Run's checks have something to check on each
// registered dialect, with its corpus found by convention: every check
// runs on every dialect but where a dialect has nothing of that kind
// (a contract, goldens, streams of its own). Each adapter's TestDialect
// runs them.
func TestTable(t *testing.T) {
	names, _ := dialecttest.Checks()
	var b strings.Builder
	fmt.Fprintf(&b, "%-10s", "")
	for _, d := range dialect.All() {
		fmt.Fprintf(&b, " %-9s", d.Name())
	}
	b.WriteString("\n")
	plans := map[string][]string{}
	for _, d := range dialect.All() {
		plans[d.Name()] = dialecttest.Applies(d, dialecttest.Conventional(d.Name()))
	}
	for i, n := range names {
		fmt.Fprintf(&b, "%-10s", n)
		for _, d := range dialect.All() {
			mark := "yes"
			if plans[d.Name()][i] != "" {
				mark = "-"
			}
			fmt.Fprintf(&b, " %-9s", mark)
		}
		b.WriteString("\n")
	}
	t.Logf("checks × dialects (- : nothing of that kind to check)\n%s", b.String())
	if len(dialect.All()) < 9 {
		t.Errorf("only %d dialects registered", len(dialect.All()))
	}
}

// TestExampleModule builds the example module in testdata/exampledialect,
// a toy dialect written outside evtool with a three-line main, runs its
// tests (the kit, from one line), and runs the binary: it validates a toy
// stream and converts one into toy and out of it.
func TestExampleModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	dir, err := filepath.Abs(filepath.Join("..", "testdata", "exampledialect"))
	if err != nil {
		t.Fatal(err)
	}
	run := func(name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	bin := filepath.Join(t.TempDir(), "toytool")
	run(goTool, "build", "-o", bin, ".")
	run(goTool, "test", "-count=1", "./...")

	toy := filepath.Join(dir, "testdata", "streams", "toy", "hello.jsonl")
	if out := run(bin, "validate", toy); !strings.Contains(out, "0 errors") {
		t.Errorf("validate: %s", out)
	}
	if out := run(bin, "convert", "--to", "canonical", toy); !strings.Contains(out, `"source":{"dialect":"toy"}`) {
		t.Errorf("toy → canonical:\n%s", out)
	}
	basis := filepath.Join(teststreams.Root(), "testdata", "streams", "basis", "full_schema2.jsonl")
	if out := run(bin, "convert", "-q", "--to", "toy", basis); !strings.HasPrefix(out, `{"toy":1,"kind":"start"`) {
		t.Errorf("basis → toy:\n%s", out)
	}
	if out := run(bin, "dialects"); !strings.Contains(out, "toy") {
		t.Errorf("dialects does not list toy:\n%s", out)
	}
}
