package ndjson

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
)

type got struct {
	text string
	n    int
}

func readAll(t *testing.T, r io.Reader) []got {
	t.Helper()
	rd := NewReader(r)
	var out []got
	for {
		line, n, err := rd.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		out = append(out, got{string(line), n})
	}
}

func TestReader(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []got
	}{
		{"empty", "", nil},
		{"one line", "{}\n", []got{{"{}", 1}}},
		{"no final newline", "{\"a\":1}\n{\"b\":2}", []got{{`{"a":1}`, 1}, {`{"b":2}`, 2}}},
		{"crlf", "{\"a\":1}\r\n{\"b\":2}\r\n", []got{{`{"a":1}`, 1}, {`{"b":2}`, 2}}},
		{"bom", "\xEF\xBB\xBF{\"a\":1}\n", []got{{`{"a":1}`, 1}}},
		{"bom only on first line", "{}\n\xEF\xBB\xBF{}\n", []got{{"{}", 1}, {"\xEF\xBB\xBF{}", 2}}},
		{"blank lines keep numbering", "\n{}\n  \t\n\r\n{}\n\n", []got{{"{}", 2}, {"{}", 5}}},
		{"only blanks", "\n\n \n", nil},
		{"last line blank without newline", "{}\n   ", []got{{"{}", 1}}},
		{"broken json is still a line", "{\"a\":\n{}\n", []got{{`{"a":`, 1}, {"{}", 2}}},
		{"lone cr in a line is kept", "{\"a\":\"x\ry\"}\n", []got{{"{\"a\":\"x\ry\"}", 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, mode := range []string{"whole", "one byte reads"} {
				var r io.Reader = strings.NewReader(tt.in)
				if mode != "whole" {
					r = iotest.OneByteReader(r)
				}
				out := readAll(t, r)
				if len(out) != len(tt.want) {
					t.Fatalf("%s: got %d lines %+v, want %d %+v", mode, len(out), out, len(tt.want), tt.want)
				}
				for i := range out {
					if out[i] != tt.want[i] {
						t.Errorf("%s: line %d = %+v, want %+v", mode, i, out[i], tt.want[i])
					}
				}
			}
		})
	}
}

func TestLongLines(t *testing.T) {
	// A 64 MiB line, longer than any buffer, between two short ones.
	big := make([]byte, 64<<20)
	for i := range big {
		big[i] = 'a' + byte(i%26)
	}
	var in bytes.Buffer
	in.WriteString("{}\n\"")
	in.Write(big)
	in.WriteString("\"\r\n{\"end\":true}")
	rd := NewReader(&in)
	lines := 0
	for {
		line, n, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		lines++
		if n != lines {
			t.Errorf("line %d reported as %d", lines, n)
		}
		if lines == 2 {
			if len(line) != len(big)+2 || !bytes.Equal(line[1:len(line)-1], big) {
				t.Fatalf("long line: got %d bytes, want %d", len(line), len(big)+2)
			}
		}
	}
	if lines != 3 {
		t.Fatalf("got %d lines, want 3", lines)
	}
}

func TestReadError(t *testing.T) {
	boom := errors.New("disk on fire")
	r := io.MultiReader(strings.NewReader("{}\n{\"partial"), iotest.ErrReader(boom))
	rd := NewReader(r)
	if line, n, err := rd.Next(); err != nil || string(line) != "{}" || n != 1 {
		t.Fatalf("first line: %q %d %v", line, n, err)
	}
	if _, _, err := rd.Next(); !errors.Is(err, boom) {
		t.Fatalf("got %v, want the read error", err)
	}
	if _, _, err := rd.Next(); !errors.Is(err, boom) {
		t.Fatalf("the error must stick, got %v", err)
	}
}

func TestMaxLineBytes(t *testing.T) {
	long := strings.Repeat("x", 200<<10) // beyond the read buffer
	for _, tc := range []struct {
		name, in string
		max      int
		want     []string // lines, or "!N" for a line of N bytes refused
	}{
		{"short lines pass", "ab\ncd\n", 2, []string{"ab", "cd"}},
		{"a short line over the limit", "abc\nde\n", 2, []string{"!3", "de"}},
		{"a long line over the limit", "a\n" + long + "\nb\n", 1 << 10, []string{"a", "!204800", "b"}},
		{"a long last line without newline", "a\n" + long, 1 << 10, []string{"a", "!204800"}},
		{"a long line within the limit", long + "\n", 300 << 10, []string{long}},
		{"CRLF counts the CR as the line's", "ab\r\n", 2, []string{"!3"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := NewReader(strings.NewReader(tc.in))
			r.SetMaxLineBytes(tc.max)
			var seen []string
			for {
				b, n, err := r.Next()
				if err == io.EOF {
					break
				}
				var tl *LineTooLongError
				if errors.As(err, &tl) {
					if tl.Line != n || tl.Max != tc.max {
						t.Fatalf("error %+v at line %d", tl, n)
					}
					seen = append(seen, fmt.Sprintf("!%d", tl.Bytes))
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				seen = append(seen, string(b))
			}
			if !slices.Equal(seen, tc.want) {
				t.Errorf("got %.40q, want %.40q", seen, tc.want)
			}
		})
	}
}

// TestTermAndBOM: what Next strips from a line (its terminator, a byte
// order mark) is told, so that a line can be written back as it was read.
func TestTermAndBOM(t *testing.T) {
	rd := NewReader(strings.NewReader("\xef\xbb\xbf{\"a\":1}\r\n\n{}\n[]\r\n  \r\n1\r"))
	want := []struct {
		line string
		term string
		bom  bool
	}{{`{"a":1}`, CRLF, true}, {"{}", LF, false}, {"[]", CRLF, false}, {"1", CR, false}}
	for _, w := range want {
		line, _, err := rd.Next()
		if err != nil {
			t.Fatal(err)
		}
		if string(line) != w.line || rd.Term() != w.term || rd.BOM() != w.bom {
			t.Errorf("%q: term %q bom %v, want %q: term %q bom %v", line, rd.Term(), rd.BOM(), w.line, w.term, w.bom)
		}
	}
	rd = NewReader(strings.NewReader("{}\n{}"))
	rd.Next()
	if line, _, _ := rd.Next(); string(line) != "{}" || rd.Term() != "" {
		t.Errorf("a last line without a newline: %q term %q", line, rd.Term())
	}
}

// TestCheckNesting: the check tells how deep a line nests.
func TestCheckNesting(t *testing.T) {
	for _, tt := range []struct {
		line  string
		depth int
	}{{`1`, 0}, {`{}`, 1}, {`{"a":[1,{"b":[]}],"c":{}}`, 4}, {`[[[]],[]]`, 3}} {
		d, err := CheckNesting([]byte(tt.line), Options{})
		if err != nil || d != tt.depth {
			t.Errorf("%s: depth %d, %v; want %d", tt.line, d, err, tt.depth)
		}
	}
	deep := strings.Repeat("[", 20) + strings.Repeat("]", 20)
	if d, err := CheckNesting([]byte(deep), Options{MaxDepth: 10}); err == nil || err.Kind != TooDeep || d != 10 {
		t.Errorf("too deep: depth %d, %v", d, err)
	}
}
