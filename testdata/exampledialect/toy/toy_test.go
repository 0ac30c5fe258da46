package toy_test

import (
	"path/filepath"
	"testing"

	"example.com/toydialect/toy"
	_ "github.com/evtool/evtool/adapters" // judged among evtool's own dialects
	"github.com/evtool/evtool/dialecttest"
)

// evtoolRoot is the evtool checkout this module's go.mod replaces evtool
// with: the other dialects' streams, written as toy, are read from there.
const evtoolRoot = "../../.."

func corpus(t testing.TB) dialecttest.Corpus {
	root, err := filepath.Abs(evtoolRoot)
	if err != nil {
		t.Fatal(err)
	}
	c := dialecttest.Conventional(toy.Name)
	theirs := dialecttest.ConventionalAt(root, toy.Name)
	c.Others, c.Canonical = theirs.Others, theirs.Canonical
	c.Header = `{"toy":1,"kind":"start","session":"s"}` // a single line is read after a start
	return c
}

// TestDialect runs evtool's conformance kit on the toy dialect.
func TestDialect(t *testing.T) { dialecttest.Run(t, toy.Dialect{}, corpus(t)) }

// FuzzRoundTrip: no toy line makes it panic, and one it reads comes back.
func FuzzRoundTrip(f *testing.F) { dialecttest.Fuzz(f, toy.Dialect{}, corpus(f)) }
