package stream_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evtool/evtool/convert"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/internal/jsonkeys"
	"github.com/evtool/evtool/internal/schemacheck"
	"github.com/evtool/evtool/internal/testkit/teststreams"
	"github.com/evtool/evtool/ndjson"
	"github.com/evtool/evtool/stream"
	"github.com/tidwall/gjson"
)

// replacements are what mutate puts in place of each value of a line.
var replacements = []string{`null`, `true`, `0`, `-1`, `1.5`, `1e0`, `-0`, `""`, `"x"`, `[]`, `{}`, `[1]`, `{"kind":7}`,
	`4294967296`, `18446744073709551615`, `18446744073709551616`, `"\u00e9"`}

// mutate returns variants of a line with one value replaced or one object
// member dropped, at every depth, at most limit of them.
func mutate(line []byte, limit int) [][]byte {
	var out [][]byte
	var walk func(v gjson.Result)
	walk = func(v gjson.Result) {
		if len(out) >= limit {
			return
		}
		if v.IsObject() || v.IsArray() {
			v.ForEach(func(k, e gjson.Result) bool {
				for _, r := range replacements {
					out = append(out, splice(line, e.Index, len(e.Raw), r))
				}
				if v.IsObject() {
					// Drop the member: its key and value, and one comma.
					start, end := k.Index, e.Index+len(e.Raw)
					if j := bytes.IndexByte(line[end:], ','); j >= 0 && strings.TrimSpace(string(line[end:end+j])) == "" {
						end += j + 1
					} else if i := bytes.LastIndexByte(line[:start], ','); i >= 0 && strings.TrimSpace(string(line[i+1:start])) == "" {
						start = i
					}
					out = append(out, splice(line, start, end-start, ""))
				}
				walk(e)
				return len(out) < limit
			})
		}
	}
	walk(gjson.ParseBytes(line))
	return out
}

func splice(line []byte, at, n int, with string) []byte {
	out := make([]byte, 0, len(line)+len(with))
	out = append(out, line[:at]...)
	out = append(out, with...)
	return append(out, line[at+n:]...)
}

// TestFastAgreesWithEngine is the differential test of the fast schema
// check: on every line of every test stream of every dialect (valid,
// invalid and ambiguous probes included), with its keys reordered, and
// with every value replaced in turn by values of other types and ranges,
// a Valid or Invalid from the fast check is the engine's verdict too. It
// also requires the fast check to decide nearly every well-formed line,
// or it would not be fast.
func TestFastAgreesWithEngine(t *testing.T) {
	for _, d := range dialect.All() {
		if _, _, ok := stream.FastAndEngine(d, []byte("{}")); !ok {
			t.Fatalf("%s: the fast check does not compile the schema", d.Name())
		}
		var lines, decided, validLines, validDecided int
		for _, src := range sources(t, d) {
			for _, line := range bytes.Split(src.data, []byte("\n")) {
				if len(bytes.TrimSpace(line)) == 0 || ndjson.Check(line) != nil {
					continue
				}
				cases := [][]byte{line}
				if ndjson.CheckDepth(line, 64) == nil {
					cases = append(cases, jsonkeys.Reorder(line, jsonkeys.Sorted), jsonkeys.Reorder(line, jsonkeys.Reversed))
					cases = append(cases, mutate(line, 30)...)
				}
				for i, c := range cases {
					if ndjson.Check(c) != nil {
						continue
					}
					lines++
					v, errs, _ := stream.FastAndEngine(d, c)
					if vm := stream.FastMembers(d, c); vm != v {
						t.Errorf("%s: %s: fast says %s, and %s given the line's members\n%s", d.Name(), src.name, v, vm, c)
					}
					if vw, vp := stream.FastIndexed(d, c); vw != v || vp != v {
						t.Errorf("%s: %s: fast says %s, and %s given the line's index, %s given part of it\n%s", d.Name(), src.name, v, vw, vp, c)
					}
					if v != schemacheck.Unsure {
						decided++
					}
					if src.valid && i == 0 {
						validLines++
						if v != schemacheck.Unsure {
							validDecided++
						}
					}
					if (v == schemacheck.Valid && len(errs) > 0) || (v == schemacheck.Invalid && len(errs) == 0) {
						t.Errorf("%s: %s: fast says %s, the engine says %d errors %v\n%s", d.Name(), src.name, v, len(errs), errs, c)
					}
				}
			}
		}
		t.Logf("%s: %d lines, %d decided by the fast check; %d of %d lines of valid streams", d.Name(), lines, decided, validDecided, validLines)
		if validLines == 0 || validDecided*100 < validLines*98 {
			t.Errorf("%s: the fast check decides only %d of %d lines of valid streams", d.Name(), validDecided, validLines)
		}
	}
}

type source struct {
	name  string
	data  []byte
	valid bool
}

// sources returns a dialect's test streams, its hand-made invalid and
// ambiguous probes, and, for a dialect with no streams of its own (acp,
// canonical), every other dialect's valid streams converted into it.
func sources(t *testing.T, d dialect.Dialect) []source {
	t.Helper()
	read := func(f string) []byte {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	var out []source
	for _, f := range teststreams.Valid(d.Name()) {
		out = append(out, source{filepath.Base(f), read(f), true})
	}
	amb, _ := filepath.Glob(filepath.Join(teststreams.Root(), "testdata", "probe", d.Name(), "ambiguous", "*.jsonl"))
	for _, f := range append(teststreams.Invalid(d.Name()), amb...) {
		out = append(out, source{filepath.Base(f), read(f), false})
	}
	if len(out) > 0 {
		return out
	}
	for _, from := range dialect.All() {
		for _, f := range teststreams.Valid(from.Name()) {
			var b bytes.Buffer
			if _, err := convert.Run(bytes.NewReader(read(f)), &b, f, convert.Options{From: from, To: d}, func(*convert.LineError) {}); err != nil {
				continue
			}
			out = append(out, source{from.Name() + "/" + filepath.Base(f) + "→" + d.Name(), b.Bytes(), true})
		}
	}
	return out
}

// FuzzFastAgreesWithEngine holds the fast check to the engine on
// arbitrary lines, seeded with the test streams' lines.
func FuzzFastAgreesWithEngine(f *testing.F) {
	all := dialect.All()
	for i, d := range all {
		for _, file := range teststreams.Valid(d.Name()) {
			data, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			for _, line := range bytes.Split(data, []byte("\n")) {
				if len(line) > 0 && len(line) < 2048 {
					f.Add(line, uint8(i))
				}
			}
		}
	}
	f.Fuzz(func(t *testing.T, line []byte, pick uint8) {
		if ndjson.Check(line) != nil {
			return
		}
		d := all[int(pick)%len(all)]
		v, errs, ok := stream.FastAndEngine(d, line)
		if !ok {
			return
		}
		if vm := stream.FastMembers(d, line); vm != v {
			t.Fatalf("%s: fast says %s, and %s given the line's members\n%s", d.Name(), v, vm, line)
		}
		if vw, vp := stream.FastIndexed(d, line); vw != v || vp != v {
			t.Fatalf("%s: fast says %s, and %s given the line's index, %s given part of it\n%s", d.Name(), v, vw, vp, line)
		}
		if (v == schemacheck.Valid && len(errs) > 0) || (v == schemacheck.Invalid && len(errs) == 0) {
			t.Fatalf("%s: fast says %s, the engine says %v\n%s", d.Name(), v, errs, line)
		}
	})
}
