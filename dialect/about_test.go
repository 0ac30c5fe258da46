package dialect_test

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
)

// notes is the start of a dialect that states its facts once, as data,
// and leaves Name, Description, Schema and Agent to dialect.Described; a
// whole dialect adds Sniff, NewDecoder, NewEncoder and NewChecker.
type notes struct{ dialect.Described[notes] }

// About implements dialect.Describer.
func (notes) About() dialect.About {
	return dialect.About{
		Name:        "notes",
		Description: "one note a line",
		Schema:      []byte(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object"}`),
	}
}

func ExampleDescribed() {
	var d notes // the zero value is the whole dialect
	fmt.Println(d.Name())
	fmt.Println(d.Description())
	fmt.Println(d.Agent()) // no Agent stated: the dialect's own name
	fmt.Println(len(d.Schema()) > 0)
	// Output:
	// notes
	// one note a line
	// notes
	// true
}

// writtenReadOnly states why it is read-only but embeds Described, and so
// is written: Register refuses it.
type writtenReadOnly struct {
	dialect.Described[writtenReadOnly]
}

func (writtenReadOnly) About() dialect.About {
	return dialect.About{Name: "written-read-only", ReadOnly: "a reason"}
}
func (writtenReadOnly) Sniff([]byte) bool                                { return false }
func (writtenReadOnly) NewDecoder(dialect.DecodeOptions) dialect.Decoder { return nil }
func (writtenReadOnly) NewEncoder(*bufio.Writer, dialect.EncodeOptions) dialect.Encoder {
	return nil
}
func (writtenReadOnly) NewChecker(dialect.CheckOptions) dialect.Checker { return nil }

// readOnly is the same dialect rightly made: read-only, its encoder
// failing.
type readOnly struct {
	dialect.DescribedReadOnly[readOnly]
}

func (readOnly) About() dialect.About {
	return dialect.About{Name: "read-only", Agent: "someone", ReadOnly: "a reason"}
}
func (readOnly) Sniff([]byte) bool                                { return false }
func (readOnly) NewDecoder(dialect.DecodeOptions) dialect.Decoder { return nil }
func (readOnly) NewChecker(dialect.CheckOptions) dialect.Checker  { return nil }

func TestDescribedReadOnly(t *testing.T) {
	var d dialect.Dialect = readOnly{}
	if dialect.Writable(d) {
		t.Fatal("a DescribedReadOnly dialect is writable")
	}
	if got := d.(dialect.ReadOnly).ReadOnly(); got != "a reason" {
		t.Errorf("ReadOnly() = %q", got)
	}
	if got := dialect.AgentOf(d); got != "someone" {
		t.Errorf("AgentOf = %q", got)
	}
	err := d.NewEncoder(bufio.NewWriter(io.Discard), dialect.EncodeOptions{}).Encode(&event.Event{})
	if !errors.Is(err, dialect.ErrReadOnly) || !strings.HasPrefix(err.Error(), "read-only: ") {
		t.Errorf("Encode: %v, want read-only: %v", err, dialect.ErrReadOnly)
	}
}

func TestRegisterWrittenReadOnly(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Register took a dialect that states why it is read-only but is written")
		}
	}()
	dialect.Register(writtenReadOnly{})
}
