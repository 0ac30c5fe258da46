package streamgen_test

import (
	"bytes"
	"crypto/sha256"
	"testing"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/internal/testkit/streamgen"
	"github.com/evtool/evtool/validate"
)

// TestValid checks that every dialect's generated stream passes validate
// with no errors, and that the same seed gives the same bytes.
func TestValid(t *testing.T) {
	for _, name := range streamgen.Dialects() {
		t.Run(name, func(t *testing.T) {
			d, err := dialect.Lookup(name)
			if err != nil {
				t.Fatal(err)
			}
			var a bytes.Buffer
			if err := streamgen.Write(&a, name, streamgen.Options{Seed: 7, Bytes: 2 << 20}); err != nil {
				t.Fatal(err)
			}
			if a.Len() < 2<<20 {
				t.Errorf("wrote %d bytes, want at least %d", a.Len(), 2<<20)
			}
			var shown int
			sum, err := validate.Stream(bytes.NewReader(a.Bytes()), name, validate.Options{Dialect: d}, func(dg validate.Diagnostic) {
				if dg.Severity == dialect.Error && shown < 10 {
					shown++
					t.Error(dg)
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			if sum.Errors != 0 {
				t.Errorf("%d errors, %d warnings in %d lines", sum.Errors, sum.Warnings, sum.Lines)
			}
			t.Logf("%s: %d bytes, %d lines, %d warnings", name, a.Len(), sum.Lines, sum.Warnings)

			var b bytes.Buffer
			if err := streamgen.Write(&b, name, streamgen.Options{Seed: 7, Bytes: 2 << 20}); err != nil {
				t.Fatal(err)
			}
			if sha256.Sum256(a.Bytes()) != sha256.Sum256(b.Bytes()) {
				t.Error("the same seed gave different bytes")
			}
			var c bytes.Buffer
			if err := streamgen.Write(&c, name, streamgen.Options{Seed: 8, Bytes: 64 << 10}); err != nil {
				t.Fatal(err)
			}
			if bytes.HasPrefix(a.Bytes(), c.Bytes()) {
				t.Error("another seed gave the same bytes")
			}
		})
	}
}

// TestCalls checks that Calls alone bounds a stream.
func TestCalls(t *testing.T) {
	var a bytes.Buffer
	if err := streamgen.Write(&a, "basis", streamgen.Options{Seed: 1, Calls: 10}); err != nil {
		t.Fatal(err)
	}
	n := bytes.Count(a.Bytes(), []byte(`"type":"tool_queued"`))
	if n < 10 || n > 20 {
		t.Errorf("%d tool calls, want 10 and at most a turn's more", n)
	}
}
