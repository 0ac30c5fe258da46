// Command gen writes a generated event stream (package
// internal/testkit/streamgen) to stdout, for bench/compare.sh:
//
//	go run ./bench/gen -dialect basis -mb 100 -seed 1 > big.jsonl
//	go run ./bench/gen -dialect claude -mb 100 -shape small > small.jsonl
//	go run ./bench/gen -dialect codex-rollout -mb 100 -shape captures > real.jsonl
//
// With -shape captures it says on stderr which captures it replicated and
// which it left out, and why; -list prints the captures' paths, one a
// line, and writes no stream (nothing, and exit status 0, when the
// dialect has none).
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/evtool/evtool/internal/testkit/streamgen"
	"github.com/evtool/evtool/internal/testkit/teststreams"
)

func main() {
	dialect := flag.String("dialect", "basis", "the dialect to write")
	mb := flag.Int64("mb", 100, "approximate size in MB (10^6 bytes)")
	calls := flag.Int("calls", 0, "stop after this many tool calls (0: no limit)")
	seed := flag.Int64("seed", 1, "the seed; the same seed gives the same bytes")
	shape := flag.String("shape", streamgen.ShapeLarge, "the kind of lines: large (files of tens of KB in tool calls), small (every event type, ~130 bytes a line in basis) or captures (the real captures beside the repository, replicated)")
	lean := flag.Bool("lean", false, "nothing but short tool calls (with -calls: per-call state)")
	list := flag.Bool("list", false, "with -shape captures: print the captures' paths and stop")
	flag.Parse()
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	var err error
	if *shape == streamgen.ShapeCaptures {
		err = captures(w, *dialect, *mb*1e6, *list)
	} else {
		err = streamgen.Write(w, *dialect, streamgen.Options{Seed: *seed, Bytes: *mb * 1e6, Calls: *calls, Lean: *lean, Shape: *shape})
	}
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func captures(w *bufio.Writer, dialect string, size int64, list bool) error {
	files := streamgen.SharedCaptures(teststreams.Root(), dialect)
	if list {
		for _, f := range files {
			fmt.Fprintln(w, f)
		}
		return nil
	}
	cs, err := streamgen.LoadCaptures(dialect, files)
	if err != nil {
		return err
	}
	for _, f := range cs.Files {
		fmt.Fprintf(os.Stderr, "gen: %s: replicating %s\n", dialect, filepath.Base(f))
	}
	skipped := make([]string, 0, len(cs.Skipped))
	for f := range cs.Skipped {
		skipped = append(skipped, f)
	}
	sort.Strings(skipped)
	for _, f := range skipped {
		fmt.Fprintf(os.Stderr, "gen: %s: left out %s: %s\n", dialect, filepath.Base(f), cs.Skipped[f])
	}
	return cs.ReplicateCaptures(w, size)
}
