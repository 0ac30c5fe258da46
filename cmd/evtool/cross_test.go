package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evtool/evtool/internal/golden"
)

// evtool runs the command in-process and returns its output and status.
func evtool(t *testing.T, stdin []byte, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(append([]string{"evtool"}, args...), bytes.NewReader(stdin), &out, &errb)
	return out.String(), errb.String(), code
}

// lossLines returns the loss summary lines of convert's stderr.
func lossLines(stderr string) []string {
	var out []string
	for _, l := range strings.Split(stderr, "\n") {
		for _, verb := range []string{"dropped ", "approximated ", "synthesized "} {
			if strings.HasPrefix(l, "evtool: "+verb) {
				out = append(out, l)
			}
		}
	}
	return out
}

// TestCrossConversions converts every bundled stream of every dialect into
// every other dialect. The output must be a valid stream of its target, the
// loss lines must match the reviewed golden list, and --strict must fail
// exactly when a loss line is printed, after writing the same output.
func TestCrossConversions(t *testing.T) {
	dialects := []string{"basis", "mermaid", "muse"}
	for _, from := range dialects {
		files := streamsOf(from)
		if len(files) == 0 {
			t.Fatalf("no %s streams", from)
		}
		for _, f := range files {
			for _, to := range append(dialects, "canonical", "acp") {
				if to == from {
					continue
				}
				name := strings.TrimSuffix(filepath.Base(f), ".jsonl")
				t.Run(from+"/"+name+"→"+to, func(t *testing.T) {
					out, stderr, code := evtool(t, nil, "convert", "--to", to, f)
					if code != 0 {
						t.Fatalf("convert exited %d:\n%s", code, stderr)
					}
					vout, verr, vcode := evtool(t, []byte(out), "validate", "--dialect", to, "-")
					if vcode != 0 {
						t.Fatalf("the %s output does not validate (exit %d):\n%s%s\noutput:\n%s", to, vcode, vout, verr, out)
					}
					losses := lossLines(stderr)
					got := strings.Join(losses, "\n")
					if got != "" {
						got += "\n"
					}
					golden.Check(t, filepath.Join("testdata", "losses", from, name+".to-"+to+".txt"), []byte(got))

					sout, serr, scode := evtool(t, nil, "convert", "--strict", "--to", to, f)
					want := 0
					if len(losses) > 0 {
						want = 1
					}
					if scode != want {
						t.Errorf("--strict exited %d with %d loss lines, want %d:\n%s", scode, len(losses), want, serr)
					}
					if sout != out {
						t.Error("--strict must write the same output")
					}
				})
			}
		}
	}
}

// TestRoundTripsThroughFiles runs each dialect's streams through canonical
// text and back with the CLI, as a user would in a pipe.
func TestRoundTripsThroughFiles(t *testing.T) {
	for _, d := range []string{"basis", "mermaid", "muse"} {
		files := streamsOf(d)
		for _, f := range files {
			in, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			canon, stderr, code := evtool(t, in, "convert", "--to", "canonical")
			if code != 0 {
				t.Fatalf("%s: %s", f, stderr)
			}
			back, stderr, code := evtool(t, []byte(canon), "convert", "--strict", "--from", "canonical", "--to", d)
			if code != 0 {
				t.Fatalf("%s back to %s: exit %d\n%s", f, d, code, stderr)
			}
			if d != "basis" || !strings.Contains(f, "reordered") && !strings.Contains(f, "escapes") {
				if back != string(in) {
					t.Errorf("%s: not byte-identical after canonical text", f)
				}
			}
		}
	}
}

// streamsOf returns the test streams of a dialect: the bundled ones, and
// for muse the real captures in ../shared, read in place.
func streamsOf(d string) []string {
	if d == "muse" {
		files, _ := filepath.Glob("../../../shared/corpus/muse/*.jsonl")
		return files
	}
	files, _ := filepath.Glob(filepath.Join("../../testdata/streams", d, "*.jsonl"))
	return files
}
