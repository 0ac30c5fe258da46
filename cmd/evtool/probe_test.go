package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/internal/testkit/teststreams"
)

// judged differently names the probe rows where evtool's verdict differs
// from the probe's on purpose, and why.
var judgedDifferently = map[string]string{
	"basis/bad_enum_policy_kind.jsonl":        "the elision policy is non_exhaustive upstream: a newer kind is read as unknown, like a newer event type",
	"basis/seq_header_not_zero.jsonl":         "basis/seq-start is a warning: the seq numbering says nothing about the run's facts",
	"muse/recorded_at_decreasing.jsonl":       "muse/recorded-at is a warning: clocks step back, and the records are still well formed",
	"muse/sequence_not_starting_at_one.jsonl": "muse/sequence-gap is a warning: sequence restarts and gaps are reported, not fatal",
	"basis/run_finished_not_last.jsonl":       "basis/after-finish is reported at the line after run_finished, which is the line that should not be there",
	"mermaid/result_not_last.jsonl":           "mermaid/after-result is reported at the line after result, which is the line that should not be there",
}

// TestProbeExpectations holds evtool to the hand-made probe streams:
// each invalid one has one bad line, written from the producer's types,
// and EXPECT.tsv names its line and the pointer of the offending value.
// validate must report an error at that line, and a line diagnostic with
// that pointer (or one inside it) when the bad value is a line's own.
func TestProbeExpectations(t *testing.T) {
	for _, d := range dialect.All() {
		tsv := filepath.Join(teststreams.Root(), "testdata", "probe", d.Name(), "EXPECT.tsv")
		data, err := os.ReadFile(tsv)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, row := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			cols := strings.Split(row, "\t")
			if len(cols) < 4 {
				t.Fatalf("%s: bad row %q", tsv, row)
			}
			file, ptr, why := cols[0], cols[2], cols[3]
			line, err := strconv.Atoi(cols[1])
			if err != nil {
				t.Fatalf("%s: bad line in %q", tsv, row)
			}
			path := filepath.Join(filepath.Dir(tsv), "invalid", file)
			if why, ok := judgedDifferently[d.Name()+"/"+file]; ok {
				t.Logf("%s/%s: %s", d.Name(), file, why)
				continue
			}
			t.Run(d.Name()+"/"+file, func(t *testing.T) {
				out, _, code := evtool(t, nil, "validate", "-q", "--dialect", d.Name(), path)
				if code != 1 {
					t.Fatalf("exit %d, want 1 (%s)\n%s", code, why, out)
				}
				prefix := path + ":" + strconv.Itoa(line) + ":"
				var atLine []string
				for _, l := range strings.Split(out, "\n") {
					if strings.HasPrefix(l, prefix) && strings.Contains(l, ": error: ") {
						atLine = append(atLine, l)
					}
				}
				if len(atLine) == 0 {
					t.Fatalf("no error at line %d (%s); got:\n%s", line, why, out)
				}
				if ptr == "-" || ptr == "" || !hasLineDiag(atLine) {
					return // a stream rule: the line is the position
				}
				for _, l := range atLine {
					if strings.Contains(l, ": error: "+ptr+": ") || strings.Contains(l, ": error: "+ptr+"/") {
						return
					}
				}
				t.Errorf("no error at %s on line %d (%s); got:\n%s", ptr, line, why, strings.Join(atLine, "\n"))
			})
		}
	}
}

// hasLineDiag reports whether any of the diagnostics is about the line
// itself rather than a stream rule.
func hasLineDiag(ds []string) bool { return len(lineDiags(strings.Join(ds, "\n"))) > 0 }
