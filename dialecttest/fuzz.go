package dialecttest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/testkit/jsoneq"
	"github.com/tidwall/gjson"
)

// Fuzz feeds arbitrary lines to d's reader, after the corpus's header: it
// must never panic, as from a pipe or from a file (Lookahead), and a line it accepts (one JSON object without a
// repeated key, which is not a second header) must come back through
// canonical text as the same JSON, with the header byte for byte — or, for
// a Verbatim dialect, byte for byte itself; lines the corpus calls Lossy
// aside. The seeds are the lines of the corpus's streams and contract
// cases; a package's testdata/fuzz/FuzzRoundTrip seeds are added by go
// test, as for any fuzz test of that name.
func Fuzz(f *testing.F, d dialect.Dialect, c Corpus) {
	f.Helper()
	k := newKit(f, d, c)
	for _, s := range k.seeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if !json.Valid([]byte(line)) || !utf8.ValidString(line) || jsoneq.DuplicateKeys(line) ||
			strings.ContainsAny(line, "\r\n") || !strings.HasPrefix(strings.TrimLeft(line, " \t"), "{") {
			return // a line that is not one JSON object is the reader's to refuse, not to read
		}
		if c.Header != "" && k.alone(line) {
			return // a second header breaks a rule; it is no round-trip case
		}
		in := k.withHeader(line)
		dec := d.NewDecoder(dialect.DecodeOptions{})
		var evs []*event.Event
		for i, l := range in {
			var err error
			evs, err = dec.Decode(evs, []byte(l), i+1)
			if err != nil {
				if i < len(in)-1 {
					t.Fatalf("the header does not read: %v", err)
				}
				return
			}
		}
		evs = dec.End(evs)
		// Read from a file, a decoder may hold events back until a later
		// line tells it a fact (Lookahead): that reading must not panic
		// either, and must end with what it held.
		look := d.NewDecoder(dialect.DecodeOptions{Lookahead: true})
		var held []*event.Event
		for i, l := range in {
			held, _ = look.Decode(held, []byte(l), i+1)
		}
		if held = look.End(held); len(evs) > 0 && len(held) == 0 {
			t.Fatalf("%d events read from a pipe, none from a file", len(evs))
		}
		if !k.writable {
			return // read, never written: no panic was the whole of it
		}
		var out bytes.Buffer
		w := bufio.NewWriter(&out)
		enc := d.NewEncoder(w, dialect.EncodeOptions{Losses: &dialect.Losses{}})
		for _, ev := range evs {
			// Through canonical text, as through a file.
			b, err := event.Append(nil, ev)
			if err != nil {
				t.Fatal(err)
			}
			back, err := event.Parse(b)
			if err != nil {
				t.Fatalf("canonical line does not parse back: %v\n%s", err, b)
			}
			if err := enc.Encode(back); err != nil {
				t.Fatal(err)
			}
		}
		w.Flush()
		if c.Lossy != nil && c.Lossy(line) {
			return
		}
		if c.Verbatim {
			if want := strings.Join(in, "\n") + "\n"; out.String() != want {
				t.Fatalf("not byte-identical:\n in: %q\nout: %q", want, out.String())
			}
			return
		}
		got := lines(out.Bytes())
		if len(got) != len(in) {
			t.Fatalf("%d lines back for %d:\n in: %s\nout: %s", len(got), len(in), strings.Join(in, "\n     "), out.String())
		}
		for i := range len(in) - 1 {
			if got[i] != in[i] {
				t.Fatalf("the header is not written back: %s", got[i])
			}
		}
		if g := got[len(got)-1]; !jsoneq.Equal(line, g) {
			t.Fatalf("not the same JSON:\n in: %s\nout: %s", line, g)
		}
	})
}

// seeds returns the lines of the kit's streams and contract cases.
func (k *kit) seeds(t testing.TB) []string {
	seen := map[string]bool{}
	var out []string
	add := func(ls []string) {
		for _, l := range ls {
			if l = strings.TrimSuffix(l, "\r"); l != "" && !seen[l] {
				seen[l] = true
				out = append(out, l)
			}
		}
	}
	for _, f := range k.streams {
		add(lines(k.read(t, f)))
	}
	if k.c.Contract != "" {
		for _, name := range []string{"accept.jsonl", "reject.jsonl"} {
			if data, err := os.ReadFile(filepath.Join(k.c.Contract, name)); err == nil {
				add(lines(data))
			}
		}
	}
	return out
}

// maxMutations bounds the mutation check's work on one dialect.
const maxMutations = 3_000

// mutation: a line of each shape in the streams (its type and its keys),
// with each value (to three levels deep) replaced by a value of another
// type or removed, is read, checked and written without a panic.
func (k *kit) mutation(t *testing.T) {
	n := 0
	shapes := map[string]bool{}
	for _, f := range k.streams {
		ls := lines(k.read(t, f))
		for i, l := range ls {
			if sh := shape(l); shapes[sh] {
				continue
			} else {
				shapes[sh] = true
			}
			var v any
			dec := json.NewDecoder(strings.NewReader(l))
			dec.UseNumber()
			if dec.Decode(&v) != nil {
				continue
			}
			for _, m := range mutations(v) {
				if n++; n > maxMutations {
					t.Logf("stopped after %d mutated lines", maxMutations)
					return
				}
				var in []string
				if i > 0 {
					in = append(in, strings.TrimSuffix(ls[0], "\r"))
				}
				k.survive(t, base(f), append(in, m))
			}
		}
	}
	t.Logf("%d mutated lines", n)
}

// shape names a line's kind: its type and its top-level keys, sorted.
func shape(line string) string {
	var keys []string
	r := gjson.Parse(line)
	r.ForEach(func(k, _ gjson.Result) bool { keys = append(keys, k.Str); return true })
	sort.Strings(keys)
	return r.Get("type").Raw + r.Get("payload_type").Raw + r.Get("method").Raw + r.Get("params.update.sessionUpdate").Raw + strings.Join(keys, ",")
}

// survive reads, checks and writes a short stream, reporting a panic.
func (k *kit) survive(t *testing.T, name string, in []string) {
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("%s: panic: %v\n%s\nstream:\n%s", name, r, debug.Stack(), strings.Join(in, "\n"))
		}
	}()
	dec := k.d.NewDecoder(dialect.DecodeOptions{})
	ch := k.d.NewChecker(dialect.CheckOptions{})
	var evs []*event.Event
	for i, l := range in {
		evs, _ = dec.Decode(evs, []byte(l), i+1)
		ch.Line([]byte(l), i+1, func(dialect.Finding) {})
	}
	ch.End(len(in), func(dialect.Finding) {})
	evs = dec.End(evs)
	var out bytes.Buffer
	w := bufio.NewWriter(&out)
	enc := k.d.NewEncoder(w, dialect.EncodeOptions{Losses: &dialect.Losses{}})
	for _, ev := range evs {
		_ = enc.Encode(ev)
	}
	_ = enc.Close()
	w.Flush()
}

// replacements are the values a mutation puts in place of another.
var replacements = []any{nil, true, "", "x", json.Number("0"), json.Number("-1"), json.Number("1.5"),
	json.Number("18446744073709551616"), []any{}, map[string]any{}, []any{nil}, map[string]any{"type": nil}}

// mutations returns the JSON texts of v with one value, at most three
// levels deep, replaced or removed.
func mutations(v any) []string {
	var out []string
	var walk func(path []any, cur any, depth int)
	walk = func(path []any, cur any, depth int) {
		if depth > 3 {
			return
		}
		switch c := cur.(type) {
		case map[string]any:
			keys := make([]string, 0, len(c))
			for key := range c {
				keys = append(keys, key)
			}
			sort.Strings(keys)
			for _, key := range keys {
				p := append(append([]any(nil), path...), key)
				out = append(out, marshal(edit(v, p, nil, true)))
				for _, r := range replacements {
					out = append(out, marshal(edit(v, p, r, false)))
				}
				walk(p, c[key], depth+1)
			}
		case []any:
			for i := range c {
				if i > 1 {
					break // the first two elements stand for the rest
				}
				p := append(append([]any(nil), path...), i)
				for _, r := range replacements {
					out = append(out, marshal(edit(v, p, r, false)))
				}
				walk(p, c[i], depth+1)
			}
		}
	}
	walk(nil, v, 0)
	return out
}

// edit returns a copy of v with the value at path replaced by r, or
// removed (from an object).
func edit(v any, path []any, r any, remove bool) any {
	if len(path) == 0 {
		return r
	}
	switch c := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(c))
		for key, val := range c {
			m[key] = val
		}
		key := path[0].(string)
		if len(path) == 1 && remove {
			delete(m, key)
		} else {
			m[key] = edit(c[key], path[1:], r, remove)
		}
		return m
	case []any:
		a := append([]any(nil), c...)
		i := path[0].(int)
		a[i] = edit(c[i], path[1:], r, remove)
		return a
	}
	return v
}

func marshal(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprint("dialecttest: ", err))
	}
	return string(b)
}
