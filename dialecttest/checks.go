package dialecttest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/evtool/evtool/convert"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/internal/jsonkeys"
	"github.com/evtool/evtool/internal/testkit/golden"
	"github.com/evtool/evtool/internal/testkit/jsoneq"
	"github.com/evtool/evtool/internal/testkit/schematest"
	"github.com/evtool/evtool/internal/testkit/teststreams"
	"github.com/evtool/evtool/validate"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/tidwall/gjson"
)

// sniff: the first line of each of the dialect's streams is taken by its
// sniffer and by no other; its sniffer takes no other dialect's first
// line, nor a capture of a producer evtool does not read yet.
func (k *kit) sniff(t *testing.T) {
	own := 0
	for _, f := range k.streams {
		l := FirstLine(k.read(t, f))
		if l == nil {
			continue
		}
		own++
		if !k.d.Sniff(l) {
			t.Errorf("%s: %s's sniffer refuses its own first line: %s", base(f), k.d.Name(), l)
		}
		for _, o := range others(k.d) {
			if o.Sniff(l) {
				t.Errorf("%s: %s's sniffer takes a %s first line: %s", base(f), o.Name(), k.d.Name(), l)
			}
		}
	}
	if own == 0 {
		t.Errorf("no first line of %s to sniff", k.d.Name())
	}
	var foreign []string
	for _, o := range others(k.d) {
		foreign = append(foreign, k.others(o.Name())...)
	}
	// Captures of producers evtool does not read yet.
	next, _ := filepath.Glob(filepath.Join(teststreams.Root(), "..", "shared", "dialects-next", "captures", "*", "*.jsonl"))
	for _, f := range next {
		if _, err := dialect.Lookup(filepath.Base(filepath.Dir(f))); err != nil {
			foreign = append(foreign, f)
		}
	}
	for _, f := range foreign {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if l := FirstLine(data); l != nil && k.d.Sniff(l) {
			t.Errorf("%s: %s's sniffer takes another producer's first line: %s", f, k.d.Name(), l)
		}
	}
	t.Logf("%d first lines of its own, %d of others", own, len(foreign))
}

// schema: every line of every stream passes the published schema (with a
// full JSON Schema engine) and the decoder, and validate finds no error in
// any stream.
func (k *kit) schema(t *testing.T) {
	s := schematest.Compile(t, k.d)
	n := 0
	for _, f := range k.streams {
		t.Run(base(f), func(t *testing.T) {
			k.known(t, "schema/"+base(f))
			n += k.schemaOf(t, s, f)
		})
	}
	t.Logf("%d lines in %d streams", n, len(k.streams))
}

// schemaOf checks one stream, and returns its number of lines.
func (k *kit) schemaOf(t *testing.T, s *jsonschema.Schema, f string) (n int) {
	{
		data := k.read(t, f)
		dec := k.d.NewDecoder(dialect.DecodeOptions{})
		for i, l := range lines(data) {
			l = strings.TrimSuffix(l, "\r")
			if strings.TrimSpace(l) == "" {
				continue
			}
			n++
			if err := schematest.Check(s, l); err != nil {
				t.Errorf("%s line %d: the schema refuses a valid line: %v\n%s", base(f), i+1, err, l)
			}
			if _, err := dec.Decode(nil, []byte(l), i+1); err != nil {
				t.Errorf("%s line %d: the decoder refuses a valid line: %v\n%s", base(f), i+1, err, l)
			}
		}
		sum, err := validate.Stream(bytes.NewReader(data), f, validate.Options{Dialect: k.d}, func(dg validate.Diagnostic) {
			if dg.Severity == dialect.Error {
				t.Errorf("%s: validate: %s", base(f), dg)
			}
		})
		if err != nil || sum.Errors > 0 {
			t.Errorf("%s: validate: %+v %v", base(f), sum, err)
		}
	}
	return n
}

// invalid: validate reports a problem in each stream with a bad line.
func (k *kit) invalid(t *testing.T) {
	for _, f := range k.c.Invalid {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sum, err := validate.Stream(bytes.NewReader(data), f, validate.Options{Dialect: k.d}, func(validate.Diagnostic) {})
		if err == nil && sum.Errors+sum.Warnings == 0 {
			t.Errorf("%s: validate finds nothing wrong in a stream with a bad line", base(f))
		}
	}
}

// alone reports whether a single line under test may stand without the
// corpus's header.
func (k *kit) alone(l string) bool {
	return k.c.Header == "" || gjson.Get(l, "type").Str == gjson.Get(k.c.Header, "type").Str
}

// withHeader returns the stream a single line is tested in.
func (k *kit) withHeader(l string) []string {
	if k.alone(l) {
		return []string{l}
	}
	return []string{k.c.Header, l}
}

// positioned is an error that names the JSON pointer of the offending
// value, as every evtool decoder's field errors do.
type positioned interface {
	error
	Position() string
}

// contract: the lines the producer's types accept pass the schema and the
// decoder and come back byte for byte (or as the same JSON where the
// corpus says their keys are not in the producer's order), losing
// nothing; the lines they refuse are refused by the schema when it can see
// the fault (at the value's pointer), else by the decoder at the value's
// pointer, saying what it got and what it wants.
func (k *kit) contract(t *testing.T) {
	s := schematest.Compile(t, k.d)
	for i, l := range ReadLines(t, filepath.Join(k.c.Contract, "accept.jsonl")) {
		if err := schematest.Check(s, l); err != nil {
			t.Errorf("accept line %d: the schema refuses a line the producer accepts: %v\n%s", i+1, err, l)
		}
		if !k.writable {
			Decode(t, k.d, k.withHeader(l)...)
			continue
		}
		_, back, losses := RoundTrip(t, k.d, k.withHeader(l)...)
		if !losses.Empty() {
			t.Errorf("accept line %d: losses %s", i+1, LossText(losses))
		}
		got := back[len(back)-1]
		switch {
		case got == l:
		case !jsoneq.Equal(got, l):
			t.Errorf("accept line %d is not written back as the same JSON:\n in: %s\nout: %s", i+1, l, got)
		case !slices.Contains(k.c.Reordered, i+1):
			t.Errorf("accept line %d is not written back byte for byte:\n in: %s\nout: %s", i+1, l, got)
		}
	}
	rej := ReadLines(t, filepath.Join(k.c.Contract, "reject.jsonl"))
	if len(rej)%2 != 0 {
		t.Fatalf("reject.jsonl has %d lines: want pairs", len(rej))
	}
	for i := 0; i+1 < len(rej); i += 2 {
		var want struct {
			Pointer string
			Schema  bool
		}
		if err := json.Unmarshal([]byte(rej[i]), &want); err != nil {
			t.Fatal(err)
		}
		l, n := rej[i+1], i+2
		serr := schematest.Check(s, l)
		dec := k.d.NewDecoder(dialect.DecodeOptions{})
		in := k.withHeader(l)
		var derr error
		for j, x := range in {
			_, derr = dec.Decode(nil, []byte(x), j+1) // must not panic, whatever the schema says
		}
		if want.Schema {
			parent := want.Pointer[:max(strings.LastIndexByte(want.Pointer, '/'), 0)]
			switch {
			case serr == nil:
				t.Errorf("reject line %d: the schema accepts a line the producer refuses:\n%s", n, l)
			case !strings.Contains(serr.Error(), "'"+want.Pointer) && !strings.Contains(serr.Error(), "at '"+parent+"'"):
				t.Errorf("reject line %d: the schema error is not at %s: %v", n, want.Pointer, serr)
			}
			if derr == nil && k.c.KeepsRefused && k.writable {
				if _, back, _ := RoundTrip(t, k.d, in...); back[len(back)-1] != l {
					t.Errorf("reject line %d is not written back as it was:\n in: %s\nout: %s", n, l, back[len(back)-1])
				}
			}
			continue
		}
		if serr != nil {
			t.Errorf("reject line %d: the schema refuses a line it cannot judge: %v", n, serr)
		}
		var fe positioned
		if !errors.As(derr, &fe) {
			t.Errorf("reject line %d: the decoder accepts a line the producer refuses (err %v):\n%s", n, derr, l)
			continue
		}
		if fe.Position() != want.Pointer {
			t.Errorf("reject line %d: error at %q, want %q: %v", n, fe.Position(), want.Pointer, fe)
		}
		msg := strings.TrimPrefix(fe.Error(), fe.Position()+": ")
		got, wanted, ok := strings.Cut(strings.TrimPrefix(msg, "got "), ", want ")
		if !strings.HasPrefix(msg, "got ") || !ok || got == wanted {
			t.Errorf("reject line %d: message %q does not say what it got and what it wants", n, msg)
		}
	}
}

// convertBytes converts a stream held in memory, requiring that nothing is
// lost and no line has an error.
func convertBytes(t *testing.T, data []byte, name string, from, to dialect.Dialect) []byte {
	t.Helper()
	var out bytes.Buffer
	res, err := convert.Run(bytes.NewReader(data), &out, name, convert.Options{From: from, To: to}, func(le *convert.LineError) {
		if le.Severity == dialect.Error {
			t.Errorf("%s → %s: %v", from.Name(), to.Name(), le)
		}
	})
	if err != nil {
		t.Fatalf("%s → %s: %v", from.Name(), to.Name(), err)
	}
	if !res.Losses.Empty() {
		t.Errorf("%s → %s lost something:\n%s", from.Name(), to.Name(), LossText(res.Losses))
	}
	return out.Bytes()
}

func canonicalDialect(t *testing.T) dialect.Dialect {
	t.Helper()
	c, err := dialect.Lookup("canonical")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// roundTrip: each stream through canonical text and back, as evtool
// convert --strict would take it both ways, loses nothing and comes back
// as it was (see sameStream).
func (k *kit) roundTrip(t *testing.T) {
	c := canonicalDialect(t)
	for _, f := range k.streams {
		t.Run(base(f), func(t *testing.T) {
			data := k.read(t, f)
			canon := convertBytes(t, data, f, k.d, c)
			back := convertBytes(t, canon, "canonical", c, k.d)
			k.sameStream(t, string(data), string(back), slices.Contains(k.c.ByteExact, f))
		})
	}
}

// sameStream requires a stream that went through canonical text to come
// back as it was: byte for byte for a Verbatim dialect and for lines in
// the producer's form, else line by line the same JSON value.
func (k *kit) sameStream(t *testing.T, orig, back string, exact bool) {
	t.Helper()
	if back == orig {
		return
	}
	if k.c.Verbatim {
		t.Fatalf("not byte-identical after canonical text")
	}
	in, out := lines([]byte(orig)), lines([]byte(back))
	if len(in) != len(out) {
		t.Fatalf("%d lines came back for %d", len(out), len(in))
	}
	for i := range in {
		x, y := in[i], out[i]
		switch {
		case x == y:
		case exact:
			t.Errorf("line %d is not byte-identical:\n got %s\nwant %s", i+1, y, x)
		case !jsoneq.Equal(x, y):
			t.Errorf("line %d is not the same JSON value:\n got %s\nwant %s", i+1, y, x)
		case ProducerForm(x) && slices.Equal(KeyPaths(gjson.Parse(x), "", nil), KeyPaths(gjson.Parse(y), "", nil)):
			t.Errorf("line %d is in the producer's form but not byte-identical:\n got %s\nwant %s", i+1, y, x)
		}
	}
}

// ProducerForm reports whether a line is written as the producers write:
// compact (no white space between tokens) and with only the escapes
// serde_json and encoding/json's compact form agree on (\" \\ \b \f \n \r
// \t, and \u00xx in lower case for the other control characters), so that
// no string could be spelled differently. Whether its keys are in the
// producer's order is for the caller to judge.
func ProducerForm(line string) bool {
	in := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		if !in {
			switch c {
			case ' ', '\t', '\r', '\n':
				return false
			case '"':
				in = true
			}
			continue
		}
		switch c {
		case '"':
			in = false
		case '\\':
			i++
			if i >= len(line) {
				return false
			}
			switch line[i] {
			case '"', '\\', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(line) || line[i+1:i+3] != "00" || !strings.ContainsRune("01", rune(line[i+3])) || !strings.ContainsRune("0123456789abcdef", rune(line[i+4])) {
					return false
				}
				if u := line[i+3 : i+5]; u == "08" || u == "09" || u == "0a" || u == "0c" || u == "0d" {
					return false // written \b \t \n \f \r
				}
				i += 4
			default:
				return false
			}
		}
	}
	return true
}

// KeyPaths returns the keys of every object of a JSON value, at every
// depth, in the order they are written: two lines with the same key paths
// have their keys in the same order.
func KeyPaths(v gjson.Result, prefix string, out []string) []string {
	switch {
	case v.IsObject():
		v.ForEach(func(k, e gjson.Result) bool {
			out = append(out, prefix+"/"+k.Str)
			out = KeyPaths(e, prefix+"/"+k.Str, out)
			return true
		})
	case v.IsArray():
		i := 0
		v.ForEach(func(_, e gjson.Result) bool {
			out = KeyPaths(e, fmt.Sprintf("%s/%d", prefix, i), out)
			i++
			return true
		})
	}
	return out
}

// reorder rewrites the keys of every JSON line of a stream in order o,
// leaving other lines as they are.
func reorder(data []byte, o jsonkeys.Order) []byte {
	var b bytes.Buffer
	for _, l := range lines(data) {
		if t := bytes.TrimSpace([]byte(l)); json.Valid(t) {
			b.Write(jsonkeys.Reorder(t, o))
		} else {
			b.WriteString(l)
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// withoutLayout returns a canonical line without what a residue records
// of its line's layout: the keys starting with '@' under "ext" (the order
// of keys, where line separators stood), and the objects left empty; for
// a dialect whose residue keeps what it needs to give each line back as it
// was (Verbatim, LayoutInResidue), without "ext".
func (k *kit) withoutLayout(line string) string {
	var v map[string]any
	dec := json.NewDecoder(strings.NewReader(line))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return line
	}
	// strip reports whether x is an object left empty.
	var strip func(x any) bool
	strip = func(x any) bool {
		switch c := x.(type) {
		case map[string]any:
			for k, e := range c {
				if strings.HasPrefix(k, "@") || strip(e) {
					delete(c, k)
				}
			}
			return len(c) == 0
		case []any:
			for _, e := range c {
				strip(e)
			}
		}
		return false
	}
	if k.c.Verbatim || k.c.LayoutInResidue || strip(v["ext"]) {
		delete(v, "ext")
	}
	return marshal(v)
}

// keyOrder: a stream with the keys of every object sorted (as jq -S
// writes it) and reversed reads as the same canonical events, but for the
// order of the residue's own keys, and comes back as the same JSON.
func (k *kit) keyOrder(t *testing.T) {
	c := canonicalDialect(t)
	for _, f := range k.streams {
		t.Run(base(f), func(t *testing.T) {
			data := k.read(t, f)
			want := lines(convertBytes(t, data, f, k.d, c))
			for _, o := range []jsonkeys.Order{jsonkeys.Sorted, jsonkeys.Reversed} {
				re := reorder(data, o)
				canon := convertBytes(t, re, f, k.d, c)
				got := lines(canon)
				if len(got) != len(want) {
					t.Fatalf("keys %v: %d canonical lines, want %d", o, len(got), len(want))
				}
				for i := range got {
					if !jsoneq.Equal(k.withoutLayout(want[i]), k.withoutLayout(got[i])) {
						t.Errorf("keys %v: canonical line %d depends on key order:\n%s\n%s", o, i+1, want[i], got[i])
					}
				}
				if !k.writable {
					continue
				}
				in, back := lines(re), lines(convertBytes(t, canon, "canonical", c, k.d))
				if len(in) != len(back) {
					t.Fatalf("keys %v: %d lines back for %d", o, len(back), len(in))
				}
				for i := range in {
					if !jsoneq.Equal(in[i], back[i]) {
						t.Errorf("keys %v: line %d is not the same JSON:\n in: %s\nout: %s", o, i+1, in[i], back[i])
					}
				}
			}
		})
	}
}

// golden: the canonical reading of each stream with a golden file is the
// reviewed one, and every golden file has its stream.
func (k *kit) golden(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(k.c.Golden, "*.canonical.jsonl"))
	if len(files) == 0 {
		t.Skipf("no golden files in %s", k.c.Golden)
	}
	byName := map[string]string{}
	for _, f := range k.streams {
		name := strings.TrimSuffix(base(f), ".jsonl")
		if prev, dup := byName[name]; dup {
			byName[name] = "" // two streams of one name: neither may have a golden
			_ = prev
			continue
		}
		byName[name] = f
	}
	var pinned []string
	for _, g := range files {
		name := strings.TrimSuffix(base(g), ".canonical.jsonl")
		switch f, ok := byName[name]; {
		case !ok:
			t.Errorf("%s: no stream %s.jsonl among the valid streams", g, name)
		case f == "":
			t.Errorf("%s: two valid streams are named %s.jsonl", g, name)
		default:
			pinned = append(pinned, f)
		}
	}
	golden.Canonical(t, k.d, pinned, k.c.Golden)
}

// cross: every other dialect's streams, and the hand-made canonical
// streams, written as this dialect: valid in it (the full schema, the
// decoder, the checker, validate), and every loss counted under a kind of
// its catalogue.
func (k *kit) cross(t *testing.T) {
	catalogue := lossIDs(k.d)
	counted := map[string]int{}
	s := schematest.Compile(t, k.d)
	check := func(t *testing.T, f string, from dialect.Dialect) {
		out, losses := convertFile(t, f, from, k.d)
		for i, l := range lines(out) {
			if err := schematest.Check(s, l); err != nil {
				t.Errorf("line %d: schema: %v\n%s", i+1, err, l)
			}
		}
		// The decoder and the checker, as evtool validate runs them.
		sum, err := validate.Stream(bytes.NewReader(out), f, validate.Options{Dialect: k.d}, func(dg validate.Diagnostic) {
			if dg.Severity == dialect.Error {
				t.Errorf("validate: %s", dg)
			}
		})
		if err != nil || sum.Errors > 0 {
			t.Errorf("validate: %+v %v", sum, err)
		}
		for _, l := range losses.List() {
			counted[l.ID]++
			if catalogue[l.ID] == nil {
				t.Errorf("loss %q counted under %s, which is not in %s's catalogue", l, l.ID, k.d.Name())
			}
		}
	}
	n := 0
	for _, o := range others(k.d) {
		for _, f := range k.others(o.Name()) {
			n++
			t.Run(o.Name()+"/"+base(f), func(t *testing.T) {
				k.known(t, "cross/"+o.Name()+"/"+base(f))
				check(t, f, o)
			})
		}
	}
	c := canonicalDialect(t)
	for _, f := range k.c.Canonical {
		n++
		t.Run("canonical/"+base(f), func(t *testing.T) {
			k.known(t, "cross/canonical/"+base(f))
			check(t, f, c)
		})
	}
	if n == 0 {
		t.Error("no other dialect has streams to write")
	}
	t.Logf("%d streams written; loss kinds counted: %v", n, sortedKeys(counted))
}

// lossIDs returns the loss kinds a dialect's encoder may count: its own
// catalogue, the kinds every encoder shares, and the conversion's.
func lossIDs(d dialect.Dialect) map[string]*dialect.LossKind {
	kinds := append(dialect.SharedLossKinds(), convert.LossKinds()...)
	if ll, ok := d.(dialect.LossLister); ok {
		kinds = append(kinds, ll.LossKinds()...)
	}
	ids := map[string]*dialect.LossKind{}
	for _, k := range kinds {
		ids[k.ID] = k
	}
	return ids
}

// losses: the catalogue's ids are unique and under the dialect's name,
// each kind worded for one and for many, with a reason.
func (k *kit) losses(t *testing.T) {
	ll, ok := k.d.(dialect.LossLister)
	if !ok || len(ll.LossKinds()) == 0 {
		t.Logf("%s publishes no loss catalogue: it may count only the shared kinds", k.d.Name())
		return
	}
	if err := dialect.CheckLossKinds(k.d.Name()+"/", ll.LossKinds()); err != nil {
		t.Error(err)
	}
}

// rules: the rule catalogue's ids are unique and under the dialect's
// name, each with a severity and a summary, and each named in the docs.
func (k *kit) rules(t *testing.T) {
	rs := k.d.(dialect.RuleLister).Rules()
	var docs string
	if k.c.Docs != "" {
		b, err := os.ReadFile(k.c.Docs)
		if err != nil {
			t.Fatal(err)
		}
		docs = string(b)
	}
	seen := map[string]bool{}
	for _, r := range rs {
		switch {
		case !strings.HasPrefix(r.ID, k.d.Name()+"/") || len(r.ID) == len(k.d.Name())+1:
			t.Errorf("rule %q: its id must start with %q", r.ID, k.d.Name()+"/")
		case seen[r.ID]:
			t.Errorf("rule %q declared twice", r.ID)
		case r.Summary == "":
			t.Errorf("rule %q has no summary", r.ID)
		case r.Severity != dialect.Error && r.Severity != dialect.Warning:
			t.Errorf("rule %q: severity %v", r.ID, r.Severity)
		case k.c.Docs != "" && !strings.Contains(docs, "`"+r.ID+"`"):
			t.Errorf("rule %q is not documented in %s", r.ID, k.c.Docs)
		}
		seen[r.ID] = true
	}
	if len(rs) == 0 {
		t.Errorf("%s's rule catalogue is empty", k.d.Name())
	}
}
