package jsonenc

import (
	"bytes"
	"encoding/json"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
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
		// Raw, as serde_json and JSON.stringify write them.
		{"\u2028 \u2029", "\"\u2028 \u2029\""},
		{"sixteen plain by\"tes then \\ more than eight", `"sixteen plain by\"tes then \\ more than eight"`},
		{"eight by\x01", `"eight by\u0001"`},
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

// TestPlain8 checks the eight-byte test against the byte-by-byte one for
// every byte value in every position.
func TestPlain8(t *testing.T) {
	plain := func(c byte) bool { return c >= 0x20 && c < 0x80 && c != '"' && c != '\\' }
	for pos := range 8 {
		for c := range 256 {
			b := []byte("abcdefgh")
			b[pos] = byte(c)
			if got, want := Plain8(Load8(b, 0)), plain(byte(c)); got != want {
				t.Fatalf("byte %#x at %d: Plain8 = %v, want %v", c, pos, got, want)
			}
			text := c >= 0x20 && c != '"' && c != '\\'
			if got := Text8(LoadString8(string(b), 0)); got != text {
				t.Fatalf("byte %#x at %d: Text8 = %v, want %v", c, pos, got, text)
			}
			// Among high bytes too.
			h := []byte("\xc3\xa9\xc3\xa9\xe6\x97\xa5x")
			h[pos] = byte(c)
			if got := Text8(Load8(h, 0)); got != text {
				t.Fatalf("byte %#x at %d among high bytes: Text8 = %v, want %v", c, pos, got, text)
			}
		}
	}
}

func TestSkipString(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
	}{
		{`"abc"x`, 5},
		{`"a long string with \"escapes\" and \\ slashes"]`, 47},
		{`"üñíçødé text that is longer than eight bytes"`, 52},
		{`"unterminated`, 13},
		{`"ends in an escape\`, 19},
	} {
		if got := SkipString([]byte(tc.in), 0); got != tc.want {
			t.Errorf("SkipString(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
}

// FuzzString holds String's fast path to the rune-by-rune one, and both to
// encoding/json's reading of what they write.
func FuzzString(f *testing.F) {
	for _, s := range []string{"", "plain", "a\"b\\c\nd\te\x01", "ünï\u2028cödé\u2029", "\xff\xfe", "“quoted” — ✅ 日本語\n\tx", strings.Repeat("é\\n", 9)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := String(nil, s)
		if want := stringSlow(nil, s); string(got) != string(want) {
			t.Fatalf("%q: String %s, the slow way %s", s, got, want)
		}
		var back string
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatalf("%q: wrote %s, which is not JSON: %v", s, got, err)
		}
		if want := strings.ToValidUTF8(s, "\ufffd"); back != want && utf8.ValidString(s) {
			t.Fatalf("%q: reads back as %q", s, back)
		}
	})
}

// TestSkipQuotedShort holds the eight-bytes-at-a-time reading of short
// strings to the careful one: every string of up to 12 bytes from an
// alphabet of quotes, backslashes and text, at every offset in a word,
// with and without text after it.
func TestSkipQuotedShort(t *testing.T) {
	alpha := []byte{'"', '\\', 'a', 0xc3, 0x00}
	var walk func(cur []byte, depth int)
	n := 0
	walk = func(cur []byte, depth int) {
		for pad := 0; pad < 8; pad++ {
			for _, tail := range []string{"", `","x":1}`, strings.Repeat("y", 70)} {
				s := strings.Repeat(" ", pad) + `"` + string(cur) + tail
				e1, x1 := SkipQuoted(s, pad)
				e2, x2 := skipQuotedSlow(s, pad)
				if e1 != e2 || x1 != x2 {
					t.Fatalf("%q: SkipQuoted = %d, %v; the careful way %d, %v", s, e1, x1, e2, x2)
				}
				n++
			}
		}
		if depth == 0 {
			return
		}
		for _, c := range alpha {
			walk(append(cur, c), depth-1)
		}
	}
	walk(nil, 6)
	long := strings.Repeat("z", 100)
	for i := range 100 {
		for _, c := range []string{`"`, `\"`, `\\"`} {
			s := `"` + long[:i] + c + long
			e1, x1 := SkipQuoted(s, 0)
			e2, x2 := skipQuotedSlow(s, 0)
			if e1 != e2 || x1 != x2 {
				t.Fatalf("%q: %d %v against %d %v", s, e1, x1, e2, x2)
			}
		}
	}
}

// TestEscapedLen: the room appendText makes for a long text is what it
// writes, for every ASCII byte and for text around them.
func TestEscapedLen(t *testing.T) {
	var b strings.Builder
	for c := range 128 {
		b.WriteByte(byte(c))
		b.WriteString("é日本")
	}
	for _, s := range []string{"", "plain", b.String(), strings.Repeat(b.String(), 400)} {
		if got, want := escapedLen(s), len(appendText(nil, s)); got != want {
			t.Errorf("escapedLen of %d bytes = %d, appendText wrote %d", len(s), got, want)
		}
		if got := appendText(nil, s); len(s) > 64<<10 && cap(got) > len(got)+len(got)/16 {
			t.Errorf("a long text's buffer has cap %d for %d bytes: grown, not made at once", cap(got), len(got))
		}
	}
}

// TestStringToPieces holds StringTo to String on texts whose pieces end
// inside characters of every length, in runs of invalid bytes and beside
// escapes, and checks that no piece it escapes is much larger than
// pieceLen.
func TestStringToPieces(t *testing.T) {
	alphabet := []string{"a", "é", "€", "😀", "\n", "\"", "\\", "\x01", "\xff", "\x80", "\xe2\x82", "\xf0\x9f\x98", "\u2028"}
	rng := rand.New(rand.NewPCG(1, 2))
	var cases []string
	for _, c := range alphabet {
		for off := 1; off <= 4; off++ {
			// c straddles the first piece's end, off bytes before it.
			cases = append(cases, strings.Repeat("x", pieceLen-off)+strings.Repeat(c, 3)+strings.Repeat("y", pieceLen))
		}
	}
	for range 20 {
		var b strings.Builder
		for b.Len() < 3*pieceLen+rng.IntN(pieceLen) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		cases = append(cases, b.String())
	}
	cases = append(cases, "", "short", strings.Repeat("\x01", 2*pieceLen))
	for i, s := range cases {
		var w maxWriter
		buf, err := StringTo(&w, nil, s)
		if err != nil {
			t.Fatal(err)
		}
		if want := String(nil, s); !bytes.Equal(w.out, want) {
			t.Fatalf("case %d (%d bytes): StringTo differs from String", i, len(s))
		}
		if len(buf) != 0 || cap(buf) > 8*pieceLen || w.max > 6*pieceLen+8 {
			t.Errorf("case %d: a buffer of %d, a write of %d bytes: want pieces of a few times %d", i, cap(buf), w.max, pieceLen)
		}
	}
}

// maxWriter keeps what is written and the largest write.
type maxWriter struct {
	out []byte
	max int
}

func (w *maxWriter) Write(p []byte) (int, error) {
	w.out = append(w.out, p...)
	w.max = max(w.max, len(p))
	return len(p), nil
}

// TestStringToError returns the writer's error.
func TestStringToError(t *testing.T) {
	if _, err := StringTo(failWriter{}, nil, strings.Repeat("a", 3*pieceLen)); err != io.ErrShortWrite {
		t.Errorf("got %v, want the writer's error", err)
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, io.ErrShortWrite }

// TestStringsToEscapesAsWhole: a text cut into pieces anywhere (inside a
// character, among invalid bytes) and written by StringsTo gives the
// bytes jsonenc.String gives the whole.
func TestStringsToEscapesAsWhole(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "b", " ", "\"", "\\", "\n", "\x01", "é", "€", "😀", "\u2028", "\xff", "\x80", "\xe2\x82", "\xf0\x9f"}
	for round := range 400 {
		var whole strings.Builder
		size := r.IntN(64)
		if round%40 == 0 {
			size = 3 * pieceLen / 2 // long enough to be cut inside a piece
		}
		for whole.Len() < size {
			whole.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		s := whole.String()
		var pieces []string
		for rest := s; rest != ""; {
			n := min(len(rest), 1+r.IntN(8))
			if round%40 == 0 {
				n = min(len(rest), 1+r.IntN(2*pieceLen))
			}
			pieces = append(pieces, rest[:n])
			rest = rest[n:]
		}
		var got bytes.Buffer
		if _, err := StringsTo(&got, nil, slices.Values(pieces)); err != nil {
			t.Fatal(err)
		}
		if want := String(nil, s); !bytes.Equal(got.Bytes(), want) {
			t.Fatalf("pieces %q:\ngot  %q\nwant %q", pieces, got.Bytes(), want)
		}
	}
}
