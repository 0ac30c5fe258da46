package event_test

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	_ "github.com/evtool/evtool/adapters"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/testkit/jsoneq"
	"github.com/evtool/evtool/internal/testkit/streamgen"
	"github.com/evtool/evtool/internal/testkit/teststreams"
	"github.com/evtool/evtool/stream"
)

// TestAppendMatchesEncodingJSON writes every event of every test stream of
// every dialect, and of generated streams, with the generated writer and
// with encoding/json: the lines must be the same JSON, and the same bytes
// unless a string holds U+2028 or U+2029 (which encoding/json escapes and
// evtool's writer need not).
func TestAppendMatchesEncodingJSON(t *testing.T) {
	var inputs [][]byte
	for _, d := range dialect.All() {
		for _, f := range teststreams.Valid(d.Name()) {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			inputs = append(inputs, b)
		}
		if b, err := streamgen.Bytes(d.Name(), streamgen.Options{Seed: 3, Bytes: 1 << 20}); err == nil {
			inputs = append(inputs, b)
		}
	}
	n := 0
	for _, in := range inputs {
		rd := stream.NewReader(bytes.NewReader(in), "in", stream.Options{Provenance: true})
		for {
			ev, err := rd.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				if _, ok := err.(*stream.LineError); ok {
					continue
				}
				t.Fatal(err)
			}
			n++
			got, err := event.Append(nil, ev)
			if err != nil {
				t.Fatal(err)
			}
			want, err := event.AppendReflect(nil, ev)
			if err != nil {
				t.Fatal(err)
			}
			// Read back: the generated reader gives the event that was
			// written, and the body encoding/json gives.
			back, err := event.Parse(got)
			if err != nil {
				t.Fatalf("%s: %v", got, err)
			}
			if again, _ := event.Append(nil, back); !bytes.Equal(again, got) {
				t.Fatalf("read back differs:\n got  %s\n want %s", again, got)
			}
			if body, err := event.ParseBodyReflect(got, ev.Type()); err != nil || !reflect.DeepEqual(body, back.Body) {
				t.Fatalf("%s: encoding/json reads %+v (%v), the generated reader %+v", got, body, err, back.Body)
			}
			if bytes.Equal(got, want) {
				continue
			}
			if !jsoneq.Equal(string(got), string(want)) || !bytes.ContainsAny(got, "\u2028\u2029") {
				t.Fatalf("%s:\n got  %s\n want %s", ev.Type(), got, want)
			}
		}
	}
	if n < 1000 {
		t.Fatalf("only %d events compared", n)
	}
}

// TestAppendGenUpToDate regenerates codec_gen.go from the model's source
// and requires the checked-in file to be the same: run go generate
// ./event after changing a type.
func TestAppendGenUpToDate(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the generator")
	}
	dir := t.TempDir()
	files, _ := filepath.Glob("*.go")
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") || strings.HasSuffix(f, "_gen.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("go", "run", "./internal/gencodec", dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gencodec: %v\n%s", err, out)
	}
	want, _ := os.ReadFile(filepath.Join(dir, "codec_gen.go"))
	got, _ := os.ReadFile("codec_gen.go")
	if !bytes.Equal(got, want) {
		t.Fatal("codec_gen.go is stale: run go generate ./event")
	}
}
