// Command toytool is evtool with one more dialect, toy, linked in from
// this module: the three lines of a main that docs/library.md shows.
package main

import (
	"os"

	_ "example.com/toydialect/toy" // registers the toy dialect
	"github.com/evtool/evtool/cli"
)

func main() { os.Exit(cli.Run(os.Args, os.Stdin, os.Stdout, os.Stderr)) }
