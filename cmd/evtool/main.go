// Command evtool validates coding-agent event streams and converts them
// between dialects. The command line lives in package cli; README.md lists
// its exit codes.
package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"

	"github.com/evtool/evtool/cli"
)

// The collector's settings, unless GOGC or GOMEMLIMIT in the environment
// say otherwise. A stream's live state is small (open calls, a few
// buffers), so with the default GOGC of 100 the collector ran every few
// megabytes of garbage: a tenth or more of the work on a large stream. At
// 400 it runs a quarter as often; the soft limit keeps the heap under it
// whatever the stream (measured: peak RSS 56–58 MiB on 2,000,000 tool
// calls, against 62 MiB with the defaults and a 64 MiB limit). Only a
// giant line takes the heap past the limit, which then makes the collector
// work harder rather than let the heap double over the line.
const (
	gcPercent = 400
	softLimit = 48 << 20
)

func main() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(softLimit)
	}
	os.Exit(profiled(func() int { return cli.Run(os.Args, os.Stdin, os.Stdout, os.Stderr) }))
}

// profiled runs f, writing a CPU profile to $EVTOOL_CPUPROFILE and a heap
// profile (taken when f returns) to $EVTOOL_MEMPROFILE when they are set:
// the profiles of a real command on a real input, which docs/performance.md
// reads, where a Go benchmark would measure only a part.
func profiled(f func() int) int {
	if p := os.Getenv("EVTOOL_CPUPROFILE"); p != "" {
		out, err := os.Create(p)
		if err != nil {
			fmt.Fprintf(os.Stderr, "evtool: EVTOOL_CPUPROFILE: %v\n", err)
			return 2
		}
		defer out.Close()
		if err := pprof.StartCPUProfile(out); err != nil {
			fmt.Fprintf(os.Stderr, "evtool: EVTOOL_CPUPROFILE: %v\n", err)
			return 2
		}
		defer pprof.StopCPUProfile()
	}
	code := f()
	if p := os.Getenv("EVTOOL_MEMPROFILE"); p != "" {
		out, err := os.Create(p)
		if err == nil {
			runtime.GC()
			err = pprof.Lookup("allocs").WriteTo(out, 0)
			out.Close()
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "evtool: EVTOOL_MEMPROFILE: %v\n", err)
		}
	}
	return code
}
