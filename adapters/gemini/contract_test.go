package gemini_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/evtool/evtool/internal/schematest"

	"github.com/evtool/evtool/adapters/gemini"
	"github.com/evtool/evtool/dialect"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// TestContractAccepts reads lines the producer's types allow
// (testdata/contract/accept.jsonl, written from them): the schema and the
// decoder take them, and they come back byte for byte.
func TestContractAccepts(t *testing.T) {
	s := schematest.Compile(t, gemini.Dialect{})
	for i, l := range readLines(t, "testdata/contract/accept.jsonl") {
		if err := schematest.Check(s, l); err != nil {
			t.Errorf("line %d: the schema rejects a line the types allow: %v\n%s", i+1, err, l)
		}
		in := []string{header, l}
		if strings.Contains(l, `"type":"init"`) {
			in = []string{l}
		}
		back := roundTrip(t, in)
		if strings.Join(back, "\n") != strings.Join(in, "\n") {
			t.Errorf("line %d is not written back byte for byte:\n in: %s\nout: %s", i+1, l, back[len(back)-1])
		}
	}
}

// TestContractRejects reads lines the types refuse, each after a
// {"pointer","schema"} line: the schema refuses those whose fault it can
// see; the decoder refuses the others (an integer's literal form) at the
// value's pointer, saying what it got and what it wants.
func TestContractRejects(t *testing.T) {
	s := schematest.Compile(t, gemini.Dialect{})
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
		_, derr := gemini.Dialect{}.NewDecoder(dialect.DecodeOptions{}).Decode(nil, []byte(l), 1) // must not panic
		if want.Schema {
			var ve *jsonschema.ValidationError
			if !errors.As(serr, &ve) {
				t.Errorf("line %d: the schema accepts a line the types refuse:\n%s", i+2, l)
			} else if !strings.Contains(ve.Error(), "'"+want.Pointer) && !strings.Contains(ve.Error(), "at '"+strings.TrimSuffix(want.Pointer, "/"+lastSeg(want.Pointer))+"'") {
				t.Errorf("line %d: the schema error is not at %s: %v", i+2, want.Pointer, ve)
			}
			if derr == nil {
				// The reader keeps a line the schema refuses: written back
				// as it was.
				if back := roundTrip(t, []string{header, l}); back[len(back)-1] != l {
					t.Errorf("line %d is not written back as it was:\n in: %s\nout: %s", i+2, l, back[len(back)-1])
				}
			}
			continue
		}
		if serr != nil {
			t.Errorf("line %d: the schema rejects a line it cannot judge: %v", i+2, serr)
		}
		var fe *gemini.DecodeError
		if !errors.As(derr, &fe) {
			t.Errorf("line %d: the decoder accepts a line the types refuse (err %v):\n%s", i+2, derr, l)
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

func lastSeg(p string) string { return p[strings.LastIndexByte(p, '/')+1:] }
