package view_test

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	_ "github.com/evtool/evtool/adapters" // every dialect, registered
	"github.com/evtool/evtool/convert"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/internal/testkit/teststreams"
	"github.com/evtool/evtool/stats"
	"github.com/evtool/evtool/stream"
	"github.com/evtool/evtool/view"
)

// streamCase is one test stream and the dialect it is read as.
type streamCase struct {
	dialect dialect.Dialect // nil: detected
	file    string
	display string // the name a page shows, when not the file's
}

func (c streamCase) name() string {
	d := "detected"
	if c.dialect != nil {
		d = c.dialect.Name()
	}
	return d + ":" + filepath.Base(c.file)
}

// testStreams returns every test stream of every registered dialect
// (teststreams.Valid: the bundled streams, the adapters' own, the shared
// captures and real sessions), the ACP recordings, canonical conversions
// of a few of them, and the files and directories EVTOOL_VIEW_EXTRA
// names (colon-separated; their dialect is detected), for runs that live
// outside the repository.
func testStreams(t testing.TB) []streamCase {
	var out []streamCase
	for _, d := range dialect.All() {
		for _, f := range teststreams.Valid(d.Name()) {
			out = append(out, streamCase{dialect: d, file: f})
		}
	}
	root := teststreams.Root()
	if acp, err := dialect.Lookup("acp"); err == nil {
		for _, pat := range []string{"*.acp.jsonl", "*.transcript.jsonl"} {
			m, _ := filepath.Glob(filepath.Join(root, "testdata", "acp", pat))
			for _, f := range m {
				out = append(out, streamCase{dialect: acp, file: f})
			}
		}
	}
	if canon, err := dialect.Lookup("canonical"); err == nil {
		dir := t.TempDir()
		for _, f := range []string{"testdata/streams/basis/full_schema2.jsonl", "testdata/streams/mermaid/failed_run.jsonl", "adapters/claude/testdata/written_all_types.jsonl"} {
			in, err := os.Open(filepath.Join(root, f))
			if err != nil {
				continue
			}
			var buf bytes.Buffer
			_, err = convert.Run(in, &buf, f, convert.Options{To: canon, Provenance: true}, func(*convert.LineError) {})
			in.Close()
			if err != nil {
				t.Fatalf("converting %s: %v", f, err)
			}
			p := filepath.Join(dir, strings.ReplaceAll(filepath.Base(f), ".jsonl", ".canonical.jsonl"))
			if err := os.WriteFile(p, buf.Bytes(), 0o666); err != nil {
				t.Fatal(err)
			}
			out = append(out, streamCase{canon, p, f + " (as canonical)"})
		}
	}
	for _, extra := range filepath.SplitList(os.Getenv("EVTOOL_VIEW_EXTRA")) {
		if extra == "" {
			continue
		}
		_ = filepath.WalkDir(extra, func(p string, e os.DirEntry, err error) error {
			if err == nil && !e.IsDir() && (strings.HasSuffix(p, ".jsonl") || strings.HasSuffix(p, ".ndjson")) {
				out = append(out, streamCase{file: p})
			}
			return nil
		})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].name() < out[j].name() })
	if len(out) < 50 {
		t.Fatalf("only %d test streams", len(out))
	}
	return out
}

// readBoth reads a stream twice, once for its page and once through
// stats.Read, as evtool stats does: the page's figures must be stats'.
func readBoth(t testing.TB, c streamCase, lim view.Limits) (*view.Run, *stats.Run) {
	t.Helper()
	b, err := os.ReadFile(c.file)
	if err != nil {
		t.Fatal(err)
	}
	opts := stream.Options{Dialect: c.dialect}
	run, _ := view.Read(bytes.NewReader(b), c.file, view.Options{Stream: opts, Limits: lim})
	st, _ := stats.Read(bytes.NewReader(b), c.file, stats.Options{Stream: opts})
	return run, st
}

// count is *p, 0 for nil.
func count(p *uint64) uint64 {
	if p == nil {
		return 0
	}
	return *p
}

// writePage writes a run's page to a file under dir and returns its path.
func writePage(t testing.TB, dir, name string, run *view.Run) string {
	t.Helper()
	p := filepath.Join(dir, name)
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := view.WriteRun(f, run, view.PageOptions{Generator: "evtool test"}); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}
