package openset

import (
	"slices"
	"strings"
	"testing"
)

func TestPack(t *testing.T) {
	for _, fields := range [][]string{
		nil,
		{""},
		{"read_file", "", "Read a.go"},
		{strings.Repeat("x", 300), "\x00\xff", "{\"a\":1}"},
	} {
		if got := Fields(nil, Pack(fields...)); !slices.Equal(got, fields) {
			t.Errorf("Fields(Pack(%q)) = %q", fields, got)
		}
	}
	// What Pack did not make: no panic, no read past the end.
	for _, s := range []string{"\x05ab", "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff", "\x80"} {
		Fields(nil, s)
	}
}
