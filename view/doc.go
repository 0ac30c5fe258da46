// Package view writes what a coding agent did as a web page: one run, or
// many behind an index, each page a single HTML file with its style sheet
// and script inside, that needs no network and opens from file:// or as a
// CI artefact.
//
// Read reads a stream of any dialect once, through package stream's
// Reader, counting its events with stats.Counter (so the page's turns,
// tool calls, tokens and cost are evtool stats') and building the page's
// model from the same events: the turns with the user's prompt, the
// assistant's messages (markdown, rendered safely), its reasoning folded,
// the tool calls as cards (input, output, exit code, diffs, permissions,
// errors), subagents nested in the call or task that ran them; a timeline
// of turns, rounds and tool calls, and the tokens and cost added up over
// the run, both drawn in SVG. WriteRun writes a run's page; an Index
// writes many runs and a table of them into one page, or links to pages
// written elsewhere.
//
// Every string of the input is written as text: escaped, with terminal
// escapes left out and control characters made visible. The page's
// content security policy forbids any request and any script or style but
// the page's own, allowed by their hashes. Long texts are cut to Limits,
// and each cut is stated where it is made. docs/view.md describes the
// page, its limits and its sizes.
package view
