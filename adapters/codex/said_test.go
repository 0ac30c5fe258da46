package codex

import "testing"

// TestSaid holds said to the concatenation of the messages it was given.
func TestSaid(t *testing.T) {
	var s said
	if !s.is("") || s.is("x") {
		t.Error("nothing said: only the empty text is it")
	}
	s.add("Hello, ")
	s.add("")
	s.add("wörld.")
	for text, want := range map[string]bool{
		"Hello, wörld.": true,
		"Hello, wörld!": false, // the same length
		"Hello, ":       false,
		"Hello, wörld":  false,
		"":              false,
	} {
		if got := s.is(text); got != want {
			t.Errorf("is(%q) = %v, want %v", text, got, want)
		}
	}
}
