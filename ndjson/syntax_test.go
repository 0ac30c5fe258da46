package ndjson

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	simdutf8 "github.com/segmentio/asm/utf8"
)

func TestCheck(t *testing.T) {
	deep := strings.Repeat("[", DefaultMaxDepth) + strings.Repeat("]", DefaultMaxDepth)
	tooDeep := `{"a":` + strings.Repeat("[", DefaultMaxDepth) + strings.Repeat("]", DefaultMaxDepth) + `}`
	tests := []struct {
		name, line string
		kind       SyntaxKind
		col        int
		ptr, msg   string
		ok         bool
	}{
		{name: "object", line: `{"a":1,"b":[true,false,null,"x",-0.5e+3]}`, ok: true},
		{name: "spaces", line: " { \"a\" : 1 , \"b\" : { } } \t", ok: true},
		{name: "escapes", line: `{"a":"\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00"}`, ok: true},
		{name: "escaped key equals plain key", line: `{"a":1,"\u0061":2}`, kind: DuplicateKey, col: 8, ptr: "/a", msg: `duplicate key "a" (first at column 2)`},
		{name: "duplicate type", line: `{"type":"x","seq":1,"type":"y"}`, kind: DuplicateKey, col: 21, ptr: "/type"},
		{name: "nested duplicate", line: `{"a":[{"b":1},{"c":1,"c":2}]}`, kind: DuplicateKey, col: 22, ptr: "/a/1/c"},
		{name: "same key in sibling objects", line: `{"a":{"x":1},"b":{"x":1}}`, ok: true},
		{name: "max depth", line: deep, ok: true},
		{name: "too deep", line: tooDeep, kind: TooDeep, ptr: "/a" + strings.Repeat("/0", 7), col: 6 + DefaultMaxDepth - 1,
			msg: "nesting deeper than 10000 levels (9992 levels below here)"},
		{name: "trailing comma", line: `{"a":1,}`, kind: BadJSON, col: 8, msg: `invalid JSON: unexpected '}' where an object key belongs`},
		{name: "two values", line: `{} {}`, kind: BadJSON, col: 4},
		{name: "truncated", line: `{"a":"xy`, kind: BadJSON, col: 9, ptr: "/a", msg: "invalid JSON: the line ends inside a string"},
		{name: "truncated object", line: `{"a":1`, kind: BadJSON, col: 7, msg: "invalid JSON: the line ends inside a value"},
		{name: "bad utf8 in string", line: "{\"a\":\"\xff\"}", kind: BadUTF8, col: 7, ptr: "/a", msg: "invalid UTF-8 at byte 7"},
		{name: "bad utf8 outside", line: "\xff", kind: BadUTF8, col: 1},
		{name: "NUL in string", line: "{\"a\":\"\x00\"}", kind: BadJSON, col: 7, ptr: "/a", msg: "invalid JSON: unescaped control character U+0000 in a string"},
		{name: "lone surrogate", line: `{"a":"\ud800"}`, kind: BadJSON, col: 7, ptr: "/a", msg: `invalid JSON: lone surrogate \ud800 in a string`},
		{name: "low surrogate first", line: `{"a":"\udc00\ud800"}`, kind: BadJSON, col: 7, ptr: "/a"},
		{name: "leading zero", line: `[01]`, kind: BadJSON, col: 3},
		{name: "plus sign", line: `[+1]`, kind: BadJSON, col: 2},
		{name: "bare fraction", line: `[1.]`, kind: BadJSON, col: 4},
		{name: "NaN", line: `[NaN]`, kind: BadJSON, col: 2},
		{name: "single quotes", line: `{'a':1}`, kind: BadJSON, col: 2},
		{name: "empty", line: `   `, kind: BadJSON, col: 4},
		{name: "big numbers are syntax", line: `[1e999,18446744073709551616,-0,0.1e-400]`, ok: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Check([]byte(tt.line))
			if tt.ok {
				if err != nil {
					t.Fatalf("Check: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("Check accepted the line")
			}
			if err.Kind != tt.kind || err.Col != tt.col || err.Pointer != tt.ptr {
				t.Errorf("got kind %d col %d ptr %q (%s), want kind %d col %d ptr %q", err.Kind, err.Col, err.Pointer, err.Msg, tt.kind, tt.col, tt.ptr)
			}
			if tt.msg != "" && err.Msg != tt.msg {
				t.Errorf("message %q, want %q", err.Msg, tt.msg)
			}
		})
	}
}

// FuzzCheck holds Check to encoding/json's verdict, apart from what Check
// refuses on purpose (duplicate keys, lone surrogates, depth) and never
// panics.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `[1,2,{"b":"\u00e9"}]`, `"x"`, `{"a":{"a":1}}`, `-0.5e3`, `{"a":1,"a":2}`, `"\ud800"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		err := Check(b)
		valid := json.Valid(b)
		if err == nil && !valid {
			t.Fatalf("Check accepts what encoding/json rejects: %q", b)
		}
		if err != nil && valid && err.Kind == BadJSON && !strings.Contains(err.Msg, "surrogate") {
			t.Fatalf("Check rejects valid JSON %q: %v", b, err)
		}
		if err != nil && (err.Offset < 0 || err.Offset > len(b)) {
			t.Fatalf("offset %d out of range", err.Offset)
		}
	})
}

// FuzzUTF8 holds the SIMD UTF-8 check the scanner trusts for a whole line
// to the standard library's.
func FuzzUTF8(f *testing.F) {
	for _, s := range []string{"", "abc", "é", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xc0\xaf", strings.Repeat("日本語ab", 20) + "\xff"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := simdutf8.Valid(b), utf8.Valid(b); got != want {
			t.Fatalf("%q: SIMD says %v, unicode/utf8 %v", b, got, want)
		}
	})
}

// TestCheckExhaustive judges every string of up to five characters from an
// alphabet of the bytes that matter inside a string (a quote, a backslash,
// escape letters, hex digits, a tab, a two-byte letter, a byte that is
// never UTF-8), at two offsets from a word boundary, and holds the verdict
// to encoding/json's, as FuzzCheck does, on the strings a clean line's
// fast path and the careful path both see.
func TestCheckExhaustive(t *testing.T) {
	alphabet := []string{`"`, `\`, "n", "a", "é", "u", "d", "8", "\t", "\xff"}
	var rec func(prefix string, n int)
	count := 0
	rec = func(prefix string, n int) {
		for _, pre := range []string{"", "xxxxxxx"} {
			line := []byte(`{"k":"` + pre + prefix + `","z":1}`)
			err, valid := Check(line), json.Valid(line)
			if err == nil && !valid {
				t.Fatalf("Check accepts what encoding/json rejects: %q", line)
			}
			// Check refuses invalid UTF-8 and lone surrogates on purpose.
			if err != nil && valid && err.Kind != BadUTF8 && !strings.Contains(err.Msg, "surrogate") {
				t.Fatalf("Check rejects valid JSON %q: %v", line, err)
			}
			count++
		}
		if n == 0 {
			return
		}
		for _, c := range alphabet {
			rec(prefix+c, n-1)
		}
	}
	rec("", 5)
	if count < 200000 {
		t.Fatalf("only %d lines", count)
	}
}
