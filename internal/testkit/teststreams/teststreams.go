// Package teststreams finds the test streams of a dialect by convention,
// so that shared tests loop over the registry and a new dialect's streams
// are picked up without naming it anywhere:
//
//	testdata/streams/<dialect>/*.jsonl        bundled streams
//	testdata/probe/<dialect>/valid/*.jsonl    hand-made from the producer's types
//	adapters/<folder>/testdata/*.jsonl        the adapter's own streams
//	../shared/corpus/<dialect>/*.jsonl        real captures, read in place
//	../shared/dialects-next/captures/<dialect>/*.jsonl
//	../shared/ondisk/captures/<agent>/*.jsonl  real on-disk sessions
//
// Streams under testdata/probe/<dialect>/invalid and
// adapters/<folder>/testdata/invalid each hold one bad line. An adapter's
// folder is its dialect's name without hyphens (claude-transcript:
// adapters/claudetranscript).
package teststreams

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Root returns the repository root: the nearest directory upwards with a
// go.mod.
func Root() string {
	dir, err := os.Getwd()
	if err != nil {
		panic(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			panic("teststreams: no go.mod above " + dir)
		}
		dir = up
	}
}

// Valid returns every well-formed test stream of a dialect.
func Valid(dialect string) []string { return ValidAt(Root(), dialect) }

// ValidAt returns every well-formed test stream of a dialect in the
// module at root.
func ValidAt(root, dialect string) []string {
	return glob(
		filepath.Join(root, "testdata", "streams", dialect, "*.jsonl"),
		filepath.Join(root, "testdata", "probe", dialect, "valid", "*.jsonl"),
		filepath.Join(root, "adapters", Folder(dialect), "testdata", "*.jsonl"),
		filepath.Join(root, "..", "shared", "corpus", dialect, "*.jsonl"),
		filepath.Join(root, "..", "shared", "dialects-next", "captures", dialect, "*.jsonl"),
		filepath.Join(root, "..", "shared", "ondisk", "captures", ondiskAgent[dialect], "*.jsonl"),
	)
}

// Folder returns the folder under adapters/ of a dialect: its name without
// hyphens, which a Go package name cannot hold.
func Folder(dialect string) string { return strings.ReplaceAll(dialect, "-", "") }

// ondiskAgent names the folder of ../shared/ondisk/captures that holds
// real sessions of an on-disk dialect (by the agent that wrote them).
var ondiskAgent = map[string]string{
	"claude-transcript": "claude-code",
	"codex-rollout":     "codex",
	"gemini-chat":       "gemini-cli",
}

// Invalid returns the test streams of a dialect that each hold a bad line.
func Invalid(dialect string) []string { return InvalidAt(Root(), dialect) }

// InvalidAt returns the test streams of a dialect in the module at root
// that each hold a bad line.
func InvalidAt(root, dialect string) []string {
	return glob(filepath.Join(root, "testdata", "probe", dialect, "invalid", "*.jsonl"),
		filepath.Join(root, "adapters", Folder(dialect), "testdata", "invalid", "*.jsonl"))
}

func glob(patterns ...string) []string {
	var out []string
	for _, p := range patterns {
		m, _ := filepath.Glob(p)
		out = append(out, m...)
	}
	sort.Strings(out)
	return out
}
