package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/internal/jsonkeys"
	"github.com/evtool/evtool/internal/testkit/teststreams"
	"github.com/evtool/evtool/ndjson"
	"github.com/tidwall/gjson"
)

// TestOneVerdict is the differential test of the single reading: for
// every test stream of every dialect (bundled, hand-made from the
// producers' types, real captures), in its own key order, sorted and
// reversed, and with single lines mutated, validate and convert (to every
// target) report exactly the same line diagnostics, and the valid streams
// have none.
func TestOneVerdict(t *testing.T) {
	for _, d := range dialect.All() {
		valid, invalid := teststreams.Valid(d.Name()), teststreams.Invalid(d.Name())
		for _, f := range append(valid, invalid...) {
			in, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			name := d.Name() + "/" + filepath.Base(filepath.Dir(f)) + "/" + filepath.Base(f)
			isValid := slices.Contains(valid, f)
			t.Run(name, func(t *testing.T) {
				// An invalid stream is a mutation already: it is read as
				// written and reordered only.
				for _, v := range variants(in, isValid) {
					// Every target for the stream as written; canonical
					// for the variants, to keep the test fast.
					got := sameVerdict(t, d, v.data, v.name, v.name == "as written")
					if isValid && v.mutation == "" && len(got) > 0 {
						t.Errorf("%s: a valid stream has line diagnostics:\n%s", v.name, strings.Join(got, "\n"))
					}
				}
			})
		}
	}
}

// sameVerdict runs validate and convert (to canonical, and to every
// target when all is set) on one stream and requires the same line
// diagnostics from each. It returns them.
func sameVerdict(t *testing.T, d dialect.Dialect, in []byte, name string, all bool) []string {
	t.Helper()
	vout, _, _ := evtool(t, in, "validate", "-q", "--dialect", d.Name(), "-")
	want := lineDiags(vout)
	targets := []string{"canonical"}
	if all {
		targets = targets[:0]
		for _, to := range dialect.Targets() {
			targets = append(targets, to.Name())
		}
	}
	for _, to := range targets {
		_, cerr, _ := evtool(t, in, "convert", "--from", d.Name(), "--to", to, "-")
		if got := lineDiags(cerr); !slices.Equal(got, want) {
			t.Errorf("%s: validate and convert --to %s disagree.\nvalidate:\n%s\nconvert:\n%s", name, to,
				strings.Join(want, "\n"), strings.Join(got, "\n"))
		}
	}
	return want
}

type variant struct {
	name, mutation string
	data           []byte
}

// variants returns the stream as it is, with every object's keys sorted
// and reversed, and with one line mutated in each of the ways a reader
// must judge exactly (the second line and the middle one).
func variants(in []byte, mutate bool) []variant {
	lines := bytes.Split(bytes.TrimSuffix(in, []byte("\n")), []byte("\n"))
	out := []variant{{name: "as written", data: in}}
	for _, o := range []struct {
		name  string
		order jsonkeys.Order
	}{{"sorted", jsonkeys.Sorted}, {"reversed", jsonkeys.Reversed}} {
		var b []byte
		for _, l := range lines {
			// A broken or very deep line stays as it is: reordering
			// it would say nothing new, slowly.
			if ndjson.CheckDepth(l, 64) == nil {
				l = jsonkeys.Reorder(l, o.order)
			}
			b = append(append(b, l...), '\n')
		}
		out = append(out, variant{name: o.name, data: b})
	}
	if !mutate {
		return out
	}
	for n, i := range []int{min(1, len(lines)-1), len(lines) / 2} {
		for _, m := range mutations {
			if m.name == "deep value" && n > 0 {
				continue // once is enough for the slowest mutation
			}
			ml, ok := m.apply(lines[i])
			if !ok {
				continue
			}
			b := slices.Clone(in[:0])
			for j, l := range lines {
				if j == i {
					l = ml
				}
				b = append(append(b, l...), '\n')
			}
			out = append(out, variant{name: m.name + " at line " + strconv.Itoa(i+1), mutation: m.name, data: b})
		}
	}
	return out
}

type mutation struct {
	name  string
	apply func(line []byte) ([]byte, bool)
}

// mutations rewrite the first member of a kind in a line's top-level
// object.
var mutations = []mutation{
	{"duplicate first key", func(l []byte) ([]byte, bool) {
		k, v, ok := firstMember(l, func(gjson.Result) bool { return true })
		if !ok {
			return nil, false
		}
		return insertMember(l, k.Raw, v.Raw), true
	}},
	{"unknown key", func(l []byte) ([]byte, bool) {
		return insertMember(l, `"zz_evtool_probe"`, `{"x":[1,2]}`), gjson.ParseBytes(l).IsObject()
	}},
	{"integer as fraction", numberAs("1.0")},
	{"integer as exponent", numberAs("1e0")},
	{"negative zero", numberAs("-0")},
	{"u32 overflow", numberAs("4294967296")},
	{"u64 overflow", numberAs("18446744073709551616")},
	{"string as number", func(l []byte) ([]byte, bool) {
		_, v, ok := firstMember(l, func(v gjson.Result) bool { return v.Type == gjson.String })
		if !ok {
			return nil, false
		}
		return replaceRaw(l, v, "7"), true
	}},
	{"first key dropped", func(l []byte) ([]byte, bool) {
		r := gjson.ParseBytes(l)
		if !r.IsObject() {
			return nil, false
		}
		var keep []string
		r.ForEach(func(k, v gjson.Result) bool {
			keep = append(keep, k.Raw+":"+v.Raw)
			return true
		})
		if len(keep) < 2 {
			return nil, false
		}
		return []byte("{" + strings.Join(keep[1:], ",") + "}"), true
	}},
	{"deep value", func(l []byte) ([]byte, bool) {
		n := 10001
		return insertMember(l, `"deep"`, strings.Repeat("[", n)+strings.Repeat("]", n)), gjson.ParseBytes(l).IsObject()
	}},
}

func numberAs(text string) func([]byte) ([]byte, bool) {
	return func(l []byte) ([]byte, bool) {
		_, v, ok := firstMember(l, func(v gjson.Result) bool { return v.Type == gjson.Number })
		if !ok {
			return nil, false
		}
		return replaceRaw(l, v, text), true
	}
}

func firstMember(l []byte, want func(gjson.Result) bool) (k, v gjson.Result, ok bool) {
	r := gjson.ParseBytes(l)
	if !r.IsObject() {
		return k, v, false
	}
	r.ForEach(func(kk, vv gjson.Result) bool {
		if want(vv) {
			k, v, ok = kk, vv, true
			return false
		}
		return true
	})
	return k, v, ok
}

func replaceRaw(l []byte, v gjson.Result, text string) []byte {
	out := slices.Clone(l[:v.Index])
	out = append(out, text...)
	return append(out, l[v.Index+len(v.Raw):]...)
}

// insertMember adds a member at the start of a line's top-level object.
func insertMember(l []byte, key, val string) []byte {
	i := bytes.IndexByte(l, '{')
	if i < 0 {
		return l
	}
	sep := ","
	if rest := bytes.TrimSpace(l[i+1:]); len(rest) > 0 && rest[0] == '}' {
		sep = ""
	}
	out := slices.Clone(l[:i+1])
	out = append(out, key+":"+val+sep...)
	return append(out, l[i+1:]...)
}

// FuzzOneVerdict feeds arbitrary streams, seeded with every test stream,
// to validate and convert and requires the same line diagnostics.
func FuzzOneVerdict(f *testing.F) {
	all := dialect.All()
	for i, d := range all {
		for _, file := range teststreams.Valid(d.Name()) {
			data, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			if len(data) > 4096 {
				data = data[:bytes.LastIndexByte(data[:4096], '\n')+1]
			}
			f.Add(data, uint8(i))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, pick uint8) {
		sameVerdict(t, all[int(pick)%len(all)], data, "fuzz", false)
	})
}
