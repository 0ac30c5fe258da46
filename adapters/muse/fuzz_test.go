package muse_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evtool/evtool/adapters/canonical"
	"github.com/evtool/evtool/adapters/muse"
	"github.com/evtool/evtool/convert"
)

// FuzzRoundTrip feeds arbitrary records to the muse decoder, after the
// first record of a capture: it must never panic, and whatever it reads
// must come back byte for byte through canonical text.
func FuzzRoundTrip(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(corpus, "*.jsonl"))
	var first string
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		first = lines[0]
		for _, l := range lines {
			f.Add(l)
		}
	}
	f.Fuzz(func(t *testing.T, line string) {
		if strings.ContainsAny(line, "\r\n") || strings.TrimSpace(line) == "" || strings.HasPrefix(line, "\uFEFF") {
			return // one record per line
		}
		in := []byte(first + "\n" + line + "\n")
		var canon bytes.Buffer
		bad := 0
		_, err := convert.Run(bytes.NewReader(in), &canon, "f", convert.Options{From: muse.Dialect{}, To: canonical.Dialect{}},
			func(*convert.LineError) { bad++ })
		if err != nil || bad > 0 {
			return // lines that are not JSON are reported, not round-tripped
		}
		var back bytes.Buffer
		if _, err := convert.Run(bytes.NewReader(canon.Bytes()), &back, "c", convert.Options{From: canonical.Dialect{}, To: muse.Dialect{}},
			func(le *convert.LineError) { t.Fatalf("canonical text does not read back: %v", le) }); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(back.Bytes(), in) {
			t.Fatalf("not byte-identical:\n in: %q\nout: %q", in, back.Bytes())
		}
	})
}
