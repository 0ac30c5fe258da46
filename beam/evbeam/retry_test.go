package evbeam

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
)

// TestKilledWorkerWritesOnce kills the conversion of one run on its first
// attempt (a panic, once, as a worker dies: its bundle fails), at each of
// the two places where a dying worker leaves something behind: with the
// output written under its temporary name, and just after its rename,
// before the bundle's output was handed on. Prism (as of Beam 2.77) does
// not retry a failed bundle: it fails the job, so the retry here is the
// job run again, as one reruns a failed Prism or Flink job; Dataflow
// retries the bundle itself, which does the same thing to the outputs.
// Either way every output is present once, the same bytes as a run
// without failure, and no temporary file is left.
func TestKilledWorkerWritesOnce(t *testing.T) {
	in := filepath.Join(corpus(t), "gen", "07")
	clean := t.TempDir()
	p, s := beam.NewPipelineWithRoot()
	Convert(s, Match(s, in), ConvertOptions{To: "canonical", OutDir: clean})
	if err := execute(t, p); err != nil {
		t.Fatal(err)
	}
	want := tree(t, clean)
	if len(want) < 20 {
		t.Fatalf("only %d outputs in %s", len(want), clean)
	}

	for _, point := range []string{"written", "committed"} {
		t.Run(point, func(t *testing.T) {
			out := t.TempDir()
			marker := filepath.Join(t.TempDir(), "killed")
			var killed atomic.Int32
			var tempAtKill atomic.Bool
			testHook = func(at string, r Run) {
				if at != point || !strings.Contains(r.Rel, "run-0") {
					return
				}
				if _, err := os.Stat(marker); err == nil {
					return // the retry
				}
				if err := os.WriteFile(marker, []byte(r.Name), 0o644); err != nil {
					panic(err)
				}
				killed.Add(1)
				// The temporary file is looked for here, as the worker
				// dies: once the job has failed, Prism may already have
				// run the clean-up stage on what the other bundles gave.
				tempAtKill.Store(hasTemp(out))
				panic("evbeam test: the worker dies converting " + r.Name)
			}
			defer func() { testHook = nil }()

			attempts := 0
			for {
				attempts++
				p, s := beam.NewPipelineWithRoot()
				Convert(s, Match(s, in), ConvertOptions{To: "canonical", OutDir: out})
				err := execute(t, p)
				if err == nil {
					break
				}
				if attempts == 1 && killed.Load() == 1 && strings.Contains(err.Error(), "the worker dies") {
					t.Logf("attempt 1 failed as the worker died: %.300s", err)
					if point == "written" && !tempAtKill.Load() {
						t.Errorf("the killed attempt left no temporary file: was it killed before its rename?")
					}
					continue
				}
				t.Fatalf("attempt %d: %v", attempts, err)
			}
			if killed.Load() != 1 {
				t.Fatalf("the worker was killed %d times, want once", killed.Load())
			}
			t.Logf("%d attempts (Prism retried the bundle itself: %v)", attempts, attempts == 1)
			got := tree(t, out)
			if len(got) != len(want) {
				t.Errorf("%d outputs after the retry, want %d", len(got), len(want))
			}
			for name, b := range want {
				if !bytes.Equal(got[name], b) {
					t.Errorf("%s: not the bytes of a run without failure", name)
				}
			}
			for name := range got {
				if _, ok := want[name]; !ok {
					t.Errorf("%s: an output a run without failure does not write", name)
				}
			}
			if left := temps(t, out); len(left) > 0 {
				t.Errorf("temporary files left: %v", left)
			}
		})
	}
}

// tree reads every file under dir, by its name there.
func tree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[rel] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// temps lists the temporary files under dir.
func temps(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	for name := range tree(t, dir) {
		if strings.HasPrefix(filepath.Base(name), tempPrefix) {
			out = append(out, name)
		}
	}
	return out
}

// hasTemp reports whether a temporary output stands under dir (from a
// worker's goroutine: no testing.T).
func hasTemp(dir string) bool {
	found := false
	filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err == nil && !e.IsDir() && strings.HasPrefix(e.Name(), tempPrefix) {
			found = true
			return filepath.SkipAll
		}
		return nil
	})
	return found
}
