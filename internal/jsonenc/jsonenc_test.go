package jsonenc

import (
	"encoding/json"
	"testing"
)

func TestString(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", `""`},
		{"plain", `"plain"`},
		{`a"b\c`, `"a\"b\\c"`},
		{"line\nnext\ttab\r", `"line\nnext\ttab\r"`},
		{"\x00\x1f\b\f", `"\u0000\u001f\b\f"`},
		{"<a href='x'>&</a>", `"<a href='x'>&</a>"`},
		{"é ü 日本 😀", `"é ü 日本 😀"`},
		{"\u2028", "\"\u2028\""},
		{"bad\xffutf8", "\"bad\ufffdutf8\""},
	}
	for _, tt := range tests {
		got := string(String(nil, tt.in))
		if got != tt.want {
			t.Errorf("String(%q) = %s, want %s", tt.in, got, tt.want)
		}
		var back string
		if err := json.Unmarshal([]byte(got), &back); err != nil {
			t.Errorf("String(%q) is not JSON: %v", tt.in, err)
		}
	}
}
