package jsonobj_test

import (
	"bytes"
	"testing"

	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/evtool/evtool/internal/testkit/streamgen"
	"github.com/tidwall/gjson"
)

// benchLines is 8 MiB of a generated basis stream, split into lines.
func benchLines(b *testing.B) [][]byte {
	data, err := streamgen.Bytes("basis", streamgen.Options{Seed: 1, Bytes: 8 << 20})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	return bytes.Split(data, []byte("\n"))
}

// BenchmarkGjsonForEach is the baseline ForEach replaces.
func BenchmarkGjsonForEach(b *testing.B) {
	lines := benchLines(b)
	for b.Loop() {
		for _, l := range lines {
			gjson.ParseBytes(l).ForEach(func(k, v gjson.Result) bool { return true })
		}
	}
}

func BenchmarkForEachRaw(b *testing.B) {
	lines := benchLines(b)
	for b.Loop() {
		for _, l := range lines {
			jsonobj.ForEachRaw(jsonobj.View(l), func(k, v gjson.Result) bool { return true })
		}
	}
}

func BenchmarkForEach(b *testing.B) {
	lines := benchLines(b)
	for b.Loop() {
		for _, l := range lines {
			jsonobj.ForEach(jsonobj.View(l), func(k, v gjson.Result) bool { return true })
		}
	}
}
