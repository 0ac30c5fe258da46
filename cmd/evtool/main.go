// Command evtool validates coding-agent event streams and converts them
// between dialects. The command line lives in package cli; README.md lists
// its exit codes.
package main

import (
	"os"

	"github.com/evtool/evtool/cli"
)

func main() { os.Exit(cli.Run(os.Args, os.Stdin, os.Stdout, os.Stderr)) }
