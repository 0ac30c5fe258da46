package stats_test

import (
	"bytes"
	"os"
	"runtime"
	"testing"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/dialecttest"
	"github.com/evtool/evtool/internal/testkit/teststreams"
	"github.com/evtool/evtool/stats"
	"github.com/evtool/evtool/stream"
)

// TestReportHoldsNoLine is dialecttest's pinning check for the usage
// report: each test stream of every dialect, with 128 KiB of white space in
// every line (the same values), is read into a report grouped by every
// dimension, and the report and the runs, kept, may hold no such line of
// each stream: what they keep of an event (a session id, a model, a tool's
// kind, a time) is a copy, not a slice of the line it was read from.
func TestReportHoldsNoLine(t *testing.T) {
	const pad = 128 << 10
	for _, d := range dialect.All() {
		files := teststreams.Valid(d.Name())
		if len(files) == 0 {
			continue
		}
		var streams [][]byte
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			streams = append(streams, dialecttest.Padded(data, pad))
		}
		settled := func() uint64 {
			runtime.GC()
			runtime.GC()
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			return m.HeapAlloc
		}
		all := []stats.Dim{stats.ByDay, stats.BySession, stats.ByProject, stats.ByModel, stats.ByAgent, stats.ByTool, stats.ByRun}
		read := func(rep *stats.Report) []*stats.Run {
			var runs []*stats.Run
			for i, s := range streams {
				run, _ := stats.Read(bytes.NewReader(s), files[i], stats.Options{Stream: stream.Options{Dialect: d}, Report: rep, LineError: func(*stream.LineError) {}})
				runs = append(runs, run)
			}
			return runs
		}
		read(stats.NewReport(stats.ReportOptions{By: all})) // what is made once a process
		before := settled()
		rep := stats.NewReport(stats.ReportOptions{By: all})
		runs := read(rep)
		after := settled()
		// About five lines' worth is the same however many streams are
		// read (the readers' pools); a line kept by each run is not.
		if held := after - min(before, after); held > 6*pad {
			t.Errorf("%s: %d streams read into a report: it and the runs hold %d KiB, %.1f lines of %d KiB", d.Name(), len(streams), held>>10, float64(held)/pad, pad>>10)
		}
		runtime.KeepAlive(rep)
		runtime.KeepAlive(runs)
		runtime.KeepAlive(streams) // live at before: live at after too
	}
}
