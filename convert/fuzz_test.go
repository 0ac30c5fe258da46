package convert_test

import (
	"errors"

	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/evtool/evtool/stream"

	"github.com/evtool/evtool/convert"
	"github.com/evtool/evtool/dialect"
)

// FuzzConvert converts arbitrary bytes from every dialect (and with
// detection) into every dialect. Bad input may only be reported line by
// line: the conversion must not panic, hang or fail as a whole.
func FuzzConvert(f *testing.F) {
	files, _ := filepath.Glob("../testdata/streams/*/*.jsonl")
	muse, _ := filepath.Glob("../../shared/corpus/muse/echo_basic*.jsonl")
	for _, file := range append(files, muse...) {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		if len(data) > 4096 {
			data = data[:4096]
		}
		f.Add(data, uint8(len(data)))
	}
	all, targets := dialect.All(), dialect.Targets()
	f.Fuzz(func(t *testing.T, data []byte, pick uint8) {
		var from dialect.Dialect
		if i := int(pick>>4) % (len(all) + 1); i < len(all) {
			from = all[i]
		}
		to := targets[int(pick&0x0f)%len(targets)]
		_, err := convert.Run(bytes.NewReader(data), io.Discard, "f", convert.Options{From: from, To: to}, func(*convert.LineError) {})
		var u16 *convert.UTF16Error
		// Errors about the input as a whole are fine for arbitrary bytes;
		// anything else (a panic, a write error) is not.
		if err != nil && from != nil && !errors.Is(err, stream.ErrMismatch) && !errors.Is(err, convert.ErrEmpty) && !errors.As(err, &u16) {
			t.Fatalf("%s → %s: %v", from.Name(), to.Name(), err)
		}
	})
}
