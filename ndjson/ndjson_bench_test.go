package ndjson_test

import (
	"bytes"
	"io"
	"testing"

	"github.com/evtool/evtool/internal/testkit/streamgen"
	"github.com/evtool/evtool/ndjson"
)

// benchInput is a generated basis stream of about 8 MiB (see internal/testkit/streamgen).
func benchInput(b *testing.B) []byte {
	b.Helper()
	in, err := streamgen.Bytes("basis", streamgen.Options{Seed: 1, Bytes: 8 << 20})
	if err != nil {
		b.Fatal(err)
	}
	return in
}

// BenchmarkReader frames lines: the floor under every command.
func BenchmarkReader(b *testing.B) {
	in := benchInput(b)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rd := ndjson.NewReader(bytes.NewReader(in))
		for {
			_, _, err := rd.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkCheck is the strict syntax check (UTF-8, duplicate keys, depth,
// surrogates) of every line, after framing.
func BenchmarkCheck(b *testing.B) {
	in := benchInput(b)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rd := ndjson.NewReader(bytes.NewReader(in))
		for {
			line, _, err := rd.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			if se := ndjson.Check(line); se != nil {
				b.Fatal(se)
			}
		}
	}
}
