package codex_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/evtool/evtool/internal/schematest"

	"github.com/evtool/evtool/adapters/codex"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/internal/jsoneq"
	"github.com/evtool/evtool/internal/jsonkeys"
	"github.com/tidwall/gjson"
)

const header = `{"type":"thread.started","thread_id":"t"}`

// reordered lists the accept lines whose keys are not in the producer's
// order: they come back as the same JSON in the producer's order.
var reordered = map[int]bool{10: true, 28: true}

// TestContractAccepts reads lines Codex's serde types (or its SDK) accept:
// the schema and the decoder take them, and they come back byte for byte
// after a header (a thread.started alone).
func TestContractAccepts(t *testing.T) {
	s := schematest.Compile(t, codex.Dialect{})
	for i, l := range readLines(t, "testdata/contract/accept.jsonl") {
		if err := schematest.Check(s, l); err != nil {
			t.Errorf("line %d: the schema rejects a line Codex accepts: %v\n%s", i+1, err, l)
		}
		in := []string{header, l}
		if gjson.Get(l, "type").Str == "thread.started" {
			in = []string{l}
		}
		back, losses := fromCanonical(t, toCanonical(t, in))
		if !losses.Empty() {
			t.Errorf("line %d: losses %v", i+1, losses.List())
		}
		got := back[len(back)-1]
		if !jsoneq.Equal(got, l) {
			t.Errorf("line %d is not written back as the same JSON:\n in: %s\nout: %s", i+1, l, got)
		} else if got != l && !reordered[i+1] {
			t.Errorf("line %d is not written back byte for byte:\n in: %s\nout: %s", i+1, l, got)
		}
	}
}

// TestContractRejects reads lines Codex's serde types refuse: the schema
// refuses those whose fault it can see, the decoder the others (integer
// literal form), at the value's pointer, saying what it got and wants.
func TestContractRejects(t *testing.T) {
	s := schematest.Compile(t, codex.Dialect{})
	lines := readLines(t, "testdata/contract/reject.jsonl")
	for i := 0; i+1 < len(lines); i += 2 {
		var want struct {
			Pointer string
			Schema  bool
		}
		if err := json.Unmarshal([]byte(lines[i]), &want); err != nil {
			t.Fatal(err)
		}
		l := lines[i+1]
		serr := schematest.Check(s, l)
		dec := codex.Dialect{}.NewDecoder(dialect.DecodeOptions{})
		dec.Decode(nil, []byte(header), 1)
		_, derr := dec.Decode(nil, []byte(l), 2) // must not panic
		if want.Schema {
			if serr == nil {
				t.Errorf("line %d: the schema accepts a line Codex refuses:\n%s", i+2, l)
			} else if !strings.Contains(serr.Error(), want.Pointer) {
				t.Errorf("line %d: the schema error is not at %s: %v", i+2, want.Pointer, serr)
			}
			continue
		}
		if serr != nil {
			t.Errorf("line %d: the schema rejects a line it cannot judge: %v", i+2, serr)
		}
		var fe *codex.DecodeError
		if !errors.As(derr, &fe) {
			t.Errorf("line %d: the decoder accepts a line Codex refuses (err %v):\n%s", i+2, derr, l)
			continue
		}
		if fe.Pointer != want.Pointer {
			t.Errorf("line %d: error at %q, want %q: %v", i+2, fe.Pointer, want.Pointer, fe)
		}
		got, wanted, ok := strings.Cut(strings.TrimPrefix(fe.Msg, "got "), ", want ")
		if !strings.HasPrefix(fe.Msg, "got ") || !ok || got == wanted {
			t.Errorf("line %d: message %q does not say what it got and what it wants", i+2, fe.Msg)
		}
	}
}

// TestKeyOrder reads every test stream with the keys of every object
// sorted and reversed: the canonical events are the same but for the
// residue's own order, and the lines come back as the same JSON.
func TestKeyOrder(t *testing.T) {
	for _, f := range streams(t) {
		lines := readLines(t, f)
		want := toCanonical(t, lines)
		for _, o := range []jsonkeys.Order{jsonkeys.Sorted, jsonkeys.Reversed} {
			var re []string
			for _, l := range lines {
				re = append(re, string(jsonkeys.Reorder([]byte(l), o)))
			}
			got := toCanonical(t, re)
			if len(got) != len(want) {
				t.Fatalf("%s: %d canonical lines, want %d", f, len(got), len(want))
			}
			for i := range got {
				a, b := jsonkeys.Reorder([]byte(want[i]), jsonkeys.Sorted), jsonkeys.Reorder([]byte(got[i]), jsonkeys.Sorted)
				if !bytes.Equal(a, b) {
					t.Errorf("%s: canonical line %d depends on key order:\n%s\n%s", f, i+1, want[i], got[i])
				}
			}
			back, _ := fromCanonical(t, got)
			for i := range re {
				if !jsoneq.Equal(re[i], back[i]) {
					t.Errorf("%s: line %d:\n in: %s\nout: %s", f, i+1, re[i], back[i])
				}
			}
		}
	}
}
