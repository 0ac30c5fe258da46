package ndjson

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
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
		// The '\r' of a CRLF line is its terminator, not its content: the
		// line fits as its LF form does (it was counted, hunt-hostile).
		{"CRLF: the CR is the terminator's", "ab\r\n", 2, []string{"ab"}},
		{"CRLF over the limit", "abc\r\n", 2, []string{"!3"}},
		{"a last CR with no LF is the line's", "ab\r", 2, []string{"!3"}},
		{"CRLF long line within the limit", long + "\r\n", len(long), []string{long}},
		{"CRLF long line over the limit", long + "x\r\n", len(long), []string{"!" + strconv.Itoa(len(long)+1)}},
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

// gen is an io.Reader of a line of n bytes of 'x' and a newline, made as
// it is read, then of a short line: a giant input that exists nowhere.
type gen struct{ n, done int64 }

func (g *gen) Read(p []byte) (int, error) {
	if g.done > g.n {
		return 0, io.EOF
	}
	k := 0
	for k < len(p) && g.done < g.n {
		p[k] = 'x'
		k++
		g.done++
	}
	if k+11 <= len(p) && g.done == g.n {
		k += copy(p[k:], "\n{\"end\":1}\n")
		g.done++
	}
	return k, nil
}

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// readLines reads every line of rd, as "!N" for a refused line of N bytes.
func readLines(t *testing.T, rd *Reader) []string {
	t.Helper()
	var out []string
	for {
		b, _, err := rd.Next()
		if err == io.EOF {
			return out
		}
		var tl *LineTooLongError
		if errors.As(err, &tl) {
			out = append(out, fmt.Sprintf("!%d", tl.Bytes))
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(b) > 20 {
			out = append(out, fmt.Sprintf("%d bytes", len(b)))
		} else {
			out = append(out, string(b))
		}
	}
}

// TestRefusedLineNotHeld: a line over the limit costs the limit at most
// from a pipe, which cannot be read twice, and nothing from a file.
func TestRefusedLineNotHeld(t *testing.T) {
	const n = 300 << 20
	var got []string
	a := allocated(func() {
		rd := NewReader(&gen{n: n})
		rd.SetMaxLineBytes(1 << 20)
		got = readLines(t, rd)
	})
	if want := []string{fmt.Sprint("!", n), `{"end":1}`}; !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	if a > 4<<20 {
		t.Errorf("a refused line of 300 MB from a pipe allocated %d bytes, want at most 4 MiB (the limit is 1 MiB)", a)
	}

	f := bigFile(t, 64<<20)
	a = allocated(func() {
		rd := NewReader(f)
		rd.SetMaxLineBytes(1 << 20)
		got = readLines(t, rd)
	})
	if want := []string{"{}", fmt.Sprint("!", 64<<20), `{"end":1}`}; !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	if a > 1<<20 {
		t.Errorf("a refused line of 64 MiB from a file allocated %d bytes, want at most 1 MiB", a)
	}
}

// TestLongLineOnce: a long line is held once, in memory of its size, read
// from a file; from a pipe it is gathered and copied once.
func TestLongLineOnce(t *testing.T) {
	const n = 64 << 20
	var got []string
	a := allocated(func() { got = readLines(t, NewReader(&gen{n: n})) })
	if want := []string{fmt.Sprint(n, " bytes"), `{"end":1}`}; !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	if a > 2*n+n/4 {
		t.Errorf("a line of 64 MiB from a pipe allocated %d bytes, want at most 2.25 times the line", a)
	}
	f := bigFile(t, n)
	a = allocated(func() { got = readLines(t, NewReader(f)) })
	if want := []string{"{}", fmt.Sprint(n, " bytes"), `{"end":1}`}; !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	if a > n+n/16 {
		t.Errorf("a line of 64 MiB from a file allocated %d bytes, want little more than the line", a)
	}
}

// bigFile writes "{}", a line of n bytes of 'x', and a short line to a
// file, and opens it.
func bigFile(t *testing.T, n int) *os.File {
	t.Helper()
	p := filepath.Join(t.TempDir(), "big.jsonl")
	w, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	w.WriteString("{}\n")
	if _, err := io.Copy(w, &gen{n: int64(n)}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// TestFileLines: read through a file, long lines measured and read at
// their offsets come out as they do from a pipe, whatever is around them:
// limits, a last line without a newline, CRLF, a byte order mark, and a
// Reader that reads the file through a *bufio.Reader of its own (SetFile).
func TestFileLines(t *testing.T) {
	long := strings.Repeat("y", 200<<10)
	for _, in := range []string{
		"a\n" + long + "\nb\n",
		"\xef\xbb\xbf" + long + "\r\n" + long + long + "\n{}",
		long,
		long + "\r",
		"\n\n" + long + "\n  \n" + strings.Repeat("z", 70<<10) + "\n",
	} {
		for _, max := range []int{0, 100 << 10, 200 << 10, 300 << 10, 500 << 10} {
			want := func() []string {
				rd := NewReader(iotest.HalfReader(strings.NewReader(in)))
				rd.SetMaxLineBytes(max)
				return readTerms(t, rd)
			}()
			p := filepath.Join(t.TempDir(), "in.jsonl")
			if err := os.WriteFile(p, []byte(in), 0o644); err != nil {
				t.Fatal(err)
			}
			f, err := os.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			f.Seek(0, io.SeekStart)
			br := bufio.NewReaderSize(f, DefaultBufferSize)
			br.Peek(10) // what a caller looked at first
			rd := NewReader(br)
			rd.SetFile(f)
			rd.SetMaxLineBytes(max)
			got := readTerms(t, rd)
			f.Close()
			if !slices.Equal(got, want) {
				t.Errorf("%.20q, limit %d: read from a file %q, want %q", in, max, got, want)
			}
		}
	}
}

// readTerms reads every line with its number, terminator and BOM.
func readTerms(t *testing.T, rd *Reader) []string {
	var out []string
	for {
		b, n, err := rd.Next()
		if err == io.EOF {
			return out
		}
		var tl *LineTooLongError
		if errors.As(err, &tl) {
			out = append(out, fmt.Sprintf("%d: !%d", n, tl.Bytes))
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%d: %d %x %q %v", n, len(b), sha256.Sum256(b), rd.Term(), rd.BOM()))
	}
}
