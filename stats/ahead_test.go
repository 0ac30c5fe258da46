package stats_test

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/stats"
	"github.com/evtool/evtool/stream"
)

// slowReader hands out its stream only once release is closed, so that a
// test can make a later stream finish before an earlier one.
type slowReader struct {
	r       io.Reader
	release chan struct{}
}

func (s *slowReader) Read(p []byte) (int, error) {
	<-s.release
	return s.r.Read(p)
}

func (s *slowReader) Close() error { return nil }

// Ahead hands back runs, and the problem lines of each, in the order the
// streams were added, whichever finishes first, and the report is the one
// reading them one after another makes: the first copy of a resumed
// record is the one kept.
func TestAheadKeepsOrder(t *testing.T) {
	d, err := dialect.Lookup("canonical")
	if err != nil {
		t.Fatal(err)
	}
	round := func(day, msg string, in int) string {
		return fmt.Sprintf(`round_finished "time":"2026-03-%sT10:00:01.000000Z","usage":{"input_tokens":%d,"output_tokens":1},"ext":{"claude-transcript":{"message_id":%q}}`, day, in, msg)
	}
	bad := func(n int) string { return strings.Repeat("not json\n", n) }
	streams := []string{
		canonical(start(""), round("01", "msg_1", 10)) + bad(3),
		// Far more problem lines than a stream read ahead holds, so that
		// it must wait for its turn to go on.
		canonical(start(""), round("01", "msg_1", 99), round("02", "msg_2", 20)) + bad(3000),
		"", // could not be opened
		canonical(start(""), round("03", "msg_3", 30)) + bad(2),
	}
	want := report(t, stats.ReportOptions{By: []stats.Dim{stats.ByDay}}, streams[0], streams[1], streams[3])

	for _, n := range []int{1, 2, 4} {
		rp := stats.NewReport(stats.ReportOptions{By: []stats.Dim{stats.ByDay}})
		var got []string // what is handed back, in order
		a := &stats.Ahead{N: n}
		gates := make([]chan struct{}, len(streams))
		for i, s := range streams {
			name := fmt.Sprintf("run%d.jsonl", i+1)
			opts := stats.Options{Stream: stream.Options{Dialect: d, Workers: 1}, Report: rp,
				LineError: func(le *stream.LineError) { got = append(got, fmt.Sprintf("%s:%d", name, le.Line)) }}
			done := func(run *stats.Run, err error) {
				if run == nil {
					got = append(got, name+": "+err.Error())
					return
				}
				got = append(got, fmt.Sprintf("%s: %d lines, %d bad", name, run.Lines, run.BadLines))
			}
			if s == "" {
				a.Add(nil, errors.New("cannot open"), name, opts, done)
				continue
			}
			gates[i] = make(chan struct{})
			a.Add(&slowReader{strings.NewReader(s), gates[i]}, nil, name, opts, done)
			if i == 0 {
				// The first stream starts late: those after it (as many
				// as run at once) go ahead of it and, past the problem
				// lines they may hold, wait for their turn.
				go func(g chan struct{}) {
					time.Sleep(20 * time.Millisecond)
					close(g)
				}(gates[0])
				continue
			}
			close(gates[i])
		}
		a.Wait()

		var wantOut []string
		for i, s := range streams {
			name := fmt.Sprintf("run%d.jsonl", i+1)
			if s == "" {
				wantOut = append(wantOut, name+": cannot open")
				continue
			}
			lines := strings.Count(s, "\n")
			good := lines - strings.Count(s, "not json")
			for l := good + 1; l <= lines; l++ {
				wantOut = append(wantOut, fmt.Sprintf("%s:%d", name, l))
			}
			wantOut = append(wantOut, fmt.Sprintf("%s: %d lines, %d bad", name, lines, lines-good))
		}
		if strings.Join(got, "\n") != strings.Join(wantOut, "\n") {
			t.Errorf("N=%d: handed back out of order (%d lines, want %d)", n, len(got), len(wantOut))
		}
		rp.Finish()
		if g, w := strings.Join(rows(rp), "\n"), strings.Join(rows(want), "\n"); g != w {
			t.Errorf("N=%d: report\n%s\nwant (read one after another)\n%s", n, g, w)
		}
	}
}
