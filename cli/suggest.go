package cli

import (
	"fmt"
	"strings"
)

// didYouMean returns "; did you mean X?" for the candidate nearest to
// word, or "" when none is near enough to be what was meant. Near is a
// different case, a prefix of three letters or more, or at most two
// edits (one for words of four letters or fewer), so that a word far from
// every candidate gets no guess that would only mislead.
func didYouMean(word string, candidates []string) string {
	if s := suggest(word, candidates); s != "" {
		return fmt.Sprintf("; did you mean %q?", s)
	}
	return ""
}

// suggest returns the candidate nearest to word, or "" (see didYouMean).
func suggest(word string, candidates []string) string {
	if word == "" {
		return ""
	}
	lw := strings.ToLower(word)
	best, bestD := "", 1<<30
	for _, c := range candidates {
		lc := strings.ToLower(c)
		d := editDistance(lw, lc)
		switch {
		case c == word:
			continue
		case lc == lw:
			d = 0
		case len(lw) >= 3 && strings.HasPrefix(lc, lw):
			d = min(d, 1)
		}
		if d < bestD {
			best, bestD = c, d
		}
	}
	limit := 2
	if len([]rune(word)) <= 4 {
		limit = 1
	}
	if bestD > limit {
		return ""
	}
	return best
}

// editDistance is the optimal string alignment distance between a and b:
// insertions, deletions, substitutions and transpositions of neighbours,
// each one edit, counted in runes.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}
