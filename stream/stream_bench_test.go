package stream_test

import (
	"bytes"
	"io"
	"strconv"
	"testing"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/internal/testkit/streamgen"
	"github.com/evtool/evtool/stream"
)

// BenchmarkRead reads a generated stream of each dialect (about 4 MiB, see
// internal/testkit/streamgen) into canonical events: framing, syntax check, schema check
// and decoding, what convert does before it writes anything.
func BenchmarkRead(b *testing.B) {
	for _, name := range streamgen.Dialects() {
		b.Run(name, func(b *testing.B) {
			d, err := dialect.Lookup(name)
			if err != nil {
				b.Fatal(err)
			}
			in, err := streamgen.Bytes(name, streamgen.Options{Seed: 1, Bytes: 4 << 20})
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				rd := stream.NewReader(bytes.NewReader(in), "bench", stream.Options{Dialect: d})
				for {
					_, err := rd.Next()
					if err == io.EOF {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// BenchmarkWorkers reads a generated basis stream of 16 MiB with the
// simple path and with workers: the figure for -j.
func BenchmarkWorkers(b *testing.B) {
	d, err := dialect.Lookup("basis")
	if err != nil {
		b.Fatal(err)
	}
	in, err := streamgen.Bytes("basis", streamgen.Options{Seed: 1, Bytes: 16 << 20})
	if err != nil {
		b.Fatal(err)
	}
	for _, w := range []int{1, 2, 4} {
		b.Run("j"+strconv.Itoa(w), func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				rd := stream.NewReader(bytes.NewReader(in), "bench", stream.Options{Dialect: d, Workers: w})
				for {
					_, err := rd.Next()
					if err == io.EOF {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
