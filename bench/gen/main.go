// Command gen writes a generated event stream (package internal/testkit/streamgen) to
// stdout, for bench/compare.sh:
//
//	go run ./bench/gen -dialect basis -mb 100 -seed 1 > big.jsonl
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"

	"github.com/evtool/evtool/internal/testkit/streamgen"
)

func main() {
	dialect := flag.String("dialect", "basis", "the dialect to write")
	mb := flag.Int64("mb", 100, "approximate size in MB (10^6 bytes)")
	calls := flag.Int("calls", 0, "stop after this many tool calls (0: no limit)")
	seed := flag.Int64("seed", 1, "the seed; the same seed gives the same bytes")
	lean := flag.Bool("lean", false, "nothing but short tool calls (with -calls: per-call state)")
	flag.Parse()
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	err := streamgen.Write(w, *dialect, streamgen.Options{Seed: *seed, Bytes: *mb * 1e6, Calls: *calls, Lean: *lean})
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
