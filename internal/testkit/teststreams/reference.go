package teststreams

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Reference returns the text of the wire reference at path (a dialect's
// <name>.md, kept beside the repository in ../shared), failing t when it
// is not there: the tests that quote it cannot stand in for it.
func Reference(t testing.TB, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the %s reference is needed beside the repository: %v", strings.TrimSuffix(filepath.Base(path), ".md"), err)
	}
	return string(data)
}

// ExampleLines returns the lines of text that begin with prefix: in a wire
// reference, the example lines, one JSON line each.
func ExampleLines(text, prefix string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return out
}
