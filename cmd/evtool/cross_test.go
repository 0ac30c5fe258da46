package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/evtool/evtool/cli"
	"github.com/evtool/evtool/convert"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/dialecttest"
	"github.com/evtool/evtool/internal/jsonkeys"
	"github.com/evtool/evtool/internal/testkit/golden"
	"github.com/evtool/evtool/internal/testkit/jsoneq"
	"github.com/evtool/evtool/internal/testkit/teststreams"
	"github.com/evtool/evtool/ndjson"
	"github.com/tidwall/gjson"
)

// evtool runs the command in-process and returns its output and status.
func evtool(t *testing.T, stdin []byte, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = cli.Run(append([]string{"evtool"}, args...), bytes.NewReader(stdin), &out, &errb)
	return out.String(), errb.String(), code
}

// lossLines returns the loss summary lines of convert's stderr.
func lossLines(stderr string) []string {
	var out []string
	for _, l := range strings.Split(stderr, "\n") {
		for _, verb := range []string{"dropped ", "approximated ", "synthesized "} {
			if strings.HasPrefix(l, "evtool: "+verb) {
				out = append(out, l)
			}
		}
	}
	return out
}

// testStream is one test stream of a dialect, read once.
type testStream struct {
	from  string // its dialect
	path  string // the file
	label string // kind:name, for test names
	name  string // file name without .jsonl
	// golden is the directory of the stream's reviewed loss goldens
	// (golden/NAME.to-TARGET.txt), or "" for a stream whose losses are not
	// pinned.
	golden string
	data   []byte
}

// streamsOf returns every test stream of a dialect, as
// teststreams.Valid finds them by convention. The bundled streams
// (testdata/streams) and the real captures (../shared/corpus) have
// reviewed loss goldens under testdata/losses/<dialect>; the hand-made
// probe streams, the adapters' own testdata and the captures of future
// dialects are checked for validity and --strict consistency only.
func streamsOf(t *testing.T, d string) []testStream {
	t.Helper()
	root := teststreams.Root()
	kinds := []struct{ dir, kind string }{
		{filepath.Join(root, "testdata", "streams") + string(filepath.Separator), "streams"},
		{filepath.Join(root, "testdata", "probe") + string(filepath.Separator), "probe"},
		{filepath.Join(root, "adapters") + string(filepath.Separator), "adapter"},
		{filepath.Join(root, "..", "shared", "corpus") + string(filepath.Separator), "corpus"},
		{filepath.Join(root, "..", "shared", "dialects-next") + string(filepath.Separator), "next"},
	}
	goldenOf := map[string]string{} // golden path → stream, to catch two streams sharing one
	var out []testStream
	for _, f := range teststreams.Valid(d) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		s := testStream{from: d, path: f, name: strings.TrimSuffix(filepath.Base(f), ".jsonl"), data: data}
		kind := "other"
		for _, k := range kinds {
			if strings.HasPrefix(f, k.dir) {
				kind = k.kind
				break
			}
		}
		s.label = kind + ":" + s.name
		if kind == "streams" || kind == "corpus" {
			s.golden = filepath.Join("testdata", "losses", d)
			if prev, dup := goldenOf[s.name]; dup {
				t.Fatalf("%s and %s would share the loss goldens %s/%s.to-*.txt", prev, f, s.golden, s.name)
			}
			goldenOf[s.name] = f
		}
		out = append(out, s)
	}
	return out
}

// registered returns the names of the registered dialects, in
// dialect.All's order (sorted by name).
func registered() []string { return namesOf(dialect.All()) }

// targets returns the names of the dialects evtool writes: all but the
// read-only ones (an agent's own session files).
func targets() []string { return namesOf(dialect.Targets()) }

func namesOf(ds []dialect.Dialect) []string {
	var names []string
	for _, d := range ds {
		names = append(names, d.Name())
	}
	return names
}

// convertValid converts in from one dialect to another and requires the
// conversion to exit 0 and its output to pass `evtool validate --dialect
// to -`. It returns the output and convert's stderr.
func convertValid(t *testing.T, in []byte, from, to string) (out, stderr string) {
	t.Helper()
	out, stderr, code := evtool(t, in, "convert", "--from", from, "--to", to)
	if code != 0 {
		t.Fatalf("convert --from %s --to %s exited %d:\n%s", from, to, code, stderr)
	}
	vout, verr, vcode := evtool(t, []byte(out), "validate", "--dialect", to, "-")
	if vcode != 0 {
		t.Fatalf("the %s output does not validate (exit %d):\n%s%s\noutput:\n%s", to, vcode, firstLines(vout, 10), verr, firstLines(out, 40))
	}
	return out, stderr
}

// firstLines returns the first n lines of s.
func firstLines(s string, n int) string {
	ls := strings.SplitAfter(s, "\n")
	if len(ls) <= n {
		return s
	}
	return strings.Join(ls[:n], "") + "…\n"
}

// reorder rewrites the key order of every object of every line, as
// `jq -S -c .` (Sorted) would. Lines nested deeper than 64 levels are
// kept as they are (jsonkeys recurses once per level), and so are blank
// lines and line ends.
func reorder(data []byte, o jsonkeys.Order) []byte {
	var out []byte
	for _, l := range bytes.SplitAfter(data, []byte("\n")) {
		body := bytes.TrimSuffix(l, []byte("\n"))
		body = bytes.TrimSuffix(body, []byte("\r"))
		if len(bytes.TrimSpace(body)) == 0 || ndjson.CheckDepth(body, 64) != nil {
			out = append(out, l...)
			continue
		}
		out = append(out, jsonkeys.Reorder(body, o)...)
		out = append(out, l[len(body):]...)
	}
	return out
}

// A target may copy objects of the source as the source wrote them (a
// tool call's input, a permission preview, residue in ext), so its output
// for a stream with its keys reordered may differ in the key order of
// those objects, and in nothing else: once every object's keys are sorted,
// the lines are byte-identical. Which objects a target copies is its own
// business, so the rule is the same for every target.

// sameOutput reports how the output of a reordered stream (b) differs from
// that of the original (a), or "" when it differs only as TestCrossConversions
// allows: not at all, or in the key order of objects (the lines are byte-identical once every object's keys are
// sorted). Canonical lines may in addition differ in ext.<from>, the
// source's residue, which records the source's own layout (muse keeps the
// key order of each record there so that muse → canonical → muse is byte
// for byte); the rest of such a line must still differ only in key order.
func sameOutput(a, b, from, to string) string {
	if a == b {
		return ""
	}
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	if len(la) != len(lb) {
		return fmt.Sprintf("the output has %d lines, not %d", len(lb), len(la))
	}
	for i := range la {
		x, y := la[i], lb[i]
		if x == y || x == "" || y == "" {
			if x != y {
				return fmt.Sprintf("line %d differs:\n%s\n%s", i+1, x, y)
			}
			continue
		}
		if to == "canonical" {
			x, y = withoutExt(x, from), withoutExt(y, from)
		}
		if !bytes.Equal(jsonkeys.Reorder([]byte(x), jsonkeys.Sorted), jsonkeys.Reorder([]byte(y), jsonkeys.Sorted)) {
			return fmt.Sprintf("line %d differs in more than key order:\n%s\n%s", i+1, la[i], lb[i])
		}
	}
	return ""
}

// withoutExt returns the canonical line with the member ext.<d> removed
// (and ext, if that leaves it empty), as written otherwise.
func withoutExt(line, d string) string {
	ext := gjson.Get(line, "ext")
	if !ext.IsObject() {
		return line
	}
	var members []string
	ext.ForEach(func(k, v gjson.Result) bool {
		if k.Str != d {
			members = append(members, k.Raw+":"+v.Raw)
		}
		return true
	})
	var top []string
	gjson.Parse(line).ForEach(func(k, v gjson.Result) bool {
		switch {
		case k.Str != "ext":
			top = append(top, k.Raw+":"+v.Raw)
		case len(members) > 0:
			top = append(top, k.Raw+":{"+strings.Join(members, ",")+"}")
		}
		return true
	})
	return "{" + strings.Join(top, ",") + "}"
}

// TestCrossConversions converts every test stream of every registered
// dialect (teststreams.Valid: bundled, probe, adapter testdata and shared
// captures) into every other registered dialect, canonical and acp
// included. For each conversion:
//
//   - the output must be a valid stream of its target (convert exits 0
//     and `evtool validate --dialect TARGET -` exits 0);
//   - for the streams with reviewed goldens (see streamsOf), the loss lines
//     must match the golden list;
//   - --strict must fail exactly when a loss line is printed, after
//     writing the same output;
//   - the stream with the keys of every object sorted (as jq -S does), and
//     reversed, must convert to a valid stream with the same output: byte
//     for byte, or for acp and canonical up to key order (see sameOutput);
//   - two hops: the output, read back as its target A (if A is not
//     canonical), must convert into every other dialect B but canonical,
//     the source included, with exit 0 and a result B's validator accepts.
//
// Every two-hop pair is run, not a sample: all of it takes a few seconds
// on two cores (every conversion is in-process and streaming).
func TestCrossConversions(t *testing.T) {
	names := registered()
	sources := 0
	for _, from := range names {
		streams := streamsOf(t, from)
		if len(streams) == 0 {
			continue // a dialect with no recorded streams of its own (canonical, acp)
		}
		sources++
		for _, s := range streams {
			reordered := []struct {
				order string
				data  []byte
			}{
				{"sorted", reorder(s.data, jsonkeys.Sorted)},
				{"reversed", reorder(s.data, jsonkeys.Reversed)},
			}
			for _, to := range targets() {
				if to == from {
					continue
				}
				t.Run(from+"/"+s.label+"→"+to, func(t *testing.T) {
					out, stderr := convertValid(t, s.data, from, to)
					losses := lossLines(stderr)
					checkLossIDs(t, to, losses)
					if s.golden != "" {
						// A subtest, so that a golden that differs does not
						// stop the checks below.
						t.Run("losses", func(t *testing.T) {
							got := strings.Join(losses, "\n")
							if got != "" {
								got += "\n"
							}
							golden.Check(t, filepath.Join(s.golden, s.name+".to-"+to+".txt"), []byte(got))
						})
					}

					sout, serr, scode := evtool(t, s.data, "convert", "--strict", "--from", from, "--to", to)
					want := 0
					if len(losses) > 0 {
						want = 1
					}
					if scode != want {
						t.Errorf("--strict exited %d with %d loss lines, want %d:\n%s", scode, len(losses), want, serr)
					}
					if sout != out {
						t.Error("--strict must write the same output")
					}

					for _, r := range reordered {
						t.Run(r.order, func(t *testing.T) {
							rout, _ := convertValid(t, r.data, from, to)
							if why := sameOutput(out, rout, from, to); why != "" {
								t.Errorf("with the keys %s: %s", r.order, why)
							}
						})
					}

					if to == "canonical" {
						return
					}
					for _, b := range targets() {
						if b == to || b == "canonical" {
							continue
						}
						t.Run("→"+b, func(t *testing.T) {
							convertValid(t, []byte(out), to, b)
						})
					}
				})
			}
		}
	}
	if sources == 0 {
		t.Fatal("no dialect has test streams")
	}
}

// verbatim names the dialects whose streams come back from canonical byte
// for byte whatever their key order and white space (muse keeps each
// record's layout in ext.muse).
var verbatim = map[string]bool{"muse": true}

// TestRoundTripsThroughFiles runs the streams of every registered dialect
// that has any through canonical text and back with the CLI, as a user
// would in a pipe: X → canonical must lose nothing (--strict), canonical →
// X must lose nothing (--strict), and each line must come back as the
// same JSON value (jsoneq: numbers by their exact text). Lines come back
// byte for byte
//
//   - for the dialects in verbatim, always;
//   - for the others, where the line is in the producer's form: written as
//     the producer writes (dialecttest.ProducerForm) with its keys in the order
//     evtool's encoder, which writes the producer's order, gives them back.
//     So the lines of a stream reordered by jq -S, or with escapes or
//     white space the producer would not write, need only be JSON-equal.
func TestRoundTripsThroughFiles(t *testing.T) {
	for _, d := range targets() {
		if d == "canonical" {
			continue
		}
		for _, s := range streamsOf(t, d) {
			t.Run(d+"/"+s.label, func(t *testing.T) {
				canon, stderr, code := evtool(t, s.data, "convert", "--strict", "--from", d, "--to", "canonical")
				if code != 0 {
					t.Fatalf("to canonical: exit %d\n%s", code, stderr)
				}
				back, stderr, code := evtool(t, []byte(canon), "convert", "--strict", "--from", "canonical", "--to", d)
				checkBack(t, d, s.data, code, stderr)
				sameStream(t, d, string(s.data), back, "canonical text")
			})
		}
	}
}

// checkBack checks the exit of a conversion back to the source's dialect
// d: 0, unless the source itself fails its validator (a probe of a stream
// rule, say). Then the stream that comes back fails it too, and convert,
// which checks what it writes from residue, must say so and exit 1.
func checkBack(t *testing.T, d string, src []byte, code int, stderr string) {
	t.Helper()
	want := 0
	if _, _, vcode := evtool(t, src, "validate", "--dialect", d, "-"); vcode != 0 {
		want = 1
	}
	if code != want || want == 1 && !strings.Contains(stderr, "evtool validate finds") {
		t.Fatalf("back to %s: exit %d, want %d (the source's validate exit: %d)\n%s", d, code, want, want, stderr)
	}
}

// catalogued returns the loss kind ids a target may count: its own
// catalogue (dialect.LossLister), the shared kinds and the conversion's
// own (convert.LossKinds).
func catalogued(t *testing.T, to string) map[string]*dialect.LossKind {
	t.Helper()
	d, err := dialect.Lookup(to)
	if err != nil {
		t.Fatal(err)
	}
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

// checkLossIDs requires every loss line to end with the id of a kind in
// the target's catalogue, and to be worded for its count.
func checkLossIDs(t *testing.T, to string, lines []string) {
	t.Helper()
	ids := catalogued(t, to)
	for _, l := range lines {
		i := strings.LastIndex(l, " [")
		if i < 0 || !strings.HasSuffix(l, "]") {
			t.Errorf("loss line without an id: %s", l)
			continue
		}
		k := ids[l[i+2:len(l)-1]]
		if k == nil {
			t.Errorf("loss id not in the %s catalogue: %s", to, l)
			continue
		}
		if !strings.Contains(l, "("+k.Why+")") {
			t.Errorf("loss line does not give its kind's reason %q: %s", k.Why, l)
		}
	}
}

// TestLossCatalogues checks every dialect's loss catalogue: ids unique,
// under the dialect's name, worded for one and for many.
func TestLossCatalogues(t *testing.T) {
	if err := dialect.CheckLossKinds("ext/", dialect.SharedLossKinds()); err != nil {
		t.Error(err)
	}
	if err := dialect.CheckLossKinds("convert/", convert.LossKinds()); err != nil {
		t.Error(err)
	}
	for _, d := range dialect.All() {
		ll, ok := d.(dialect.LossLister)
		if !ok {
			continue
		}
		if err := dialect.CheckLossKinds(d.Name()+"/", ll.LossKinds()); err != nil {
			t.Errorf("%s: %v", d.Name(), err)
		}
	}
}

// TestLossPlurals converts a stream that loses one fact of a kind and one
// that loses two, and requires the wording of each count.
func TestLossPlurals(t *testing.T) {
	head := `{"seq":0,"type":"session_started","schema":1,"source":{"dialect":"basis","version":2}}` + "\n"
	risk := `{"seq":%d,"type":"permission_requested","request_id":"r%d","call_id":"c%d","tool":"shell","risk":"high"}` + "\n"
	for _, c := range []struct {
		n    int
		want string
	}{
		{1, "evtool: dropped 1 permission risk (basis's permission_requested has no risk) [basis/permission-risk]"},
		{2, "evtool: dropped 2 permission risks (basis's permission_requested has no risk) [basis/permission-risk]"},
	} {
		in := head
		for i := 1; i <= c.n; i++ {
			in += fmt.Sprintf(risk, i, i, i)
		}
		in += fmt.Sprintf(`{"seq":%d,"type":"session_finished","status":"ok"}`+"\n", c.n+1)
		_, stderr, code := evtool(t, []byte(in), "convert", "--to", "basis")
		if code != 0 || !slices.Contains(strings.Split(stderr, "\n"), c.want) {
			t.Errorf("%d risks: exit %d, want a line %q in:\n%s", c.n, code, c.want, stderr)
		}
		_, stderr, code = evtool(t, []byte(in), "convert", "-q", "--to", "basis")
		if code != 0 || stderr != "" {
			t.Errorf("-q: exit %d, stderr %q", code, stderr)
		}
	}
}

// sameStream requires a stream that went through via (canonical text, ACP)
// to come back as it was: byte for byte for the dialects in verbatim and
// for lines in the producer's form, else line by line the same JSON value.
func sameStream(t *testing.T, d, orig, back, via string) {
	t.Helper()
	if back == orig {
		return
	}
	if verbatim[d] {
		t.Fatalf("not byte-identical after %s", via)
	}
	in, out := strings.Split(orig, "\n"), strings.Split(back, "\n")
	if len(in) != len(out) {
		t.Fatalf("%d lines came back for %d after %s", len(out), len(in), via)
	}
	for i := range in {
		x, y := in[i], out[i]
		switch {
		case x == y:
		case !jsoneq.Equal(x, y):
			t.Errorf("line %d is not the same JSON value after %s:\n got %s\nwant %s", i+1, via, y, x)
		case dialecttest.ProducerForm(x) && slices.Equal(dialecttest.KeyPaths(gjson.Parse(x), "", nil), dialecttest.KeyPaths(gjson.Parse(y), "", nil)):
			t.Errorf("line %d is in the producer's form but not byte-identical after %s:\n got %s\nwant %s", i+1, via, y, x)
		}
	}
}

// TestRoundTripsThroughACPMeta runs every test stream of every dialect but
// acp through ACP with --acp-meta and back with --from acp: the way out
// must lose nothing (--strict) and write a stream acp's validator accepts,
// the way back must lose nothing, and the stream must come back as it was
// (sameStream), as a notification log and as a transcript alike.
func TestRoundTripsThroughACPMeta(t *testing.T) {
	for _, d := range targets() {
		if d == "acp" {
			continue
		}
		streams := streamsOf(t, d)
		if d != "canonical" && len(streams) == 0 {
			t.Errorf("%s has no test streams", d)
		}
		for _, s := range streams {
			for _, mode := range [][]string{nil, {"--transcript"}, {"--transcript", "--acp-profile", "unstable"}} {
				t.Run(d+"/"+s.label+strings.Join(mode, ""), func(t *testing.T) {
					args := append([]string{"convert", "--strict", "--from", d, "--to", "acp", "--acp-meta"}, mode...)
					acpOut, stderr, code := evtool(t, s.data, args...)
					if code != 0 {
						t.Fatalf("to acp --acp-meta: exit %d\n%s", code, stderr)
					}
					if vout, verr, vcode := evtool(t, []byte(acpOut), "validate", "--dialect", "acp", "-"); vcode != 0 {
						t.Fatalf("the acp output does not validate (exit %d):\n%s%s", vcode, firstLines(vout, 10), verr)
					}
					back, stderr, code := evtool(t, []byte(acpOut), "convert", "--strict", "--from", "acp", "--to", d)
					checkBack(t, d, s.data, code, stderr)
					if d == "canonical" {
						// Canonical lines are numbered in output order;
						// the seq of a hand-made stream need not be.
						sameStream(t, d, renumber(string(s.data)), back, "acp --acp-meta")
						return
					}
					sameStream(t, d, string(s.data), back, "acp --acp-meta")
				})
			}
		}
	}
}

// renumber rewrites the seq of every canonical line to its position, as
// evtool's canonical writer numbers them.
func renumber(stream string) string {
	lines := strings.SplitAfter(stream, "\n")
	for i, l := range lines {
		if v := gjson.Get(l, "seq"); v.Exists() {
			lines[i] = l[:v.Index] + fmt.Sprint(i) + l[v.Index+len(v.Raw):]
		}
	}
	return strings.Join(lines, "")
}
