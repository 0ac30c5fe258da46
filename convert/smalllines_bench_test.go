package convert_test

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"sync"
	"testing"

	"github.com/evtool/evtool/convert"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/internal/testkit/streamgen"
	"github.com/evtool/evtool/validate"
)

// The small-lines shape: most lines of real streams are short (deltas of
// about 100 bytes, tool events of about 150), and what is left there is a
// cost per line, not per byte. smallBasis is a generated basis stream with
// every line of 300 bytes or more left out, with the tool calls and
// permission requests such a line belongs to (so that the stream stays
// valid), seq renumbered; the other dialects are it converted.

var (
	smallOnce sync.Once
	smallBuf  map[string][]byte
	smallErr  error
)

// smallDialects are the dialects the benchmarks read.
var smallDialects = []string{"basis", "muse", "mermaid", "claude", "codex", "gemini", "opencode", "acp", "canonical"}

func smallStreams(b *testing.B) map[string][]byte {
	b.Helper()
	smallOnce.Do(func() {
		big, err := streamgen.Bytes("basis", streamgen.Options{Seed: 1, Bytes: 6 << 20})
		if err != nil {
			smallErr = err
			return
		}
		basis, err := shortLines(big)
		if err != nil {
			smallErr = err
			return
		}
		smallBuf = map[string][]byte{"basis": basis}
		from, err := dialect.Lookup("basis")
		if err != nil {
			smallErr = err
			return
		}
		for _, name := range smallDialects[1:] {
			to, err := dialect.Lookup(name)
			if err != nil {
				smallErr = err
				return
			}
			var out bytes.Buffer
			if _, err := convert.Run(bytes.NewReader(basis), &out, "small", convert.Options{From: from, To: to, Workers: 1}, func(*convert.LineError) {}); err != nil {
				smallErr = err
				return
			}
			smallBuf[name] = out.Bytes()
		}
	})
	if smallErr != nil {
		b.Fatal(smallErr)
	}
	return smallBuf
}

// shortLines keeps the lines of a basis stream under 300 bytes, leaving
// out the calls and requests of longer ones, and renumbers seq.
func shortLines(in []byte) ([]byte, error) {
	lines := bytes.Split(bytes.TrimSpace(in), []byte("\n"))
	type key struct{ k, v string }
	ids := func(l []byte) ([]key, error) {
		var o map[string]any
		if err := json.Unmarshal(l, &o); err != nil {
			return nil, err
		}
		var ks []key
		for _, k := range []string{"tool_call_id", "request_id"} {
			if v, ok := o[k].(string); ok {
				ks = append(ks, key{k, v})
			}
		}
		return ks, nil
	}
	bad := map[key]bool{}
	for _, l := range lines {
		if len(l) >= 300 {
			ks, err := ids(l)
			if err != nil {
				return nil, err
			}
			for _, k := range ks {
				bad[k] = true
			}
		}
	}
	var out bytes.Buffer
	seq := 0
	for i, l := range lines {
		if i > 0 && i < len(lines)-1 {
			if len(l) >= 300 {
				continue
			}
			ks, err := ids(l)
			if err != nil {
				return nil, err
			}
			drop := false
			for _, k := range ks {
				drop = drop || bad[k]
			}
			if drop {
				continue
			}
		}
		comma := bytes.IndexByte(l, ',')
		out.WriteString(`{"seq":` + strconv.Itoa(seq))
		out.Write(l[comma:])
		out.WriteByte('\n')
		seq++
	}
	return out.Bytes(), nil
}

// BenchmarkSmallLines reads the small-lines shape of each dialect with one
// goroutine: validate, and convert to canonical and to ACP. ns/line is the
// figure to watch.
func BenchmarkSmallLines(b *testing.B) {
	streams := smallStreams(b)
	for _, name := range smallDialects {
		in := streams[name]
		n := bytes.Count(in, []byte("\n"))
		d := lookupB(b, name)
		perLine := func(b *testing.B) {
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/line")
		}
		b.Run("validate/"+name, func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := validate.Stream(bytes.NewReader(in), "bench", validate.Options{Dialect: d, Workers: 1}, func(validate.Diagnostic) {}); err != nil {
					b.Fatal(err)
				}
			}
			perLine(b)
		})
		for _, to := range []string{"canonical", "acp"} {
			if to == name {
				continue
			}
			t := lookupB(b, to)
			b.Run(to+"/"+name, func(b *testing.B) {
				b.SetBytes(int64(len(in)))
				b.ReportAllocs()
				for b.Loop() {
					if _, err := convert.Run(bytes.NewReader(in), io.Discard, "bench", convert.Options{From: d, To: t, Workers: 1}, func(*convert.LineError) {}); err != nil {
						b.Fatal(err)
					}
				}
				perLine(b)
			})
		}
	}
}
