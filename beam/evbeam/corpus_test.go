package evbeam

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/evtool/evtool/cli"
	"github.com/evtool/evtool/convert"
	"github.com/evtool/evtool/dialect"
	"github.com/klauspost/compress/zstd"
)

// The corpus the tests run over, made once per test binary: generated
// runs of every dialect evtool writes (bench/gen's streams, converted),
// some compressed, some broken; and the real captures kept beside the
// repository (../shared), with the repository's own test streams.

const generated = 1000

var (
	corpusOnce sync.Once
	corpusDir  string
	corpusErr  error
	tempRoot   string
)

// repoRoot is the evtool repository: the module above this one.
func repoRoot() string {
	wd, _ := os.Getwd()
	return filepath.Dir(filepath.Dir(wd))
}

// sharedDir is ../shared beside the repository.
func sharedDir() string { return filepath.Join(filepath.Dir(repoRoot()), "shared") }

// corpus returns the directory of the test runs: gen/ (1,000 generated
// runs) and shared/ (captures and test streams).
func corpus(t *testing.T) string {
	t.Helper()
	corpusOnce.Do(func() { corpusDir, corpusErr = makeCorpus() })
	if corpusErr != nil {
		t.Fatal(corpusErr)
	}
	return corpusDir
}

func makeCorpus() (string, error) {
	dir := filepath.Join(tempRoot, "corpus")
	// EVBEAM_GEN names a bench/gen binary built already.
	gen := os.Getenv("EVBEAM_GEN")
	if gen == "" {
		gen = filepath.Join(tempRoot, "gen")
		build := exec.Command("go", "build", "-o", gen, "github.com/evtool/evtool/bench/gen")
		if out, err := build.CombinedOutput(); err != nil {
			return "", fmt.Errorf("building bench/gen: %v\n%s", err, out)
		}
	}
	if err := makeGenerated(gen, filepath.Join(dir, "gen")); err != nil {
		return "", err
	}
	if err := copyShared(filepath.Join(dir, "shared")); err != nil {
		return "", err
	}
	return dir, nil
}

// The generator's dialects, and the targets the generated streams are
// also converted to, so that every writable dialect is read.
var (
	genDialects = []string{"acp", "basis", "canonical", "mermaid", "muse"}
	convTargets = []string{"claude", "codex", "opencode", "gemini", "basis", "mermaid", "muse", "acp", "canonical"}
)

// makeGenerated writes 1,000 runs: 200 streams of bench/gen (40 seeds of
// each of its dialects, a few tool calls each), each also converted to
// four other dialects; one in four gzip- and one in four
// zstd-compressed, one in 13 with a broken line, one in 17 torn at its
// end. The seeds repeat call ids across runs (a report counts a call
// once) and every run has its own name.
func makeGenerated(gen, dir string) error {
	bases := generated / 5
	jobs := make(chan int)
	errs := make(chan error, bases)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				errs <- makeBase(gen, dir, i)
			}
		}()
	}
	for i := range bases {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func makeBase(gen, dir string, i int) error {
	d := genDialects[i%len(genDialects)]
	seed := i/len(genDialects) + 1
	cmd := exec.Command(gen, "-dialect", d, "-mb", "1", "-calls", fmt.Sprint(2+i%7), "-seed", fmt.Sprint(seed), "-shape", "small")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("gen %v: %v\n%s", cmd.Args, err, errb.String())
	}
	src := out.Bytes()
	for k := range 5 {
		n := i*5 + k
		data, name := src, d
		if k > 0 {
			to := convTargets[(i+k*2)%len(convTargets)]
			td, err := dialect.Lookup(to)
			if err != nil {
				return err
			}
			var b bytes.Buffer
			if _, err := convert.Run(bytes.NewReader(src), &b, "gen", convert.Options{To: td}, func(*convert.LineError) {}); err != nil {
				return fmt.Errorf("converting %s seed %d to %s: %v", d, seed, to, err)
			}
			data, name = b.Bytes(), d+"-"+to
		}
		if n%13 == 5 {
			data = breakLine(data, n)
		}
		if n%17 == 3 {
			data = data[:len(data)-len(data)/40-1] // a torn last line
		}
		file := filepath.Join(dir, fmt.Sprintf("%02d", n%23), fmt.Sprintf("run-%04d-%s.jsonl", n, name))
		switch n % 4 {
		case 1:
			file += ".gz"
			data = gz(data)
		case 2:
			file += ".zst"
			data = zst(data)
		}
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(file, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// breakLine damages one line in the middle of a stream: a value of the
// wrong type, a syntax error, or a line that is no JSON at all.
func breakLine(data []byte, n int) []byte {
	lines := bytes.SplitAfter(data, []byte("\n"))
	j := len(lines) / 2
	switch n % 3 {
	case 0:
		lines[j] = bytes.Replace(lines[j], []byte(`":"`), []byte(`":7,"x":"`), 1)
	case 1:
		lines[j] = append(bytes.TrimRight(lines[j], "\n}"), []byte(",\n")...)
	default:
		lines[j] = []byte("not json at all\n")
	}
	return bytes.Join(lines, nil)
}

func gz(b []byte) []byte {
	var out bytes.Buffer
	w := gzip.NewWriter(&out)
	w.Write(b)
	w.Close()
	return out.Bytes()
}

func zst(b []byte) []byte {
	w, _ := zstd.NewWriter(nil)
	defer w.Close()
	return w.EncodeAll(b, nil)
}

// copyShared copies the real captures beside the repository and the
// repository's test streams (valid and invalid ones) into dir, each under
// a name of its own.
func copyShared(dir string) error {
	shared, repo := sharedDir(), repoRoot()
	globs := [][2]string{
		{shared, "ondisk/captures/*/*.jsonl"},
		{shared, "dialects-next/captures/*/*.jsonl"},
		{shared, "corpus/*/*.jsonl"},
		{repo, "testdata/streams/*/*.jsonl"},
		{repo, "testdata/probe/*/*/*.jsonl"},
	}
	n := 0
	for _, g := range globs {
		files, err := filepath.Glob(filepath.Join(g[0], g[1]))
		if err != nil {
			return err
		}
		for _, f := range files {
			rel, err := filepath.Rel(g[0], f)
			if err != nil {
				return err
			}
			data, err := os.ReadFile(f)
			if err != nil {
				return err
			}
			out := filepath.Join(dir, rel)
			if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(out, data, 0o644); err != nil {
				return err
			}
			n++
		}
	}
	if n < 20 {
		return fmt.Errorf("only %d captures and test streams found beside the repository (%s)", n, shared)
	}
	return nil
}

// evtool runs the command line in this process, as `evtool ARGS...`.
func evtool(args ...string) (stdout, stderr []byte, code int) {
	var o, e bytes.Buffer
	code = cli.Run(append([]string{"evtool"}, args...), strings.NewReader(""), &o, &e)
	return o.Bytes(), e.Bytes(), code
}

// streamFiles lists the runs under dir as the command line reads a
// directory.
func streamFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !e.IsDir() && isStreamName(p) {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func isStreamName(p string) bool {
	p = strings.TrimSuffix(strings.TrimSuffix(p, ".gz"), ".zst")
	return strings.HasSuffix(p, ".jsonl") || strings.HasSuffix(p, ".ndjson")
}
