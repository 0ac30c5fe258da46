package byline

import (
	"slices"
	"testing"
)

func TestKeys(t *testing.T) {
	m := map[string]int{"c": 3, "b": 1, "a": 3, "d": 2}
	if got, want := Keys(m, Line), []string{"b", "d", "a", "c"}; !slices.Equal(got, want) {
		t.Errorf("Keys = %q, want %q", got, want)
	}
	if got := Keys(map[string]int{}, Line); len(got) != 0 {
		t.Errorf("Keys of an empty map = %q", got)
	}
}
