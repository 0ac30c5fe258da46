package validate_test

import (
	"bytes"
	"errors"
	"os"
	"testing"

	"github.com/evtool/evtool/validate"
)

// FuzzStream feeds arbitrary bytes to the validator: it must never panic,
// and it must say something about every stream it could read.
func FuzzStream(f *testing.F) {
	for _, name := range []string{"full_schema2.jsonl", "forward_compat.jsonl", "escapes_and_numbers.jsonl"} {
		data, err := os.ReadFile("../testdata/streams/basis/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("\xEF\xBB\xBF{\"seq\":0,\"type\":\"run_started\"}\r\n\n{\"seq\":\"x\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		n := 0
		_, err := validate.Stream(bytes.NewReader(data), "f", validate.Options{}, func(validate.Diagnostic) { n++ })
		if err != nil && !errors.Is(err, validate.ErrUndetected) && bytes.TrimSpace(data) != nil && len(bytes.TrimSpace(data)) > 0 {
			if !bytes.Contains([]byte(err.Error()), []byte("empty")) {
				t.Fatalf("unexpected error: %v", err)
			}
		}
	})
}
