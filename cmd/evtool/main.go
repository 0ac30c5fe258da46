// Command evtool validates coding-agent event streams and converts them
// between dialects. The command line lives in package cli; README.md lists
// its exit codes.
package main

import (
	"os"
	"runtime/debug"

	"github.com/evtool/evtool/cli"
)

// softLimit is the heap size past which the collector works harder. A
// stream's state is small, so only a giant line comes near it; without a
// limit the heap doubles over such a line before anything is collected.
// GOMEMLIMIT in the environment overrides it.
const softLimit = 64 << 20

func main() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(softLimit)
	}
	os.Exit(cli.Run(os.Args, os.Stdin, os.Stdout, os.Stderr))
}
