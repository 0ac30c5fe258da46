package stream_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/ndjson"
	"github.com/evtool/evtool/stream"
	"github.com/klauspost/compress/zstd"
)

// basisStream is a whole basis run, three lines.
const basisStream = head + "\n" +
	`{"seq":1,"type":"user_message","text":"hi"}` + "\n" +
	`{"seq":2,"type":"run_finished","status":"ok"}` + "\n"

var errHangs = errors.New("the reading makes no progress")

// readAll reads r to its end through Next, failing the test if that takes
// more calls than the input could justify: a Reader that makes no
// progress spins there forever. It returns the events' types, the lines
// with problems and the error that ended the reading (nil for io.EOF).
func readAll(t testing.TB, in []byte, opts stream.Options) (types []string, bad []int, err error) {
	t.Helper()
	rd := stream.NewReader(bytes.NewReader(in), "in.jsonl", opts)
	defer rd.Close()
	limit := 64 + 4*len(in)
	for calls := 0; ; calls++ {
		if calls > limit {
			return types, bad, fmt.Errorf("%w: Next called %d times on %d bytes", errHangs, calls, len(in))
		}
		ev, err := rd.Next()
		if err == io.EOF {
			return types, bad, nil
		}
		var le *stream.LineError
		if errors.As(err, &le) {
			bad = append(bad, le.Line)
			continue
		}
		if err != nil {
			return types, bad, err
		}
		types = append(types, string(ev.Type()))
	}
}

// TestNextEnds: the pull loop of the package doc ends on every input, with
// a dialect to tell or none (issue 21: a stream with no readable line
// spun forever), and ReadLine keeps returning io.EOF after the end.
func TestNextEnds(t *testing.T) {
	inputs := map[string]string{
		"hello":     "hello\n",
		"html":      "<html>502</html>",
		"log":       "2024-01-01 INFO starting\n2024-01-01 INFO done\n",
		"empty":     "",
		"blank":     "\n \n\t\n",
		"json 1":    "1\n",
		"broken":    "{\"a\":\n",
		"undetectd": `{"hello":"world"}` + "\n",
		"basis":     basisStream,
	}
	for name, in := range inputs {
		for _, opts := range []stream.Options{{}, {Dialect: mustDialect(t, "basis")}, {Workers: 2}} {
			done := make(chan struct{})
			go func() {
				defer close(done)
				if _, _, err := readAll(t, []byte(in), opts); errors.Is(err, errHangs) {
					t.Errorf("%s: %v", name, err)
				}
			}()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatalf("%s: the reading does not end", name)
			}
		}
		rd := stream.NewReader(strings.NewReader(in), "x", stream.Options{})
		var err error
		for range 20 {
			if _, err = rd.ReadLine(); err != nil {
				break
			}
		}
		if err == nil {
			t.Fatalf("%s: ReadLine never ended", name)
		}
		if _, err2 := rd.ReadLine(); err2 != err && !(err == io.EOF && err2 == io.EOF) {
			t.Errorf("%s: after the end %v, then %v", name, err, err2)
		}
	}
}

func mustDialect(t testing.TB, name string) dialect.Dialect {
	d, err := dialect.Lookup(name)
	if err != nil {
		t.Fatalf("no dialect %s", name)
	}
	return d
}

func gz(t testing.TB, s string) []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write([]byte(s))
	w.Close()
	return b.Bytes()
}

func zst(t testing.TB, s string) []byte {
	w, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	return w.EncodeAll([]byte(s), nil)
}

// inputErr returns the *InputError that ended a reading, or nil.
func inputErr(err error) *stream.InputError {
	var se *stream.StreamError
	var ie *stream.InputError
	if errors.As(err, &se) && se.Rule == stream.RuleInput && !se.Usage && errors.As(err, &ie) {
		return ie
	}
	return nil
}

// TestCompressed: gzip and zstd inputs are read as what they hold, from a
// file or a pipe alike; a truncated or damaged one is one error, with its
// offset, after the lines that could be read.
func TestCompressed(t *testing.T) {
	plain, _, err := readAll(t, []byte(basisStream), stream.Options{})
	if err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat(basisStream, 2000) // several buffers' worth
	for name, in := range map[string][]byte{
		"gzip":        gz(t, basisStream),
		"zstd":        zst(t, basisStream),
		"gzip twice":  append(gz(t, head+"\n"), gz(t, strings.TrimPrefix(basisStream, head+"\n"))...),
		"crlf in zst": zst(t, strings.ReplaceAll(basisStream, "\n", "\r\n")),
	} {
		got, bad, err := readAll(t, in, stream.Options{})
		if err != nil || len(bad) > 0 || strings.Join(got, ",") != strings.Join(plain, ",") {
			t.Errorf("%s: %v, bad lines %v, %v; want %v", name, got, bad, err, plain)
		}
	}
	// Many lines, with workers: the same lines as the plain text.
	defer stream.SetParallelThreshold(1)()
	for name, in := range map[string][]byte{"gzip": gz(t, big), "zstd": zst(t, big)} {
		rd := stream.NewReader(bytes.NewReader(in), "x", stream.Options{Workers: 2, Dialect: mustDialect(t, "basis")})
		n := 0
		for {
			l, err := rd.ReadLine()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if !l.JSON {
				t.Fatalf("%s: line %d: %v", name, l.N, l.Diags)
			}
			n++
		}
		if n != 6000 || !rd.Parallel() {
			t.Errorf("%s: %d lines (parallel %v), want 6000", name, n, rd.Parallel())
		}
	}

	// Truncated and damaged.
	full := gz(t, big)
	cut := full[:len(full)/2]
	zfull := zst(t, big)
	zcut := zfull[:len(zfull)/2]
	damaged := bytes.Clone(full)
	for i := len(damaged) / 3; i < len(damaged)/3+64; i++ {
		damaged[i] ^= 0x55
	}
	// A zstd frame that asks for a 1 GiB window is refused, not obeyed.
	hugeWindow := []byte("\x28\xb5\x2f\xfd\x00\xa0\x01\x00\x00{}\n")
	for name, in := range map[string][]byte{"gzip cut": cut, "zstd cut": zcut, "gzip damaged": damaged, "gzip header only": full[:5], "zstd huge window": hugeWindow} {
		rd := stream.NewReader(bytes.NewReader(in), "x", stream.Options{})
		lines := 0
		var err error
		for {
			var l *stream.Line
			if l, err = rd.ReadLine(); err != nil {
				break
			}
			if !l.JSON {
				t.Errorf("%s: line %d is broken: %v (a line cut by the damage must not be read)", name, l.N, l.Diags)
			}
			lines++
		}
		ie := inputErr(err)
		if ie == nil || ie.Kind != stream.Corrupt || ie.Offset <= 0 || ie.Offset > int64(len(in)) {
			t.Errorf("%s: %v, want a Corrupt input error with its offset", name, err)
			continue
		}
		if !strings.Contains(err.Error(), "cannot be decompressed past compressed byte") ||
			name == "zstd huge window" && !strings.Contains(err.Error(), "it asks for a window of more than 128 MiB") {
			t.Errorf("%s: %v", name, err)
		}
		if name == "gzip cut" && lines == 0 {
			t.Errorf("%s: no line read before the damage", name)
		}
	}
}

// TestRefusedInputs: UTF-16, binary data and other compressions are one
// error before any line, whether the dialect is named or not.
func TestRefusedInputs(t *testing.T) {
	utf16le := func(s string) []byte {
		var b []byte
		for _, c := range []byte(s) {
			b = append(b, c, 0)
		}
		return b
	}
	elf, _ := os.ReadFile("/proc/self/exe")
	if len(elf) > 1<<20 {
		elf = elf[:1<<20]
	}
	random := make([]byte, 3<<20)
	x := uint32(2463534242)
	for i := range random {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		random[i] = byte(x)
	}
	tests := []struct {
		name string
		in   []byte
		kind stream.InputKind
		msg  string
	}{
		{"utf-16le bom message", append([]byte{0xff, 0xfe}, utf16le(basisStream)...), stream.UTF16, "looks like UTF-16 (it starts with a UTF-16LE byte order mark); evtool reads UTF-8: convert it first, e.g. with iconv -f UTF-16 -t UTF-8"},
		{"utf-16le bom", append([]byte{0xff, 0xfe}, utf16le(basisStream)...), stream.UTF16, "it starts with a UTF-16LE byte order mark"},
		{"utf-16le", utf16le(basisStream), stream.UTF16, "every other byte is NUL, as in UTF-16LE"},
		{"utf-16be", append([]byte{0}, utf16le(basisStream)...), stream.UTF16, "every other byte is NUL, as in UTF-16BE"},
		// UTF-32 was called UTF-16, and iconv -f UTF-16 suggested (hunt-hostile).
		{"utf-32le bom", append([]byte{0xff, 0xfe, 0, 0}, utf32le(basisStream)...), stream.UTF16, "looks like UTF-32 (it starts with a UTF-32LE byte order mark); evtool reads UTF-8: convert it first, e.g. with iconv -f UTF-32 -t UTF-8"},
		{"utf-32le", utf32le(basisStream), stream.UTF16, "looks like UTF-32 (three of every four bytes are NUL, as in UTF-32LE)"},
		{"utf-32be", append([]byte{0, 0, 0}, utf32le(basisStream)...), stream.UTF16, "looks like UTF-32 (three of every four bytes are NUL, as in UTF-32BE)"},
		{"random", random, stream.Binary, "are not text"},
		{"elf", elf, stream.Binary, "the input is binary"},
		{"nul first", []byte("\x00\x00\x00\x01abc\n" + basisStream), stream.Binary, "the input is binary"},
		{"bzip2", []byte("BZh91AY&SY\x00\x00"), stream.Compressed, "the input is bzip2 compressed"},
		{"xz", []byte("\xfd7zXZ\x00\x00\x04"), stream.Compressed, "xz compressed"},
		{"zip", []byte("PK\x03\x04\x14\x00"), stream.Compressed, "zip compressed"},
		{"gzip of gzip", gz(t, string(gz(t, basisStream))), stream.Binary, "gzip data compressed again"},
		{"gzip of binary", gz(t, string(random[:4096])), stream.Binary, "are not text"},
	}
	for _, tt := range tests {
		for _, d := range []dialect.Dialect{nil, mustDialect(t, "basis")} {
			rd := stream.NewReader(bytes.NewReader(tt.in), "in.jsonl", stream.Options{Dialect: d})
			l, err := rd.ReadLine()
			ie := inputErr(err)
			if l != nil || ie == nil || ie.Kind != tt.kind || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("%s: %v, %v; want kind %d saying %q", tt.name, l, err, tt.kind, tt.msg)
				continue
			}
			if want := "in.jsonl: error: "; !strings.HasPrefix(err.Error(), want) || !strings.HasSuffix(err.Error(), "[stream/input]") {
				t.Errorf("%s: %q", tt.name, err)
			}
			if _, err2 := rd.ReadLine(); err2 != err {
				t.Errorf("%s: the error is not sticky: %v", tt.name, err2)
			}
		}
	}
}

// TestTextIsRead: text that is not JSON, and a stream whose later or
// first JSON lines hold control characters, is read line by line as
// before: the check on the first bytes refuses binary data only.
func TestTextIsRead(t *testing.T) {
	for name, in := range map[string]string{
		"hello":         "hello\n",
		"html":          "<html>502</html>",
		"latin-1":       "caf\xe9 cr\xe8me\n" + basisStream,
		"ansi log":      "\x1b[32mINFO\x1b[0m starting\n" + basisStream,
		"nul on line 3": head + "\n" + `{"seq":1,"type":"user_message","text":"hi"}` + "\n\x00\x01garbage\xff\xfe\n" + `{"seq":2,"type":"run_finished","status":"ok"}` + "\n",
		"nul in json":   `{"seq":0,"type":"run_started","schema":2,"basis":"0.6.2","session_id":"s","workspace":"/r","model":"m","provider":"p","context_files":[],"x":"a` + "\x00" + `b"}` + "\n",
		"bom":           "\xef\xbb\xbf" + basisStream,
		"BZh text":      "BZh is a prefix of this line\n",
		"short":         "{}",
	} {
		_, _, err := readAll(t, []byte(in), stream.Options{})
		if err != nil && !errors.Is(err, stream.ErrUndetected) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestLineAsRead: a line carries what the reading stripped from it (its
// terminator, the byte order mark) and how deep it nests, on the simple
// path and the workers' alike.
func TestLineAsRead(t *testing.T) {
	in := "\xef\xbb\xbf" + head + "\r\n" + `{"seq":1,"type":"user_message","text":"hi"}` + "\n" + `[[[1]]]` + "\r\n" + `{"seq":2,"type":"run_finished","status":"ok"}`
	want := []string{"true \r\n 2", "false \n 1", "false \r\n 3", "false  1"}
	defer stream.SetParallelThreshold(1)()
	for _, workers := range []int{0, 2} {
		rd := stream.NewReader(strings.NewReader(in), "x", stream.Options{Workers: workers})
		var got []string
		for {
			l, err := rd.ReadLine()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, strings.Join([]string{boolStr(l.BOM), l.Term, itoa(l.Depth)}, " "))
		}
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("workers %d: %q, want %q", workers, got, want)
		}
	}
	if ndjson.CRLF != "\r\n" {
		t.Fatal("ndjson.CRLF")
	}
}

func boolStr(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestMismatchOfALineThatDecodesToNothing: a line of another dialect that
// decodes to no event of its own (opencode's step_start) still tells that
// the named dialect does not fit (issue 21: --from claude of an opencode
// stream converted nothing and exited 0).
func TestMismatchOfALineThatDecodesToNothing(t *testing.T) {
	in := `{"type":"step_start","timestamp":0,"sessionID":"ses_p1","part":{"id":"prt_p1","sessionID":"ses_p1","messageID":"msg_p1","type":"step-start"}}` + "\n"
	for _, name := range []string{"claude", "basis", "codex", "gemini"} {
		rd := stream.NewReader(strings.NewReader(in), "x", stream.Options{Dialect: mustDialect(t, name)})
		_, err := rd.ReadLine()
		var se *stream.StreamError
		if !errors.As(err, &se) || !errors.Is(err, stream.ErrMismatch) || !strings.Contains(err.Error(), "this line is opencode") {
			t.Errorf("%s: %v, want a mismatch naming opencode", name, err)
		}
	}
	rd := stream.NewReader(strings.NewReader(in), "x", stream.Options{Dialect: mustDialect(t, "opencode")})
	if _, err := rd.ReadLine(); err != nil {
		t.Errorf("opencode: %v", err)
	}
}

// utf32le encodes ASCII text as UTF-32LE.
func utf32le(s string) []byte {
	out := make([]byte, 0, 4*len(s))
	for i := 0; i < len(s); i++ {
		out = append(out, s[i], 0, 0, 0)
	}
	return out
}
