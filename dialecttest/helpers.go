package dialecttest

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/testkit/schematest"
)

// The helpers below are the steps Run's checks are made of, for a
// dialect's own tests of what is its own: they fail the test on any
// error they meet.

// ReadLines returns the lines of a file, without their newlines.
func ReadLines(t testing.TB, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return lines(data)
}

// Lines splits text into its lines, without their newlines.
func Lines(text string) []string { return lines([]byte(text)) }

// Decode reads lines of d, numbered from 1, and returns their events.
func Decode(t testing.TB, d dialect.Dialect, in ...string) []*event.Event {
	t.Helper()
	out, _ := decode(t, d, in)
	return out
}

// DecodeStream reads lines of d as a whole stream: their events, and those
// the end of the stream implies.
func DecodeStream(t testing.TB, d dialect.Dialect, in ...string) []*event.Event {
	t.Helper()
	out, dec := decode(t, d, in)
	return dec.End(out)
}

func decode(t testing.TB, d dialect.Dialect, in []string) ([]*event.Event, dialect.Decoder) {
	t.Helper()
	dec := d.NewDecoder(dialect.DecodeOptions{})
	var out []*event.Event
	for i, l := range in {
		var err error
		if out, err = dec.Decode(out, []byte(l), i+1); err != nil {
			t.Fatalf("%s line %d: %v\n%s", d.Name(), i+1, err, l)
		}
	}
	return out, dec
}

// Canonical writes events as canonical lines, numbered from 0, as a file
// between two conversions would hold them.
func Canonical(t testing.TB, evs []*event.Event) []string {
	t.Helper()
	var out []string
	for i, ev := range evs {
		ev.Seq = uint64(i)
		b, err := event.Append(nil, ev)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	return out
}

// Encode parses canonical lines and writes them as d with opts (Losses is
// filled in when nil), closing the stream. It returns what d wrote and
// what it counted as lost.
func Encode(t testing.TB, d dialect.Dialect, opts dialect.EncodeOptions, canon ...string) (string, *dialect.Losses) {
	t.Helper()
	if opts.Losses == nil {
		opts.Losses = &dialect.Losses{}
	}
	var buf bytes.Buffer
	w := flushTo(&buf)
	enc := d.NewEncoder(w, opts)
	for i, l := range canon {
		ev, err := event.Parse([]byte(l))
		if err != nil {
			t.Fatalf("canonical line %d: %v\n%s", i+1, err, l)
		}
		if err := enc.Encode(ev); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return buf.String(), opts.Losses
}

// RoundTrip reads lines of d, writes them as canonical text, reads that
// back and writes it as d again: the canonical stream goes through bytes,
// as through a file. It returns the canonical lines, the lines written
// back, and what the way back counted as lost.
func RoundTrip(t testing.TB, d dialect.Dialect, in ...string) (canon, back []string, losses *dialect.Losses) {
	t.Helper()
	canon = Canonical(t, DecodeStream(t, d, in...))
	out, losses := Encode(t, d, dialect.EncodeOptions{}, canon...)
	return canon, Lines(out), losses
}

// LossText renders losses one a line, as evtool prints them.
func LossText(ls *dialect.Losses) string {
	var b strings.Builder
	for _, l := range ls.List() {
		b.WriteString(l.String() + "\n")
	}
	return b.String()
}

// Accepted requires a whole stream of d to pass as evtool validate would
// have it, and more strictly: every line against d's schema (with a full
// JSON Schema engine) and its decoder, and the stream against its checker,
// with no error.
func Accepted(t testing.TB, d dialect.Dialect, stream string) {
	t.Helper()
	s := schematest.Compile(t, d)
	dec := d.NewDecoder(dialect.DecodeOptions{})
	chk := d.NewChecker(dialect.CheckOptions{})
	ls := Lines(stream)
	for i, l := range ls {
		if err := schematest.Check(s, l); err != nil {
			t.Errorf("%s line %d: schema: %v\n%s", d.Name(), i+1, err, l)
		}
		if _, err := dec.Decode(nil, []byte(l), i+1); err != nil {
			t.Errorf("%s line %d: decoder: %v\n%s", d.Name(), i+1, err, l)
		}
		chk.Line([]byte(l), i+1, func(f dialect.Finding) {
			if f.Severity == dialect.Error {
				t.Errorf("%s line %d: %s %s: %s", d.Name(), i+1, f.Rule, f.Pointer, f.Message)
			}
		})
	}
	chk.End(len(ls), func(f dialect.Finding) {
		if f.Severity == dialect.Error {
			t.Errorf("%s end: %s: %s", d.Name(), f.Rule, f.Message)
		}
	})
}

// FirstLine returns the first line of a stream that is JSON, without
// surrounding white space: the line a dialect is detected by (a banner
// before it is not the producer's).
func FirstLine(data []byte) []byte {
	for _, l := range bytes.Split(data, []byte("\n")) {
		if l = bytes.TrimSpace(l); json.Valid(l) {
			return l
		}
	}
	return nil
}
