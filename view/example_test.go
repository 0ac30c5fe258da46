package view_test

import (
	"fmt"
	"os"
	"strings"

	_ "github.com/evtool/evtool/adapters" // every dialect, registered
	"github.com/evtool/evtool/view"
)

// Read a stream once, then write its page: one HTML file that needs
// nothing else.
func Example() {
	f, err := os.Open("../testdata/streams/basis/full_schema2.jsonl")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	run, err := view.Read(f, "full_schema2.jsonl", view.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	// The figures are evtool stats'.
	fmt.Println(run.Stats.Dialect, *run.Stats.Turns, "turns,", run.Stats.ToolCalls.Total, "tool calls")

	var page strings.Builder
	if err := view.WriteRun(&page, run, view.PageOptions{Title: "a basis run"}); err != nil {
		fmt.Println(err)
		return
	}
	html := page.String()
	fmt.Println(strings.HasPrefix(html, "<!DOCTYPE html>"), strings.Contains(html, `<meta http-equiv="Content-Security-Policy"`))
	fmt.Println(strings.Count(html, `<section class="turn"`), "turns shown")
	// Output:
	// basis 2 turns, 3 tool calls
	// true true
	// 2 turns shown
}

// Many runs in one page: each run's view is written as it is added, and
// the index, last, leads to them.
func ExampleIndex() {
	var page strings.Builder
	x, err := view.NewIndex(&page, view.PageOptions{Title: "two runs"})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, name := range []string{"basis/schema1.jsonl", "mermaid/failed_run.jsonl"} {
		f, err := os.Open("../testdata/streams/" + name)
		if err != nil {
			fmt.Println(err)
			return
		}
		run, _ := view.Read(f, name, view.Options{})
		f.Close()
		if err := x.Add(run); err != nil {
			fmt.Println(err)
			return
		}
	}
	if err := x.Close(); err != nil {
		fmt.Println(err)
		return
	}
	html := page.String()
	fmt.Println(strings.Count(html, `<article class="run"`), "runs;", strings.Count(html, `<tr data-status=`), "rows")
	// Output:
	// 2 runs; 2 rows
}
