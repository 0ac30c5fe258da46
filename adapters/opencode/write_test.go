package opencode

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// TestJSString writes strings as JSON.stringify does: U+2028 and U+2029
// raw, everything else as jsonenc escapes it, and the result reads back as
// the same string.
func TestJSString(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"plain", `"plain"`},
		{"a\u2028b", "\"a\u2028b\""},
		{"\u2029", "\"\u2029\""},
		{"\u2028\u2029\u2028", "\"\u2028\u2029\u2028\""},
		{"q\"\\\u2028\n\x01", "\"q\\\"\\\\\u2028\\n\\u0001\""},
		{`\u2028 stays text`, `"\\u2028 stays text"`},
		{"bad\xff\u2028", "\"bad\ufffd\u2028\""},
		{"", `""`},
	} {
		got := string(jsString([]byte("x"), tt.in))
		if got != "x"+tt.want {
			t.Errorf("jsString(%q) = %s, want %s", tt.in, got[1:], tt.want)
			continue
		}
		var back string
		if err := json.Unmarshal([]byte(tt.want), &back); err != nil {
			t.Errorf("%s: %v", tt.want, err)
		} else if utf8.ValidString(tt.in) && back != tt.in {
			t.Errorf("%s reads back as %q, not %q", tt.want, back, tt.in)
		}
	}
}
