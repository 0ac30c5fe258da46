package claudecode

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestFirstLine: a title is the first line, at most 200 bytes, and keeps
// a character that ends at the cut whole while it drops the bytes the cut
// left of one that goes past it.
func TestFirstLine(t *testing.T) {
	pad := strings.Repeat("a", 197)
	tests := []struct{ in, want string }{
		{"short\nsecond line", "short"},
		{pad + "日本", pad + "日"},  // 日 ends at byte 200: kept whole
		{pad + "a日本", pad + "a"}, // 日 would end at 201: dropped
		{pad + "🚀x", pad},        // a 4-byte character cut after 3
		{strings.Repeat("é", 150), strings.Repeat("é", 100)},
		{strings.Repeat("x", 250) + "\nmore", strings.Repeat("x", 200)},
	}
	for _, tt := range tests {
		got := FirstLine(tt.in)
		if got != tt.want {
			t.Errorf("FirstLine(%d bytes) = %d bytes %q…, want %d bytes", len(tt.in), len(got), got[max(0, len(got)-8):], len(tt.want))
		}
		if len(got) > 200 || !utf8.ValidString(got) {
			t.Errorf("FirstLine(%d bytes): %d bytes, valid %v", len(tt.in), len(got), utf8.ValidString(got))
		}
	}
}
