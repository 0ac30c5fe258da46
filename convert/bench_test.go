package convert_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/evtool/evtool/convert"
	"github.com/evtool/evtool/internal/testkit/streamgen"
	"github.com/evtool/evtool/validate"
)

// benchStream builds a basis stream of about size bytes: the body of the
// richest bundled stream repeated with fresh seqs and call ids.
func benchStream(b *testing.B, size int) []byte {
	b.Helper()
	data, err := os.ReadFile("../testdata/streams/basis/full_schema2.jsonl")
	if err != nil {
		b.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	head, body, tail := lines[0], lines[1:len(lines)-1], lines[len(lines)-1]
	var out bytes.Buffer
	out.WriteString(head + "\n")
	seq := 1
	for round := 0; out.Len() < size; round++ {
		for _, l := range body {
			rest := l[strings.Index(l, `,"type"`):]
			rest = strings.ReplaceAll(rest, `"call_0`, fmt.Sprintf(`"r%d_call_0`, round))
			rest = strings.ReplaceAll(rest, `"perm_0`, fmt.Sprintf(`"r%d_perm_0`, round))
			fmt.Fprintf(&out, `{"seq":%d%s`+"\n", seq, rest)
			seq++
		}
	}
	fmt.Fprintf(&out, `{"seq":%d%s`+"\n", seq, tail[strings.Index(tail, `,"type"`):])
	return out.Bytes()
}

func benchConvert(b *testing.B, in []byte, from, to string) {
	opts := convert.Options{From: lookupB(b, from), To: lookupB(b, to)}
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := convert.Run(bytes.NewReader(in), io.Discard, "bench", opts, func(le *convert.LineError) { b.Fatal(le) })
		if err != nil || res.Errors != 0 {
			b.Fatal(err)
		}
	}
}

func BenchmarkBasisToCanonical(b *testing.B) {
	benchConvert(b, benchStream(b, 8<<20), "basis", "canonical")
}

func BenchmarkBasisToBasis(b *testing.B) {
	benchConvert(b, benchStream(b, 8<<20), "basis", "basis")
}

func BenchmarkCanonicalToBasis(b *testing.B) {
	in := benchStream(b, 8<<20)
	var canon bytes.Buffer
	if _, err := convert.Run(bytes.NewReader(in), &canon, "bench", convert.Options{To: lookupB(b, "canonical")}, func(*convert.LineError) {}); err != nil {
		b.Fatal(err)
	}
	benchConvert(b, canon.Bytes(), "canonical", "basis")
}

func BenchmarkValidateBasis(b *testing.B) {
	in := benchStream(b, 8<<20)
	opts := validate.Options{Dialect: lookupB(b, "basis")}
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sum, err := validate.Stream(bytes.NewReader(in), "bench", opts, func(d validate.Diagnostic) { b.Fatal(d) })
		if err != nil || sum.Errors != 0 {
			b.Fatal(err)
		}
	}
}

// BenchmarkLongLine converts a stream whose one assistant_delta is 32 MiB.
func BenchmarkLongLine(b *testing.B) {
	var in bytes.Buffer
	in.WriteString(`{"seq":0,"type":"run_started","schema":2,"basis":"0.6.2","session_id":"s","workspace":"/r","model":"m","provider":"p","context_files":[]}` + "\n")
	in.WriteString(`{"seq":1,"type":"assistant_delta","text":"`)
	in.WriteString(strings.Repeat("lorem ipsum ", (32<<20)/12))
	in.WriteString(`"}` + "\n" + `{"seq":2,"type":"run_finished","status":"ok"}` + "\n")
	benchConvert(b, in.Bytes(), "basis", "canonical")
}

func BenchmarkBasisToACP(b *testing.B) {
	benchConvert(b, benchStream(b, 8<<20), "basis", "acp")
}

func BenchmarkMuseToCanonical(b *testing.B) {
	data, err := os.ReadFile("../../shared/corpus/muse/meta_subagents.jsonl")
	if err != nil {
		b.Fatal(err)
	}
	benchConvert(b, bytes.Repeat(data, 8), "muse", "canonical")
}

// genStream is a stream of the generator (internal/testkit/streamgen): realistic turns,
// tool lifecycles, unicode, u64 counts and files of tens of KB.
func genStream(b *testing.B, dialect string, size int64) []byte {
	b.Helper()
	in, err := streamgen.Bytes(dialect, streamgen.Options{Seed: 1, Bytes: size})
	if err != nil {
		b.Fatal(err)
	}
	return in
}

func BenchmarkGenBasisToCanonical(b *testing.B) {
	benchConvert(b, genStream(b, "basis", 8<<20), "basis", "canonical")
}

func BenchmarkGenBasisToACP(b *testing.B) {
	benchConvert(b, genStream(b, "basis", 8<<20), "basis", "acp")
}
