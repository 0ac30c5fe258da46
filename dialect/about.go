package dialect

import "bufio"

// About is what a dialect states about itself rather than computes: the
// facts behind its Name, Description, Schema and Agent methods.
type About struct {
	// Name is the dialect's name on the command line, e.g. "basis".
	Name string
	// Agent names the agent that writes the dialect, as Producer does;
	// empty for a dialect no one agent writes, which is then named by
	// its Name (as AgentOf names a dialect that is no Producer).
	Agent string
	// Description is a one-line summary for `evtool dialects`.
	Description string
	// Schema is the dialect's published JSON Schema for one line,
	// usually embedded from the dialect's own folder.
	Schema []byte
	// ReadOnly says why evtool does not write the dialect, for a dialect
	// that embeds DescribedReadOnly; empty for every other.
	ReadOnly string
}

// Describer is implemented by a dialect that states its facts as an
// About, for Described to report.
type Describer interface {
	About() About
}

// Described implements the methods of a dialect that only report its
// facts: Name, Description and Schema of Dialect, and Agent of Producer.
// A dialect D embeds Described[D] and implements Describer, and so writes
// its facts once, as data, and as methods only what it does: Sniff,
// NewDecoder, NewEncoder, NewChecker, and the optional interfaces it
// implements. A read-only dialect embeds DescribedReadOnly instead.
//
// Described is empty: it asks a zero D for its About each time, so that
// a dialect's zero value, the form Register and the tests take it in, is
// the whole dialect.
type Described[D Describer] struct{}

func (Described[D]) about() About {
	var d D
	return d.About()
}

// Name implements Dialect.
func (d Described[D]) Name() string { return d.about().Name }

// Description implements Dialect.
func (d Described[D]) Description() string { return d.about().Description }

// Schema implements Dialect.
func (d Described[D]) Schema() []byte { return d.about().Schema }

// Agent implements Producer: About.Agent, or the dialect's name when that
// is empty, which is what AgentOf says of a dialect that is no Producer.
func (d Described[D]) Agent() string {
	if a := d.about(); a.Agent != "" {
		return a.Agent
	}
	return d.Name()
}

// DescribedReadOnly is Described for a read-only dialect: it implements
// ReadOnly as well, with About.ReadOnly, and a NewEncoder whose encoder
// fails (ReadOnlyEncoder), so that the dialect writes as methods only
// Sniff, NewDecoder and NewChecker.
type DescribedReadOnly[D Describer] struct{ Described[D] }

// ReadOnly implements ReadOnly.
func (d DescribedReadOnly[D]) ReadOnly() string { return d.about().ReadOnly }

// NewEncoder implements Dialect: evtool does not write the dialect, and
// every Encode fails with ErrReadOnly.
func (d DescribedReadOnly[D]) NewEncoder(*bufio.Writer, EncodeOptions) Encoder {
	return ReadOnlyEncoder(d.Name())
}
