// Package dialecttest checks that a dialect keeps every promise evtool
// makes of one, as testing/fstest.TestFS checks a file system: one call,
// Run, and its fuzzing twin, Fuzz, run the same checks on every dialect,
// evtool's own and one written in another module alike.
//
// A dialect's test file needs one line for each:
//
//	func TestDialect(t *testing.T)  { dialecttest.Run(t, mydialect.Dialect{}, dialecttest.Conventional("mine")) }
//	func FuzzRoundTrip(f *testing.F) { dialecttest.Fuzz(f, mydialect.Dialect{}, dialecttest.Conventional("mine")) }
//
// The checks run against the registry (package dialect): a dialect is
// judged among the others linked into the same test binary, so the test
// imports the dialects it must be told apart from (evtool's adapters
// import package adapters).
//
// Run checks, each in a subtest of that name (see Checks):
//
//	sniff      the first line of each of its streams sniffs as it and as no
//	           other dialect; it sniffs no other dialect's first line
//	schema     its full JSON Schema, its decoder and validate accept every
//	           line of its streams
//	invalid    validate finds a problem in each of its invalid streams
//	contract   accept.jsonl: schema, decoder and writer take each line and
//	           write it back; reject.jsonl: each line refused where it says
//	roundtrip  each stream through canonical text and back: nothing lost,
//	           lines byte for byte (or, where Corpus.Reordered says, JSON-equal)
//	keyorder   with the keys of every object sorted and reversed: the same
//	           canonical events, and lines back as the same JSON
//	golden     the canonical reading of each stream with a golden file
//	cross      every other dialect's streams, and the hand-made canonical
//	           streams, written as it: accepted by it, losses catalogued
//	losses     its loss catalogue is well formed
//	rules      its rule catalogue is well formed, and documented
//	memory     its encoder and checker keep a bounded heap over a long stream,
//	           and its checker and decoder little for each call left open
//	pinning    its decoder keeps no line alive: what it keeps is copied
//	mutation   no panic in decoder, checker or encoder on mutated lines
//
// A read-only dialect (dialect.ReadOnly) is read, never written: the
// checks of writing (roundtrip, cross, and the writing halves of contract,
// keyorder, memory and mutation) skip it, and its memory check needs its
// own long stream (Corpus.Memory).
//
// A dialect with no streams of its own (evtool's canonical model, the ACP
// projection) gets, as its streams, the other dialects' streams written as
// it; the checks that judge a reading against its source (round trip, key
// order, golden) skip them.
package dialecttest

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/evtool/evtool/convert"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/internal/testkit/teststreams"
)

// Corpus is what a dialect's tests know of it beyond its interface: its
// test streams and the facts no interface method tells. The zero value is
// valid; Conventional fills it from the folder layout.
type Corpus struct {
	// Valid are streams of the dialect that every reader must accept.
	Valid []string
	// Invalid are streams that each hold one bad line: validate must
	// report a problem (an error, or a warning for a rule that is one).
	Invalid []string
	// Golden is a directory of NAME.canonical.jsonl files: the reviewed
	// canonical reading of the stream NAME.jsonl among Valid. Every file
	// there must belong to a stream.
	Golden string
	// Contract is a directory with accept.jsonl (lines the producer's
	// types accept) and reject.jsonl (pairs of lines: {"pointer","schema"}
	// then a line the types refuse), or "".
	Contract string
	// Canonical are hand-made canonical streams to write as the dialect.
	Canonical []string
	// Others returns the valid streams of another dialect, for the sniff
	// and cross checks and for a dialect with no streams of its own. nil
	// finds them by convention in the module the test runs in.
	Others func(dialect string) []string
	// Docs is a file that must name every rule id of the dialect (in
	// backquotes), or "".
	Docs string

	// Header is a first line to put before a single line under test that
	// a stream cannot start with (contract, mutation and fuzz cases), or ""
	// when any line stands alone. A line of the header's "type" stands
	// alone.
	Header string
	// Reordered lists the 1-based lines of accept.jsonl whose keys are not
	// in the producer's order: they need only come back as the same JSON.
	Reordered []int
	// KeepsRefused says that a line the schema refuses but the decoder
	// reads is written back as it was.
	KeepsRefused bool
	// Lossy reports whether a single line (a fuzz or contract case) may
	// come back as other JSON: a line missing a field the writer always
	// writes, for example. nil means none.
	Lossy func(line string) bool
	// ByteExact lists streams every line of which comes back byte for
	// byte through canonical text, not only those in the producer's form.
	ByteExact []string
	// Verbatim says that the dialect keeps each line's layout: streams and
	// fuzzed lines come back byte for byte, whatever their white space.
	Verbatim bool
	// LayoutInResidue says that the residue keeps, for a line whose keys
	// are not in the producer's order, values it otherwise derives: the key
	// order check then compares canonical events without their residue.
	LayoutInResidue bool
	// Known names the checks, or the streams of a check ("cross/canonical/"
	// for all the hand-made canonical streams, "schema/NAME.jsonl" for one),
	// known to fail, and why: they are skipped with the reason, so that the
	// test output lists them until they are fixed. A key names every check
	// path it is a prefix of.
	Known map[string]string
	// ClosedCallBytes is the most the dialect's decoder may keep of each
	// call that finished, where it needs more than the kit's limit (64
	// bytes): a dialect says so with its reason.
	ClosedCallBytes int
	// OpenCallBytes is the most the dialect's checker and decoder may
	// keep of each call left open, where it needs more than the kit's
	// limit (160 bytes): a dialect says so with its reason.
	OpenCallBytes int
	// Memory adds a dialect's own long stream to the memory check, with
	// the findings its closed ids must still draw. nil: the generic stream
	// only.
	Memory *Memory
}

// Conventional returns the corpus of the dialect name as evtool lays it
// out, from the root of the module the test runs in (the nearest go.mod
// above the working directory):
//
//	testdata/streams/<name>/*.jsonl          Valid
//	testdata/probe/<name>/{valid,invalid}/   Valid, Invalid
//	adapters/<folder>/testdata/*.jsonl       Valid
//	adapters/<folder>/testdata/invalid/      Invalid
//	adapters/<folder>/testdata/golden/       Golden
//	adapters/<folder>/testdata/contract/     Contract
//	adapters/basis/testdata/canonical/       Canonical
//	docs/rules.md                            Docs
//
// and, beside the module, the shared captures (../shared/corpus/<name>,
// ../shared/dialects-next/captures/<name>, ../shared/ondisk/captures/).
// <folder> is the name without hyphens. A missing directory is left empty.
func Conventional(name string) Corpus { return ConventionalAt(teststreams.Root(), name) }

// ConventionalAt is Conventional for the module whose root is root; the
// other dialects' streams (Others) are found there too. A dialect written
// in another module may point Others at a checkout of evtool, to be
// written from every dialect's streams.
func ConventionalAt(root, name string) Corpus {
	c := Corpus{Valid: teststreams.ValidAt(root, name), Invalid: teststreams.InvalidAt(root, name)}
	c.Others = func(d string) []string { return teststreams.ValidAt(root, d) }
	dir := func(p ...string) string {
		p = append([]string{root}, p...)
		if st, err := os.Stat(filepath.Join(p...)); err == nil && st.IsDir() {
			return filepath.Join(p...)
		}
		return ""
	}
	c.Golden = dir("adapters", teststreams.Folder(name), "testdata", "golden")
	c.Contract = dir("adapters", teststreams.Folder(name), "testdata", "contract")
	// The hand-made canonical streams are written as every other dialect;
	// some break canonical's own rules on purpose, for the writers to mend.
	if d := dir("adapters", "basis", "testdata", "canonical"); d != "" && name != "canonical" {
		c.Canonical, _ = filepath.Glob(filepath.Join(d, "*.jsonl"))
	}
	if _, err := os.Stat(filepath.Join(root, "docs", "rules.md")); err == nil {
		c.Docs = filepath.Join(root, "docs", "rules.md")
	}
	return c
}

// A check is one promise Run verifies, by name.
type check struct {
	name string
	what string
	run  func(k *kit, t *testing.T)
}

// checks lists Run's checks in the order they run.
var checks = []check{
	{"sniff", "its first lines sniff as it, and as no other dialect", (*kit).sniff},
	{"schema", "schema, decoder and validate accept its streams", (*kit).schema},
	{"invalid", "validate finds the bad line of each invalid stream", (*kit).invalid},
	{"contract", "the producer's accepted and refused lines", (*kit).contract},
	{"roundtrip", "through canonical text and back, byte for byte", (*kit).roundTrip},
	{"keyorder", "keys sorted and reversed: same events, same JSON back", (*kit).keyOrder},
	{"golden", "canonical readings match the reviewed goldens", (*kit).golden},
	{"cross", "every other dialect's streams written as it are valid", (*kit).cross},
	{"losses", "its loss catalogue is well formed", (*kit).losses},
	{"rules", "its rule catalogue is well formed and documented", (*kit).rules},
	{"memory", "encoder and checker keep a bounded heap", (*kit).memory},
	{"pinning", "a decoder keeps no line alive: what it keeps is copied", (*kit).pinning},
	{"mutation", "no panic on mutated lines", (*kit).mutation},
}

// Checks returns the names of Run's checks, in order, and what each
// proves.
func Checks() (names, what []string) {
	for _, c := range checks {
		names = append(names, c.name)
		what = append(what, c.what)
	}
	return names, what
}

// Applies reports, for each of Run's checks in order, whether it has
// anything to check for d with corpus c, and if not, why: a check with
// nothing to check passes.
func Applies(d dialect.Dialect, c Corpus) []string {
	own := len(c.Valid) > 0
	out := make([]string, len(checks))
	for i, ch := range checks {
		why := ""
		switch ch.name {
		case "invalid":
			if len(c.Invalid) == 0 {
				why = "no invalid streams"
			}
		case "contract":
			if c.Contract == "" {
				why = "no contract cases"
			}
		case "roundtrip", "cross":
			if !dialect.Writable(d) {
				why = "read-only: evtool does not write it"
			} else if !own && ch.name == "roundtrip" {
				why = "no streams of its own"
			}
		case "keyorder":
			if !own {
				why = "no streams of its own"
			}
		case "golden":
			if c.Golden == "" || !own {
				why = "no goldens"
			}
		case "rules":
			if l, ok := d.(dialect.RuleLister); !ok || len(l.Rules()) == 0 {
				why = "no rule catalogue"
			}
		}
		out[i] = why
	}
	return out
}

// kit is one run of the checks on one dialect.
type kit struct {
	d dialect.Dialect
	c Corpus
	// own is false when the dialect has no streams of its own, and
	// streams are the other dialects' written as it.
	own bool
	// writable is false for a read-only dialect: nothing is written as it.
	writable bool
	streams  []string
	derived  map[string][]byte // stream path → content, for derived streams
}

// Run checks that d keeps every promise of a dialect, with its corpus c,
// each check in a subtest (see the package documentation). It logs which
// checks had nothing to check.
func Run(t *testing.T, d dialect.Dialect, c Corpus) {
	t.Helper()
	k := newKit(t, d, c)
	skipped := Applies(d, c)
	for i, ch := range checks {
		t.Run(ch.name, func(t *testing.T) {
			if skipped[i] != "" {
				t.Skip(skipped[i])
			}
			k.known(t, ch.name)
			ch.run(k, t)
		})
	}
}

func newKit(t testing.TB, d dialect.Dialect, c Corpus) *kit {
	k := &kit{d: d, c: c, own: len(c.Valid) > 0, writable: dialect.Writable(d), streams: c.Valid}
	if _, err := dialect.Lookup(d.Name()); err != nil {
		t.Fatalf("%s is not registered: %v", d.Name(), err)
	}
	if k.own {
		return k
	}
	// No streams of its own: the other dialects' streams written as it.
	k.derived = map[string][]byte{}
	for _, o := range others(d) {
		for _, f := range k.others(o.Name()) {
			out, _ := convertFile(t, f, o, d)
			name := f + " → " + d.Name()
			k.streams = append(k.streams, name)
			k.derived[name] = out
		}
	}
	return k
}

// known skips t if the corpus says the check path fails.
func (k *kit) known(t *testing.T, path string) {
	t.Helper()
	for key, why := range k.c.Known {
		if strings.HasPrefix(path, key) && (len(path) == len(key) || strings.HasSuffix(key, "/") || path[len(key)] == '/') {
			t.Skipf("known to fail: %s", why)
		}
	}
}

// others returns the valid streams of another dialect.
func (k *kit) others(name string) []string {
	if k.c.Others != nil {
		return k.c.Others(name)
	}
	return teststreams.Valid(name)
}

// read returns the content of one of the kit's streams.
func (k *kit) read(t testing.TB, f string) []byte {
	t.Helper()
	if b, ok := k.derived[f]; ok {
		return b
	}
	b, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// others returns the registered dialects but d, sorted by name.
func others(d dialect.Dialect) []dialect.Dialect {
	var out []dialect.Dialect
	for _, o := range dialect.All() {
		if o.Name() != d.Name() {
			out = append(out, o)
		}
	}
	return out
}

// convertFile converts a stream file from one dialect to another, as
// evtool convert does, requiring that no line has a problem.
func convertFile(t testing.TB, f string, from, to dialect.Dialect) ([]byte, *dialect.Losses) {
	t.Helper()
	in, err := os.Open(f)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	var out bytes.Buffer
	res, err := convert.Run(in, &out, f, convert.Options{From: from, To: to}, func(le *convert.LineError) {
		if le.Severity == dialect.Error {
			t.Errorf("%s --from %s --to %s: %v", filepath.Base(f), from.Name(), to.Name(), le)
		}
	})
	if err != nil {
		t.Fatalf("%s --from %s --to %s: %v", f, from.Name(), to.Name(), err)
	}
	return out.Bytes(), res.Losses
}

// lines splits a stream into its lines, without their terminators; a
// final newline ends the last line and starts none.
func lines(data []byte) []string {
	s := strings.TrimSuffix(string(data), "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// base names a stream in messages.
func base(f string) string { return filepath.Base(f) }

// sortedKeys returns the keys of a set, sorted.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// flushTo returns a writer on buf for an encoder.
func flushTo(buf *bytes.Buffer) *bufio.Writer { return bufio.NewWriter(buf) }
