// Package teststreams finds the test streams of a dialect by convention,
// so that shared tests loop over the registry and a new dialect's streams
// are picked up without naming it anywhere:
//
//	testdata/streams/<dialect>/*.jsonl        bundled streams
//	testdata/probe/<dialect>/valid/*.jsonl    hand-made from the producer's types
//	adapters/<dialect>/testdata/*.jsonl       the adapter's own streams
//	../shared/corpus/<dialect>/*.jsonl        real captures, read in place
//	../shared/dialects-next/captures/<dialect>/*.jsonl
//
// Streams under testdata/probe/<dialect>/invalid each hold one bad line.
package teststreams

import (
	"os"
	"path/filepath"
	"sort"
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
		filepath.Join(root, "adapters", dialect, "testdata", "*.jsonl"),
		filepath.Join(root, "..", "shared", "corpus", dialect, "*.jsonl"),
		filepath.Join(root, "..", "shared", "dialects-next", "captures", dialect, "*.jsonl"),
	)
}

// Invalid returns the test streams of a dialect that each hold a bad line.
func Invalid(dialect string) []string { return InvalidAt(Root(), dialect) }

// InvalidAt returns the test streams of a dialect in the module at root
// that each hold a bad line.
func InvalidAt(root, dialect string) []string {
	return glob(filepath.Join(root, "testdata", "probe", dialect, "invalid", "*.jsonl"))
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
