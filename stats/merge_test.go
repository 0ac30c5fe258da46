package stats_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	_ "github.com/evtool/evtool/adapters"
	"github.com/evtool/evtool/internal/testkit/ccusagediff"
	"github.com/evtool/evtool/prices"
	"github.com/evtool/evtool/stats"
)

// TestMergeIsOneReport makes the report of a history two ways: one report
// that takes every run in order, as `evtool usage` does, and one report
// per run, each told of the responses earlier runs count (UsageKeys,
// Counted), encoded, decoded and merged in a shuffled order, as workers
// of a cluster would. Both must print the same bytes, in every format,
// for every grouping, blocks and a time range among them. The history has
// resumed Claude Code sessions (responses two files repeat), streamed
// partial lines, Codex rollouts and Gemini chats, and the shared captures.
func TestMergeIsOneReport(t *testing.T) {
	home := t.TempDir()
	h, err := ccusagediff.Generate(home, ccusagediff.GenOptions{Seed: 7, Claude: 14, Codex: 5, Gemini: 4, Days: 9,
		Start: time.Date(2026, 2, 26, 0, 0, 0, 0, time.UTC), Resumes: 5})
	if err != nil {
		t.Fatal(err)
	}
	files := slices.Clone(h.Files)
	caps, _ := filepath.Glob("../../shared/ondisk/captures/*/*.jsonl")
	files = append(files, caps...)
	if len(files) < 25 {
		t.Fatalf("only %d runs", len(files))
	}
	table, err := prices.Default()
	if err != nil {
		t.Fatal(err)
	}
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	cases := []stats.ReportOptions{
		{By: []stats.Dim{stats.ByDay, stats.ByModel}, Location: time.UTC},
		{By: []stats.Dim{stats.ByBlock}, Location: time.UTC},
		{By: []stats.Dim{stats.ByTool}, Location: time.UTC},
		{By: []stats.Dim{stats.BySession, stats.ByRun}, Location: time.UTC},
		{By: []stats.Dim{stats.ByWeek, stats.ByProject}, Location: paris, StartOfWeek: time.Monday},
		{By: []stats.Dim{stats.ByMonth, stats.ByAgent, stats.ByModel}, Location: time.UTC,
			Since: time.Date(2026, 2, 28, 0, 0, 0, 0, time.UTC), Until: time.Date(2026, 3, 4, 0, 0, 0, 0, time.UTC)},
	}
	read := func(rp *stats.Report, file string) {
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := stats.Read(f, file, stats.Options{Report: rp}); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
	}
	// The keys of each run, and the first run that has each.
	keys := make([][]uint64, len(files))
	first := map[uint64]int{}
	repeated := 0
	for i, file := range files {
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		keys[i], err = stats.UsageKeys(f, file, stats.Options{})
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for _, k := range keys[i] {
			if _, ok := first[k]; ok {
				repeated++
			} else {
				first[k] = i
			}
		}
	}
	if repeated == 0 {
		t.Fatal("no response or call is repeated across runs: the test proves nothing of Counted")
	}
	t.Logf("%d runs, %d keys repeated across runs", len(files), repeated)

	for _, o := range cases {
		o.Prices = table
		t.Run(fmt.Sprint(o.By), func(t *testing.T) {
			one := stats.NewReport(o)
			for _, file := range files {
				read(one, file)
			}
			var parts [][]byte
			for i, file := range files {
				po := o
				po.Order = fmt.Sprintf("%08d", i)
				rp := stats.NewReport(po)
				for _, k := range keys[i] {
					if first[k] < i {
						rp.Counted(k)
					}
				}
				read(rp, file)
				b, err := rp.MarshalBinary()
				if err != nil {
					t.Fatal(err)
				}
				parts = append(parts, b)
			}
			// Merged pairwise in a shuffled order, each step through the
			// binary form, as a combine over workers goes.
			r := rand.New(rand.NewPCG(1, uint64(len(parts))))
			r.Shuffle(len(parts), func(i, j int) { parts[i], parts[j] = parts[j], parts[i] })
			for len(parts) > 1 {
				var a, b stats.Report
				if err := a.UnmarshalBinary(parts[0]); err != nil {
					t.Fatal(err)
				}
				if err := b.UnmarshalBinary(parts[1]); err != nil {
					t.Fatal(err)
				}
				if err := a.Merge(&b); err != nil {
					t.Fatal(err)
				}
				m, err := a.MarshalBinary()
				if err != nil {
					t.Fatal(err)
				}
				parts = append(parts[2:], m)
			}
			var last stats.Report
			if err := last.UnmarshalBinary(parts[0]); err != nil {
				t.Fatal(err)
			}
			merged := stats.NewReport(o)
			if err := merged.Merge(&last); err != nil {
				t.Fatal(err)
			}
			for _, format := range stats.ReportFormats() {
				var want, got bytes.Buffer
				if err := stats.WriteReport(&want, format, one); err != nil {
					t.Fatal(err)
				}
				if err := stats.WriteReport(&got, format, merged); err != nil {
					t.Fatal(err)
				}
				if want.Len() < 200 {
					t.Fatalf("%s: a report of %d bytes: %s", format, want.Len(), want.String())
				}
				if !bytes.Equal(want.Bytes(), got.Bytes()) {
					t.Errorf("%s: the merged report differs from the one report\n--- one\n%s\n--- merged\n%s", format, want.String(), got.String())
				}
			}
		})
	}
}

// TestMergeRefusesOtherShapes: reports grouped otherwise do not merge.
func TestMergeRefusesOtherShapes(t *testing.T) {
	a := stats.NewReport(stats.ReportOptions{By: []stats.Dim{stats.ByDay}})
	b := stats.NewReport(stats.ReportOptions{By: []stats.Dim{stats.ByMonth}})
	if err := a.Merge(b); err == nil {
		t.Error("a report by day took one by month")
	}
	c := stats.NewReport(stats.ReportOptions{By: []stats.Dim{stats.ByDay}, Location: time.FixedZone("X", 3600)})
	if err := a.Merge(c); err == nil {
		t.Error("a report in UTC took one in another zone")
	}
	d := stats.NewReport(stats.ReportOptions{By: []stats.Dim{stats.ByDay}})
	d.Rows()
	if err := a.Merge(d); err == nil {
		t.Error("a finished report was merged")
	}
	var e stats.Report
	if err := e.UnmarshalBinary([]byte(`{"v":2}`)); err == nil {
		t.Error("a report of another version was read")
	}
}
