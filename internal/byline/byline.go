// Package byline orders what a checker still holds open at the end of a
// stream (calls, requests, items, kept in maps by id) by the line that
// opened each, so that its findings come out in the stream's order and
// the same on every run, whatever the order of map iteration.
package byline

import (
	"cmp"
	"slices"
)

// Keys returns the keys of m ordered by the line line gives each value
// (or another mark of order, such as a count of first sightings), and keys
// on one line by key.
func Keys[V any, L cmp.Ordered](m map[string]V, line func(V) L) []string {
	ids := make([]string, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b string) int { return cmp.Or(cmp.Compare(line(m[a]), line(m[b])), cmp.Compare(a, b)) })
	return ids
}

// Line is the line function of a map that holds the line itself.
func Line(l int) int { return l }
