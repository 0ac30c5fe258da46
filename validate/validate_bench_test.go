package validate_test

import (
	"bytes"
	"testing"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/internal/testkit/streamgen"
	"github.com/evtool/evtool/validate"
)

// BenchmarkStream validates a generated stream of each dialect (about
// 4 MiB, see internal/testkit/streamgen): syntax, schema, decoding and stream rules.
func BenchmarkStream(b *testing.B) {
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
			opts := validate.Options{Dialect: d}
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				sum, err := validate.Stream(bytes.NewReader(in), "bench", opts, func(dg validate.Diagnostic) {
					if dg.Severity == dialect.Error {
						b.Fatal(dg)
					}
				})
				if err != nil || sum.Errors != 0 {
					b.Fatal(err, sum.Errors)
				}
			}
		})
	}
}
