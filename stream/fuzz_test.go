package stream_test

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/stream"
)

// FuzzReader asserts that reading any bytes ends, and within a number of
// calls proportional to what was read (the input, or what a compressed
// input held): no input makes the Reader spin, panic or stop making
// progress (issue 21). The seed corpus is in testdata/fuzz/FuzzReader.
func FuzzReader(f *testing.F) {
	f.Add([]byte("hello\n"))
	f.Add([]byte(basisStream))
	claude, err := dialect.Lookup("claude")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, opts := range []stream.Options{{}, {Dialect: claude}} {
			rd := stream.NewReader(bytes.NewReader(data), "fuzz.jsonl", opts)
			for calls := 0; ; calls++ {
				if bound := 64 + 4*max(int64(len(data)), rd.ReadBytes()); int64(calls) > bound {
					t.Fatalf("%d calls of Next after %d bytes read of %d: no end", calls, rd.ReadBytes(), len(data))
				}
				_, err := rd.Next()
				if err == io.EOF {
					break
				}
				var le *stream.LineError
				if errors.As(err, &le) {
					if len(le.Diags) == 0 {
						t.Fatal("a LineError without a diagnostic")
					}
					continue
				}
				if err != nil {
					// An error that ends the stream is sticky.
					if _, err2 := rd.Next(); err2 == nil || err2 == io.EOF {
						t.Fatalf("after %v, Next went on: %v", err, err2)
					}
					break
				}
			}
			rd.Close()
		}
	})
}
