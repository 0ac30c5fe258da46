package adapters_test

import (
	"bufio"
	"bytes"
	"io"
	"testing"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/testkit/streamgen"
	"github.com/evtool/evtool/stream"
)

// BenchmarkEncode writes the events of a generated canonical stream (about
// 4 MiB, see internal/testkit/streamgen) with each dialect's encoder. The bytes per
// second are the encoder's output bytes, which differ from dialect to
// dialect (basis and mermaid have no place for tool output, for one), so
// events/s is the figure to compare across dialects.
func BenchmarkEncode(b *testing.B) {
	in, err := streamgen.Bytes("canonical", streamgen.Options{Seed: 1, Bytes: 4 << 20})
	if err != nil {
		b.Fatal(err)
	}
	canon, err := dialect.Lookup("canonical")
	if err != nil {
		b.Fatal(err)
	}
	var evs []*event.Event
	rd := stream.NewReader(bytes.NewReader(in), "bench", stream.Options{Dialect: canon})
	for {
		ev, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			b.Fatal(err)
		}
		evs = append(evs, ev)
	}
	encode := func(d dialect.Dialect, w io.Writer) {
		bw := bufio.NewWriterSize(w, 64<<10)
		enc := d.NewEncoder(bw, dialect.EncodeOptions{Losses: &dialect.Losses{}})
		for _, ev := range evs {
			if err := enc.Encode(ev); err != nil {
				b.Fatal(err)
			}
		}
		if err := enc.Close(); err != nil {
			b.Fatal(err)
		}
		if err := bw.Flush(); err != nil {
			b.Fatal(err)
		}
	}
	for _, name := range streamgen.Dialects() {
		b.Run(name, func(b *testing.B) {
			d, err := dialect.Lookup(name)
			if err != nil {
				b.Fatal(err)
			}
			var cw countWriter
			encode(d, &cw)
			b.SetBytes(cw.n)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				encode(d, io.Discard)
			}
			b.ReportMetric(float64(len(evs))*float64(b.N)/b.Elapsed().Seconds(), "events/s")
		})
	}
}

type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }
